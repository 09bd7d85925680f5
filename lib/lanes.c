/* lanes.c: one lane of each rack operation, in binary32. */
#include "lanes.h"

#include <math.h>
#include <string.h>

float rk_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint32_t rk_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

bool rk_f32_is_nan(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }

uint32_t rk_f32_min(uint32_t a, uint32_t b)
{
    if (rk_f32_is_nan(a) || rk_f32_is_nan(b))
        return RK_CANONICAL_NAN;
    float x = rk_f32(a), y = rk_f32(b);
    if (x == 0 && y == 0)
        return (a | b) & 0x80000000u ? 0x80000000u : 0;
    return y < x ? b : a;
}

uint32_t rk_f32_max(uint32_t a, uint32_t b)
{
    if (rk_f32_is_nan(a) || rk_f32_is_nan(b))
        return RK_CANONICAL_NAN;
    float x = rk_f32(a), y = rk_f32(b);
    if (x == 0 && y == 0)
        return (a & b) & 0x80000000u ? 0x80000000u : 0;
    return y > x ? b : a;
}

uint32_t rk_f32_abs(uint32_t a) { return a & 0x7fffffffu; }
uint32_t rk_f32_neg(uint32_t a) { return a ^ 0x80000000u; }

static uint32_t quiet(uint32_t a) { return a | 0x00400000u; }

uint32_t rk_f32_sqrt(uint32_t a)
{
    if (rk_f32_is_nan(a))
        return quiet(a);
    return rk_bits(sqrtf(rk_f32(a)));
}

uint32_t rk_f32_floor(uint32_t a)
{
    return rk_f32_is_nan(a) ? quiet(a) : rk_bits(floorf(rk_f32(a)));
}

uint32_t rk_f32_ceil(uint32_t a)
{
    return rk_f32_is_nan(a) ? quiet(a) : rk_bits(ceilf(rk_f32(a)));
}

uint32_t rk_f32_trunc(uint32_t a)
{
    return rk_f32_is_nan(a) ? quiet(a) : rk_bits(truncf(rk_f32(a)));
}

/* Ties to even without depending on the rounding mode. */
uint32_t rk_f32_nearest(uint32_t a)
{
    if (rk_f32_is_nan(a))
        return quiet(a);
    float x = rk_f32(a);
    if (!(fabsf(x) < 8388608.0f)) /* 2^23: already integral (or infinite) */
        return a;
    float t = truncf(x);
    float diff = fabsf(x - t);
    float r = t;
    if (diff > 0.5f || (diff == 0.5f && fmodf(t, 2.0f) != 0))
        r = t + (x < 0 ? -1.0f : 1.0f);
    return rk_bits(copysignf(r, x));
}

uint32_t rk_f32_fma(uint32_t a, uint32_t b, uint32_t c)
{
    return rk_bits(fmaf(rk_f32(a), rk_f32(b), rk_f32(c)));
}

int32_t rk_f32_to_i32(uint32_t a)
{
    if (rk_f32_is_nan(a))
        return 0;
    float r = rk_f32(rk_f32_nearest(a));
    if (r >= 2147483648.0f)
        return INT32_MAX;
    if (r < -2147483648.0f)
        return INT32_MIN;
    return (int32_t)r;
}

uint32_t rk_f32_to_u32(uint32_t a)
{
    if (rk_f32_is_nan(a))
        return 0;
    float r = rk_f32(rk_f32_nearest(a));
    if (r <= 0)
        return 0;
    if (r >= 4294967296.0f)
        return UINT32_MAX;
    return (uint32_t)r;
}

uint32_t rk_i32_to_f32(int32_t a) { return rk_bits((float)a); }
uint32_t rk_u32_to_f32(uint32_t a) { return rk_bits((float)a); }

/* --- Cephes ----------------------------------------------------------------
 * Each function is the Cephes single-precision algorithm with every
 * constant a binary32 literal and every operation rounded to binary32, plus
 * explicit special cases where Cephes would reach undefined C (NaN to int,
 * out-of-range exponents).  scale() is the fixed two-step ldexp. */

static float scale(float z, int n)
{
    int n1 = n / 2, n2 = n - n1;
    float p1 = rk_f32((uint32_t)(n1 + 127) << 23);
    float p2 = rk_f32((uint32_t)(n2 + 127) << 23);
    return (z * p1) * p2;
}

uint32_t rk_f32_exp(uint32_t a)
{
    if (rk_f32_is_nan(a))
        return quiet(a);
    float x = rk_f32(a);
    if (x > 88.72283905206835f)
        return 0x7f800000u;
    if (x < -103.278929903431851103f)
        return 0;
    float z = floorf(1.44269504088896341f * x + 0.5f);
    x -= z * 0.693359375f;
    x -= z * -2.12194440e-4f;
    int n = (int)z;
    z = x * x;
    float p = 1.9875691500e-4f;
    p = p * x + 1.3981999507e-3f;
    p = p * x + 8.3334519073e-3f;
    p = p * x + 4.1665795894e-2f;
    p = p * x + 1.6666665459e-1f;
    p = p * x + 5.0000001201e-1f;
    z = p * z + x + 1.0f;
    return rk_bits(scale(z, n));
}

/* frexp in binary32: x = m * 2^e with m in [0.5, 1), x finite and > 0. */
static float split(float x, int *e)
{
    uint32_t b = rk_bits(x);
    int bias = 0;
    if ((b & 0x7f800000u) == 0) { /* subnormal: scale by 2^23, exactly */
        x *= 8388608.0f;
        b = rk_bits(x);
        bias = 23;
    }
    *e = (int)((b >> 23) & 0xff) - 126 - bias;
    return rk_f32((b & 0x807fffffu) | 0x3f000000u);
}

static float log_poly(float x)
{
    float y = 7.0376836292e-2f;
    y = y * x - 1.1514610310e-1f;
    y = y * x + 1.1676998740e-1f;
    y = y * x - 1.2420140846e-1f;
    y = y * x + 1.4249322787e-1f;
    y = y * x - 1.6668057665e-1f;
    y = y * x + 2.0000714765e-1f;
    y = y * x - 2.4999993993e-1f;
    y = y * x + 3.3333331174e-1f;
    return y;
}

/* The common start of log and log2; false when the answer is special. */
static bool log_start(uint32_t a, uint32_t *special, float *x, float *z, float *y, int *e)
{
    if (rk_f32_is_nan(a)) {
        *special = quiet(a);
        return false;
    }
    float v = rk_f32(a);
    if (v == 0) {
        *special = 0xff800000u; /* -inf */
        return false;
    }
    if (v < 0) {
        *special = RK_CANONICAL_NAN;
        return false;
    }
    if (v == INFINITY) {
        *special = a;
        return false;
    }
    float m = split(v, e);
    if (m < 0.707106781186547524f) {
        *e -= 1;
        m = m + m - 1.0f;
    } else {
        m = m - 1.0f;
    }
    *x = m;
    *z = m * m;
    *y = log_poly(m) * m * *z;
    return true;
}

uint32_t rk_f32_log(uint32_t a)
{
    uint32_t special;
    float x, z, y;
    int e;
    if (!log_start(a, &special, &x, &z, &y, &e))
        return special;
    float fe = (float)e;
    y += -2.12194440e-4f * fe;
    y += -0.5f * z;
    z = x + y;
    z += 0.693359375f * fe;
    return rk_bits(z);
}

uint32_t rk_f32_log2(uint32_t a)
{
    uint32_t special;
    float x, z, y;
    int e;
    if (!log_start(a, &special, &x, &z, &y, &e))
        return special;
    y += -0.5f * z;
    z = y * 0.44269504088896340735992f;
    z += x * 0.44269504088896340735992f;
    z += y;
    z += x;
    z += (float)e;
    return rk_bits(z);
}

uint32_t rk_f32_tanh(uint32_t a)
{
    if (rk_f32_is_nan(a))
        return quiet(a);
    float xx = rk_f32(a);
    float x = fabsf(xx);
    if (x > 44.361419555836499f)
        return xx > 0 ? rk_bits(1.0f) : rk_bits(-1.0f);
    float z;
    if (x >= 0.625f) {
        x = rk_f32(rk_f32_exp(rk_bits(x + x)));
        z = 1.0f - 2.0f / (x + 1.0f);
        if (xx < 0)
            z = -z;
    } else {
        z = x * x;
        float p = -5.70498872745e-3f;
        p = p * z + 2.06390887954e-2f;
        p = p * z - 5.37397155531e-2f;
        p = p * z + 1.33314422036e-1f;
        p = p * z - 3.33332819422e-1f;
        z = p * z * xx + xx;
    }
    return rk_bits(z);
}

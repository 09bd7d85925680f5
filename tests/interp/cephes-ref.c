/* tests/interp/cephes-ref.c: an independent binary32 transcription of
 * Cephes' expf, logf, log2f and tanhf (Stephen L. Moshier, Cephes Math
 * Library 2.2, single precision), compared bit for bit with lib/lanes.c's
 * rk_f32_exp, rk_f32_log, rk_f32_log2 and rk_f32_tanh over a sweep of
 * inputs, and with libm's double-precision functions to a few ulps.
 *
 * Rake defines these functions as the Cephes sequences with every
 * constant a binary32 literal and every operation rounded to binary32
 * (02-primitives: "fixed binary32 sequences"), so the transcription
 * below follows the Cephes source operation by operation with float
 * constants; frexpf and ldexpf are the C library's.  It covers the range
 * where Cephes itself is defined: exp on [MINLOGF, MAXLOGF], log and log2
 * on positive finite numbers, tanh on finite numbers.  The special cases
 * around it (NaN, infinities, zero, overflow) are Rake's choices and are
 * pinned by tests/interp/cephes_goldens.rk instead.
 *
 *   cc -std=c11 -O1 -ffp-contract=off -Ilib tests/interp/cephes-ref.c \
 *      build/lib/librake.a -lm && ./a.out
 * prints a summary and exits 1 on any difference. */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lanes.h"

#define MAXLOGF 88.72283905206835f
#define MINLOGF (-103.278929903431851103f)
#define LOG2EF 1.44269504088896341f
#define SQRTHF 0.707106781186547524f
#define LOG2EA 0.44269504088896340735992f

static float ref_expf(float xx)
{
    float x = xx, z;
    int n;
    z = floorf(LOG2EF * x + 0.5f);
    x -= z * 0.693359375f;
    x -= z * -2.12194440e-4f;
    n = (int)z;
    z = x * x;
    z = (((((1.9875691500E-4f * x + 1.3981999507E-3f) * x + 8.3334519073E-3f) * x +
           4.1665795894E-2f) * x + 1.6666665459E-1f) * x + 5.0000001201E-1f) * z + x + 1.0f;
    return ldexpf(z, n);
}

static float ref_logf(float xx)
{
    float x, y, z, fe = 0.0f;
    int e;
    x = frexpf(xx, &e);
    if (x < SQRTHF) {
        e -= 1;
        x = x + x - 1.0f;
    } else {
        x = x - 1.0f;
    }
    z = x * x;
    y = ((((((((7.0376836292E-2f * x - 1.1514610310E-1f) * x + 1.1676998740E-1f) * x -
              1.2420140846E-1f) * x + 1.4249322787E-1f) * x - 1.6668057665E-1f) * x +
           2.0000714765E-1f) * x - 2.4999993993E-1f) * x + 3.3333331174E-1f) * x * z;
    if (e) {
        fe = (float)e;
        y += -2.12194440e-4f * fe;
    }
    y += -0.5f * z;
    z = x + y;
    if (e)
        z += 0.693359375f * fe;
    return z;
}

static float ref_log2f(float xx)
{
    float x, y, z;
    int e;
    x = frexpf(xx, &e);
    if (x < SQRTHF) {
        e -= 1;
        x = x + x - 1.0f;
    } else {
        x = x - 1.0f;
    }
    z = x * x;
    y = ((((((((7.0376836292E-2f * x - 1.1514610310E-1f) * x + 1.1676998740E-1f) * x -
              1.2420140846E-1f) * x + 1.4249322787E-1f) * x - 1.6668057665E-1f) * x +
           2.0000714765E-1f) * x - 2.4999993993E-1f) * x + 3.3333331174E-1f) * x * z;
    y += -0.5f * z;
    z = y * LOG2EA;
    z += x * LOG2EA;
    z += y;
    z += x;
    z += (float)e;
    return z;
}

static float ref_tanhf(float x)
{
    float s, z = fabsf(x);
    if (z > 0.5f * MAXLOGF)
        return x > 0 ? 1.0f : -1.0f;
    if (z >= 0.625f) {
        s = ref_expf(z + z);
        z = 1.0f - 2.0f / (s + 1.0f);
        if (x < 0)
            z = -z;
    } else {
        z = x * x;
        z = ((((-5.70498872745E-3f * z + 2.06390887954E-2f) * z - 5.37397155531E-2f) * z +
              1.33314422036E-1f) * z - 3.33332819422E-1f) * z * x + x;
    }
    return z;
}

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float from(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static long diffs, checked;

/* ulps between a and b (same sign assumed, or both tiny) */
static long ulps(float a, float b)
{
    int32_t x = (int32_t)bits(a), y = (int32_t)bits(b);
    if (x < 0)
        x = (int32_t)0x80000000 - x;
    if (y < 0)
        y = (int32_t)0x80000000 - y;
    return labs((long)x - (long)y);
}

static void one(const char *name, uint32_t (*rk)(uint32_t), float (*ref)(float),
                double (*libm)(double), float x, long max_ulps)
{
    uint32_t got = rk(bits(x)), want = bits(ref(x));
    float exact = (float)libm((double)x);
    checked++;
    if (got != want) {
        if (diffs++ < 20)
            printf("%s(%.9g = 0x%08x): lanes.c 0x%08x, Cephes 0x%08x\n", name, x, bits(x), got,
                   want);
    } else if (isfinite(exact) && fabsf(exact) > 1e-37f && ulps(from(got), exact) > max_ulps) {
        if (diffs++ < 20)
            printf("%s(%.9g): 0x%08x is %ld ulps from libm's %.9g\n", name, x, got,
                   ulps(from(got), exact), exact);
    }
}

int main(void)
{
    /* every 4099th bit pattern, plus a dense sweep near the interesting
     * points, restricted to each function's Cephes domain */
    for (uint64_t b = 0; b <= 0xffffffffu; b += 4099) {
        float x = from((uint32_t)b);
        if (!isfinite(x))
            continue;
        if (x >= MINLOGF && x <= 88.0f)
            one("exp", rk_f32_exp, ref_expf, exp, x, 2);
        if (x > 0) {
            one("log", rk_f32_log, ref_logf, log, x, 2);
            one("log2", rk_f32_log2, ref_log2f, log2, x, 2);
        }
        one("tanh", rk_f32_tanh, ref_tanhf, tanh, x, 3);
    }
    for (float x = -2.0f; x <= 2.0f; x += 1.0f / 1024) {
        one("exp", rk_f32_exp, ref_expf, exp, x, 2);
        one("tanh", rk_f32_tanh, ref_tanhf, tanh, x, 3);
        if (x > 0) {
            one("log", rk_f32_log, ref_logf, log, x, 2);
            one("log2", rk_f32_log2, ref_log2f, log2, x, 2);
        }
    }
    printf("cephes-ref: %ld inputs, %ld differences\n", checked, diffs);
    return diffs ? 1 : 0;
}

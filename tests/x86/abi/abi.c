/* tests/x86/abi/abi.c: calls the kernels of abi.rk from C, through the
 * header `rakec --emit-header` wrote (abi.h, found with -I), on the profile
 * the compiler flags select (-msse2, -mavx2 -mfma or -mavx512f).
 * tests/50-x86.bats builds and runs it for each x86 profile (x86-avx512
 * only where the CPU has avx512f).
 *
 * Beyond the declared C types, it calls kernels through function pointers
 * cast to other integer types, to see exactly what crosses the boundary:
 *   - a bool argument as a uint32_t with garbage in its upper bits
 *     (0xfffffffe, 0x00000101, ...): only bit 0 may count;
 *   - a bool result as the full eax, which must be exactly 0 or 1;
 *   - an i32 result as the full eax, a u32 bitmask with no bits above the
 *     lane count, an f32 extraction bit for bit (a signalling NaN stays
 *     signalling).
 * Compile with -ffp-contract=off: the expected values are computed here in
 * C, with one rounding per operation as the kernels do outside fused
 * regions.  Prints each failure and a summary line; exits 1 on a failure. */
#include "abi.h"

#include <stdio.h>
#include <string.h>

#if defined(__AVX512F__)
#define LANES 16
typedef __m512 VF;
typedef __m512i VI;
#elif defined(__AVX2__)
#define LANES 8
typedef __m256 VF;
typedef __m256i VI;
#else
#define LANES 4
typedef __m128 VF;
typedef __m128i VI;
#endif

static int checks, failures;

static void check(int ok, const char *what, unsigned long long got, unsigned long long want)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL: %s: got 0x%llx, want 0x%llx\n", what, got, want);
    }
}

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float bitsf(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static VF vf(const float *x)
{
    VF v;
    memcpy(&v, x, sizeof v);
    return v;
}

static VI vi(const uint32_t *x)
{
    VI v;
    memcpy(&v, x, sizeof v);
    return v;
}

static void check_vf(VF got, const float *want, const char *what)
{
    float g[LANES];
    memcpy(g, &got, sizeof g);
    for (int l = 0; l < LANES; l++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s, lane %d", what, l);
        check(fbits(g[l]) == fbits(want[l]), buf, fbits(g[l]), fbits(want[l]));
    }
}

static void check_vi(VI got, const uint32_t *want, const char *what)
{
    uint32_t g[LANES];
    memcpy(g, &got, sizeof g);
    for (int l = 0; l < LANES; l++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s, lane %d", what, l);
        check(g[l] == want[l], buf, g[l], want[l]);
    }
}

/* C bools with garbage in the upper bits, and what they mean */
static const uint32_t garbage[] = {0, 1, 0xfffffffe, 0x00000101, 0x80000000, 0xffffffff,
                                   0x00000100, 2, 0x7fffffff, 0xaaaaaaaa, 0x55555555};

/* the kernels as the integer registers really carry them */
typedef VF (*pick_t)(VF, VF, uint32_t);
typedef VI (*choose_t)(uint32_t, VI, int32_t);
typedef uint32_t (*both_t)(uint32_t, uint32_t);
typedef uint32_t (*negated_t)(uint32_t);
typedef uint32_t (*reduce_t)(VF);
typedef uint32_t (*extract_i_t)(VI);
typedef VI (*six_t)(int32_t, int32_t, uint32_t, uint32_t, int32_t, uint32_t, VI);
typedef VF (*interleaved_t)(int32_t, VF, uint32_t, float, VF, uint32_t);
typedef VF (*scaled_xmm_t)(VF, __m128, VF);
typedef VI (*bounded_wide_t)(uint64_t, VI, uint64_t);
/* through an opaque pointer, so the compiler can't see the cast */
static void (*launder(void (*f)(void)))(void)
{
    __asm__("" : "+r"(f));
    return f;
}
#define AS(t, f) ((t)launder((void (*)(void))(f)))

int main(void)
{
    float a[LANES], b[LANES], want[LANES];
    uint32_t u[LANES], w[LANES];
    char what[128];
    _mm_setcsr(0x1f80);

    /* scaled_sum(a: f32s, <scale: f32>, b: f32s): a in register 0, scale
     * in xmm1's low lane, b in register 2 */
    for (int l = 0; l < LANES; l++) {
        a[l] = (float)l * 1.5f - 3.0f;
        b[l] = 100.0f + (float)l / 3.0f;
        want[l] = a[l] * 0.3f + b[l];
    }
    check_vf(scaled_sum(vf(a), 0.3f, vf(b)), want, "scaled_sum(a, 0.3, b)");
    /* only the low lane of xmm1 is the f32: the rest is unspecified */
    check_vf(AS(scaled_xmm_t, scaled_sum)(vf(a), _mm_setr_ps(0.3f, bitsf(0x7fc00000), 1e30f, -1.0f),
                                          vf(b)),
             want, "scaled_sum(a, 0.3 with garbage in xmm1's upper lanes, b)");

    /* bounded_values(<low: u32>, values: u32s, <high: u32>): edi, ymm0, esi;
     * unsigned order, bit 31 set in the bound and in values */
    static const uint32_t vals[] = {0,          1,         0x0f,       0x10,
                                    0x7fffffff, 0x80000000, 0x80000001, 0x80000002,
                                    0xffffffff, 0xfffffffe, 0x12345678, 0x9abcdef0,
                                    0x11,       0x80000003, 0x40000000, 0xc0000000};
    for (int l = 0; l < LANES; l++) {
        u[l] = vals[l];
        w[l] = u[l] < 0x10 ? 0x10 : u[l] > 0x80000001u ? 0x80000001u : u[l];
    }
    check_vi(bounded_values(0x10, vi(u), 0x80000001u), w, "bounded_values(0x10, v, 0x80000001)");
    /* only the low 32 bits of rdi and rsi are the u32s */
    check_vi(AS(bounded_wide_t, bounded_values)(0xdeadbeef00000010ull, vi(u), 0x1234567880000001ull),
             w, "bounded_values with garbage in the upper halves of rdi and rsi");

    /* Boolean uniforms: bit 0 only, whatever the upper bits hold */
    for (size_t g = 0; g < sizeof garbage / sizeof *garbage; g++) {
        uint32_t c = garbage[g];
        snprintf(what, sizeof what, "pick(a, b, bool as 0x%08x)", c);
        check_vf(AS(pick_t, pick)(vf(a), vf(b), c), c & 1 ? a : b, what);
        for (int l = 0; l < LANES; l++)
            w[l] = c & 1 ? vals[l] + 7u : vals[l];
        snprintf(what, sizeof what, "choose(bool as 0x%08x, v, 7)", c);
        check_vi(AS(choose_t, choose)(c, vi(vals), 7), w, what);
        snprintf(what, sizeof what, "negated(bool as 0x%08x) in the full eax", c);
        uint32_t r = AS(negated_t, negated)(c);
        check(r == !(c & 1), what, r, !(c & 1));
        for (size_t h = 0; h < sizeof garbage / sizeof *garbage; h++) {
            uint32_t d = garbage[h];
            snprintf(what, sizeof what, "both(0x%08x, 0x%08x) in the full eax", c, d);
            r = AS(both_t, both)(c, d);
            check(r == ((c & d) & 1), what, r, (c & d) & 1);
        }
    }
    /* through the declared prototype too */
    check(both(true, true) == true && both(true, false) == false, "both() through bool", 0, 0);

    /* bitmask: one bit per lane, nothing above the lane count */
    for (int pattern = 0; pattern < 6; pattern++) {
        uint32_t bits = 0;
        for (int l = 0; l < LANES; l++) {
            int on = pattern == 0 ? 1 : pattern == 1 ? 0 : pattern == 2 ? l == LANES - 1
                   : pattern == 3 ? l % 3 == 0 : pattern == 4 ? l == 0 : (l * 7) % 5 < 2;
            a[l] = on ? (float)(l + 1) : (l % 2 ? -0.0f : bitsf(0x7fc00000));
            bits |= (uint32_t)on << l;
        }
        snprintf(what, sizeof what, "positive_bits (pattern %d)", pattern);
        uint32_t r = positive_bits(vf(a));
        check(r == bits, what, r, bits);
        snprintf(what, sizeof what, "every_positive (pattern %d) in the full eax", pattern);
        r = AS(reduce_t, every_positive)(vf(a));
        check(r == (bits == (1u << LANES) - 1), what, r, bits == (1u << LANES) - 1);
        snprintf(what, sizeof what, "some_positive (pattern %d) in the full eax", pattern);
        r = AS(reduce_t, some_positive)(vf(a));
        check(r == (bits != 0), what, r, bits != 0);
    }

    /* extract: lane 3, bits preserved (a signalling NaN stays signalling) */
    static const uint32_t lane3[] = {0x7fa00001, 0xff800001, 0x80000000, 0x00000001, 0x3f800000};
    for (size_t k = 0; k < sizeof lane3 / sizeof *lane3; k++) {
        for (int l = 0; l < LANES; l++)
            a[l] = bitsf(l == 3 ? lane3[k] : 0x40000000u + (uint32_t)l);
        snprintf(what, sizeof what, "fourth(lane 3 = 0x%08x) in xmm0", lane3[k]);
        uint32_t r = fbits(fourth(vf(a)));
        check(r == lane3[k], what, r, lane3[k]);
        for (int l = 0; l < LANES; l++)
            u[l] = l == 3 ? 0x80000000u + lane3[k] : (uint32_t)l;
        snprintf(what, sizeof what, "fourth_signed in the full eax (0x%08x)", u[3]);
        r = AS(extract_i_t, fourth_signed)(vi(u));
        check(r == u[3], what, r, u[3]);
        snprintf(what, sizeof what, "fourth_unsigned in eax (0x%08x)", u[3]);
        r = fourth_unsigned(vi(u));
        check(r == u[3], what, r, u[3]);
        check(fourth_signed(vi(u)) == (int32_t)u[3], "fourth_signed through int32_t", 0, 0);
    }

    /* scalar uniforms in and out */
    {
        float x = 1.0f / 3.0f, y = -7.25f, f = uniform_f32(x, y), fw = x * y - x;
        check(fbits(f) == fbits(fw), "uniform_f32(1/3, -7.25) in xmm0", fbits(f), fbits(fw));
        int32_t i = uniform_i32(INT32_MIN, 1);
        check(i == INT32_MAX, "uniform_i32(INT32_MIN, 1) wraps", (uint32_t)i, INT32_MAX);
    }

    /* six integer uniforms (edi, esi, edx, ecx, r8d, r9d) and a rack */
    for (size_t g = 0; g < 4; g++) {
        uint32_t f = garbage[g + 2];
        for (int l = 0; l < LANES; l++)
            w[l] = f & 1 ? vals[l] + 5u - 0xfffffffdu + 0x40u : vals[l] * 3u + 0x80000000u;
        snprintf(what, sizeof what, "six_ints(5, -3, 3, 0x80000000, 0x40, 0x%08x, v)", f);
        check_vi(AS(six_t, six_ints)(5, -3, 3, 0x80000000u, 0x40, f, vi(vals)), w, what);
    }

    /* eight SSE-class arguments, an f32 uniform among them and a mask last */
    {
        float c[LANES], d[LANES], f[LANES];
        uint32_t g[LANES], h[LANES];
        for (int l = 0; l < LANES; l++) {
            a[l] = (float)l;
            b[l] = 0.5f;
            c[l] = -2.0f * (float)l;
            d[l] = 1e-3f;
            f[l] = 3.0f + (float)l;
            g[l] = (uint32_t)(l * 11 - 40);
            h[l] = l % 3 ? 0xffffffffu : 0;
            want[l] = (h[l] ? ((a[l] + b[l]) + c[l]) + d[l] : f[l] * (float)(int32_t)g[l]) + 0.125f;
        }
        check_vf(eight_vectors(vf(a), vf(b), vf(c), vf(d), 0.125f, vf(f), vi(g), vi(h)), want,
                 "eight_vectors");
    }

    /* integer and SSE-class arguments interleaved, counted separately */
    for (size_t k = 0; k < 4; k++) {
        uint32_t kb = garbage[k + 2];
        for (int l = 0; l < LANES; l++) {
            a[l] = (float)l - 1.5f;
            b[l] = -(float)l;
            want[l] = kb & 1 ? a[l] * 4.0f + (float)(uint32_t)(-9 + 0x20) : b[l];
        }
        snprintf(what, sizeof what, "interleaved(-9, a, 0x20, 4.0, b, 0x%08x)", kb);
        check_vf(AS(interleaved_t, interleaved)(-9, vf(a), 0x20, 4.0f, vf(b), kb), want, what);
    }

    printf("abi: %d lanes, %d checks, %d failures\n", LANES, checks, failures);
    return failures ? 1 : 0;
}

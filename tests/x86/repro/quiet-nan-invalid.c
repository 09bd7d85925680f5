/* tests/x86/repro/quiet-nan-invalid.c: the invalid-operation flag after
 * comparisons, min, max, minimum and scan_maximum of a quiet NaN (none
 * may raise it) and of a signalling NaN (they do), calling the kernels of
 * quiet-nan-invalid.rk through their header (quiet-nan-invalid.h, found
 * with -I).  Prints each call's flags; exits 1 if one is wrong. */
#include "quiet-nan-invalid.h"

#include <stdio.h>
#include <string.h>

#if defined(__AVX512F__)
#define LANES 16
typedef __m512 VF;
#elif defined(__AVX2__)
#define LANES 8
typedef __m256 VF;
#else
#define LANES 4
typedef __m128 VF;
#endif

static int failures;

/* lane 0 is first, the others rest */
static VF lanes(uint32_t first, uint32_t rest)
{
    uint32_t w[LANES];
    for (int l = 0; l < LANES; l++)
        w[l] = l ? rest : first;
    VF v;
    memcpy(&v, w, sizeof v);
    return v;
}

#define FLAGS(name, call, want)                                                                   \
    do {                                                                                          \
        _mm_setcsr(0x1f80);                                                                       \
        (void)(call);                                                                             \
        unsigned got = _mm_getcsr() & 0x3f;                                                       \
        int ok = (want) < 0 ? got == 0 : (got & 1) == (unsigned)(want);                           \
        printf("%-34s flags %02x%s\n", name, got, ok ? "" : "  <- wrong");                        \
        failures += !ok;                                                                          \
    } while (0)

#define ONE 0x3f800000u
#define QNAN 0x7fc00000u
#define SNAN 0x7fa00000u

int main(void)
{
    VF q = lanes(QNAN, ONE), s = lanes(SNAN, ONE), one = lanes(ONE, ONE);
    FLAGS("lt(qNaN, 1)", lt(q, one), 0);
    FLAGS("le(qNaN, 1)", le(q, one), 0);
    FLAGS("gt(qNaN, 1)", gt(q, one), 0);
    FLAGS("ge(1, qNaN)", ge(one, q), 0);
    FLAGS("eq(qNaN, 1)", eq(q, one), 0);
    FLAGS("ne(qNaN, 1)", ne(q, one), 0);
    FLAGS("min(qNaN, 1)", least(q, one), 0);
    FLAGS("max(1, qNaN)", most(one, q), 0);
    FLAGS("minimum(qNaN...)", smallest(q), 0);
    FLAGS("scan_maximum(qNaN...)", running_max(q), 0);
    FLAGS("lt(sNaN, 1)", lt(s, one), 1);
    FLAGS("eq(sNaN, 1)", eq(s, one), 1);
    FLAGS("min(sNaN, 1)", least(s, one), 1);
    printf("quiet-nan-invalid: %d lanes, %d wrong\n", LANES, failures);
    return failures ? 1 : 0;
}

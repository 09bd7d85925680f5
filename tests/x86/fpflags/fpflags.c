/* tests/x86/fpflags/fpflags.c: MXCSR exception flags after calls of the
 * kernels of fpflags.rk, through the header rakec --emit-header wrote
 * (fpflags.h, found with -I), on the profile the compiler flags select:
 * inactive lanes (a division by zero, the square root of -1 or of a
 * signalling NaN, conversions out of range) raise no flag, since native
 * lowering sanitises them.  Prints each call's flags; exits 1 if one is
 * wrong.  A sweep's later tine reads its operand raw where the earlier
 * tine's comparison proved it normal (graded): nothing raises there
 * either.  (tests/x86/repro/quiet-nan-invalid.c checks quiet NaNs.) */
#include "fpflags.h"

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
#define SNAN 0x7fa00000u

int main(void)
{
    /* lane 0 inactive (b = 0 or -1), holding what would raise */
    FLAGS("guarded_div: 1/0 inactive", guarded_div(lanes(ONE, ONE), lanes(0, ONE)), -1);
    FLAGS("guarded_root: sqrt(sNaN) inactive", guarded_root(lanes(SNAN, ONE), lanes(0xbf800000, ONE)), -1);
    FLAGS("guarded_root: sqrt(-1) inactive", guarded_root(lanes(0xbf800000, ONE), lanes(0xbf800000, ONE)), -1);
    FLAGS("guarded_conv: 3e9 inactive", guarded_conv(lanes(0x4f400000, ONE), lanes(0xbf800000, ONE)), -1);
    FLAGS("guarded_conv: sNaN inactive", guarded_conv(lanes(SNAN, ONE), lanes(0xbf800000, ONE)), -1);
    FLAGS("guarded_unsigned: -1 inactive", guarded_unsigned(lanes(0xbf800000, ONE), lanes(0xbf800000, ONE)), -1);
    FLAGS("guarded_unsigned: 5e9 inactive", guarded_unsigned(lanes(0x4fa00000, ONE), lanes(0xbf800000, ONE)), -1);
    /* lanes the first tine took (100.0, and the largest float) hold
     * normal numbers: the second comparison reads them raw and raises
     * nothing; a NaN in a lane neither takes raises nothing either */
    FLAGS("graded: 100.0 taken, 60.0 passes", graded(lanes(0x42c80000, 0x42700000)), -1);
    FLAGS("graded: FLT_MAX taken, NaN in no tine", graded(lanes(0x7f7fffff, 0x7fc00000)), -1);
    /* min of a quiet NaN: no flag, and a quiet NaN in that lane only */
    FLAGS("smaller: min(qNaN, 1)", smaller(lanes(0x7fc00000, ONE), lanes(ONE, 0x40000000)), -1);
    {
        VF r = smaller(lanes(0x7fc00000, ONE), lanes(ONE, 0x40000000));
        uint32_t w[LANES];
        memcpy(w, &r, sizeof w);
        int ok = (w[0] & 0x7fc00000u) == 0x7fc00000u && w[1] == ONE;
        printf("%-34s lane 0 %08x, lane 1 %08x%s\n", "smaller: min(qNaN, 1) value", (unsigned)w[0],
               (unsigned)w[1], ok ? "" : "  <- wrong");
        failures += !ok;
    }
    /* -v + v + v (v = 3e38) then zeros: exact in lane order; an order
     * adding v + v first would overflow (AVX-512 folds lane 0 alone,
     * rotating each lane to it under a mask: the other lanes add zeros) */
    {
        uint32_t w[LANES] = {0xff61b1e6u, 0x7f61b1e6u, 0x7f61b1e6u};
        VF x;
        memcpy(&x, w, sizeof x);
        FLAGS("sum_all: -v + v + v, strictly", sum_all(x), -1);
    }
    /* and an active one does raise */
    FLAGS("guarded_root: sqrt(-1) active", guarded_root(lanes(0xbf800000, ONE), lanes(ONE, ONE)), 1);
    printf("fpflags: %d lanes, %d wrong\n", LANES, failures);
    return failures ? 1 : 0;
}

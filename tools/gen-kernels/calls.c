/* calls.c: the calls of a kernel, `rake-interp --kernels` lines.
 *
 * A call line is the kernel's name and one argument per parameter: a
 * rack as comma-separated lane bits in hex, a mask as 0/1 lanes, a
 * uniform as hex bits, a bool as 0 or 1.  Input values mix special values
 * (signed zeros, infinities, quiet and signalling NaNs, subnormals, 2^23,
 * 2^31 and 2^32 boundaries, ties, to_i32/to_u32 saturation bounds, integer
 * extremes, u32 values with bit 31 set, shift counts about 32, values
 * near 1 whose products round differently when fused) with small and
 * random ones.  Each call draws a pool of four values per element and
 * takes about a fifth of its lanes from it, so lanes (and parameters)
 * often repeat within a call: equal operands, x - x, min(x, x). */
#include <stdint.h>
#include <string.h>

#include "gen-kernels.h"

static const uint32_t F_SPECIAL[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000, 0xffc00001,
    0xff800001, 0x7f800001, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000,
    0x00800000, 0x80800000, 0x4b000000, 0xcb000000, 0x4b000001, 0x4b7fffff, 0x4affffff,
    0x4f000000, 0xcf000000, 0xcf000001, 0x4effffff, 0x4f800000, 0x4f7fffff, 0x5f800000,
    0x3fc00000, 0x40200000, 0xbfc00000, 0xc0200000, 0x3f000000, 0xbf000000, 0x3f800000,
    0xbf800000, 0x40000000, 0x3f800001, 0x3f7fffff, 0x7f7fffff, 0xff7fffff, 0x3effffff,
    0xbf400000, 0x40400000, 0x40600000, 0xbf7fffff, 0x3f400000, 0xbec00000, 0x34000000,
    0x3f800800, 0xbf801000, 0x0f800000, 0x5f000000,
};
static const uint32_t I_SPECIAL[] = {0,          1,          0xffffffff, 0x80000000, 0x7fffffff,
                                     0x80000001, 0x7ffffffe, 2,          0xfffffffe, 31,
                                     32,         255,        0x10000,    0xffff0000, 0x01000001};
static const uint32_t U_SPECIAL[] = {0,          1,          0xffffffff, 0x80000000, 0x7fffffff,
                                     0x80000001, 0xfffffffe, 31,         32,         33,
                                     255,        64,         0x00ffffff, 0x01000001};

typedef struct Pool {
    uint32_t v[3][4];
} Pool;

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* The bits of an f32 input, r (0..99) choosing the kind.  The draws of
 * one value are separate statements: as operands of one operator they
 * would be read in an order the compiler chooses. */
static uint32_t fvalue(int r)
{
    if (r < 60)
        return F_SPECIAL[rnd(COUNT(F_SPECIAL))];
    if (r < 75) {
        int n = rnd(61) - 30;
        float scale = chance(30) ? 0.5f : 1.0f;
        return fbits((float)n * scale);
    }
    if (r < 85) { /* many mantissa bits near 1: rounding differs under fma */
        uint32_t one = rnd(2) ? 0xbf800000u : 0x3f800000u;
        return one | ((uint32_t)next64() & 0x007fffffu);
    }
    return (uint32_t)next64();
}

/* An input value of an element, sometimes from the call's pool. */
static uint32_t value(int elem, Pool *p)
{
    int r = rnd(100);
    if (p && r < 22)
        return p->v[elem][rnd(4)];
    if (elem == T_F)
        return fvalue(r);
    const uint32_t *sp = elem == T_I ? I_SPECIAL : U_SPECIAL;
    int ns = elem == T_I ? COUNT(I_SPECIAL) : COUNT(U_SPECIAL);
    if (r < 55)
        return sp[rnd(ns)];
    if (r < 80)
        return elem == T_I ? (uint32_t)(rnd(101) - 50) : (uint32_t)rnd(300);
    return (uint32_t)next64();
}

void gen_calls(Buf *out, const char *name, const int *pty, int np, int k)
{
    for (int call = 0; call < k; call++) {
        Pool p;
        for (int e = 0; e < 3; e++)
            for (int i = 0; i < 4; i++)
                p.v[e][i] = value(e, NULL);
        bput(out, "%s", name);
        for (int i = 0; i < np; i++) {
            int t = pty[i];
            bput(out, " ");
            if (t == T_M) {
                for (int l = 0; l < lanes(); l++)
                    bput(out, "%s%d", l ? "," : "", rnd(2));
            } else if (is_rack(t)) {
                for (int l = 0; l < lanes(); l++)
                    bput(out, "%s%x", l ? "," : "", value(t, &p));
            } else if (t == T_SB) {
                bput(out, "%d", rnd(2));
            } else {
                bput(out, "%x", value(rk_of(t), &p));
            }
        }
        bput(out, "\n");
    }
}

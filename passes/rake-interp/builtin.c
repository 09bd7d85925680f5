/* builtin.c: the built-in operations of vector code, lane by lane.
 *
 * Reductions and scans are strictly sequential left folds from lane 0
 * (10-gap-notes.md, section 4): each float step rounds to binary32, and
 * the float min/max step is the IEEE one of lib/lanes.c (canonical NaN,
 * -0 below +0, ties keep the left operand). */
#include <string.h>

#include "interp.h"
#include "lanewise.h"
#include "lanes.h"

static float F(uint64_t b) { return rk_f32((uint32_t)b); }
static uint64_t B(float f) { return rk_bits(f); }

static Val arg(RkNode *call, int i) { return eval(call->args.items[i]); }

/* An operand a cross-lane operation reads lane by lane: a uniform is
 * broadcast to a rack of its own element first (10-gap-notes.md, section
 * 4: sum of a broadcast folds `lanes` copies from lane 0). */
static Val lanes_arg(RkNode *call, int i)
{
    Val v = arg(call, i);
    if (v.kind == V_SCALAR)
        v = v_splat(v.elem, v.v[0]);
    return v;
}

/* The rack type of the call's result, and operands broadcast to it. */
static Val rack_arg(RkNode *call, int i, RkElem e)
{
    Val v = arg(call, i);
    if (v.kind == V_SCALAR)
        v = v_splat(e, v.v[0]);
    return v;
}

static uint64_t f32_unary(const char *n, uint64_t x)
{
    uint32_t a = (uint32_t)x;
    switch (n[0]) {
    case 's': return rk_f32_sqrt(a);
    case 'f': return rk_f32_floor(a);
    case 'c': return rk_f32_ceil(a);
    case 't': return !strcmp(n, "trunc") ? rk_f32_trunc(a) : rk_f32_tanh(a);
    case 'n': return rk_f32_nearest(a);
    case 'e': return rk_f32_exp(a);
    default: return !strcmp(n, "log") ? rk_f32_log(a) : rk_f32_log2(a);
    }
}

static Val reduce(RkNode *call)
{
    Val a = lanes_arg(call, 0);
    bool scan = !strncmp(call->name, "scan_", 5);
    const char *op = scan ? call->name + 5 : call->name;
    uint64_t acc = a.v[0];
    Val out = a;
    for (int i = 1; i < a.lanes; i++) {
        acc = rk_lane_reduce_step(op, a.elem, acc, a.v[i]);
        out.v[i] = acc;
    }
    return scan ? out : v_scalar(a.elem, acc);
}

static Val mask_reduce(RkNode *call)
{
    Val m = arg(call, 0);
    if (m.kind == V_SCALAR) /* all or any of a broadcast uniform bool: that bool */
        return v_scalar(RK_E_BOOL, m.v[0] & 1);
    uint64_t bits = 0;
    for (int i = 0; i < m.lanes; i++)
        bits |= (m.v[i] & 1) << i;
    if (call->name[0] == 'b')
        return v_scalar(RK_E_U32, bits);
    uint64_t full = all_lanes(m.lanes);
    return v_scalar(RK_E_BOOL, call->name[1] == 'l' ? bits == full : bits != 0);
}

static uint64_t shift(const char *n, RkElem e, uint64_t x, uint64_t count)
{
    int w = rk_elem_bits(e);
    unsigned c = (unsigned)(count % (uint64_t)w);
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    uint64_t u = x & m;
    if (!strcmp(n, "shift_bits_left"))
        return norm(e, u << c);
    if (!strcmp(n, "shift_bits_right"))
        return norm(e, u >> c);
    /* signed: copy the lane's high bit, even in an unsigned rack */
    int64_t s = (int64_t)(u << (64 - w)) >> (64 - w);
    return norm(e, (uint64_t)(s >> c));
}

static Val bitwise(RkNode *call, RkElem e)
{
    Val a = rack_arg(call, 0, e), b = rack_arg(call, 1, e);
    const char *n = call->name + 4;
    for (int i = 0; i < a.lanes; i++) {
        uint64_t x = a.v[i], y = b.v[i];
        a.v[i] = norm(e, !strcmp(n, "and") ? x & y
                         : !strcmp(n, "or") ? x | y
                         : !strcmp(n, "xor") ? x ^ y
                                             : x & ~y);
    }
    return a;
}

static Val packed(RkNode *call)
{
    const char *n = call->name;
    Val a = arg(call, 0);
    if (!strncmp(n, "widen_", 6)) {
        Val r = v_rack(RK_E_I16, lanes_of(RK_E_I16));
        int base = n[6] == 'h' ? r.lanes : 0;
        for (int i = 0; i < r.lanes; i++)
            r.v[i] = a.v[base + i];
        return r;
    }
    Val b = arg(call, 1);
    if (n[0] == 'n') {
        Val r = v_rack(RK_E_I16, lanes_of(RK_E_I16));
        for (int i = 0; i < r.lanes; i++) {
            int64_t x = (int64_t)(i < a.lanes ? a.v[i] : b.v[i - a.lanes]);
            x = x > 32767 ? 32767 : x < -32768 ? -32768 : x;
            r.v[i] = norm(RK_E_I16, (uint64_t)x);
        }
        return r;
    }
    Val r = v_rack(RK_E_I32, lanes_of(RK_E_I32));
    for (int i = 0; i < r.lanes; i++) {
        int64_t s = (int64_t)a.v[2 * i] * (int64_t)b.v[2 * i] +
                    (int64_t)a.v[2 * i + 1] * (int64_t)b.v[2 * i + 1];
        r.v[i] = norm(RK_E_I32, (uint64_t)s);
    }
    return r;
}

static Val convert(RkNode *call)
{
    Val a = lanes_arg(call, 0);
    const char *n = call->name;
    RkElem to = !strcmp(n, "to_f32") ? RK_E_F32 : !strcmp(n, "to_i32") ? RK_E_I32 : RK_E_U32;
    Val r = v_rack(to, a.lanes);
    for (int i = 0; i < a.lanes; i++) {
        uint64_t x = a.v[i];
        if (to == RK_E_F32)
            r.v[i] = a.elem == RK_E_I32 ? rk_i32_to_f32((int32_t)x) : rk_u32_to_f32((uint32_t)x);
        else if (to == RK_E_I32)
            r.v[i] = norm(to, (uint64_t)(int64_t)rk_f32_to_i32((uint32_t)x));
        else
            r.v[i] = rk_f32_to_u32((uint32_t)x);
    }
    return r;
}

static Val fma_like(RkNode *call, RkElem e)
{
    Val a = rack_arg(call, 0, e), b = rack_arg(call, 1, e), c = rack_arg(call, 2, e);
    const char *n = call->name;
    for (int i = 0; i < a.lanes; i++) {
        uint32_t x = (uint32_t)a.v[i], y = (uint32_t)b.v[i], z = (uint32_t)c.v[i];
        if (n[0] == 'f')
            a.v[i] = rk_f32_fma(x, y, z);
        else if (!strcmp(n, "relaxed_madd"))
            a.v[i] = B(F(x) * F(y) + F(z));
        else
            a.v[i] = B(-(F(x) * F(y)) + F(z));
    }
    return a;
}

Val builtin_vector(RkNode *call)
{
    const char *n = call->name;
    const RkType *t = ty_of(call);
    if (!strcmp(n, "sqrt") || !strcmp(n, "floor") || !strcmp(n, "ceil") ||
        !strcmp(n, "trunc") || !strcmp(n, "nearest") || !strcmp(n, "exp") ||
        !strcmp(n, "log") || !strcmp(n, "log2") || !strcmp(n, "tanh")) {
        Val a = lanes_arg(call, 0);
        for (int i = 0; i < a.lanes; i++)
            a.v[i] = f32_unary(n, a.v[i]);
        return a;
    }
    if (!strcmp(n, "abs")) {
        Val a = lanes_arg(call, 0);
        for (int i = 0; i < a.lanes; i++)
            a.v[i] = a.elem == RK_E_F32 ? rk_f32_abs((uint32_t)a.v[i]) : rk_lane_abs(a.elem, a.v[i]);
        return a;
    }
    if (!strcmp(n, "min") || !strcmp(n, "max") || !strcmp(n, "relaxed_min") ||
        !strcmp(n, "relaxed_max")) {
        Val a = rack_arg(call, 0, t->elem), b = rack_arg(call, 1, t->elem);
        bool max = !strcmp(n + strlen(n) - 3, "max");
        for (int i = 0; i < a.lanes; i++)
            a.v[i] = rk_lane_minmax(max, a.elem, a.v[i], b.v[i]);
        return a;
    }
    if (!strcmp(n, "fma") || !strncmp(n, "relaxed_", 8))
        return fma_like(call, t->elem);
    if (!strncmp(n, "to_", 3))
        return convert(call);
    if (!strcmp(n, "widen")) {
        Val a = arg(call, 0);
        a.elem = t->elem;
        return a;
    }
    if (!strcmp(n, "widen_low") || !strcmp(n, "widen_high") || !strcmp(n, "narrow") ||
        !strcmp(n, "dot"))
        return packed(call);
    if (!strcmp(n, "sum") || !strcmp(n, "product") || !strcmp(n, "minimum") ||
        !strcmp(n, "maximum") || !strncmp(n, "scan_", 5))
        return reduce(call);
    if (!strcmp(n, "all") || !strcmp(n, "any") || !strcmp(n, "bitmask"))
        return mask_reduce(call);
    if (!strcmp(n, "extract")) {
        Val a = lanes_arg(call, 0), k = arg(call, 1);
        return v_scalar(a.elem, a.v[k.v[0]]);
    }
    if (!strcmp(n, "insert")) {
        Val a = lanes_arg(call, 0), k = arg(call, 1), u = arg(call, 2);
        a.v[k.v[0]] = u.v[0];
        return a;
    }
    if (!strncmp(n, "bit_", 4))
        return bitwise(call, t->elem);
    if (!strncmp(n, "shift_bits_", 11)) {
        Val a = arg(call, 0), c = arg(call, 1);
        for (int i = 0; i < a.lanes; i++)
            a.v[i] = shift(n, a.elem, a.v[i], c.v[0]);
        return a;
    }
    rk_diag_internal("rake-interp: no vector built-in '%s'", n);
}

/* lanewise.c: rack operations on canonical lanes. */
#include "lanewise.h"

#include <string.h>

#include "lanes.h"

static float F(uint64_t b) { return rk_f32((uint32_t)b); }
static uint64_t B(float f) { return rk_bits(f); }

uint64_t rk_lane_norm(RkElem e, uint64_t x)
{
    switch (e) {
    case RK_E_I8: return (uint64_t)(int64_t)(int8_t)x;
    case RK_E_I16: return (uint64_t)(int64_t)(int16_t)x;
    case RK_E_I32: return (uint64_t)(int64_t)(int32_t)x;
    case RK_E_U8: return x & 0xff;
    case RK_E_U16: return x & 0xffff;
    case RK_E_U32: case RK_E_F32: return x & 0xffffffffu;
    case RK_E_BOOL: return x & 1;
    default: return x;
    }
}

uint64_t rk_lane_arith(char op, RkElem e, uint64_t a, uint64_t b)
{
    if (e == RK_E_F32) {
        switch (op) {
        case '+': return B(F(a) + F(b));
        case '-': return B(F(a) - F(b));
        case '*': return B(F(a) * F(b));
        default: return B(F(a) / F(b));
        }
    }
    switch (op) {
    case '+': return rk_lane_norm(e, a + b);
    case '-': return rk_lane_norm(e, a - b);
    case '*': return rk_lane_norm(e, a * b);
    default:
        if (b == 0)
            return 0;
        if (rk_elem_is_signed(e))
            return (int64_t)b == -1 ? rk_lane_norm(e, 0 - a)
                                    : rk_lane_norm(e, (uint64_t)((int64_t)a / (int64_t)b));
        return rk_lane_norm(e, a / b);
    }
}

bool rk_lane_compare(const char *c, RkElem e, uint64_t a, uint64_t b)
{
    int lt, eq;
    if (e == RK_E_F32) {
        float x = F(a), y = F(b);
        if (x != x || y != y)
            return false; /* every comparison with a NaN is false, != too */
        lt = x < y;
        eq = x == y;
    } else if (rk_elem_is_signed(e)) {
        lt = (int64_t)a < (int64_t)b;
        eq = a == b;
    } else {
        lt = a < b;
        eq = a == b;
    }
    if (!strcmp(c, "eq")) return eq;
    if (!strcmp(c, "ne")) return !eq;
    if (!strcmp(c, "lt")) return lt;
    if (!strcmp(c, "le")) return lt || eq;
    if (!strcmp(c, "gt")) return !lt && !eq;
    return !lt;
}

uint64_t rk_lane_minmax(bool max, RkElem e, uint64_t a, uint64_t b)
{
    if (e == RK_E_F32)
        return max ? rk_f32_max((uint32_t)a, (uint32_t)b) : rk_f32_min((uint32_t)a, (uint32_t)b);
    bool less = rk_elem_is_signed(e) ? (int64_t)b < (int64_t)a : b < a;
    bool more = rk_elem_is_signed(e) ? (int64_t)b > (int64_t)a : b > a;
    return max ? (more ? b : a) : (less ? b : a);
}

uint64_t rk_lane_neg(RkElem e, uint64_t a)
{
    if (e == RK_E_F32)
        return rk_f32_neg((uint32_t)a);
    return rk_lane_norm(e, 0 - a);
}

uint64_t rk_lane_abs(RkElem e, uint64_t a)
{
    if (e == RK_E_F32)
        return rk_f32_abs((uint32_t)a);
    if (e == RK_E_U8)
        return (int8_t)a < 0 ? rk_lane_norm(e, (uint64_t)(-(int64_t)(int8_t)a)) : a;
    return (int64_t)a < 0 ? rk_lane_norm(e, 0 - a) : a;
}

uint64_t rk_lane_shift(char kind, RkElem e, uint64_t x, uint64_t count)
{
    int w = rk_elem_bits(e);
    unsigned c = (unsigned)(count % (uint64_t)w);
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    uint64_t u = x & m;
    if (kind == 'l')
        return rk_lane_norm(e, u << c);
    if (kind == 'r')
        return rk_lane_norm(e, u >> c);
    int64_t s = (int64_t)(u << (64 - w)) >> (64 - w);
    return rk_lane_norm(e, (uint64_t)(s >> c));
}

uint64_t rk_lane_f32_unary(const char *n, uint64_t x)
{
    uint32_t a = (uint32_t)x;
    if (!strcmp(n, "sqrt")) return rk_f32_sqrt(a);
    if (!strcmp(n, "floor")) return rk_f32_floor(a);
    if (!strcmp(n, "ceil")) return rk_f32_ceil(a);
    if (!strcmp(n, "trunc")) return rk_f32_trunc(a);
    if (!strcmp(n, "nearest")) return rk_f32_nearest(a);
    if (!strcmp(n, "exp")) return rk_f32_exp(a);
    if (!strcmp(n, "log")) return rk_f32_log(a);
    if (!strcmp(n, "log2")) return rk_f32_log2(a);
    return rk_f32_tanh(a);
}

uint64_t rk_lane_reduce_step(const char *op, RkElem e, uint64_t acc, uint64_t x)
{
    if (!strcmp(op, "sum"))
        return rk_lane_arith('+', e, acc, x);
    if (!strcmp(op, "product"))
        return rk_lane_arith('*', e, acc, x);
    return rk_lane_minmax(!strcmp(op, "maximum"), e, acc, x);
}

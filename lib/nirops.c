/* nirops.c: the operation table, generated from RK_NIR_OPS.
 *
 * The table is indexed by RkOp (row 0, RK_OP_NONE, is empty), so the
 * facts of a decoded instruction are one array access away.  Only the
 * decoder and the few callers that start from a spelling look a name up;
 * the lookup is a linear scan over about a hundred rows. */
#include "nirops.h"

#include <string.h>

static const RkOpInfo ops[RK_OP_COUNT] = {
#define ROW(id, name, shape, lo, hi, res, flags, b1, b2, archs)                    \
    [RK_OP_##id] = {RK_OP_##id, name, shape, lo, hi, res, flags, b1, b2, archs},
    RK_NIR_OPS(ROW)
#undef ROW
};

const RkOpInfo *rk_nir_op_info(RkOp op)
{
    if (op <= RK_OP_NONE || op >= RK_OP_COUNT)
        return NULL;
    return &ops[op];
}

const char *rk_nir_op_name(RkOp op)
{
    const RkOpInfo *o = rk_nir_op_info(op);
    return o ? o->name : "?";
}

RkOp rk_nir_op_lookup(const char *name)
{
    for (int i = RK_OP_NONE + 1; i < RK_OP_COUNT; i++)
        if (!strcmp(ops[i].name, name))
            return (RkOp)i;
    return RK_OP_NONE;
}

const RkOpInfo *rk_nir_op(const char *name)
{
    return rk_nir_op_info(rk_nir_op_lookup(name));
}

bool rk_nir_op_on_arch(RkOp op, RkArch arch)
{
    const RkOpInfo *o = rk_nir_op_info(op);
    return o && (unsigned)arch < RK_ARCH_NONE && (o->archs & (1u << arch));
}

uint32_t rk_nir_op_benign(const RkOpInfo *info, int i)
{
    return i == 1 && info->benign2 ? info->benign2 : info->benign;
}

/* With the other operands at their benign values (0.0, or 1.0 for a
 * product and a divisor), a normal or zero constant c gives c + 0, 0 - c,
 * c * 1, min/max(c, 0), a quiet comparison with 0, fma's c*0 + 0 or
 * 0*0 + c, c / 1 and 0 / c (c not zero): exact, no exception, not even
 * x86's denormal-operand flag.  sqrt, the roundings, conversions and the
 * transcendental functions keep the rule that only the benign value is. */
bool rk_nir_op_const_benign(const RkOpInfo *info, int i, uint32_t bits)
{
    if (bits == rk_nir_op_benign(info, i))
        return true;
    uint32_t exp = (bits >> 23) & 0xff;
    bool zero = (bits & 0x7fffffffu) == 0;
    if (!zero && (exp == 0 || exp == 0xff)) /* subnormal, infinite, NaN */
        return false;
    switch (info->op) {
    case RK_OP_RACK_ADD: case RK_OP_RACK_SUB: case RK_OP_RACK_MUL:
    case RK_OP_RACK_MIN: case RK_OP_RACK_MAX: case RK_OP_RACK_FMA:
    case RK_OP_RACK_CMP_EQ: case RK_OP_RACK_CMP_NE: case RK_OP_RACK_CMP_LT:
    case RK_OP_RACK_CMP_LE: case RK_OP_RACK_CMP_GT: case RK_OP_RACK_CMP_GE:
        return true;
    case RK_OP_RACK_DIV:
        return i == 0 || !zero;
    default:
        return false;
    }
}

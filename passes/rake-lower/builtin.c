/* builtin.c: the built-in operations of vector code, to native IR.
 *
 * Most built-ins are one native-IR operation each, listed in `builtins`
 * with how their operands lower; shifts take a literal count as the
 * immediate, extract and insert a literal lane. */
#include <string.h>

#include "arena.h"
#include "lower.h"

static int rack_arg(RkNode *call, int i, RkElem e)
{
    return as_rack(lower_expr(call->args.items[i]), e);
}

/* An operand a cross-lane operation reads in every lane, as a rack: a
 * uniform is broadcast to a rack of its own element first. */
static int lanes_arg(RkNode *a)
{
    const RkType *t = node_ty(a);
    return lower_rack(a, t->kind == RK_T_SCALAR ? rk_ty_rack(t->elem) : NULL);
}

static LVal lanewise_call(RkNode *call, RkOp op, int nargs, RkElem e)
{
    const RkType *t = node_ty(call);
    int args[3];
    for (int i = 0; i < nargs; i++)
        args[i] = rack_arg(call, i, e);
    return lval(lanewise(op, t, args, nargs, call->loc), t);
}

static LVal shift(RkNode *call, RkOp op)
{
    const RkType *t = node_ty(call);
    int x = rack_arg(call, 0, t->elem);
    LVal n = lower_expr(call->args.items[1]);
    if (n.is_const) {
        RkInstr *in = emit(op, t, &x, 1, call->loc);
        in->imm = (int64_t)n.bits;
        return lval(in->id, t);
    }
    return lval(emit2(op, t, x, n.id, call->loc), t);
}

static int lane_index(RkNode *n)
{
    return (int)lower_expr(n).bits;
}

/* The built-ins that are one operation each, by how they lower:
 * lanewise (sanitised, operands as racks of the result's element),
 * convert (sanitised, the operand in its own element), plain (emitted as
 * is, operands in their own racks or masks). */
typedef enum { LANEWISE, CONVERT, PLAIN } Form;

typedef struct Builtin {
    const char *name; /* the source built-in */
    RkOp op;
    int nargs;
    Form form;
} Builtin;

static const Builtin builtins[] = {
    {"sqrt", RK_OP_RACK_SQRT, 1, LANEWISE},
    {"floor", RK_OP_RACK_FLOOR, 1, LANEWISE},
    {"ceil", RK_OP_RACK_CEIL, 1, LANEWISE},
    {"trunc", RK_OP_RACK_TRUNC, 1, LANEWISE},
    {"nearest", RK_OP_RACK_NEAREST, 1, LANEWISE},
    {"abs", RK_OP_RACK_ABS, 1, LANEWISE},
    {"exp", RK_OP_RACK_EXP, 1, LANEWISE},
    {"log", RK_OP_RACK_LOG, 1, LANEWISE},
    {"log2", RK_OP_RACK_LOG2, 1, LANEWISE},
    {"tanh", RK_OP_RACK_TANH, 1, LANEWISE},
    {"min", RK_OP_RACK_MIN, 2, LANEWISE},
    {"max", RK_OP_RACK_MAX, 2, LANEWISE},
    {"relaxed_min", RK_OP_RACK_RELAXED_MIN, 2, LANEWISE},
    {"relaxed_max", RK_OP_RACK_RELAXED_MAX, 2, LANEWISE},
    {"fma", RK_OP_RACK_FMA, 3, LANEWISE},
    {"relaxed_madd", RK_OP_RACK_RELAXED_MADD, 3, LANEWISE},
    {"relaxed_nmadd", RK_OP_RACK_RELAXED_NMADD, 3, LANEWISE},
    {"bit_and", RK_OP_RACK_AND, 2, LANEWISE},
    {"bit_or", RK_OP_RACK_OR, 2, LANEWISE},
    {"bit_xor", RK_OP_RACK_XOR, 2, LANEWISE},
    {"bit_andnot", RK_OP_RACK_ANDNOT, 2, LANEWISE},
    {"to_i32", RK_OP_RACK_TO_I32, 1, CONVERT},
    {"to_u32", RK_OP_RACK_TO_U32, 1, CONVERT},
    {"to_f32", RK_OP_RACK_TO_F32, 1, CONVERT},
    {"widen_low", RK_OP_RACK_WIDEN_LOW, 1, PLAIN},
    {"widen_high", RK_OP_RACK_WIDEN_HIGH, 1, PLAIN},
    {"narrow", RK_OP_RACK_NARROW, 2, PLAIN},
    {"dot", RK_OP_RACK_DOT, 2, PLAIN},
    {"sum", RK_OP_RACK_SUM, 1, PLAIN},
    {"product", RK_OP_RACK_PRODUCT, 1, PLAIN},
    {"minimum", RK_OP_RACK_MINIMUM, 1, PLAIN},
    {"maximum", RK_OP_RACK_MAXIMUM, 1, PLAIN},
    {"scan_sum", RK_OP_RACK_SCAN_SUM, 1, PLAIN},
    {"scan_product", RK_OP_RACK_SCAN_PRODUCT, 1, PLAIN},
    {"scan_minimum", RK_OP_RACK_SCAN_MINIMUM, 1, PLAIN},
    {"scan_maximum", RK_OP_RACK_SCAN_MAXIMUM, 1, PLAIN},
    {"all", RK_OP_MASK_ALL, 1, PLAIN},
    {"any", RK_OP_MASK_ANY, 1, PLAIN},
    {"bitmask", RK_OP_MASK_BITMASK, 1, PLAIN},
};

static LVal one_op(RkNode *call, const Builtin *b)
{
    const RkType *t = node_ty(call);
    if (b->form == LANEWISE)
        return lanewise_call(call, b->op, b->nargs, t->elem);
    int args[3];
    int n = call->args.len < 3 ? call->args.len : 3;
    bool mreduce = rk_nir_op_info(b->op)->shape == SH_MREDUCE;
    if (mreduce && node_ty(call->args.items[0])->kind == RK_T_SCALAR)
        return lower_expr(call->args.items[0]); /* all/any of a uniform bool: it */
    for (int i = 0; i < n; i++)
        args[i] = mreduce ? lower_mask(call->args.items[i]) : lanes_arg(call->args.items[i]);
    if (b->form == CONVERT)
        return lval(lanewise(b->op, t, args, 1, call->loc), t);
    return lval(emit(b->op, t, args, n, call->loc)->id, t);
}

LVal lower_builtin(RkNode *call)
{
    const char *n = call->name;
    const RkType *t = node_ty(call);
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(n, builtins[i].name))
            return one_op(call, &builtins[i]);
    if (!strcmp(n, "shift_bits_left"))
        return shift(call, RK_OP_RACK_SHL);
    if (!strcmp(n, "shift_bits_right"))
        return shift(call, RK_OP_RACK_SHR);
    if (!strcmp(n, "shift_bits_right_signed"))
        return shift(call, RK_OP_RACK_SAR);
    if (!strcmp(n, "widen")) /* columns load already widened */
        return lower_expr(call->args.items[0]);
    if (!strcmp(n, "extract")) {
        RkInstr *in = emit(RK_OP_RACK_EXTRACT, t, (int[]){lanes_arg(call->args.items[0])}, 1,
                           call->loc);
        in->imm = lane_index(call->args.items[1]);
        return lval(in->id, t);
    }
    if (!strcmp(n, "insert")) {
        int r = lanes_arg(call->args.items[0]);
        int u = as_uniform(lower_expr(call->args.items[2]));
        RkInstr *in = emit(RK_OP_RACK_INSERT, t, (int[]){r, u}, 2, call->loc);
        in->imm = lane_index(call->args.items[1]);
        return lval(in->id, t);
    }
    rk_diag_internal("rake-lower: no lowering for built-in '%s'", n);
}

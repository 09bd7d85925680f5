/* builtin.c: the built-in operations of vector code, to native IR. */
#include <string.h>

#include "arena.h"
#include "lower.h"

static int rack_arg(RkNode *call, int i, RkElem e)
{
    return as_rack(lower_expr(call->args.items[i]), e);
}

static LVal lanewise_call(RkNode *call, const char *op, int nargs, RkElem e)
{
    const RkType *t = node_ty(call);
    int args[3];
    for (int i = 0; i < nargs; i++)
        args[i] = rack_arg(call, i, e);
    return lval(lanewise(op, t, args, nargs, call->loc), t);
}

static LVal shift(RkNode *call, const char *op)
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

LVal lower_builtin(RkNode *call)
{
    const char *n = call->name;
    const RkType *t = node_ty(call);
    static const char *unary[] = {"sqrt", "floor", "ceil", "trunc", "nearest", "abs",
                                  "exp", "log", "log2", "tanh", NULL};
    for (const char **u = unary; *u; u++)
        if (!strcmp(n, *u))
            return lanewise_call(call, rk_arena_printf(&rk_heap, "rack.%s", n), 1, t->elem);
    if (!strcmp(n, "min") || !strcmp(n, "max"))
        return lanewise_call(call, n[1] == 'i' ? "rack.min" : "rack.max", 2, t->elem);
    if (!strcmp(n, "relaxed_min") || !strcmp(n, "relaxed_max"))
        return lanewise_call(call, rk_arena_printf(&rk_heap, "rack.%s", n), 2, t->elem);
    if (!strcmp(n, "fma") || !strcmp(n, "relaxed_madd") || !strcmp(n, "relaxed_nmadd"))
        return lanewise_call(call, rk_arena_printf(&rk_heap, "rack.%s", n), 3, t->elem);
    if (!strncmp(n, "bit_", 4))
        return lanewise_call(call, rk_arena_printf(&rk_heap, "rack.%s", n + 4), 2, t->elem);
    if (!strcmp(n, "shift_bits_left"))
        return shift(call, "rack.shl");
    if (!strcmp(n, "shift_bits_right"))
        return shift(call, "rack.shr");
    if (!strcmp(n, "shift_bits_right_signed"))
        return shift(call, "rack.sar");
    if (!strcmp(n, "to_i32") || !strcmp(n, "to_u32") || !strcmp(n, "to_f32")) {
        int x = lower_rack(call->args.items[0], NULL);
        return lval(lanewise(rk_arena_printf(&rk_heap, "rack.%s", n), t, &x, 1, call->loc), t);
    }
    if (!strcmp(n, "widen")) /* columns load already widened */
        return lower_expr(call->args.items[0]);
    if (!strcmp(n, "widen_low") || !strcmp(n, "widen_high") || !strcmp(n, "narrow") ||
        !strcmp(n, "dot")) {
        int args[2];
        for (int i = 0; i < call->args.len; i++)
            args[i] = lower_rack(call->args.items[i], NULL);
        return lval(emit(rk_arena_printf(&rk_heap, "rack.%s", n), t, args, call->args.len,
                         call->loc)->id, t);
    }
    if (!strcmp(n, "sum") || !strcmp(n, "product") || !strcmp(n, "minimum") ||
        !strcmp(n, "maximum") || !strncmp(n, "scan_", 5))
        return lval(emit1(rk_arena_printf(&rk_heap, "rack.%s", n), t,
                          lower_rack(call->args.items[0], NULL), call->loc), t);
    if (!strcmp(n, "all") || !strcmp(n, "any") || !strcmp(n, "bitmask"))
        return lval(emit1(rk_arena_printf(&rk_heap, "mask.%s", n), t,
                          lower_mask(call->args.items[0]), call->loc), t);
    if (!strcmp(n, "extract")) {
        RkInstr *in = emit("rack.extract", t,
                           (int[]){lower_rack(call->args.items[0], NULL)}, 1, call->loc);
        in->imm = lane_index(call->args.items[1]);
        return lval(in->id, t);
    }
    if (!strcmp(n, "insert")) {
        int r = lower_rack(call->args.items[0], NULL);
        int u = as_uniform(lower_expr(call->args.items[2]));
        RkInstr *in = emit("rack.insert", t, (int[]){r, u}, 2, call->loc);
        in->imm = lane_index(call->args.items[1]);
        return lval(in->id, t);
    }
    rk_diag_internal("rake-lower: no lowering for built-in '%s'", n);
}

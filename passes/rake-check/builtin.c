/* builtin.c: the signature of every built-in operation of vector code.
 *
 * Each built-in has a handler that types its arguments, states its result
 * and asks the profile table (caps.c) whether the operation compiles on the
 * selected profile.  Flags say which built-ins move data across lanes
 * (they need fully defined operands, and are work in progress in stack
 * runs) and which reduce (forbidden in through blocks and fused bindings).
 * Slow code's built-ins are in slow.c. */
#include <string.h>

#include "arena.h"
#include "check.h"

enum { F_CROSS = 1, F_REDUCE = 2, F_FUSED = 4 };

typedef struct Builtin Builtin;
typedef Info (*Handler)(RkNode *call, const RkType *expect, const Builtin *b);
struct Builtin {
    const char *name;
    Handler h;
    int nargs; /* -1: the handler counts */
    int flags;
};

static Info err(void) { return info_of(&rk_ty_error); }

static RkNode *arg(RkNode *call, int i) { return call->args.items[i]; }

static Info rack_result(RkNode *call, const RkType *t, RkBdd def)
{
    set_ty(call, t);
    Info in = info_of(t);
    in.def = def;
    return in;
}

/* An argument that must be a rack of one of the listed elements (a
 * uniform broadcasts when `uniform_ok`: page 02's lane-wise operations
 * take a uniform where a rack is needed, as every lane of one). */
static Info rack_arg(RkNode *call, int i, const RkType *expect, const char *want,
                     const RkElem *elems, bool uniform_ok)
{
    Info a = check_vexpr(arg(call, i), expect);
    if (is_error(a.ty))
        return a;
    bool shape = a.ty->kind == RK_T_RACK || (uniform_ok && a.ty->kind == RK_T_SCALAR);
    bool elem_ok = !elems;
    for (const RkElem *e = elems; e && *e; e++)
        elem_ok |= a.ty->elem == *e;
    if (!shape || !elem_ok) {
        ERROR(arg(call, i)->loc, "%s takes %s, not %s", call->name, want,
              ty_name(a.ty));
        return err();
    }
    return a;
}

static const RkElem FLOATS[] = {RK_E_F32, 0};
static const RkElem INTS[] = {RK_E_U8, RK_E_I16, RK_E_I32, RK_E_U32, RK_E_I64, RK_E_U64, 0};

static Info float_unary(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    Info a = rack_arg(call, 0, expect, "an f32s rack", FLOATS, true);
    if (is_error(a.ty))
        return a;
    return rack_result(call, rk_ty_rack(a.ty->elem), computed_def(a.def, RK_BDD_TRUE));
}

static Info transcendental(RkNode *call, const RkType *expect, const Builtin *b)
{
    Info in = float_unary(call, expect, b);
    if (!is_error(in.ty))
        require_cap(RK_FEAT_TRANSCENDENTAL, call->loc, call->name);
    return in;
}

static Info trig(RkNode *call, const RkType *expect, const Builtin *b)
{
    Info a = rack_arg(call, 0, expect, "an f32s rack", FLOATS, false);
    for (int i = 1; i < b->nargs; i++)
        a = rack_arg(call, i, expect, "f32s racks", FLOATS, true);
    if (!is_error(a.ty))
        require_cap(RK_FEAT_TRIG, call->loc, call->name);
    return err();
}

static Info abs_op(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    static const RkElem ok[] = {RK_E_F32, RK_E_I32, RK_E_U32, RK_E_U8, RK_E_I16,
                                RK_E_I64, RK_E_U64, 0};
    Info a = rack_arg(call, 0, expect, "a numeric rack", ok, true);
    if (is_error(a.ty))
        return a;
    if (a.ty->kind == RK_T_SCALAR && !rack_elem_ok(a.ty->elem, call->loc))
        return err();
    if (a.ty->elem == RK_E_U32)
        require_cap(RK_FEAT_U32_NEG_ABS, call->loc, "abs of u32s racks");
    if (a.ty->elem == RK_E_U64)
        require_cap(RK_FEAT_U64_NEG_ABS, call->loc, "abs of u64s racks");
    return rack_result(call, rk_ty_rack(a.ty->elem), computed_def(a.def, RK_BDD_TRUE));
}

/* Two operands of one element; at least one a rack. */
static bool pair(RkNode *call, int i, int j, const RkType *expect, Info *x, Info *y)
{
    RkNode *l = arg(call, i), *r = arg(call, j);
    if (is_literal(l) && !is_literal(r)) {
        *y = check_vexpr(r, expect);
        *x = check_vexpr(l, is_error(y->ty) ? expect : y->ty);
    } else {
        *x = check_vexpr(l, expect);
        *y = check_vexpr(r, is_error(x->ty) ? expect : x->ty);
    }
    return !is_error(x->ty) && !is_error(y->ty);
}

static const RkType *pair_type(RkNode *call, Info x, Info y, bool ints_only)
{
    const RkType *a = x.ty, *b = y.ty;
    bool ok = (a->kind == RK_T_RACK || a->kind == RK_T_SCALAR) &&
              (b->kind == RK_T_RACK || b->kind == RK_T_SCALAR) && a->elem == b->elem &&
              a->elem != RK_E_BOOL;
    if (!ok) {
        ERROR(call->loc, "%s takes two values of one element type, found %s and %s",
              call->name, ty_name(a), ty_name(b));
        return &rk_ty_error;
    }
    if (ints_only && !rk_elem_is_int(a->elem)) {
        ERROR(call->loc, "%s takes integer racks, not %s", call->name, ty_name(a));
        return &rk_ty_error;
    }
    return rk_ty_rack(a->elem);
}

static Info minmax(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    Info x, y;
    if (!pair(call, 0, 1, expect, &x, &y))
        return err();
    const RkType *t = pair_type(call, x, y, false);
    if (is_error(t))
        return err();
    /* two uniforms broadcast: the rack min/max of the broadcast values */
    if (rk_elem_bits(t->elem) == 64)
        require_cap(RK_FEAT_I64_MINMAX, call->loc, "min and max of 64-bit racks");
    return rack_result(call, t, computed_def(x.def, y.def));
}

static Info bitwise(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    Info x, y;
    if (!pair(call, 0, 1, expect, &x, &y))
        return err();
    const RkType *t = pair_type(call, x, y, true);
    if (is_error(t))
        return err();
    rack_elem_ok(t->elem, call->loc);
    return rack_result(call, t, computed_def(x.def, y.def));
}

static Info shift(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    Info x = rack_arg(call, 0, expect, "an integer rack", INTS, false);
    if (is_error(x.ty))
        return x;
    RkNode *n = arg(call, 1);
    int bits = rk_elem_bits(x.ty->elem);
    long long v;
    if (n->kind == RK_INT || const_int_value(n, &v)) {
        if (!const_int_value(n, &v) || v < 0 || v >= bits) {
            ERROR(n->loc, "a literal shift count is from 0 to %d for %s lanes",
                  bits - 1, rk_elem_name(x.ty->elem));
            return err();
        }
        if (n->kind == RK_INT)
            set_ty(n, rk_ty_scalar(RK_E_U32));
        else
            check_vexpr(n, NULL);
    } else {
        Info c = check_vexpr(n, rk_ty_scalar(RK_E_U32));
        if (is_error(c.ty))
            return c;
        if (n->kind != RK_UNIFORM || c.ty->kind != RK_T_SCALAR || c.ty->elem != RK_E_U32) {
            ERROR(n->loc, "a shift count is a literal below the lane width or a "
                          "uniform u32 <n>, not %s",
                  ty_name(c.ty));
            return err();
        }
    }
    return rack_result(call, x.ty, computed_def(x.def, RK_BDD_TRUE));
}

static Info fma_op(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    Info a[3];
    const RkType *want = expect && expect->kind == RK_T_RACK ? expect : NULL;
    for (int i = 0; i < 3; i++) {
        a[i] = check_vexpr(arg(call, i), want);
        if (is_error(a[i].ty))
            return err();
        if (!want && a[i].ty->kind == RK_T_RACK)
            want = a[i].ty;
    }
    if (!want && a[0].ty->kind == RK_T_SCALAR && a[0].ty->elem == RK_E_F32)
        want = rk_ty_rack(RK_E_F32); /* three uniforms: broadcast */
    for (int i = 0; i < 3; i++) {
        bool ok = want && want->elem == RK_E_F32 && a[i].ty->elem == RK_E_F32 &&
                  (a[i].ty->kind == RK_T_RACK || a[i].ty->kind == RK_T_SCALAR);
        if (!ok) {
            ERROR(call->loc, "fma requires exactly three equal float rack operands");
            return err();
        }
    }
    if (call->name[0] == 'f')
        require_cap(RK_FEAT_FMA, call->loc, "fma");
    else
        require_cap(RK_FEAT_RELAXED, call->loc, call->name);
    return rack_result(call, want,
                       computed_def(a[0].def, rk_bdd_and(a[1].def, a[2].def)));
}

static Info relaxed_minmax(RkNode *call, const RkType *expect, const Builtin *b)
{
    Info in = minmax(call, expect, b);
    if (!is_error(in.ty)) {
        if (in.ty->elem != RK_E_F32) {
            ERROR(call->loc, "%s takes f32s racks", call->name);
            return err();
        }
        require_cap(RK_FEAT_RELAXED, call->loc, call->name);
    }
    return in;
}

static Info select_op(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)b;
    Info in = vselect(call, arg(call, 0), arg(call, 1), arg(call, 2), expect);
    if (!is_error(in.ty) && call->note && !strcmp(call->note, "uniform")) {
        ERROR(arg(call, 0)->loc, "select takes a lane mask; for a uniform "
                                 "condition write if <c> then a else b");
        return err();
    }
    return in;
}

static Info convert(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    bool to_f = !strcmp(call->name, "to_f32");
    static const RkElem ints32[] = {RK_E_I32, RK_E_U32, 0};
    Info a = to_f ? rack_arg(call, 0, NULL, "an i32s or u32s rack", ints32, true)
                  : rack_arg(call, 0, NULL, "an f32s rack", FLOATS, true);
    if (is_error(a.ty))
        return a;
    RkElem to = to_f ? RK_E_F32 : call->name[3] == 'i' ? RK_E_I32 : RK_E_U32;
    return rack_result(call, rk_ty_rack(to), computed_def(a.def, RK_BDD_TRUE));
}

Info check_bitcast(RkNode *e)
{
    const RkType *t = resolve_type(e->type, true);
    Info a = check_vexpr(e->operand, is_error(t) ? NULL : bitcast_literal_type(e->operand, t));
    if (is_error(t) || is_error(a.ty))
        return info_of(&rk_ty_error);
    if (t->kind != RK_T_RACK) {
        ERROR(e->type->loc, "bitcast in vector code changes a rack's element "
                            "type, so its type is a rack type such as i32s, "
                            "not %s",
              rk_ty_str(t));
        return info_of(&rk_ty_error);
    }
    bool uniform = a.ty->kind == RK_T_SCALAR && a.ty->elem != RK_E_BOOL;
    if (a.ty->kind != RK_T_RACK && !uniform) { /* a uniform is broadcast first */
        ERROR(e->operand->loc, "bitcast in vector code takes a rack, not %s",
              ty_name(a.ty));
        return info_of(&rk_ty_error);
    }
    if (rk_elem_bits(t->elem) != rk_elem_bits(a.ty->elem)) {
        ERROR(e->loc, "bitcast keeps the lane width: %s lanes are %d bits and %s "
                      "lanes %d",
              rk_ty_str(a.ty), rk_elem_bits(a.ty->elem), rk_ty_str(t),
              rk_elem_bits(t->elem));
        return info_of(&rk_ty_error);
    }
    rack_elem_ok(t->elem, e->loc);
    require_cap(RK_FEAT_CONVERT, e->loc, "bitcast");
    set_ty(e, t);
    Info in = info_of(t);
    in.def = a.def;
    return in;
}

static Info widen(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    Info a = check_vexpr(arg(call, 0), NULL);
    if (is_error(a.ty))
        return a;
    if (C->kind != FN_STACK_RUN || (a.ty->kind != RK_T_COLUMN && a.ty->kind != RK_T_RACK)) {
        ERROR(call->loc, "widen takes a stack column in a stack run, not %s",
              ty_name(a.ty));
        return err();
    }
    if (a.ty->kind == RK_T_RACK)
        return rack_result(call, a.ty, a.def); /* the column itself */
    RkElem el = a.ty->elem;
    bool sign = rk_elem_is_signed(el);
    RkElem to = C->domain_bits == 64 ? (sign ? RK_E_I64 : RK_E_U64)
                                     : (sign ? RK_E_I32 : RK_E_U32);
    if (C->domain_bits == 64 && rk_elem_bits(el) < 32) {
        require_cap(RK_FEAT_DOMAIN_64, call->loc,
                    "widening 8- and 16-bit columns in a 64-bit domain");
        ERROR(call->loc, "widening %s columns into a 64-bit domain is work in "
                         "progress",
              rk_elem_name(el));
        return err();
    }
    if (C->domain_bits != 32 && C->domain_bits != 64) {
        ERROR(call->loc, "widen converts into a 32- or 64-bit domain, but this run's "
                         "domain is %d-bit",
              C->domain_bits);
        return err();
    }
    return rack_result(call, rk_ty_rack(to), a.def);
}

static Info packed(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    bool low_high = !strncmp(call->name, "widen_", 6);
    RkElem in_el = low_high ? RK_E_U8 : call->name[0] == 'n' ? RK_E_I32 : RK_E_I16;
    RkElem out = low_high ? RK_E_I16 : call->name[0] == 'n' ? RK_E_I16 : RK_E_I32;
    RkElem list[] = {in_el, 0};
    const char *want = rk_arena_printf(&rk_heap, "%s racks", rk_elem_rack_name(in_el));
    Info a = rack_arg(call, 0, NULL, want, list, false), c = a;
    if (!low_high)
        c = rack_arg(call, 1, NULL, want, list, false);
    if (is_error(a.ty) || is_error(c.ty))
        return err();
    require_cap(RK_FEAT_PACKED_CONVERT, call->loc, call->name);
    return rack_result(call, rk_ty_rack(out), computed_def(a.def, c.def));
}

static bool in_stack_run_cross(RkNode *call)
{
    if (C->kind == FN_STACK_RUN)
        return !require_cap(RK_FEAT_STACK_RUN_CROSS_LANE, call->loc, call->name);
    return false;
}

static bool fully_defined(RkNode *call, RkNode *operand, Info a)
{
    require_defined(operand, a, RK_BDD_TRUE,
                    rk_arena_printf(&rk_heap, "%s reads every lane, and so needs a "
                                              "fully defined operand",
                                    call->kind == RK_SHUFFLE ? "shuffle" : call->name));
    return true;
}

static Info reduce(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    Info a = check_vexpr(arg(call, 0), NULL);
    if (is_error(a.ty))
        return a;
    bool scan = !strncmp(call->name, "scan_", 5);
    bool shape = a.ty->kind == RK_T_RACK || a.ty->kind == RK_T_SCALAR;
    if (!shape || a.ty->elem == RK_E_BOOL) {
        ERROR(arg(call, 0)->loc, "Arithmetic reduction requires f32s, i32s or u32s");
        return err();
    }
    RkElem el = a.ty->elem; /* a uniform is broadcast to a rack of el */
    if (a.ty->kind == RK_T_SCALAR)
        rack_elem_ok(el, arg(call, 0)->loc);
    if (el != RK_E_F32 && el != RK_E_I32 && el != RK_E_U32)
        require_cap(RK_FEAT_NARROW_REDUCE, call->loc, call->name);
    require_cap(RK_FEAT_CROSS_LANE, call->loc, call->name);
    if (in_stack_run_cross(call))
        return err();
    fully_defined(call, arg(call, 0), a);
    const RkType *t = scan ? rk_ty_rack(el) : rk_ty_scalar(el);
    return rack_result(call, t, scan ? C->ctx : RK_BDD_TRUE);
}

static Info mask_reduce(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    Info a = check_vexpr(arg(call, 0), NULL);
    if (is_error(a.ty))
        return a;
    /* all/any of a uniform bool: the bool broadcast to every lane, so itself;
     * bitmask needs a lane count, which only a mask has */
    bool bool_uniform = a.ty->kind == RK_T_SCALAR && a.ty->elem == RK_E_BOOL &&
                        call->name[0] != 'b';
    if (a.ty->kind != RK_T_MASK && !bool_uniform) {
        ERROR(arg(call, 0)->loc, "%s takes a mask, not %s", call->name, ty_name(a.ty));
        return err();
    }
    require_cap(RK_FEAT_MASK_REDUCE, call->loc, call->name);
    if (in_stack_run_cross(call))
        return err();
    fully_defined(call, arg(call, 0), a);
    RkElem r = call->name[0] == 'b' ? RK_E_U32 : RK_E_BOOL;
    return rack_result(call, rk_ty_scalar(r), RK_BDD_TRUE);
}

static bool lane_index(RkNode *call, RkNode *n, RkElem el, long long *idx)
{
    int lanes = rk_lanes_of(el, C->profile->lanes);
    if (!const_int_value(n, idx) || *idx < 0 || *idx >= lanes) {
        ERROR(n->loc, "%s's lane index is an integer literal from 0 to %d on %s",
              call->name, lanes - 1, C->profile->name);
        return false;
    }
    if (n->kind == RK_INT)
        set_ty(n, rk_ty_scalar(RK_E_I32));
    else
        check_vexpr(n, NULL);
    return true;
}

/* A uniform where a cross-lane operation needs a rack is broadcast first;
 * a bool has no rack (it compares into a mask). */
static bool rack_of_uniform(RkNode *call, Info a)
{
    if (a.ty->elem == RK_E_BOOL) {
        ERROR(arg(call, 0)->loc, "%s takes a rack, not %s", call->name, ty_name(a.ty));
        return false;
    }
    return rack_elem_ok(a.ty->elem, arg(call, 0)->loc);
}

static Info extract(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    Info a = rack_arg(call, 0, NULL, "a rack", NULL, true);
    long long idx;
    if (is_error(a.ty) || !lane_index(call, arg(call, 1), a.ty->elem, &idx))
        return err();
    if (a.ty->kind == RK_T_SCALAR && !rack_of_uniform(call, a))
        return err();
    require_cap(RK_FEAT_CROSS_LANE, call->loc, "extract");
    if (in_stack_run_cross(call))
        return err();
    fully_defined(call, arg(call, 0), a);
    return rack_result(call, rk_ty_scalar(a.ty->elem), RK_BDD_TRUE);
}

static Info insert(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    Info a = rack_arg(call, 0, NULL, "a rack", NULL, true);
    long long idx;
    if (is_error(a.ty) || !lane_index(call, arg(call, 1), a.ty->elem, &idx))
        return err();
    if (a.ty->kind == RK_T_SCALAR && !rack_of_uniform(call, a))
        return err();
    a.ty = rk_ty_rack(a.ty->elem);
    Info u = check_vexpr(arg(call, 2), rk_ty_scalar(a.ty->elem));
    if (is_error(u.ty))
        return err();
    if (u.ty->kind != RK_T_SCALAR || u.ty->elem != a.ty->elem) {
        ERROR(arg(call, 2)->loc, "insert's replacement is a uniform %s, not %s",
              rk_elem_name(a.ty->elem), ty_name(u.ty));
        return err();
    }
    require_cap(RK_FEAT_CROSS_LANE, call->loc, "insert");
    if (in_stack_run_cross(call))
        return err();
    fully_defined(call, arg(call, 0), a);
    return rack_result(call, a.ty, C->ctx);
}

static Info reserved(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    for (int i = 0; i < call->args.len; i++)
        check_vexpr(arg(call, i), NULL);
    require_cap(!strcmp(call->name, "zip_low") ? RK_FEAT_LANE_INDEX
                                               : RK_FEAT_WHOLE_LANE_SHIFT,
                call->loc, call->name);
    return err();
}

static Info slow_only(RkNode *call, const RkType *expect, const Builtin *b)
{
    (void)expect;
    (void)b;
    ERROR(call->loc, "%s is a slow-code operation; vector code can't use it",
          call->name);
    return err();
}

static const Builtin builtins[] = {
    {"sqrt", float_unary, 1, F_FUSED},
    {"floor", float_unary, 1, F_FUSED},
    {"ceil", float_unary, 1, F_FUSED},
    {"trunc", float_unary, 1, F_FUSED},
    {"nearest", float_unary, 1, F_FUSED},
    {"abs", abs_op, 1, F_FUSED},
    {"min", minmax, 2, F_FUSED},
    {"max", minmax, 2, F_FUSED},
    {"fma", fma_op, 3, F_FUSED},
    {"select", select_op, 3, F_FUSED},
    {"to_i32", convert, 1, F_FUSED},
    {"to_u32", convert, 1, F_FUSED},
    {"to_f32", convert, 1, F_FUSED},
    {"widen", widen, 1, 0},
    {"widen_low", packed, 1, F_FUSED},
    {"widen_high", packed, 1, F_FUSED},
    {"narrow", packed, 2, F_FUSED},
    {"dot", packed, 2, F_FUSED},
    {"sum", reduce, 1, F_CROSS | F_REDUCE},
    {"product", reduce, 1, F_CROSS | F_REDUCE},
    {"minimum", reduce, 1, F_CROSS | F_REDUCE},
    {"maximum", reduce, 1, F_CROSS | F_REDUCE},
    {"scan_sum", reduce, 1, F_CROSS | F_REDUCE},
    {"scan_product", reduce, 1, F_CROSS | F_REDUCE},
    {"scan_minimum", reduce, 1, F_CROSS | F_REDUCE},
    {"scan_maximum", reduce, 1, F_CROSS | F_REDUCE},
    {"extract", extract, 2, F_CROSS},
    {"insert", insert, 3, F_CROSS},
    {"all", mask_reduce, 1, F_CROSS | F_REDUCE},
    {"any", mask_reduce, 1, F_CROSS | F_REDUCE},
    {"bitmask", mask_reduce, 1, F_CROSS | F_REDUCE},
    {"bit_and", bitwise, 2, F_FUSED},
    {"bit_or", bitwise, 2, F_FUSED},
    {"bit_xor", bitwise, 2, F_FUSED},
    {"bit_andnot", bitwise, 2, F_FUSED},
    {"shift_bits_left", shift, 2, F_FUSED},
    {"shift_bits_right", shift, 2, F_FUSED},
    {"shift_bits_right_signed", shift, 2, F_FUSED},
    {"exp", transcendental, 1, F_FUSED},
    {"log", transcendental, 1, F_FUSED},
    {"log2", transcendental, 1, F_FUSED},
    {"tanh", transcendental, 1, F_FUSED},
    {"relaxed_madd", fma_op, 3, F_FUSED},
    {"relaxed_nmadd", fma_op, 3, F_FUSED},
    {"relaxed_min", relaxed_minmax, 2, F_FUSED},
    {"relaxed_max", relaxed_minmax, 2, F_FUSED},
    {"sin", trig, 1, 0},
    {"cos", trig, 1, 0},
    {"tan", trig, 1, 0},
    {"pow", trig, 2, 0},
    {"atan2", trig, 2, 0},
    {"shift_left", reserved, -1, 0},
    {"shift_right", reserved, -1, 0},
    {"rotate_left", reserved, -1, 0},
    {"rotate_right", reserved, -1, 0},
    {"zip_low", reserved, -1, 0},
    {"copy", slow_only, -1, 0},
    {"count", slow_only, -1, 0},
    {NULL, NULL, 0, 0},
};

static const Builtin *find(const char *name)
{
    for (const Builtin *b = builtins; b->name; b++)
        if (!strcmp(b->name, name))
            return b;
    return NULL;
}

bool is_cross_lane_builtin(const char *name)
{
    const Builtin *b = find(name);
    return b && (b->flags & F_CROSS);
}

bool is_reduction_builtin(const char *name)
{
    const Builtin *b = find(name);
    return b && (b->flags & F_REDUCE);
}

bool is_fusable_builtin(const char *name)
{
    const Builtin *b = find(name);
    return b && (b->flags & F_FUSED);
}

Info check_builtin(RkNode *call, const RkType *expect, bool *found)
{
    const Builtin *b = find(call->name);
    *found = b != NULL && !find_decl(call->name);
    if (!*found)
        return err();
    call->note = "builtin";
    if (b->nargs >= 0 && call->args.len != b->nargs) {
        ERROR(call->loc, "%s takes %d argument%s, found %d", call->name, b->nargs,
              b->nargs == 1 ? "" : "s", call->args.len);
        return err();
    }
    if (C->through_depth && (b->flags & F_REDUCE)) {
        ERROR(call->loc, "%s is not allowed in a through block: reductions and "
                         "scans read inactive lanes (feature 'masked.cross-lane')",
              call->name);
        return err();
    }
    if (C->through_depth && !strncmp(call->name, "relaxed_", 8)) {
        ERROR(call->loc, "%s is not available inside a through block", call->name);
        return err();
    }
    return b->h(call, expect, b);
}

Info check_shuffle(RkNode *n)
{
    if (n->args.len < 1 || n->args.len > 2) {
        ERROR(n->loc, "shuffle takes one or two racks and a list of indices");
        return err();
    }
    Info a = rack_arg(n, 0, NULL, "racks", NULL, false), c = a;
    if (n->args.len == 2)
        c = rack_arg(n, 1, NULL, "racks", NULL, false);
    if (is_error(a.ty) || is_error(c.ty))
        return err();
    if (!rk_ty_equal(a.ty, c.ty)) {
        ERROR(n->loc, "shuffle's two racks have one type, found %s and %s",
              ty_name(a.ty), ty_name(c.ty));
        return err();
    }
    int lanes = rk_lanes_of(a.ty->elem, C->profile->lanes);
    if (n->elems.len != lanes) {
        ERROR(n->loc, "shuffle needs %d indices on %s, one for each lane of %s, "
                      "found %d",
              lanes, C->profile->name, ty_name(a.ty), n->elems.len);
        return err();
    }
    int limit = lanes * n->args.len;
    for (int i = 0; i < n->elems.len; i++) {
        long long v;
        RkNode *x = n->elems.items[i];
        if (!int_literal_value(x, &v) || v < 0 || v >= limit) {
            ERROR(x->loc, "shuffle index %s is out of range: %s lanes number 0 to "
                          "%d",
                  x->text, n->args.len == 2 ? "two racks'" : "the rack's", limit - 1);
            return err();
        }
        set_ty(x, rk_ty_scalar(RK_E_I32));
    }
    n->name = "shuffle";
    require_cap(RK_FEAT_CROSS_LANE, n->loc, "shuffle");
    if (in_stack_run_cross(n))
        return err();
    fully_defined(n, n->args.items[0], a);
    if (n->args.len == 2)
        fully_defined(n, n->args.items[1], c);
    return rack_result(n, a.ty, C->ctx);
}

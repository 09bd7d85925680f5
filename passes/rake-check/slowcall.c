/* slowcall.c: calls from slow code, and the slow built-ins.
 *
 * A call to a run, a kernel or a slow function checks each argument
 * against its parameter: a scalar for vector code is marked <...>, a view
 * or array is passed by reference, and a `mut` view needs writable storage
 * (slow_writable: an array bound with :=, module state, a mut view, a
 * slice or column of writable storage).  A run moves its result stack in;
 * the stack's columns must be writable, since the run writes its result
 * there.  The slow built-ins (sqrt, min, bit operations, count, copy,
 * slice, ...) are typed here too. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check.h"
#include "slow.h"

/* --- calls --------------------------------------------------------------------------- */

/* Is this expression a place slow code may write through?  A view says
 * so in its type (`mut []T`: a mut view parameter, a slice of writable
 * storage, a column of a stack on writable storage); an array is writable
 * when it is a location (:=) or module state, never a const, a let or a
 * parameter (passed by reference, read-only). */
bool slow_writable(RkNode *a)
{
    const RkType *t = a->ty ? rk_type_parse(a->ty) : NULL;
    if (t && t->kind == RK_T_VIEW)
        return t->mut;
    if (a->kind == RK_NAME) {
        Binding *b = lookup(a->name);
        if (b)
            return b->kind == B_VAR || (b->kind == B_PARAM && b->type->mut &&
                                        b->type->kind != RK_T_VIEW);
        RkNode *d = find_decl(a->name);
        return d && d->kind == RK_STATE;
    }
    return place_writable(a);
}

/* Why a place isn't writable, as a clause: "'x' is a const". */
const char *slow_readonly_reason(RkNode *a)
{
    const char *text = expr_text(a);
    const RkType *t = a->ty ? rk_type_parse(a->ty) : NULL;
    if (a->kind == RK_NAME) {
        Binding *b = lookup(a->name);
        RkNode *d = b ? NULL : find_decl(a->name);
        if (d && d->kind == RK_CONST)
            return rk_arena_printf(&rk_heap, "'%s' is a const", text);
        if (b && b->type->kind == RK_T_STACK && b->ro_stack)
            return rk_arena_printf(&rk_heap, "'%s' is a stack with a column on read-only "
                                             "storage", text);
        if (t && t->kind == RK_T_VIEW)
            return rk_arena_printf(&rk_heap, "'%s' is a read-only view (%s)", text,
                                   rk_ty_str(t));
        if (b && b->kind == B_PARAM)
            return rk_arena_printf(&rk_heap, "'%s' is %s parameter, read-only unless "
                                             "declared mut",
                                   text, b->type->kind == RK_T_ARRAY ? "an array" : "a record");
        if (b && b->kind == B_LET)
            return rk_arena_printf(&rk_heap, "'%s' is a let binding, which can't be "
                                             "changed",
                                   text);
    }
    if (a->kind == RK_FIELD && t && t->kind == RK_T_VIEW)
        return rk_arena_printf(&rk_heap, "'%s' is a column on read-only storage", text);
    if (t && t->kind == RK_T_VIEW)
        return rk_arena_printf(&rk_heap, "'%s' is a read-only view (%s)", text, rk_ty_str(t));
    return rk_arena_printf(&rk_heap, "'%s' is not a location", text);
}

/* The first column of a stack literal on read-only storage, or NULL. */
static RkNode *ro_column(RkNode *e)
{
    for (int i = 0; e->kind == RK_STACK_LIT && i < e->fields.len; i++)
        if (!slow_writable(e->fields.items[i]->value))
            return e->fields.items[i];
    return NULL;
}

/* Does this stack value sit on read-only storage (a column that is a
 * const, a parameter's array or a read-only view)?  A run writes its
 * result into the result argument's columns, and a column is a view that
 * slow code may write through. */
bool slow_stack_ro(RkNode *e)
{
    if (e->kind == RK_NAME) {
        Binding *b = lookup(e->name);
        return b && b->ro_stack;
    }
    return ro_column(e) != NULL;
}

static Info scalar_arg_to_vector(RkNode *a, const RkType *pt, const char *callee)
{
    if (a->kind != RK_UNIFORM) {
        check_sexpr(a, pt);
        ERROR(a->loc, "a scalar passed to vector code becomes a rack there: mark "
                      "it <...> at the call");
        return err();
    }
    Info v = check_sexpr(a->operand, pt);
    if (is_error(v.ty))
        return v;
    if (!rk_ty_equal(v.ty, pt)) {
        ERROR(a->loc, "%s's parameter is %s, but this argument is %s", callee,
              rk_ty_str(pt), ty_name(v.ty));
        return err();
    }
    set_ty(a, v.ty);
    return v;
}

/* An argument for a view, array or scalar parameter. */
static bool data_arg(RkNode *a, const RkType *pt, const char *what)
{
    if (a->kind == RK_UNIFORM) {
        ERROR(a->loc, "a <...> mark in slow code marks a scalar argument to vector "
                      "code");
        return false;
    }
    Info v = check_sexpr(a, pt);
    if (is_error(v.ty) || is_error(pt))
        return false;
    if (pt->kind == RK_T_VIEW) {
        bool shape = (v.ty->kind == RK_T_ARRAY || v.ty->kind == RK_T_VIEW) &&
                     rk_ty_equal(v.ty->inner, pt->inner);
        if (!shape) {
            ERROR(a->loc, "%s is a view of %s; pass an array or a view of %s, not %s",
                  what, rk_ty_str(pt->inner), rk_ty_str(pt->inner), ty_name(v.ty));
            return false;
        }
        if (pt->mut && !slow_writable(a)) {
            ERROR(a->loc, "%s is a mut view, but %s: pass an array bound with :=, "
                          "module state or a mut view",
                  what, slow_readonly_reason(a));
            return false;
        }
        return true;
    }
    if (!ty_accepts(pt, v.ty)) {
        ERROR(a->loc, "%s is %s, but this argument is %s", what, ty_name(pt),
              ty_name(v.ty));
        return false;
    }
    if (pt->kind != RK_T_SCALAR && pt->mut && !slow_writable(a)) {
        ERROR(a->loc, "%s is a mut %s, but %s: pass one bound with :=, module "
                      "state or a mut parameter",
              what, pt->kind == RK_T_ARRAY ? "array" : "record", slow_readonly_reason(a));
        return false;
    }
    return true;
}

/* The stack parameter a stack run's result names (`b with {...}`,
 * `compact b ...`): the stack that moves into the run, every other one
 * read-only (spec page 03), as rake-lower, rake-interp and rake-cgen
 * read it.  NULL for a general run, or a run whose result names none of
 * its parameters (an error reported where the run is checked). */
static RkNode *result_stack_param(RkNode *run)
{
    RkNode *last = run->ret && run->body.len ? run->body.items[run->body.len - 1] : NULL;
    if (!last || (last->kind != RK_WITH && last->kind != RK_COMPACT) || !last->stack ||
        last->stack->kind != RK_NAME)
        return NULL;
    for (int i = 0; i < run->params.len; i++) {
        RkNode *p = run->params.items[i];
        if (!p->uniform && p->type->kind == RK_TYPE_STACK && !strcmp(p->name, last->stack->name))
            return p;
    }
    return NULL;
}

static Info call_run(RkNode *call, RkNode *run)
{
    if (C->slow_block && C->kind != FN_SLOW) {
        ERROR(call->loc, "a run can't be called from inside another run");
        return err();
    }
    RkNode *res = result_stack_param(run);
    Binding *moved = NULL; /* the result stack, passed by name */
    for (int i = 0; i < call->args.len; i++) {
        RkNode *p = run->params.items[i], *a = call->args.items[i];
        const RkType *pt = p->ty ? rk_type_parse(p->ty) : resolve_type(p->type, true);
        const char *what = rk_arena_printf(&rk_heap, "parameter '%s' of %s", p->name, run->name);
        if (is_error(pt)) {
            check_sexpr(a, NULL);
        } else if (p->uniform) {
            scalar_arg_to_vector(a, pt, run->name);
        } else if (pt->kind == RK_T_STACK) {
            Info v = check_sexpr(a, pt);
            if (!is_error(v.ty) && !rk_ty_equal(v.ty, pt))
                ERROR(a->loc, "%s is a stack %s, not %s", what, pt->name, ty_name(v.ty));
            if (p == res && !is_error(v.ty) && slow_stack_ro(a)) {
                RkNode *col = ro_column(a);
                if (col)
                    ERROR(col->value->loc, "run %s writes its result into this stack, but "
                                           "column '%s' is read-only storage",
                          run->name, col->name);
                else
                    ERROR(a->loc, "run %s writes its result into this stack, but %s",
                          run->name, slow_readonly_reason(a));
            }
            if (p == res && a->kind == RK_NAME) {
                Binding *b = lookup(a->name);
                if (b && b->type->kind == RK_T_STACK && !b->moved)
                    moved = b;
            }
        } else if (pt->kind == RK_T_RACK || pt->kind == RK_T_MASK) {
            check_sexpr(a, NULL);
            ERROR(a->loc, "slow code holds no racks: %s is %s, which only C callers "
                          "can pass",
                  what, ty_name(pt));
        } else {
            data_arg(a, pt, what);
        }
    }
    if (moved) {
        moved->moved = true;
        moved->moved_at = call->loc;
    }
    const RkType *t = run->ret ? rk_ty_stack(run->ret->name) : &rk_ty_unit;
    set_ty(call, t);
    return info_of(t);
}

static Info call_kernel(RkNode *call, RkNode *k)
{
    const RkType *r = resolve_type(k->ret, true);
    bool ok = !is_error(r) && r->kind == RK_T_SCALAR;
    for (int i = 0; i < k->params.len; i++)
        ok &= k->params.items[i]->uniform;
    if (!ok) {
        ERROR(call->loc, "slow code calls %s %s only when every parameter is uniform "
                         "and the result is a scalar",
              rk_kind_name(k->kind), k->name);
        for (int i = 0; i < call->args.len; i++)
            check_sexpr(call->args.items[i], NULL);
        return err();
    }
    for (int i = 0; i < call->args.len; i++) {
        RkNode *p = k->params.items[i];
        scalar_arg_to_vector(call->args.items[i], resolve_type(p->type, true), k->name);
    }
    set_ty(call, r);
    return info_of(r);
}

static Info call_slow(RkNode *call, RkNode *fn)
{
    for (int i = 0; i < call->args.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *pt = resolve_slow_param_type(p->type);
        data_arg(call->args.items[i], pt,
                 rk_arena_printf(&rk_heap, "parameter '%s' of %s", p->name, fn->name));
    }
    const RkType *t = fn->ret ? resolve_type(fn->ret, false) : &rk_ty_unit;
    set_ty(call, t);
    return info_of(t);
}

Info check_slow_call(RkNode *call, RkNode *callee, const RkType *expect)
{
    (void)expect;
    call->note = rk_kind_name(callee->kind);
    if (call->args.len != callee->params.len) {
        ERROR(call->loc, "%s takes %d argument%s, found %d", callee->name,
              callee->params.len, callee->params.len == 1 ? "" : "s", call->args.len);
        return err();
    }
    switch (callee->kind) {
    case RK_RUN:
        return call_run(call, callee);
    case RK_SCRATCH:
    case RK_RAKE:
        return call_kernel(call, callee);
    case RK_SLOW:
        return call_slow(call, callee);
    case RK_EXTERN:
        return call_extern(call, callee);
    default:
        ERROR(call->loc, "'%s' is a %s, not a function", callee->name,
              rk_kind_name(callee->kind));
        return err();
    }
}

/* --- slow built-ins ------------------------------------------------------------------- */

static Info one_arg(RkNode *call, const RkType *expect, bool (*ok)(const RkType *),
                    const char *want)
{
    Info a = check_sexpr(call->args.items[0], expect);
    if (is_error(a.ty))
        return a;
    if (!ok(a.ty)) {
        ERROR(call->args.items[0]->loc, "%s takes %s, not %s", call->name, want,
              ty_name(a.ty));
        return err();
    }
    set_ty(call, a.ty);
    return a;
}

static bool is_float_t(const RkType *t) { return t->kind == RK_T_SCALAR && rk_elem_is_float(t->elem); }

static Info two_same(RkNode *call, const RkType *expect, bool (*ok)(const RkType *),
                     const char *want)
{
    Info l, r;
    slow_operands(call->args.items[0], call->args.items[1], expect, &l, &r);
    if (is_error(l.ty) || is_error(r.ty))
        return err();
    if (!ok(l.ty) || !rk_ty_equal(l.ty, r.ty)) {
        ERROR(call->loc, "%s takes two %s of one type, found %s and %s", call->name,
              want, ty_name(l.ty), ty_name(r.ty));
        return err();
    }
    set_ty(call, l.ty);
    return l;
}

static Info shift_like(RkNode *call, const RkType *expect)
{
    Info x = check_sexpr(call->args.items[0], expect);
    Info n = check_sexpr(call->args.items[1], rk_ty_scalar(RK_E_U32));
    if (is_error(x.ty) || is_error(n.ty))
        return err();
    if (!is_int(x.ty) || !is_int(n.ty)) {
        ERROR(call->loc, "%s takes an integer and an integer count", call->name);
        return err();
    }
    set_ty(call, x.ty);
    return x;
}

static Info s_count(RkNode *call)
{
    Info a = check_sexpr(call->args.items[0], NULL);
    if (is_error(a.ty))
        return a;
    const RkType *t;
    if (a.ty->kind == RK_T_STACK)
        t = rk_ty_scalar(RK_E_I64);
    else if (a.ty->kind == RK_T_VIEW || a.ty->kind == RK_T_ARRAY)
        t = rk_ty_scalar(RK_E_I32);
    else {
        ERROR(call->loc, "count takes a stack, a view or an array, not %s",
              ty_name(a.ty));
        return err();
    }
    set_ty(call, t);
    return info_of(t);
}

static Info s_copy(RkNode *call)
{
    Info a = check_sexpr(call->args.items[0], NULL);
    if (is_error(a.ty))
        return a;
    if (a.ty->kind != RK_T_STACK) {
        ERROR(call->loc, "copy takes a stack, not %s", ty_name(a.ty));
        return err();
    }
    set_ty(call, a.ty);
    return a;
}

static Info s_slice(RkNode *call)
{
    Info a = check_sexpr(call->args.items[0], NULL);
    Info s = check_sexpr(call->args.items[1], rk_ty_scalar(RK_E_I32));
    Info n = check_sexpr(call->args.items[2], rk_ty_scalar(RK_E_I32));
    if (is_error(a.ty) || is_error(s.ty) || is_error(n.ty))
        return err();
    if ((a.ty->kind != RK_T_ARRAY && a.ty->kind != RK_T_VIEW) ||
        !is_scalar(s.ty, RK_E_I32) || !is_scalar(n.ty, RK_E_I32)) {
        ERROR(call->loc, "slice(a, start, n) takes an array or view and two i32s");
        return err();
    }
    const RkType *t = rk_ty_view(a.ty->inner, a.ty->kind == RK_T_VIEW ? a.ty->mut
                                                                     : slow_writable(call->args.items[0]));
    set_ty(call, t);
    return info_of(t);
}

typedef struct SlowBuiltin {
    const char *name;
    int nargs;
    int kind; /* 0 float unary, 1 numeric unary, 2 numeric pair, 3 int unary,
                 4 int pair, 5 shift, 6 count, 7 copy, 8 slice, 9 pointer */
} SlowBuiltin;

static const SlowBuiltin slow_builtins[] = {
    {"sqrt", 1, 0}, {"exp", 1, 0}, {"log", 1, 0}, {"log2", 1, 0}, {"tanh", 1, 0},
    {"floor", 1, 0}, {"ceil", 1, 0}, {"abs", 1, 1}, {"min", 2, 2}, {"max", 2, 2},
    {"bit_not", 1, 3}, {"count_leading_zeros", 1, 3}, {"count_trailing_zeros", 1, 3},
    {"popcount", 1, 3}, {"bit_and", 2, 4}, {"bit_or", 2, 4}, {"bit_xor", 2, 4},
    {"bit_andnot", 2, 4}, {"wrap_add", 2, 4}, {"wrap_sub", 2, 4}, {"wrap_mul", 2, 4},
    {"shift_bits_left", 2, 5}, {"shift_bits_right", 2, 5},
    {"shift_bits_right_signed", 2, 5}, {"rotate_bits_left", 2, 5},
    {"rotate_bits_right", 2, 5}, {"count", 1, 6}, {"copy", 1, 7}, {"slice", 3, 8},
    {"unchecked_view", 2, 9}, {"addr", 1, 9}, {"is_null", 1, 9}, {NULL, 0, 0},
};

Info check_slow_builtin(RkNode *call, const RkType *expect, bool *found)
{
    const SlowBuiltin *b = slow_builtins;
    while (b->name && strcmp(b->name, call->name))
        b++;
    *found = b->name && !find_decl(call->name);
    if (!*found)
        return err();
    call->note = "builtin";
    if (call->args.len != b->nargs) {
        ERROR(call->loc, "%s takes %d argument%s, found %d", call->name, b->nargs,
              b->nargs == 1 ? "" : "s", call->args.len);
        return err();
    }
    switch (b->kind) {
    case 0: return one_arg(call, expect, is_float_t, "an f32 or f64");
    case 1: return one_arg(call, expect, is_num, "a number");
    case 2: return two_same(call, expect, is_num, "numbers");
    case 3: return one_arg(call, expect, is_int, "an integer");
    case 4: return two_same(call, expect, is_int, "integers");
    case 5: return shift_like(call, expect);
    case 6: return s_count(call);
    case 7: return s_copy(call);
    case 8: return s_slice(call);
    default:
        return check_pointer_builtin(call);
    }
}


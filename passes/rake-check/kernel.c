/* kernel.c: scratches, rakes and the statements of vector code.
 *
 * A scratch is straight-line vector code ending in its result expression.
 * A rake is, in order: setup `let`s, local tines, one or more through
 * blocks, and the sweep.  This file checks both, the statements they share
 * with runs, the fused-binding contract, and the two proofs of the rake:
 *
 *   - definedness: a through result without `else` is defined only under
 *     its predicate (and whatever mask encloses it); every read must happen
 *     under a mask that implies that, and cross-lane operations need fully
 *     defined operands;
 *   - coverage: the sweep's arms, each taking the lanes earlier arms left,
 *     must cover every lane unless a `_` arm ends the sweep, and no arm may
 *     be unreachable.
 * Both are implications between BDDs (pred.c). */
#include <string.h>

#include "arena.h"
#include "check.h"

/* --- definedness ------------------------------------------------------------ */

/* The first name in an expression that may be undefined where its
 * through block left it so. */
typedef struct Undefined {
    RkBdd where;
    RkNode *name;
} Undefined;

static bool undefined_name(RkNode *e, void *ctx)
{
    Undefined *u = ctx;
    if (e->kind != RK_NAME)
        return rk_ast_any_child(e, undefined_name, u);
    Binding *b = lookup(e->name);
    if (b && b->partial_pred && !rk_bdd_implies(u->where, b->def))
        u->name = e;
    return u->name != NULL;
}

void require_defined(RkNode *e, Info in, RkBdd where, const char *what)
{
    if (is_error(in.ty) || rk_bdd_implies(where, in.def))
        return;
    Undefined u = {where, NULL};
    undefined_name(e, &u);
    RkNode *n = u.name;
    if (n) {
        Binding *b = lookup(n->name);
        ERROR(n->loc, "'%s' may be undefined here: its through block (line %d) "
                      "has no else and defines it only where %s holds, but %s",
              n->name, b->decl->loc.line, b->partial_pred, what);
    } else {
        ERROR(e->loc, "this value may be undefined in some lanes: %s", what);
    }
}

/* --- the fused-binding contract ------------------------------------------------ */

/* Why this node itself is no inlineable shape, or NULL. */
static const char *shape_violation(RkNode *e)
{
    switch (e->kind) {
    case RK_CALL:
        if (!e->note || strcmp(e->note, "builtin"))
            return rk_arena_printf(&rk_heap, "call to '%s' is not a compiler-known "
                                             "pure built-in",
                                   e->name);
        if (is_reduction_builtin(e->name) && strncmp(e->name, "scan_", 5))
            return "reduction is not an inlineable expression shape";
        if (!strncmp(e->name, "scan_", 5))
            return "scan is not an inlineable expression shape";
        if (!is_fusable_builtin(e->name))
            return rk_arena_printf(&rk_heap, "'%s' is not an inlineable expression "
                                             "shape",
                                   e->name);
        break;
    case RK_INDEX:
        return "indexing, loads and gathers are not inlineable expression shapes";
    case RK_BITCAST:
        return "conversions such as bitcast are not inlineable expression shapes";
    case RK_SLOW_BLOCK:
        return "a slow block is not an inlineable expression shape";
    case RK_ARRAY_LIT: case RK_ARRAY_FILL: case RK_RECORD_LIT: case RK_STACK_LIT:
        return "records and arrays are not inlineable expression shapes";
    default:
        break;
    }
    return NULL;
}

/* The first node of a fused binding's value that breaks the contract:
 * *why receives the reason. */
static bool fused_violation(RkNode *e, void *why)
{
    *(const char **)why = shape_violation(e);
    return *(const char **)why || rk_ast_any_child(e, fused_violation, why);
}

/* --- statements ------------------------------------------------------------------ */

static const RkType *declared(RkNode *tnode)
{
    return tnode ? resolve_type(tnode, true) : NULL;
}

/* A rack binding: a scalar value broadcasts into a rack of its element. */
static const RkType *rack_of(const RkType *t)
{
    if (t->kind == RK_T_SCALAR && t->elem != RK_E_BOOL)
        return rk_ty_rack(t->elem);
    return t;
}

static bool bindable(RkNode *at, const RkType *t, const char *what)
{
    if (is_error(t))
        return false;
    if (t->kind == RK_T_RACK || t->kind == RK_T_MASK || t->kind == RK_T_COLUMN)
        return true;
    ERROR(at->loc, "%s binds a rack or a mask, not %s%s", what, ty_name(t),
          t->kind == RK_T_SCALAR ? " (bind a uniform with let <x: T> = e)" : "");
    return false;
}

static void let_uniform(RkNode *s)
{
    const RkType *t = resolve_type(s->type, true);
    Info in = check_vexpr(s->value, t);
    if (!is_error(t) && t->kind != RK_T_SCALAR)
        ERROR(s->type->loc, "let <%s: T> binds a uniform scalar, not %s", s->name,
              ty_name(t));
    else if (!is_error(in.ty) && !is_error(t) && !rk_ty_equal(in.ty, t))
        ERROR(s->value->loc, "the uniform <%s: %s> is bound to %s%s", s->name,
              rk_ty_str(t), ty_name(in.ty),
              in.ty->kind == RK_T_RACK || in.ty->kind == RK_T_MASK
                  ? "; a rack gives one scalar through a reduction or extract"
                  : "");
    if (!is_error(t) && t->elem == RK_E_BOOL && C->kind == FN_STACK_RUN &&
        C->profile->arch == RK_ARCH_WASM)
        ERROR(s->loc, "a bool uniform binding in a stack run compiles only on "
                      "native targets");
    Binding *b = bind(s, s->name, B_LET, t);
    b->uniform = true;
    s->ty = is_error(t) ? NULL : rk_ty_str(t);
}

static void let_rack(RkNode *s, bool fused)
{
    const RkType *want = declared(s->type);
    if (want && !fused && want->kind == RK_T_SCALAR && want->elem != RK_E_BOOL) {
        /* `let v: f32 = e` would bind a rack under a uniform's name */
        ERROR(s->type->loc, "a let in vector code binds a rack: write 'let %s: %s = ...', or "
                            "'let <%s: %s> = ...' for a uniform",
              s->name, rk_ty_str(rack_of(want)), s->name, rk_ty_str(want));
        want = &rk_ty_error;
    }
    if (want && is_error(want)) {
        check_vexpr(s->value, NULL);
        bind(s, s->name, B_LET, want);
        return;
    }
    const char *saved = C->fused;
    if (fused)
        C->fused = s->name;
    Info in = check_vexpr(s->value, want);
    C->fused = saved;
    const RkType *t = in.ty;
    if (fused && !is_error(t)) {
        const char *why = NULL;
        if (fused_violation(s->value, &why))
            ERROR(s->value->loc, "Fused binding contract for '%s' rejected: %s",
                  s->name, why);
    }
    if (want && !is_error(t)) {
        if (fused && !rk_ty_equal(rack_of(t), want))
            ERROR(s->type->loc, "Fused binding '%s' type mismatch: expected %s, "
                                "got %s",
                  s->name, rk_ty_str(want), rk_ty_str(rack_of(t)));
        else if (!fused)
            in = coerce(s->value, in, want, rk_arena_printf(&rk_heap, "the value of '%s'", s->name));
        t = want;
    }
    if (!is_error(t))
        t = rack_of(t);
    Binding *b = bind(s, s->name, B_LET, bindable(s->value, t, fused ? "a fused binding" : "let") ? t : &rk_ty_error);
    b->def = in.def;
    if (t->kind == RK_T_MASK) {
        b->mask = in.mask;
        b->mask_def = in.def;
    }
    s->ty = is_error(b->type) ? NULL : rk_ty_str(b->type);
}

static void var_stmt(RkNode *s)
{
    const RkType *want = declared(s->type);
    if (want && !is_error(want) && want->kind == RK_T_ARRAY) {
        if (want->inner->kind != RK_T_RACK)
            ERROR(s->type->loc, "vector code holds arrays of racks, not %s",
                  rk_ty_str(want));
        Info in = check_vexpr(s->value, want->inner);
        coerce(s->value, in, want->inner, "a rack array's initial value");
    } else {
        Info in = check_vexpr(s->value, want);
        if (want && !is_error(want))
            coerce(s->value, in, want, rk_arena_printf(&rk_heap, "the value of '%s'", s->name));
        else if (!is_error(in.ty))
            want = rack_of(in.ty);
        if (want && !is_error(want) && want->kind != RK_T_RACK && want->kind != RK_T_MASK) {
            ERROR(s->loc, "a location in vector code holds a rack, a mask or an "
                          "array of racks, not %s",
                  ty_name(want));
            want = &rk_ty_error;
        }
        require_defined(s->value, in, C->ctx, "a location is read in every lane");
    }
    if (!want)
        want = &rk_ty_error;
    bind(s, s->name, B_VAR, want);
    s->ty = is_error(want) ? NULL : rk_ty_str(want);
}

static void assign_stmt(RkNode *s)
{
    RkNode *t = s->target;
    Info ti = check_vexpr(t, NULL);
    if (is_error(ti.ty)) {
        check_vexpr(s->value, NULL);
        return;
    }
    if (t->kind == RK_NAME) {
        Binding *b = lookup(t->name);
        if (b && b->kind != B_VAR) {
            ERROR(t->loc, "'%s' is not a location: create one with %s := e",
                  t->name, t->name);
            return;
        }
    } else if (t->kind == RK_INDEX && t->note && !strcmp(t->note, "load")) {
        Info vi = check_vexpr(t->object, NULL);
        if (!is_error(vi.ty) && !vi.ty->mut)
            ERROR(t->object->loc, "'%s' is a read-only view: declare it mut []%s to "
                                  "store into it",
                  expr_text(t->object), rk_ty_str(vi.ty->inner));
        t->note = "store";
    } else if (t->kind == RK_INDEX && t->note && !strcmp(t->note, "gather")) {
        ERROR(t->index->loc, "%s has no scatter: a store takes a uniform index",
              C->profile->name);
        return;
    } else if (!(t->kind == RK_INDEX && t->note && !strcmp(t->note, "array"))) {
        ERROR(t->loc, "this can't be assigned: assign to a location, a rack array "
                      "element or a view");
        return;
    }
    Info v = check_vexpr(s->value, ti.ty);
    coerce(s->value, v, ti.ty, "the assigned value");
    require_defined(s->value, v, C->ctx, "an assignment stores every lane");
}

static void repeat_stmt(RkNode *s)
{
    long long lo, hi, a, b;
    Info f = const_range(s->from, &lo, &a), t = const_range(s->to, &b, &hi);
    if (is_error(f.ty) || is_error(t.ty) || lo != a || b != hi) {
        ERROR(s->loc, "repeat's bounds are integer literals");
        return;
    }
    check_vexpr(s->from, rk_ty_scalar(RK_E_I32));
    check_vexpr(s->to, rk_ty_scalar(RK_E_I32));
    if ((hi - lo) * (long long)s->body.len > 4096 && C->kind == FN_STACK_RUN &&
        C->profile->arch != RK_ARCH_WASM)
        ERROR(s->loc, "this repeat unrolls to %lld statements; native stack runs "
                      "reject a repeat over 4096",
              (hi - lo) * s->body.len);
    const RkType *it = s->type ? resolve_type(s->type, true) : rk_ty_scalar(RK_E_I32);
    if (!is_error(it) && (it->kind != RK_T_SCALAR || !rk_elem_is_int(it->elem)))
        ERROR(s->type->loc, "a repeat index is an integer, not %s", ty_name(it));
    if (!s->uniform)
        ERROR(s->loc, "a repeat index in vector code is uniform: repeat <%s: i32> "
                      "from ...",
              s->name);
    scope_push(false);
    Binding *bd = bind(s, s->name, B_INDEX, it);
    bd->uniform = true;
    bd->constant = true;
    check_vector_body(s->body, s->body.len);
    scope_pop();
}

static void local_tine(RkNode *s)
{
    if (s->params.len)
        ERROR(s->loc, "a local tine takes no parameters: it refers to the "
                      "enclosing inputs and bindings directly");
    Info in = check_vexpr(s->pred, NULL);
    const RkType *t = in.ty;
    if (!is_error(t) && t->kind != RK_T_MASK) {
        ERROR(s->pred->loc, "a tine means a lane mask, but this predicate is %s",
              ty_name(t));
        t = &rk_ty_error;
    }
    Binding *b = bind(s, rk_arena_printf(&rk_heap, "#%s", s->name), B_TINE, t);
    b->mask = in.mask;
    b->mask_def = in.def;
    s->ty = is_error(t) ? NULL : rk_ty_str(t);
}

void check_vector_stmt(RkNode *s)
{
    switch (s->kind) {
    case RK_LET:
        if (s->uniform)
            let_uniform(s);
        else
            let_rack(s, false);
        return;
    case RK_FUSED:
        let_rack(s, true);
        return;
    case RK_VAR:
        var_stmt(s);
        return;
    case RK_ASSIGN:
        assign_stmt(s);
        return;
    case RK_REPEAT:
        repeat_stmt(s);
        return;
    case RK_TINE:
        local_tine(s);
        return;
    case RK_WHILE:
        ERROR(s->loc, "vector code loops are counted: use for <i: T> from ... in a "
                      "run, or repeat");
        return;
    case RK_BREAK:
    case RK_CONTINUE:
        ERROR(s->loc, "vector code has no %s: its loops are counted",
              rk_kind_name(s->kind));
        return;
    case RK_RETURN:
        ERROR(s->loc, "vector code has no return: a scratch ends with its result "
                      "expression and a rake with its sweep");
        return;
    default:
        ERROR(s->loc, "a %s statement doesn't belong here", rk_kind_name(s->kind));
        return;
    }
}

void check_vector_body(RkList body, int upto)
{
    for (int i = 0; i < upto; i++) {
        RkNode *s = body.items[i];
        if (s->kind == RK_EXPR) {
            ERROR(s->loc, "this expression's value is unused; only a scratch's last "
                          "line is its result");
            check_vexpr(s->value, NULL);
            continue;
        }
        check_vector_stmt(s);
    }
}

/* --- functions ------------------------------------------------------------------ */

void fn_begin(RkNode *fn, FnKind kind)
{
    C->fn = fn;
    C->kind = kind;
    C->nslots = 0;
    C->scope = NULL;
    C->ctx = RK_BDD_TRUE;
    C->through_depth = 0;
    C->slow_block = 0;
    C->domain_bits = 0;
    C->fused = NULL;
    pred_reset();
    scope_push(false);
}

void fn_end(RkNode *fn)
{
    fn->slot = C->nslots;
    scope_pop();
    C->fn = NULL;
}

static const RkType *kernel_params(RkNode *fn)
{
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = resolve_type(p->type, true);
        if (!is_error(t)) {
            if (p->uniform && t->kind != RK_T_SCALAR) {
                ERROR(p->loc, "a uniform parameter <%s> has a scalar type, not %s",
                      p->name, ty_name(t));
                t = &rk_ty_error;
            } else if (!p->uniform && t->kind == RK_T_SCALAR) {
                ERROR(p->loc, "a scalar parameter of vector code is uniform: write "
                              "<%s: %s>",
                      p->name, rk_ty_str(t));
                t = &rk_ty_error;
            } else if (!p->uniform && t->kind != RK_T_RACK && t->kind != RK_T_MASK) {
                ERROR(p->loc, "a %s parameter is a rack, a mask or a uniform, not %s",
                      rk_kind_name(fn->kind), ty_name(t));
                t = &rk_ty_error;
            } else if (t->kind == RK_T_RACK) {
                rack_elem_ok(t->elem, p->type->loc);
            }
        }
        Binding *b = bind(p, p->name, B_PARAM, t);
        b->uniform = p->uniform;
        p->ty = is_error(t) ? NULL : rk_ty_str(t);
    }
    const RkType *r = resolve_type(fn->ret, true);
    if (!is_error(r) && r->kind != RK_T_RACK && r->kind != RK_T_MASK &&
        r->kind != RK_T_SCALAR) {
        ERROR(fn->ret->loc, "a %s returns a rack, a mask or a scalar, not %s",
              rk_kind_name(fn->kind), ty_name(r));
        r = &rk_ty_error;
    }
    if (!is_error(r) && r->kind == RK_T_RACK)
        rack_elem_ok(r->elem, fn->ret->loc);
    fn->ty = is_error(r) ? NULL : rk_ty_str(r);
    return r;
}

static void result(RkNode *e, const RkType *ret, RkBdd where, const char *what)
{
    Info in = check_vexpr(e, ret);
    in = coerce(e, in, ret, what);
    require_defined(e, in, where, "the result is read in every lane");
}

void check_scratch(RkNode *fn)
{
    fn_begin(fn, FN_SCRATCH);
    const RkType *ret = kernel_params(fn);
    RkList body = fn->body;
    RkNode *last = body.items[body.len - 1];
    for (int i = 0; i < body.len - 1; i++) {
        RkNode *s = body.items[i];
        if (s->kind == RK_THROUGH || s->kind == RK_SWEEP || s->kind == RK_TINE)
            ERROR(s->loc, "a scratch has no %s; tines, through blocks and sweeps "
                          "belong to rakes",
                  s->kind == RK_TINE ? "tines" : s->kind == RK_SWEEP ? "sweep"
                                                                     : "through blocks");
        else if (s->kind == RK_EXPR)
            ERROR(s->loc, "this expression's value is unused; only a scratch's "
                          "last line is its result");
        else
            check_vector_stmt(s);
    }
    if (last->kind != RK_EXPR)
        ERROR(last->loc, "a scratch ends with its result expression");
    else
        result(last->value, ret, RK_BDD_TRUE, "the scratch's result");
    fn_end(fn);
}

/* --- rakes --------------------------------------------------------------------- */

static void through(RkNode *s)
{
    Info p = check_vexpr(s->pred, NULL);
    RkBdd mask = RK_BDD_TRUE;
    if (!is_error(p.ty) && p.ty->kind != RK_T_MASK) {
        ERROR(s->pred->loc, "a through block's predicate is a lane mask, not %s",
              ty_name(p.ty));
        p.ty = &rk_ty_error;
    } else if (!is_error(p.ty)) {
        mask = p.mask;
        require_defined(s->pred, p, C->ctx, "the predicate is evaluated in every lane");
    }
    RkBdd saved = C->ctx;
    C->ctx = rk_bdd_and(saved, mask);
    C->through_depth++;
    scope_push(false);
    RkList body = s->body;
    RkNode *last = body.items[body.len - 1];
    for (int i = 0; i < body.len - 1; i++) {
        RkNode *st = body.items[i];
        if (st->kind == RK_LET || st->kind == RK_FUSED)
            check_vector_stmt(st);
        else
            ERROR(st->loc, "a through block holds let and fused bindings and then "
                           "its result; it can't %s",
                  st->kind == RK_ASSIGN || st->kind == RK_VAR ? "assign"
                  : st->kind == RK_REPEAT || st->kind == RK_FOR || st->kind == RK_WHILE
                      ? "loop"
                      : rk_arena_printf(&rk_heap, "hold a %s", rk_kind_name(st->kind)));
    }
    Info r = info_of(&rk_ty_error);
    if (last->kind != RK_EXPR) {
        ERROR(last->loc, "a through block ends with its result expression");
    } else {
        r = check_vexpr(last->value, NULL);
        require_defined(last->value, r, C->ctx,
                        rk_arena_printf(&rk_heap, "the through block computes it where "
                                                  "%s holds",
                                        pred_text(s->pred)));
    }
    scope_pop();
    C->through_depth--;
    C->ctx = saved;
    const RkType *t = is_error(r.ty) ? r.ty : rack_of(r.ty);
    if (!is_error(t) && t->kind != RK_T_RACK && t->kind != RK_T_MASK) {
        ERROR(last->loc, "a through block computes a rack, not %s", ty_name(t));
        t = &rk_ty_error;
    }
    if (s->value) {
        Info f = check_vexpr(s->value, t);
        if (!is_error(f.ty) && f.ty->kind != RK_T_SCALAR)
            ERROR(s->value->loc, "a through block's else is a literal or a uniform, "
                                 "not %s",
                  ty_name(f.ty));
        else if (!is_error(t))
            coerce(s->value, f, t, "the else value");
    }
    Binding *b = bind(s, s->name, B_LET, t);
    if (!s->value) {
        b->def = rk_bdd_and(saved, mask);
        b->partial_pred = pred_text(s->pred);
    }
    s->ty = is_error(t) ? NULL : rk_ty_str(t);
}

static void sweep(RkNode *s, const RkType *ret)
{
    RkBdd remaining = C->ctx;
    bool wildcard = false;
    for (int i = 0; i < s->arms.len; i++) {
        RkNode *arm = s->arms.items[i];
        RkBdd eff;
        const char *where;
        if (arm->pred->kind == RK_WILDCARD) {
            if (i != s->arms.len - 1)
                ERROR(arm->loc, "'_' is the sweep's last arm");
            if (remaining == RK_BDD_FALSE)
                ERROR(arm->loc, "the '_' arm is unreachable: the arms before it "
                                "cover every lane");
            eff = remaining;
            wildcard = true;
            where = "the '_' arm takes the lanes no earlier arm selected";
        } else {
            Info p = check_vexpr(arm->pred, NULL);
            if (is_error(p.ty) || p.ty->kind != RK_T_MASK) {
                if (!is_error(p.ty))
                    ERROR(arm->pred->loc, "a sweep arm selects lanes with a mask, "
                                          "not %s",
                          ty_name(p.ty));
                check_vexpr(arm->value, ret);
                continue;
            }
            require_defined(arm->pred, p, remaining,
                            "an arm's predicate is evaluated in the lanes earlier "
                            "arms left");
            eff = rk_bdd_and(remaining, p.mask);
            if (eff == RK_BDD_FALSE)
                ERROR(arm->loc, "this arm is unreachable: %s",
                      p.mask == RK_BDD_FALSE
                          ? "its predicate selects no lane"
                          : "earlier arms already take every lane it selects");
            remaining = rk_bdd_and(remaining, rk_bdd_not(p.mask));
            where = rk_arena_printf(&rk_heap, "this arm reads it where %s holds%s",
                                    pred_text(arm->pred),
                                    i ? " and no earlier arm did" : "");
        }
        RkBdd saved = C->ctx;
        C->ctx = eff;
        Info v = check_vexpr(arm->value, ret);
        C->ctx = saved;
        v = coerce(arm->value, v, ret, "the arm's value");
        require_defined(arm->value, v, eff, where);
    }
    if (!wildcard && remaining != RK_BDD_FALSE)
        ERROR(s->loc, "the sweep doesn't cover every lane: no arm takes the lanes "
                      "where %s%s; add '| _ => value' or an arm with gaps",
              describe_witness(remaining),
              witness_all_fail(remaining)
                  ? " (comparisons are independent: a NaN fails every one)"
                  : "");
}

/* --- atom order -------------------------------------------------------------- */

/* Are all the names in a comparison bound now?  (A name bound later, such
 * as a through result, would get a key of its own.) */
static bool name_unbound(RkNode *e, void *unused)
{
    if (e->kind == RK_NAME)
        return !lookup(e->name) && !find_decl(e->name);
    return rk_ast_any_child(e, name_unbound, unused);
}

static bool names_bound(RkNode *e) { return !name_unbound(e, NULL); }

static void order_pred(RkNode *p)
{
    switch (p->kind) {
    case RK_BINARY:
        if (!strcmp(p->op, "and") || !strcmp(p->op, "or")) {
            order_pred(p->lhs);
            order_pred(p->rhs);
        } else if (names_bound(p)) {
            atom_for(p);
        }
        return;
    case RK_UNARY:
    case RK_GAPS:
        order_pred(p->operand);
        return;
    case RK_TINE_REF: {
        if (lookup(rk_arena_printf(&rk_heap, "#%s", p->name)))
            return;
        RkNode *t = find_global_tine(p->name);
        if (!t || !p->applied || p->args.len != t->params.len ||
            !names_bound(p))
            return;
        ensure_tine_checked(t);
        if (t->pred->ty)
            tine_mask(t, p);
        return;
    }
    default:
        return;
    }
}

/* Number the comparison atoms of the sweep's arms, in the arms' order,
 * before the through blocks meet them.  The BDDs (lib/bdd.c) keep their
 * variables in the order atoms are numbered, and the sweep's remaining
 * lanes conjoin the arms' complements: numbering each arm's comparisons
 * side by side keeps that conjunction linear where numbering them as the
 * through blocks happen to meet them can make it exponential (see
 * tools/bench-check).  Only the order changes: a diagram means the same
 * function in any order, so no proof does. */
static void order_atoms(RkNode *fn)
{
    for (int i = 0; i < fn->body.len; i++) {
        RkNode *s = fn->body.items[i];
        if (s->kind != RK_SWEEP)
            continue;
        for (int j = 0; j < s->arms.len; j++)
            if (s->arms.items[j]->pred->kind != RK_WILDCARD)
                order_pred(s->arms.items[j]->pred);
    }
}

static int part_of(RkNode *s)
{
    switch (s->kind) {
    case RK_LET: return 0;
    case RK_TINE: return 1;
    case RK_THROUGH: return 2;
    case RK_SWEEP: return 3;
    default: return -1;
    }
}

static const char *part_name(int p)
{
    static const char *n[] = {"setup bindings", "local tines", "through blocks",
                              "the sweep"};
    return n[p];
}

void check_rake(RkNode *fn)
{
    fn_begin(fn, FN_RAKE);
    const RkType *ret = kernel_params(fn);
    if (!is_error(ret) && ret->kind == RK_T_SCALAR) {
        /* the sweep picks each lane's value from an arm: its result is a
         * rack even when every arm is uniform */
        ERROR(fn->ret->loc, "a rake's result is its sweep's, chosen lane by lane, so it "
                            "is a rack or a mask, not %s: declare %s, or reduce in a "
                            "scratch that calls the rake",
              ty_name(ret),
              ret->elem == RK_E_BOOL ? "a mask" : rk_ty_str(rk_ty_rack(ret->elem)));
        ret = &rk_ty_error;
    }
    int phase = 0, throughs = 0;
    RkNode *sw = NULL;
    for (int i = 0; i < fn->body.len; i++) {
        RkNode *s = fn->body.items[i];
        int p = part_of(s);
        if (p < 0) {
            if (s->kind == RK_FUSED)
                ERROR(s->loc, "a rake's setup holds only let bindings: fused "
                              "bindings belong in through blocks and scratches");
            else
                ERROR(s->loc, "a rake's body holds setup let bindings, local "
                              "tines, through blocks and a sweep, not %s",
                      s->kind == RK_EXPR ? "an expression"
                                         : rk_arena_printf(&rk_heap, "a %s statement",
                                                           rk_kind_name(s->kind)));
            continue;
        }
        if (p < phase || (p == 3 && sw)) {
            ERROR(s->loc, "a rake's parts come in order: setup bindings, local "
                          "tines, through blocks, then the sweep; these %s come "
                          "after %s",
                  part_name(p), part_name(phase));
            continue;
        }
        if (p == 2 && !throughs)
            order_atoms(fn);
        phase = p;
        if (p == 2)
            throughs++;
        if (p == 0 || p == 1)
            check_vector_stmt(s);
        else if (p == 2)
            through(s);
        else
            sw = s;
    }
    if (!throughs)
        ERROR(fn->loc, "a rake has at least one through block");
    if (!sw)
        ERROR(fn->loc, "a rake ends with its sweep");
    else
        sweep(sw, ret);
    fn_end(fn);
}

/* --- calls to scratches and rakes -------------------------------------------- */

/* A question asked of a node at a call depth, with its kernel k. */
typedef bool (*NodeTest)(RkNode *n, int depth, RkNode *k);

typedef struct Question {
    NodeTest test;
    int depth;
    RkNode *k;
} Question;

static bool ask(RkNode *child, void *ctx)
{
    Question *q = ctx;
    return q->test(child, q->depth, q->k);
}

/* Does test hold for a child of n: an operand, a statement or an arm? */
static bool any_child(RkNode *n, int depth, NodeTest test, RkNode *k)
{
    Question q = {test, depth, k};
    return rk_ast_any_child(n, ask, &q);
}

static bool uses_cross_lane(RkNode *n, int depth, RkNode *unused);

/* Does the scratch or rake this call names move lanes? */
static bool callee_crosses(RkNode *call, int depth)
{
    RkNode *d = find_decl(call->name);
    if (d && (d->kind == RK_SCRATCH || d->kind == RK_RAKE))
        for (int i = 0; i < d->body.len; i++)
            if (uses_cross_lane(d->body.items[i], depth + 1, NULL))
                return true;
    return false;
}

static bool uses_cross_lane(RkNode *n, int depth, RkNode *unused)
{
    if (!n || depth > 40)
        return false;
    if (n->kind == RK_SHUFFLE)
        return true;
    if (n->kind == RK_CALL && (is_cross_lane_builtin(n->name) || callee_crosses(n, depth)))
        return true;
    return any_child(n, depth, uses_cross_lane, unused);
}

static bool is_param_of(RkNode *k, const char *name)
{
    for (int i = 0; i < k->params.len; i++)
        if (!strcmp(k->params.items[i]->name, name))
            return true;
    return false;
}

/* Does kernel k move lanes of something it computes itself?  A lane move
 * (shuffle, reduction, scan, extraction...) whose rack operands are all
 * k's own parameters reads only what the caller passed, which is fully
 * computed when the arguments are fully defined; anything else, including
 * a call to another kernel that moves lanes, counts. */
static bool moves_computed_lanes(RkNode *n, int depth, RkNode *k)
{
    if (!n || depth > 40)
        return false;
    bool cross = n->kind == RK_SHUFFLE || (n->kind == RK_CALL && is_cross_lane_builtin(n->name));
    if (cross) {
        for (int i = 0; i < n->args.len; i++) {
            RkNode *a = n->args.items[i];
            bool plain = (a->kind == RK_NAME && is_param_of(k, a->name)) || a->kind == RK_INT ||
                         a->kind == RK_FLOAT || a->kind == RK_UNIFORM;
            if (!plain)
                return true;
        }
        return false;
    }
    if (n->kind == RK_CALL && callee_crosses(n, depth))
        return true;
    if (n->kind == RK_LET && is_param_of(k, n->name))
        return true; /* a parameter's name rebound: be conservative */
    return any_child(n, depth, moves_computed_lanes, k);
}

static bool kernel_moves_computed_lanes(RkNode *k)
{
    for (int i = 0; i < k->body.len; i++)
        if (moves_computed_lanes(k->body.items[i], 0, k))
            return true;
    return false;
}

Info check_call_kernel(RkNode *call, RkNode *callee)
{
    call->note = rk_kind_name(callee->kind);
    if (call->args.len != callee->params.len) {
        ERROR(call->loc, "%s takes %d argument%s, found %d", callee->name,
              callee->params.len, callee->params.len == 1 ? "" : "s", call->args.len);
        return info_of(&rk_ty_error);
    }
    RkBdd def = C->ctx, args_def = RK_BDD_TRUE;
    bool bad = false;
    for (int i = 0; i < call->args.len; i++) {
        RkNode *p = callee->params.items[i], *a = call->args.items[i];
        const RkType *pt = resolve_type(p->type, true);
        Info ai = check_vexpr(a, pt);
        if (is_error(ai.ty) || is_error(pt)) {
            bad = true;
            continue;
        }
        if (p->uniform && ai.ty->kind != RK_T_SCALAR) {
            ERROR(a->loc, "parameter <%s> of %s is uniform, but this argument is %s",
                  p->name, callee->name, ty_name(ai.ty));
            bad = true;
            continue;
        }
        ai = coerce(a, ai, pt, rk_arena_printf(&rk_heap, "argument %d of %s", i + 1,
                                               callee->name));
        bad |= is_error(ai.ty);
        def = rk_bdd_and(def, ai.def);
        args_def = rk_bdd_and(args_def, ai.def);
    }
    if (C->kind == FN_STACK_RUN && uses_cross_lane(callee, 0, NULL))
        require_cap(RK_FEAT_STACK_RUN_CROSS_LANE, call->loc,
                    rk_arena_printf(&rk_heap, "%s (it moves data across lanes)",
                                    callee->name));
    else if (!bad && def != RK_BDD_TRUE && uses_cross_lane(callee, 0, NULL)) {
        /* Under a mask the callee computes only the active lanes, and an
         * argument may be undefined outside them: a lane move inside it
         * would read those lanes (page 00: cross-lane operations need fully
         * defined operands).  Moving lanes of fully defined arguments is
         * fine. */
        if (args_def != RK_BDD_TRUE) {
            ERROR(call->loc, "%s moves data across lanes, so its arguments must be "
                             "defined in every lane, and here one may not be",
                  callee->name);
            bad = true;
        } else if (kernel_moves_computed_lanes(callee)) {
            ERROR(call->loc, "%s moves lanes of values it computes, and under this mask "
                             "only the active lanes are computed: call it where every "
                             "lane is active, or move lanes of its parameters only",
                  callee->name);
            bad = true;
        }
    }
    const RkType *r = resolve_type(callee->ret, true);
    if (bad || is_error(r))
        return info_of(&rk_ty_error);
    set_ty(call, r);
    Info in = info_of(r);
    in.def = r->kind == RK_T_SCALAR ? RK_BDD_TRUE : def;
    if (r->kind == RK_T_MASK)
        in.mask = atom_for(call);
    return in;
}

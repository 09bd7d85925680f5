/* kernel.c: statements, inlined calls, tines, through blocks and sweeps.
 *
 * A scratch or rake called from vector code is inlined: its body is
 * lowered in a fresh Env, under whatever mask surrounds the call.  A tine
 * is lowered where it is applied (a global tine in an Env binding its
 * parameters) and memoised per Env.  A through block lowers its body under
 * ctx & P; without else its result is undefined outside (never read, as
 * rake-check proved), with else it is joined with the fallback.  A sweep
 * lowers each arm's predicate under the lanes no earlier arm took and its
 * value under the lanes it takes (as rake-interp evaluates them), then
 * joins them from the last arm back: select(P0, v0, select(P1, v1, ... vn)),
 * or, in a function lowered for pressure, arm by arm (sweep).
 *
 * Fused regions: a maximal run of consecutive fused bindings in one
 * statement list is one region, numbered per function; an inlined callee
 * keeps counting.  A scratch's final expression is in none, and neither
 * is anything written directly in a stack run's body. */
#include <string.h>

#include "arena.h"
#include "lower.h"

static LVal *slot(RkNode *n) { return &L->env->slots[n->slot]; }

int lower_tine(RkNode *ref)
{
    if (!strcmp(ref->ref, "tine")) {
        /* Memoised per activation, but only under the mask and in the block
         * it was lowered in: under a narrower mask its comparisons may have
         * been sanitised, and another block may not be dominated. */
        Env *e = L->env;
        int k = ref->slot;
        if (e->pred_mask[k] < 0 || e->pred_ctx[k] != L->ctx || e->pred_block[k] != L->b->id) {
            int ctx = L->ctx;
            e->pred_mask[k] = lower_mask(e->preds[k]);
            e->pred_ctx[k] = ctx;
            e->pred_block[k] = L->b->id;
        }
        return e->pred_mask[k];
    }
    RkNode *t = rk_ast_find_decl(L->module, ref->name, true);
    if (!t)
        rk_diag_internal("rake-lower: no tine #%s", ref->name);
    Env *inst = env_new(t);
    for (int i = 0; i < ref->args.len; i++) {
        RkNode *p = t->params.items[i];
        LVal a = lower_expr(ref->args.items[i]);
        const RkType *pt = node_ty(p);
        if (pt->kind == RK_T_RACK && !a.is_const)
            a = lval(as_rack(a, pt->elem), pt);
        inst->slots[p->slot] = a;
    }
    Env *saved = L->env;
    L->env = inst;
    int m = lower_mask(t->pred);
    L->env = saved;
    return m;
}

static void bind_value(RkNode *s, LVal v)
{
    const RkType *t = node_ty(s);
    if (t->kind == RK_T_RACK && (v.is_const || v.ty->kind == RK_T_SCALAR))
        v = lval(as_rack(v, t->elem), t);
    *slot(s) = v;
}

static LVal repeat_index(RkNode *s, int64_t i)
{
    return lconst(s->type ? node_ty(s->from) : rk_ty_scalar(RK_E_I32), (uint64_t)i);
}

static void repeat(RkNode *s)
{
    int64_t a = (int64_t)lower_expr(s->from).bits, b = (int64_t)lower_expr(s->to).bits;
    a = (int32_t)a;
    b = (int32_t)b;
    for (int64_t i = a; i < b; i++) {
        *slot(s) = repeat_index(s, i);
        lower_stmts(s->body, s->body.len);
    }
}

static void var(RkNode *s)
{
    const RkType *t = node_ty(s);
    if (t->kind == RK_T_ARRAY) {
        LVal init = lower_expr(s->value);
        int id = as_rack(init, t->inner->elem);
        L->env->nelems[s->slot] = t->len;
        L->env->elems[s->slot] = rk_arena_alloc(&rk_heap, sizeof(LVal) * (size_t)t->len);
        for (int i = 0; i < t->len; i++)
            L->env->elems[s->slot][i] = lval(id, t->inner);
        return;
    }
    bind_value(s, lower_expr(s->value));
}

/* Under a mask, a location changes only in the active lanes. */
static LVal masked_update(LVal old, LVal nw, RkLoc loc)
{
    if (L->ctx < 0 || old.id < 0 || nw.ty->kind != RK_T_RACK)
        return nw;
    return lval(emit3(RK_OP_MASK_SELECT, nw.ty, L->ctx, nw.id, old.id, loc), nw.ty);
}

static void assign(RkNode *s)
{
    RkNode *t = s->target;
    const RkType *tt = node_ty(t);
    LVal v = lower_expr(s->value);
    if (tt->kind == RK_T_RACK)
        v = lval(as_rack(v, tt->elem), tt);
    if (t->kind == RK_NAME) {
        *slot(t) = masked_update(*slot(t), v, s->loc);
        return;
    }
    if (t->note && !strcmp(t->note, "array")) {
        int k = (int)lower_expr(t->index).bits;
        LVal *e = &L->env->elems[t->object->slot][k];
        *e = masked_update(*e, v, s->loc);
        return;
    }
    lower_store(t, v.id);
}

void lower_stmt(RkNode *s, bool fused)
{
    (void)fused;
    switch (s->kind) {
    case RK_LET:
    case RK_FUSED:
        if (s->uniform)
            *slot(s) = lower_expr(s->value);
        else
            bind_value(s, lower_expr(s->value));
        return;
    case RK_VAR:
        var(s);
        return;
    case RK_ASSIGN:
        assign(s);
        return;
    case RK_REPEAT:
        repeat(s);
        return;
    case RK_TINE:
        L->env->preds[s->slot] = s->pred;
        L->env->pred_mask[s->slot] = -1;
        return;
    case RK_FOR:
        lower_for(s);
        return;
    case RK_IF:
        lower_if_stmt(s);
        return;
    case RK_EXPR:
        lower_expr(s->value);
        return;
    default:
        rk_diag_internal("rake-lower: no lowering for a %s statement", rk_kind_name(s->kind));
    }
}

/* Statements, with fused regions: consecutive fused bindings share one. */
void lower_stmts(RkList body, int upto)
{
    int saved = L->region;
    bool in_region = false;
    for (int i = 0; i < upto; i++) {
        RkNode *s = body.items[i];
        if (s->kind == RK_FUSED && L->regions_on) {
            if (!in_region)
                L->region = L->f->nregions++;
            in_region = true;
        } else {
            L->region = saved;
            in_region = false;
        }
        lower_stmt(s, in_region);
    }
    L->region = saved;
}

static void through(RkNode *s)
{
    int p = lower_mask(s->pred);
    int saved = L->ctx;
    int m = mask_and(saved, p, s->loc);
    L->ctx = m;
    RkList body = s->body;
    lower_stmts(body, body.len - 1);
    const RkType *t = node_ty(s);
    int r = materialize(lower_expr(body.items[body.len - 1]->value), t);
    L->ctx = saved;
    if (s->value) {
        int f = materialize(lower_expr(s->value), t);
        r = emit3(RK_OP_MASK_SELECT, t, m, r, f, s->loc);
    }
    *slot(s) = lval(r, t);
}

/* Each arm's predicate under the lanes no earlier arm took, then its
 * value under the lanes it takes.  The values are joined from the last
 * arm back, or, lowered for pressure (--low-pressure), each as soon as
 * it is made, on the lanes it takes: one arm's value is live at a time
 * instead of every arm's until the join.  Every lane the sweep covers
 * (rake-check proves it covers the context) takes exactly one arm, so
 * the two joins agree there; they differ only in lanes outside the
 * context, which nothing reads.  The second costs a mask and per arm
 * where the effective mask wasn't needed otherwise. */
static LVal sweep(RkNode *s, const RkType *ret)
{
    int n = s->arms.len;
    int *masks = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n);
    int *vals = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n);
    int saved = L->ctx, remaining = saved, r = -1;
    for (int i = 0; i < n; i++) {
        RkNode *arm = s->arms.items[i];
        int eff = remaining;
        masks[i] = -1;
        if (arm->pred->kind != RK_WILDCARD) {
            /* the predicate runs in the lanes no earlier arm took */
            L->ctx = remaining;
            masks[i] = lower_mask(arm->pred);
            L->ctx = saved;
            eff = mask_and(remaining, masks[i], arm->loc);
        }
        L->ctx = eff;
        vals[i] = materialize(lower_expr(arm->value), ret);
        L->ctx = saved;
        if (L->sweep_forward)
            r = r < 0 ? vals[i] : emit3(RK_OP_MASK_SELECT, ret, eff, vals[i], r, arm->loc);
        if (masks[i] >= 0 && i < n - 1)
            remaining = mask_and(remaining, mask_not(masks[i], arm->loc), arm->loc);
    }
    if (L->sweep_forward)
        return lval(r, ret);
    r = vals[n - 1];
    for (int i = n - 2; i >= 0; i--)
        r = emit3(RK_OP_MASK_SELECT, ret, masks[i], vals[i], r, s->arms.items[i]->loc);
    return lval(r, ret);
}

/* The body of a scratch or rake in the current Env; its result. */
LVal lower_kernel_body(RkNode *fn)
{
    const RkType *ret = node_ty(fn);
    RkList body = fn->body;
    if (fn->kind == RK_SCRATCH) {
        lower_stmts(body, body.len - 1);
        int saved = L->region;
        L->region = -1;
        LVal r = lower_expr(body.items[body.len - 1]->value);
        L->region = saved;
        if (ret->kind == RK_T_RACK)
            r = lval(as_rack(r, ret->elem), ret);
        return r;
    }
    LVal r = lval(-1, ret);
    for (int i = 0; i < body.len; i++) {
        RkNode *s = body.items[i];
        if (s->kind == RK_THROUGH)
            through(s);
        else if (s->kind == RK_SWEEP)
            r = sweep(s, ret);
        else
            lower_stmt(s, false);
    }
    return r;
}

LVal lower_call_kernel(RkNode *callee, RkNode *call, LVal *given)
{
    Env *e = env_new(callee);
    for (int i = 0; i < callee->params.len; i++) {
        RkNode *p = callee->params.items[i];
        LVal a = given ? given[i] : lower_expr(call->args.items[i]);
        const RkType *pt = node_ty(p);
        if (pt->kind == RK_T_RACK && (a.is_const || a.ty->kind == RK_T_SCALAR))
            a = lval(as_rack(a, pt->elem), pt);
        e->slots[p->slot] = a;
    }
    Env *saved = L->env;
    bool regions = L->regions_on;
    int region = L->region;
    L->env = e;
    L->regions_on = true;
    L->region = -1;
    LVal r = lower_kernel_body(callee);
    L->env = saved;
    L->regions_on = regions;
    L->region = region;
    return r;
}

/* A scratch or rake as a function of its own: a register kernel. */
void lower_kernel_fn(RkNode *fn)
{
    L->f = rk_nir_func(L->out, fn->name, rk_kind_name(fn->kind), fn->loc);
    set_block(rk_nir_block(L->f));
    Env *e = env_new(fn);
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = node_ty(p);
        e->slots[p->slot] = lval(rk_nir_param(L->f, t, p->name), t);
    }
    L->f->result = node_ty(fn);
    L->env = e;
    L->ctx = -1;
    L->region = -1;
    L->regions_on = true;
    LVal r = lower_kernel_body(fn);
    int id = materialize(r, L->f->result);
    L->b->term = (RkTerm){RK_TERM_RET, id, {0, NULL, 0}, {0, NULL, 0}, NULL, fn->loc};
    L->b->terminated = true;
}

/* run.c: stack runs and general runs.
 *
 * A stack run becomes a loop over full racks of records and one tail rack
 * under the mask `lane < count mod lanes`:
 *
 *   entry:        count, column pointers; full = count rounded down
 *   head(i, c):   i < full ? body : tail-test          (c: compaction cursor)
 *   body:         the run's statements on the rack at i, then its stores
 *   tail-test:    count - full > 0 ? tail : done
 *   tail:         the same statements under the tail mask; masked stores
 *   done(c):      compaction sets the count; return
 *
 * Each rack loads the columns it reads before it stores anything.  `where`
 * selects between new and old values; `compact` stores the selected lanes
 * contiguously at the cursor.
 *
 * A general run's counted loops become a test before the loop, then body
 * and exit blocks; the body's block parameters carry the loop index (as
 * an i64) and the locations assigned in the body.  An access whose index
 * is the loop's index plus a constant is bounds-checked once before the
 * loop, for its first and last iterations, and addressed from its view's
 * pointer at the index; other checked accesses are checked where they
 * happen. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "lower.h"

static const RkType *I64;

/* --- views -------------------------------------------------------------------- */

typedef struct ViewInfo {
    int ptr, count; /* ptr<T>, i64 */
} ViewInfo;

static ViewInfo *views; /* by run slot */

typedef struct Loop Loop;
struct Loop {
    RkNode *stmt;
    int i, j;       /* the index as the program sees it (i32, u32), and as i64 */
    int *sr;        /* per run slot: the view's pointer at index j, -1 if none */
    RkNode **hoist; /* accesses whose bounds were checked before the loop */
    int nhoist;
    Loop *outer;
};
static Loop *loop;

static int i64_of(int id, RkLoc loc)
{
    const RkType *t = value_type(id);
    if (t->kind == RK_T_SCALAR && (t->elem == RK_E_I64 || t->elem == RK_E_U64))
        return id;
    for (Loop *l = loop; l; l = l->outer) /* a loop's index is its j */
        if (l->i == id)
            return l->j;
    return emit1(RK_OP_U_CVT, I64, id, loc);
}

static int lit64(int64_t v) { return const_uniform(RK_E_I64, (uint64_t)v); }

static int *keep(const int *args, int n)
{
    int *a = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    if (n)
        memcpy(a, args, sizeof(int) * (size_t)n);
    return a;
}

/* Continue if ok holds, else trap with text, whose "{k}" shows shown[k]. */
static void trap_unless(int ok, const char *text, const int *shown, int nshown, RkLoc loc)
{
    RkBlock *cont = rk_nir_block(L->f), *trap = rk_nir_block(L->f);
    L->b->term = (RkTerm){RK_TERM_CBR, ok, {cont->id, NULL, 0}, {trap->id, NULL, 0}, NULL, loc};
    L->b->terminated = true;
    trap->term = (RkTerm){RK_TERM_TRAP, -1, {-1, keep(shown, nshown), nshown}, {0, NULL, 0},
                          text, loc};
    trap->terminated = true;
    set_block(cont);
}

/* Is `e` (an index) the loop's index plus a constant?  *c gets it. */
static bool affine(RkNode *e, RkNode *loop_stmt, int64_t *c)
{
    if (e->kind == RK_UNIFORM)
        e = e->operand;
    if (e->kind == RK_NAME && e->slot == loop_stmt->slot && e->ref && !strcmp(e->ref, "local")) {
        *c = 0;
        return true;
    }
    if (e->kind != RK_BINARY || (e->op[0] != '+' && e->op[0] != '-') || e->op[1])
        return false;
    RkNode *n = e->lhs, *k = e->rhs;
    if (n->kind == RK_UNIFORM)
        n = n->operand;
    if (k->kind == RK_UNIFORM)
        k = k->operand;
    if (e->op[0] == '+' && n->kind == RK_INT) {
        RkNode *t = n;
        n = k;
        k = t;
    }
    if (n->kind != RK_NAME || n->slot != loop_stmt->slot || k->kind != RK_INT)
        return false;
    bool neg;
    uint64_t mag;
    if (!rk_int_literal(k->text, &neg, &mag))
        return false;
    *c = (neg ? -(int64_t)mag : (int64_t)mag) * (e->op[0] == '-' ? -1 : 1);
    return true;
}

static int access_lanes(RkNode *x)
{
    if (!strcmp(x->note, "element"))
        return 1;
    const RkType *t = node_ty(x->object);
    return rk_lanes_of(t->inner->elem, L->profile->lanes);
}

static bool is_view_access(RkNode *x)
{
    return x->kind == RK_INDEX && x->note &&
           (!strcmp(x->note, "load") || !strcmp(x->note, "store") ||
            !strcmp(x->note, "element")) &&
           x->object->kind == RK_NAME;
}

/* --- bounds ------------------------------------------------------------------- */

static void check_range(RkNode *x, int idx64, int lanes)
{
    ViewInfo v = views[x->object->slot];
    RkLoc loc = x->loc;
    int lo_ok = emit2(RK_OP_U_CMP_GE, rk_ty_scalar(RK_E_BOOL), idx64, lit64(0), loc);
    int end = emit2(RK_OP_U_ADD, I64, idx64, lit64(lanes), loc);
    int hi_ok = emit2(RK_OP_U_CMP_LE, rk_ty_scalar(RK_E_BOOL), end, v.count, loc);
    int ok = emit2(RK_OP_U_AND, rk_ty_scalar(RK_E_BOOL), lo_ok, hi_ok, loc);
    /* the interpreter's messages (rake-interp's vector.c and kernel.c) */
    if (!strcmp(x->note, "element"))
        trap_unless(ok, "index {0} outside {1} elements", (int[]){idx64, v.count}, 2, loc);
    else
        trap_unless(ok, !strcmp(x->note, "store") ? "rack store [{0}, {1}) outside {2} elements"
                                                  : "rack load [{0}, {1}) outside {2} elements",
                    (int[]){idx64, end, v.count}, 3, loc);
}

/* Was x's range checked before the loop: x, or an access of the same
 * view at the same offset from the index and as many lanes (an identical
 * range, checked on every iteration's behalf). */
static bool hoisted(RkNode *x)
{
    int64_t c, hc;
    bool aff = loop && affine(x->index, loop->stmt, &c);
    for (int i = 0; loop && i < loop->nhoist; i++) {
        RkNode *h = loop->hoist[i];
        if (h == x)
            return true;
        if (aff && h->object->slot == x->object->slot && affine(h->index, loop->stmt, &hc) &&
            hc == c && access_lanes(h) == access_lanes(x))
            return true;
    }
    return false;
}

static int address(RkNode *x, int idx64, int64_t *imm)
{
    int64_t c;
    *imm = 0;
    int slot = x->object->slot;
    if (loop && loop->sr[slot] >= 0 && affine(x->index, loop->stmt, &c)) {
        *imm = c;
        return loop->sr[slot];
    }
    return emit2(RK_OP_PTR_ADD, rk_ty_ptr(node_ty(x->object)->inner->elem), views[slot].ptr,
                 idx64, x->loc);
}

LVal lower_view_access(RkNode *x)
{
    const RkType *t = node_ty(x);
    int slot = x->object->slot;
    if (!strcmp(x->note, "gather")) {
        int idx = lower_rack(x->index, NULL);
        RkElem ie = value_type(idx)->elem;
        if (!x->unchecked) {
            int zero = const_rack(ie, 0);
            int n32 = emit1(RK_OP_U_CVT, rk_ty_scalar(ie), views[slot].count, x->loc);
            int n = emit1(RK_OP_RACK_SPLAT, rk_ty_rack(ie), n32, x->loc);
            const RkType *m = rk_ty_mask(32);
            int ge = emit2(RK_OP_RACK_CMP_GE, m, idx, zero, x->loc);
            int lt = emit2(RK_OP_RACK_CMP_LT, m, idx, n, x->loc);
            int bad = mask_not(emit2(RK_OP_MASK_AND, m, ge, lt, x->loc), x->loc);
            bad = mask_and(L->ctx, bad, x->loc);
            int any = emit1(RK_OP_MASK_ANY, rk_ty_scalar(RK_E_BOOL), bad, x->loc);
            int ok = emit1(RK_OP_U_NOT, rk_ty_scalar(RK_E_BOOL), any, x->loc);
            trap_unless(ok, rk_arena_printf(&rk_heap, "gather index outside the elements "
                                                      "of %s",
                                            x->object->name),
                        NULL, 0, x->loc);
        }
        int args[3] = {views[slot].ptr, idx, L->ctx};
        return lval(emit(RK_OP_RACK_GATHER, t, args, L->ctx >= 0 ? 3 : 2, x->loc)->id, t);
    }
    int idx = i64_of(as_uniform(lower_expr(x->index)), x->loc);
    if (!x->unchecked && !hoisted(x))
        check_range(x, idx, access_lanes(x));
    int64_t imm;
    int p = address(x, idx, &imm);
    RkInstr *in;
    if (!strcmp(x->note, "element"))
        in = emit(RK_OP_ELEM_LOAD, t, (int[]){p, lit64(0)}, 2, x->loc);
    else if (L->ctx >= 0)
        in = emit(RK_OP_RACK_LOAD_MASKED, t, (int[]){p, L->ctx}, 2, x->loc);
    else
        in = emit(RK_OP_RACK_LOAD, t, &p, 1, x->loc);
    in->imm = imm;
    return lval(in->id, t);
}

void lower_store(RkNode *x, int value)
{
    int idx = i64_of(as_uniform(lower_expr(x->index)), x->loc);
    if (!x->unchecked && !hoisted(x))
        check_range(x, idx, access_lanes(x));
    int64_t imm;
    int p = address(x, idx, &imm);
    RkInstr *in = L->ctx >= 0
                      ? emit(RK_OP_RACK_STORE_MASKED, NULL, (int[]){p, L->ctx, value}, 3, x->loc)
                      : emit(RK_OP_RACK_STORE, NULL, (int[]){p, value}, 2, x->loc);
    in->imm = imm;
}

/* --- SSA across blocks ---------------------------------------------------------- */

/* A variable of the run: a slot, or an element of a rack array. */
typedef struct Var {
    int slot, elem; /* elem -1 for a plain slot */
} Var;

/* The variables a statement list assigns, as many as it has. */
typedef struct Vars {
    Var *items;
    int n, cap;
} Vars;

static LVal *var_ref(Var v)
{
    return v.elem < 0 ? &L->env->slots[v.slot] : &L->env->elems[v.slot][v.elem];
}

static void add_var(Vars *vs, Var v)
{
    for (int i = 0; i < vs->n; i++)
        if (vs->items[i].slot == v.slot && vs->items[i].elem == v.elem)
            return;
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? 2 * vs->cap : 16;
        Var *grown = rk_arena_alloc(&rk_heap, sizeof(Var) * (size_t)vs->cap);
        if (vs->n)
            memcpy(grown, vs->items, sizeof(Var) * (size_t)vs->n);
        vs->items = grown;
    }
    vs->items[vs->n++] = v;
}

/* Locations assigned in a statement list (and nested ones), in order, as
 * many as it has, but not those declared in it (a loop body's `acc :=`
 * starts afresh each iteration and doesn't exist before the loop).  A
 * slow block's assignments are to its own locals, so the walk stops at
 * one. */
typedef struct Walk {
    Vars *vs;
    Vars declared; /* slots, elem -1 */
} Walk;

static bool declared(const Walk *w, int slot)
{
    for (int i = 0; i < w->declared.n; i++)
        if (w->declared.items[i].slot == slot)
            return true;
    return false;
}

static void assigned_in(RkNode *s, void *ctx)
{
    Walk *w = ctx;
    if (s->kind == RK_SLOW_BLOCK)
        return;
    if ((s->kind == RK_VAR || s->kind == RK_LET || s->kind == RK_FOR) && s->slot >= 0)
        add_var(&w->declared, (Var){s->slot, -1});
    if (s->kind == RK_ASSIGN && s->target->kind == RK_NAME && !declared(w, s->target->slot))
        add_var(w->vs, (Var){s->target->slot, -1});
    if (s->kind == RK_ASSIGN && s->target->note && !strcmp(s->target->note, "array")) {
        int slot = s->target->object->slot;
        for (int k = 0; !declared(w, slot) && k < L->env->nelems[slot]; k++)
            add_var(w->vs, (Var){slot, k});
    }
    rk_ast_each_child(s, assigned_in, w);
}

static void assigned(RkList body, Vars *vs)
{
    Walk w = {vs, {NULL, 0, 0}};
    for (int i = 0; i < body.len; i++)
        assigned_in(body.items[i], &w);
}

static int *edge_args(Var *vars, int n, int extra_n, const int *extra)
{
    int *a = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + extra_n + 1));
    for (int i = 0; i < extra_n; i++)
        a[i] = extra[i];
    for (int i = 0; i < n; i++) {
        LVal *v = var_ref(vars[i]);
        a[extra_n + i] = materialize(*v, v->ty);
        *v = lval(a[extra_n + i], v->ty);
    }
    return a;
}

static void bind_params(RkBlock *b, Var *vars, int n, int skip)
{
    for (int i = 0; i < n; i++) {
        LVal *v = var_ref(vars[i]);
        *v = lval(b->params[skip + i], v->ty);
    }
}

static void params_for(RkBlock *b, Var *vars, int n)
{
    for (int i = 0; i < n; i++) {
        LVal *v = var_ref(vars[i]);
        const RkType *t = v->ty;
        if (v->is_const && t->kind == RK_T_SCALAR)
            t = v->ty;
        rk_nir_block_param(L->f, b, t);
    }
}

static void branch(RkBlock *to, const int *args, int nargs, RkLoc loc)
{
    L->b->term = (RkTerm){RK_TERM_BR, -1, {to->id, keep(args, nargs), nargs},
                          {0, NULL, 0}, NULL, loc};
    L->b->terminated = true;
}

static void cbranch(int c, RkBlock *t, const int *ta, int tn, RkBlock *f, const int *fa,
                    int fnn, RkLoc loc)
{
    L->b->term = (RkTerm){RK_TERM_CBR, c, {t->id, keep(ta, tn), tn},
                          {f->id, keep(fa, fnn), fnn}, NULL, loc};
    L->b->terminated = true;
}

/* Before code splits into arms that each assign some of vars: their
 * values, materialised in the block before the split (so no arm defines
 * what the other reads), for restore_vars at the start of each arm. */
static LVal *save_vars(Var *vars, int n)
{
    int *no = edge_args(vars, n, 0, NULL);
    (void)no;
    LVal *saved = rk_arena_alloc(&rk_heap, sizeof(LVal) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        saved[i] = *var_ref(vars[i]);
    return saved;
}

static void restore_vars(Var *vars, int n, const LVal *saved)
{
    for (int i = 0; i < n; i++)
        *var_ref(vars[i]) = saved[i];
}

void lower_if_stmt(RkNode *s)
{
    Vars vs = {0};
    RkList both[2] = {s->body, s->else_body};
    assigned(both[0], &vs);
    assigned(both[1], &vs);
    Var *vars = vs.items;
    int n = vs.n;
    int c = as_uniform(lower_expr(s->cond));
    RkBlock *tb = rk_nir_block(L->f), *fb = rk_nir_block(L->f), *join = rk_nir_block(L->f);
    LVal *saved = save_vars(vars, n);
    cbranch(c, tb, NULL, 0, fb, NULL, 0, s->loc);
    params_for(join, vars, n);
    for (int k = 0; k < 2; k++) {
        set_block(k ? fb : tb);
        restore_vars(vars, n, saved);
        lower_stmts(both[k], both[k].len);
        branch(join, edge_args(vars, n, 0, NULL), n, s->loc);
    }
    set_block(join);
    bind_params(join, vars, n, 0);
}

/* --- counted loops ------------------------------------------------------------------ */

typedef struct Accesses {
    RkNode **items;
    int n, cap;
} Accesses;

/* The view accesses evaluating e always makes: not those in an if's
 * arms, after a short-circuit `and`/`or`'s left operand, or in a slow
 * block (C's own). */
static void unconditional(RkNode *e, void *ctx)
{
    Accesses *a = ctx;
    if (!e || e->kind == RK_SLOW_BLOCK || e->kind == RK_IF_EXPR)
        return;
    if (is_view_access(e)) {
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 4;
            RkNode **grown = rk_arena_alloc(&rk_heap, sizeof(RkNode *) * (size_t)a->cap);
            if (a->n)
                memcpy(grown, a->items, sizeof(RkNode *) * (size_t)a->n);
            a->items = grown;
        }
        a->items[a->n++] = e;
    }
    if (e->kind == RK_BINARY && e->op && (!strcmp(e->op, "and") || !strcmp(e->op, "or"))) {
        unconditional(e->lhs, ctx);
        return;
    }
    rk_ast_each_child(e, unconditional, ctx);
}

/* The bounds checks a counted loop can make once, before it starts: each
 * access a statement of its body always makes (the statement not nested
 * in an `if` or another loop, so it happens on every iteration) whose
 * index is the loop index plus a constant.  The first and last iterations together cover every
 * iteration of such an index.  The last index is a + ((b - 1 - a) & -s),
 * which needs the step to be a power of two (a literal, or 1); with
 * another step nothing is hoisted and each access is checked where it
 * happens.  The accesses of one view are checked together: its lowest
 * constant at the first index, its highest end at the last (the others
 * lie between; failing this only sends the loop to its checked copy,
 * which finds the access that traps).  Returns the Boolean "every
 * hoisted access stays in bounds" (which lower_for asks only when the
 * loop runs), or -1 if nothing is hoisted. */
typedef struct Span {
    int slot;
    int64_t low, end; /* lowest constant; highest constant + lanes */
} Span;

static void hoist_access(Loop *lp, RkNode *x, int64_t c, Span **spans, int *nspans)
{
    int64_t end = c + access_lanes(x);
    int k = 0;
    while (k < *nspans && (*spans)[k].slot != x->object->slot)
        k++;
    if (k == *nspans) {
        Span *grown = rk_arena_alloc(&rk_heap, sizeof(Span) * (size_t)(k + 1));
        if (k)
            memcpy(grown, *spans, sizeof(Span) * (size_t)k);
        grown[k] = (Span){x->object->slot, c, end};
        *spans = grown;
        ++*nspans;
    }
    Span *sp = &(*spans)[k];
    sp->low = c < sp->low ? c : sp->low;
    sp->end = end > sp->end ? end : sp->end;
    RkNode **grown = rk_arena_alloc(&rk_heap, sizeof(RkNode *) * (size_t)(lp->nhoist + 1));
    if (lp->nhoist)
        memcpy(grown, lp->hoist, sizeof(RkNode *) * (size_t)lp->nhoist);
    lp->hoist = grown;
    lp->hoist[lp->nhoist++] = x;
}

static int hoist_checks(Loop *lp, RkNode *s, int a, int b, int64_t step)
{
    RkList body = s->body;
    RkLoc loc = s->loc;
    const RkType *B = rk_ty_scalar(RK_E_BOOL);
    if (step <= 0 || (step & (step - 1)))
        return -1;
    Span *spans = NULL;
    int nspans = 0;
    for (int i = 0; i < body.len; i++) {
        RkNode *st = body.items[i];
        Accesses acc = {0};
        if (st->kind == RK_ASSIGN || st->kind == RK_LET || st->kind == RK_VAR) {
            if (st->kind == RK_ASSIGN)
                unconditional(st->target, &acc);
            unconditional(st->value, &acc);
        }
        for (int k = 0; k < acc.n; k++) {
            int64_t c;
            if (!acc.items[k]->unchecked && affine(acc.items[k]->index, s, &c))
                hoist_access(lp, acc.items[k], c, &spans, &nspans);
        }
    }
    if (!nspans)
        return -1;
    int span = emit2(RK_OP_U_SUB, I64, emit2(RK_OP_U_SUB, I64, b, a, loc), lit64(1), loc);
    int last = emit2(RK_OP_U_ADD, I64, a, emit2(RK_OP_U_AND, I64, span, lit64(-step), loc), loc);
    int all = -1;
    for (int k = 0; k < nspans; k++) {
        /* first + low >= 0 and last + end <= count */
        int first_ok = emit2(RK_OP_U_CMP_GE, B, emit2(RK_OP_U_ADD, I64, a, lit64(spans[k].low), loc),
                             lit64(0), loc);
        int end = emit2(RK_OP_U_ADD, I64, last, lit64(spans[k].end), loc);
        int last_ok = emit2(RK_OP_U_CMP_LE, B, end, views[spans[k].slot].count, loc);
        int ok = emit2(RK_OP_U_AND, B, first_ok, last_ok, loc);
        all = all < 0 ? ok : emit2(RK_OP_U_AND, B, all, ok, loc);
    }
    return all;
}

static Loop *new_loop(RkNode *s)
{
    Loop *lp = RK_NEW(Loop);
    lp->stmt = s;
    lp->i = lp->j = -1;
    lp->outer = loop;
    lp->sr = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)L->env->nslots);
    for (int i = 0; i < L->env->nslots; i++)
        lp->sr[i] = -1;
    return lp;
}

typedef struct Bounds {
    int a, b, step;       /* the index's type */
    int a64, b64, s64;    /* i64 */
} Bounds;

/* The loop itself, rotated: a test a < b before it, then the body, whose
 * block parameter j is the index as an i64 (the i32 or u32 index the
 * program sees is its low half), then the step: j + step, and back to
 * the body unless that reaches b (computed in 64 bits, so the index never
 * overflows).  Each view lp hoisted an access of is addressed from its
 * pointer at j, once per iteration. */
static void counted_loop(RkNode *s, Loop *lp, Bounds k)
{
    RkLoc loc = s->loc;
    const RkType *it = node_ty(s->from);
    const RkType *B = rk_ty_scalar(RK_E_BOOL);
    int *srv = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(lp->nhoist + 1)), nsr = 0;
    for (int i = 0; i < lp->nhoist; i++) {
        int slot = lp->hoist[i]->object->slot;
        bool seen = false;
        for (int j = 0; j < nsr; j++)
            seen |= srv[j] == slot;
        if (!seen)
            srv[nsr++] = slot;
    }
    Vars vs = {0};
    assigned(s->body, &vs);
    Var *vars = vs.items;
    int n = vs.n;
    RkBlock *body = rk_nir_block(L->f), *exit = rk_nir_block(L->f);
    int *args = edge_args(vars, n, 1, &k.a64);
    int go = emit2(RK_OP_U_CMP_LT, B, k.a64, k.b64, loc);
    cbranch(go, body, args, 1 + n, exit, args + 1, n, loc);
    rk_nir_block_param(L->f, body, I64);
    params_for(body, vars, n);
    params_for(exit, vars, n);
    set_block(body);
    bind_params(body, vars, n, 1);
    lp->j = body->params[0];
    lp->i = it->elem == RK_E_I64 || it->elem == RK_E_U64 ? lp->j
                                                          : emit1(RK_OP_U_CVT, it, lp->j, loc);
    L->env->slots[s->slot] = lval(lp->i, it);
    for (int j = 0; j < nsr; j++)
        lp->sr[srv[j]] = emit2(RK_OP_PTR_ADD, value_type(views[srv[j]].ptr), views[srv[j]].ptr,
                               lp->j, loc);
    loop = lp;
    lower_stmts(s->body, s->body.len);
    loop = lp->outer;
    int next = emit2(RK_OP_U_ADD, I64, lp->j, k.s64, loc);
    int done = emit2(RK_OP_U_CMP_GE, B, next, k.b64, loc);
    int *back = edge_args(vars, n, 1, &next);
    cbranch(done, exit, back + 1, n, body, back, 1 + n, loc);
    set_block(exit);
    bind_params(exit, vars, n, 0);
}

/* A counted loop.  When some accesses can be checked before it starts,
 * the loop is written twice: the fast version, with those checks made
 * once, runs when they pass; otherwise the checked version runs, which
 * checks every access where it happens, so the trap (and everything the
 * loop does before it) is exactly the interpreter's. */
void lower_for(RkNode *s)
{
    RkLoc loc = s->loc;
    const RkType *it = node_ty(s->from);
    const RkType *B = rk_ty_scalar(RK_E_BOOL);
    Bounds k;
    k.a = as_uniform(lower_expr(s->from));
    k.b = as_uniform(lower_expr(s->to));
    k.step = s->step ? as_uniform(lower_expr(s->step)) : const_uniform(it->elem, 1);
    int64_t literal = rk_ast_literal_step(s->step);
    if (!literal) { /* a positive literal step needs no check */
        int pos = emit2(RK_OP_U_CMP_GT, B, k.step, const_uniform(it->elem, 0), loc);
        trap_unless(pos, "a loop steps forward", NULL, 0, loc);
    }
    k.a64 = i64_of(k.a, loc), k.b64 = i64_of(k.b, loc), k.s64 = i64_of(k.step, loc);
    Loop *lp = new_loop(s);
    int ok = hoist_checks(lp, s, k.a64, k.b64, literal);
    if (ok < 0) {
        counted_loop(s, lp, k);
        return;
    }
    Vars vs = {0};
    assigned(s->body, &vs);
    Var *vars = vs.items;
    int n = vs.n;
    RkBlock *pre = L->b;
    LVal *saved = save_vars(vars, n);
    /* Blocks in the order the allocator reads them: the guard, the checked
     * copy, then the fast one, then the join, so what only one copy reads
     * is dead in the other. */
    RkBlock *guard = rk_nir_block(L->f), *start[2], *end[2];
    int *out[2];
    for (int v = 1; v >= 0; v--) {
        start[v] = rk_nir_block(L->f);
        set_block(start[v]);
        restore_vars(vars, n, saved);
        counted_loop(s, v ? new_loop(s) : lp, k);
        end[v] = L->b;
        out[v] = edge_args(vars, n, 0, NULL);
    }
    RkBlock *join = rk_nir_block(L->f);
    params_for(join, vars, n);
    /* a loop that doesn't run goes straight to the join, with the values
     * as they were; one that does takes the fast copy if every hoisted
     * check passes.  Each copy's own first test then repeats what the
     * guard knows, and rake-opt's branch facts drop it. */
    set_block(pre);
    restore_vars(vars, n, saved);
    int *before = edge_args(vars, n, 0, NULL);
    int empty = emit2(RK_OP_U_CMP_LE, B, k.b64, k.a64, loc);
    cbranch(empty, join, before, n, guard, NULL, 0, loc);
    set_block(guard);
    cbranch(ok, start[0], NULL, 0, start[1], NULL, 0, loc);
    for (int v = 0; v < 2; v++) {
        set_block(end[v]);
        branch(join, out[v], n, loc);
    }
    set_block(join);
    bind_params(join, vars, n, 0);
}

/* --- slow blocks --------------------------------------------------------------------- */

/* The run's locals a slow block reads: every name in it, at any depth
 * (a stack literal's field, an array's element...), bound to a value of
 * the run, each once, as many as it has (Var.elem unused). */
static void captures(RkNode *n, void *ctx)
{
    if (n->kind == RK_NAME && n->slot >= 0 && n->slot < L->env->nslots &&
        (L->env->slots[n->slot].id >= 0 || L->env->slots[n->slot].is_const))
        add_var(ctx, (Var){n->slot, -1});
    rk_ast_each_child(n, captures, ctx);
}

LVal lower_slow_block(RkNode *blk)
{
    Vars cap = {0};
    rk_ast_each_child(blk, captures, &cap);
    int n = cap.n;
    int *args = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        args[i] = materialize(L->env->slots[cap.items[i].slot], NULL);
    const RkType *t = blk->ty ? rk_type_parse(blk->ty) : NULL;
    if (t && t->kind != RK_T_SCALAR)
        t = NULL;
    RkInstr *in = emit(RK_OP_SLOW_CALL, t, args, n, blk->loc);
    in->text = rk_arena_printf(&rk_heap, "%d:%d", blk->loc.line, blk->loc.col);
    in->nlanes = n;
    in->lanes = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        in->lanes[i] = cap.items[i].slot;
    in->fused = -1;
    return lval(in->id, t ? t : &rk_ty_unit);
}

/* --- stack runs ------------------------------------------------------------------------ */

typedef struct Column {
    int stack_slot, field;
    int ptr;     /* ptr<T> */
    int loaded;  /* in the current rack, -1 if not yet */
    RkElem elem;
    struct Column *next;
} Column;

static Column *columns;

static int field_index(RkNode *pack, const char *name)
{
    for (int i = 0; i < pack->fields.len; i++)
        if (!strcmp(pack->fields.items[i]->name, name))
            return i;
    rk_diag_internal("rake-lower: no field %s", name);
}

static RkNode *pack_of(const RkType *stack)
{
    RkNode *d = rk_ast_find_decl(L->module, stack->name, false);
    if (d && d->kind == RK_PACK)
        return d;
    rk_diag_internal("rake-lower: no pack %s", stack->name);
}

static Column *column(int stack_slot, int field)
{
    for (Column *c = columns; c; c = c->next)
        if (c->stack_slot == stack_slot && c->field == field)
            return c;
    rk_diag_internal("rake-lower: column %d.%d was not prepared", stack_slot, field);
}

static const RkType *working_type(RkElem stored)
{
    if (rk_elem_bits(stored) == L->domain_bits)
        return rk_ty_rack(stored);
    return rk_ty_rack(domain_elem(L->domain_bits, rk_elem_is_signed(stored)));
}

/* The mask of the rack of records being lowered: the tail's, or -1. */
static int rack_ctx = -1;

/* A column's rack, loaded once per rack of records and shared by every
 * later read, so it is loaded under the rack's mask (every record of the
 * rack), never under the narrower mask of the read that comes first (an
 * `if` arm, the right operand of `and`/`or`, a through block): a later
 * read outside that mask, or the old values of `where` and a compaction,
 * would see zeros (tests/runs/regress/column-first-read-masked.rk). */
static int load_column(Column *c, RkLoc loc)
{
    if (c->loaded >= 0)
        return c->loaded;
    int saved = L->ctx;
    L->ctx = rack_ctx;
    int p = emit2(RK_OP_PTR_ADD, value_type(c->ptr), c->ptr, L->run_base, loc);
    const RkType *t = working_type(c->elem);
    if (L->ctx >= 0) {
        c->loaded = emit2(RK_OP_RACK_LOAD_MASKED, t, p, L->ctx, loc);
    } else {
        RkInstr *in = emit(RK_OP_RACK_LOAD, t, (int[]){p}, 1, loc);
        in->imm = L->run_imm;
        c->loaded = in->id;
    }
    L->ctx = saved;
    return c->loaded;
}

LVal lower_column(RkNode *field)
{
    const RkType *st = node_ty(field->object);
    int f = field_index(pack_of(st), field->name);
    Column *c = column(field->object->slot, f);
    return lval(load_column(c, field->loc), working_type(c->elem));
}

static void prepare_columns(RkNode *fn, RkLoc loc)
{
    columns = NULL;
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = node_ty(p);
        if (t->kind != RK_T_STACK)
            continue;
        RkNode *pack = pack_of(t);
        for (int k = 0; k < pack->fields.len; k++) {
            Column *c = RK_NEW(Column);
            c->stack_slot = p->slot;
            c->field = k;
            c->elem = rk_type_parse(pack->fields.items[k]->ty)->elem;
            RkInstr *in = emit(RK_OP_STACK_COLUMN, rk_ty_ptr(c->elem),
                               (int[]){L->env->slots[p->slot].id}, 1, loc);
            in->imm = k;
            c->ptr = in->id;
            c->loaded = -1;
            c->next = columns;
            columns = c;
        }
    }
}

static void forget_loads(void)
{
    for (Column *c = columns; c; c = c->next)
        c->loaded = -1;
}

/* The result statement on the current rack; returns the new cursor. */
static int result(RkNode *last, RkNode *pack, int cursor)
{
    RkLoc loc = last->loc;
    int stack_slot = last->stack->slot;
    int nf = pack->fields.len;
    int *nv = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)nf);
    for (int k = 0; k < nf; k++)
        nv[k] = -1;
    for (int i = 0; i < last->fields.len; i++) {
        RkNode *fi = last->fields.items[i];
        nv[field_index(pack, fi->name)] = lower_rack(fi->value, node_ty(fi));
    }
    int sel = last->pred ? lower_mask(last->pred) : -1;
    if (last->kind == RK_WITH) {
        /* the old values `where` keeps are loaded before any store */
        int *old = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)nf);
        for (int k = 0; k < nf; k++)
            old[k] = nv[k] >= 0 && L->ctx < 0 && sel >= 0
                         ? load_column(column(stack_slot, k), loc) : -1;
        for (int k = 0; k < nf; k++) {
            if (nv[k] < 0)
                continue;
            Column *c = column(stack_slot, k);
            int v = nv[k];
            int p = emit2(RK_OP_PTR_ADD, value_type(c->ptr), c->ptr, L->run_base, loc);
            if (old[k] >= 0)
                v = emit3(RK_OP_MASK_SELECT, value_type(v), sel, v, old[k], loc);
            int m = mask_and(L->ctx, L->ctx >= 0 ? sel : -1, loc);
            if (m >= 0)
                emit(RK_OP_RACK_STORE_MASKED, NULL, (int[]){p, m, v}, 3, loc);
            else
                emit(RK_OP_RACK_STORE, NULL, (int[]){p, v}, 2, loc)->imm = L->run_imm;
        }
        return cursor;
    }
    int m = mask_and(L->ctx, sel, loc);
    int *vals = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nf + 1));
    for (int k = 0; k < nf; k++)
        vals[k] = nv[k] >= 0 ? nv[k] : load_column(column(stack_slot, k), loc);
    for (int k = 0; k < nf; k++) {
        Column *c = column(stack_slot, k);
        int p = emit2(RK_OP_PTR_ADD, value_type(c->ptr), c->ptr, cursor, loc);
        emit(RK_OP_RACK_COMPRESS_STORE, NULL, (int[]){p, m, vals[k]}, 3, loc);
    }
    int cnt = emit1(RK_OP_MASK_POPCOUNT, I64, m, loc);
    return emit2(RK_OP_U_ADD, I64, cursor, cnt, loc);
}

static int rack_of_records(RkNode *fn, RkNode *pack, int cursor)
{
    RkNode *last = fn->body.items[fn->body.len - 1];
    forget_loads();
    lower_stmts(fn->body, fn->body.len - 1);
    return result(last, pack, cursor);
}

/* Whole racks from i = start while i < limit, `per` racks of records per
 * iteration (the later ones at immediate offsets from the first); `once`:
 * at most one iteration, so no loop.  A compaction carries its cursor
 * (from.cursor >= 0) through the blocks' params; other runs have none
 * (-1).  Ends in the exit block, whose params are the index (keep_i)
 * and the cursor. */
typedef struct RackLoop {
    int i, cursor;
} RackLoop;

static RackLoop rack_loop(RkNode *fn, RkNode *pack, RackLoop from, int limit, int per, bool once,
                          bool keep_i, RkLoc loc)
{
    const RkType *B = rk_ty_scalar(RK_E_BOOL);
    RkBlock *head = rk_nir_block(L->f), *body = rk_nir_block(L->f), *exit = rk_nir_block(L->f);
    int n = from.cursor >= 0 ? 2 : 1;
    branch(head, (int[]){from.i, from.cursor}, n, loc);
    RackLoop at = {rk_nir_block_param(L->f, head, I64),
                   n > 1 ? rk_nir_block_param(L->f, head, I64) : -1};
    set_block(head);
    /* the tail starts at the end of the whole racks: only a loop followed
     * by another passes its index on (keep_i; never with once) */
    int skip = keep_i && !once ? 0 : 1;
    int out[2] = {at.i, at.cursor};
    cbranch(emit2(RK_OP_U_CMP_LT, B, at.i, limit, loc), body, NULL, 0, exit, out + skip, n - skip,
            loc);
    set_block(body);
    L->run_base = at.i;
    int c = at.cursor;
    for (int k = 0; k < per; k++) {
        L->run_imm = (int64_t)k * L->run_lanes;
        c = rack_of_records(fn, pack, c);
    }
    L->run_imm = 0;
    if (once) {
        branch(exit, &c, n - 1, loc);
    } else {
        int next = emit2(RK_OP_U_ADD, I64, at.i, lit64((int64_t)per * L->run_lanes), loc);
        branch(head, (int[]){next, c}, n, loc);
    }
    RackLoop r = {skip ? -1 : rk_nir_block_param(L->f, exit, I64),
                  n > 1 ? rk_nir_block_param(L->f, exit, I64) : -1};
    set_block(exit);
    return r;
}

/* A stack run: the loop over whole racks, unrolled by the profile's
 * factor (a compaction's cursor is carried from rack to rack: it isn't),
 * then one more whole rack if the unrolled loop left one, then the tail
 * under the mask of its records. */
static void stack_run(RkNode *fn)
{
    RkLoc loc = fn->loc;
    const RkType *B = rk_ty_scalar(RK_E_BOOL);
    RkNode *last = fn->body.items[fn->body.len - 1];
    RkNode *pack = pack_of(node_ty(last->stack));
    int stack = L->env->slots[last->stack->slot].id;
    bool compact = last->kind == RK_COMPACT;
    prepare_columns(fn, loc);
    int count = emit1(RK_OP_STACK_COUNT, I64, stack, loc);
    int lanes = L->run_lanes;
    int pos = emit3(RK_OP_U_SELECT, I64, emit2(RK_OP_U_CMP_GT, B, count, lit64(0), loc), count,
                    lit64(0), loc);
    /* the records of whole racks: pos rounded down to the lanes (a power
     * of two), one and with -lanes */
    if (lanes & (lanes - 1))
        rk_diag_internal("rake-lower: %d lanes in a rack", lanes);
    int full = emit2(RK_OP_U_AND, I64, pos, lit64(-(int64_t)lanes), loc);
    int per = compact ? 1 : L->profile->unroll;
    RackLoop r = {lit64(0), compact ? lit64(0) : -1};
    if (per > 1) {
        if (per & (per - 1))
            rk_diag_internal("rake-lower: unrolled by %d", per);
        int fulln = emit2(RK_OP_U_AND, I64, pos, lit64(-(int64_t)lanes * per), loc);
        r = rack_loop(fn, pack, r, fulln, per, false, true, loc);
        r = rack_loop(fn, pack, r, full, 1, true, false, loc);
    } else {
        r = rack_loop(fn, pack, r, full, 1, false, false, loc);
    }
    RkBlock *tail = rk_nir_block(L->f), *done = rk_nir_block(L->f);
    int rem = emit2(RK_OP_U_SUB, I64, pos, full, loc);
    int nd = compact ? 1 : 0;
    cbranch(emit2(RK_OP_U_CMP_GT, B, rem, lit64(0), loc), tail, NULL, 0, done,
            (int[]){r.cursor}, nd, loc);
    set_block(tail);
    L->run_base = full;
    L->ctx = emit1(RK_OP_MASK_LANES_BELOW, rk_ty_mask(L->domain_bits), rem, loc);
    rack_ctx = L->ctx;
    int cur3 = rack_of_records(fn, pack, r.cursor);
    L->ctx = -1;
    rack_ctx = -1;
    branch(done, (int[]){cur3}, nd, loc);
    int fin = compact ? rk_nir_block_param(L->f, done, I64) : -1;
    set_block(done);
    if (compact)
        emit(RK_OP_STACK_SET_COUNT, NULL, (int[]){stack, fin}, 2, loc);
    L->b->term = (RkTerm){RK_TERM_RET, -1, {0, NULL, 0}, {0, NULL, 0}, NULL, loc};
    L->b->terminated = true;
}

void lower_run(RkNode *fn)
{
    I64 = rk_ty_scalar(RK_E_I64);
    bool stack = fn->ret != NULL;
    L->f = rk_nir_func(L->out, fn->name, stack ? "stack_run" : "general_run", fn->loc);
    set_block(rk_nir_block(L->f));
    L->ctx = -1;
    L->region = -1;
    Env *e = env_new(fn);
    L->env = e;
    views = rk_arena_alloc(&rk_heap, sizeof(ViewInfo) * (size_t)e->nslots);
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = node_ty(p);
        int id = rk_nir_param(L->f, t, p->name);
        e->slots[p->slot] = lval(id, t);
        if (t->kind == RK_T_VIEW) {
            views[p->slot].ptr = emit1(RK_OP_VIEW_PTR, rk_ty_ptr(t->inner->elem), id, p->loc);
            views[p->slot].count =
                i64_of(emit1(RK_OP_VIEW_COUNT, rk_ty_scalar(RK_E_I32), id, p->loc), p->loc);
        }
    }
    L->f->result = NULL;
    L->ctx = -1;
    L->region = -1;
    L->regions_on = false;
    loop = NULL;
    if (stack) {
        L->domain_bits = 32;
        if (fn->note && !strncmp(fn->note, "domain ", 7))
            L->domain_bits = atoi(fn->note + 7);
        L->run_lanes = L->profile->lanes * 32 / L->domain_bits;
        L->run_imm = 0;
        stack_run(fn);
        return;
    }
    lower_stmts(fn->body, fn->body.len);
    L->b->term = (RkTerm){RK_TERM_RET, -1, {0, NULL, 0}, {0, NULL, 0}, NULL, fn->loc};
    L->b->terminated = true;
}

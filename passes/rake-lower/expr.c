/* expr.c: expressions to SSA values.
 *
 * Literals and constants stay pending (LVal.is_const) until an operation
 * needs them, and then become `const` (a uniform) or `rack.splat` (a
 * rack).  A uniform meeting a rack is broadcast with `rack.splat %u`.
 * A mask `if` lowers each branch under its part of the mask and joins them
 * with `mask.select`; a uniform `if` broadcasts its condition into a mask
 * the same way, so untaken exception-capable work is sanitised too. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "lower.h"

/* A node's type from rake-check's "ty".  A document without one where
 * rake-lower needs it is not what rake-check writes: an input error at
 * the node (exit 2), unless the node is one rake-lower made itself. */
const RkType *node_ty(RkNode *n)
{
    return rk_ast_type(L ? L->module : NULL, n, "rake-lower");
}

static uint64_t literal_bits(RkNode *lit, RkElem e)
{
    const char *s = lit->text;
    if (lit->kind == RK_BOOL)
        return !strcmp(s, "true");
    bool neg = *s == '-';
    if (e == RK_E_F32) {
        float f;
        if (lit->kind == RK_INT) {
            uint64_t u = 0;
            rk_int_literal(s, &neg, &u);
            f = neg ? -(float)u : (float)u;
        } else {
            f = strtof(s, NULL);
        }
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    uint64_t u = 0;
    rk_int_literal(s, &neg, &u);
    uint64_t v = neg ? 0 - u : u;
    int w = rk_elem_bits(e);
    return w == 64 ? v : v & ((1ull << w) - 1);
}

static LVal name(RkNode *e)
{
    if (e->ref && !strcmp(e->ref, "const")) {
        RkList d = L->module->decls;
        for (int i = 0; i < d.len; i++)
            if (d.items[i]->kind == RK_CONST && !strcmp(d.items[i]->name, e->name)) {
                RkNode *v = d.items[i]->value;
                const RkType *t = node_ty(d.items[i]);
                if (v->kind == RK_UNARY && v->op[0] == '-') {
                    /* rake-check allows `-(literal)`: negate the bits (a
                     * float's sign, an integer's wrapping negation) */
                    uint64_t b = literal_bits(v->operand, t->elem);
                    int w = rk_elem_bits(t->elem);
                    uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
                    return lconst(t, rk_elem_is_float(t->elem) ? b ^ (1ull << (w - 1))
                                                                : (0 - b) & m);
                }
                if (v->kind == RK_UNARY)
                    rk_diag_internal("rake-lower: constant '%s' is not a literal", e->name);
                return lconst(t, literal_bits(v, t->elem));
            }
    }
    if (e->slot < 0 || e->slot >= L->env->nslots ||
        (L->env->slots[e->slot].id < 0 && !L->env->slots[e->slot].is_const))
        rk_diag_internal("rake-lower: '%s' at %d:%d has no value", e->name, e->loc.line,
                         e->loc.col);
    return L->env->slots[e->slot];
}

/* The comparison of source operator `op` on racks or on uniforms. */
static RkOp cmp_op(const char *op, bool rack)
{
    if (!strcmp(op, "=")) return rack ? RK_OP_RACK_CMP_EQ : RK_OP_U_CMP_EQ;
    if (!strcmp(op, "!=")) return rack ? RK_OP_RACK_CMP_NE : RK_OP_U_CMP_NE;
    if (!strcmp(op, "<")) return rack ? RK_OP_RACK_CMP_LT : RK_OP_U_CMP_LT;
    if (!strcmp(op, "<=")) return rack ? RK_OP_RACK_CMP_LE : RK_OP_U_CMP_LE;
    if (!strcmp(op, ">")) return rack ? RK_OP_RACK_CMP_GT : RK_OP_U_CMP_GT;
    return rack ? RK_OP_RACK_CMP_GE : RK_OP_U_CMP_GE;
}

/* The arithmetic of source operator `op` (+ - * /) on racks or uniforms. */
static RkOp arith_op(char op, bool rack)
{
    switch (op) {
    case '+': return rack ? RK_OP_RACK_ADD : RK_OP_U_ADD;
    case '-': return rack ? RK_OP_RACK_SUB : RK_OP_U_SUB;
    case '*': return rack ? RK_OP_RACK_MUL : RK_OP_U_MUL;
    default: return rack ? RK_OP_RACK_DIV : RK_OP_U_DIV;
    }
}

/* Does evaluating `n` touch memory or run slow code (and so may trap or
 * have an effect)? */
static bool touches_memory(RkNode *n, void *unused)
{
    if (n->kind == RK_SLOW_BLOCK)
        return true;
    if (n->kind == RK_INDEX && !(n->note && !strcmp(n->note, "array")))
        return true;
    return rk_ast_any_child(n, touches_memory, unused);
}

/* --- evaluation order --------------------------------------------------------
 *
 * The two operands of an operation, and the two branches of a selection,
 * are lowered one after the other; while the second is computed, the
 * first's value is live.  When neither touches memory nor calls anything
 * but a builtin (so neither can trap or have an effect the other could
 * see), the one needing more registers goes first (Sethi and Ullman):
 * a chain like `if c0 then m0 else if c1 then m1 else ...` then holds one
 * value per level instead of two, which decides whether it fits SSE2's
 * fifteen registers. */

typedef struct Weigh {
    int need, ties;
    bool impure;
} Weigh;

static int need_of(RkNode *n, bool *impure);

static void weigh_child(RkNode *c, void *ctx)
{
    Weigh *w = ctx;
    int k = need_of(c, &w->impure);
    if (k > w->need)
        w->need = k, w->ties = 1;
    else if (k == w->need)
        w->ties++;
}

/* The registers evaluating n needs (a leaf: one), and whether it is
 * impure. */
static int need_of(RkNode *n, bool *impure)
{
    if (touches_memory(n, NULL) || (n->kind == RK_CALL && !(n->note && !strcmp(n->note, "builtin"))))
        *impure = true;
    Weigh w = {0, 0, false};
    rk_ast_each_child(n, weigh_child, &w);
    *impure |= w.impure;
    return w.need == 0 ? 1 : w.ties > 1 ? w.need + 1 : w.need;
}

/* Lower the second of two pure operands first when it needs more. */
static bool second_first(RkNode *first, RkNode *second)
{
    bool impure = false;
    int a = need_of(first, &impure), b = need_of(second, &impure);
    return !impure && b > a;
}

/* A uniform `and`/`or` whose right operand touches memory: it runs only
 * when the left doesn't decide, so a branch skips it (as in slow code). */
static LVal short_circuit(RkNode *e, int x)
{
    const RkType *t = node_ty(e);
    bool and = e->op[0] == 'a';
    RkBlock *right = rk_nir_block(L->f), *join = rk_nir_block(L->f);
    int r = rk_nir_block_param(L->f, join, t);
    int *decided = rk_arena_alloc(&rk_heap, sizeof(int));
    decided[0] = x;
    RkEdge to_right = {right->id, NULL, 0}, to_join = {join->id, decided, 1};
    L->b->term = (RkTerm){RK_TERM_CBR, x, and ? to_right : to_join, and ? to_join : to_right,
                          NULL, e->loc};
    L->b->terminated = true;
    set_block(right);
    int *y = rk_arena_alloc(&rk_heap, sizeof(int));
    y[0] = materialize(lower_expr(e->rhs), NULL);
    L->b->term = (RkTerm){RK_TERM_BR, -1, {join->id, y, 1}, {0, NULL, 0}, NULL, e->loc};
    L->b->terminated = true;
    set_block(join);
    return lval(r, t);
}

static LVal binary(RkNode *e)
{
    const char *op = e->op;
    const RkType *t = node_ty(e);
    if (!strcmp(op, "and") || !strcmp(op, "or")) {
        /* Short-circuit on masks: the right operand is lowered under the
         * lanes that still need it (`and`: where the left holds, `or`:
         * where it doesn't), as rake-interp evaluates it and rake-check
         * proves reads of partial values. */
        int x = materialize(lower_expr(e->lhs), NULL), y;
        if (t->kind == RK_T_MASK) {
            int saved = L->ctx;
            int need = op[0] == 'a' ? x : mask_not(x, e->loc);
            L->ctx = mask_and(saved, need, e->loc);
            y = materialize(lower_expr(e->rhs), NULL);
            L->ctx = saved;
        } else if (touches_memory(e->rhs, NULL)) {
            return short_circuit(e, x);
        } else {
            /* pure uniform operands: both sides give the same result */
            y = materialize(lower_expr(e->rhs), NULL);
        }
        RkOp o = t->kind == RK_T_MASK ? (op[0] == 'a' ? RK_OP_MASK_AND : RK_OP_MASK_OR)
                                             : (op[0] == 'a' ? RK_OP_U_AND : RK_OP_U_OR);
        return lval(emit2(o, t, x, y, e->loc), t);
    }
    LVal a, b;
    if (second_first(e->lhs, e->rhs)) {
        b = lower_expr(e->rhs);
        a = lower_expr(e->lhs);
    } else {
        a = lower_expr(e->lhs);
        b = lower_expr(e->rhs);
    }
    bool cmp = !(strchr("+-*/%", op[0]) && !op[1]);
    bool rack = a.ty->kind == RK_T_RACK || b.ty->kind == RK_T_RACK;
    RkElem el = (a.ty->kind == RK_T_RACK ? a.ty : b.ty)->elem;
    if (!rack) {
        int x = as_uniform(a), y = as_uniform(b);
        RkOp o = cmp ? cmp_op(op, false) : arith_op(op[0], false);
        return lval(emit2(o, t, x, y, e->loc), t);
    }
    int args[2] = {as_rack(a, el), as_rack(b, el)};
    RkOp o = cmp ? cmp_op(op, true) : arith_op(op[0], true);
    return lval(lanewise(o, t, args, 2, e->loc), t);
}

static LVal unary(RkNode *e)
{
    const RkType *t = node_ty(e);
    LVal a = lower_expr(e->operand);
    if (e->op[0] == 'n')
        return lval(emit1(t->kind == RK_T_MASK ? RK_OP_MASK_NOT : RK_OP_U_NOT, t,
                          materialize(a, NULL), e->loc), t);
    if (t->kind == RK_T_RACK) {
        int x = as_rack(a, t->elem);
        return lval(lanewise(RK_OP_RACK_NEG, t, &x, 1, e->loc), t);
    }
    return lval(emit1(RK_OP_U_NEG, t, as_uniform(a), e->loc), t);
}

/* Lower `then` under ctx & m and `else` under ctx & !m; join them. */
static LVal select_of(RkNode *e, int m, RkNode *tn, RkNode *fn)
{
    const RkType *t = node_ty(e);
    int saved = L->ctx, a, b;
    int not_m = mask_not(m, e->loc);
    /* each branch's mask is made outside the other's */
    if (second_first(tn, fn)) {
        L->ctx = mask_and(saved, not_m, e->loc);
        b = materialize(lower_expr(fn), t);
        L->ctx = saved;
        L->ctx = mask_and(saved, m, e->loc);
        a = materialize(lower_expr(tn), t);
    } else {
        L->ctx = mask_and(saved, m, e->loc);
        a = materialize(lower_expr(tn), t);
        L->ctx = saved;
        L->ctx = mask_and(saved, not_m, e->loc);
        b = materialize(lower_expr(fn), t);
    }
    L->ctx = saved;
    return lval(emit3(RK_OP_MASK_SELECT, t, m, a, b, e->loc), t);
}

static LVal if_expr(RkNode *e, RkNode *cond, RkNode *tn, RkNode *fn)
{
    const RkType *t = node_ty(e);
    LVal c = lower_expr(cond);
    if (c.ty->kind == RK_T_MASK)
        return select_of(e, materialize(c, NULL), tn, fn);
    /* a uniform condition */
    if (t->kind == RK_T_SCALAR) {
        int a = as_uniform(lower_expr(tn)), b = as_uniform(lower_expr(fn));
        return lval(emit3(RK_OP_U_SELECT, t, as_uniform(c), a, b, e->loc), t);
    }
    int bits = rk_elem_bits(t->elem);
    int m = emit1(RK_OP_MASK_SPLAT, rk_ty_mask(bits), as_uniform(c), e->loc);
    return select_of(e, m, tn, fn);
}

int lower_mask(RkNode *e) { return materialize(lower_expr(e), NULL); }

int lower_rack(RkNode *e, const RkType *t) { return materialize(lower_expr(e), t); }

static LVal shuffle(RkNode *e)
{
    const RkType *t = node_ty(e);
    int args[2];
    for (int i = 0; i < e->args.len; i++)
        args[i] = lower_rack(e->args.items[i], t);
    RkInstr *in = emit(RK_OP_RACK_SHUFFLE, t, args, e->args.len, e->loc);
    in->nlanes = e->elems.len;
    in->lanes = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)in->nlanes);
    for (int i = 0; i < in->nlanes; i++)
        in->lanes[i] = (int)lower_expr(e->elems.items[i]).bits;
    return lval(in->id, t);
}

LVal lower_builtin(RkNode *call);

LVal lower_expr(RkNode *e)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
    case RK_BOOL: {
        const RkType *t = node_ty(e);
        return lconst(t, literal_bits(e, t->elem));
    }
    case RK_NAME:
        return name(e);
    case RK_UNIFORM:
        return lower_expr(e->operand);
    case RK_BINARY:
        return binary(e);
    case RK_UNARY:
        return unary(e);
    case RK_IF_EXPR:
        return if_expr(e, e->cond, e->then_e, e->else_e);
    case RK_TINE_REF:
        return lval(lower_tine(e), node_ty(e));
    case RK_GAPS:
        return lval(mask_not(lower_mask(e->operand), e->loc), node_ty(e));
    case RK_FIELD:
        return lower_column(e);
    case RK_INDEX:
        if (e->note && !strcmp(e->note, "array")) {
            LVal idx = lower_expr(e->index);
            return L->env->elems[e->object->slot][idx.bits];
        }
        return lower_view_access(e);
    case RK_CALL:
        if (e->note && !strcmp(e->note, "builtin")) {
            if (!strcmp(e->name, "select"))
                return if_expr(e, e->args.items[0], e->args.items[1], e->args.items[2]);
            return lower_builtin(e);
        }
        {
            RkNode *d = rk_ast_find_decl(L->module, e->name, false);
            if (d && (d->kind == RK_SCRATCH || d->kind == RK_RAKE))
                return lower_call_kernel(d, e, NULL);
        }
        rk_diag_internal("rake-lower: no kernel '%s'", e->name);
    case RK_SHUFFLE:
        return shuffle(e);
    case RK_BITCAST: {
        const RkType *t = node_ty(e);
        const RkType *o = node_ty(e->operand); /* a uniform operand is broadcast */
        int x = lower_rack(e->operand, o->kind == RK_T_SCALAR ? rk_ty_rack(o->elem) : NULL);
        return lval(emit1(RK_OP_RACK_BITCAST, t, x, e->loc), t);
    }
    case RK_SLOW_BLOCK:
        return lower_slow_block(e);
    default:
        rk_diag_internal("rake-lower: can't lower a %s", rk_kind_name(e->kind));
    }
}

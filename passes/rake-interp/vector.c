/* vector.c: vector expressions, lane by lane.
 *
 * eval() computes a value for every lane; pure operations compute all
 * lanes (an inactive lane's result is never read: the checker proved it),
 * while memory accesses touch, and bounds-check, only the lanes active in
 * I->active.  `if m then a else b` and select evaluate each branch under
 * its own part of the active mask.  Every lane operation is the reference
 * one from lib/lanes.h. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"
#include "lanes.h"
#include "lanewise.h"

Val eval_under(RkNode *e, uint64_t active)
{
    uint64_t saved = I->active;
    I->active = active;
    Val v = eval(e);
    I->active = saved;
    return v;
}

/* --- scalar lane operations --------------------------------------------------- */

/* The source's comparison operators by lib/lanewise.c's names. */
static bool compare(const char *op, RkElem e, uint64_t a, uint64_t b)
{
    static const char *const src[] = {"=", "!=", "<", "<=", ">", ">="};
    static const char *const lane[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    for (int i = 0; i < 6; i++)
        if (!strcmp(op, src[i]))
            return rk_lane_compare(lane[i], e, a, b);
    rk_diag_internal("no comparison '%s'", op);
}

/* Two operands of a lane-wise operation, a scalar broadcast to the other's
 * rack. */
static void align(Val *a, Val *b)
{
    if (a->kind == V_SCALAR && (b->kind == V_RACK))
        *a = v_splat(b->elem, a->v[0]);
    else if (b->kind == V_SCALAR && (a->kind == V_RACK))
        *b = v_splat(a->elem, b->v[0]);
}

/* `and` and `or` short-circuit (10-gap-notes.md, section 3): on uniform
 * bools the right operand is evaluated only when the left one doesn't
 * decide; on masks it is evaluated under the lanes that still need it
 * (`and`: where the left is true; `or`: where it is false), so a gather on
 * the right touches, and bounds-checks, only those lanes.  Lanes outside
 * are decided by the left operand. */
static Val logic(RkNode *e, bool and)
{
    Val a = eval(e->lhs);
    if (a.kind == V_SCALAR) {
        if (and ? !(a.v[0] & 1) : (a.v[0] & 1))
            return a;
        return eval(e->rhs);
    }
    uint64_t m = mask_bits(a);
    Val b = eval_under(e->rhs, I->active & (and ? m : ~m));
    Val r = a;
    for (int i = 0; i < a.lanes; i++)
        r.v[i] = and ? (a.v[i] & b.v[i] & 1) : ((a.v[i] | b.v[i]) & 1);
    return r;
}

static Val binary(RkNode *e)
{
    const char *op = e->op;
    if (!strcmp(op, "and") || !strcmp(op, "or"))
        return logic(e, op[0] == 'a');
    Val fused;
    if (contract_add(e, &fused))
        return fused;
    Val a = eval(e->lhs), b = eval(e->rhs);
    align(&a, &b);
    bool arith_op = strchr("+-*/", op[0]) && !op[1];
    int n = a.kind == V_SCALAR ? 1 : a.lanes;
    Val r;
    if (arith_op) {
        r = a;
        for (int i = 0; i < n; i++)
            r.v[i] = rk_lane_arith(op[0], a.elem, a.v[i], b.v[i]);
        return r;
    }
    if (a.kind == V_SCALAR) {
        r = v_scalar(RK_E_BOOL, compare(op, a.elem, a.v[0], b.v[0]));
        return r;
    }
    r = v_mask(a.elem, a.lanes);
    for (int i = 0; i < n; i++)
        r.v[i] = compare(op, a.elem, a.v[i], b.v[i]);
    return r;
}

static Val unary(RkNode *e)
{
    Val a = eval(e->operand);
    int n = a.kind == V_SCALAR ? 1 : a.lanes;
    for (int i = 0; i < n; i++) {
        if (e->op[0] == 'n')
            a.v[i] = !a.v[i];
        else if (a.elem == RK_E_F32)
            a.v[i] = rk_f32_neg((uint32_t)a.v[i]);
        else
            a.v[i] = norm(a.elem, 0 - a.v[i]);
    }
    return a;
}

/* --- selections --------------------------------------------------------------------- */

/* Lane-wise selection by a mask.  The result is a rack of the mask's
 * lanes even when both arms are uniforms (the checker may type
 * `select(m, <1>, <0>)` as the arms' scalar type). */
Val blend(Val m, Val a, Val b, const RkType *t)
{
    a = to_type(a, t);
    b = to_type(b, t);
    RkElem e = a.kind == V_SCALAR ? (b.kind == V_SCALAR ? a.elem : b.elem) : a.elem;
    if (a.kind == V_SCALAR)
        a = v_splat(e, a.v[0]);
    if (b.kind == V_SCALAR)
        b = v_splat(e, b.v[0]);
    Val r = a;
    for (int i = 0; i < r.lanes && i < m.lanes; i++)
        r.v[i] = m.v[i] ? a.v[i] : b.v[i];
    return r;
}

uint64_t mask_bits(Val m)
{
    uint64_t bits = 0;
    for (int i = 0; i < m.lanes; i++)
        bits |= (m.v[i] & 1) << i;
    return bits;
}

static Val select_expr(RkNode *e, RkNode *cond, RkNode *tn, RkNode *fn)
{
    Val c = eval(cond);
    const RkType *t = ty_of(e);
    if (c.kind == V_SCALAR)
        return to_type(eval(c.v[0] ? tn : fn), t);
    uint64_t m = mask_bits(c);
    Val a = eval_under(tn, I->active & m);
    Val b = eval_under(fn, I->active & ~m);
    return blend(c, a, b, t);
}

/* --- names, marks, indexing ---------------------------------------------------------- */

static Val name(RkNode *e)
{
    if (e->ref && (!strcmp(e->ref, "const") || !strcmp(e->ref, "state")))
        return *global_value(e);
    if (e->slot < 0 || e->slot >= I->frame->nslots)
        rk_diag_internal("rake-interp: name '%s' has no slot", e->name);
    return I->frame->slots[e->slot];
}

static Val element(RkNode *e)
{
    Val o = eval(e->object), i = eval(e->index);
    int64_t k = (int64_t)i.v[0];
    if (!rk_elem_is_signed(i.elem) && i.v[0] > INT64_MAX)
        k = INT64_MAX;
    Buffer *buf = o.kind == V_ARRAY ? o.arr : o.view.buf;
    int64_t off = o.kind == V_ARRAY ? 0 : o.view.off;
    int64_t n = o.kind == V_ARRAY ? o.arr->n : o.view.count;
    if (k < 0 || k >= n)
        TRAP(e->loc, "index %lld outside %lld elements", (long long)k, (long long)n);
    return v_scalar(buf->elem, buf->data[off + k]);
}

static Val rack_load(RkNode *e)
{
    Val o = eval(e->object), i = eval(e->index);
    RkElem el = o.view.buf->elem;
    int lanes = lanes_of(el);
    int64_t k = (int64_t)i.v[0], n = o.view.count;
    Val r = v_rack(el, lanes);
    for (int l = 0; l < lanes; l++) {
        if (!((I->active >> l) & 1))
            continue;
        if (k + l < 0 || k + l >= n)
            TRAP(e->loc, "%srack load [%lld, %lld) outside %lld elements",
                 e->unchecked ? "unchecked " : "", (long long)k,
                 (long long)(k + lanes), (long long)n);
    }
    for (int l = 0; l < lanes; l++)
        if ((I->active >> l) & 1)
            r.v[l] = o.view.buf->data[o.view.off + k + l];
    return r;
}

static Val gather(RkNode *e)
{
    Val o = eval(e->object), idx = eval(e->index);
    RkElem el = o.view.buf->elem;
    Val r = v_rack(el, idx.lanes);
    int64_t n = o.view.count;
    for (int l = 0; l < idx.lanes; l++) {
        if (!((I->active >> l) & 1))
            continue;
        int64_t k = (int64_t)idx.v[l];
        if (k < 0 || k >= n)
            TRAP(e->loc, "%sgather index %lld outside %lld elements",
                 e->unchecked ? "unchecked " : "", (long long)k, (long long)n);
    }
    for (int l = 0; l < idx.lanes; l++)
        if ((I->active >> l) & 1)
            r.v[l] = o.view.buf->data[o.view.off + (int64_t)idx.v[l]];
    return r;
}

static Val index_expr(RkNode *e)
{
    const char *note = e->note ? e->note : "";
    if (!strcmp(note, "array")) {
        Val o = eval(e->object), i = eval(e->index);
        return o.racks[(int64_t)i.v[0]];
    }
    if (!strcmp(note, "load"))
        return rack_load(e);
    if (!strcmp(note, "gather"))
        return gather(e);
    return element(e);
}

static Val literal(RkNode *e)
{
    const RkType *t = ty_of(e);
    return v_scalar(t->elem, parse_literal(e, t->elem));
}

static Val shuffle(RkNode *e)
{
    Val a = eval(e->args.items[0]);
    Val b = e->args.len > 1 ? eval(e->args.items[1]) : a;
    Val r = a;
    if (e->elems.len > a.lanes)
        rk_diag_input("a shuffle of %d indices for %d lanes (rake-check allows one a lane)",
                      e->elems.len, a.lanes);
    for (int i = 0; i < e->elems.len; i++) {
        long long k = (long long)parse_literal(e->elems.items[i], RK_E_I64);
        r.v[i] = k < a.lanes ? a.v[k] : b.v[k - a.lanes];
    }
    return r;
}

static Val bitcast(RkNode *e)
{
    Val a = eval(e->operand);
    const RkType *t = ty_of(e);
    if (a.kind == V_SCALAR && t->kind == RK_T_RACK) /* a uniform, broadcast */
        a = v_splat(a.elem, a.v[0]);
    for (int i = 0; i < a.lanes; i++)
        a.v[i] = norm(t->elem, a.v[i]);
    a.elem = t->elem;
    return a;
}

Val eval(RkNode *e)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
    case RK_BOOL:
        return literal(e);
    case RK_NAME:
        return name(e);
    case RK_UNIFORM:
        return eval(e->operand);
    case RK_BINARY:
        return binary(e);
    case RK_UNARY:
        return unary(e);
    case RK_IF_EXPR:
        return select_expr(e, e->cond, e->then_e, e->else_e);
    case RK_TINE_REF:
        return eval_tine(e);
    case RK_GAPS: {
        Val m = eval(e->operand);
        for (int i = 0; i < m.lanes; i++)
            m.v[i] = !m.v[i];
        return m;
    }
    case RK_FIELD:
        return eval_column(e);
    case RK_INDEX:
        return index_expr(e);
    case RK_CALL:
        if (e->note && !strcmp(e->note, "builtin")) {
            if (!strcmp(e->name, "select"))
                return select_expr(e, e->args.items[0], e->args.items[1],
                                   e->args.items[2]);
            return builtin_vector(e);
        }
        return call_kernel(find_fn(e->name), e, NULL);
    case RK_SHUFFLE:
        return shuffle(e);
    case RK_BITCAST:
        return bitcast(e);
    case RK_SLOW_BLOCK:
        return to_type(eval_slow_block(e), ty_of(e));
    default:
        rk_diag_internal("rake-interp: can't evaluate a %s in vector code",
                         rk_kind_name(e->kind));
    }
}

Val call_kernel(RkNode *fn, RkNode *call, Val *given)
{
    int n = call->args.len;
    Val *args = calloc((size_t)(n ? n : 1), sizeof(Val));
    for (int i = 0; i < n; i++) {
        Val a = given ? given[i] : eval(call->args.items[i]);
        args[i] = to_type(a, ty_of(fn->params.items[i]));
    }
    Val r = run_kernel(fn, args, n);
    free(args);
    return r;
}

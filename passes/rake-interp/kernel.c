/* kernel.c: statements of vector code, scratches, rakes, tines, sweeps.
 *
 * A through block runs its body with the active lanes narrowed to its
 * predicate, so inactive lanes' memory accesses never happen; its result
 * is undefined outside unless an `else` fills it.  A sweep takes, per lane,
 * the first arm whose predicate holds. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"

static Val *slot(RkNode *n) { return &I->frame->slots[n->slot]; }

Val eval_tine(RkNode *ref)
{
    if (!strcmp(ref->ref, "tine")) {
        Val p = *slot(ref);
        return eval(p.pred);
    }
    RkNode *t = find_tine(ref->name);
    int n = ref->args.len;
    Val *args = calloc((size_t)(n ? n : 1), sizeof(Val));
    for (int i = 0; i < n; i++)
        args[i] = to_type(eval(ref->args.items[i]), ty_of(t->params.items[i]));
    Frame *f = push_frame(t);
    for (int i = 0; i < n; i++)
        f->slots[t->params.items[i]->slot] = args[i];
    free(args);
    Val m = eval(t->pred);
    pop_frame(f);
    return m;
}

/* A store of the active lanes of a rack at a uniform view index. */
static void rack_store(RkNode *target, Val v)
{
    Val o = eval(target->object), i = eval(target->index);
    int64_t k = (int64_t)i.v[0], n = o.view.count;
    int lanes = v.lanes;
    for (int l = 0; l < lanes; l++)
        if (((I->active >> l) & 1) && (k + l < 0 || k + l >= n))
            TRAP(target->loc, "%srack store [%lld, %lld) outside %lld elements",
                 target->unchecked ? "unchecked " : "", (long long)k,
                 (long long)(k + lanes), (long long)n);
    for (int l = 0; l < lanes; l++)
        if ((I->active >> l) & 1)
            o.view.buf->data[o.view.off + k + l] = v.v[l];
}

/* Only the active lanes of a location change. */
static Val masked(Val old, Val nw)
{
    if (nw.kind != V_RACK && nw.kind != V_MASK)
        return nw;
    uint64_t all = all_lanes(nw.lanes);
    if ((I->active & all) == all || old.kind != nw.kind)
        return nw;
    for (int l = 0; l < nw.lanes; l++)
        if (!((I->active >> l) & 1))
            nw.v[l] = old.v[l];
    return nw;
}

static void assign(RkNode *s)
{
    RkNode *t = s->target;
    if (t->kind == RK_NAME) {
        Val *dst = slot(t);
        *dst = masked(*dst, to_type(eval(s->value), ty_of(t)));
        return;
    }
    const char *note = t->note ? t->note : "";
    Val v = to_type(eval(s->value), ty_of(t));
    if (!strcmp(note, "store")) {
        rack_store(t, v);
        return;
    }
    Val *arr = slot(t->object);
    Val i = eval(t->index);
    Val *dst = &arr->racks[i.v[0]];
    *dst = masked(*dst, v);
}

static void var(RkNode *s)
{
    const RkType *t = ty_of(s);
    if (t->kind == RK_T_ARRAY) {
        Val init = to_type(eval(s->value), t->inner);
        Val a = v_unit();
        a.kind = V_RACKS;
        a.nracks = t->len;
        a.racks = rk_arena_alloc(&rk_heap, sizeof(Val) * (size_t)t->len);
        for (int i = 0; i < t->len; i++)
            a.racks[i] = init;
        *slot(s) = a;
        return;
    }
    *slot(s) = to_type(eval(s->value), t);
}

static void repeat(RkNode *s)
{
    Val a = eval(s->from), b = eval(s->to);
    RkElem e = s->type ? ty_of(s->from)->elem : RK_E_I32;
    for (int64_t i = (int64_t)a.v[0]; i < (int64_t)b.v[0]; i++) {
        *slot(s) = v_scalar(e, (uint64_t)i);
        exec_vector_list(s->body);
    }
}

static void counted(RkNode *s)
{
    Val a = eval(s->from), b = eval(s->to);
    Val st = s->step ? eval(s->step) : v_scalar(a.elem, 1);
    RkElem e = a.elem;
    bool sgn = rk_elem_is_signed(e);
    int64_t step = (int64_t)st.v[0];
    if (sgn ? step <= 0 : st.v[0] == 0)
        TRAP(s->loc, "a loop steps forward");
    uint64_t i = a.v[0], end = b.v[0];
    while (sgn ? (int64_t)i < (int64_t)end : i < end) {
        *slot(s) = v_scalar(e, i);
        exec_vector_list(s->body);
        uint64_t left = end - i;
        if (left <= st.v[0])
            break;
        i += st.v[0];
    }
}

void exec_vector(RkNode *s)
{
    switch (s->kind) {
    case RK_LET:
    case RK_FUSED:
        *slot(s) = s->uniform ? eval(s->value) : to_type(eval(s->value), ty_of(s));
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
    case RK_FOR:
        counted(s);
        return;
    case RK_IF: {
        Val c = eval(s->cond);
        exec_vector_list(c.v[0] ? s->body : s->else_body);
        return;
    }
    case RK_TINE: {
        Val p = v_unit();
        p.kind = V_PRED;
        p.pred = s->pred;
        *slot(s) = p;
        return;
    }
    case RK_EXPR:
        eval(s->value);
        return;
    default:
        rk_diag_internal("rake-interp: no vector statement %s", rk_kind_name(s->kind));
    }
}

void exec_vector_list(RkList body)
{
    exec_statements(body, body.len);
}

static void through(RkNode *s)
{
    Val p = eval(s->pred);
    uint64_t saved = I->active;
    uint64_t m = mask_bits(p) & saved;
    I->active = m;
    RkList body = s->body;
    exec_statements(body, body.len - 1);
    Val r = to_type(eval(body.items[body.len - 1]->value), ty_of(s));
    I->active = saved;
    if (s->value) {
        Val f = to_type(eval(s->value), ty_of(s));
        for (int l = 0; l < r.lanes; l++)
            if (!((m >> l) & 1))
                r.v[l] = f.v[l];
    } else {
        for (int l = 0; l < r.lanes; l++)
            if (!((m >> l) & 1))
                r.v[l] = 0; /* undefined: never read */
    }
    *slot(s) = r;
}

static Val sweep(RkNode *s, const RkType *ret)
{
    uint64_t remaining = I->active;
    Val out = ret->kind == RK_T_MASK ? v_mask(ret->elem, lanes_of(ret->elem))
                                     : v_rack(ret->elem, lanes_of(ret->elem));
    for (int i = 0; i < s->arms.len && remaining; i++) {
        RkNode *arm = s->arms.items[i];
        uint64_t take = remaining;
        if (arm->pred->kind != RK_WILDCARD)
            take &= mask_bits(eval_under(arm->pred, remaining));
        if (take) {
            Val v = to_type(eval_under(arm->value, take), ret);
            for (int l = 0; l < out.lanes; l++)
                if ((take >> l) & 1)
                    out.v[l] = v.v[l];
        }
        remaining &= ~take;
    }
    return out;
}

Val run_kernel(RkNode *fn, Val *args, int nargs)
{
    Frame *f = push_frame(fn);
    for (int i = 0; i < nargs; i++)
        f->slots[fn->params.items[i]->slot] = args[i];
    const RkType *ret = ty_of(fn);
    RkList body = fn->body;
    Val r;
    bool regions = I->regions_on;
    int region = I->region;
    I->regions_on = true;
    I->region = -1;
    if (fn->kind == RK_SCRATCH) {
        exec_statements(body, body.len - 1);
        r = to_type(eval(body.items[body.len - 1]->value), ret);
    } else {
        r = v_unit();
        for (int i = 0; i < body.len; i++) {
            RkNode *s = body.items[i];
            if (s->kind == RK_THROUGH)
                through(s);
            else if (s->kind == RK_SWEEP)
                r = sweep(s, ret);
            else
                exec_vector(s);
        }
    }
    I->regions_on = regions;
    I->region = region;
    pop_frame(f);
    return r;
}

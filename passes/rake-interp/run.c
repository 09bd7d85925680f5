/* run.c: stack runs and general runs.
 *
 * A stack run visits its records a rack at a time: `lanes` records of the
 * run's domain per step, the last step under the tail mask
 * `lane < count mod lanes`, whose inactive lanes read as zero and are
 * never stored.  Each step reads its columns before it stores anything:
 * `with` computes every replacement and then stores the selected lanes;
 * `compact` loads every column of the result, then writes the selected
 * records, in order, at a cursor that never passes the records read.
 * Before the run starts, the call traps if the stacks' counts differ or if
 * the result's columns overlap another argument other than exactly. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"

typedef struct RunCtx {
    int64_t base;
    int lanes;
    bool active;
} RunCtx;

static RunCtx rc;

static Stack *stack_of(RkNode *name) { return I->frame->slots[name->slot].stack; }

static int field_index(RkNode *pack, const char *field)
{
    for (int i = 0; i < pack->fields.len; i++)
        if (!strcmp(pack->fields.items[i]->name, field))
            return i;
    rk_diag_internal("rake-interp: no field %s", field);
}

static Val load(View *col, RkElem e)
{
    Val r = v_rack(e, rc.lanes);
    for (int l = 0; l < rc.lanes; l++)
        if ((I->active >> l) & 1)
            r.v[l] = col->buf->data[col->off + rc.base + l];
    return r;
}

Val eval_column(RkNode *field)
{
    Stack *s = stack_of(field->object);
    int fi = field_index(s->pack, field->name);
    RkElem e = rk_type_parse(s->pack->fields.items[fi]->ty)->elem;
    return load(&s->cols[fi], e);
}

/* --- checks before a run ------------------------------------------------------ */

static bool overlaps(View a, View b)
{
    if (a.buf != b.buf || a.count <= 0 || b.count <= 0)
        return false;
    return a.off < b.off + b.count && b.off < a.off + a.count;
}

/* Does the run's result statement store into this field? */
static bool writes(RkNode *last, const char *field)
{
    if (last->kind == RK_COMPACT)
        return true;
    for (int i = 0; i < last->fields.len; i++)
        if (!strcmp(last->fields.items[i]->name, field))
            return true;
    return false;
}

static void check_aliasing(RkNode *run, RkNode *call, Val *args, int res)
{
    Stack *r = args[res].stack;
    for (int i = 0; i < run->params.len; i++) {
        if (i == res)
            continue;
        Val a = args[i];
        for (int c = 0; c < r->pack->fields.len; c++) {
            View rv = r->cols[c];
            rv.count = r->count;
            if (a.kind == V_VIEW && overlaps(rv, a.view) &&
                !(rv.off == a.view.off))
                TRAP(call->loc, "run %s's result shares memory with another argument",
                     run->name);
            if (a.kind != V_STACK)
                continue;
            for (int d = 0; d < a.stack->pack->fields.len; d++) {
                View av = a.stack->cols[d];
                av.count = a.stack->count;
                if (overlaps(rv, av) && rv.off != av.off)
                    TRAP(call->loc, "run %s's result shares memory with another "
                                    "argument",
                         run->name);
            }
        }
    }
    /* The result's own columns: two may be the same storage element for
     * element when the run writes at most one of them (it loads every
     * column of a rack before storing any); any other overlap, or two
     * written columns on the same storage, would make the stores' order
     * matter, and traps. */
    RkNode *last = run->body.items[run->body.len - 1];
    for (int c = 0; c < r->pack->fields.len; c++)
        for (int d = c + 1; d < r->pack->fields.len; d++) {
            View x = r->cols[c], y = r->cols[d];
            x.count = y.count = r->count;
            if (!overlaps(x, y))
                continue;
            const char *fx = r->pack->fields.items[c]->name;
            const char *fy = r->pack->fields.items[d]->name;
            if (x.off != y.off || (writes(last, fx) && writes(last, fy)))
                TRAP(call->loc, "run %s's result columns %s and %s share memory", run->name,
                     fx, fy);
        }
}

static void check_counts(RkNode *run, RkNode *call, Val *args)
{
    int64_t first = -1;
    for (int i = 0; i < run->params.len; i++) {
        if (args[i].kind != V_STACK)
            continue;
        int64_t c = args[i].stack->count;
        if (first >= 0 && c != first)
            TRAP(call->loc, "run %s takes stacks of %lld and %lld records", run->name,
                 (long long)first, (long long)c);
        first = c;
    }
}

/* --- the result statement ------------------------------------------------------ */

static int lanes_for(RkNode *run)
{
    int bits = atoi(run->note + strlen("domain "));
    return checked_lanes(I->f32_lanes * 32 / (bits > 0 ? bits : 32));
}

static void store_with(RkNode *s, Stack *st)
{
    int n = s->fields.len;
    Val *nv = calloc((size_t)(n ? n : 1), sizeof(Val));
    int *fi = calloc((size_t)(n ? n : 1), sizeof(int));
    for (int i = 0; i < n; i++) {
        fi[i] = field_index(st->pack, s->fields.items[i]->name);
        nv[i] = to_type(eval(s->fields.items[i]->value), ty_of(s->fields.items[i]));
    }
    uint64_t sel = I->active;
    if (s->pred)
        sel &= mask_bits(eval(s->pred));
    for (int i = 0; i < n; i++) {
        View *c = &st->cols[fi[i]];
        for (int l = 0; l < rc.lanes; l++)
            if ((sel >> l) & 1)
                c->buf->data[c->off + rc.base + l] = nv[i].v[l];
    }
    free(nv);
    free(fi);
}

static void store_compact(RkNode *s, Stack *st, int64_t *cursor)
{
    int nf = st->pack->fields.len;
    Val *old = calloc((size_t)(nf ? nf : 1), sizeof(Val));
    for (int c = 0; c < nf; c++)
        old[c] = load(&st->cols[c], rk_type_parse(st->pack->fields.items[c]->ty)->elem);
    for (int i = 0; i < s->fields.len; i++) {
        int c = field_index(st->pack, s->fields.items[i]->name);
        old[c] = to_type(eval(s->fields.items[i]->value), ty_of(s->fields.items[i]));
    }
    uint64_t sel = I->active & mask_bits(eval(s->pred));
    for (int l = 0; l < rc.lanes; l++) {
        if (!((sel >> l) & 1))
            continue;
        for (int c = 0; c < nf; c++)
            st->cols[c].buf->data[st->cols[c].off + *cursor] = old[c].v[l];
        (*cursor)++;
    }
    free(old);
}

static int result_param(RkNode *run)
{
    RkNode *last = run->body.items[run->body.len - 1];
    for (int i = 0; i < run->params.len; i++)
        if (run->params.items[i]->slot == last->stack->slot)
            return i;
    rk_diag_internal("rake-interp: run %s has no result stack", run->name);
}

void run_checks(RkNode *run, RkNode *call, Val *args)
{
    if (!run->ret)
        return;
    check_counts(run, call, args);
    check_aliasing(run, call, args, result_param(run));
}

static void stack_run(RkNode *run, RkNode *call, Val *args)
{
    RkNode *last = run->body.items[run->body.len - 1];
    int res = result_param(run);
    run_checks(run, call, args);
    Stack *st = args[res].stack;
    int64_t count = st->count, cursor = 0;
    RunCtx saved = rc;
    uint64_t saved_active = I->active;
    rc.lanes = lanes_for(run);
    for (int64_t base = 0; base < count; base += rc.lanes) {
        rc.base = base;
        int64_t left = count - base;
        I->active = left >= rc.lanes ? all_lanes(rc.lanes) : all_lanes((int)left);
        for (int i = 0; i < run->body.len - 1; i++)
            exec_vector(run->body.items[i]);
        if (last->kind == RK_WITH)
            store_with(last, st);
        else
            store_compact(last, st, &cursor);
    }
    if (last->kind == RK_COMPACT && count > 0)
        st->count = cursor;
    rc = saved;
    I->active = saved_active;
}

void call_run(RkNode *run, RkNode *call, Val *args)
{
    bool regions = I->regions_on;
    I->regions_on = false; /* nothing written directly in a run is fused */
    Frame *f = push_frame(run);
    for (int i = 0; i < run->params.len; i++)
        f->slots[run->params.items[i]->slot] = args[i];
    if (run->ret) {
        stack_run(run, call, args);
    } else {
        uint64_t saved = I->active;
        I->active = ~0ull;
        exec_vector_list(run->body);
        I->active = saved;
    }
    pop_frame(f);
    I->regions_on = regions;
}

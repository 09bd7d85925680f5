/* optwhy.c: what rake-opt changed in one function, read from the native IR
 * before and after it.
 *
 * rake-opt keeps value ids (nir.h), so every instruction rake-lower wrote
 * is either still defined after rake-opt (kept, or rewritten in place) or
 * gone, and every instruction only the optimised function has is new.
 * This file names, for each, the rewrite of rake-opt's list
 * (passes/rake-opt/main.c) that explains it, by looking at the two
 * functions only; it is the page's reading of the documents, not a log
 * rake-opt keeps:
 *   contraction   an f32 rack.add became rack.fma; its rack.mul, and the
 *                 benign selects that fed the product, are gone; new
 *                 benign selects feed the fma's operands
 *   substitution  a copy is gone (its uses read its operand), or a
 *                 constant equal to an earlier one of its block
 *   cse           a pure instruction equal to an earlier one of its block
 *                 that is kept (common-subexpression elimination)
 *   conversion    a new rack.bitcast: a u8 or u16 column's lanes are
 *                 converted to f32 as signed i32
 *   proven        a comparison under a mask reads an operand raw instead
 *                 of its benign select, which is gone (lib/nirproof.h: the
 *                 lanes outside the mask hold normal numbers)
 *   folded        became a constant: its operands are constants, or
 *                 the branches that dominate it decide it (branch facts)
 *   unreached     gone with its block, which no path reaches any more
 *                 (a branch before it became a jump)
 *   sunk          the same instruction in a later block, the one that
 *                 dominates all its readers (sink.c)
 *   renamed       kept, reading other values than before (what the
 *                 removals above left it, or a collapsed nested select)
 *   dce           gone, and none of the above: nothing used it
 * Instructions without a value (stores) are effects, which rake-opt never
 * removes or adds: one that differs reads renamed values (ex_opt_renamed).
 * The counts are of rewrites, not of the instructions they touch: one
 * contraction per add that became an fma. */
#include <string.h>

#include "arena.h"
#include "explore.h"
#include "nirproof.h"

typedef struct Fns {
    const RkFunc *b, *a;
    const RkInstr **bdef, **adef; /* by value id */
    const RkBlock **bblock;       /* the block of each of b's instructions */
    const RkBlock **ablock;       /* and of a's */
    OptWhy *w;
} Fns;

static const RkInstr **defs(const RkFunc *f, const RkBlock ***blocks)
{
    const RkInstr **d = rk_arena_alloc(&rk_heap, sizeof *d * (size_t)(f->nvalues + 1));
    if (blocks)
        *blocks = rk_arena_alloc(&rk_heap, sizeof **blocks * (size_t)(f->nvalues + 1));
    for (int i = 0; i < f->nblocks; i++)
        for (int j = 0; j < f->blocks[i]->ninstrs; j++) {
            const RkInstr *in = f->blocks[i]->instrs[j];
            if (in->id >= 0 && in->id < f->nvalues) {
                d[in->id] = in;
                if (blocks)
                    (*blocks)[in->id] = f->blocks[i];
            }
        }
    return d;
}

static const RkInstr *def(const RkInstr **d, const RkFunc *f, int id)
{
    return f && id >= 0 && id < f->nvalues ? d[id] : NULL;
}

/* An earlier instruction of x's block, kept by rake-opt, that x equals
 * (or, for a constant, has the same value as). */
static const RkInstr *earlier_twin(const Fns *s, const RkInstr *x)
{
    const RkBlock *blk = s->bblock[x->id];
    for (int j = 0; j < blk->ninstrs && blk->instrs[j] != x; j++) {
        const RkInstr *o = blk->instrs[j];
        if (o->id < 0 || !def(s->adef, s->a, o->id))
            continue;
        if (rk_nir_is_constant(x) ? rk_nir_same_constant(o, x)
                                  : rk_nir_instr_merges(o, x))
            return o;
    }
    return NULL;
}

/* The add of b that became a rack.fma and read x (directly, or x through
 * a benign select, or x is that select). */
static const RkInstr *fma_of(const Fns *s, const RkInstr *x)
{
    for (int id = 0; id < s->b->nvalues; id++) {
        const RkInstr *y = s->bdef[id], *ya = def(s->adef, s->a, id);
        if (!y || !ya || y->opc != RK_OP_RACK_ADD || ya->opc != RK_OP_RACK_FMA)
            continue;
        for (int k = 0; k < y->nargs; k++) {
            const RkInstr *arg = def(s->bdef, s->b, y->args[k]);
            if (y->args[k] == x->id ||
                (arg && arg->benign && arg->opc == RK_OP_MASK_SELECT && arg->nargs == 3 && arg->args[1] == x->id))
                return y;
        }
    }
    return NULL;
}

/* The comparison of b that read benign select x and reads x's operand raw
 * after rake-opt (x NULL: any), with the operand index in *k; or NULL. */
static const RkInstr *proven_reader(const Fns *s, const RkInstr *x, const RkInstr *y, int *k)
{
    const RkInstr *ya = y ? def(s->adef, s->a, y->id) : NULL;
    if (!ya || !y->sanitized || !rk_nir_op_quiet_on_normal(y->opc) || ya->nargs != y->nargs)
        return NULL;
    for (*k = 0; *k < y->nargs; (*k)++) {
        const RkInstr *arg = def(s->bdef, s->b, y->args[*k]);
        if (arg && (!x || arg == x) && arg->benign && arg->opc == RK_OP_MASK_SELECT &&
            arg->nargs == 3 && ya->args[*k] == arg->args[1])
            return y;
    }
    return NULL;
}

static const RkInstr *proven_of(const Fns *s, const RkInstr *x)
{
    int k;
    for (int id = 0; x->benign && id < s->b->nvalues; id++)
        if (proven_reader(s, x, s->bdef[id], &k))
            return s->bdef[id];
    return NULL;
}

/* counted: the instruction is the rewrite itself (an add that became an
 * fma), not one of its consequences (the multiply it absorbed) */
static void set(const char **slot, const char *cat, const char *words, OptWhy *w, bool counted)
{
    *slot = rk_arena_printf(&rk_heap, "%s: %s", cat, words);
    if (!counted)
        return;
    json_t *c = json_object_get(w->counts, cat);
    json_object_set_new(w->counts, cat, json_integer(c ? json_integer_value(c) + 1 : 1));
}

static bool block_kept(const RkFunc *f, int id)
{
    for (int i = 0; i < f->nblocks; i++)
        if (f->blocks[i]->id == id)
            return true;
    return false;
}

static void removed(const Fns *s, const RkInstr *x)
{
    const char **slot = &s->w->before[x->id];
    const RkInstr *t, *y;
    if (!block_kept(s->a, s->bblock[x->id]->id))
        set(slot, "unreached",
            rk_arena_printf(&rk_heap, "b%d is no longer reached: a branch before it is decided",
                            s->bblock[x->id]->id),
            s->w, true);
    else if (x->opc == RK_OP_COPY && x->nargs == 1)
        set(slot, "substitution", rk_arena_printf(&rk_heap, "a copy; its uses read %%%d", x->args[0]), s->w, true);
    else if ((y = fma_of(s, x)))
        set(slot, "contraction", rk_arena_printf(&rk_heap, "folded into %%%d's rack.fma", y->id), s->w, false);
    else if ((y = proven_of(s, x)))
        set(slot, "proven", rk_arena_printf(&rk_heap, "%%%d reads %%%d raw", y->id, x->args[1]), s->w, false);
    else if ((t = earlier_twin(s, x)) && rk_nir_is_constant(x))
        set(slot, "substitution", rk_arena_printf(&rk_heap, "the same constant as %%%d", t->id), s->w, true);
    else if (t)
        set(slot, "cse", rk_arena_printf(&rk_heap, "the same as %%%d, which is kept", t->id), s->w, true);
    else
        set(slot, "dce", "nothing used it", s->w, true);
}

static void rewritten(const Fns *s, const RkInstr *x, const RkInstr *xa)
{
    const char **slot = &s->w->before[x->id];
    int k;
    if (x->opc == RK_OP_RACK_ADD && xa->opc == RK_OP_RACK_FMA)
        set(slot, "contraction", "the add and its multiply became one rack.fma", s->w, true);
    else if (proven_reader(s, NULL, x, &k))
        set(slot, "proven",
            rk_arena_printf(&rk_heap, "reads %%%d raw: the lanes outside its mask hold normal "
                                      "numbers (an earlier comparison took them)",
                            xa->args[k]),
            s->w, true);
    else if (rk_nir_is_constant(xa) && !rk_nir_is_constant(x))
        set(slot, "folded",
            "became a constant: its operands are constants, or the branches before it decide it",
            s->w, true);
    else if (x->opc == xa->opc)
        set(slot, "renamed", "reads other values after the removals", s->w, true);
    else
        set(slot, "rewritten", rk_arena_printf(&rk_heap, "%s became %s", x->op, xa->op), s->w, true);
    s->w->after[x->id] = s->w->before[x->id];
}

/* The same instruction, moved to a later block (sink.c). */
static void sunk(const Fns *s, const RkInstr *x, int to)
{
    set(&s->w->before[x->id], "sunk",
        rk_arena_printf(&rk_heap, "moved to b%d, the block that dominates all its readers (sinking)", to),
        s->w, true);
    s->w->after[x->id] = s->w->before[x->id];
}

/* An instruction only the optimised function has. */
static void added(const Fns *s, const RkInstr *xa)
{
    const char **slot = &s->w->after[xa->id];
    if (xa->opc == RK_OP_RACK_BITCAST)
        set(slot, "conversion", "small unsigned lanes converted to f32 as signed i32", s->w, true);
    else if (xa->benign)
        set(slot, "contraction", "a benign operand of the contracted rack.fma", s->w, false);
    else
        set(slot, "added", "new in rake-opt's output", s->w, true);
}

static bool differs(const RkInstr *x, const RkInstr *y)
{
    return !rk_nir_instr_same(x, y);
}

OptWhy ex_opt_why(const RkFunc *before, const RkFunc *after)
{
    OptWhy w = {NULL, NULL, json_object()};
    if (!before || !after)
        return w;
    w.before = rk_arena_alloc(&rk_heap, sizeof(char *) * (size_t)(before->nvalues + 1));
    w.after = rk_arena_alloc(&rk_heap, sizeof(char *) * (size_t)(after->nvalues + 1));
    Fns s = {before, after, NULL, NULL, NULL, NULL, &w};
    s.bdef = defs(before, &s.bblock);
    s.adef = defs(after, &s.ablock);
    for (int id = 0; id < before->nvalues; id++) {
        const RkInstr *x = s.bdef[id], *xa = def(s.adef, after, id);
        if (x && !xa)
            removed(&s, x);
        else if (x && xa && differs(x, xa))
            rewritten(&s, x, xa);
        else if (x && xa && s.bblock[id]->id != s.ablock[id]->id)
            sunk(&s, x, s.ablock[id]->id);
    }
    for (int id = 0; id < after->nvalues; id++)
        if (s.adef[id] && !def(s.bdef, before, id))
            added(&s, s.adef[id]);
    return w;
}

/* A changed instruction without a value: an effect whose operands were
 * renamed; counted once, on the side rake-opt wrote. */
const char *ex_opt_renamed(OptWhy *w, bool after)
{
    const char *why = NULL;
    set(&why, "renamed", "an effect, kept, reading other values after the removals", w, after);
    return why;
}

/* domcse.c: uniform arithmetic computed again in a dominated block.
 *
 * Common-subexpression elimination in a block (main.c) leaves what a
 * general run's checked loop does per access: `x[<i> + <8>]` computes
 * i + 8 (and its widening) in the block that checks x's bounds, and
 * `y[<i> + <8>]` computes it again in the next check's block, which the
 * first dominates.  Here an instruction equal to one in a block that
 * dominates its own (same operation, type, operands and attributes:
 * rk_nir_instr_same_value) is replaced by that one.
 *
 * Only opt_uniform_arith's instructions merge: pure integer, Boolean and
 * pointer arithmetic that neither traps nor raises a flag, so running the
 * first in place of both changes nothing but the count.  And only where
 * the two blocks lie in the same loops: merging into a block outside a
 * loop would keep a general register through every iteration (a loop
 * invariant hoisted; Rake never spills, and a run's loop may need every
 * register), and a block inside a loop the other isn't in doesn't
 * dominate anything outside it anyway.  And only a few steps down the
 * dominator tree (NEAR): a straight-line run of a hundred checked
 * statements repeating `<k> * <5>` every seventh one kept each such
 * product in a register from its first statement to its last, and needed
 * more than x86's fourteen general registers, where computing it again
 * per statement fits.  A check and the next access's check, or a load's
 * check and its store's, are a step or two apart.
 *
 * Every block has its own constants (rake-lower's, kept so: a register
 * per block), so constant operands compare by type and value: i + 8 in
 * one block and i + 8 in the next add two different `const` values.
 *
 * Blocks are visited in reverse postorder, so a dominating block's
 * instructions are seen first; instructions are found by a hash of their
 * operation and operands, so the pass is linear in the function. */
#include <stdlib.h>

#include "opt.h"
#include "types.h"

typedef struct Seen {
    RkInstr *in;
    int block;
} Seen;

/* How far down the dominator tree an instruction may find its equal. */
enum { NEAR = 4 };

typedef struct Table {
    Seen *slot;       /* open addressing */
    size_t cap;       /* a power of two, at least twice the entries */
    RkInstr **konst;  /* the first constant met of each type and value */
    Fn *x;
    int *depth;       /* per block: its depth in the dominator tree */
} Table;

/* The first constant with v's type and value, if v is a constant. */
static int canon(Table *t, int v)
{
    RkInstr *c = opt_const_def(t->x, v);
    if (!c)
        return v;
    size_t i = (size_t)(c->bits * 0x9e3779b97f4a7c15u) & (t->cap - 1);
    for (; t->konst[i]; i = (i + 1) & (t->cap - 1))
        if (t->konst[i]->bits == c->bits && rk_ty_equal(t->konst[i]->type, c->type))
            return t->konst[i]->id;
    t->konst[i] = c;
    return v;
}

/* in with its constant operands canonical, in *tmp (args in buf). */
static const RkInstr *canonical(Table *t, const RkInstr *in, RkInstr *tmp, int *buf)
{
    *tmp = *in;
    for (int k = 0; k < in->nargs; k++)
        buf[k] = canon(t, in->args[k]);
    tmp->args = buf;
    return tmp;
}

static size_t hash(const RkInstr *in)
{
    size_t h = (size_t)in->opc * 1000003u ^ (size_t)in->nargs;
    for (int k = 0; k < in->nargs; k++)
        h = (h ^ (size_t)(unsigned)in->args[k]) * 0x100000001b3u;
    return h ^ (size_t)in->bits ^ (size_t)in->imm;
}

/* A dominating equal instruction in the same loops, or NULL; else in is
 * entered (with its block) for the blocks after it. */
static RkInstr *find_or_add(Table *t, const OptCfg *g, RkInstr *in, int b)
{
    if (in->nargs > 3)
        return NULL; /* uniform arithmetic takes at most three */
    RkInstr ta, tb;
    int ba[3], bb[3];
    const RkInstr *a = canonical(t, in, &ta, ba);
    size_t i = hash(a) & (t->cap - 1);
    for (; t->slot[i].in; i = (i + 1) & (t->cap - 1)) {
        const Seen *s = &t->slot[i];
        if (rk_nir_instr_same_value(canonical(t, s->in, &tb, bb), a) &&
            opt_cfg_dominates(g, s->block, b) && t->depth[b] - t->depth[s->block] <= NEAR &&
            opt_cfg_loops_within(g, s->block, b) && opt_cfg_loops_within(g, b, s->block))
            return s->in;
    }
    t->slot[i] = (Seen){in, b};
    return NULL;
}

static void rename_value(int *v, const int *repl)
{
    if (*v >= 0 && repl[*v] >= 0)
        *v = repl[*v];
}

/* Every use through repl (value -> its replacement, -1: itself), in one
 * pass: replacing each value by a scan of the function is quadratic. */
static void rename_all(RkFunc *f, const int *repl)
{
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            for (int k = 0; k < b->instrs[j]->nargs; k++)
                rename_value(&b->instrs[j]->args[k], repl);
            rename_value(&b->instrs[j]->through, repl);
        }
        RkTerm *t = &b->term;
        if (t->kind == RK_TERM_RET || t->kind == RK_TERM_CBR)
            rename_value(&t->value, repl);
        for (int k = 0; k < t->to.nargs; k++)
            rename_value(&t->to.args[k], repl);
        for (int k = 0; k < t->alt.nargs; k++)
            rename_value(&t->alt.args[k], repl);
    }
}

bool opt_dom_cse(Fn *x)
{
    RkFunc *f = x->f;
    if (f->nblocks < 2)
        return false;
    OptCfg g;
    opt_cfg_build(&g, f);
    opt_cfg_find_loops(&g);
    size_t n = 0;
    for (int i = 0; i < f->nblocks; i++)
        n += (size_t)f->blocks[i]->ninstrs;
    Table t = {NULL, 16, NULL, x, calloc((size_t)f->nblocks + 1, sizeof(int))};
    for (int r = 1; r < g.dom.nrpo; r++) /* an idom comes first in reverse postorder */
        t.depth[g.dom.rpo[r]] = t.depth[g.dom.idom[g.dom.rpo[r]]] + 1;
    while (t.cap < 2 * n + 2)
        t.cap *= 2;
    t.slot = calloc(t.cap, sizeof *t.slot);
    t.konst = calloc(t.cap, sizeof *t.konst);
    int *repl = malloc(sizeof(int) * ((size_t)f->nvalues + 1));
    if (!t.slot || !t.konst || !repl || !t.depth)
        rk_diag_internal("out of memory for dominator CSE");
    for (int v = 0; v < f->nvalues; v++)
        repl[v] = -1;
    bool changed = false;
    for (int r = 0; r < g.dom.nrpo; r++) {
        int b = g.dom.rpo[r];
        RkBlock *blk = f->blocks[b];
        for (int j = 0; j < blk->ninstrs; j++) {
            RkInstr *in = blk->instrs[j];
            /* operands defined earlier in reverse postorder are renamed
             * already, so a chain (i + 8, then its widening) merges whole */
            for (int k = 0; k < in->nargs; k++)
                rename_value(&in->args[k], repl);
            rename_value(&in->through, repl);
            if (!opt_uniform_arith(x, in))
                continue;
            RkInstr *o = find_or_add(&t, &g, in, b);
            if (o && o != in) {
                repl[in->id] = o->id;
                x->uses[in->id] = 0;
                changed = true;
            }
        }
    }
    if (changed)
        rename_all(f, repl);
    free(t.slot);
    free(t.konst);
    free(t.depth);
    free(repl);
    opt_cfg_free(&g);
    return changed;
}

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

/* How far down the dominator tree an instruction may find its equal. */
enum { NEAR = 4 };

typedef struct Dcse {
    Fn *x;
    OptCfg g;
    OptSeen seen;     /* the instructions met, by canonical operands */
    RkInstr **konst;  /* the first constant met of each type and value */
    size_t kcap;
    int *depth;       /* per block: its depth in the dominator tree */
    /* the instruction being looked up, canonical, and its block */
    const RkInstr *want;
    int block;
} Dcse;

/* The first constant with v's type and value, if v is a constant. */
static int canon(Dcse *d, int v)
{
    RkInstr *c = opt_const_def(d->x, v);
    if (!c)
        return v;
    size_t i = (size_t)(c->bits * 0x9e3779b97f4a7c15u) & (d->kcap - 1);
    for (; d->konst[i]; i = (i + 1) & (d->kcap - 1))
        if (rk_nir_same_constant(d->konst[i], c))
            return d->konst[i]->id;
    d->konst[i] = c;
    return v;
}

/* in with its constant operands canonical, in *tmp (args in buf). */
static const RkInstr *canonical(Dcse *d, const RkInstr *in, RkInstr *tmp, int *buf)
{
    *tmp = *in;
    for (int k = 0; k < in->nargs; k++)
        buf[k] = canon(d, in->args[k]);
    tmp->args = buf;
    return tmp;
}

/* An equal instruction in a block that dominates d->block, near it and
 * in the same loops. */
static bool dominating_equal(const struct OptSeenSlot *e, void *ctx)
{
    Dcse *d = ctx;
    RkInstr tmp;
    int buf[3];
    return rk_nir_instr_same_value(canonical(d, e->in, &tmp, buf), d->want) &&
           opt_cfg_dominates(&d->g, e->block, d->block) &&
           d->depth[d->block] - d->depth[e->block] <= NEAR &&
           opt_cfg_loops_within(&d->g, e->block, d->block) &&
           opt_cfg_loops_within(&d->g, d->block, e->block);
}

/* A dominating equal instruction, or NULL; else in is entered (with its
 * block) for the blocks after it. */
static RkInstr *find_or_add(Dcse *d, RkInstr *in, int b)
{
    if (in->nargs > 3)
        return NULL; /* uniform arithmetic takes at most three */
    RkInstr tmp;
    int buf[3];
    d->want = canonical(d, in, &tmp, buf);
    d->block = b;
    size_t h = opt_instr_hash(d->want, d->want->args);
    RkInstr *o = opt_seen_find(&d->seen, h, dominating_equal, d);
    if (!o)
        opt_seen_add(&d->seen, h, in, b);
    return o;
}

bool opt_dom_cse(Fn *x)
{
    RkFunc *f = x->f;
    if (f->nblocks < 2)
        return false;
    Dcse d = {.x = x};
    opt_cfg_build(&d.g, f);
    opt_cfg_find_loops(&d.g);
    size_t n = 0;
    for (int i = 0; i < f->nblocks; i++)
        n += (size_t)f->blocks[i]->ninstrs;
    opt_seen_init(&d.seen, n);
    d.kcap = d.seen.cap;
    d.konst = calloc(d.kcap, sizeof *d.konst);
    d.depth = calloc((size_t)f->nblocks + 1, sizeof(int));
    if (!d.konst || !d.depth)
        rk_diag_internal("out of memory for dominator CSE");
    for (int r = 1; r < d.g.dom.nrpo; r++) /* an idom comes first in reverse postorder */
        d.depth[d.g.dom.rpo[r]] = d.depth[d.g.dom.idom[d.g.dom.rpo[r]]] + 1;
    bool changed = false;
    for (int r = 0; r < d.g.dom.nrpo; r++) {
        int b = d.g.dom.rpo[r];
        RkBlock *blk = f->blocks[b];
        for (int j = 0; j < blk->ninstrs; j++) {
            RkInstr *in = blk->instrs[j];
            /* operands defined earlier in reverse postorder are renamed
             * already, so a chain (i + 8, then its widening) merges whole */
            opt_rename_operands(x, in);
            if (!opt_uniform_arith(x, in))
                continue;
            RkInstr *o = find_or_add(&d, in, b);
            if (o && o != in) {
                opt_replace_uses(x, in->id, o->id);
                x->uses[in->id] = 0;
                changed = true;
            }
        }
    }
    opt_seen_free(&d.seen);
    free(d.konst);
    free(d.depth);
    opt_cfg_free(&d.g);
    return changed;
}

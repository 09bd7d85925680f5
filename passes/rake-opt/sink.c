/* sink.c: uniform values moved past the loops they take no part in.
 *
 * rake-lower computes a stack run's bounds in its entry block: the
 * full-rack loop's, and those of the single-rack loop and the tail,
 * which only the blocks after the first loop read.  Left there, each
 * such value holds a general register through every iteration of a loop
 * that never reads it, and a run of fourteen columns then reloads column
 * pointers from the descriptor inside that loop.
 *
 * A pure uniform instruction whose readers all lie in blocks dominated by
 * a later block S moves to the start of S: S is the nearest common
 * dominator of its readers' blocks (a branch argument is read in the
 * block that branches), raised towards the instruction's block until no
 * loop holds S that doesn't hold the instruction (so it never runs more
 * often than before).  S may also be an arm of a branch (a view's count
 * that only a general run's checked loop reads).  Only arithmetic that can neither trap nor raise a
 * floating-point flag moves: u.add, u.sub, u.mul, u.and, u.or, u.neg,
 * u.not, the u.cmp.*, u.select and u.cvt, on integer, Boolean and
 * pointer values; constants stay (each block has its own), and so do
 * fused and masked instructions.  One scan moves what the readers known
 * before it allow, and the caller repeats it: an instruction read by one
 * that moves follows it the next time. */
#include <stdlib.h>
#include <string.h>

#include "nirops.h"
#include "opt.h"
#include "types.h"

typedef struct Sink {
    Fn *x;
    OptCfg g;
    int *reader;   /* per value: the nearest common dominator of its readers, -1 none */
} Sink;

static void read_in(int *value, int b, void *ctx)
{
    Sink *k = ctx;
    int v = *value;
    if (v < 0 || v >= k->x->f->nvalues || k->g.dom.order[b] < 0)
        return;
    k->reader[v] = k->reader[v] < 0 ? b : opt_cfg_nca(&k->g, k->reader[v], b);
}

static void find_readers(Sink *k)
{
    RkFunc *f = k->x->f;
    k->reader = malloc(sizeof(int) * (size_t)(f->nvalues + 1));
    if (!k->reader)
        rk_diag_internal("out of memory for sinking");
    for (int i = 0; i < f->nvalues; i++)
        k->reader[i] = -1;
    opt_each_use(f, read_in, k);
}

static bool sink_block(Sink *k, int b)
{
    RkBlock *blk = k->x->f->blocks[b];
    bool changed = false;
    for (int j = blk->ninstrs - 1; j >= 0; j--) {
        RkInstr *in = blk->instrs[j];
        if (!opt_uniform_arith(k->x, in) || k->reader[in->id] < 0)
            continue;
        int s = k->reader[in->id];
        while (s != b && !opt_cfg_loops_within(&k->g, s, b))
            s = k->g.dom.idom[s];
        if (s == b || !opt_cfg_dominates(&k->g, b, s))
            continue;
        memmove(&blk->instrs[j], &blk->instrs[j + 1], sizeof(RkInstr *) * (size_t)(blk->ninstrs - j - 1));
        blk->ninstrs--;
        rk_nir_insert(k->x->f->blocks[s], 0, in);
        changed = true;
    }
    return changed;
}

bool opt_sink(Fn *x)
{
    if (x->f->nblocks == 0)
        return false;
    Sink k = {.x = x};
    opt_cfg_build(&k.g, x->f);
    opt_cfg_find_loops(&k.g);
    find_readers(&k);
    bool changed = false;
    for (int i = 0; i < k.g.dom.nrpo; i++)
        changed |= sink_block(&k, k.g.dom.rpo[i]);
    free(k.reader);
    opt_cfg_free(&k.g);
    return changed;
}

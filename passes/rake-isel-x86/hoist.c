/* hoist.c: loop-invariant constants leave their loops.
 *
 * The sequences load a constant where a native-IR block first needs it,
 * and a new machine block forgets it (run.c, forget_constants): a load in
 * one guarded lane's block doesn't dominate the next.  Inside a loop that
 * means a load every iteration, and once fold.c has made it a memory
 * operand (`vpaddd .LC(%rip), %zmm1, %zmm1{%k1}`), a full-width read of
 * the pool per use per iteration: AVX-512 `count` read 64 bytes of 1s
 * twice an iteration beside its two key loads, half its rate on Zen 4.
 * clang keeps such a constant in a register from before the loop.
 *
 * So after a run is selected, every constant load in a block on a cycle
 * (and every `leaq` of a pool entry's address: AVX2 compaction's table)
 * of the control-flow graph moves to the end of the entry block, which
 * dominates every block; loads of the same pool entry by the same
 * instruction at the same width become one, its readers renamed.  A load
 * moves only if nothing else writes its register (a destructive two-
 * operand instruction may rewrite a loaded copy: that copy must be loaded
 * where it is).  fold.c then keeps a constant that a loop reads in its
 * register instead of folding it into each reader.
 *
 * The constants now live across the loop, so they hold registers the
 * loop's values might need.  Rake never spills: when the allocator runs
 * out, it gives such a constant back, loading it again right before each
 * reader (rake-ra, scan.c), which is what the loop did before. */
#include <string.h>

#include "arena.h"
#include "isel.h"

/* Blocks on a cycle of the CFG, by Tarjan's strongly connected
 * components (linear in blocks and edges): a block is on one when its
 * component has another block or an edge to itself. */
typedef struct Scc {
    const RkMFunc *mf;
    int *index, *low, *stack, n, next;
    bool *on_stack, *loop;
} Scc;

static void connect(Scc *g, int b)
{
    g->index[b] = g->low[b] = g->next++;
    g->stack[g->n++] = b;
    g->on_stack[b] = true;
    const RkMTerm *t = &g->mf->blocks[b]->term;
    for (int k = 0; k < rk_mir_nsuccs(t); k++) {
        int s = rk_mir_succ(t, k);
        if (s == b)
            g->loop[b] = true;
        if (g->index[s] < 0) {
            connect(g, s);
            if (g->low[s] < g->low[b])
                g->low[b] = g->low[s];
        } else if (g->on_stack[s] && g->index[s] < g->low[b]) {
            g->low[b] = g->index[s];
        }
    }
    if (g->low[b] != g->index[b])
        return;
    int first = g->n;
    do
        g->on_stack[g->stack[--first]] = false;
    while (g->stack[first] != b);
    for (int k = first; g->n - first > 1 && k < g->n; k++)
        g->loop[g->stack[k]] = true;
    g->n = first;
}

bool *loop_blocks(const RkMFunc *mf)
{
    size_t n = (size_t)mf->nblocks + 1, ints = sizeof(int) * n, bools = sizeof(bool) * n;
    Scc g = {mf, rk_arena_alloc(&rk_heap, ints), rk_arena_alloc(&rk_heap, ints),
             rk_arena_alloc(&rk_heap, ints), 0, 0, rk_arena_alloc(&rk_heap, bools),
             rk_arena_alloc(&rk_heap, bools)};
    for (int b = 0; b < mf->nblocks; b++) {
        g.index[b] = -1;
        g.on_stack[b] = g.loop[b] = false;
    }
    for (int b = 0; b < mf->nblocks; b++)
        if (g.index[b] < 0)
            connect(&g, b);
    return g.loop;
}

/* A pool constant's load into a whole virtual register of class cls
 * (general registers: 64 bits), unmasked. */
static bool loads_whole(const RkMInstr *in, int cls)
{
    const RkMOp *d = &in->ops[0];
    return rk_mir_const_load(in) && d->kind == RK_MO_REG && d->reg.virt && d->reg.cls == cls &&
           d->mask.num < 0 && (!d->bits || (cls == RK_RC_GPR && d->bits == 64));
}

bool const_load(const RkMInstr *in) { return loads_whole(in, RK_RC_VEC); }

/* A vector constant's load, or a general register loaded with a pool
 * entry's address (`leaq .LC(%rip)`: AVX2 compaction's table of lane
 * orders). */
static bool hoistable(const RkMInstr *in)
{
    return loads_whole(in, RK_RC_VEC) || loads_whole(in, RK_RC_GPR);
}

/* The hoisted load this one repeats (same instruction, entry, width), or NULL. */
static const RkMInstr *same_load(const RkMBlock *entry, int from, const RkMInstr *in)
{
    for (int i = from; i < entry->ninstrs; i++) {
        const RkMInstr *h = &entry->instrs[i];
        if (!strcmp(h->op, in->op) && h->ops[1].imm == in->ops[1].imm &&
            h->ops[0].reg.cls == in->ops[0].reg.cls)
            return h;
    }
    return NULL;
}

void hoist_constants(RkMFunc *mf, const bool *loop)
{
    int *writes = rk_mir_write_counts(mf); /* vreg numbers are unique across classes */
    RkMBlock *entry = mf->blocks[0];
    int first = entry->ninstrs; /* the hoisted loads start here */
    for (int b = 1; b < mf->nblocks; b++) {
        RkMBlock *bl = mf->blocks[b];
        if (!loop[b])
            continue;
        int n = 0;
        for (int i = 0; i < bl->ninstrs; i++) {
            RkMInstr in = bl->instrs[i];
            if (!hoistable(&in) || writes[in.ops[0].reg.num] != 1) {
                bl->instrs[n++] = in;
                continue;
            }
            const RkMInstr *h = same_load(entry, first, &in);
            if (h)
                rk_mir_rename_all(mf, in.ops[0].reg.num, h->ops[0].reg.num);
            else
                rk_mir_insert(entry, entry->ninstrs, &in);
        }
        bl->ninstrs = n;
    }
}

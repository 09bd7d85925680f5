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

static int successors(const RkMBlock *b, int *s)
{
    if (b->term.kind == RK_MT_JUMP)
        return s[0] = b->term.then, 1;
    if (b->term.kind == RK_MT_BRANCH)
        return s[0] = b->term.then, s[1] = b->term.els, 2;
    return 0;
}

/* Whether block b can reach itself. */
static bool on_cycle(const RkMFunc *mf, int b, bool *seen, int *stack)
{
    memset(seen, 0, sizeof(bool) * (size_t)mf->nblocks);
    int n = 0, s[2];
    for (int k = successors(mf->blocks[b], s); k-- > 0;)
        if (!seen[s[k]])
            seen[s[k]] = true, stack[n++] = s[k];
    while (n) {
        int x = stack[--n];
        if (x == b)
            return true;
        for (int k = successors(mf->blocks[x], s); k-- > 0;)
            if (!seen[s[k]])
                seen[s[k]] = true, stack[n++] = s[k];
    }
    return false;
}

bool *loop_blocks(const RkMFunc *mf)
{
    bool *loop = rk_arena_alloc(&rk_heap, sizeof(bool) * (size_t)(mf->nblocks + 1));
    bool *seen = rk_arena_alloc(&rk_heap, sizeof(bool) * (size_t)(mf->nblocks + 1));
    int *stack = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(mf->nblocks + 1));
    for (int b = 0; b < mf->nblocks; b++)
        loop[b] = on_cycle(mf, b, seen, stack);
    return loop;
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

/* writes per vreg (their numbers are unique across classes) */
static void count_writes(const RkMInstr *in, int *writes)
{
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == RK_MO_REG && o->def && o->reg.virt)
            writes[o->reg.num]++;
    }
}

static void rename_all(RkMFunc *mf, int from, int to)
{
    for (int b = 0; b < mf->nblocks; b++) {
        RkMBlock *bl = mf->blocks[b];
        for (int i = 0; i < bl->ninstrs; i++)
            rk_mir_rename(&bl->instrs[i], from, to);
        rk_mir_rename_term(&bl->term, from, to);
    }
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
    int *writes = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(mf->nvregs + 1));
    memset(writes, 0, sizeof(int) * (size_t)(mf->nvregs + 1));
    for (int b = 0; b < mf->nblocks; b++)
        for (int i = 0; i < mf->blocks[b]->ninstrs; i++)
            count_writes(&mf->blocks[b]->instrs[i], writes);
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
                rename_all(mf, in.ops[0].reg.num, h->ops[0].reg.num);
            else
                rk_mir_insert(entry, entry->ninstrs, &in);
        }
        bl->ninstrs = n;
    }
}

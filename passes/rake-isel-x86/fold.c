/* fold.c: constants as memory operands.
 *
 * The sequences load each constant into a register once per kernel
 * (seq.c, load_const) and read that register wherever the constant is
 * needed.  x86 can read the last source of most vector instructions from
 * memory instead, and a compiler writing the kernel by hand (clang with
 * intrinsics, say) does exactly that: `vcmpltps .LC0(%rip), %ymm0, %ymm0`
 * rather than a broadcast and a compare.  So after a function is
 * selected, a constant whose every use is in such a position (the
 * instruction table's RK_I_MEMSRC fact; a commuting instruction may swap
 * its sources to put the constant there) is folded: each use reads a
 * full-width copy of the constant from the pool and the load disappears.
 * A constant with any other use (a shift count, a mask, the first source
 * of a subtraction) keeps its register, and so do all its uses: a load
 * is needed anyway, and a register read is never slower than memory.
 * A constant hoist.c moved out of a loop that reads it stays in its
 * register too: folded, the loop would read the pool every iteration.
 * Whether a reader allows a memory operand is lib/mirfold.c's to say;
 * rake-ra asks the same when it gives a constant back.
 *
 * The sequences' cheaper forms (a blend with zero is an and, a blend
 * under a complement swaps its arms) can leave a complement or a constant
 * nothing reads, so dead instructions go next: one that writes only
 * virtual registers no other instruction, jump or branch reads, and has
 * no other effect (flags, memory, calls).
 *
 * The pool then drops entries nothing reads, and renumbers the rest in
 * their first-use order, so the output stays deterministic.  Legacy SSE
 * encodings need their memory operands aligned; the pool aligns every
 * entry to its size (rake-emit), and full-width entries are 16, 32 or
 * 64 bytes. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "isel.h"

typedef struct Use {
    RkMInstr *in;
    int k;
} Use;

typedef struct Uses {
    Use *v;
    int n, cap;
} Uses;

static void add_use(Uses *u, RkMInstr *in, int k)
{
    if (u->n == u->cap) {
        int cap = u->cap ? 2 * u->cap : 8;
        Use *v = rk_arena_alloc(&rk_heap, sizeof *v * (size_t)cap);
        if (u->n)
            memcpy(v, u->v, sizeof *v * (size_t)u->n);
        u->v = v;
        u->cap = cap;
    }
    u->v[u->n++] = (Use){in, k};
}

/* Each vector vreg's instructions (each once, in block order), with
 * their block, and whether a block parameter or a terminator names it
 * (then its constant stays in a register).  Made once for every constant
 * load: scanning the function for each made a run with thousands of
 * constants quadratic. */
typedef struct Ref {
    RkMInstr *in;
    int b;
} Ref;

typedef struct VecUses {
    Ref **of;
    int *n, *cap;
    bool *pinned;
} VecUses;

static void add_ref(VecUses *x, int v, RkMInstr *in, int b)
{
    if (x->n[v] && x->of[v][x->n[v] - 1].in == in)
        return;
    if (x->n[v] == x->cap[v]) {
        int cap = x->cap[v] ? 2 * x->cap[v] : 4;
        Ref *r = rk_arena_alloc(&rk_heap, sizeof *r * (size_t)cap);
        if (x->n[v])
            memcpy(r, x->of[v], sizeof *r * (size_t)x->n[v]);
        x->of[v] = r;
        x->cap[v] = cap;
    }
    x->of[v][x->n[v]++] = (Ref){in, b};
}

static void pin(VecUses *x, const RkMFunc *mf, const RkMReg *r)
{
    if (r->virt && r->num >= 0 && r->num < mf->nvregs)
        x->pinned[r->num] = true;
}

static VecUses index_uses(RkMFunc *mf)
{
    int n = mf->nvregs + 1;
    VecUses x = {rk_arena_alloc(&rk_heap, sizeof(Ref *) * (size_t)n),
                 rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n),
                 rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n),
                 rk_arena_alloc(&rk_heap, sizeof(bool) * (size_t)n)};
    memset(x.n, 0, sizeof(int) * (size_t)n);
    memset(x.cap, 0, sizeof(int) * (size_t)n);
    memset(x.pinned, 0, sizeof(bool) * (size_t)n);
    for (int b = 0; b < mf->nblocks; b++) {
        RkMBlock *bl = mf->blocks[b];
        for (int j = 0; j < bl->nparams; j++)
            pin(&x, mf, &bl->params[j]);
        for (int i = 0; i < bl->ninstrs; i++)
            for (int k = 0; k < bl->instrs[i].nops; k++) {
                const RkMOp *o = &bl->instrs[i].ops[k];
                if (o->kind == RK_MO_REG && o->reg.virt && o->reg.cls == RK_RC_VEC &&
                    o->reg.num >= 0 && o->reg.num < mf->nvregs)
                    add_ref(&x, o->reg.num, &bl->instrs[i], b);
            }
        for (int j = 0; j < bl->term.nargs; j++)
            pin(&x, mf, &bl->term.args[j]);
        if (bl->term.on_reg && bl->term.reg.kind == RK_MO_REG && bl->term.reg.reg.cls == RK_RC_VEC)
            pin(&x, mf, &bl->term.reg.reg);
    }
    return x;
}

/* loop: the blocks on a cycle (hoist.c; NULL: a kernel, no loops);
 * in_loop: whether the load's is */
static void fold_one(RkMFunc *mf, const RkTarget *t, RkMInstr *load, int bytes,
                     const bool *loop, bool in_loop, const VecUses *x)
{
    int v = load->ops[0].reg.num, c = (int)load->ops[1].imm;
    if (v < 0 || v >= mf->nvregs || x->pinned[v])
        return;
    Uses u = {0};
    for (int r = 0; r < x->n[v]; r++) {
        RkMInstr *in = x->of[v][r].in;
        for (int k = 0; in != load && k < in->nops; k++)
            if (rk_mir_is_vreg(&in->ops[k], RK_RC_VEC, v)) {
                if (loop && loop[x->of[v][r].b] && !in_loop)
                    return; /* hoisted out of a loop that reads it: keep the register */
                add_use(&u, in, k);
            }
    }
    if (!u.n)
        return;
    for (int i = 0; i < u.n; i++)
        if (!rk_mir_foldable(t, u.v[i].in, &u.v[i].k, v))
            return; /* (a swap already made is harmless: the sources commute) */
    int full = rk_mir_const_wide(mf, c, bytes);
    if (full < 0)
        return;
    for (int i = 0; i < u.n; i++)
        u.v[i].in->ops[u.v[i].k] = rk_mc(full);
    load->op = NULL; /* removed below */
}

void drop_removed(RkMFunc *mf)
{
    for (int b = 0; b < mf->nblocks; b++) {
        RkMBlock *bl = mf->blocks[b];
        int n = 0;
        for (int i = 0; i < bl->ninstrs; i++)
            if (bl->instrs[i].op)
                bl->instrs[n++] = bl->instrs[i];
        bl->ninstrs = n;
    }
}

static bool has_effect(const RkTarget *t, const RkMInstr *in)
{
    const RkInsnDesc *d = rk_target_insn(t, in->op);
    if (!d || (d->flags & (RK_I_FLAGS | RK_I_SLOW | RK_I_CALL | RK_I_STACK | RK_I_BRANCH)))
        return true;
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->def && (o->kind != RK_MO_REG || !o->reg.virt))
            return true;
    }
    return false;
}

/* Add d (+1 or -1) to the read count of every virtual register in reads. */
static void count_vreg(int *reads, const RkMReg *r, int d)
{
    if (r->virt && r->num >= 0)
        reads[r->num] += d;
}

static void count_instr(int *reads, const RkMInstr *in, int d)
{
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == RK_MO_REG && o->use)
            count_vreg(reads, &o->reg, d);
        if (o->kind == RK_MO_MEM) {
            count_vreg(reads, &o->reg, d);
            count_vreg(reads, &o->index, d);
        }
        if (o->mask.num >= 0)
            count_vreg(reads, &o->mask, d);
    }
}

/* How many times each virtual register is read: by instructions, jumps'
 * arguments and register branches. */
int *read_counts(const RkMFunc *mf)
{
    int *reads = calloc((size_t)mf->nvregs + 1, sizeof *reads);
    if (!reads)
        rk_diag_internal("out of memory counting %d registers", mf->nvregs);
    for (int b = 0; b < mf->nblocks; b++) {
        const RkMBlock *bl = mf->blocks[b];
        for (int i = 0; i < bl->ninstrs; i++)
            count_instr(reads, &bl->instrs[i], 1);
        for (int j = 0; j < bl->term.nargs; j++)
            count_vreg(reads, &bl->term.args[j], 1);
        if (bl->term.on_reg)
            count_vreg(reads, &bl->term.reg.reg, 1);
    }
    return reads;
}

/* Dead: no effect, and nothing but itself reads what it writes (an `x`
 * operand reads its own destination). */
static bool dead(const RkTarget *t, int *reads, const RkMInstr *in)
{
    if (has_effect(t, in))
        return false;
    count_instr(reads, in, -1);
    bool writes = false, unread = true;
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == RK_MO_REG && o->def) {
            writes = true;
            unread &= reads[o->reg.num] == 0;
        }
    }
    if (!(writes && unread))
        count_instr(reads, in, 1);
    return writes && unread;
}

/* Backwards through each block, so a chain of dead instructions goes in
 * one sweep; sweeps repeat until one removes nothing (a value read only
 * by a later block's dead instruction). */
void prune_dead(RkMFunc *mf, const RkTarget *t)
{
    for (bool again = true; again;) {
        again = false;
        int *reads = read_counts(mf);
        for (int b = mf->nblocks - 1; b >= 0; b--)
            for (int i = mf->blocks[b]->ninstrs - 1; i >= 0; i--) {
                RkMInstr *in = &mf->blocks[b]->instrs[i];
                if (in->op && dead(t, reads, in)) {
                    /* the verifier counts the object's fused multiply-adds */
                    if (rk_target_insn_is(t, in->op, RK_I_FMA))
                        mf->fmas--;
                    in->op = NULL;
                    again = true;
                }
            }
        free(reads);
        drop_removed(mf);
    }
}

/* --- column loads ------------------------------------------------------------ */

/* An unaligned full-width load (the table's copy that may fault: movups,
 * vmovups) into a virtual vector register. */
static bool column_load(const RkTarget *t, const RkMInstr *in)
{
    return rk_target_insn_is(t, in->op, RK_I_COPY | RK_I_FAULT) && in->nops == 2 &&
           in->ops[0].kind == RK_MO_REG && in->ops[0].reg.virt &&
           in->ops[0].reg.cls == RK_RC_VEC && !in->ops[0].bits &&
           (in->ops[0].mask.num < 0 || in->ops[0].zero) && in->ops[1].kind == RK_MO_MEM &&
           in->ops[1].mask.num < 0;
}

static bool writes_memory(const RkTarget *t, const RkMInstr *in)
{
    const RkInsnDesc *d = in->op ? rk_target_insn(t, in->op) : NULL;
    if (!d || (d->flags & (RK_I_SLOW | RK_I_CALL)))
        return true;
    for (int k = 0; k < in->nops; k++)
        if (in->ops[k].kind == RK_MO_MEM && in->ops[k].def)
            return true;
    return false;
}

/* A load under a mask (a tail's, zeroing the other lanes) folds only into
 * a reader written under the same k register: an EVEX instruction with a
 * write mask reads no memory for the lanes outside it (AVX-512's memory
 * fault suppression), so the records past the stack's end stay
 * untouched, and those lanes of the result are the reader's own, not
 * computed from the load's zeros.  An unmasked load folds anywhere. */
static bool under_same_mask(const RkMInstr *load, const RkMInstr *in)
{
    const RkMReg *k = &load->ops[0].mask;
    return k->num < 0 || (in->nops > 0 && in->ops[0].kind == RK_MO_REG &&
                          in->ops[0].mask.num == k->num && in->ops[0].mask.virt == k->virt);
}

/* The load at bl->instrs[i] into the reader of its register, when that
 * is the one later instruction of the block reading it, nothing between
 * them writes memory, and the reader takes memory there. */
static void fold_load(const RkTarget *t, RkMBlock *bl, int i, const int *reads)
{
    RkMInstr *load = &bl->instrs[i];
    int v = load->ops[0].reg.num;
    if (reads[v] != 1)
        return;
    for (int j = i + 1; j < bl->ninstrs; j++) {
        RkMInstr *in = &bl->instrs[j];
        for (int k = 0; k < in->nops; k++) {
            if (!rk_mir_is_vreg(&in->ops[k], RK_RC_VEC, v) || in->ops[k].def)
                continue;
            /* a copy's memory form is an aligned move (vmovaps: right for
             * the constant pool, which is aligned; a column is not) */
            if (rk_target_insn_is(t, in->op, RK_I_COPY) || !under_same_mask(load, in) ||
                !rk_mir_foldable(t, in, &k, v))
                return;
            in->ops[k] = load->ops[1];
            load->op = NULL;
            return;
        }
        if (writes_memory(t, in))
            return;
    }
}

/* A run's full-rack column loads read by one instruction become that
 * instruction's memory operand (`vpmaxsd (%rax,%rsi,4), %ymm0, %ymm4`),
 * as clang writes them.  Only with VEX and EVEX encodings, whose memory
 * operands need no alignment (columns have none), never into a copy
 * (vmovaps, even zero-masking, wants its memory aligned), and never
 * across a store, so the value read is the one the load would have
 * read.  An AVX-512 tail's masked loads fold into readers written under
 * the same mask (under_same_mask): `vfmadd231ps (%r10,%rdx,4), %zmm0,
 * %zmm17{%k1}{z}`. */
/* AVX-512: an instruction with an indexed memory operand keeps its first
 * source (EVEX.vvvv, operand 1 of a three-operand form) in the registers
 * the target's evex_nds allows; after fold_loads, which makes most of
 * those memory operands. */
void limit_nds(RkMFunc *mf, const RkTarget *t)
{
    if (!t->evex_nds)
        return;
    for (int b = 0; b < mf->nblocks; b++)
        for (int i = 0; i < mf->blocks[b]->ninstrs; i++) {
            const RkMInstr *in = &mf->blocks[b]->instrs[i];
            bool indexed = false;
            for (int k = 0; k < in->nops; k++)
                indexed |= in->ops[k].kind == RK_MO_MEM && in->ops[k].index.num >= 0;
            const RkMOp *nds = in->nops >= 3 ? &in->ops[1] : NULL;
            if (indexed && nds && nds->kind == RK_MO_REG && nds->reg.virt &&
                nds->reg.cls == RK_RC_VEC)
                rk_mir_vreg_allow(mf, nds->reg.num, t->evex_nds);
        }
}

void fold_loads(RkMFunc *mf, const RkTarget *t)
{
    int *reads = read_counts(mf);
    for (int b = 0; b < mf->nblocks; b++)
        for (int i = 0; i < mf->blocks[b]->ninstrs; i++)
            if (column_load(t, &mf->blocks[b]->instrs[i]))
                fold_load(t, mf->blocks[b], i, reads);
    free(reads);
    drop_removed(mf);
}

void fold_constants(RkMFunc *mf, const RkTarget *t, int vector_bytes, const bool *loop)
{
    VecUses x = index_uses(mf);
    for (int b = 0; b < mf->nblocks; b++)
        for (int i = 0; i < mf->blocks[b]->ninstrs; i++) {
            RkMInstr *in = &mf->blocks[b]->instrs[i];
            if (const_load(in))
                fold_one(mf, t, in, vector_bytes, loop, loop && loop[b], &x);
        }
    drop_removed(mf);
    prune_dead(mf, t);
    rk_mir_compact_pool(mf);
}

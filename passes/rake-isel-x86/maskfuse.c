/* maskfuse.c: AVX-512 selects as masked operations.
 *
 * A select under a mask, `m ? f(...) : x`, is selected as the operation
 * into a fresh register and a blend (seq.c's blend); a select against
 * zero (a rake's `else <0.0>`) as a copy under the mask zeroing the rest:
 *
 *     vaddps    %zmm0, %zmm22, %zmm23
 *     vpcmpud   $0, %zmm16, %zmm17, %k1
 *     vpblendmd %zmm23, %zmm22, %zmm17{%k1}
 *
 * AVX-512 writes an operation's destination under a mask: merging, the
 * lanes outside keep the register's old value; zeroing, they become 0.
 * With the old value x, the masked operation is the select:
 *
 *     vpcmpud   $0, %zmm16, %zmm17, %k1
 *     vaddps    %zmm0, %zmm22, %zmm22{%k1}
 *
 * which is what a `where` clause or a tine's arm costs written by hand.
 * The blend goes, and with it the copy an FMA's accumulator needed.
 *
 * The rewrite, for a select D{K} in a block whose selected value A is
 * read by the select alone and written in the same block by an
 * instruction I the target's table marks RK_I_MASKABLE (lane-wise,
 * takes a write mask):
 *
 *   - a blend K ? A : X, where I writes A from scratch: a copy A = X goes
 *     before I, and I reads A where it read X (the same value, so the
 *     copy's source may die there and the allocator gives both one
 *     register); I writes A under K, merging;
 *   - a blend where I accumulates into A (an FMA's `x` operand) and A
 *     was a copy of X made for it: I writes under K, merging;
 *   - a zeroing copy: I writes A under K, zeroing;
 *   - D is renamed A everywhere and the select goes.
 *
 * K must be known before I: if the comparison writing it comes later in
 * the block, it moves up to just before I (with the constant loads it
 * reads) when it reads no memory, writes no flags, and its other sources
 * were written before I; otherwise I (not accumulating) moves down to
 * just before the select when it reads registers written once and
 * writes no flags.  X must not be written between its copy (or I)
 * and the select, so the value merged in is the one the select read.
 *
 * Then I's sources: spec page 02 wants no floating-point exception from
 * an inactive lane, so the lowering sanitizes what an arm's operation
 * reads outside the mask (`K ? y : 1.0` before a division, zeros before
 * a conversion).  Under the mask, I reads those lanes no more and raises
 * nothing there (EVEX masking suppresses a masked-off lane's exceptions),
 * so a source that is such a select under the same K, read only by I,
 * is read as y; the sanitizing instruction is left to fold.c's dead-code
 * sweep.  Every lane gets the bits the selects would have given it: the
 * operation is the same instruction, and no rounding changes.
 *
 * Two more rewrites follow the same reasoning.  An operation the native
 * IR marks `sanitized` under a participation mask whose k register its
 * block made is written under that k, zeroing, and reads its operands
 * raw (mask_sanitized: a run's tail computes this way).  And a kandw of
 * a comparison read only there becomes the comparison under a write mask
 * (compare_under: a tail's tine). */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "isel.h"

/* the index of the last instruction of bl before `before` writing vreg v,
 * or -1 (a select already rewritten away has no op, and writes nothing) */
static int def_before(const RkMBlock *bl, int before, int v)
{
    for (int i = before - 1; i >= 0; i--) {
        const RkMInstr *in = &bl->instrs[i];
        for (int k = 0; in->op && k < in->nops; k++)
            if (in->ops[k].kind == RK_MO_REG && in->ops[k].def && in->ops[k].reg.virt &&
                in->ops[k].reg.num == v)
                return i;
    }
    return -1;
}

/* a whole-register vector vreg operand, unmasked */
static bool plain_vreg(const RkMOp *o)
{
    return o->kind == RK_MO_REG && o->reg.virt && o->reg.cls == RK_RC_VEC && !o->bits &&
           o->mask.num < 0;
}

/* Whether the instructions at positions i..kd of bl may be reordered so
 * the one at kd (writing a mask) and the constant loads it reads from
 * that range come first: then they are (true).  It must read no memory,
 * write no flags, and read only registers written once, before i or by
 * such a constant load. */
static bool move_up(const RkTarget *t, RkMBlock *bl, int i, int kd, const int *writes)
{
    RkMInstr *ki = &bl->instrs[kd];
    const RkInsnDesc *d = rk_target_insn(t, ki->op);
    if (!d || (d->flags & (RK_I_FLAGS | RK_I_FAULT | RK_I_SLOW | RK_I_CALL)))
        return false;
    bool *moves = rk_arena_alloc(&rk_heap, sizeof(bool) * (size_t)(kd - i + 1));
    memset(moves, 0, sizeof(bool) * (size_t)(kd - i + 1));
    moves[kd - i] = true;
    for (int k = 0; k < ki->nops; k++) {
        const RkMOp *o = &ki->ops[k];
        if (o->kind == RK_MO_MEM || (o->kind == RK_MO_REG && (!o->reg.virt || o->mask.num >= 0)))
            return false;
        if (o->kind != RK_MO_REG)
            continue;
        if (o->def != (k == 0) || (o->use && writes[o->reg.num] > 1))
            return false;
        int at = o->use ? def_before(bl, kd, o->reg.num) : -1;
        if (at >= i && !const_load(&bl->instrs[at]))
            return false;
        if (at >= i)
            moves[at - i] = true;
    }
    RkMInstr *tmp = rk_arena_alloc(&rk_heap, sizeof *tmp * (size_t)(kd - i + 1));
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int x = i; x <= kd; x++)
            if (moves[x - i] == !pass)
                tmp[n++] = bl->instrs[x];
    memcpy(&bl->instrs[i], tmp, sizeof *tmp * (size_t)n);
    return true;
}

/* Moves the operation at bl->instrs[i] down to just before j (its
 * select), past the instructions between, when nothing there can change
 * what it computes: it reads registers only, each virtual and written
 * once (so before i), writes no flags, and the value it writes is read
 * by the select alone (the caller's check).  Then a comparison written
 * after it (an else arm's `not (n < k)` on a column loaded after the
 * division, which move_up can't move: it reads memory) comes before it.
 * Returns true when it moved. */
static bool move_down(const RkTarget *t, RkMBlock *bl, int i, int j, const int *writes)
{
    const RkMInstr *in = &bl->instrs[i];
    const RkInsnDesc *d = rk_target_insn(t, in->op);
    if (!d || (d->flags & (RK_I_FLAGS | RK_I_FAULT | RK_I_SLOW | RK_I_CALL)))
        return false;
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == RK_MO_MEM ||
            (o->kind == RK_MO_REG && (!o->reg.virt || o->mask.num >= 0 ||
                                      (o->use && writes[o->reg.num] != 1))))
            return false;
    }
    RkMInstr moved = bl->instrs[i];
    memmove(&bl->instrs[i], &bl->instrs[i + 1], sizeof moved * (size_t)(j - 1 - i));
    bl->instrs[j - 1] = moved;
    return true;
}

/* Makes mask vreg K written before position i of bl (the blend is at
 * j): true if it already is, or its comparison could move up. */
static bool mask_ready(const RkTarget *t, RkMBlock *bl, int i, int j, int K, const int *writes)
{
    if (writes[K] != 1)
        return false;
    int kd = def_before(bl, j, K);
    return kd < i || move_up(t, bl, i, kd, writes);
}

/* A select at bl->instrs[j] the rewrite may take: a blend D{K} = K ? A : X,
 * or a copy under K zeroing the other lanes, D{K}{z} = A (then X is -1). */
typedef struct Select {
    int D, K, A, X;
    bool zero;
} Select;

static bool select_at(const RkTarget *t, const RkMInstr *in, Select *s)
{
    if (!in->op || in->nops < 2)
        return false;
    const RkMOp *d = &in->ops[0];
    if (d->kind != RK_MO_REG || !d->reg.virt || d->mask.num < 0 ||
        d->bits || !d->def || d->use)
        return false;
    *s = (Select){d->reg.num, d->mask.num, -1, -1, d->zero};
    if (!strcmp(in->op, BLEND_K) && in->nops == 3 && !d->zero && plain_vreg(&in->ops[1]) &&
        plain_vreg(&in->ops[2])) {
        s->A = in->ops[2].reg.num;
        s->X = in->ops[1].reg.num;
        return s->A != s->X;
    }
    if (rk_target_insn_is(t, in->op, RK_I_COPY) && in->nops == 2 && d->zero &&
        plain_vreg(&in->ops[1])) {
        s->A = in->ops[1].reg.num;
        return true;
    }
    return false;
}

/* The value a source written at bl->instrs[d] has in the lanes of mask
 * K: the selected value of a select under K (select_at), else -1. */
static int under_mask(const RkTarget *t, const RkMBlock *bl, int d, int K)
{
    Select s;
    return select_at(t, &bl->instrs[d], &s) && s.K == K ? s.A : -1;
}

/* The masked operation at bl->instrs[i] reads its sources' other lanes
 * no more, and raises no flags there: a source that only kept those
 * lanes harmless (the sanitizing of spec page 02's "no floating-point
 * exception on inactive lanes": `K ? y : 1.0`) is read as y.  The
 * sanitizing instruction is left to fold.c's dead-code sweep. */
static void unguard(const RkTarget *t, RkMBlock *bl, int i, int K, int *reads, const int *writes)
{
    RkMInstr *in = &bl->instrs[i];
    for (int k = 1; k < in->nops; k++) {
        if (!plain_vreg(&in->ops[k]) || in->ops[k].def)
            continue;
        int S = in->ops[k].reg.num, n = 0, d = def_before(bl, i, S);
        for (int q = 1; q < in->nops; q++)
            n += rk_mir_is_vreg(&in->ops[q], RK_RC_VEC, S) && !in->ops[q].bits;
        int y = d >= 0 && writes[S] == 1 && reads[S] == n ? under_mask(t, bl, d, K) : -1;
        if (y < 0 || def_before(bl, i, y) > d)
            continue; /* y changes between the sanitizing and I */
        for (int q = 1; q < in->nops; q++)
            if (rk_mir_is_vreg(&in->ops[q], RK_RC_VEC, S) && !in->ops[q].bits)
                in->ops[q].reg.num = y;
        reads[S] = 0;
        reads[y] += n;
    }
}

/* The select at bl->instrs[j], if it can go (see the essay): how many
 * instructions went in before it (the copy of X), or -1. */
static int fuse(RkMFunc *mf, const RkTarget *t, RkMBlock *bl, int j, int *reads, int *writes)
{
    Select s;
    if (!select_at(t, &bl->instrs[j], &s) || writes[s.D] != 1)
        return -1;
    int i = def_before(bl, j, s.A);
    RkMInstr *in = i >= 0 ? &bl->instrs[i] : NULL;
    if (!in || !rk_target_insn_is(t, in->op, RK_I_MASKABLE) || !plain_vreg(&in->ops[0]) ||
        !in->ops[0].def)
        return -1;
    for (int k = 1; k < in->nops; k++)
        if (in->ops[k].def)
            return -1;
    bool acc = in->ops[0].use;
    if (reads[s.A] != 1 + acc || writes[s.A] != 1 + acc)
        return -1;
    int from = i; /* X must keep its value from here to the select */
    if (acc && s.X >= 0) { /* A = X; I accumulates into A */
        from = def_before(bl, i, s.A);
        const RkMInstr *cp = from >= 0 ? &bl->instrs[from] : NULL;
        if (!cp || !rk_target_insn_is(t, cp->op, RK_I_COPY) || cp->nops != 2 ||
            !rk_mir_is_vreg(&cp->ops[1], RK_RC_VEC, s.X) || cp->ops[1].bits)
            return -1;
    }
    if (s.X >= 0 && def_before(bl, j, s.X) >= from)
        return -1;
    if (!mask_ready(t, bl, i, j, s.K, writes) &&
        (acc || writes[s.K] != 1 || !move_down(t, bl, i, j, writes)))
        return -1;
    i = def_before(bl, j, s.A); /* I moves down if the comparison moved up */
    in = &bl->instrs[i];
    in->ops[0].use = acc || !s.zero;
    in->ops[0] = rk_mmask(in->ops[0], rk_mreg(RK_RC_MASK, true, s.K), s.zero);
    reads[s.K]++;
    unguard(t, bl, i, s.K, reads, writes);
    int added = 0;
    if (!acc && !s.zero) { /* A starts as X */
        for (int k = 1; k < in->nops; k++)
            if (rk_mir_is_vreg(&in->ops[k], RK_RC_VEC, s.X) && !in->ops[k].bits)
                in->ops[k].reg.num = s.A;
        const RkMInstr *sel = &bl->instrs[j];
        RkMInstr copy = {.op = t->regs[RK_RC_VEC].copy, .origin = sel->origin,
                         .nir = sel->nir, .loc = sel->loc};
        RkMInstr *c = rk_mir_insert(bl, i, &copy);
        rk_mir_operand(c, rk_mvd(s.A));
        rk_mir_operand(c, rk_mv(s.X));
        writes[s.A]++;
        added = 1;
    }
    bl->instrs[j + added].op = NULL;
    rk_mir_rename_all(mf, s.D, s.A);
    return added;
}

/* --- sanitized operations under their participation mask -------------- */

/* Whether bl->instrs[i] is its native-IR operation's one instruction
 * (copies aside): a sequence's other instructions read the sanitized
 * values, and some read the lanes the mask would zero. */
static bool alone(const RkTarget *t, const RkMBlock *bl, int i)
{
    for (int x = 0; x < bl->ninstrs; x++)
        if (x != i && bl->instrs[x].op && bl->instrs[x].nir == bl->instrs[i].nir &&
            !rk_target_insn_is(t, bl->instrs[x].op, RK_I_COPY))
            return false;
    return true;
}

/* The k vreg holding the participation mask `through` of
 * bl->instrs[i], written once, earlier in this block (a run keeps k
 * vregs within a block), or -1.  It must be the one made for `through`
 * itself (k_noted), not a negation's: an else arm's select under `not m`
 * is a blend under m's k with its arms swapped. */
static int through_k(const RkMBlock *bl, int i, const int *writes, int through)
{
    int want = k_noted(S->vreg[through]);
    return want >= 0 && writes[want] == 1 && def_before(bl, i, want) >= 0 ? want : -1;
}

/* Whether an instruction of bl strictly between positions a and b reads
 * vector vreg v. */
static bool read_between(const RkMBlock *bl, int a, int b, int v)
{
    for (int x = a + 1; x < b; x++)
        for (int k = 0; bl->instrs[x].op && k < bl->instrs[x].nops; k++)
            if (bl->instrs[x].ops[k].use && rk_mir_is_vreg(&bl->instrs[x].ops[k], RK_RC_VEC, v))
                return true;
    return false;
}

/* The accumulator of bl->instrs[i], now written under K, read raw: if
 * it is a zeroing select under K, that becomes a plain copy; if it is a
 * copy of such a select (or of a blend under K) read only there, the
 * copy reads the select's value instead, and the select is left to the
 * dead-code sweep. */
static void unguard_acc(const RkTarget *t, RkMBlock *bl, int i, int K, int *reads,
                        const int *writes)
{
    Select s;
    int A = bl->instrs[i].ops[0].reg.num, d = def_before(bl, i, A);
    RkMInstr *dd = d >= 0 && !read_between(bl, d, i, A) ? &bl->instrs[d] : NULL;
    if (!dd)
        return;
    if (select_at(t, dd, &s) && s.zero && s.K == K) {
        dd->ops[0].mask.num = -1;
        dd->ops[0].zero = false;
        reads[K]--;
        return;
    }
    if (!rk_target_insn_is(t, dd->op, RK_I_COPY) || dd->nops != 2 || !plain_vreg(&dd->ops[1]))
        return;
    int S2 = dd->ops[1].reg.num, d2 = def_before(bl, d, S2);
    if (d2 < 0 || reads[S2] != 1 || writes[S2] != 1 || !select_at(t, &bl->instrs[d2], &s) ||
        s.K != K || def_before(bl, d, s.A) > d2)
        return;
    dd->ops[1].reg.num = s.A;
    reads[S2] = 0;
    reads[s.A]++;
}

/* An operation the lowering sanitized (every float operand a benign
 * select under its participation mask, `through`, or a value already
 * harmless there, such as a load under that mask: the lanes outside are
 * inactive and their results never read) is written under the k of
 * `through`, when this block has it, zeroing, and reads its operands
 * raw: EVEX masking raises nothing in the masked-off lanes.  A run's
 * tail computes its columns this way (`vfmadd231ps %zmm0, %zmm19,
 * %zmm18{%k1}{z}` after masked loads, not three zeroing copies and the
 * FMA; fold.c then reads the loads as memory operands), and so does an
 * arm's operation
 * whose result another operation reads before the arm's select.  An
 * accumulator that is such a select (an FMA's) becomes a plain copy,
 * which the allocator removes when its source dies there. */
static void mask_sanitized(const RkTarget *t, RkMBlock *bl, int i, int *reads, int *writes)
{
    RkMInstr *in = &bl->instrs[i];
    const RkInstr *n = in->op ? nir_def(in->nir) : NULL;
    if (!n || !n->sanitized || n->through < 0 || !rk_target_insn_is(t, in->op, RK_I_MASKABLE) ||
        !plain_vreg(&in->ops[0]) || !in->ops[0].def || !alone(t, bl, i))
        return;
    int K = through_k(bl, i, writes, n->through);
    if (K < 0)
        return;
    in->ops[0] = rk_mmask(in->ops[0], rk_mreg(RK_RC_MASK, true, K), true);
    reads[K]++;
    if (in->ops[0].use)
        unguard_acc(t, bl, i, K, reads, writes);
    unguard(t, bl, i, K, reads, writes);
}

/* --- comparisons under a write mask ------------------------------------ */

/* An unmasked comparison into a k register that may take a write mask
 * (the table's RK_I_KMASKABLE: vpcmpd, vpcmpud, vptestmd; not vcmpps,
 * whose masked form Debian's Capstone doesn't decode). */
static bool k_compare(const RkTarget *t, const RkMInstr *in)
{
    return in->op && rk_target_insn_is(t, in->op, RK_I_KMASKABLE) && in->nops >= 3 &&
           in->ops[0].kind == RK_MO_REG && in->ops[0].reg.cls == RK_RC_MASK &&
           in->ops[0].mask.num < 0;
}

/* `kandw Kd = Ka, Kb` where Kb is a comparison of this block read only
 * there and Ka was written before it: the comparison writes Kd under Ka
 * instead (EVEX compares into k under a write mask clear the bits outside
 * it, and raise nothing in those lanes), and the kandw goes.  A run's
 * tail under a tine: `vpcmpud $0, %zmm1, %zmm0, %k2{%k1}`. */
static void compare_under(const RkTarget *t, RkMBlock *bl, int i, int *reads,
                          const int *writes)
{
    RkMInstr *in = &bl->instrs[i];
    if (!in->op || strcmp(in->op, K_AND) || in->nops != 3)
        return;
    for (int side = 1; side <= 2; side++) {
        int Kb = in->ops[side].reg.num, Ka = in->ops[3 - side].reg.num;
        int d = writes[Kb] == 1 && reads[Kb] == 1 ? def_before(bl, i, Kb) : -1;
        if (d < 0 || !k_compare(t, &bl->instrs[d]) || writes[Ka] != 1)
            continue;
        int a = def_before(bl, i, Ka);
        if (a < 0 || a >= d)
            continue;
        bl->instrs[d].ops[0] = rk_mmask(in->ops[0], rk_mreg(RK_RC_MASK, true, Ka), false);
        reads[Kb] = 0;
        in->op = NULL;
        return;
    }
}

void fuse_masked_selects(RkMFunc *mf, const RkTarget *t)
{
    int *reads = read_counts(mf);
    int *writes = rk_mir_write_counts(mf);
    for (int b = 0; b < mf->nblocks; b++) {
        RkMBlock *bl = mf->blocks[b];
        for (int j = 0; j < bl->ninstrs; j++) {
            int added = fuse(mf, t, bl, j, reads, writes);
            if (added > 0)
                j += added; /* the select moved down */
        }
    }
    for (int b = 0; b < mf->nblocks; b++)
        for (int i = 0; i < mf->blocks[b]->ninstrs; i++)
            mask_sanitized(t, mf->blocks[b], i, reads, writes);
    free(reads);
    drop_removed(mf);
    /* the vector forms of masks only k registers read go first */
    prune_dead(mf, t);
    reads = read_counts(mf);
    writes = rk_mir_write_counts(mf);
    for (int b = 0; b < mf->nblocks; b++)
        for (int i = 0; i < mf->blocks[b]->ninstrs; i++)
            compare_under(t, mf->blocks[b], i, reads, writes);
    free(reads);
    drop_removed(mf);
}

/* scan.c: the linear scan, over live segments with holes.
 *
 * Positions are visited in order, and each virtual register first met
 * at one gets a register of its class that no value given it before is
 * live in at the same time (their segments, live.c, don't overlap: a
 * loop-carried value and its next version, or values of the two copies
 * of a loop, share registers through each other's holes):
 *   - a value read for the last time at a position hands its register
 *     to one written there (operands are read before results are
 *     written), so a copy of a dying value becomes a move of a register
 *     onto itself, and goes;
 *   - a value's hint comes first when it is free: the result register for
 *     the value the result move reads, and for block parameters and jump
 *     arguments the register of their partner across the edge (or of a
 *     sibling argument, when the partner has none yet), so a
 *     loop-carried value usually needs no move on the back edge;
 *   - then, for a copy of a value the copy reads for the last time, that
 *     value's register: the copy becomes a move onto itself and goes
 *     (SSE2's two-operand forms copy before each destructive operation);
 *   - otherwise the first free register in the target's allocation order
 *     (caller-saved before callee-saved), skipping reserved ones and any
 *     register that the code names physically while the value would live.
 * When every register of a class is taken, a constant loaded from
 * read-only data that is live but not used here may be rematerialised:
 * its register is freed and the same load repeated right before its next
 * use (in the same block).  A constant that crosses blocks (rake-isel-x86
 * hoists a loop's constants to the entry) is given back whole instead:
 * its readers read the pool in place where they may (lib/mirfold.c) or
 * share one load per block, and the first load goes.  A stack run's
 * column pointer (loaded from its descriptor) is given back the same way
 * when general registers run out.  When neither can go, a rack loaded
 * from a column by one instruction (a whole or masked load) is given back
 * too, if nothing writes memory, or the load's own registers, anywhere it
 * is live: the reload then reads what the load read.  A compaction's tail
 * holds every column's masked rack at once, beside the values computed
 * from them.
 * A run's argument the caller passed on the stack, or its sign extension,
 * is given back the same way last (stackarg.c): the reload reads the
 * caller's slot again.
 * A reload is not a spill: nothing is stored.
 * Otherwise the function needs more registers than the target has, and
 * is rejected with a located error: Rake never spills. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "nirops.h"
#include "ra.h"

static bool fixed_conflict(Ra *ra, int cls, int num, const Range *x)
{
    for (int i = 0; i < ra->nfixed[cls][num]; i++) {
        const Fixed *p = &ra->fixed[cls][num][i];
        for (int k = 0; k < x->nseg; k++) {
            Seg s = x->seg[k];
            if ((p->pos > s.lo && p->pos < s.hi) || (p->pos == s.hi && p->pos > s.lo && p->use) ||
                (p->pos == s.lo && p->def))
                return true;
        }
    }
    return false;
}

/* Whether two segments overlap.  At a single shared position, a value
 * read there for the last time (and not also written there) hands its
 * register to a value written there. */
static bool seg_clash(Seg a, Seg b)
{
    int lo = a.lo > b.lo ? a.lo : b.lo, hi = a.hi < b.hi ? a.hi : b.hi;
    if (lo != hi)
        return lo < hi;
    return !((a.hi == lo && b.lo == lo && a.lo != lo) || (b.hi == lo && a.lo == lo && b.lo != lo));
}

static bool clash(const Range *x, const Range *y)
{
    if (x->hi < y->lo || y->hi < x->lo)
        return false;
    for (int i = 0, j = 0; i < x->nseg && j < y->nseg;) {
        if (seg_clash(x->seg[i], y->seg[j]))
            return true;
        if (x->seg[i].hi < y->seg[j].hi)
            i++;
        else
            j++;
    }
    return false;
}

/* Whether a value already given register num is live while v is.  The
 * values whose live range ends before ra->settled leave the list as it
 * is read: no value met from here on starts that early (ra_scan), so
 * they can't clash again, and a register's list stays as short as what
 * is live around the scan instead of everything ever given it (a
 * scratch of 12,000 lets spent half of rake-ra here). */
static bool taken(Ra *ra, int cls, int num, int v)
{
    int *g = ra->given[cls][num], n = ra->ngiven[cls][num], w = 0;
    bool hit = false;
    for (int k = 0; k < n; k++) {
        const Range *u = &ra->r[g[k]];
        if (u->hi < ra->settled)
            continue;
        g[w++] = g[k];
        hit = hit || clash(u, &ra->r[v]);
    }
    ra->ngiven[cls][num] = w;
    return hit;
}

static void give(Ra *ra, int cls, int num, int v)
{
    int *n = &ra->ngiven[cls][num], *cap = &ra->capgiven[cls][num];
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        int *grown = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)*cap);
        if (*n)
            memcpy(grown, ra->given[cls][num], sizeof(int) * (size_t)*n);
        ra->given[cls][num] = grown;
    }
    ra->given[cls][num][(*n)++] = v;
    ra->r[v].reg = num;
}

static bool usable(Ra *ra, int cls, int num, int v)
{
    const RkRegFile *rf = &ra->t->regs[cls];
    return num >= 0 && num < rf->count && !(rf->reserved >> num & 1u) &&
           (ra->allowed[v] >> num & 1u) && !taken(ra, cls, num, v) &&
           !fixed_conflict(ra, cls, num, &ra->r[v]);
}

/* The register of some argument already allocated that a jump passes
 * to parameter k of block to, or -1. */
static int sibling_reg(Ra *ra, int to, int k)
{
    RkMFunc *f = ra->f;
    for (int b = 0; b < f->nblocks; b++) {
        RkMTerm *t = &f->blocks[b]->term;
        if (t->kind == RK_MT_JUMP && t->then == to && ra->r[t->args[k].num].reg >= 0)
            return ra->r[t->args[k].num].reg;
    }
    return -1;
}

/* The register of v's partner across an edge, or -1.  An argument whose
 * parameter has no register yet (the join comes later in position order)
 * takes the register of a sibling argument, one another jump passes to
 * the same parameter: the arms of a branch that each permute a value
 * then leave it where the join will want it (the identity arm passes
 * the value itself), and the join needs no moves. */
static int edge_hint(Ra *ra, int v)
{
    RkMFunc *f = ra->f;
    int late = -1;
    for (int b = 0; b < f->nblocks; b++) {
        RkMTerm *t = &f->blocks[b]->term;
        if (t->kind != RK_MT_JUMP)
            continue;
        RkMBlock *to = f->blocks[t->then];
        for (int k = 0; k < t->nargs; k++) {
            int other = t->args[k].num == v ? to->params[k].num
                        : to->params[k].num == v ? t->args[k].num
                                                 : -1;
            if (other >= 0 && ra->r[other].reg >= 0)
                return ra->r[other].reg;
            if (other >= 0 && late < 0 && t->args[k].num == v)
                late = sibling_reg(ra, t->then, k);
        }
    }
    return late;
}

/* How many registers of set v could take now. */
static int free_in(Ra *ra, int cls, uint64_t set, int v)
{
    const RkRegFile *rf = &ra->t->regs[cls];
    int n = 0;
    for (int r = 0; r < rf->count; r++)
        n += (set >> r & 1u) && !(rf->reserved >> r & 1u) && !taken(ra, cls, r, v);
    return n;
}

/* A free register in allocation order.  While some value of the class
 * is limited to certain registers, an unlimited value takes, in turn,
 * the caller-saved registers no limited value may need; caller-saved
 * ones a limited value may need, while more of those are free than
 * there are limited values; callee-saved ones no limited value needs (a
 * save is cheaper than a run that doesn't fit); then any.  So the
 * limited values find theirs free. */
static int first_free(Ra *ra, int cls, int v)
{
    uint64_t lim = ra->limited[cls], callee = ra->t->regs[cls].callee_saved;
    bool share = free_in(ra, cls, lim, v) > ra->nlimited[cls];
    uint64_t avoid[4] = {lim | callee, share ? callee : ~0ull, lim, 0};
    int pass = ra->allowed[v] == ~0ull && lim ? 0 : 3;
    for (; pass < 4; pass++)
        for (const int8_t *o = ra->t->regs[cls].order; o && *o >= 0; o++)
            if (!(avoid[pass] >> *o & 1u) && usable(ra, cls, *o, v))
                return *o;
    return -1;
}

/* The register of the value v is copied from, if that value is read
 * for the last time by the copy: taking it makes the copy a move of a
 * register onto itself, which goes.  -1 otherwise. */
static int copy_source(Ra *ra, int v)
{
    const Range *x = &ra->r[v];
    const RkMInstr *in = x->lo >= 0 ? ra_instr_at(ra, x->lo) : NULL;
    if (!in || in->nops != 2 || !rk_target_insn_is(ra->t, in->op, RK_I_COPY))
        return -1;
    const RkMOp *d = &in->ops[0], *s = &in->ops[1];
    if (d->kind != RK_MO_REG || s->kind != RK_MO_REG || !d->reg.virt || d->reg.num != v ||
        !s->reg.virt || s->reg.cls != d->reg.cls || s->bits != d->bits || d->mask.num >= 0)
        return -1;
    const Range *y = &ra->r[s->reg.num];
    return y->hi == x->lo ? y->reg : -1;
}

static int pick(Ra *ra, int v)
{
    int cls = ra->f->vclass[v];
    Range *x = &ra->r[v];
    if (x->hint >= 0 && usable(ra, cls, x->hint, v))
        return x->hint;
    int e = edge_hint(ra, v);
    if (e >= 0 && usable(ra, cls, e, v))
        return e;
    int c = copy_source(ra, v);
    if (c >= 0 && usable(ra, cls, c, v))
        return c;
    return first_free(ra, cls, v);
}

/* The virtual registers met at a position, in operand order. */
static int occurrences(Ra *ra, int pos, int *out, int cap)
{
    int n = 0, b = ra->pos.block[pos];
    RkMBlock *blk = ra->f->blocks[b];
    RkMInstr *in = ra_instr_at(ra, pos);
#define ADD(r)                                 \
    do {                                       \
        if ((r).virt && (r).num >= 0 && n < cap) \
            out[n++] = (r).num;                \
    } while (0)
    if (in) {
        for (int k = 0; k < in->nops; k++) {
            const RkMOp *o = &in->ops[k];
            ADD(o->reg);
            ADD(o->mask);
            if (o->kind == RK_MO_MEM)
                ADD(o->index);
        }
    } else if (pos == ra->pos.start[b]) {
        for (int k = 0; k < blk->nparams; k++)
            ADD(blk->params[k]);
    } else {
        for (int k = 0; k < blk->term.nargs; k++)
            ADD(blk->term.args[k]);
        const RkMOp *tr = rk_mir_term_reg(&blk->term);
        if (tr)
            ADD(tr->reg);
    }
#undef ADD
    return n;
}

static int occurrence_count(Ra *ra, int pos)
{
    RkMInstr *in = ra_instr_at(ra, pos);
    int b = ra->pos.block[pos];
    if (in)
        return 3 * in->nops;
    if (pos == ra->pos.start[b])
        return ra->f->blocks[b]->nparams;
    return ra->f->blocks[b]->term.nargs + 1;
}

/* occurrences() into *occ, grown to hold however many pos has. */
static int occurrences_at(Ra *ra, int pos, int **occ, int *cap)
{
    int need = occurrence_count(ra, pos);
    if (need > *cap) {
        *cap = 2 * need;
        *occ = rk_arena_alloc(&rk_heap, sizeof **occ * (size_t)*cap);
    }
    return occurrences(ra, pos, *occ, *cap);
}

/* owner[][]: the value holding each register at pos (0: none). */
void ra_holders(Ra *ra, int pos)
{
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (int g = 0; g < ra->t->regs[c].count; g++) {
            ra->owner[c][g] = 0;
            for (int k = 0; k < ra->ngiven[c][g]; k++) {
                int v = ra->given[c][g][k];
                if (ra_live_at(ra, v, pos))
                    ra->owner[c][g] = v + 1;
            }
        }
}

/* Per position: the earliest live-range start of the values first met
 * there or later (the ones the scan has yet to give a register; the
 * arguments have theirs before it starts). */
static const int *later_starts(Ra *ra)
{
    int n = ra->pos.n, cap = 0, *occ = NULL;
    int *first = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    char *met = rk_arena_alloc(&rk_heap, (size_t)ra->f->nvregs + 1);
    memset(met, 0, (size_t)ra->f->nvregs + 1);
    for (int pos = 0; pos <= n; pos++)
        first[pos] = n;
    for (int pos = 0; pos < n; pos++) {
        int k = occurrences_at(ra, pos, &occ, &cap);
        for (int i = 0; i < k; i++)
            if (!met[occ[i]]) {
                met[occ[i]] = 1;
                if (!ra->r[occ[i]].pinned && ra->r[occ[i]].lo < first[pos])
                    first[pos] = ra->r[occ[i]].lo;
            }
    }
    for (int pos = n - 1; pos >= 0; pos--)
        if (first[pos + 1] < first[pos])
            first[pos] = first[pos + 1];
    return first;
}

int ra_scan(Ra *ra, int *cls)
{
    RkMFunc *f = ra->f;
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (int g = 0; g < ra->t->regs[c].count; g++)
            ra->ngiven[c][g] = 0;
    for (int v = 0; v < f->nvregs; v++)
        if (ra->r[v].pinned)
            give(ra, f->vclass[v], ra->r[v].reg, v);
    int cap = 0, *occ = NULL;
    const int *starts = later_starts(ra);
    for (int pos = 0; pos < ra->pos.n; pos++) {
        ra->settled = starts[pos] < pos ? starts[pos] : pos;
        int n = occurrences_at(ra, pos, &occ, &cap);
        for (int k = 0; k < n; k++) {
            int v = occ[k];
            if (ra->r[v].reg >= 0)
                continue;
            int g = pick(ra, v);
            if (g < 0) {
                *cls = f->vclass[v];
                ra_holders(ra, pos);
                return pos;
            }
            give(ra, f->vclass[v], g, v);
        }
    }
    return -1;
}

/* --- rematerialisation --------------------------------------------------------------- */

/* Whether `in` writes virtual register v whole and unmasked from one
 * source: the definitions a reload may repeat. */
bool ra_defines(const RkMInstr *in, int v)
{
    return in && in->ops[0].kind == RK_MO_REG && in->ops[0].reg.virt &&
           in->ops[0].reg.num == v && in->ops[0].mask.num < 0;
}

bool ra_occurs_at(Ra *ra, int pos, int v)
{
    int occ[64];
    int n = occurrence_count(ra, pos) <= 64 ? occurrences(ra, pos, occ, 64) : -1;
    if (n < 0)
        return true; /* too many operands to tell: not a candidate */
    for (int k = 0; k < n; k++)
        if (occ[k] == v)
            return true;
    return false;
}

/* The first position after `stuck` at which v occurs (past its range:
 * its next read is in a later iteration, or none). */
int ra_next_use(Ra *ra, int v, int stuck)
{
    int next = stuck + 1;
    while (next <= ra->r[v].hi && !ra_occurs_at(ra, next, v))
        next++;
    return next;
}

bool ra_written_between(Ra *ra, int v, int from, int to)
{
    for (int pos = from; pos <= to; pos++) {
        const RkMInstr *w = ra_instr_at(ra, pos);
        for (int k = 0; w && k < w->nops; k++)
            if (w->ops[k].kind == RK_MO_REG && w->ops[k].def && w->ops[k].reg.virt &&
                w->ops[k].reg.num == v)
                return true;
    }
    return false;
}

/* A value defined by a constant load and nothing else, in one block. */
static bool remat_candidate(Ra *ra, int v)
{
    const Range *x = &ra->r[v];
    if (x->pinned || x->live_out || x->lo < 0 || ra->pos.block[x->lo] != ra->pos.block[x->hi])
        return false;
    const RkMInstr *in = ra_instr_at(ra, x->lo);
    if (!(rk_mir_const_load(in) && ra_defines(in, v) && !in->ops[0].bits))
        return false;
    /* a loaded copy that a destructive operation then rewrites (movaps
     * .LC(%rip), %xmm1; andps %xmm2, %xmm1) holds the constant only
     * until that write: reloading it later would be wrong */
    return !ra_written_between(ra, v, x->lo + 1, x->hi);
}

void ra_rename_from(Ra *ra, int b, int from, int old, int fresh)
{
    RkMBlock *blk = ra->f->blocks[b];
    for (int i = from; i < blk->ninstrs; i++)
        rk_mir_rename(&blk->instrs[i], old, fresh);
    rk_mir_rename_term(&blk->term, old, fresh);
}

static bool reads(const RkMInstr *in, int v, int cls)
{
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        const RkMReg *regs[3] = {&o->reg, &o->index, &o->mask};
        for (int j = 0; j < 3; j++)
            if (regs[j]->virt && regs[j]->cls == cls && regs[j]->num == v &&
                (j > 0 || o->kind != RK_MO_REG || o->use))
                return true;
    }
    return false;
}

bool ra_column_load(const RkMInstr *in)
{
    return in && in->origin && !strcmp(in->origin, rk_nir_op_name(RK_OP_STACK_COLUMN)) &&
           in->nops == 2 &&
           in->ops[1].kind == RK_MO_MEM && in->ops[1].reg.virt && in->ops[1].index.num < 0 &&
           in->ops[1].disp >= RK_STACK_COLUMNS_AT;
}

/* A column pointer's load is repeatable while the descriptor's register
 * holds the same value and nothing writes the pointer fields.  A run
 * writes only a descriptor's count (stack.set_count, lib/nirops.h's
 * descriptor layout), and its slow blocks can't reach a descriptor: they
 * can't name a stack, module state can't hold one, and no pointer points
 * at one (rake-check); their trampolines keep every register. */
static bool column_load(const Ra *ra, const RkMInstr *in)
{
    if (!ra_column_load(in))
        return false;
    /* the descriptor: an argument (no write) or one load, never rewritten */
    return ra->writes[in->ops[1].reg.num] <= 1;
}

/* Whether `in` may write memory: a store, or a slow block's call (its C
 * may write anything). */
static bool writes_memory(const RkTarget *t, const RkMInstr *in)
{
    if (rk_target_insn_is(t, in->op, RK_I_SLOW) || rk_target_insn_is(t, in->op, RK_I_CALL))
        return true;
    for (int k = 0; k < in->nops; k++)
        if (in->ops[k].kind == RK_MO_MEM && in->ops[k].def)
            return true;
    return false;
}

/* Whether `in`, a definition of v, writes some register that `load` reads
 * (its base, index, mask or a source). */
static bool writes_source(const RkMInstr *in, const RkMInstr *load)
{
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind != RK_MO_REG || !o->def || !o->reg.virt)
            continue;
        if (reads(load, o->reg.num, o->reg.cls))
            return true;
    }
    return false;
}

/* A load from memory (a column's rack, whole or masked, or a lane of
 * one) that repeating anywhere v is live reads the same value: one
 * destination written whole, one memory source, vector sources (a mask)
 * that live at least as long as v anyway, and wherever v is live
 * nothing writes memory and nothing redefines those sources (an
 * instruction or a block parameter).  Every path from the load to a reader of v runs where v is
 * live, so a reload before the reader sees what the load saw.  Two
 * columns of the stacks a run reads may be one array (page 03's in-place
 * update), so any store counts. */
static bool repeatable_load(Ra *ra, int v, const RkMInstr *in)
{
    int nmem = 0;
    if (!in || in->ops[0].use || rk_target_insn_is(ra->t, in->op, RK_I_FLAGS))
        return false;
    for (int k = 1; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->def || o->kind == RK_MO_CONST || o->kind == RK_MO_LABEL)
            return false;
        nmem += o->kind == RK_MO_MEM;
        const RkMReg *regs[3] = {&o->reg, &o->index, &o->mask};
        for (int j = 0; j < 3; j++)
            if (regs[j]->virt && regs[j]->num >= 0 && regs[j]->cls == RK_RC_VEC &&
                ra->r[regs[j]->num].hi < ra->r[v].hi)
                return false;
    }
    if (nmem != 1)
        return false;
    const Range *x = &ra->r[v];
    for (int s = 0; s < x->nseg; s++)
        for (int pos = x->seg[s].lo; pos <= x->seg[s].hi; pos++) {
            int b = ra->pos.block[pos];
            const RkMBlock *bl = ra->f->blocks[b];
            const RkMInstr *w = ra_instr_at(ra, pos);
            if (w && pos != x->lo && (writes_memory(ra->t, w) || writes_source(w, in)))
                return false;
            for (int k = 0; !w && pos == ra->pos.start[b] && k < bl->nparams; k++)
                if (reads(in, bl->params[k].num, bl->params[k].cls))
                    return false;
        }
    return true;
}

/* A constant load's value live across blocks, or a column pointer, not
 * read at `stuck`. */
static bool split_candidate(Ra *ra, int v, int stuck, int cls, bool loads)
{
    const Range *x = &ra->r[v];
    if (x->pinned || x->lo < 0 || ra_occurs_at(ra, stuck, v))
        return false;
    const RkMInstr *in = ra_instr_at(ra, x->lo);
    if (!ra_defines(in, v) ||
        !((rk_mir_const_load(in) && x->live_out &&
           (!in->ops[0].bits || in->ops[0].bits == ra->t->regs[cls].full_bits)) ||
          column_load(ra, in) || (loads && cls == RK_RC_VEC && repeatable_load(ra, v, in))))
        return false;
    for (int k = 0; k < ra->f->nallow; k++)
        if (ra->f->allow[k].vreg == v)
            return false;
    /* a destructive instruction may rewrite a loaded copy */
    return !ra_carried(ra, v, cls) && ra->writes[v] == 1;
}

bool ra_carried(Ra *ra, int v, int cls)
{
    for (int b = 0; b < ra->f->nblocks; b++) {
        RkMBlock *bl = ra->f->blocks[b];
        for (int j = 0; j < bl->nparams; j++)
            if (bl->params[j].virt && bl->params[j].cls == cls && bl->params[j].num == v)
                return true;
        const RkMOp *tr = rk_mir_term_reg(&bl->term);
        if (tr && tr->reg.virt && tr->reg.num == v)
            return true;
    }
    return false;
}

/* A load of the constant into a fresh vreg, inserted at `at` of block b. */
static int reload(Ra *ra, const RkMInstr *def, int b, int at, RkLoc loc, int cls)
{
    RkMInstr copy = *def;
    copy.ops = rk_arena_alloc(&rk_heap, sizeof *copy.ops * (size_t)def->nops);
    memcpy(copy.ops, def->ops, sizeof *copy.ops * (size_t)def->nops);
    copy.loc = loc;
    copy.again = true;
    if (cls == RK_RC_VEC)
        copy.origin = "remat"; /* a column pointer's reload stays stack.column */
    int fresh = rk_mir_vreg(ra->f, (RkRegClass)cls);
    copy.ops[0].reg.num = fresh;
    rk_mir_insert(ra->f->blocks[b], at, &copy);
    return fresh;
}

/* Reads the constant from the pool in place of vector vreg v, if v is
 * one register operand of `in` that may be memory (lib/mirfold.c). */
static bool fold_into(Ra *ra, RkMInstr *in, int v, int c)
{
    int k = -1, n = 0;
    for (int j = 0; j < in->nops; j++) {
        const RkMOp *o = &in->ops[j];
        const RkMReg *regs[3] = {&o->reg, &o->index, &o->mask};
        for (int r = 0; r < 3; r++)
            if (regs[r]->virt && regs[r]->cls == RK_RC_VEC && regs[r]->num == v)
                n++, k = r == 0 && o->kind == RK_MO_REG ? j : -2;
    }
    if (n != 1 || k < 0 || !rk_mir_foldable(ra->t, in, &k, v))
        return false;
    int wide = rk_mir_const_wide(ra->f, c, ra->t->regs[RK_RC_VEC].full_bits / 8);
    if (wide < 0)
        return false;
    in->ops[k] = rk_mc(wide);
    return true;
}

/* v's every reader reads the constant from the pool where it may
 * (`mulps .LC(%rip), %xmm1`, as rake-isel-x86 would have folded it) or
 * loads it again right before it (a jump passing it on, at the end of its
 * block), and v's load goes.  Readers in one block share a reload, except
 * across `stuck` (a load before it for a reader after it would hold the
 * register there). */
static void split(Ra *ra, int v, int stuck, int cls)
{
    RkMFunc *f = ra->f;
    int db = ra->pos.block[ra->r[v].lo], di = ra->r[v].lo - ra->pos.start[db] - 1;
    RkMInstr def = f->blocks[db]->instrs[di];
    def.ops = rk_arena_alloc(&rk_heap, sizeof *def.ops * (size_t)def.nops);
    memcpy(def.ops, f->blocks[db]->instrs[di].ops, sizeof *def.ops * (size_t)def.nops);
    ra_split_with(ra, v, stuck, cls, &def, true);
}

void ra_split_with(Ra *ra, int v, int stuck, int cls, const RkMInstr *load, bool drop)
{
    RkMFunc *f = ra->f;
    RkMInstr def = *load;
    int sb = ra->pos.block[stuck], si = stuck - ra->pos.start[sb] - 1;
    if (drop) {
        int db = ra->pos.block[ra->r[v].lo], di = ra->r[v].lo - ra->pos.start[db] - 1;
        RkMBlock *d = f->blocks[db];
        memmove(&d->instrs[di], &d->instrs[di + 1],
                sizeof *d->instrs * (size_t)(d->ninstrs - di - 1));
        d->ninstrs--;
        if (db == sb && di < si)
            si--;
    }
    for (int b = 0; b < f->nblocks; b++) {
        RkMBlock *bl = f->blocks[b];
        int fresh = -1, added = 0;
        for (int i = 0; i < bl->ninstrs; i++) {
            if (b == sb && i - added == si)
                fresh = -1;
            if (!reads(&bl->instrs[i], v, cls))
                continue;
            if (cls == RK_RC_VEC && rk_mir_const_load(&def) &&
                fold_into(ra, &bl->instrs[i], v, (int)def.ops[1].imm))
                continue;
            if (fresh < 0) {
                fresh = reload(ra, &def, b, i, bl->instrs[i].loc, cls);
                i++, added++;
            }
            rk_mir_rename(&bl->instrs[i], v, fresh);
        }
        if (b == sb && si >= bl->ninstrs - added)
            fresh = -1;
        for (int k = 0; k < bl->term.nargs; k++)
            if (bl->term.args[k].virt && bl->term.args[k].num == v) {
                if (fresh < 0)
                    fresh = reload(ra, &def, b, bl->ninstrs, bl->term.loc, cls);
                bl->term.args[k].num = fresh;
            }
    }
}

bool ra_rematerialise(Ra *ra, int stuck, int cls)
{
    int victim = -1, victim_next = -1;
    for (int g = 0; g < ra->t->regs[cls].count; g++) {
        int v = ra->owner[cls][g] - 1;
        if (v < 0 || !remat_candidate(ra, v) || ra_occurs_at(ra, stuck, v))
            continue;
        int next = ra_next_use(ra, v, stuck);
        /* a reload right after the stuck position would need a register there */
        if (next > ra->r[v].hi || next == stuck + 1 || !ra_instr_at(ra, next))
            continue;
        if (next > victim_next) {
            victim = v;
            victim_next = next;
        }
    }
    if (victim < 0) {
        /* the one read again last (in the next iteration, for a value a
         * loop read before this point): fewer reloads go before the
         * reads that are near.  A column's rack only when no constant or
         * column pointer can go: its reloads are whole loads, where a
         * constant's are often folded into the reader. */
        for (int loads = 0; loads < 2 && victim < 0; loads++)
            for (int g = 0; g < ra->t->regs[cls].count; g++) {
                int v = ra->owner[cls][g] - 1;
                if (v < 0 || !split_candidate(ra, v, stuck, cls, loads))
                    continue;
                int next = ra_next_use(ra, v, stuck);
                if (next > victim_next) {
                    victim = v;
                    victim_next = next;
                }
            }
        if (victim < 0)
            return ra_stack_reload(ra, stuck, cls);
        split(ra, victim, stuck, cls);
        return true;
    }
    RkMFunc *f = ra->f;
    int b = ra->pos.block[victim_next], at = victim_next - ra->pos.start[b] - 1;
    const RkMInstr *def = ra_instr_at(ra, ra->r[victim].lo);
    RkMInstr copy = *def;
    copy.loc = f->blocks[b]->instrs[at].loc;
    int fresh = rk_mir_vreg(f, (RkRegClass)cls);
    RkMInstr *in = rk_mir_insert(f->blocks[b], at, &copy);
    in->ops[0].reg.num = fresh;
    in->origin = "remat";
    in->again = true;
    ra_rename_from(ra, b, at + 1, victim, fresh);
    return true;
}

/* --- running out ----------------------------------------------------------------------- */

static const char *class_words(int cls)
{
    return cls == RK_RC_VEC ? "vector" : cls == RK_RC_GPR ? "general" : "mask";
}

static const char *reserved_note(const RkTarget *t, int cls)
{
    const RkRegFile *rf = &t->regs[cls];
    const char *s = NULL;
    int n = 0;
    for (int g = 0; g < rf->count; g++)
        if (rf->reserved >> g & 1u) {
            const char *name = rk_target_reg_name(t, (RkRegClass)cls, g, 0);
            s = s ? rk_arena_printf(&rk_heap, "%s and %s", s, name) : name;
            n++;
        }
    return n ? rk_arena_printf(&rk_heap, " (%s %s reserved)", s, n == 1 ? "is" : "are") : "";
}

static bool same_loc(RkLoc a, RkLoc b) { return a.line == b.line && a.col == b.col; }

/* Notes under the refusal: where the values holding the registers at
 * `stuck` were computed, one note per source location in position
 * order, the first few (a user shortens or splits those expressions). */
static void note_holders(Ra *ra, int cls)
{
    enum { SHOWN = 6 };
    int n = ra->t->regs[cls].count, *pos = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    int m = 0, carried = 0;
    for (int g = 0; g < n; g++) { /* the holders' definitions, in position order */
        int v = ra->owner[cls][g] - 1;
        if (v < 0)
            continue;
        const RkMInstr *def = ra->r[v].lo >= 0 ? ra_instr_at(ra, ra->r[v].lo) : NULL;
        if (!def || def->loc.line <= 0) {
            carried++;
            continue;
        }
        int at = m++;
        while (at > 0 && pos[at - 1] > ra->r[v].lo) {
            pos[at] = pos[at - 1];
            at--;
        }
        pos[at] = ra->r[v].lo;
    }
    int places = 0;
    for (int i = 0; i < m; i++) {
        RkLoc loc = ra_instr_at(ra, pos[i])->loc;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = same_loc(ra_instr_at(ra, pos[j])->loc, loc);
        if (seen || places++ >= SHOWN)
            continue;
        int same = 0;
        for (int j = i; j < m; j++)
            same += same_loc(ra_instr_at(ra, pos[j])->loc, loc);
        rk_diag_note(loc, "%d of them %s %s", same, same == 1 ? "is" : "are",
                     same_loc(loc, ra->f->loc) ? "made on entry (uniforms, constants, counts)"
                                               : "computed here");
    }
    if (places > SHOWN)
        rk_diag_note((RkLoc){0, 0}, "and values computed at %d more place%s", places - SHOWN,
                     places - SHOWN == 1 ? "" : "s");
    if (carried)
        rk_diag_note((RkLoc){0, 0}, "%d of them %s", carried,
                     carried == 1 ? "is an argument or a value carried into a block"
                                  : "are arguments or values carried into a block");
}

_Noreturn void ra_out_of_registers(Ra *ra, int stuck, int cls)
{
    RkMFunc *f = ra->f;
    int live = 0;
    for (int g = 0; g < ra->t->regs[cls].count; g++)
        live += ra->owner[cls][g] != 0;
    rk_diag_source(ra->m->source, NULL);
    RkMInstr *in = ra_instr_at(ra, stuck);
    RkMBlock *blk = f->blocks[ra->pos.block[stuck]];
    RkLoc at = in ? in->loc : blk->term.loc;
    if (at.line <= 0)
        at = f->loc;
    rk_diag_error(at, "%s %s needs more than the %d %s registers of %s%s at once: %d values "
                      "are live here; Rake never spills to the stack",
                  rk_mir_is_run(f) ? "run" : f->kind, f->name, rk_target_allocatable(ra->t, (RkRegClass)cls),
                  class_words(cls), ra->t->profile, reserved_note(ra->t, cls), live);
    note_holders(ra, cls);
    if (ra_refused_file) { /* for rakec, which may lower f again for pressure */
        FILE *o = fopen(ra_refused_file, "a");
        if (!o || fprintf(o, "%s\n", f->name) < 0 || fclose(o))
            rk_diag_internal("cannot write %s", ra_refused_file);
        longjmp(ra_next_function, 1); /* and the other functions are tried */
    }
    exit(RK_EXIT_USER);
}

/* live.c: where each virtual register is live.
 *
 * Liveness is the usual backward data flow over the control-flow graph,
 * on bit sets as wide as the function has virtual registers: a block's
 * live-in set is what it reads before writing (jump arguments are read by
 * the terminator; parameters are written on entry) plus what is live out
 * and not written; live-out is the union of the successors' live-in
 * sets; iterate to the fixed point.
 *
 * Each virtual register then gets its live segments, one per block at
 * most: from its definition (or the start of the block, if it is live
 * into it) to its last use (or the end of the block, if it is live out of
 * it), adjacent ones merged.  Between them are holes: a value defined
 * before a loop and read after it is live across the loop, but the two
 * copies of a loop rake-lower writes (one checked, one fast) each leave
 * a hole in what only the other reads, and a loop-carried value's old
 * and new versions meet without overlapping.  The scan (scan.c) gives
 * two values one register only where their segments don't overlap.  lo
 * and hi are the hull: the first and last position of any segment. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ra.h"

void ra_positions(Ra *ra)
{
    RkMFunc *f = ra->f;
    Pos *p = &ra->pos;
    p->start = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(f->nblocks + 1));
    int n = 0;
    for (int b = 0; b < f->nblocks; b++) {
        p->start[b] = n;
        n += f->blocks[b]->ninstrs + 2;
    }
    p->start[f->nblocks] = n;
    p->n = n;
    p->block = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    for (int b = 0; b < f->nblocks; b++)
        for (int q = p->start[b]; q < p->start[b + 1]; q++)
            p->block[q] = b;
}

RkMInstr *ra_instr_at(Ra *ra, int pos)
{
    int b = ra->pos.block[pos];
    int i = pos - ra->pos.start[b] - 1;
    RkMBlock *blk = ra->f->blocks[b];
    return i >= 0 && i < blk->ninstrs ? &blk->instrs[i] : NULL;
}

/* --- bit sets ------------------------------------------------------------------------- */

typedef struct Sets {
    int words;
    uint64_t *gen, *kill, *in, *out; /* per block, `words` each */
} Sets;

static uint64_t *row(uint64_t *s, int words, int b) { return s + (size_t)b * (size_t)words; }

static void mark_use(Sets *s, int b, int v)
{
    uint64_t bit = 1ull << (v & 63);
    if (!(row(s->kill, s->words, b)[v >> 6] & bit))
        row(s->gen, s->words, b)[v >> 6] |= bit;
}

static void mark_def(Sets *s, int b, int v) { row(s->kill, s->words, b)[v >> 6] |= 1ull << (v & 63); }

/* The registers an operand names: at most three (out has room for them). */
static void op_regs(const RkMOp *o, RkMReg *out, int *n)
{
    *n = 0;
    if (o->kind == RK_MO_REG) {
        out[(*n)++] = o->reg;
        if (o->mask.num >= 0)
            out[(*n)++] = o->mask;
    } else if (o->kind == RK_MO_MEM) {
        if (o->reg.num >= 0)
            out[(*n)++] = o->reg;
        if (o->index.num >= 0)
            out[(*n)++] = o->index;
        if (o->mask.num >= 0) /* a masked store */
            out[(*n)++] = o->mask;
    }
}

/* Whether the register at index k of op_regs is written (only the
 * register of a REG operand can be; masks and addresses are read). */
static bool op_writes(const RkMOp *o, int k) { return k == 0 && o->kind == RK_MO_REG && o->def; }
static bool op_reads(const RkMOp *o, int k) { return k > 0 || o->kind != RK_MO_REG || o->use; }

static void block_sets(Ra *ra, Sets *s, int b)
{
    RkMBlock *blk = ra->f->blocks[b];
    for (int k = 0; k < blk->nparams; k++)
        mark_def(s, b, blk->params[k].num);
    for (int i = 0; i < blk->ninstrs; i++) {
        RkMInstr *in = &blk->instrs[i];
        for (int pass = 0; pass < 2; pass++) /* reads before writes */
            for (int k = 0; k < in->nops; k++) {
                RkMReg regs[3]; /* base, index and mask of a masked store */
                int n;
                op_regs(&in->ops[k], regs, &n);
                for (int j = 0; j < n; j++) {
                    if (!regs[j].virt)
                        continue;
                    if (pass == 0 && op_reads(&in->ops[k], j))
                        mark_use(s, b, regs[j].num);
                    if (pass == 1 && op_writes(&in->ops[k], j))
                        mark_def(s, b, regs[j].num);
                }
            }
    }
    RkMTerm *t = &blk->term;
    for (int k = 0; k < t->nargs; k++)
        mark_use(s, b, t->args[k].num);
    const RkMOp *r = rk_mir_term_reg(t);
    if (r && r->reg.virt)
        mark_use(s, b, r->reg.num);
}

static Sets liveness(Ra *ra)
{
    RkMFunc *f = ra->f;
    Sets s;
    s.words = (f->nvregs + 63) / 64 + 1;
    size_t total = (size_t)s.words * (size_t)f->nblocks;
    s.gen = calloc(total, 8);
    s.kill = calloc(total, 8);
    s.in = calloc(total, 8);
    s.out = calloc(total, 8);
    if (!s.gen || !s.kill || !s.in || !s.out)
        rk_diag_internal("out of memory for liveness");
    for (int b = 0; b < f->nblocks; b++)
        block_sets(ra, &s, b);
    for (bool changed = true; changed;) {
        changed = false;
        for (int b = f->nblocks - 1; b >= 0; b--) {
            const RkMTerm *t = &f->blocks[b]->term;
            uint64_t *out = row(s.out, s.words, b), *in = row(s.in, s.words, b);
            for (int w = 0; w < s.words; w++) {
                uint64_t o = 0;
                for (int k = 0; k < rk_mir_nsuccs(t); k++)
                    o |= row(s.in, s.words, rk_mir_succ(t, k))[w];
                uint64_t i = row(s.gen, s.words, b)[w] | (o & ~row(s.kill, s.words, b)[w]);
                changed |= o != out[w] || i != in[w];
                out[w] = o;
                in[w] = i;
            }
        }
    }
    return s;
}

/* --- intervals ------------------------------------------------------------------------ */

static void touch(Range *x, int pos)
{
    if (x->lo == -2 || pos < x->lo)
        x->lo = pos;
    if (pos > x->hi)
        x->hi = pos;
}

bool ra_live_at(const Ra *ra, int v, int pos)
{
    const Range *x = &ra->r[v];
    for (int i = 0; i < x->nseg && x->seg[i].lo <= pos; i++)
        if (pos <= x->seg[i].hi)
            return true;
    return false;
}

static void add_seg(Range *x, int lo, int hi)
{
    if (x->nseg && x->seg[x->nseg - 1].hi + 1 >= lo) {
        if (hi > x->seg[x->nseg - 1].hi)
            x->seg[x->nseg - 1].hi = hi;
        return;
    }
    if (x->nseg == x->capseg) {
        x->capseg = x->capseg ? 2 * x->capseg : 4;
        Seg *grown = rk_arena_alloc(&rk_heap, sizeof *grown * (size_t)x->capseg);
        if (x->nseg)
            memcpy(grown, x->seg, sizeof *grown * (size_t)x->nseg);
        x->seg = grown;
    }
    x->seg[x->nseg++] = (Seg){lo, hi};
}

static void fixed_at(Ra *ra, RkMReg r, int pos, bool def, bool use)
{
    int c = r.cls, n = r.num;
    if (ra->nfixed[c][n] == ra->capfixed[c][n]) {
        int cap = ra->capfixed[c][n] ? 2 * ra->capfixed[c][n] : 8;
        Fixed *x = rk_arena_alloc(&rk_heap, sizeof *x * (size_t)cap);
        if (ra->nfixed[c][n])
            memcpy(x, ra->fixed[c][n], sizeof *x * (size_t)ra->nfixed[c][n]);
        ra->fixed[c][n] = x;
        ra->capfixed[c][n] = cap;
    }
    ra->fixed[c][n][ra->nfixed[c][n]++] = (Fixed){pos, def, use};
}

static void instr_ranges(Ra *ra, RkMInstr *in, int pos)
{
    for (int k = 0; k < in->nops; k++) {
        RkMReg regs[3];
        int n;
        op_regs(&in->ops[k], regs, &n);
        for (int j = 0; j < n; j++) {
            if (regs[j].virt)
                touch(&ra->r[regs[j].num], pos);
            else
                fixed_at(ra, regs[j], pos, op_writes(&in->ops[k], j),
                         op_reads(&in->ops[k], j));
        }
    }
    /* a move into the result register: its source prefers that register */
    const RkMFunc *f = ra->f;
    if (in->nops == 2 && !strcmp(in->origin, "result") && in->ops[0].kind == RK_MO_REG &&
        !in->ops[0].reg.virt && in->ops[0].def && in->ops[0].mask.num < 0 &&
        in->ops[0].reg.cls == RK_RC_VEC && in->ops[1].kind == RK_MO_REG &&
        in->ops[1].reg.virt && f->result.num >= 0)
        ra->r[in->ops[1].reg.num].hint = in->ops[0].reg.num;
}

/* Block b's segment of each vreg: the hull of its positions in b (blk[v]),
 * appended to the vreg's list. */
static void block_segments(Ra *ra, const Sets *s, int b, Range *blk)
{
    RkMFunc *f = ra->f;
    RkMBlock *bl = f->blocks[b];
    int start = ra->pos.start[b], end = ra->pos.start[b + 1] - 1;
    for (int v = 0; v < f->nvregs; v++) {
        blk[v].lo = blk[v].hi = -2;
        blk[v].hint = -1;
    }
    for (int v = 0; v < f->nvregs; v++) {
        uint64_t bit = 1ull << (v & 63);
        if (row(s->in, s->words, b)[v >> 6] & bit)
            touch(&blk[v], b == 0 && ra->r[v].pinned ? -1 : start);
        if (row(s->out, s->words, b)[v >> 6] & bit) {
            touch(&blk[v], end);
            ra->r[v].live_out = true;
        }
    }
    for (int k = 0; k < bl->nparams; k++)
        touch(&blk[bl->params[k].num], start);
    Range *saved = ra->r;
    ra->r = blk; /* instr_ranges touches the block's ranges */
    for (int i = 0; i < bl->ninstrs; i++)
        instr_ranges(ra, &bl->instrs[i], start + 1 + i);
    ra->r = saved;
    for (int v = 0; v < f->nvregs; v++)
        if (blk[v].hint >= 0)
            ra->r[v].hint = blk[v].hint;
    for (int k = 0; k < bl->term.nargs; k++)
        touch(&blk[bl->term.args[k].num], end);
    const RkMOp *tr = rk_mir_term_reg(&bl->term);
    if (tr && tr->reg.virt)
        touch(&blk[tr->reg.num], end);
    for (int v = 0; v < f->nvregs; v++)
        if (blk[v].lo != -2) {
            if (b == 0 && ra->r[v].pinned)
                blk[v].lo = -1; /* an argument is live from the entry */
            touch(&ra->r[v], blk[v].lo);
            touch(&ra->r[v], blk[v].hi);
            add_seg(&ra->r[v], blk[v].lo, blk[v].hi);
        }
}

void ra_intervals(Ra *ra)
{
    RkMFunc *f = ra->f;
    for (int c = 0; c < RK_RC_COUNT; c++)
        memset(ra->nfixed[c], 0, sizeof ra->nfixed[c]);
    for (int v = 0; v < f->nvregs; v++)
        ra->r[v] = (Range){-2, -2, NULL, 0, 0, -1, -1, false, false};
    for (int a = 0; a < f->nargs; a++) {
        if (f->args[a].stack >= 0)
            continue; /* loaded on entry into the register it is given */
        Range *x = &ra->r[f->args[a].vreg];
        x->lo = x->hi = -1;
        x->reg = f->args[a].reg.num;
        x->pinned = true;
    }
    Sets s = liveness(ra);
    Range *blk = calloc((size_t)f->nvregs + 1, sizeof *blk);
    if (!blk)
        rk_diag_internal("out of memory for live ranges");
    for (int b = 0; b < f->nblocks; b++)
        block_segments(ra, &s, b, blk);
    for (int a = 0; a < f->nargs; a++) { /* an unused argument: live at the entry */
        Range *x = &ra->r[f->args[a].vreg];
        if (!x->nseg && f->args[a].stack < 0)
            add_seg(x, -1, -1);
    }
    free(blk);
    free(s.gen);
    free(s.kill);
    free(s.in);
    free(s.out);
}

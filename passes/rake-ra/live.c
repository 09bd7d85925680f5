/* live.c: where each virtual register is live.
 *
 * Liveness is the usual least fixed point over the control-flow graph (a
 * block's live-in set is what it reads before writing, jump arguments
 * read by the terminator and parameters written on entry, plus what is
 * live out and not written; live-out is the union of the successors'
 * live-in sets), computed one value at a time: from each block that
 * reads a value before writing it, backwards through predecessors until
 * a block that writes it.  That costs as much as the values' live ranges
 * are long, where bit sets as wide as the function's values in every
 * block cost blocks times values: a general run of 3,000 checked
 * accesses (a trap block each) spent a second in them.
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

/* --- liveness, one value at a time ------------------------------------------------------ */

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

/* A (block, vreg) pair: an occurrence, or a membership of a live set. */
typedef struct Pair {
    int b, v;
} Pair;

typedef struct Pairs {
    Pair *p;
    size_t n, cap;
} Pairs;

static void pairs_add(Pairs *x, int b, int v)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 256;
        x->p = realloc(x->p, sizeof *x->p * x->cap);
        if (!x->p)
            rk_diag_internal("out of memory for liveness");
    }
    x->p[x->n++] = (Pair){b, v};
}

/* Pairs grouped by key (the block, or the vreg): first[k]..first[k + 1]
 * index items, in the order they were added. */
typedef struct Groups {
    int *first, *items;
} Groups;

static Groups group(const Pairs *x, int nkeys, bool by_block)
{
    Groups g = {calloc((size_t)nkeys + 2, sizeof(int)), malloc(sizeof(int) * (x->n + 1))};
    if (!g.first || !g.items)
        rk_diag_internal("out of memory for liveness");
    for (size_t i = 0; i < x->n; i++)
        g.first[(by_block ? x->p[i].b : x->p[i].v) + 2]++;
    for (int k = 0; k < nkeys; k++)
        g.first[k + 2] += g.first[k + 1];
    for (size_t i = 0; i < x->n; i++) {
        int k = by_block ? x->p[i].b : x->p[i].v;
        g.items[g.first[k + 1]++] = by_block ? x->p[i].v : x->p[i].b;
    }
    return g; /* first[k + 1] now ends group k, first[k] starts it */
}

static void groups_free(Groups *g)
{
    free(g->first);
    free(g->items);
}

/* Which blocks each vreg is read in before it is written there (uses)
 * and which blocks write it (defs); wrote[v] and used[v] are the last
 * block that wrote and read v (+ 1), so a read after a write in the same
 * block is no use, and each pair is noted once. */
typedef struct Occur {
    Pairs uses, defs;
    int *wrote, *used; /* per vreg: block + 1 */
} Occur;

static void note_use(Occur *o, int b, int v)
{
    if (o->wrote[v] != b + 1 && o->used[v] != b + 1) {
        o->used[v] = b + 1;
        pairs_add(&o->uses, b, v);
    }
}

static void note_def(Occur *o, int b, int v)
{
    if (o->wrote[v] != b + 1) {
        o->wrote[v] = b + 1;
        pairs_add(&o->defs, b, v);
    }
}

static void block_occurrences(Ra *ra, Occur *o, int b)
{
    RkMBlock *blk = ra->f->blocks[b];
    for (int k = 0; k < blk->nparams; k++)
        note_def(o, b, blk->params[k].num);
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
                        note_use(o, b, regs[j].num);
                    if (pass == 1 && op_writes(&in->ops[k], j))
                        note_def(o, b, regs[j].num);
                }
            }
    }
    RkMTerm *t = &blk->term;
    for (int k = 0; k < t->nargs; k++)
        note_use(o, b, t->args[k].num);
    const RkMOp *r = rk_mir_term_reg(t);
    if (r && r->reg.virt)
        note_use(o, b, r->reg.num);
}

/* Live sets, per block: the vregs live on entry and on exit. */
typedef struct Live {
    Groups in, out;
} Live;

/* Each vreg's liveness by exploring backwards from the blocks that read
 * it, through predecessors, stopping at blocks that write it: the least
 * fixed point of in = use + (out - def), out = the successors' in, as
 * the iterative bit-set data flow gives, in time proportional to how
 * far each value lives rather than blocks times values. */
static Live liveness(Ra *ra)
{
    RkMFunc *f = ra->f;
    int nb = f->nblocks, nv = f->nvregs;
    Occur o = {{0}, {0}, calloc((size_t)nv + 1, sizeof(int)), calloc((size_t)nv + 1, sizeof(int))};
    Pairs edges = {0}, in = {0}, out = {0};
    int *is_def = calloc((size_t)nb + 1, sizeof(int)), *in_at = calloc((size_t)nb + 1, sizeof(int));
    int *out_at = calloc((size_t)nb + 1, sizeof(int)), *work = malloc(sizeof(int) * ((size_t)nb + 1));
    if (!o.wrote || !o.used || !is_def || !in_at || !out_at || !work)
        rk_diag_internal("out of memory for liveness");
    for (int b = 0; b < nb; b++) {
        block_occurrences(ra, &o, b);
        const RkMTerm *t = &f->blocks[b]->term;
        for (int k = 0; k < rk_mir_nsuccs(t); k++)
            pairs_add(&edges, rk_mir_succ(t, k), b); /* "v" holds the predecessor */
    }
    Groups preds = group(&edges, nb, true), uses = group(&o.uses, nv, false),
           defs = group(&o.defs, nv, false);
    for (int v = 0; v < nv; v++) {
        int stamp = v + 1, top = 0;
        for (int i = defs.first[v]; i < defs.first[v + 1]; i++)
            is_def[defs.items[i]] = stamp;
        for (int i = uses.first[v]; i < uses.first[v + 1]; i++) {
            int b = uses.items[i];
            if (in_at[b] != stamp) {
                in_at[b] = stamp;
                pairs_add(&in, b, v);
                work[top++] = b;
            }
        }
        while (top) {
            int b = work[--top];
            for (int i = preds.first[b]; i < preds.first[b + 1]; i++) {
                int p = preds.items[i];
                if (out_at[p] == stamp)
                    continue;
                out_at[p] = stamp;
                pairs_add(&out, p, v);
                if (is_def[p] != stamp && in_at[p] != stamp) {
                    in_at[p] = stamp;
                    pairs_add(&in, p, v);
                    work[top++] = p;
                }
            }
        }
    }
    Live l = {group(&in, nb, true), group(&out, nb, true)};
    groups_free(&preds);
    groups_free(&uses);
    groups_free(&defs);
    free(o.uses.p);
    free(o.defs.p);
    free(o.wrote);
    free(o.used);
    free(edges.p);
    free(in.p);
    free(out.p);
    free(is_def);
    free(in_at);
    free(out_at);
    free(work);
    return l;
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

/* The vregs the current block names or has live, each listed once
 * (at[v]: the block it was listed for, + 1). */
typedef struct Touched {
    int *v, n;
    int *at, block;
} Touched;

static void note(Touched *t, int v)
{
    if (t->at[v] != t->block + 1) {
        t->at[v] = t->block + 1;
        t->v[t->n++] = v;
    }
}

/* Block b's segment of each vreg: the hull of its positions in b (blk[v]),
 * appended to the vreg's list.  blk[] is all untouched on entry and on
 * return; only the vregs the block names or has live are visited. */
static void block_segments(Ra *ra, const Live *l, int b, Range *blk, Touched *t)
{
    RkMFunc *f = ra->f;
    RkMBlock *bl = f->blocks[b];
    int start = ra->pos.start[b], end = ra->pos.start[b + 1] - 1;
    t->n = 0;
    t->block = b;
    for (int i = l->in.first[b]; i < l->in.first[b + 1]; i++) {
        int v = l->in.items[i];
        note(t, v);
        touch(&blk[v], b == 0 && ra->r[v].pinned ? -1 : start);
    }
    for (int i = l->out.first[b]; i < l->out.first[b + 1]; i++) {
        int v = l->out.items[i];
        note(t, v);
        touch(&blk[v], end);
        ra->r[v].live_out = true;
    }
    for (int k = 0; k < bl->nparams; k++) {
        note(t, bl->params[k].num);
        touch(&blk[bl->params[k].num], start);
    }
    for (int i = 0; i < bl->ninstrs; i++)
        for (int k = 0; k < bl->instrs[i].nops; k++) {
            RkMReg regs[3];
            int n;
            op_regs(&bl->instrs[i].ops[k], regs, &n);
            for (int j = 0; j < n; j++)
                if (regs[j].virt)
                    note(t, regs[j].num);
        }
    Range *saved = ra->r;
    ra->r = blk; /* instr_ranges touches the block's ranges */
    for (int i = 0; i < bl->ninstrs; i++)
        instr_ranges(ra, &bl->instrs[i], start + 1 + i);
    ra->r = saved;
    for (int k = 0; k < bl->term.nargs; k++) {
        note(t, bl->term.args[k].num);
        touch(&blk[bl->term.args[k].num], end);
    }
    const RkMOp *tr = rk_mir_term_reg(&bl->term);
    if (tr && tr->reg.virt) {
        note(t, tr->reg.num);
        touch(&blk[tr->reg.num], end);
    }
    for (int i = 0; i < t->n; i++) {
        int v = t->v[i];
        if (blk[v].hint >= 0)
            ra->r[v].hint = blk[v].hint;
        if (b == 0 && ra->r[v].pinned)
            blk[v].lo = -1; /* an argument is live from the entry */
        touch(&ra->r[v], blk[v].lo);
        touch(&ra->r[v], blk[v].hi);
        add_seg(&ra->r[v], blk[v].lo, blk[v].hi);
        blk[v] = (Range){-2, -2, NULL, 0, 0, -1, -1, false, false};
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
    Live l = liveness(ra);
    Range *blk = malloc(sizeof *blk * ((size_t)f->nvregs + 1));
    Touched t = {malloc(sizeof(int) * ((size_t)f->nvregs + 1)), 0,
                 calloc((size_t)f->nvregs + 1, sizeof(int)), 0};
    if (!blk || !t.v || !t.at)
        rk_diag_internal("out of memory for live ranges");
    for (int v = 0; v <= f->nvregs; v++)
        blk[v] = (Range){-2, -2, NULL, 0, 0, -1, -1, false, false};
    for (int b = 0; b < f->nblocks; b++)
        block_segments(ra, &l, b, blk, &t);
    for (int a = 0; a < f->nargs; a++) { /* an unused argument: live at the entry */
        Range *x = &ra->r[f->args[a].vreg];
        if (!x->nseg && f->args[a].stack < 0)
            add_seg(x, -1, -1);
    }
    free(blk);
    free(t.v);
    free(t.at);
    groups_free(&l.in);
    groups_free(&l.out);
}

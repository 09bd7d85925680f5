/* resolve.c: writing the allocation into the code.
 *
 * Every virtual register operand (and write mask, and address register)
 * becomes its physical register, keeping its view.  Block parameters go:
 * each jump that passes arguments gets the copies that put them in the
 * parameters' registers, as a parallel move (a copy waits while its
 * destination is still to be read; a cycle goes through a register of
 * the class that is free at the jump, and a cycle with none is a located
 * error).  Copies of a register onto itself are dropped, and the
 * callee-saved registers the function writes are recorded for the
 * prologue and epilogue. */
#include <string.h>

#include "arena.h"
#include "ra.h"

static RkMReg phys(Ra *ra, RkMReg r)
{
    if (!r.virt || r.num < 0)
        return r;
    if (ra->r[r.num].reg < 0)
        rk_diag_internal("%s: v%d has no register", ra->f->name, r.num);
    return rk_mreg((RkRegClass)r.cls, false, ra->r[r.num].reg);
}

static void rewrite_op(Ra *ra, RkMOp *o)
{
    o->reg = phys(ra, o->reg);
    o->index = phys(ra, o->index);
    o->mask = phys(ra, o->mask);
}

typedef struct Move {
    RkMReg dst, src;
} Move;

static void copy_instr(Ra *ra, RkMBlock *b, RkMReg dst, RkMReg src)
{
    RkMInstr in;
    memset(&in, 0, sizeof in);
    in.op = ra->t->regs[dst.cls].copy;
    in.origin = "move";
    in.nir = -1;
    in.loc = b->term.loc;
    RkMInstr *x = rk_mir_insert(b, b->ninstrs, &in);
    rk_mir_operand(x, rk_mo_reg(dst, 0, true, false));
    rk_mir_operand(x, rk_mo_reg(src, 0, false, true));
}

/* A register of the class free at the terminator of block b, in no
 * pending move and written by none of the jump's moves (done[0..ndone):
 * with live ranges that have holes, a destination already written holds
 * the next block's parameter though no value is live there yet), or -1. */
static int free_at(Ra *ra, int b, int cls, const Move *mv, int n, const Move *done, int ndone)
{
    int pos = ra->pos.start[b + 1] - 1;
    for (const int8_t *o = ra->t->regs[cls].order; o && *o >= 0; o++) {
        int g = *o;
        if (g >= ra->t->regs[cls].count || (ra->t->regs[cls].reserved >> g & 1u))
            continue;
        bool busy = false;
        for (int v = 0; v < ra->f->nvregs && !busy; v++)
            busy = ra->f->vclass[v] == cls && ra->r[v].reg == g && ra_live_at(ra, v, pos);
        for (int k = 0; k < n && !busy; k++)
            busy = (mv[k].dst.cls == cls && mv[k].dst.num == g) ||
                   (mv[k].src.cls == cls && mv[k].src.num == g);
        for (int k = 0; k < ndone && !busy; k++)
            busy = done[k].dst.cls == cls && done[k].dst.num == g;
        if (!busy)
            return g;
    }
    return -1;
}

static bool is_src(const Move *mv, int n, RkMReg r)
{
    for (int k = 0; k < n; k++)
        if (rk_mreg_eq(mv[k].src, r))
            return true;
    return false;
}

static void parallel_move(Ra *ra, int b, Move *mv, int n)
{
    RkMBlock *blk = ra->f->blocks[b];
    Move *all = rk_arena_alloc(&rk_heap, sizeof *all * (size_t)(n + 1));
    int nall = n;
    if (n)
        memcpy(all, mv, sizeof *all * (size_t)n);
    while (n > 0) {
        int k = 0;
        while (k < n && is_src(mv, n, mv[k].dst))
            k++;
        if (k < n) {
            copy_instr(ra, blk, mv[k].dst, mv[k].src);
            mv[k] = mv[--n];
            continue;
        }
        /* every destination is still to be read: a cycle */
        int cls = mv[0].src.cls, g = free_at(ra, b, cls, mv, n, all, nall);
        if (g < 0) {
            rk_diag_source(ra->m->source, NULL);
            rk_diag_fatal(blk->term.loc.line > 0 ? blk->term.loc : ra->f->loc,
                          "%s %s: the jump from %s swaps %s registers, and none is free to "
                          "swap through; Rake never spills to the stack",
                          ra->f->kind, ra->f->name, blk->label,
                          rk_reg_class_name((RkRegClass)cls));
        }
        RkMReg tmp = rk_mreg((RkRegClass)cls, false, g);
        copy_instr(ra, blk, tmp, mv[0].src);
        if (ra->t->regs[cls].callee_saved >> g & 1u)
            ra->f->saved[cls] |= 1ull << g;
        for (int j = 0; j < n; j++)
            if (rk_mreg_eq(mv[j].src, mv[0].src))
                mv[j].src = tmp;
    }
}

static void resolve_jump(Ra *ra, int b)
{
    RkMBlock *blk = ra->f->blocks[b];
    RkMTerm *t = &blk->term;
    if (t->kind != RK_MT_JUMP || !t->nargs)
        return;
    RkMBlock *to = ra->f->blocks[t->then];
    Move *mv = rk_arena_alloc(&rk_heap, sizeof *mv * (size_t)t->nargs);
    int n = 0;
    for (int k = 0; k < t->nargs; k++) {
        RkMReg d = phys(ra, to->params[k]), s = phys(ra, t->args[k]);
        if (!rk_mreg_eq(d, s))
            mv[n++] = (Move){d, s};
    }
    parallel_move(ra, b, mv, n);
    t->nargs = 0;
    t->args = NULL;
}

static bool self_copy(const RkTarget *t, const RkMInstr *in)
{
    if (!rk_target_insn_is(t, in->op, RK_I_COPY) || in->nops != 2)
        return false;
    const RkMOp *a = &in->ops[0], *b = &in->ops[1];
    return a->kind == RK_MO_REG && b->kind == RK_MO_REG && a->mask.num < 0 &&
           rk_mreg_eq(a->reg, b->reg) && a->bits == b->bits;
}

static void record_saved(Ra *ra, const RkMOp *o)
{
    if (o->kind == RK_MO_REG && o->def && !o->reg.virt &&
        (ra->t->regs[o->reg.cls].callee_saved >> o->reg.num & 1u))
        ra->f->saved[o->reg.cls] |= 1ull << o->reg.num;
}

void ra_resolve(Ra *ra)
{
    RkMFunc *f = ra->f;
    for (int a = 0; a < f->nargs; a++) /* a stack argument's register (none if unused) */
        if (f->args[a].stack >= 0)
            f->args[a].reg = rk_mreg(RK_RC_GPR, false, ra->r[f->args[a].vreg].reg);
    for (int b = 0; b < f->nblocks; b++)
        resolve_jump(ra, b);
    for (int b = 0; b < f->nblocks; b++) {
        RkMBlock *blk = f->blocks[b];
        int n = 0;
        for (int i = 0; i < blk->ninstrs; i++) {
            RkMInstr *in = &blk->instrs[i];
            for (int k = 0; k < in->nops; k++) {
                rewrite_op(ra, &in->ops[k]);
                record_saved(ra, &in->ops[k]);
            }
            if (!self_copy(ra->t, in))
                blk->instrs[n++] = *in;
        }
        blk->ninstrs = n;
        blk->nparams = 0;
        blk->params = NULL;
        RkMOp *tr = rk_mir_term_reg(&blk->term);
        if (tr)
            rewrite_op(ra, tr);
    }
    for (int v = 0; v < f->nvregs; v++) {
        int c = f->vclass[v], g = ra->r[v].reg;
        if (g >= 0 && (ra->t->regs[c].callee_saved >> g & 1u))
            f->saved[c] |= 1ull << g;
    }
}

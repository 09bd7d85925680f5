/* commute.c: a copy into a commuting operation copies the operand that
 * dies there.
 *
 * A two-operand encoding (SSE2's addps, andps, orps, ...) makes the
 * selector write `d = a op b` as `copy d <- a; op d, b`.  When a lives on
 * and b dies at the operation, the copy stays: d and a are live at once.
 * The operation commutes, so `copy d <- b; op d, a` means the same, and
 * then b, dying at the copy, hands its register to d and the copy is a
 * move of a register onto itself, which goes.  When a dies at the copy
 * too, the swap is made if d has a hint (the result register, where the
 * last operation's value goes) that a isn't already in (an argument): b
 * can hand d that register.  Only operations the target
 * table marks RK_I_COMMUTE (not min and max: their second operand decides
 * NaNs and signed zeros), with plain register operands of one class and
 * view.  Runs once, on the first intervals; the caller recomputes them. */
#include "ra.h"

static bool plain(const RkMOp *o)
{
    return o->kind == RK_MO_REG && o->reg.virt && o->mask.num < 0 && !o->zero;
}

/* Whether c and op are `copy d <- a; op d, b` with a commuting op and
 * plain registers that allow the swap. */
static bool pattern(const Ra *ra, const RkMInstr *c, const RkMInstr *op)
{
    if (!rk_target_insn_is(ra->t, c->op, RK_I_COPY) || c->nops != 2 ||
        !rk_target_insn_is(ra->t, op->op, RK_I_COMMUTE) ||
        op->nops != 2)
        return false;
    const RkMOp *d = &c->ops[0], *a = &c->ops[1], *x = &op->ops[0], *b = &op->ops[1];
    return plain(d) && plain(a) && plain(x) && plain(b) && d->def && !d->use && x->def &&
           x->use && !b->def && x->reg.num == d->reg.num && a->bits == b->bits &&
           d->bits == x->bits && a->reg.cls == b->reg.cls && b->reg.num != a->reg.num &&
           b->reg.num != d->reg.num;
}

bool ra_commute(Ra *ra)
{
    bool changed = false;
    RkMFunc *f = ra->f;
    for (int blk = 0; blk < f->nblocks; blk++) {
        RkMBlock *bl = f->blocks[blk];
        for (int i = 0; i + 1 < bl->ninstrs; i++) {
            RkMInstr *c = &bl->instrs[i], *op = &bl->instrs[i + 1];
            if (!pattern(ra, c, op))
                continue;
            int at = ra->pos.start[blk] + 1 + i + 1;
            int a = c->ops[1].reg.num, b = op->ops[1].reg.num, d = c->ops[0].reg.num;
            /* a living on, or (both dying) d wanting a register b can
             * hand it (the result's: `andps %xmm2, %xmm0` with no move
             * into the result register after it), unless a is the
             * argument already in that register, which hands it at the
             * copy as it is */
            bool both = ra->r[a].hi <= at;
            if (ra->r[b].hi != at ||
                (both && (ra->r[d].hint < 0 ||
                          (ra->r[a].pinned && ra->r[a].reg == ra->r[d].hint))))
                continue;
            c->ops[1].reg.num = b;
            op->ops[1].reg.num = a;
            changed = true;
        }
    }
    return changed;
}

/* mirfold.c: a pool constant as an instruction's memory operand.
 *
 * x86 reads the last register source of most vector instructions from
 * memory as well (the target table's RK_I_MEMSRC), so a constant need not
 * be loaded into a register first: `vcmpltps .LC0(%rip), %ymm0, %ymm1`.
 * rake-isel-x86 folds the constants whose every reader allows it
 * (fold.c); rake-ra folds a constant it gives back to the readers that
 * allow it when it runs out of registers (scan.c).  Both ask here, so the
 * two agree on what may be folded: the table's facts, the operand's
 * position, and the swap of a commuting instruction's or a comparison's
 * sources that puts the constant last. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "mir.h"

/* The operand that may be memory: the last register source, or for a
 * four-register form (vblendvps d, a, b, m) the third. */
static int memsrc_index(const RkMInstr *in)
{
    int last = -1;
    for (int k = 1; k < in->nops; k++)
        if (in->ops[k].kind != RK_MO_IMM && in->ops[k].kind != RK_MO_LABEL)
            last = k;
    return in->nops == 4 && last == 3 ? 2 : last;
}

bool rk_mir_const_load(const RkMInstr *in)
{
    return in && in->op && in->nops == 2 && in->ops[1].kind == RK_MO_CONST && in->ops[0].def &&
           !in->ops[0].use;
}

bool rk_mir_foldable(const RkTarget *t, RkMInstr *in, int *kp, int v)
{
    int k = *kp;
    const RkInsnDesc *d = rk_target_insn(t, in->op);
    if (!d || !(d->flags & RK_I_MEMSRC))
        return false;
    RkMOp *o = &in->ops[k];
    if (o->def || o->bits || o->mask.num >= 0)
        return false;
    int m = memsrc_index(in);
    if (k == m)
        return true;
    /* the memory operand is read first: swap the sources, unless the
     * other is the same value or not a register, when the instruction
     * commutes or is a comparison whose predicate swaps with them
     * (keys > t as t < keys) */
    int sp = (d->flags & RK_I_PREDICATE) && t->swap_predicate && in->nops == 4 &&
                     in->ops[3].kind == RK_MO_IMM
                 ? t->swap_predicate(d, in->ops[3].imm)
                 : -1;
    if (!((d->flags & RK_I_COMMUTE) || sp >= 0) || k != 1 || m != 2 ||
        in->ops[2].kind != RK_MO_REG || rk_mir_is_vreg(&in->ops[2], RK_RC_VEC, v) || in->ops[2].def ||
        in->ops[2].bits)
        return false;
    RkMOp t2 = in->ops[1];
    in->ops[1] = in->ops[2];
    in->ops[2] = t2;
    if (sp >= 0)
        in->ops[3].imm = sp;
    *kp = 2;
    return true;
}

int rk_mir_const_wide(RkMFunc *f, int c, int bytes)
{
    const RkMConst *k = &f->consts[c];
    if (k->size == bytes)
        return c;
    if (k->size != 4)
        return -1;
    uint32_t w[16];
    if (bytes > (int)sizeof w)
        rk_diag_internal("a %d-byte vector constant", bytes);
    for (int i = 0; i < bytes / 4; i++)
        w[i] = k->words[0];
    return rk_mir_const(f, bytes, w);
}

void rk_mir_compact_pool(RkMFunc *f)
{
    int *map = rk_arena_alloc(&rk_heap, sizeof *map * (size_t)(f->nconsts + 1));
    for (int i = 0; i < f->nconsts; i++)
        map[i] = -1;
    RkMConst *keep = rk_arena_alloc(&rk_heap, sizeof *keep * (size_t)(f->nconsts + 1));
    int n = 0;
    for (int b = 0; b < f->nblocks; b++)
        for (int i = 0; i < f->blocks[b]->ninstrs; i++) {
            RkMInstr *in = &f->blocks[b]->instrs[i];
            for (int k = 0; k < in->nops; k++)
                if (in->ops[k].kind == RK_MO_CONST) {
                    int c = (int)in->ops[k].imm;
                    if (map[c] < 0) {
                        map[c] = n;
                        keep[n++] = f->consts[c];
                    }
                    in->ops[k].imm = map[c];
                }
        }
    if (n)
        memcpy(f->consts, keep, sizeof *keep * (size_t)n);
    f->nconsts = n;
}

/* slow.c: a run's `slow { }` block, from rake.nir's slow.call to
 * rake.mir's call.slow.
 *
 * The block itself is C (rake-cgen's rk_slow_LINE_COL); the run calls it
 * through a trampoline rake-emit writes after the run, which saves and
 * restores every register (target.h, RkSlowCall), so the values the run
 * keeps in registers across the call stay where they are and the
 * allocator sees call.slow as one instruction reading the captured values
 * and writing the block's. */
#include <stdio.h>

#include "arena.h"
#include "isel.h"

/* A 32-bit scalar a slow block can exchange with the run. */
static bool slot_scalar(const RkType *t)
{
    return t && t->kind == RK_T_SCALAR &&
           (t->elem == RK_E_F32 || t->elem == RK_E_I32 || t->elem == RK_E_U32);
}

/* A `slow { }` block: call.slow reads the values the block reads (uniform
 * scalars, in vector registers like every 32-bit uniform) and writes its
 * value; its immediates name the block (rake-cgen's rk_slow_LINE_COL).
 * rake-emit spells it as a call of a trampoline that keeps every
 * register, so the values live across it stay where they are. */
int select_slow_call(RkInstr *in)
{
    int line = 0, col = 0;
    if (!in->text || sscanf(in->text, "%d:%d", &line, &col) != 2)
        rk_diag_internal("%s: slow.call %%%d names no block", S->nf->name, in->id);
    for (int i = 0; i < in->nargs; i++)
        if (!slot_scalar(S->type[in->args[i]]))
            rk_diag_fatal(in->loc, "native stack run %s: a slow block reading a %s value is "
                                   "work in progress natively (f32, i32 and u32 are "
                                   "implemented)",
                          S->nf->name, rk_ty_str(S->type[in->args[i]]));
    bool value = in->type && in->type->kind != RK_T_UNIT;
    if (value && !slot_scalar(in->type))
        rk_diag_fatal(in->loc, "native stack run %s: a slow block giving %s is work in progress "
                               "natively (f32, i32 and u32 are implemented)",
                      S->nf->name, rk_ty_str(in->type));
    RkMInstr *mi = rk_mir_add(S->mf, "call.slow", S->origin, S->nir);
    mi->loc = S->loc;
    int d = value ? fresh() : -1;
    if (value)
        rk_mir_operand(mi, rk_mvd(d));
    rk_mir_operand(mi, rk_mi(line));
    rk_mir_operand(mi, rk_mi(col));
    for (int i = 0; i < in->nargs; i++)
        rk_mir_operand(mi, rk_mv(S->vreg[in->args[i]]));
    return d;
}


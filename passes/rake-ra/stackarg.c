/* stackarg.c: a run's stack arguments, loaded again from their slots.
 *
 * System V passes a run's integer arguments past the sixth on the stack
 * (a view's pointer or count, an i32 uniform: docs/runs.md, "Arguments
 * on the stack"), and the flattening loads each into the register rake-ra
 * gave it after the prologue (lib/mir.c).  The slot is the caller's
 * memory, which nothing in a run writes (a run stores only through its
 * views and its stacks' columns, never through the stack pointer, and its
 * slow blocks' C can't name the slot), so the value can be loaded again
 * wherever it is read: like a column pointer reloaded from its
 * descriptor, this is a reload, not a spill.
 *
 * When general registers run out and no constant or column pointer can
 * go (scan.c), the value the scan could not place, or else a value held
 * in a register at the stuck position and not read there, is given back
 * if it is
 *   - a stack argument itself (the target's stack load: `movl 16(%rsp)`),
 *     or
 *   - the sign extension of a 32-bit stack argument (rake-lower widens a
 *     view's count and a loop's bounds to i64 once at entry), loaded
 *     again as the same instruction with the slot as its source
 *     (`movslq 16(%rsp), %rax`).
 * Its readers then each read a fresh copy loaded right before them (one
 * per block, ra_split_with); a given-back argument's own entry load goes
 * (it has no reader left), and a sign extension's definition goes.  The
 * one read again last is given back first.  The reloads' origin is
 * "stack.arg" and their displacement is the slot's before the prologue's
 * pushes; rk_mir_flatten adds those, and rake-verify accepts a read of
 * the stack pointer only at an argument's slot. */
#include <string.h>

#include "arena.h"
#include "nirops.h"
#include "ra.h"

/* The argument arriving on the stack that vreg v holds on entry, or -1. */
static int stack_arg(const RkMFunc *f, int v)
{
    for (int a = 0; a < f->nargs; a++)
        if (f->args[a].stack >= 0 && f->args[a].vreg == v)
            return a;
    return -1;
}

/* The load of argument a's slot into v: bits 32 or 64. */
static RkMOp slot_operand(const Ra *ra, const RkMArg *a, int bits)
{
    const RkTarget *t = ra->t;
    return rk_mmem(rk_mreg(RK_RC_GPR, false, t->stack_pointer), rk_mreg(RK_RC_GPR, false, -1), 1,
                   rk_mir_arg_slot(t, a), bits, false);
}

/* Whether v may be given back: held whole, written once (or never: an
 * argument), not limited to some registers, not a block parameter and
 * not a register a branch tests. */
static bool movable(Ra *ra, int v)
{
    return !ra->r[v].pinned && ra->allowed[v] == ~0ull && !ra_carried(ra, v, RK_RC_GPR);
}

/* The instruction that loads v again from its slot, or false: *drop
 * says whether v's own definition goes. */
static bool reload_of(Ra *ra, int v, RkMInstr *load, bool *drop)
{
    const RkMFunc *f = ra->f;
    const RkTarget *t = ra->t;
    int a = stack_arg(f, v);
    if (a >= 0) { /* the argument itself */
        if (ra->writes[v] != 0)
            return false;
        bool word = f->args[a].bits == 32;
        RkMOp *ops = rk_arena_alloc(&rk_heap, sizeof *ops * 2);
        ops[0] = rk_mo_reg(rk_mreg(RK_RC_GPR, true, v), word ? 32 : 0, true, false);
        ops[1] = slot_operand(ra, &f->args[a], word ? 32 : 64);
        *load = (RkMInstr){t->stack_load[!word], ops, 2, RK_MIR_STACK_ARG, -1, f->loc, true};
        *drop = false;
        return true;
    }
    /* the sign extension of a 32-bit argument: u.cvt from its register */
    const RkMInstr *def = ra->r[v].lo >= 0 ? ra_instr_at(ra, ra->r[v].lo) : NULL;
    if (!def || !ra_defines(def, v) || ra->writes[v] != 1 || !def->origin ||
        strcmp(def->origin, rk_nir_op_name(RK_OP_U_CVT)) || def->nops != 2 ||
        def->ops[0].bits != 0 || def->ops[1].kind != RK_MO_REG || !def->ops[1].reg.virt ||
        def->ops[1].reg.cls != RK_RC_GPR || def->ops[1].bits != 32)
        return false;
    int src = def->ops[1].reg.num;
    a = stack_arg(f, src);
    if (a < 0 || ra->writes[src] != 0 || f->args[a].bits != 32)
        return false;
    RkMOp *ops = rk_arena_alloc(&rk_heap, sizeof *ops * 2);
    ops[0] = def->ops[0];
    ops[1] = slot_operand(ra, &f->args[a], 32);
    *load = (RkMInstr){def->op, ops, 2, RK_MIR_STACK_ARG, def->nir, def->loc, true};
    *drop = true;
    return true;
}

bool ra_stack_reload(Ra *ra, int stuck, int cls)
{
    if (cls != RK_RC_GPR || !ra->t->stack_load[0] || !rk_mir_is_run(ra->f))
        return false;
    int victim = -1, victim_next = -1;
    RkMInstr load, best;
    bool drop = false, best_drop = false;
    /* the value the scan could not place, when it is one: an argument
     * first read late is live from the entry, where every register was
     * given to something; loaded where it is read, it needs a register
     * only there */
    for (int v = 0; v < ra->f->nvregs; v++)
        if (ra->f->vclass[v] == RK_RC_GPR && ra->r[v].reg < 0 && ra_occurs_at(ra, stuck, v) &&
            movable(ra, v) && reload_of(ra, v, &load, &drop)) {
            ra_split_with(ra, v, stuck, cls, &load, drop);
            return true;
        }
    for (int g = 0; g < ra->t->regs[cls].count; g++) {
        int v = ra->owner[cls][g] - 1;
        if (v < 0 || ra_occurs_at(ra, stuck, v) || !movable(ra, v) || !reload_of(ra, v, &load, &drop))
            continue;
        int next = ra_next_use(ra, v, stuck);
        if (next > victim_next) {
            victim = v, victim_next = next;
            best = load, best_drop = drop;
        }
    }
    if (victim < 0)
        return false;
    ra_split_with(ra, victim, stuck, cls, &best, best_drop);
    return true;
}

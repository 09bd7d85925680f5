/* recompute.c: the last resort before a refusal, computing a value again.
 *
 * When every register of a class is taken at a position and no constant,
 * column pointer or column load can be given back (scan.c), a value
 * computed from others may still go: if everything it was computed from
 * is still live, unchanged, where it is next read, the same instructions
 * can run again right before that read.  Its register is then free from
 * its last read before the stuck position to the new computation.  This
 * is what keeps `if`s and sweep arms that read a select of long-lived
 * columns (`mask.select %m, %a, 0` is one andps of two live values)
 * from needing a register for every such select across the whole rake.
 *
 * A value qualifies when it is written only by one run of consecutive
 * instructions in one block (x86's two-operand forms copy, then rewrite:
 * `movaps =v, a; andnps +v, b`), the first writing it whole and unmasked,
 * each writing nothing else, none touching memory, the flags or a
 * physical register, and each source it reads (register, mask, index)
 * live at the next read and not written between the computation and it.
 * It must not cross a block edge or have a register limit of its own.
 * The computation costs instructions, so scan.c tries it only after
 * every cheaper way has failed: a function that allocated before
 * allocates exactly as it did.  Nothing is stored: it is not a spill. */
#include <string.h>

#include "arena.h"
#include "ra.h"

/* The index in block b of the instruction at position pos. */
static int index_in_block(const Ra *ra, int pos)
{
    return pos - ra->pos.start[ra->pos.block[pos]] - 1;
}

static bool plain_instruction(const Ra *ra, const RkMInstr *in)
{
    static const unsigned bad[] = {RK_I_FAULT, RK_I_FLAGS, RK_I_CALL,   RK_I_SLOW,
                              RK_I_STACK, RK_I_BRANCH, RK_I_RET, RK_I_TRAP};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (rk_target_insn_is(ra->t, in->op, bad[i]))
            return false;
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == RK_MO_MEM || o->kind == RK_MO_LABEL)
            return false;
        /* a physical register is the code's own */
        if (o->kind == RK_MO_REG && (!o->reg.virt || (o->mask.num >= 0 && !o->mask.virt)))
            return false;
    }
    return true;
}

/* Whether `in` writes v, and only v. */
static bool writes_only(const RkMInstr *in, int v)
{
    bool wrote = false;
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind != RK_MO_REG || !o->def)
            continue;
        if (!o->reg.virt || o->reg.num != v)
            return false;
        wrote = true;
    }
    return wrote;
}

/* Whether `in` writes virtual register s. */
static bool writes_reg(const RkMInstr *in, int s)
{
    for (int k = 0; k < in->nops; k++) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == RK_MO_REG && o->def && o->reg.virt && o->reg.num == s)
            return true;
    }
    return false;
}

/* Whether source s holds, at position `next`, what it held when the
 * computation ending at `last` read it. */
static bool source_holds(Ra *ra, int s, int last, int next)
{
    if (!ra_live_at(ra, s, next) || ra->pos.block[next] != ra->pos.block[last])
        return false;
    for (int pos = last + 1; pos < next; pos++) {
        const RkMInstr *w = ra_instr_at(ra, pos);
        if (w && writes_reg(w, s))
            return false;
    }
    return true;
}

/* The number of instructions computing v (from its first position), or 0
 * when v can't be computed again before `next`. */
static int computation(Ra *ra, int v, int next)
{
    const Range *x = &ra->r[v];
    if (x->pinned || x->live_out || x->lo < 0 || ra->pos.block[x->lo] != ra->pos.block[x->hi] ||
        ra->writes[v] < 1 || ra->allowed[v] != ~0ull)
        return 0;
    const RkMInstr *first = ra_instr_at(ra, x->lo);
    if (!ra_defines(first, v))
        return 0;
    int n = ra->writes[v];
    for (int i = 0; i < n; i++) {
        const RkMInstr *in = ra_instr_at(ra, x->lo + i);
        if (!in || !plain_instruction(ra, in) || !writes_only(in, v))
            return 0;
        for (int k = 0; k < in->nops; k++) {
            const RkMOp *o = &in->ops[k];
            const RkMReg *regs[3] = {&o->reg, &o->index, &o->mask};
            for (int j = 0; j < 3; j++)
                if (regs[j]->virt && regs[j]->num >= 0 && regs[j]->num != v &&
                    !source_holds(ra, regs[j]->num, x->lo + n - 1, next))
                    return 0;
        }
    }
    return n;
}

bool ra_recompute(Ra *ra, int stuck, int cls)
{
    if (cls == RK_RC_GPR)
        return false; /* general instructions may read the flags */
    int victim = -1, victim_next = -1, victim_n = 0;
    for (int g = 0; g < ra->t->regs[cls].count; g++) {
        int v = ra->owner[cls][g] - 1;
        if (v < 0 || ra_occurs_at(ra, stuck, v))
            continue;
        int next = ra_next_use(ra, v, stuck);
        /* a computation right after the stuck position would need a
         * register there */
        if (next > ra->r[v].hi || next == stuck + 1 || !ra_instr_at(ra, next))
            continue;
        int n = computation(ra, v, next);
        if (n > 0 && next > victim_next) {
            victim = v;
            victim_next = next;
            victim_n = n;
        }
    }
    if (victim < 0)
        return false;
    RkMFunc *f = ra->f;
    int b = ra->pos.block[victim_next], at = index_in_block(ra, victim_next);
    int from = index_in_block(ra, ra->r[victim].lo);
    int fresh = rk_mir_vreg(f, (RkRegClass)cls);
    RkMBlock *blk = f->blocks[b];
    for (int i = 0; i < victim_n; i++) {
        RkMInstr copy = blk->instrs[from + i]; /* insert may move the array */
        RkMInstr *in = rk_mir_insert(blk, at + i, &copy);
        in->loc = blk->instrs[at + i + 1].loc;
        in->again = true;
        /* the origin stays: the same op's instructions, which rake-verify
         * checks against it (a shuffle may cross lanes) */
        rk_mir_rename(in, victim, fresh);
    }
    ra_rename_from(ra, b, at + victim_n, victim, fresh);
    return true;
}

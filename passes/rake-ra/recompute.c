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
 * live at the next read and not written between the computation and it,
 * or itself computed again first (a source dead by then, whose own
 * sources qualify), up to RECOMPUTE_MAX instructions in all.
 * It must not cross a block edge or have a register limit of its own.
 * The computation costs instructions, so scan.c tries it only after
 * every cheaper way has failed: a function that allocated before
 * allocates exactly as it did; and rakec allocates with --no-recompute
 * until it has lowered the functions refused for pressure again (the
 * shorter code, usually), so only what that leaves comes here.  Nothing
 * is stored: it is not a spill. */
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

/* Whether source s holds, at position `next`, what it held when the
 * computation ending at `last` read it. */
static bool source_holds(Ra *ra, int s, int last, int next)
{
    return ra_live_at(ra, s, next) && ra->pos.block[next] == ra->pos.block[last] &&
           !ra_written_between(ra, s, last + 1, next - 1);
}

/* What computing a value again takes: the groups of instructions (each
 * writing one value, consecutive in the block) in the order they run, the
 * value wanted last.  A source that is dead where the value is next read
 * is computed again too, from its own sources, up to RECOMPUTE_MAX
 * instructions in all; a longer computation isn't tried. */
enum { RECOMPUTE_MAX = 16 };

typedef struct Plan {
    int v[RECOMPUTE_MAX], n[RECOMPUTE_MAX];
    int count, total;
} Plan;

static bool planned(const Plan *p, int v)
{
    for (int i = 0; i < p->count; i++)
        if (p->v[i] == v)
            return true;
    return false;
}

/* Adds v's computation to p (its dead sources' first), or false when v
 * can't be computed again before `next`. */
static bool computation(Ra *ra, int v, int next, Plan *p)
{
    const Range *x = &ra->r[v];
    if (x->pinned || x->live_out || x->lo < 0 || ra->pos.block[x->lo] != ra->pos.block[x->hi] ||
        ra->pos.block[x->lo] != ra->pos.block[next] || ra->writes[v] < 1 ||
        ra->allowed[v] != ~0ull || ra->f->vclass[v] == RK_RC_GPR)
        return false; /* general instructions may read the flags */
    const RkMInstr *first = ra_instr_at(ra, x->lo);
    int n = ra->writes[v];
    if (!ra_defines(first, v) || p->total + n > RECOMPUTE_MAX)
        return false;
    for (int i = 0; i < n; i++) {
        const RkMInstr *in = ra_instr_at(ra, x->lo + i);
        if (!in || !plain_instruction(ra, in) || !writes_only(in, v))
            return false;
        for (int k = 0; k < in->nops; k++) {
            const RkMOp *o = &in->ops[k];
            const RkMReg *regs[3] = {&o->reg, &o->index, &o->mask};
            for (int j = 0; j < 3; j++) {
                int s = regs[j]->num;
                if (!regs[j]->virt || s < 0 || s == v || planned(p, s) ||
                    source_holds(ra, s, x->lo + n - 1, next))
                    continue;
                /* a source dead by `next` is computed again first */
                if (ra_live_at(ra, s, next) || !computation(ra, s, next, p))
                    return false;
            }
        }
    }
    if (p->total + n > RECOMPUTE_MAX)
        return false;
    p->v[p->count] = v;
    p->n[p->count++] = n;
    p->total += n;
    return true;
}

bool ra_recompute(Ra *ra, int stuck, int cls)
{
    int victim = -1, victim_next = -1;
    Plan best = {0};
    for (int g = 0; g < ra->t->regs[cls].count; g++) {
        int v = ra->owner[cls][g] - 1;
        if (v < 0 || ra_occurs_at(ra, stuck, v))
            continue;
        int next = ra_next_use(ra, v, stuck);
        /* a computation right after the stuck position would need a
         * register there */
        if (next > ra->r[v].hi || next == stuck + 1 || !ra_instr_at(ra, next))
            continue;
        Plan p = {0};
        if (computation(ra, v, next, &p) && next > victim_next) {
            victim = v;
            victim_next = next;
            best = p;
        }
    }
    if (victim < 0)
        return false;
    RkMFunc *f = ra->f;
    int b = ra->pos.block[victim_next], at = index_in_block(ra, victim_next);
    RkMBlock *blk = f->blocks[b];
    int fresh[RECOMPUTE_MAX];
    for (int g = 0; g < best.count; g++) {
        int from = index_in_block(ra, ra->r[best.v[g]].lo);
        fresh[g] = rk_mir_vreg(f, (RkRegClass)f->vclass[best.v[g]]);
        for (int i = 0; i < best.n[g]; i++, at++) {
            RkMInstr copy = blk->instrs[from + i]; /* insert may move the array */
            RkMInstr *in = rk_mir_insert(blk, at, &copy);
            in->loc = blk->instrs[at + 1].loc;
            in->again = true;
            /* the origin stays: the same op's instructions, which
             * rake-verify checks against it (a shuffle may cross lanes) */
            for (int h = 0; h <= g; h++)
                rk_mir_rename(in, best.v[h], fresh[h]);
        }
    }
    ra_rename_from(ra, b, at, victim, fresh[best.count - 1]);
    return true;
}

/* general.c: what general runs add to a run's selection, on x86, and the
 * 32-bit integers runs keep in general registers (in a stack run, only
 * a counted loop's index).
 *
 * A general run (`run f(x: []f32, <n: i32>)`, docs/runs.md) is ordinary
 * structured code over views: counted loops, element reads, bounds
 * checks and traps.  run.c selects it block by block like a stack run;
 * this file holds the parts stack runs never need, and one they share:
 *
 *   - views.  A rack of a view is the view's own element type (32-bit
 *     elements only, natively); `<v[i]>` is one element, broadcast.
 *   - Booleans of 64-bit comparisons, as 0 or 1 in a general register
 *     (cmov from a register holding 1), where something other than a
 *     branch reads them; a branch on an and/or/not of comparisons is a
 *     cascade of compares and jumps instead (plan_conds, cascade).
 *   - traps: the slow tier's report of a failed check, then ud2.
 *   - 32-bit integers in general registers.  Every uniform lives
 *     broadcast in a vector register, which suits the values lanes read;
 *     a loop's index would pay for it on each iteration (a vector compare
 *     and a move to test `i < n`, another move to widen i for an address).
 *     So an i32 or u32 that is a block parameter, the low half of an i64
 *     (a loop's index, which rake-lower carries as an i64), or the sum,
 *     difference, product or bitwise combination of such values, of
 *     constants and of the run's parameters (plan_gpr32) lives in a
 *     general register instead, in 32-bit operations (addl, cmpl, ...),
 *     as C's int does.
 *     A comparison of them that only branches read is a pending cmpl; a
 *     vector operation reading one gets it broadcast once per machine
 *     block (vform).  A u32 held this way is zero-extended in its 64-bit
 *     register (every 32-bit operation clears the upper half), so its
 *     widening to i64 is free; an i32 widens with movslq. */
#include <string.h>

#include "arena.h"
#include "nirops.h"
#include "run.h"

bool general_run(void) { return !strcmp(S->nf->kind, "general_run"); }

/* A general run's rack of a view is the view's own element type, and
 * only 32-bit elements are implemented natively (a stack run's narrow
 * columns widen to its 32-bit domain instead). */
void view_elements(RkInstr *in, int ptr, bool masked)
{
    if (!general_run())
        return;
    const RkType *pt = type_of(ptr);
    if (elem_bytes(pt) != 4)
        rk_diag_fatal(in->loc, "%s can't compile this yet: native general run %s accesses a "
                               "view of %s, and native general runs implement 32-bit elements "
                               "(f32, i32, u32) only",
                      S->profile->name, S->nf->name, rk_elem_name(pt->elem));
    if (masked)
        rk_diag_fatal(in->loc, "%s can't compile this yet: native general run %s accesses a "
                               "view under a mask, which is work in progress natively",
                      S->profile->name, S->nf->name);
}

/* <view[i]>: one 32-bit element, broadcast like every uniform. */
int elem_load(RkInstr *in)
{
    const RkType *pt = type_of(in->args[0]);
    view_elements(in, in->args[0], false);
    if (elem_bytes(pt) != 4 || !R.is_imm[in->args[1]])
        rk_diag_fatal(in->loc, "%s can't compile this yet: native run %s reads one element "
                               "of a view of %s",
                      S->profile->name, S->nf->name, rk_elem_name(pt->elem));
    Addr a = addr_of(in->args[0]);
    a.disp += (in->imm + R.imm[in->args[1]]) * a.scale;
    int d = fresh();
    if (S->level == SSE2) {
        ins("movss", 2, rk_mvd(d), mem(a, 0, 32, false));
        ins("shufps", 3, rk_mvu(d), rk_mv(d), rk_mi(0));
    } else {
        ins("vbroadcastss", 2, rk_mvd(d), mem(a, 0, 32, false));
    }
    return d;
}

/* A comparison's outcome as 0 or 1 in a register: cmov from a register
 * holding 1 (the table has no setcc).  Bounds checks combine these; they
 * run once before a loop, or in the checked copy of one (rake-lower). */
int gbool_of(int id)
{
    if (R.is_gbool[id])
        return S->vreg[id];
    if (!R.is_flag[id])
        rk_diag_internal("%s: %%%d is not a comparison of 64-bit integers", S->nf->name, id);
    Flag f = R.flag[id];
    int d = gnew(), one = gnew();
    ins("movq", 2, gw(d, 64), rk_mi(0));
    ins("movq", 2, gw(one, 64), rk_mi(1));
    compare(f);
    ins(rk_arena_printf(&rk_heap, "cmov%sq", f.cc), 2, gx(d, 64), gr(one, 64));
    return d;
}

bool gpr_bool(int id) { return R.is_flag[id] || R.is_gbool[id]; }

int gbool_op(RkInstr *in)
{
    int d = gnew();
    ins("movq", 2, gw(d, 64), gr(gbool_of(in->args[0]), 64));
    if (in->opc == RK_OP_U_NOT)
        ins("xorl", 2, gx(d, 32), rk_mi(1));
    else
        ins(in->opc == RK_OP_U_AND ? "andq" : "orq", 2, gx(d, 64),
            gr(gbool_of(in->args[1]), 64));
    R.is_gbool[in->id] = true;
    return d;
}

/* A trap: the slow tier's report of the failed check (rake-cgen's
 * rk_trap_LINE_COL for the trap's location, rk_mir_slow_helper, reading
 * the values its message shows from 8-byte slots), called through a
 * trampoline like a slow block; it never returns, and ud2 follows. */
void trap(int here, RkTerm *t)
{
    if (!general_run()) /* rake-cgen writes trap helpers for general runs only */
        rk_diag_fatal(t->loc, "%s can't compile this yet: native stack run %s can trap "
                              "here (%s), and traps inside runs are work in progress natively",
                      S->profile->name, S->nf->name, t->text ? t->text : "a trap");
    RkMInstr *mi = rk_mir_add(S->mf, "call.slow", "trap", -1);
    mi->loc = t->loc;
    rk_mir_operand(mi, rk_mi(t->loc.line));
    rk_mir_operand(mi, rk_mi(t->loc.col));
    for (int k = 0; k < t->to.nargs; k++) {
        int id = t->to.args[k];
        if (R.is_addr[id] || R.is_flag[id] || !is_int64(type_of(id)))
            rk_diag_internal("%s: a trap shows %%%d, not a 64-bit integer", S->nf->name, id);
        rk_mir_operand(mi, gr(S->vreg[id], 64));
    }
    term_of(here)->kind = RK_MT_TRAP;
    term_of(here)->loc = t->loc;
}

/* --- 32-bit integers in general registers ------------------------------------------ */

enum { DEF_NONE = -3, DEF_PARAM = -2, DEF_BLOCK_PARAM = -1 };

static struct {
    int *def;            /* value id -> its defining opcode, or a DEF_ kind */
    const RkType **ty;
    RkBlock **block;     /* native-IR block id -> block */
    int *other, *branch; /* value id -> its reads (count_reads, every instruction) */
} P;

static bool is_int32(const RkType *t)
{
    return t && t->kind == RK_T_SCALAR && (t->elem == RK_E_I32 || t->elem == RK_E_U32);
}

static const char *g32_mnemonic(RkOp op)
{
    switch (op) {
    case RK_OP_U_ADD: return "addl";
    case RK_OP_U_SUB: return "subl";
    case RK_OP_U_AND: return "andl";
    case RK_OP_U_OR: return "orl";
    case RK_OP_U_MUL: return "imull";
    default: return NULL;
    }
}

/* A uniform comparison (the op table's u.cmp.* shape). */
static bool is_cmp(RkOp op)
{
    const RkOpInfo *info = rk_nir_op_info(op);
    return info && info->shape == SH_UCMP;
}

/* A value a general register can give: one held there, or a parameter
 * or constant (both have their vector form too). */
static bool avail(int id)
{
    return R.g32[id] || (is_int32(P.ty[id]) && (P.def[id] == DEF_PARAM || P.def[id] == RK_OP_CONST));
}

static bool demote(int id)
{
    if (!R.g32[id])
        return false;
    R.g32[id] = false;
    return true;
}

/* Demotes what can't stay: an operation reading a value no general
 * register gives, a block parameter an edge passes such a value. */
static bool demote_pass(RkFunc *nf)
{
    bool changed = false;
    for (int b = 0; b < nf->nblocks; b++) {
        RkBlock *nb = nf->blocks[b];
        for (int i = 0; i < nb->ninstrs; i++) {
            RkInstr *in = nb->instrs[i];
            for (int k = 0; in->id >= 0 && R.g32[in->id] && k < in->nargs; k++)
                if (!avail(in->args[k]) && !is_int64(P.ty[in->args[k]]))
                    changed |= demote(in->id);
        }
        RkTerm *t = &nb->term;
        RkEdge *edges[2] = {&t->to, &t->alt};
        for (int e = 0; e < (t->kind == RK_TERM_CBR ? 2 : t->kind == RK_TERM_BR); e++) {
            RkBlock *to = P.block[edges[e]->block];
            for (int k = 0; k < edges[e]->nargs; k++)
                if (!avail(edges[e]->args[k]))
                    changed |= demote(to->params[k]);
        }
    }
    return changed;
}

static void note_defs(RkFunc *nf, int maxblock)
{
    size_t n = (size_t)nf->nvalues + 1;
    P.def = rk_arena_alloc(&rk_heap, sizeof *P.def * n);
    P.ty = rk_arena_alloc(&rk_heap, sizeof *P.ty * n);
    P.block = rk_arena_alloc(&rk_heap, sizeof *P.block * (size_t)(maxblock + 1));
    for (size_t i = 0; i < n; i++) {
        P.def[i] = DEF_NONE;
        P.ty[i] = NULL;
    }
    for (int i = 0; i < nf->nparams; i++) {
        P.def[nf->params[i]] = DEF_PARAM;
        P.ty[nf->params[i]] = nf->ptypes[i];
    }
    for (int b = 0; b < nf->nblocks; b++) {
        RkBlock *nb = nf->blocks[b];
        P.block[nb->id] = nb;
        for (int k = 0; k < nb->nparams; k++) {
            P.def[nb->params[k]] = DEF_BLOCK_PARAM;
            P.ty[nb->params[k]] = nb->ptypes[k];
        }
        for (int i = 0; i < nb->ninstrs; i++)
            if (nb->instrs[i]->id >= 0) {
                P.def[nb->instrs[i]->id] = (int)nb->instrs[i]->opc;
                P.ty[nb->instrs[i]->id] = nb->instrs[i]->type;
            }
    }
}

/* How each value is read: as a conditional branch's condition (branch),
 * or otherwise (other: an operand, an edge's argument, a returned value),
 * not counting the operands of instructions `skip` marks (NULL: none). */
static void count_reads(RkFunc *nf, const bool *skip, int *other, int *branch)
{
    size_t n = (size_t)nf->nvalues + 1;
    memset(other, 0, sizeof(int) * n);
    memset(branch, 0, sizeof(int) * n);
    for (int b = 0; b < nf->nblocks; b++) {
        RkBlock *nb = nf->blocks[b];
        for (int i = 0; i < nb->ninstrs; i++) {
            RkInstr *in = nb->instrs[i];
            for (int k = 0; k < in->nargs && !(skip && in->id >= 0 && skip[in->id]); k++)
                other[in->args[k]]++;
        }
        RkTerm *t = &nb->term;
        for (int k = 0; k < t->to.nargs; k++)
            other[t->to.args[k]]++;
        for (int k = 0; t->kind == RK_TERM_CBR && k < t->alt.nargs; k++)
            other[t->alt.args[k]]++;
        if (t->kind == RK_TERM_RET && t->value >= 0)
            other[t->value]++;
        if (t->kind == RK_TERM_CBR)
            branch[t->value]++;
    }
}

/* A comparison of 32-bit values in general registers whose every reader
 * is a conditional branch: a cmpl just before the branch. */
static void plan_flags(RkFunc *nf)
{
    for (int b = 0; b < nf->nblocks; b++)
        for (int i = 0; i < nf->blocks[b]->ninstrs; i++) {
            RkInstr *in = nf->blocks[b]->instrs[i];
            if (!is_cmp(in->opc) || in->nargs != 2 || !is_int32(P.ty[in->args[0]]))
                continue;
            int a = in->args[0], c = in->args[1];
            bool both_const = P.def[a] == RK_OP_CONST && P.def[c] == RK_OP_CONST;
            R.flag32[in->id] = avail(a) && avail(c) && !both_const && P.branch[in->id] > 0 &&
                               !P.other[in->id];
        }
}

/* --- conditions: Boolean combinations of comparisons that only branch ---------------- */

/* A comparison run.c keeps pending: of 64-bit integers, or planned above. */
static bool cond_leaf(int id)
{
    RkInstr *in = S->instr[id];
    return in && is_cmp(in->opc) && in->nargs == 2 &&
           (R.flag32[id] || is_int64(P.ty[in->args[0]]));
}

static bool cond_op(const RkInstr *in)
{
    return (in->opc == RK_OP_U_AND || in->opc == RK_OP_U_OR || in->opc == RK_OP_U_NOT) &&
           in->type && in->type->kind == RK_T_SCALAR && in->type->elem == RK_E_BOOL;
}

/* One round: a condition reading anything but leaves and conditions, or
 * read by anything but a branch or a condition, is demoted. */
static bool demote_conds(RkFunc *nf, int *other, int *branch)
{
    size_t n = (size_t)nf->nvalues + 1;
    bool changed = false;
    for (int b = 0; b < nf->nblocks; b++)
        for (int i = 0; i < nf->blocks[b]->ninstrs; i++) {
            RkInstr *in = nf->blocks[b]->instrs[i];
            for (int k = 0; in->id >= 0 && R.cond[in->id] && k < in->nargs; k++)
                if (!cond_leaf(in->args[k]) && !R.cond[in->args[k]]) {
                    R.cond[in->id] = false;
                    changed = true;
                }
        }
    count_reads(nf, R.cond, other, branch);
    for (size_t i = 0; i < n; i++)
        if (R.cond[i] && other[i]) {
            R.cond[i] = false;
            changed = true;
        }
    return changed;
}

/* A Boolean combination (and, or, not) of pending comparisons that only
 * branches read is never computed: the branch becomes a cascade of
 * compares and jumps (cond_blocks, cascade), as C's && and || are. */
static void plan_conds(RkFunc *nf)
{
    size_t n = (size_t)nf->nvalues + 1;
    for (size_t i = 0; i < n; i++)
        R.cond[i] = S->instr[i] && cond_op(S->instr[i]);
    int *other = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    int *branch = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    while (demote_conds(nf, other, branch))
        ;
}

/* The blocks a branch on condition id needs between its tests: one per
 * and/or (a shared part is tested again where it is reached again). */
int cond_blocks(int id)
{
    if (!R.cond[id])
        return 0;
    RkInstr *in = S->instr[id];
    if (in->opc == RK_OP_U_NOT)
        return cond_blocks(in->args[0]);
    return 1 + cond_blocks(in->args[0]) + cond_blocks(in->args[1]);
}

/* The branch from block `from` to then or els on condition id; mids are
 * the blocks cond_blocks counted, *next the first unused. */
void cascade(int id, int from, int then, int els, const int *mids, int *next)
{
    S->mf->cur = from;
    if (!R.cond[id]) {
        if (!R.is_flag[id])
            rk_diag_internal("%s: %%%d in a branch's condition is not a comparison",
                             S->nf->name, id);
        Flag f = R.flag[id];
        compare(f);
        set_branch(from, f.cc, then, els);
        return;
    }
    RkInstr *in = S->instr[id];
    if (in->opc == RK_OP_U_NOT) {
        cascade(in->args[0], from, els, then, mids, next);
        return;
    }
    /* the left part's blocks, then mid (where the right part starts), in
     * the order they are tested, which is the order they are laid out */
    int mid = mids[*next + cond_blocks(in->args[0])];
    if (in->opc == RK_OP_U_AND)
        cascade(in->args[0], from, mid, els, mids, next);
    else
        cascade(in->args[0], from, then, mid, mids, next);
    (*next)++;
    cascade(in->args[1], mid, then, els, mids, next);
}

/* Decides which i32 and u32 values of a run live in general registers
 * (in a stack run, only a counted loop's index): optimistically every block parameter and every operation
 * g32_mnemonic names, then demoted until each reads only values a
 * general register gives. */
void plan_gpr32(RkFunc *nf)
{
    size_t n = (size_t)nf->nvalues + 1;
    R.g32 = rk_arena_alloc(&rk_heap, n);
    R.flag32 = rk_arena_alloc(&rk_heap, n);
    R.cond = rk_arena_alloc(&rk_heap, n);
    memset(R.cond, 0, n);
    R.vform = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    R.vform_in = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    memset(R.g32, 0, n);
    memset(R.flag32, 0, n);
    memset(&P, 0, sizeof P);
    for (size_t i = 0; i < n; i++)
        R.vform_in[i] = -1;
    int maxblock = 0;
    for (int b = 0; b < nf->nblocks; b++)
        maxblock = nf->blocks[b]->id > maxblock ? nf->blocks[b]->id : maxblock;
    note_defs(nf, maxblock);
    P.other = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    P.branch = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    count_reads(nf, NULL, P.other, P.branch);
    /* a stack run's general registers hold its columns: there only a
     * counted loop's index (the low half of its i64) lives in one */
    bool general = general_run();
    for (size_t i = 0; i < n; i++) {
        bool index = P.def[i] == RK_OP_U_CVT && is_int64(P.ty[S->instr[i]->args[0]]);
        R.g32[i] = is_int32(P.ty[i]) &&
                   (index || (general && (P.def[i] == DEF_BLOCK_PARAM || P.def[i] == RK_OP_COPY ||
                                          (P.def[i] >= 0 && g32_mnemonic((RkOp)P.def[i])))));
    }
    while (demote_pass(nf))
        ;
    if (general)
        plan_flags(nf);
    plan_conds(nf);
}

/* The value in a general register (a constant is moved into a fresh
 * one; an i32 parameter is its argument register, a u32 parameter the
 * zero-extended copy main.c's entry made). */
int gpr32_of(int id)
{
    if (R.g32[id])
        return S->vreg[id];
    if (R.is_k32[id]) {
        int d = gnew();
        ins("movl", 2, gw(d, 32), rk_mi((int32_t)R.k32[id]));
        return d;
    }
    if (P.def[id] == DEF_PARAM && S->arg_gpr[id] >= 0) /* main.c's entry */
        return S->arg_gpr[id];
    rk_diag_internal("%s: %%%d is not in a general register", S->nf->name, id);
}

/* One 32-bit operation: d = a; d op= b (a constant b is the immediate,
 * except for imull's two-operand form). */
int g32_instr(RkInstr *in)
{
    if (in->opc == RK_OP_COPY)
        return gpr32_of(in->args[0]);
    if (in->opc == RK_OP_U_CVT) { /* the low half of an i64 (a loop's index) */
        int d = gnew();
        ins("movl", 2, gw(d, 32), gr(S->vreg[in->args[0]], 32));
        return d;
    }
    const char *op = g32_mnemonic(in->opc);
    int a = in->args[0], b = in->args[1], d = gnew();
    if (R.is_k32[a])
        ins("movl", 2, gw(d, 32), rk_mi((int32_t)R.k32[a]));
    else
        ins("movl", 2, gw(d, 32), gr(gpr32_of(a), 32));
    bool imm = R.is_k32[b] && in->opc != RK_OP_U_MUL;
    ins(op, 2, gx(d, 32), imm ? rk_mi((int32_t)R.k32[b]) : gr(gpr32_of(b), 32));
    return d;
}

/* A comparison only branches read: pending until the branch (run.c's
 * compare), a constant operand its immediate. */
Flag flag32(RkInstr *in)
{
    int a = in->args[0], b = in->args[1];
    bool sign = type_of(a)->elem == RK_E_I32;
    if (R.is_k32[b])
        return (Flag){int_cc(in->opc, sign), gpr32_of(a), -1, (int32_t)R.k32[b], 32};
    if (R.is_k32[a])
        return (Flag){int_cc(swapped_cmp(in->opc), sign), gpr32_of(b), -1, (int32_t)R.k32[a], 32};
    return (Flag){int_cc(in->opc, sign), gpr32_of(a), gpr32_of(b), 0, 32};
}

/* u.cvt to i64 of a value a general register gives: an i32 sign-extends
 * (movslq); a u32 held there already is its zero extension (-1: neither,
 * the caller widens the vector). */
int widen32(RkInstr *in)
{
    int a = in->args[0];
    if (!general_run() || !avail(a) || P.def[a] == RK_OP_CONST)
        return -1;
    if (type_of(a)->elem == RK_E_U32)
        return gpr32_of(a);
    int d = gnew();
    ins("movslq", 2, gw(d, 64), gr(gpr32_of(a), 32));
    return d;
}

/* A value held in a general register, broadcast for the vector
 * operations reading it: once per machine block. */
static int vform(int id)
{
    if (R.vform_in[id] == S->mf->cur)
        return R.vform[id];
    const char *origin = S->origin;
    S->origin = "uniform";
    R.vform[id] = splat_gpr32(S->vreg[id]);
    S->origin = origin;
    R.vform_in[id] = S->mf->cur;
    return R.vform[id];
}

/* Before a vector operation: its arguments held in general registers are
 * replaced by their broadcasts (saved[k] keeps each register, or -1). */
void vector_args(RkInstr *in, int *saved)
{
    for (int k = 0; k < in->nargs; k++) {
        int id = in->args[k];
        saved[k] = -1;
        if (!R.g32[id])
            continue;
        saved[k] = S->vreg[id];
        S->vreg[id] = vform(id);
    }
}

void restore_args(RkInstr *in, const int *saved)
{
    for (int k = 0; k < in->nargs; k++)
        if (saved[k] >= 0)
            S->vreg[in->args[k]] = saved[k];
}

/* An edge's k-th argument, in the class of the parameter it reaches
 * (block is the native-IR block's id): a 32-bit integer crosses in a
 * general register or broadcast as that parameter holds it. */
RkMReg edge_value(int arg, int block, int k)
{
    int param = P.block ? P.block[block]->params[k] : -1;
    if (param >= 0 && R.g32[param])
        return greg(gpr32_of(arg));
    if (R.g32[arg])
        return rk_mreg(RK_RC_VEC, true, vform(arg));
    return value_reg(arg);
}

/* mir.c: building rake.mir, flattening a function into the instructions
 * that are emitted, and the readable listing.
 *
 * The JSON form is in mirjson.c.  Everything here grows: blocks,
 * instructions, operands, constants and virtual registers are arena arrays
 * doubled when full.
 *
 * Flattening (rk_mir_flatten) is the one place where a function's
 * terminators, prologue and epilogue become instructions, so the emitter
 * prints exactly the list the verifier compares with the object:
 *   - the entry block starts with a save (push) of every callee-saved
 *     general register rake-ra used, in register order, then the loads of
 *     a run's stack arguments into the registers rake-ra gave them;
 *   - `ret` becomes the restores in reverse order, the target's upper-
 *     state clear (vzeroupper) unless the result lives in a whole wide
 *     vector register, and the return;
 *   - a block with no instructions that only jumps (what is left of an
 *     edge once rake-ra has removed the parameters) is not emitted: every
 *     jump and branch to it goes where it goes;
 *   - `jump L` becomes the target's jump, or nothing when L is the next
 *     emitted block;
 *   - `branch cond, T, E` becomes the conditional branch to T and a jump
 *     to E unless E is next, or the opposite condition's branch to E when
 *     T is next; on a register, a test of the register first;
 *   - `trap` becomes the target's trap instruction. */
#include "mir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

static void *plus_one(const void *old, int n, size_t size);

static void *grow(void *old, int n, int *cap, size_t size, int first)
{
    return rk_arena_grow(&rk_heap, old, n, cap, size, first);
}

RkMFunc *rk_mir_func(RkMModule *m, const char *name, const char *kind)
{
    RkMFunc *f = RK_NEW(RkMFunc);
    f->name = name;
    f->kind = kind;
    f->result = rk_mreg(RK_RC_VEC, false, -1);
    m->funcs = grow(m->funcs, m->nfuncs, &m->cap, sizeof *m->funcs, 8);
    m->funcs[m->nfuncs++] = f;
    return f;
}

int rk_mir_block(RkMFunc *f, const char *label)
{
    RkMBlock *b = RK_NEW(RkMBlock);
    b->label = label;
    b->term.kind = RK_MT_RET;
    b->term.origin = "result";
    b->term.nir = -1;
    b->term.then = b->term.els = -1;
    f->blocks = grow(f->blocks, f->nblocks, &f->bcap, sizeof *f->blocks, 4);
    f->blocks[f->nblocks] = b;
    f->cur = f->nblocks;
    return f->nblocks++;
}

static RkMInstr *append(RkMBlock *b)
{
    b->instrs = grow(b->instrs, b->ninstrs, &b->cap, sizeof *b->instrs, 32);
    RkMInstr *in = &b->instrs[b->ninstrs++];
    memset(in, 0, sizeof *in);
    in->nir = -1;
    return in;
}

const char *rk_mir_slow_helper(const RkMInstr *in)
{
    int at = in->nops && in->ops[0].kind == RK_MO_REG; /* after a block's value */
    bool trap = in->origin && !strcmp(in->origin, "trap");
    return rk_arena_printf(&rk_heap, "rk_%s_%lld_%lld", trap ? "trap" : "slow",
                           (long long)in->ops[at].imm, (long long)in->ops[at + 1].imm);
}

RkMInstr *rk_mir_add(RkMFunc *f, const char *op, const char *origin, int nir)
{
    if (f->nblocks == 0)
        rk_mir_block(f, "entry");
    RkMInstr *in = append(f->blocks[f->cur]);
    in->op = op;
    in->origin = origin;
    in->nir = nir;
    return in;
}

/* A copy of `copy` (operands duplicated) at index `at` of b. */
RkMInstr *rk_mir_insert(RkMBlock *b, int at, const RkMInstr *copy)
{
    RkMInstr c = *copy;
    append(b);
    memmove(&b->instrs[at + 1], &b->instrs[at], sizeof *b->instrs * (size_t)(b->ninstrs - 1 - at));
    c.ops = plus_one(copy->ops, c.nops, sizeof *c.ops);
    b->instrs[at] = c;
    return &b->instrs[at];
}

/* A copy of the n elements at old with room for one more (operand,
 * parameter and argument lists are short and exact-sized). */
static void *plus_one(const void *old, int n, size_t size)
{
    void *p = rk_arena_alloc(&rk_heap, size * (size_t)(n + 1));
    if (n)
        memcpy(p, old, size * (size_t)n);
    return p;
}

void rk_mir_operand(RkMInstr *in, RkMOp op)
{
    in->ops = plus_one(in->ops, in->nops, sizeof *in->ops);
    in->ops[in->nops++] = op;
}

int rk_mir_const(RkMFunc *f, int size, const uint32_t *words)
{
    int nw = size < 4 ? 1 : size / 4;
    for (int i = 0; i < f->nconsts; i++)
        if (f->consts[i].size == size &&
            !memcmp(f->consts[i].words, words, sizeof(uint32_t) * (size_t)nw))
            return i;
    f->consts = grow(f->consts, f->nconsts, &f->ccap, sizeof *f->consts, 8);
    RkMConst *c = &f->consts[f->nconsts];
    memset(c, 0, sizeof *c);
    c->size = size;
    c->words = rk_arena_alloc(&rk_heap, sizeof(uint32_t) * (size_t)nw);
    memcpy(c->words, words, sizeof(uint32_t) * (size_t)nw);
    return f->nconsts++;
}

int rk_mir_vreg(RkMFunc *f, RkRegClass c)
{
    f->vclass = grow(f->vclass, f->nvregs, &f->vcap, sizeof *f->vclass, 64);
    f->vclass[f->nvregs] = (int8_t)c;
    return f->nvregs++;
}

void rk_mir_vreg_allow(RkMFunc *f, int v, uint64_t regs)
{
    for (int i = 0; i < f->nallow; i++)
        if (f->allow[i].vreg == v) {
            f->allow[i].regs &= regs;
            return;
        }
    f->allow = grow(f->allow, f->nallow, &f->acap, sizeof *f->allow, 8);
    f->allow[f->nallow++] = (RkMAllow){v, regs};
}

uint64_t rk_mir_vreg_allowed(const RkMFunc *f, int v)
{
    for (int i = 0; i < f->nallow; i++)
        if (f->allow[i].vreg == v)
            return f->allow[i].regs;
    return ~0ull;
}

void rk_mir_param(RkMBlock *b, RkMReg r)
{
    b->params = plus_one(b->params, b->nparams, sizeof *b->params);
    b->params[b->nparams++] = r;
}

void rk_mir_jump_arg(RkMTerm *t, RkMReg r)
{
    t->args = plus_one(t->args, t->nargs, sizeof *t->args);
    t->args[t->nargs++] = r;
}

int rk_mir_nsuccs(const RkMTerm *t)
{
    switch (t->kind) {
    case RK_MT_JUMP:
        return 1;
    case RK_MT_BRANCH:
        return 2;
    default:
        return 0;
    }
}

int rk_mir_succ(const RkMTerm *t, int k) { return k == 0 ? t->then : t->els; }

RkMOp *rk_mir_term_reg(RkMTerm *t)
{
    return t->kind == RK_MT_BRANCH && t->on_reg ? &t->reg : NULL;
}

/* --- operands ------------------------------------------------------------------- */

RkMReg rk_mreg(RkRegClass c, bool virt, int num) { return (RkMReg){virt, (int8_t)c, num}; }

bool rk_mreg_eq(RkMReg a, RkMReg b)
{
    return a.virt == b.virt && a.cls == b.cls && a.num == b.num;
}

static RkMOp blank(RkMOpKind kind)
{
    RkMOp o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.reg.num = o.index.num = o.mask.num = -1;
    return o;
}

RkMOp rk_mo_reg(RkMReg r, int bits, bool def, bool use)
{
    RkMOp o = blank(RK_MO_REG);
    o.reg = r;
    o.bits = bits;
    o.def = def;
    o.use = use;
    return o;
}

RkMOp rk_mv(int v) { return rk_mo_reg(rk_mreg(RK_RC_VEC, true, v), 0, false, true); }
RkMOp rk_mvd(int v) { return rk_mo_reg(rk_mreg(RK_RC_VEC, true, v), 0, true, false); }
RkMOp rk_mvu(int v) { return rk_mo_reg(rk_mreg(RK_RC_VEC, true, v), 0, true, true); }

RkMOp rk_mvx(RkMOp o)
{
    o.bits = 128;
    return o;
}

RkMOp rk_mi(int64_t imm)
{
    RkMOp o = blank(RK_MO_IMM);
    o.imm = imm;
    return o;
}

RkMOp rk_mc(int cidx)
{
    RkMOp o = blank(RK_MO_CONST);
    o.imm = cidx;
    return o;
}

RkMOp rk_ml(int block)
{
    RkMOp o = blank(RK_MO_LABEL);
    o.imm = block;
    return o;
}

RkMOp rk_mmem(RkMReg base, RkMReg index, int scale, int64_t disp, int bits, bool def)
{
    RkMOp o = blank(RK_MO_MEM);
    o.reg = base;
    o.index = index;
    o.scale = scale;
    o.disp = disp;
    o.bits = bits;
    o.def = def;
    o.use = !def;
    return o;
}

RkMOp rk_mmask(RkMOp o, RkMReg mask, bool zero)
{
    o.mask = mask;
    o.zero = zero;
    return o;
}

/* --- flattening ------------------------------------------------------------------ */

typedef struct Flat {
    RkMFlat out;
    int cap;
    const RkMFunc *f;
    const RkTarget *t;
    int *next;           /* per block: the block emitted after it, or -1 */
} Flat;

static bool forwarder(const RkMFunc *f, int b)
{
    const RkMBlock *blk = f->blocks[b];
    return b > 0 && blk->ninstrs == 0 && blk->term.kind == RK_MT_JUMP && blk->term.nargs == 0;
}

/* Where a jump to b really goes: past blocks that only jump. */
static int thread(const RkMFunc *f, int b)
{
    for (int hops = 0; hops < f->nblocks && forwarder(f, b); hops++)
        b = f->blocks[b]->term.then;
    return b;
}

static RkMInstr *emit(Flat *fl, const char *op, const char *origin, int nir, RkLoc loc)
{
    fl->out.ins = grow(fl->out.ins, fl->out.n, &fl->cap, sizeof *fl->out.ins, 64);
    RkMInstr *in = &fl->out.ins[fl->out.n++];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->origin = origin;
    in->nir = nir;
    in->loc = loc;
    return in;
}

static void saves(Flat *fl, bool restore, const RkMTerm *at)
{
    uint64_t s = fl->f->saved[RK_RC_GPR];
    const char *op = restore ? fl->t->pop : fl->t->push;
    if (!s)
        return;
    if (!op)
        rk_diag_internal("%s saves registers, but %s has no push", fl->f->name, fl->t->profile);
    for (int k = 0; k < RK_REG_MAX; k++) {
        int r = restore ? RK_REG_MAX - 1 - k : k;
        if (!(s >> r & 1u))
            continue;
        RkMInstr *in = emit(fl, op, restore ? "epilogue" : "prologue", -1,
                            at ? at->loc : fl->f->loc);
        rk_mir_operand(in, rk_mo_reg(rk_mreg(RK_RC_GPR, false, r), 0, restore, !restore));
    }
}

/* A run's integer arguments past the argument registers, each loaded from
 * its stack slot into the register rake-ra gave it, after the prologue's
 * pushes (which moved the stack pointer down by push_bytes each). */
int64_t rk_mir_pushed_bytes(const RkMFunc *f, const RkTarget *t)
{
    int pushes = 0;
    for (int r = 0; r < RK_REG_MAX; r++)
        pushes += (int)(f->saved[RK_RC_GPR] >> r & 1u);
    return t->push_bytes * (int64_t)pushes;
}

int64_t rk_mir_arg_slot(const RkTarget *t, const RkMArg *a)
{
    return t->stack_args + 8 * (int64_t)a->stack;
}

bool rk_mir_is_run(const RkMFunc *f)
{
    return f->kind && strstr(f->kind, "run");
}

static void stack_args(Flat *fl)
{
    const RkTarget *t = fl->t;
    for (int a = 0; a < fl->f->nargs; a++) {
        const RkMArg *x = &fl->f->args[a];
        if (x->stack < 0 || x->reg.num < 0) /* in a register, or never read */
            continue;
        if (!t->stack_load[0])
            rk_diag_internal("%s reads a stack argument, but %s reads none", fl->f->name,
                             t->profile);
        bool word = x->bits == 32;
        RkMInstr *in = emit(fl, t->stack_load[!word], "entry", -1, fl->f->loc);
        rk_mir_operand(in, rk_mo_reg(x->reg, word ? 32 : 0, true, false));
        int64_t disp = rk_mir_arg_slot(t, x) + rk_mir_pushed_bytes(fl->f, t);
        rk_mir_operand(in, rk_mmem(rk_mreg(RK_RC_GPR, false, t->stack_pointer),
                                   rk_mreg(RK_RC_GPR, false, -1), 1, disp, word ? 32 : 64, false));
    }
}

/* rake-ra's reload of a stack argument (passes/rake-ra/stackarg.c)
 * addresses its slot as at the entry; the prologue's pushes lie between. */
static void reload_slot(RkMInstr *in, int64_t pushed)
{
    RkMOp *ops = rk_arena_alloc(&rk_heap, sizeof *ops * (size_t)in->nops);
    memcpy(ops, in->ops, sizeof *ops * (size_t)in->nops);
    for (int k = 0; k < in->nops; k++)
        if (ops[k].kind == RK_MO_MEM)
            ops[k].disp += pushed;
    in->ops = ops;
}

static bool wide_result(const RkMFunc *f, const RkTarget *t)
{
    return f->result.num >= 0 && f->result.cls == RK_RC_VEC && f->result_bits == 0 &&
           t->regs[RK_RC_VEC].full_bits > 128;
}

static void jump(Flat *fl, const RkMTerm *tm, int to, int self)
{
    to = thread(fl->f, to);
    if (to == fl->next[self])
        return;
    rk_mir_operand(emit(fl, fl->t->jump, tm->origin, tm->nir, tm->loc), rk_ml(to));
}

static void terminator(Flat *fl, const RkMTerm *tm, int self)
{
    const RkTarget *t = fl->t;
    switch (tm->kind) {
    case RK_MT_RET:
        saves(fl, true, tm);
        if (t->zeroupper && !wide_result(fl->f, t))
            emit(fl, t->zeroupper, tm->origin, tm->nir, tm->loc);
        emit(fl, t->ret, tm->origin, tm->nir, tm->loc);
        return;
    case RK_MT_TRAP:
        emit(fl, t->trap, tm->origin, tm->nir, tm->loc);
        return;
    case RK_MT_JUMP:
        jump(fl, tm, tm->then, self);
        return;
    case RK_MT_BRANCH: {
        const char *cond = tm->cond;
        if (tm->on_reg) {
            const char *test = t->test_reg[tm->reg.bits == 32 ? 0 : 1];
            if (!test)
                rk_diag_internal("%s: no register test on %s", fl->f->name, t->profile);
            RkMInstr *in = emit(fl, test, tm->origin, tm->nir, tm->loc);
            rk_mir_operand(in, tm->reg);
            rk_mir_operand(in, tm->reg);
            cond = t->test_conds[!strcmp(cond, "nz") ? 0 : 1];
        }
        int then = thread(fl->f, tm->then), els = thread(fl->f, tm->els);
        const char *inv = rk_target_cond_inverse(t, cond);
        if (then == fl->next[self] && inv) { /* fall into then */
            then = els;
            els = fl->next[self];
            cond = inv;
        }
        const char *op = rk_arena_printf(&rk_heap, t->branch_fmt, cond);
        rk_mir_operand(emit(fl, op, tm->origin, tm->nir, tm->loc), rk_ml(then));
        jump(fl, tm, els, self);
        return;
    }
    }
}

/* A loop head worth placing after its loop: a block that only compares
 * and branches, entered again by an unconditional jump from a later
 * block (the latch; a block that only forwards a jump is none: the edge
 * of a branch to the head's own forwarder).  Returns the latch, or -1. */
static int rotatable(const RkMFunc *f, const int *latch_of, int h)
{
    const RkMBlock *blk = f->blocks[h];
    if (h == 0 || blk->term.kind != RK_MT_BRANCH || blk->ninstrs > 1 || blk->nparams)
        return -1;
    return latch_of[h];
}

/* Per block h: the last block after it that jumps to it (threaded), the
 * latch rotatable() takes, or -1. */
static int *latches(const RkMFunc *f)
{
    int *latch_of = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(f->nblocks + 1));
    for (int b = 0; b < f->nblocks; b++)
        latch_of[b] = -1;
    for (int b = 0; b < f->nblocks; b++) {
        const RkMTerm *tm = &f->blocks[b]->term;
        if (forwarder(f, b) || tm->kind != RK_MT_JUMP)
            continue;
        int h = thread(f, tm->then);
        if (h < b)
            latch_of[h] = b;
    }
    return latch_of;
}

/* The layout: a chain from block 0, linked both ways. */
typedef struct Chain {
    int *after, *before;
} Chain;

/* Take block x out of the chain and put it right after block y. */
static void move_after(Chain *c, int x, int y)
{
    c->after[c->before[x]] = c->after[x];
    if (c->after[x] >= 0)
        c->before[c->after[x]] = c->before[x];
    c->after[x] = c->after[y];
    if (c->after[y] >= 0)
        c->before[c->after[y]] = x;
    c->after[y] = x;
    c->before[x] = y;
}

/* How many terminators reach each block (threaded past forwarders). */
static int *pred_counts(const RkMFunc *f)
{
    int *n = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(f->nblocks + 1));
    memset(n, 0, sizeof(int) * (size_t)(f->nblocks + 1));
    for (int b = 0; b < f->nblocks; b++) {
        const RkMTerm *tm = &f->blocks[b]->term;
        if (forwarder(f, b))
            continue;
        for (int k = 0; k < rk_mir_nsuccs(tm); k++)
            n[thread(f, rk_mir_succ(tm, k))]++;
    }
    return n;
}

/* The first block laid out after b that isn't a forwarder. */
static int next_real(const RkMFunc *f, const int *after, int b)
{
    int x = after[b];
    while (x >= 0 && forwarder(f, x))
        x = after[x];
    return x;
}

/* A conditional branch that falls into neither of its targets needs a
 * jump after it.  If one target is a block only it reaches (the copies
 * of an edge's arguments, ending in a jump), that block moves right
 * after the branch, which falls into it: a loop's back edge then sits
 * inside the loop, not after the function's return. */
static void place_edges(const RkMFunc *f, Chain *c)
{
    const int *npreds = pred_counts(f);
    for (int p = 0; p < f->nblocks; p++) {
        const RkMTerm *tm = &f->blocks[p]->term;
        if (forwarder(f, p) || tm->kind != RK_MT_BRANCH)
            continue;
        int then = thread(f, tm->then), els = thread(f, tm->els);
        int nx = next_real(f, c->after, p);
        if (nx == then || nx == els)
            continue;
        int e = -1;
        for (int k = 0; k < 2 && e < 0; k++) {
            int b = k ? then : els;
            if (b > 0 && b != p && f->blocks[b]->term.kind == RK_MT_JUMP && npreds[b] == 1)
                e = b;
        }
        if (e >= 0)
            move_after(c, e, p);
    }
}

/* Blocks that end in a trap (a general run's failed check calling its
 * helper, never returning) go last, in their order: a check then falls
 * through into the code after it and branches away only to trap, where
 * a trap block between them made it branch both ways. */
static void cold_last(const RkMFunc *f, int *after)
{
    int hot = 0, cold_first = -1, cold = -1;
    for (int b = after[0]; b >= 0;) {
        int next = after[b];
        if (f->blocks[b]->term.kind == RK_MT_TRAP) {
            if (cold < 0)
                cold_first = b;
            else
                after[cold] = b;
            cold = b;
        } else {
            after[hot] = b;
            hot = b;
        }
        b = next;
    }
    after[hot] = cold_first;
    if (cold >= 0)
        after[cold] = -1;
}

/* The order blocks are laid out in: the function's own, except that a
 * loop head moves after its latch, so each iteration ends in one
 * conditional branch back to the body (the loop is rotated; the entry
 * jumps to the test once), a branch's edge block follows it
 * (place_edges), and the blocks that trap come last (cold_last). */
static int *layout(const RkMFunc *f)
{
    int n = f->nblocks;
    Chain c = {rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1)),
               rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1))};
    for (int b = 0; b < n; b++) {
        c.after[b] = b + 1 < n ? b + 1 : -1;
        c.before[b] = b - 1;
    }
    const int *latch_of = latches(f);
    for (int h = 1; h < n; h++) {
        int latch = rotatable(f, latch_of, h);
        if (latch >= 0)
            move_after(&c, h, latch);
    }
    place_edges(f, &c);
    cold_last(f, c.after);
    int *order = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    for (int b = 0, k = 0; b >= 0; b = c.after[b])
        order[k++] = b;
    return order;
}

/* Loop heads: emitted blocks that a conditional branch at or after their
 * first instruction goes to (a rotated loop's back edge).  Forward
 * branches and jumps (a join, an edge placed after the return jumping
 * into its loop) don't count: padding there would be fetched for
 * nothing. */
static void mark_loop_heads(RkMFlat *out, const RkMFunc *f, const RkTarget *t)
{
    out->loop_head = rk_arena_alloc(&rk_heap, sizeof(bool) * (size_t)(out->n + 1));
    memset(out->loop_head, 0, sizeof(bool) * (size_t)(out->n + 1));
    if (!t || !t->loop_align)
        return;
    for (int i = 0; i < out->n; i++) {
        const RkMInstr *in = &out->ins[i];
        if (!rk_target_insn_is(t, in->op, RK_I_BRANCH) || !strcmp(in->op, t->jump))
            continue;
        for (int k = 0; k < in->nops; k++) {
            const RkMOp *o = &in->ops[k];
            if (o->kind != RK_MO_LABEL || o->imm < 0 || o->imm >= f->nblocks)
                continue;
            int at = out->block_at[o->imm];
            if (at > 0 && at <= i)
                out->loop_head[at] = true;
        }
    }
}

RkMFlat rk_mir_flatten(const RkMFunc *f, const RkTarget *t)
{
    Flat fl = {{NULL, 0, NULL, NULL}, 0, f, t, NULL};
    fl.out.block_at = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(f->nblocks + 1));
    fl.next = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(f->nblocks + 1));
    int *order = layout(f);
    for (int k = f->nblocks - 1, after = -1; k >= 0; k--) {
        int b = order[k];
        fl.next[b] = after;
        if (!forwarder(f, b))
            after = b;
    }
    saves(&fl, false, NULL);
    stack_args(&fl);
    int64_t pushed = rk_mir_pushed_bytes(f, t);
    for (int k = 0; k < f->nblocks; k++) {
        int b = order[k];
        const RkMBlock *blk = f->blocks[b];
        if (forwarder(f, b)) {
            fl.out.block_at[b] = -1;
            continue;
        }
        fl.out.block_at[b] = b == 0 ? 0 : fl.out.n;
        for (int i = 0; i < blk->ninstrs; i++) {
            RkMInstr *in = emit(&fl, NULL, NULL, -1, (RkLoc){0, 0});
            *in = blk->instrs[i];
            if (in->origin && !strcmp(in->origin, RK_MIR_STACK_ARG))
                reload_slot(in, pushed);
        }
        terminator(&fl, &blk->term, b);
    }
    mark_loop_heads(&fl.out, f, t);
    return fl.out;
}

static void rename_reg(RkMReg *r, int from, int to)
{
    if (r->virt && r->num == from)
        r->num = to;
}

void rk_mir_rename(RkMInstr *in, int from, int to)
{
    for (int k = 0; k < in->nops; k++) {
        rename_reg(&in->ops[k].reg, from, to);
        rename_reg(&in->ops[k].index, from, to);
        rename_reg(&in->ops[k].mask, from, to);
    }
}

void rk_mir_rename_term(RkMTerm *t, int from, int to)
{
    for (int k = 0; k < t->nargs; k++)
        rename_reg(&t->args[k], from, to);
    RkMOp *r = rk_mir_term_reg(t);
    if (r)
        rename_reg(&r->reg, from, to);
}

void rk_mir_rename_all(RkMFunc *f, int from, int to)
{
    for (int b = 0; b < f->nblocks; b++) {
        RkMBlock *bl = f->blocks[b];
        for (int i = 0; i < bl->ninstrs; i++)
            rk_mir_rename(&bl->instrs[i], from, to);
        rk_mir_rename_term(&bl->term, from, to);
    }
}

bool rk_mir_is_vreg(const RkMOp *o, RkRegClass c, int v)
{
    return o->kind == RK_MO_REG && o->reg.virt && o->reg.cls == (int)c && o->reg.num == v;
}

int *rk_mir_write_counts(const RkMFunc *f)
{
    int *n = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(f->nvregs + 1));
    for (int b = 0; b < f->nblocks; b++)
        for (int i = 0; i < f->blocks[b]->ninstrs; i++) {
            const RkMInstr *in = &f->blocks[b]->instrs[i];
            for (int k = 0; k < in->nops; k++) {
                const RkMOp *o = &in->ops[k];
                if (o->kind == RK_MO_REG && o->def && o->reg.virt && o->reg.num >= 0 &&
                    o->reg.num < f->nvregs)
                    n[o->reg.num]++;
            }
        }
    return n;
}

/* --- the listing ------------------------------------------------------------------ */

static const char *reg_str(const RkMModule *m, RkMReg r, int bits)
{
    if (r.virt) {
        const char *cls = r.cls == RK_RC_VEC ? "v" : r.cls == RK_RC_GPR ? "g" : "m";
        return bits ? rk_arena_printf(&rk_heap, "%s%d.%d", cls, r.num, bits)
                    : rk_arena_printf(&rk_heap, "%s%d", cls, r.num);
    }
    const char *n = m->t ? rk_target_reg_name(m->t, (RkRegClass)r.cls, r.num, bits) : NULL;
    return n ? rk_arena_printf(&rk_heap, "%%%s", n) : rk_arena_printf(&rk_heap, "%%?%d", r.num);
}

const char *rk_mir_operand_str(const RkMModule *m, const RkMOp *o)
{
    const char *mark = o->def && o->use ? "+" : o->def ? "=" : "";
    switch (o->kind) {
    case RK_MO_REG: {
        const char *s = rk_arena_printf(&rk_heap, "%s%s", mark, reg_str(m, o->reg, o->bits));
        if (o->mask.num >= 0)
            s = rk_arena_printf(&rk_heap, "%s{%s}%s", s, reg_str(m, o->mask, 0),
                                o->zero ? "{z}" : "");
        return s;
    }
    case RK_MO_IMM:
        return rk_arena_printf(&rk_heap, "$%" PRId64, o->imm);
    case RK_MO_CONST:
        return rk_arena_printf(&rk_heap, "C%" PRId64, o->imm);
    case RK_MO_LABEL:
        return rk_arena_printf(&rk_heap, "B%" PRId64, o->imm);
    case RK_MO_MEM: {
        const char *s = o->reg.num >= 0 ? reg_str(m, o->reg, 64) : "";
        if (o->index.num >= 0)
            s = rk_arena_printf(&rk_heap, "%s+%s*%d", s, reg_str(m, o->index, 64), o->scale);
        if (o->disp)
            s = rk_arena_printf(&rk_heap, "%s%+" PRId64, s, o->disp);
        s = rk_arena_printf(&rk_heap, "%s%d[%s]", mark, o->bits, s);
        if (o->mask.num >= 0)
            s = rk_arena_printf(&rk_heap, "%s{%s}", s, reg_str(m, o->mask, 0));
        return s;
    }
    }
    return "?";
}

static void print_instr(const RkMModule *m, const RkMInstr *in, FILE *out)
{
    fprintf(out, "    %-14s", in->op);
    for (int j = 0; j < in->nops; j++)
        fprintf(out, "%s%s", j ? ", " : " ", rk_mir_operand_str(m, &in->ops[j]));
    fprintf(out, "    ; %s", in->origin);
    if (in->nir >= 0)
        fprintf(out, " %%%d", in->nir);
    if (in->again)
        fputs(" (again)", out);
    fputc('\n', out);
}

static void print_regs(const RkMModule *m, const RkMReg *r, int n, FILE *out)
{
    for (int k = 0; k < n; k++)
        fprintf(out, "%s%s", k ? ", " : "", reg_str(m, r[k], 0));
}

static void print_term(const RkMModule *m, const RkMFunc *f, const RkMTerm *t, FILE *out)
{
    switch (t->kind) {
    case RK_MT_RET:
        fputs("    ret\n", out);
        return;
    case RK_MT_TRAP:
        fputs("    trap\n", out);
        return;
    case RK_MT_JUMP:
        fprintf(out, "    jump B%d (%s)", t->then, f->blocks[t->then]->label);
        if (t->nargs) {
            fputs(" with ", out);
            print_regs(m, t->args, t->nargs, out);
        }
        fputc('\n', out);
        return;
    case RK_MT_BRANCH:
        fprintf(out, "    branch %s%s%s, B%d (%s), B%d (%s)\n", t->cond, t->on_reg ? " " : "",
                t->on_reg ? rk_mir_operand_str(m, &t->reg) : "", t->then,
                f->blocks[t->then]->label, t->els, f->blocks[t->els]->label);
        return;
    }
}

static void print_func(const RkMModule *m, const RkMFunc *f, FILE *out)
{
    fprintf(out, "%s %s(", f->kind, f->name);
    for (int k = 0; k < f->nargs; k++) {
        const RkMArg *a = &f->args[k];
        fprintf(out, "%s%s %s in %s", k ? ", " : "", a->type, a->name,
                a->reg.num >= 0 ? reg_str(m, a->reg, a->bits) : "a register");
        if (a->stack >= 0)
            fprintf(out, " from stack slot %d", a->stack);
    }
    fprintf(out, ") -> %s", f->result_type);
    if (f->result.num >= 0)
        fprintf(out, " in %s", reg_str(m, f->result, f->result_bits));
    fputs(":\n", out);
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (int r = 0; r < RK_REG_MAX; r++)
            if (f->saved[c] >> r & 1u)
                fprintf(out, "  saves %s\n", reg_str(m, rk_mreg((RkRegClass)c, false, r), 0));
    for (int b = 0; b < f->nblocks; b++) {
        const RkMBlock *blk = f->blocks[b];
        fprintf(out, "  B%d %s", b, blk->label);
        if (blk->nparams) {
            fputc('(', out);
            print_regs(m, blk->params, blk->nparams, out);
            fputc(')', out);
        }
        fputs(":\n", out);
        for (int k = 0; k < blk->ninstrs; k++)
            print_instr(m, &blk->instrs[k], out);
        print_term(m, f, &blk->term, out);
    }
    for (int k = 0; k < f->nconsts; k++) {
        fprintf(out, "  C%d: %d bytes", k, f->consts[k].size);
        int nw = f->consts[k].size < 4 ? 1 : f->consts[k].size / 4;
        for (int w = 0; w < nw; w++)
            fprintf(out, " %08x", f->consts[k].words[w]);
        fputc('\n', out);
    }
}

void rk_mir_print(const RkMModule *m, FILE *out)
{
    for (int i = 0; i < m->nfuncs; i++) {
        if (i)
            fputc('\n', out);
        print_func(m, m->funcs[i], out);
    }
}

int rk_mir_int_arg_bits(const char *type)
{
    return !strcmp(type, "i32") || !strcmp(type, "u32") || !strcmp(type, "bool") ? 32 : 64;
}

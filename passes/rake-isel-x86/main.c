/* rake-isel-x86: rake.nir -> rake.mir (virtual registers)
 *
 *   rake-isel-x86 --profile x86-sse2|x86-avx2|x86-avx512 < rake.nir
 *
 * Input:  a rake.nir document whose target is the profile.
 * Output: a rake.mir document: for every scratch and rake, its System V
 *         calling convention and its instructions over virtual registers.
 * Adds:   machine instructions, rodata constants, the entry sequence that
 *         moves integer and Boolean uniforms into vector registers and
 *         broadcasts every uniform, and the result move (a rack in
 *         register zero, an f32 in xmm0, an integer in eax by one terminal
 *         transfer).
 * Removes: the native IR's operations and types.
 * Rack, mask and f32 arguments take the target's vector argument registers
 * in order, i32, u32 and bool its general ones (lib/target_x86.c: System
 * V's xmm0-7 and edi, esi, edx, ecx, r8d, r9d).  A kernel that would need
 * an argument on the stack is rejected (spec page 02); a run's integer
 * arguments past the registers are read from their stack slots
 * (RkMArg.stack: rake-ra picks the registers, lib/mir's flattening loads
 * them after the prologue).  A kernel is one block ending in `ret`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "isel.h"

int select_instr(RkInstr *in);

static bool is_int_uniform(const RkType *t)
{
    return t->kind == RK_T_SCALAR && t->elem != RK_E_F32;
}

static const char *ordinal(int n)
{
    const char *suffix = n % 100 / 10 == 1 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd"
                                                  : n % 10 == 3 ? "rd" : "th";
    return rk_arena_printf(&rk_heap, "%d%s", n, suffix);
}

static const char *number(int n)
{
    static const char *words[] = {"no", "one", "two", "three", "four", "five", "six", "seven",
                                  "eight", "nine", "ten"};
    return n >= 0 && n <= 10 ? words[n] : rk_arena_printf(&rk_heap, "%d", n);
}

/* Where the next integer argument arrives: its register, or, for a run
 * past the registers, its stack slot (a->stack; rake-ra picks the register
 * it is loaded into on entry).  A kernel's arguments are all in registers
 * (spec page 02, "Calling conventions"): `who` ("run f" or "f") needs one
 * more, `what` says for what ("" or " for stack s"). */
static RkMReg int_arg(RkFunc *nf, int *nint, const char *who, const char *what, RkMArg *a)
{
    const RkTarget *t = S->target;
    a->stack = -1;
    if (*nint >= t->nargs[RK_RC_GPR]) {
        if (!t->stack_load[0] || !strstr(nf->kind, "run"))
            rk_diag_fatal(nf->loc, "%s needs a %s integer argument register%s; System V passes "
                                   "%s in registers, and Rake never passes arguments on the "
                                   "stack",
                          who, ordinal(*nint + 1), what, number(t->nargs[RK_RC_GPR]));
        a->stack = (*nint)++ - t->nargs[RK_RC_GPR];
        return rk_mreg(RK_RC_GPR, false, -1);
    }
    return rk_mreg(RK_RC_GPR, false, t->args[RK_RC_GPR][(*nint)++].num);
}

/* A view `x: []T` is two C parameters (spec page 03, "The C boundary"):
 * its pointer and its int32_t count, which is sign-extended once here
 * (an i32's upper register bits are unspecified). */
static void view_param(RkFunc *nf, RkMFunc *mf, int i, int *nint)
{
    const RkType *ty = nf->ptypes[i];
    int id = nf->params[i];
    RkMArg *p = &mf->args[mf->nargs - 1];
    p->type = rk_nir_type_str(rk_ty_ptr(ty->inner->elem));
    const char *run = rk_arena_printf(&rk_heap, "run %s", nf->name);
    p->reg = int_arg(nf, nint, run,
                     rk_arena_printf(&rk_heap, " for view %s's pointer", nf->pnames[i]), p);
    p->bits = 64;
    p->vreg = rk_mir_vreg(mf, RK_RC_GPR);
    S->vreg[id] = p->vreg;
    RkMArg *c = &mf->args[mf->nargs++];
    c->name = rk_arena_printf(&rk_heap, "%s_count", nf->pnames[i]);
    c->type = "i32";
    c->reg = int_arg(nf, nint, run,
                     rk_arena_printf(&rk_heap, " for view %s's count", nf->pnames[i]), c);
    c->bits = 32;
    c->vreg = rk_mir_vreg(mf, RK_RC_GPR);
    int n = rk_mir_vreg(mf, RK_RC_GPR);
    ins("movslq", 2, rk_mo_reg(rk_mreg(RK_RC_GPR, true, n), 0, true, false),
        rk_mo_reg(rk_mreg(RK_RC_GPR, true, c->vreg), 32, false, true));
    S->view_count[id] = n;
}

/* Arguments take the target's argument registers of their class in order
 * (lib/target_x86.c), a run's integer ones then their stack slots; an f32
 * uniform is the xmm view of its register. */
static void entry(RkFunc *nf, RkMFunc *mf)
{
    const RkTarget *t = S->target;
    int nvec = 0, nint = 0;
    mf->nargs = 0;
    mf->args = rk_arena_alloc(&rk_heap, sizeof(RkMArg) * (size_t)(2 * nf->nparams + 1));
    S->origin = "entry";
    S->nir = -1;
    S->loc = nf->loc;
    for (int i = 0; i < nf->nparams; i++) {
        const RkType *ty = nf->ptypes[i];
        int id = nf->params[i];
        RkMArg *a = &mf->args[mf->nargs++];
        a->stack = -1;
        a->name = nf->pnames[i];
        a->type = rk_nir_type_str(ty);
        if (ty->kind == RK_T_STACK) { /* a descriptor's address */
            a->reg = int_arg(nf, &nint, rk_arena_printf(&rk_heap, "run %s", nf->name),
                             rk_arena_printf(&rk_heap, " for stack %s", nf->pnames[i]), a);
            a->bits = 64;
            a->vreg = rk_mir_vreg(mf, RK_RC_GPR);
            S->vreg[id] = a->vreg;
            continue;
        }
        if (ty->kind == RK_T_VIEW) {
            view_param(nf, mf, i, &nint);
            continue;
        }
        if (ty->kind == RK_T_PTR)
            rk_diag_fatal(nf->loc, "run %s: pointer parameters are work in progress on native "
                                   "targets; they run with --interpret",
                          nf->name);
        if (is_int_uniform(ty)) {
            a->reg = int_arg(nf, &nint, nf->name, "", a);
            a->bits = 32;
            a->vreg = rk_mir_vreg(mf, RK_RC_GPR);
            S->arg_gpr[id] = a->vreg;
            int b = splat_gpr32(a->vreg);
            if (ty->elem == RK_E_U32 && !strcmp(nf->kind, "general_run")) {
                /* a u32 in a general register is zero-extended (general.c):
                 * the argument's upper half is unspecified, lane 0's movd
                 * clears it */
                S->origin = "uniform";
                S->arg_gpr[id] = rk_mir_vreg(mf, RK_RC_GPR);
                ins(pick("movd", "vmovd", "vmovd"), 2,
                    rk_mo_reg(rk_mreg(RK_RC_GPR, true, S->arg_gpr[id]), 32, true, false),
                    rk_mvx(rk_mv(b)));
                S->origin = "entry";
            }
            if (ty->elem == RK_E_BOOL) /* keep only the value bit: a mask */
                b = shift_imm('s', shift_imm('l', b, 31), 31);
            if (ty->elem == RK_E_U32 && strstr(nf->kind, "run")) /* before its loops */
                note_flipped(b);
            S->vreg[id] = b;
            continue;
        }
        if (nvec == t->nargs[RK_RC_VEC])
            rk_diag_fatal(nf->loc, "%s needs a %s SSE-class argument register; System V "
                                   "passes %s in registers, and Rake never passes "
                                   "arguments on the stack",
                          nf->name, ordinal(nvec + 1), number(t->nargs[RK_RC_VEC]));
        bool uniform = ty->kind == RK_T_SCALAR;
        a->reg = rk_mreg(RK_RC_VEC, false, t->args[RK_RC_VEC][nvec++].num);
        a->bits = uniform ? 128 : 0;
        a->vreg = fresh();
        S->vreg[id] = a->vreg;
        if (!uniform)
            continue;
        if (S->level == SSE2) {
            ins("shufps", 3, rk_mvu(a->vreg), rk_mv(a->vreg), rk_mi(0));
        } else {
            int b = fresh();
            ins("vbroadcastss", 2, rk_mvd(b), rk_mvx(rk_mv(a->vreg)));
            S->vreg[id] = b;
        }
    }
}

/* A kernel returning bitmask(m), where nothing else reads the bitmask:
 * the mask's sign bits go straight into the result register (movmskps;
 * AVX-512: vptestmd into a k register, then kmovw), instead of being
 * folded across lanes into a broadcast uniform and moved from lane 0.
 * Returns the bitmask's value id, or -1. */
static int direct_bitmask(const RkBlock *b)
{
    int v = b->term.value;
    const RkInstr *bm = NULL;
    for (int i = 0; i < b->ninstrs; i++) {
        const RkInstr *in = b->instrs[i];
        if (in->id == v && in->opc == RK_OP_MASK_BITMASK)
            bm = in;
        for (int k = 0; k < in->nargs; k++)
            if (in->args[k] == v)
                return -1;
    }
    return bm ? v : -1;
}

static void bitmask_result(RkMFunc *mf, int m, int id)
{
    S->origin = "mask.bitmask";
    S->nir = id;
    RkMOp eax = rk_mo_reg(mf->result, 32, true, false);
    if (S->level == AVX512) {
        k_from_mask(m);
        ins("kmovw", 2, eax, rk_mo_reg(rk_mreg(RK_RC_MASK, true, S->k), 0, false, true));
        return;
    }
    ins(pick("movmskps", "vmovmskps", ""), 2, eax, rk_mv(m));
}

static void result(RkFunc *nf, RkMFunc *mf, int value, int bitmask_of)
{
    const RkType *t = nf->result;
    S->origin = "result";
    S->nir = -1;
    S->loc = nf->loc;
    mf->result_type = rk_nir_type_str(t);
    int v = S->vreg[value];
    const RkTarget *tg = S->target;
    if (t->kind == RK_T_RACK || t->kind == RK_T_MASK || t->elem == RK_E_F32) {
        bool whole = t->kind != RK_T_SCALAR;
        mf->result = rk_mreg(RK_RC_VEC, false, tg->result[RK_RC_VEC]);
        mf->result_bits = whole ? 0 : 128;
        ins(tg->regs[RK_RC_VEC].copy, 2, rk_mo_reg(mf->result, mf->result_bits, true, false),
            whole ? rk_mv(v) : rk_mvx(rk_mv(v)));
    } else {
        mf->result = rk_mreg(RK_RC_GPR, false, tg->result[RK_RC_GPR]);
        mf->result_bits = 32;
        if (bitmask_of >= 0)
            return bitmask_result(mf, bitmask_of, value);
        if (t->elem == RK_E_BOOL) /* all-ones or zero lanes -> 1 or 0 */
            v = shift_imm('r', v, 31);
        ins(pick("movd", "vmovd", "vmovd"), 2, rk_mo_reg(mf->result, 32, true, false),
            rk_mvx(rk_mv(v)));
    }
    /* the block's terminator is `ret`: rake-emit adds vzeroupper where AVX
     * needs it (lib/mir.c, rk_mir_flatten) */
}

/* A read of value id by instruction `by` (NULL: a terminator). */
static void note_read(int id, RkInstr *by)
{
    if (id < 0 || id > S->nf->nvalues)
        return;
    S->reader[id] = ++S->nreads[id] == 1 ? by : NULL;
}

/* S->instr, S->nreads and S->reader: every value's defining instruction,
 * how often it is read (as an operand, an edge's argument, a returned
 * value or a branch's condition, as general.c's count_reads counts), and
 * its one reader when that is an instruction. */
static void note_instrs(const RkFunc *nf)
{
    size_t n = (size_t)nf->nvalues + 1;
    S->instr = rk_arena_alloc(&rk_heap, sizeof *S->instr * n);
    S->reader = rk_arena_alloc(&rk_heap, sizeof *S->reader * n);
    S->nreads = rk_arena_alloc(&rk_heap, sizeof(int) * n);
    memset(S->instr, 0, sizeof *S->instr * n);
    memset(S->reader, 0, sizeof *S->reader * n);
    memset(S->nreads, 0, sizeof(int) * n);
    for (int b = 0; b < nf->nblocks; b++) {
        const RkBlock *bl = nf->blocks[b];
        for (int i = 0; i < bl->ninstrs; i++) {
            RkInstr *in = bl->instrs[i];
            if (in->id >= 0 && in->id <= nf->nvalues)
                S->instr[in->id] = in;
            for (int k = 0; k < in->nargs; k++)
                note_read(in->args[k], in);
        }
        const RkTerm *t = &bl->term;
        for (int k = 0; k < t->to.nargs; k++)
            note_read(t->to.args[k], NULL);
        for (int k = 0; t->kind == RK_TERM_CBR && k < t->alt.nargs; k++)
            note_read(t->alt.args[k], NULL);
        if (t->kind == RK_TERM_CBR || t->kind == RK_TERM_RET)
            note_read(t->value, NULL);
    }
}

RkInstr *nir_def(int id) { return id >= 0 && id <= S->nf->nvalues ? S->instr[id] : NULL; }

int nir_reads(int id) { return S->nreads[id]; }

/* Up to eight uniforms stay in vector registers across a run's loop
 * (spec page 00, "Native stack runs"). */
static void check_uniforms(RkFunc *nf)
{
    int n = 0;
    for (int i = 0; i < nf->nparams; i++)
        n += nf->ptypes[i]->kind == RK_T_SCALAR;
    if (n > 8)
        rk_diag_fatal(nf->loc, "run %s has %d uniform parameters; a native run keeps at most "
                               "eight in vector registers",
                      nf->name, n);
}

static void select_func(RkFunc *nf, RkMModule *mm)
{
    bool run = !strcmp(nf->kind, "stack_run") || !strcmp(nf->kind, "general_run");
    if (!run && nf->nblocks != 1)
        rk_diag_internal("kernel %s has %d blocks", nf->name, nf->nblocks);
    if (run)
        check_uniforms(nf);
    RkMFunc *mf = rk_mir_func(mm, nf->name, nf->kind);
    mf->loc = nf->loc;
    rk_mir_block(mf, "entry");
    S->kvreg = NULL;
    S->nk = 0;
    S->nf = nf;
    S->mf = mf;
    S->vreg = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nf->nvalues + 1));
    S->view_count = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nf->nvalues + 1));
    S->arg_gpr = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nf->nvalues + 1));
    for (int i = 0; i <= nf->nvalues; i++)
        S->vreg[i] = S->view_count[i] = S->arg_gpr[i] = -1;
    S->type = rk_arena_alloc(&rk_heap, sizeof(RkType *) * (size_t)(nf->nvalues + 1));
    for (int i = 0; i < nf->nparams; i++)
        S->type[nf->params[i]] = nf->ptypes[i];
    RkBlock *b = nf->blocks[0];
    for (int i = 0; i < b->ninstrs; i++)
        if (b->instrs[i]->id >= 0)
            S->type[b->instrs[i]->id] = b->instrs[i]->type;
    note_instrs(nf);
    S->region = -1;
    entry(nf, mf);
    if (run) {
        mf->result = rk_mreg(RK_RC_VEC, false, -1);
        mf->result_type = "void";
        select_run(nf, mf);
        if (S->level == AVX512)
            fuse_masked_selects(mf, S->target);
        bool *loop = loop_blocks(mf); /* hoisting changes no edge */
        hoist_constants(mf, loop);
        fold_constants(mf, S->target, S->profile->lanes * 4, loop);
        if (S->level != SSE2)
            fold_loads(mf, S->target);
        limit_nds(mf, S->target);
        return;
    }
    if (b->term.kind != RK_TERM_RET || b->term.value < 0)
        rk_diag_internal("kernel %s doesn't return a value", nf->name);
    int direct = direct_bitmask(b), bitmask_of = -1;
    for (int i = 0; i < b->ninstrs; i++) {
        RkInstr *in = b->instrs[i];
        if (in->id >= 0 && in->id == direct) {
            bitmask_of = S->vreg[in->args[0]];
            continue;
        }
        int v = select_instr(in);
        if (in->id >= 0)
            S->vreg[in->id] = v;
    }
    result(nf, mf, b->term.value, bitmask_of);
    mf->blocks[0]->term.loc = nf->loc;
    if (S->level == AVX512)
        fuse_masked_selects(mf, S->target);
    fold_constants(mf, S->target, S->profile->lanes * 4, NULL);
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-isel-x86");
    const char *profile = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            profile = argv[++i];
        else
            rk_diag_input("usage: rake-isel-x86 --profile x86-sse2|x86-avx2|x86-avx512 "
                          "< rake.nir");
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.nir", 1);
    RkNirModule *nm = rk_nir_decode(doc.root);
    const RkProfile *p = rk_profile_find(profile ? profile : nm->target);
    if (!p || p->arch != RK_ARCH_X86)
        rk_ir_fail_at("/target", "rake-isel-x86 selects for x86-sse2, x86-avx2 or "
                                 "x86-avx512, not '%s'",
                      profile ? profile : nm->target);
    if (strcmp(p->name, nm->target))
        rk_ir_fail_at("/target", "the document was lowered for %s, not %s", nm->target, p->name);
    rk_nir_verify_input(nm, p->fp_exceptions, p->lanes);
    Sel sel = {.profile = p, .target = rk_target_find(p->name), .nir = -1, .k = -1};
    sel.level = sel.target->index + 1; /* SSE2, AVX2, AVX512 */
    S = &sel;
    RkMModule *mm = RK_NEW(RkMModule);
    mm->source = nm->source;
    mm->target = p->name;
    mm->t = sel.target;
    for (int i = 0; i < nm->nfuncs; i++)
        select_func(nm->funcs[i], mm);
    rk_ir_write(rk_mir_encode(mm), stdout);
    return 0;
}

/* x86.c: verifying an x86-64 object against the allocated rake.mir
 * selection it was assembled from.
 *
 * Each function's bytes are disassembled with Capstone and compared with
 * rk_mir_flatten's instruction list (lib/mir.c): the same list rake-emit
 * printed, prologue, blocks, terminators and epilogues included.  Every
 * fact about an instruction (is it known, which profiles have it, which
 * ISA extension it needs, does it move data across lanes, is it a fused
 * multiply-add, a branch, a return, stack traffic, a call) comes from the
 * target table (lib/target_x86.c).  First, over the whole function:
 *   control-flow     no calls but a run's calls of its slow blocks'
 *                    trampolines where the selection has call.slow; a
 *                    jump, branch, return or trap only where the
 *                    selection has a terminator.  Each trampoline makes
 *                    one call, of its block's helper, keeps every
 *                    register (stored before, loaded back after) and
 *                    returns
 *   stack            push and pop only where the selection saves and
 *                    restores a callee-saved register; no other operand
 *                    names rsp or rbp (no spills)
 *   isa              nothing newer than SSE2 in an SSE2 object (the table
 *                    names the extension), no EVEX in an AVX2 object
 *   allowlist        only instructions of the profile's table
 *   whole-register   no scalar arithmetic on one lane
 *   memory           a memory operand only where the selection has one
 *   fma-count        exactly the selected fused multiply-adds
 * then instruction by instruction:
 *   selection        the mnemonic and every operand as selected: registers,
 *                    immediates, the exact address of a memory operand,
 *                    and each branch's target the first instruction of the
 *                    selected block
 *   relocation       only R_X86_64_PC32 into .rodata, at a constant load
 *   constant         each loaded constant has the selected bytes
 *   whole-register   rack work on whole XMM/YMM/ZMM registers
 *   scalar-transfer  no vector data moved into a general register but the
 *                    terminal transfer into the result register, and in a
 *                    stack run the lane 0 of a uniform Boolean a branch
 *                    tests or of a uniform a u.cvt widens to 64 bits
 *   cross-lane       instructions that move data across lanes only where
 *                    the selected native-IR operation does, the entry's
 *                    uniform broadcasts and loads from the constant pool
 *   abi              arguments where System V puts them
 * The first violation in each kernel is reported with the function, the
 * offset and the instruction. */
#include <capstone/capstone.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "elf.h"
#include "mir.h"
#include "profile.h"
#include "nirops.h"
#include "strmap.h"
#include "target.h"
#include "verify.h"

/* --- normalising Capstone's view ---------------------------------------------- */

typedef struct Insn {
    uint64_t addr;
    int size;
    char mnem[32];
    char ops[8][64]; /* AT&T order: register names, $imm, rip, (base,index,scale,disp) */
    int nops;
    bool mem;        /* has a memory operand other than a rip-relative load */
    bool rip;        /* has a rip-relative operand */
    const char *text;
} Insn;

static const int sse_cc_imm[] = {-1, 0, 1, 2, 3, 4, 5, 6, 7};

static void mem_str(char *out, size_t n, const char *base, const char *index, int scale,
                    int64_t disp)
{
    snprintf(out, n, "(%s,%s,%d,%lld)", base, index, index[0] ? scale : 1, (long long)disp);
}

/* Capstone prints comparison predicates as mnemonics (vcmpltps, cmpleps,
 * vpcmpnltud); the selection writes the predicate as an immediate. */
static long predicate(cs_x86 *x, char *mnem, const char *op_str)
{
    size_t ml = strlen(mnem);
    if (!strncmp(mnem, "vcmp", 4) && ml > 6 && !strcmp(mnem + ml - 2, "ps") &&
        strcmp(mnem, "vcmpps")) {
        strcpy(mnem, "vcmpps");
        return (long)x->avx_cc - 1;
    }
    if (!strncmp(mnem, "cmp", 3) && ml > 5 && !strcmp(mnem + ml - 2, "ps") && strcmp(mnem, "cmpps")) {
        strcpy(mnem, "cmpps");
        return x->sse_cc < (int)(sizeof sse_cc_imm / sizeof *sse_cc_imm) ? sse_cc_imm[x->sse_cc] : -1;
    }
    if ((!strcmp(mnem, "vpcmpeqd") || !strcmp(mnem, "vpcmpgtd")) && strstr(op_str, ", %k")) {
        /* Capstone prints vpcmpd $0 and $6 into a k register as the
         * aliases vpcmpeqd and vpcmpgtd; the selection writes vpcmpd */
        long cc = mnem[5] == 'e' ? 0 : 6;
        strcpy(mnem, "vpcmpd");
        return cc;
    }
    if (!strncmp(mnem, "vpcmp", 5) && strcmp(mnem, "vpcmpeqd") && strcmp(mnem, "vpcmpgtd") &&
        strcmp(mnem, "vpcmpd") && strcmp(mnem, "vpcmpud")) {
        static const char *pred[] = {"eq", "lt", "le", "false", "neq", "nlt", "nle", "true"};
        bool u = ml > 2 && !strcmp(mnem + ml - 2, "ud");
        size_t plen = ml - 5 - (u ? 2 : 1);
        long cc = -1;
        for (int p = 0; p < 8; p++)
            if (strlen(pred[p]) == plen && !strncmp(mnem + 5, pred[p], plen))
                cc = p;
        strcpy(mnem, u ? "vpcmpud" : "vpcmpd");
        return cc;
    }
    return -1;
}

static void normalise(csh h, cs_insn *ci, Insn *o)
{
    memset(o, 0, sizeof *o);
    o->addr = ci->address;
    o->size = ci->size;
    o->text = rk_arena_printf(&rk_heap, "%s %s", ci->mnemonic, ci->op_str);
    snprintf(o->mnem, sizeof o->mnem, "%s", ci->mnemonic);
    if (!strcmp(o->mnem, "retq"))
        strcpy(o->mnem, "ret");
    if (!strcmp(o->mnem, "jmpq"))
        strcpy(o->mnem, "jmp");
    cs_x86 *x = &ci->detail->x86;
    long cc_imm = predicate(x, o->mnem, ci->op_str);
    if (cc_imm >= 0)
        snprintf(o->ops[o->nops++], 64, "$%ld", cc_imm);
    const char *wm = strstr(ci->op_str, "{%k");
    char mask[8] = "";
    if (wm)
        snprintf(mask, sizeof mask, "%.2s", wm + 2);
    bool zero = strstr(ci->op_str, "{z}") != NULL;
    for (int k = 0; k < x->op_count && o->nops < 8; k++) {
        cs_x86_op *op = &x->operands[k];
        if (wm && k == x->op_count - 1 && op->type == X86_OP_REG &&
            !strcmp(cs_reg_name(h, op->reg), mask))
            break;
        if (op->type == X86_OP_REG) {
            snprintf(o->ops[o->nops++], 64, "%s", cs_reg_name(h, op->reg));
        } else if (op->type == X86_OP_IMM) {
            /* Capstone shows a 32-bit operation's imm32 unsigned and its
             * imm8 signed; the selection writes both signed */
            long long imm = op->imm;
            if (op->size == 4 && imm >= 0x80000000LL && imm <= 0xffffffffLL)
                imm -= 0x100000000LL;
            snprintf(o->ops[o->nops++], 64, "$%lld", imm);
        } else {
            const char *base = op->mem.base ? cs_reg_name(h, op->mem.base) : "";
            const char *index = op->mem.index ? cs_reg_name(h, op->mem.index) : "";
            if (!strcmp(base, "rip") && !index[0]) {
                snprintf(o->ops[o->nops++], 64, "rip");
                o->rip = true;
            } else {
                mem_str(o->ops[o->nops++], 64, base, index, op->mem.scale, op->mem.disp);
                o->mem = true;
            }
        }
    }
    if (wm && o->nops) {
        char *last = o->ops[o->nops - 1];
        snprintf(last + strlen(last), 64 - strlen(last), "{%%%s}%s", mask, zero ? "{z}" : "");
    }
}

/* --- checks ------------------------------------------------------------------------- */

typedef struct Ctx {
    const RkProfile *p;
    const RkTarget *t;
    const RkMModule *m;
    const RkMFunc *f;
    RkMFlat fl;
    ElfObject *obj;
    ElfSymbol *sym;
    cs_insn *ci;      /* the disassembly */
    size_t n;         /* its instructions, without loop heads' padding */
    size_t decoded;   /* what cs_disasm returned (cs_free frees that many) */
    int *slow_before; /* per flattened instruction: the slow calls before it */
    bool failed;
} Ctx;

static const char *reg(const Ctx *c, RkMReg r, int bits)
{
    const char *n = rk_target_reg_name(c->t, (RkRegClass)r.cls, r.num, bits);
    return n ? n : "?";
}

/* The address of flattened instruction i (the end of the function past
 * the last). */
static uint64_t address_of(const Ctx *c, int i)
{
    return (size_t)i < c->n ? c->ci[i].address : c->sym->value + c->sym->size;
}

static void mir_ops(const Ctx *c, const RkMInstr *in, char ops[8][64], int *n)
{
    *n = 0;
    for (int k = in->nops - 1; k >= 0 && *n < 8; k--) {
        const RkMOp *o = &in->ops[k];
        char *s = ops[(*n)++];
        switch (o->kind) {
        case RK_MO_REG:
            snprintf(s, 64, "%s", reg(c, o->reg, o->bits));
            if (o->mask.num >= 0)
                snprintf(s + strlen(s), 64 - strlen(s), "{%%%s}%s", reg(c, o->mask, 0),
                         o->zero ? "{z}" : "");
            break;
        case RK_MO_IMM:
            snprintf(s, 64, "$%lld", (long long)o->imm);
            break;
        case RK_MO_CONST:
            snprintf(s, 64, "rip");
            break;
        case RK_MO_LABEL:
            snprintf(s, 64, "$%llu", (unsigned long long)address_of(c, c->fl.block_at[o->imm]));
            break;
        case RK_MO_MEM:
            mem_str(s, 64, o->reg.num >= 0 ? reg(c, o->reg, 64) : "",
                    o->index.num >= 0 ? reg(c, o->index, 64) : "", o->scale, o->disp);
            if (o->mask.num >= 0)
                snprintf(s + strlen(s), 64 - strlen(s), "{%%%s}", reg(c, o->mask, 0));
            break;
        }
    }
}

static bool mir_has_mem(const RkMInstr *mi)
{
    for (int k = 0; mi && k < mi->nops; k++)
        if (mi->ops[k].kind == RK_MO_MEM)
            return true;
    return false;
}

static void violation(Ctx *c, const Insn *in, const char *rule, const char *fmt, ...)
    RK_PRINTF(4, 5);

static void violation(Ctx *c, const Insn *in, const char *rule, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rake-verify: %s", c->f->name);
    if (in)
        fprintf(stderr, "+0x%llx (%s)", (unsigned long long)(in->addr - c->sym->value), in->text);
    fprintf(stderr, ": %s: ", rule);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A general register at any width, by Capstone's name. */
static bool gpr_named(const Ctx *c, const char *name, RkRegRef *r)
{
    int bits;
    return rk_target_reg_parse(c->t, name, r, &bits) && r->cls == RK_RC_GPR;
}

/* Whether the operand text names a reserved general register: alone, or
 * as a memory operand's base or index, "(base,index,scale,disp)". */
static bool names_reserved(const Ctx *c, const char *op)
{
    RkRegRef r;
    const char *paren = strchr(op, '(');
    if (!paren)
        return gpr_named(c, op, &r) && (c->t->regs[RK_RC_GPR].reserved >> r.num & 1u);
    char base[16] = "", index[16] = "";
    int n = sscanf(paren, "(%15[^,)],%15[^,)]", base, index);
    return (n >= 1 && names_reserved(c, base)) || (n == 2 && names_reserved(c, index));
}

static const RkInsnDesc *mir_desc(const Ctx *c, const RkMInstr *mi)
{
    return mi ? rk_target_insn(c->t, mi->op) : NULL;
}

/* Whether a memory operand is the slot of one of the function's stack
 * arguments, below the prologue's pushes. */
static bool argument_slot(const Ctx *c, const RkMOp *m)
{
    if (m->index.num >= 0 || m->reg.virt || m->reg.num != c->t->stack_pointer)
        return false;
    int64_t pushed = rk_mir_pushed_bytes(c->f, c->t);
    for (int a = 0; a < c->f->nargs; a++) {
        const RkMArg *x = &c->f->args[a];
        if (x->stack >= 0 && m->bits <= (x->bits == 32 ? 32 : 64) &&
            m->disp == rk_mir_arg_slot(c->t, x) + pushed)
            return true;
    }
    return false;
}

/* A run's load of an argument System V passes on the stack: the
 * flattening's after the prologue (lib/mir.c, stack_args), or rake-ra's
 * reload of the argument or of its sign extension where registers ran
 * out (RK_MIR_STACK_ARG, passes/rake-ra/stackarg.c).  These are the only
 * reads of the stack pointer a run makes, each at an argument's slot.
 * The selection rule checks the instruction and its register; check_abi
 * each argument's slot. */
static bool stack_arg_load(const Ctx *c, const RkMInstr *mi)
{
    if (!mi || mi->nops != 2 || mi->ops[1].kind != RK_MO_MEM || !c->t->stack_load[0] ||
        mi->ops[0].kind != RK_MO_REG || mi->ops[0].reg.cls != RK_RC_GPR || !mi->ops[0].def ||
        !argument_slot(c, &mi->ops[1]))
        return false;
    if (!strcmp(mi->origin, RK_MIR_STACK_ARG))
        return rk_mir_is_run(c->f);
    return !strcmp(mi->origin, "entry") &&
           (!strcmp(mi->op, c->t->stack_load[0]) || !strcmp(mi->op, c->t->stack_load[1]));
}


/* --- slow blocks' trampolines ------------------------------------------------------
 *
 * The trampoline of a run's K-th call.slow, rk_tramp_FUNC_K, lies outside
 * the run.  It must keep every register (rk_target_slow_saved): each is
 * stored to the stack before the trampoline's only call and loaded from
 * the same place after it; the call reaches rk_slow_LINE_COL, or a
 * failed check's rk_trap_LINE_COL (rk_mir_slow_helper names it), by a
 * relocation against that symbol; the trampoline ends in ret. */

typedef struct Saves {
    char at[RK_RC_COUNT][RK_REG_MAX][64]; /* where each register was stored ("" none) */
    bool back[RK_RC_COUNT][RK_REG_MAX];   /* loaded back from there after the call */
} Saves;

/* A whole register of the target, by its Capstone name. */
static bool whole_reg(const Ctx *c, const char *name, RkRegRef *r)
{
    int bits;
    if (!rk_target_reg_parse(c->t, name, r, &bits))
        return false;
    return bits == 0 || bits == c->t->regs[r->cls].full_bits;
}

static void note_save(const Ctx *c, const Insn *in, bool after, Saves *sv)
{
    RkRegRef r;
    if (in->nops != 2)
        return;
    const char *reg = after ? in->ops[1] : in->ops[0], *mem = after ? in->ops[0] : in->ops[1];
    const char *sp = rk_target_reg_name(c->t, RK_RC_GPR, c->t->stack_pointer, 0);
    if (mem[0] != '(' || strncmp(mem + 1, sp, strlen(sp)) || mem[1 + strlen(sp)] != ',' ||
        !whole_reg(c, reg, &r) ||
        strcmp(in->mnem, c->t->slow->save[r.cls]))
        return;
    if (!after && !sv->at[r.cls][r.num][0])
        snprintf(sv->at[r.cls][r.num], 64, "%s", mem);
    else if (after && !strcmp(sv->at[r.cls][r.num], mem))
        sv->back[r.cls][r.num] = true;
}

static bool tramp_call(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    const char *want = rk_mir_slow_helper(mi);
    const ElfReloc *r = elf_reloc_at(c->obj, in->addr + 1);
    return r && r->sym && r->sym->name && !strcmp(r->sym->name, want);
}

static void verify_trampoline(Ctx *c, csh h, const RkMInstr *mi, int k)
{
    const char *name = rk_arena_printf(&rk_heap, "rk_tramp_%s_%d", c->f->name, k);
    const ElfSymbol *sym = NULL;
    int nnamed;
    const int *named = elf_symbols_named(c->obj, name, &nnamed);
    for (int i = 0; i < nnamed; i++)
        if (c->obj->symbols[named[i]].shndx == c->obj->text)
            sym = &c->obj->symbols[named[i]];
    if (!sym)
        return violation(c, NULL, "control-flow", "no trampoline %s for a slow block", name);
    ElfSection *text = &c->obj->sections[c->obj->text];
    cs_insn *ci;
    size_t n = sym->value + sym->size <= text->size
                   ? cs_disasm(h, text->data + sym->value, sym->size, sym->value, 0, &ci)
                   : 0;
    Saves *sv = rk_arena_alloc(&rk_heap, sizeof *sv);
    memset(sv, 0, sizeof *sv);
    int calls = 0;
    bool reached = false, ends = false;
    for (size_t i = 0; i < n; i++) {
        Insn in;
        normalise(h, &ci[i], &in);
        if (!strncmp(in.mnem, c->t->slow->call, strlen(c->t->slow->call))) {
            calls++;
            reached = tramp_call(c, &in, mi);
            continue;
        }
        note_save(c, &in, calls > 0, sv);
        ends = i == n - 1 && !strcmp(in.mnem, c->t->ret);
    }
    if (n)
        cs_free(ci, n);
    if (calls != 1 || !reached || !ends)
        return violation(c, NULL, "control-flow", "%s must make one call, of the slow block's "
                                                  "helper, and return",
                         name);
    for (int cls = 0; cls < RK_RC_COUNT; cls++)
        for (int r = 0; r < c->t->regs[cls].count; r++)
            if (rk_target_slow_saved(c->t, (RkRegClass)cls, r) && !sv->back[cls][r])
                return violation(c, NULL, "stack", "%s doesn't keep %s across the slow block",
                                 name, rk_target_reg_name(c->t, (RkRegClass)cls, r, 0));
}

/* Whether the selection has an instruction with any of the flags. */
static bool selection_has(const Ctx *c, unsigned flags)
{
    for (int i = 0; i < c->fl.n; i++) {
        const RkInsnDesc *d = rk_target_insn(c->t, c->fl.ins[i].op);
        if (d && (d->flags & flags))
            return true;
    }
    return false;
}

static void check_flow(Ctx *c, const Insn *in, const RkInsnDesc *d, const RkMInstr *mi, bool last)
{
    const char *m = in->mnem;
    const RkInsnDesc *md = mir_desc(c, mi);
    unsigned here = md ? md->flags : 0;
    if ((d && (d->flags & RK_I_CALL)) || !strncmp(m, "call", 4) || !strcmp(m, "syscall") ||
        !strncmp(m, "int", 3))
        return violation(c, in, "control-flow", "a kernel makes no calls");
    if (((d && (d->flags & RK_I_BRANCH)) || m[0] == 'j' || !strncmp(m, "loop", 4)) &&
        !selection_has(c, RK_I_BRANCH))
        return violation(c, in, "control-flow", "the selection has one block: no jumps or "
                                                "branches");
    if (d && (d->flags & (RK_I_RET | RK_I_TRAP)) && !last && !(here & (RK_I_RET | RK_I_TRAP)))
        return violation(c, in, "control-flow", "%s before the end of the function, where the "
                                                "selection has no return or trap",
                         m);
    /* the table knows popcntl isn't stack traffic; an unknown mnemonic is
     * judged by its name */
    if (d ? (d->flags & RK_I_STACK) != 0
          : (!strncmp(m, "push", 4) || !strncmp(m, "pop", 3) || !strcmp(m, "leave") ||
             !strcmp(m, "enter"))) {
        if (!(d && (d->flags & RK_I_STACK)) || !selection_has(c, RK_I_STACK))
            return violation(c, in, "stack", "a kernel touches the stack only to save and "
                                             "restore the callee-saved registers it uses");
        return;
    }
    for (int k = 0; k < in->nops; k++)
        if (names_reserved(c, in->ops[k]) && !stack_arg_load(c, mi))
            return violation(c, in, "stack", "a kernel doesn't use the stack or its registers "
                                             "(no spills)");
}

/* Whether the selection calls a slow block here. */
static bool slow_here(const Ctx *c, const RkMInstr *mi)
{
    const RkInsnDesc *md = mir_desc(c, mi);
    return md && (md->flags & RK_I_SLOW);
}

/* A run's call of a slow block: a direct call of this call site's
 * trampoline, rk_tramp_FUNC_K (the K-th slow call of the function), a
 * symbol of the same section, so the assembler left no relocation.  The
 * trampoline keeps every register; it lies outside the function, and the
 * C helper it calls is the C compiler's, like the rest of the slow tier. */
static void check_slow_call(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    if (strncmp(in->mnem, c->t->slow->call, strlen(c->t->slow->call)) || in->nops != 1)
        return violation(c, in, "selection", "the selection calls a slow block here");
    int k = c->slow_before[mi - c->fl.ins];
    const char *want = rk_arena_printf(&rk_heap, "rk_tramp_%s_%d", c->f->name, k);
    const char *target = in->ops[0] + (in->ops[0][0] == '$');
    unsigned long long to = strtoull(target, NULL, 0);
    int n;
    const int *named = elf_symbols_named(c->obj, want, &n);
    for (int i = 0; i < n; i++) {
        const ElfSymbol *s = &c->obj->symbols[named[i]];
        if (s->shndx == c->obj->text && s->value == to && !elf_reloc_at(c->obj, in->addr + 1))
            return;
    }
    violation(c, in, "control-flow", "a run calls only its slow blocks' trampolines: this "
                                     "call doesn't reach %s",
              want);
}

static void check_insn(Ctx *c, const Insn *in, const RkMInstr *mi, bool last)
{
    const char *m = in->mnem;
    const RkInsnDesc *d = rk_target_insn(c->t, m);
    if (c->t->slow && slow_here(c, mi))
        return check_slow_call(c, in, mi);
    check_flow(c, in, d, mi, last);
    if (c->failed)
        return;
    if (c->t->index == 0 && d && !rk_target_has(c->t, d) && strcmp(d->isa, "SSE") &&
        strcmp(d->isa, "SSE2") && strcmp(d->isa, "x86-64"))
        return violation(c, in, "isa", "%s is not SSE2 (it needs %s); x86-sse2 objects use SSE2 "
                                       "only",
                         m, d->isa);
    if (c->t->index == 1)
        for (int k = 0; k < in->nops; k++)
            if (in->ops[k][0] == 'z' || (in->ops[k][0] == 'k' && in->ops[k][1] >= '0' &&
                                         in->ops[k][1] <= '7') ||
                strchr(in->ops[k], '{'))
                return violation(c, in, "isa", "an x86-avx2 object has no EVEX (AVX-512) "
                                               "instructions");
    if (!rk_target_has(c->t, d)) {
        bool scalar = strlen(m) > 2 && !strcmp(m + strlen(m) - 2, "ss");
        return violation(c, in, scalar ? "whole-register" : "allowlist",
                         scalar ? "%s is scalar arithmetic on one lane; racks stay in whole "
                                  "registers"
                                : "%s is not in the %s instruction list",
                         m, c->p->name);
    }
    if (in->mem && !mir_has_mem(mi))
        return violation(c, in, "memory", "the selection has no memory operand here: a "
                                          "kernel's memory operands are the selected loads "
                                          "and stores and rip-relative constant loads");
}

/* A stack run's transfers (loads, stores, compaction, the tail's mask and
 * count) widen, narrow and move lanes through general registers and
 * 128-bit views: the selection says exactly which, instruction for
 * instruction, and the other rules hold for the run's computation. */
static bool transfer(const RkMInstr *mi)
{
    const RkOpInfo *op = rk_nir_op_info(rk_nir_op_lookup(mi->origin));
    return op && op->shape == SH_MEM;
}

/* A stack run's branch on a uniform Boolean tests its lane 0, and its
 * counted loops widen a uniform i32 bound or counter to 64 bits from lane
 * 0: the selection marks each such move (of the low 32 bits) as the
 * branch's or the u.cvt's. */
static bool bool_branch(Ctx *c, const RkMInstr *mi)
{
    return (!strcmp(mi->origin, "branch") || !strcmp(mi->origin, "u.cvt")) && c->f->kind &&
           (!strcmp(c->f->kind, "stack_run") || !strcmp(c->f->kind, "general_run"));
}

/* A run keeps some 32-bit integers (a loop's index) in general
 * registers; a vector operation reading one gets it broadcast (movd, then
 * a broadcast), and a u32 parameter moves there from lane 0: the
 * selection marks both with origin `uniform`. */
static bool run_uniform(Ctx *c, const RkMInstr *mi)
{
    return !strcmp(mi->origin, "uniform") && c->f->kind &&
           (!strcmp(c->f->kind, "stack_run") || !strcmp(c->f->kind, "general_run"));
}

static void check_transfer(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    if (transfer(mi))
        return;
    RkRegRef r;
    if (in->nops < 2 || !gpr_named(c, in->ops[in->nops - 1], &r))
        return;
    bool from_vector = false;
    for (int k = 0; k < in->nops - 1; k++) {
        int bits;
        RkRegRef s;
        from_vector |= rk_target_reg_parse(c->t, in->ops[k], &s, &bits) && s.cls == RK_RC_VEC;
    }
    if (!from_vector)
        return;
    /* a kernel returning bitmask(m) moves the sign bits straight into its
     * result register (movmskps, selected for the bitmask) */
    bool result = (!strcmp(mi->origin, "result") || !strcmp(mi->origin, "mask.bitmask")) &&
                  c->f->result.cls == RK_RC_GPR && c->f->result.num == r.num;
    if (!result && !bool_branch(c, mi) && !run_uniform(c, mi))
        violation(c, in, "scalar-transfer", "%s is written from a vector register; a kernel's "
                                            "only such transfer is its terminal one into its "
                                            "result register",
                  in->ops[in->nops - 1]);
}

static void check_whole(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    if (!strcmp(mi->origin, "entry") || !strcmp(mi->origin, "result") || transfer(mi) ||
        bool_branch(c, mi) || run_uniform(c, mi))
        return;
    for (int k = 0; k < in->nops; k++) {
        RkRegRef r;
        int bits;
        /* a vector register narrower than the profile's (xmm in AVX2 code) */
        if (!rk_target_reg_parse(c->t, in->ops[k], &r, &bits) || r.cls != RK_RC_VEC || !bits)
            continue;
        bool count = k == 0 && in->nops == 3 && (!strcmp(in->mnem, "vpslld") ||
                                                 !strcmp(in->mnem, "vpsrld") ||
                                                 !strcmp(in->mnem, "vpsrad"));
        if (!count)
            violation(c, in, "whole-register", "%s is a 128-bit part of a %s rack", in->ops[k],
                      rk_target_reg_name(c->t, RK_RC_VEC, 0, 0));
    }
}

static void check_cross(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    const RkInsnDesc *d = rk_target_insn(c->t, in->mnem);
    if (!d || !(d->flags & RK_I_CROSS))
        return;
    RkOp origin = rk_nir_op_lookup(mi->origin);
    const RkOpInfo *op = rk_nir_op_info(origin);
    if ((op && (op->flags & RK_OPF_CROSS)) || !strcmp(mi->origin, "entry") || transfer(mi) ||
        run_uniform(c, mi))
        return;
    /* SSE2's integer multiply interleaves even and odd lanes */
    if (c->t->index == 0 && (origin == RK_OP_RACK_MUL || origin == RK_OP_U_MUL) &&
        (!strcmp(in->mnem, "pshufd") || !strcmp(in->mnem, "punpckldq")))
        return;
    /* constants are broadcast from memory (a load: two operands); the
     * rest move lanes */
    if (in->rip && in->nops == 2)
        return;
    violation(c, in, "cross-lane", "%s moves data across lanes, but it was selected for %s",
              in->mnem, mi->origin);
}

static void check_constant(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    int cidx = -1;
    for (int k = 0; k < mi->nops; k++)
        if (mi->ops[k].kind == RK_MO_CONST)
            cidx = (int)mi->ops[k].imm;
    if (cidx < 0 || cidx >= c->f->nconsts)
        return;
    /* the displacement: the instruction's last four bytes, or the four
     * before a trailing immediate byte (vcmpps $imm, .LC(%rip), ...) */
    uint64_t end = in->addr + (uint64_t)in->size;
    const ElfReloc *r = elf_reloc_at(c->obj, end - 4);
    if (!r)
        r = elf_reloc_at(c->obj, end - 5);
    if (!r || r->type != 2 /* R_X86_64_PC32 */ || r->sym->shndx != c->obj->rodata)
        return violation(c, in, "relocation", "a constant operand needs an R_X86_64_PC32 "
                                              "relocation into .rodata");
    const RkMConst *k = &c->f->consts[cidx];
    int64_t at = (int64_t)r->sym->value + r->addend + (int64_t)(end - r->offset);
    ElfSection *ro = &c->obj->sections[c->obj->rodata];
    if (at < 0 || (uint64_t)at + (uint64_t)k->size > ro->size)
        return violation(c, in, "constant", "the constant lies outside .rodata");
    /* the words are little-endian, as x86 stores them */
    if (memcmp(ro->data + at, k->words, (size_t)k->size))
        violation(c, in, "constant", "the loaded constant's bytes differ from constant C%d of "
                                     "the selection",
                  cidx);
}

/* Racks, masks and f32 travel in vector registers; everything else
 * (integers, Booleans, pointers, stack descriptors) in general ones, 32
 * bits wide for i32, u32 and bool. */
static bool vector_type(const char *type)
{
    return !strcmp(type, "f32") || !strncmp(type, "rack<", 5) || !strncmp(type, "mask<", 5);
}

static void check_abi(Ctx *c)
{
    int used[RK_RC_COUNT] = {0};
    for (int i = 0; i < c->f->nargs; i++) {
        const RkMArg *a = &c->f->args[i];
        int cls = vector_type(a->type) ? RK_RC_VEC : RK_RC_GPR;
        int bits = cls == RK_RC_GPR ? rk_mir_int_arg_bits(a->type)
                                    : !strcmp(a->type, "f32") ? 128 : 0;
        const char *want = used[cls] < c->t->nargs[cls]
                               ? reg(c, rk_mreg((RkRegClass)cls, false,
                                                c->t->args[cls][used[cls]].num), bits)
                               : "the stack";
        int slot = used[cls] - c->t->nargs[cls];
        used[cls]++;
        bool run = rk_mir_is_run(c->f);
        if (a->stack >= 0) {
            if (slot >= 0 && cls == RK_RC_GPR && run && a->stack == slot)
                continue; /* loaded from its slot (stack_arg_load) */
            violation(c, NULL, "abi", "argument %s (%s) is read from stack slot %d, but System V "
                                      "passes it in %s",
                      a->name, a->type, a->stack,
                      slot >= 0 ? rk_arena_printf(&rk_heap, "stack slot %d", slot) : want);
            continue;
        }
        const char *have = reg(c, a->reg, a->bits);
        if (strcmp(want, have))
            violation(c, NULL, "abi", "argument %s (%s) is in %s, but System V passes it in %s",
                      a->name, a->type, have, want);
    }
}

static void check_selection(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    char want[8][64];
    int nw;
    mir_ops(c, mi, want, &nw);
    bool same = !strcmp(in->mnem, mi->op) && nw == in->nops;
    for (int k = 0; same && k < nw; k++)
        same = !strcmp(want[k], in->ops[k]);
    if (same)
        return;
    char buf[600] = "";
    for (int k = 0; k < nw; k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", k ? ", " : " ", want[k]);
    violation(c, in, "selection", "the selection has %s%s here", mi->op, buf);
}

/* Whether control can't fall out of the function after this instruction. */
static bool ends_flow(const Ctx *c, const char *m)
{
    return !strcmp(m, c->t->ret) || !strcmp(m, c->t->jump) || !strcmp(m, c->t->trap);
}

/* The assembler's padding before each loop head (rk_mir_flatten's
 * loop_head, the target's loop_align) leaves the disassembly: those nops
 * move to its end, past c->n.  A nop anywhere else stays where it is and
 * fails the allowlist like any instruction the selection doesn't have. */
static void drop_padding(Ctx *c)
{
    size_t w = 0;
    int at = 0; /* the flattened instruction the next kept one must be */
    for (size_t i = 0; i < c->n; i++) {
        if (c->ci[i].id == X86_INS_NOP && at <= c->fl.n && c->fl.loop_head[at])
            continue;
        cs_insn keep = c->ci[i];
        c->ci[i] = c->ci[w];
        c->ci[w++] = keep;
        at++;
    }
    c->n = w;
}

static void verify_function(Ctx *c, csh h)
{
    ElfSection *text = &c->obj->sections[c->obj->text];
    check_abi(c);
    if (c->sym->value + c->sym->size > text->size)
        return violation(c, NULL, "symbols", "the symbol lies outside .text");
    c->fl = rk_mir_flatten(c->f, c->t);
    c->n = c->decoded = cs_disasm(h, text->data + c->sym->value, c->sym->size, c->sym->value, 0, &c->ci);
    size_t decoded = 0;
    for (size_t i = 0; i < c->n; i++)
        decoded += c->ci[i].size;
    if (decoded != c->sym->size) {
        cs_free(c->ci, c->decoded);
        return violation(c, NULL, "allowlist", "bytes at +0x%llx don't decode as an "
                                               "instruction Capstone knows",
                         (unsigned long long)decoded);
    }
    drop_padding(c);
    c->slow_before = rk_arena_alloc(&rk_heap, sizeof(int) * ((size_t)c->fl.n + 1));
    for (int i = 0, k = 0; i <= c->fl.n; i++) {
        c->slow_before[i] = k;
        k += i < c->fl.n && slow_here(c, &c->fl.ins[i]);
    }
    Insn *ins = rk_arena_alloc(&rk_heap, sizeof *ins * (c->n + 1));
    int fmas = 0;
    for (size_t i = 0; i < c->n && !c->failed; i++) {
        normalise(h, &c->ci[i], &ins[i]);
        check_insn(c, &ins[i], (int)i < c->fl.n ? &c->fl.ins[i] : NULL, i == c->n - 1);
        const RkInsnDesc *d = rk_target_insn(c->t, ins[i].mnem);
        fmas += d && (d->flags & RK_I_FMA);
    }
    if (!c->failed && fmas != c->f->fmas)
        violation(c, NULL, "fma-count", "%d fused multiply-adds, but %d were selected", fmas,
                  c->f->fmas);
    for (size_t i = 0; i < c->n && !c->failed; i++) {
        if ((int)i >= c->fl.n) {
            violation(c, &ins[i], "selection", "an instruction the selection doesn't have");
            break;
        }
        const RkMInstr *mi = &c->fl.ins[i];
        if (slow_here(c, mi))
            continue; /* checked above */
        check_selection(c, &ins[i], mi);
        check_transfer(c, &ins[i], mi);
        check_whole(c, &ins[i], mi);
        check_cross(c, &ins[i], mi);
        check_constant(c, &ins[i], mi);
    }
    if (!c->failed && (int)c->n < c->fl.n)
        violation(c, NULL, "selection", "the object ends before the selection's %s",
                  c->fl.ins[c->n].op);
    if (!c->failed && (c->n == 0 || !ends_flow(c, ins[c->n - 1].mnem)))
        violation(c, NULL, "control-flow", "the function doesn't end in %s, %s or %s", c->t->ret,
                  c->t->jump, c->t->trap);
    for (int i = 0, k = 0; i < c->fl.n && !c->failed; i++)
        if (slow_here(c, &c->fl.ins[i]))
            verify_trampoline(c, h, &c->fl.ins[i], k++);
    cs_free(c->ci, c->decoded);
}

/* Whether .text offset `off` lies inside one of the selected functions. */
typedef struct Range {
    uint64_t from, to;
} Range;

/* The .text ranges of the selected functions' symbols (n of them). */
static Range *selection_ranges(ElfObject *obj, const RkMModule *m, int *n)
{
    Range *r = rk_arena_alloc(&rk_heap, sizeof *r * (size_t)(m->nfuncs + 1));
    *n = 0;
    for (int k = 0; k < m->nfuncs; k++) {
        int nn;
        const int *named = elf_symbols_named(obj, m->funcs[k]->name, &nn);
        for (int i = 0; i < nn; i++) {
            const ElfSymbol *s = &obj->symbols[named[i]];
            if (s->type == 2 && s->shndx == obj->text) {
                r[(*n)++] = (Range){s->value, s->value + s->size};
                break;
            }
        }
    }
    return r;
}

/* In a whole program's object the C compiler's functions share .text
 * with the kernels and runs: only relocations inside those are judged. */
static int by_from(const void *a, const void *b)
{
    uint64_t x = ((const Range *)a)->from, y = ((const Range *)b)->from;
    return (x > y) - (x < y);
}

/* Whether off lies in one of the n ranges, sorted by from (functions'
 * symbols don't overlap). */
static bool inside_any(const Range *r, int n, uint64_t off)
{
    int lo = 0, hi = n; /* the first range starting after off */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r[mid].from <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && off < r[lo - 1].to;
}

static int check_relocs(ElfObject *obj, const RkMModule *m, bool whole)
{
    int bad = 0, nr;
    Range *sel = selection_ranges(obj, m, &nr);
    qsort(sel, (size_t)nr, sizeof *sel, by_from);
    for (int i = 0; i < obj->nrelocs; i++) {
        const ElfReloc *r = &obj->text_relocs[i];
        if (whole && !inside_any(sel, nr, r->offset))
            continue;
        if (r->type != 2 || r->sym->shndx != obj->rodata) {
            fprintf(stderr, "rake-verify: relocation: .text+0x%llx has relocation type %u "
                            "against %s; kernels only load constants from .rodata\n",
                    (unsigned long long)r->offset, r->type,
                    r->sym->name[0] ? r->sym->name : "a section");
            bad++;
        }
    }
    return bad;
}

static int check_symbols(ElfObject *obj, const RkMModule *m)
{
    int bad = 0;
    RkStrMap known = {0};
    for (int k = 0; k < m->nfuncs; k++)
        rk_strmap_add(&known, m->funcs[k]->name, (void *)m->funcs[k]);
    for (int i = 0; i < obj->nsymbols; i++) {
        const ElfSymbol *s = &obj->symbols[i];
        if (s->type == 2 /* FUNC */ && !rk_strmap_get(&known, s->name)) {
            fprintf(stderr, "rake-verify: symbols: function %s is not in the selection\n",
                    s->name);
            bad++;
        }
    }
    rk_strmap_free(&known);
    return bad;
}

int verify_x86(ElfObject *obj, const RkMModule *m, const RkProfile *p, bool whole)
{
    csh h;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
        rk_diag_internal("cannot open Capstone for x86-64");
    cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    if (obj->machine != 62) {
        fprintf(stderr, "rake-verify: elf: not an x86-64 object\n");
        return 1;
    }
    if (obj->text < 0) {
        fprintf(stderr, "rake-verify: elf: the object has no .text section\n");
        return 1;
    }
    int bad = check_relocs(obj, m, whole) + (whole ? 0 : check_symbols(obj, m));
    for (int k = 0; k < m->nfuncs; k++) {
        const RkMFunc *f = m->funcs[k];
        ElfSymbol *sym = NULL;
        int n;
        const int *named = elf_symbols_named(obj, f->name, &n);
        for (int i = 0; i < n; i++)
            if (obj->symbols[named[i]].type == 2)
                sym = &obj->symbols[named[i]];
        Ctx c = {p, m->t, m, f, {NULL, 0, NULL, NULL}, obj, sym, NULL, 0, 0, NULL, false};
        if (!sym || sym->shndx != obj->text || sym->bind != 1 /* GLOBAL */ ||
            sym->visibility != 2 /* HIDDEN */) {
            fprintf(stderr, "rake-verify: %s: symbols: expected a hidden global function "
                            "symbol in .text\n",
                    f->name);
            bad++;
            continue;
        }
        verify_function(&c, h);
        bad += c.failed;
    }
    cs_close(&h);
    return bad;
}

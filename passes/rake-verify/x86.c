/* x86.c: verifying an x86-64 object of register kernels against the
 * rake.mir selection it was assembled from.
 *
 * Each kernel's bytes are disassembled with Capstone and checked, first on
 * their own and then against the selection:
 *   allowlist        only instructions of the profile's list
 *   isa              no SSE4.1/SSSE3 in an SSE2 object, no EVEX in AVX2
 *   control-flow     no calls, jumps or branches; the kernel ends in ret
 *   stack            no stack register, no push or pop
 *   memory           no memory operand but a rip-relative constant load
 *   relocation       only R_X86_64_PC32 into .rodata, at a load
 *   constant         each loaded constant has the selected bytes
 *   whole-register   rack work on whole XMM/YMM/ZMM registers
 *   scalar-transfer  no general register written but one terminal
 *                    transfer into eax right before returning
 *   cross-lane       permutes and shuffles only in selected reductions,
 *                    scans, extractions, insertions, shuffles and mask
 *                    reductions (and the uniform broadcasts of the entry)
 *   fma-count        exactly the selected fused multiply-adds
 *   abi              arguments where System V puts them
 *   selection        the instructions are the selection, one for one
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
#include "verify.h"

static const char *sse2_ok[] = {
    "movaps", "movd", "addps", "subps", "mulps", "divps", "sqrtps", "minps", "maxps",
    "andps", "andnps", "orps", "xorps", "cmpps", "paddd", "psubd", "pmuludq", "pshufd",
    "punpckldq", "pcmpeqd", "pcmpgtd", "pslld", "psrld", "psrad", "psllq", "psrlq",
    "cvtdq2ps", "cvtps2dq", "cvttps2dq", "shufps", "ret", NULL};

static const char *avx2_ok[] = {
    "vmovaps", "vmovups", "vmovd", "vbroadcastss", "vpbroadcastd", "vaddps", "vsubps",
    "vmulps", "vdivps", "vsqrtps", "vminps", "vmaxps", "vandps", "vandnps", "vorps", "vxorps",
    "vcmpps", "vpaddd", "vpsubd", "vpmulld", "vpminsd", "vpmaxsd", "vpminud", "vpmaxud",
    "vpabsd", "vpcmpeqd", "vpcmpgtd", "vpslld", "vpsrld", "vpsrad", "vpsllq", "vpsrlq",
    "vcvtdq2ps", "vcvtps2dq", "vroundps", "vblendvps", "vblendps", "vperm2f128", "vpermilps",
    "vpermps", "vpshufd", "vfmadd231ps", "vzeroupper", "ret", NULL};

static const char *avx512_ok[] = {
    "vmovaps", "vmovups", "vmovd", "vbroadcastss", "vpbroadcastd", "vaddps", "vsubps",
    "vmulps", "vdivps", "vsqrtps", "vminps", "vmaxps", "vpandd", "vpandnd", "vpord", "vpxord",
    "vcmpps", "vpcmpd", "vpcmpud", "vptestmd", "vpblendmd", "kmovw", "vpaddd", "vpsubd",
    "vpmulld", "vpminsd", "vpmaxsd", "vpminud", "vpmaxud", "vpabsd", "vpslld", "vpsrld",
    "vpsrad", "vpsllq", "vpsrlq", "vcvtdq2ps", "vcvtps2dq", "vcvttps2dq", "vcvtudq2ps",
    "vpermps", "vpermilps", "vpshufd", "vfmadd231ps", "vzeroupper", "ret", NULL};

/* Instructions newer than SSE2 that an SSE2 object must not contain. */
static const char *not_sse2[] = {"pminsd", "pmaxsd", "pminud", "pmaxud", "pabsd", "pmulld",
                                 "blendvps", "blendps", "roundps", "pshufb", "ptest",
                                 "pblendvb", "insertps", "extractps", "pextrd", "pinsrd",
                                 NULL};

static const char *cross_lane_ops[] = {"pshufd", "vpshufd", "shufps", "punpckldq",
                                       "vperm2f128", "vpermilps", "vpermps", "vbroadcastss",
                                       "vpbroadcastd", "vblendps", "kmovw", NULL};

static bool in_list(const char *const *l, const char *s)
{
    for (; *l; l++)
        if (!strcmp(*l, s))
            return true;
    return false;
}

/* --- normalising Capstone's view ---------------------------------------------- */

typedef struct Insn {
    uint64_t addr;
    int size;
    char mnem[32];
    char ops[8][48]; /* AT&T order: register names, $imm, rip */
    int nops;
    bool mem;        /* has a memory operand */
    bool mem_write;
    const char *text;
} Insn;

static const int sse_cc_imm[] = {-1, 0, 1, 2, 3, 4, 5, 6, 7};

static void normalise(csh h, cs_insn *ci, Insn *o)
{
    memset(o, 0, sizeof *o);
    o->addr = ci->address;
    o->size = ci->size;
    o->text = rk_arena_printf(&rk_heap, "%s %s", ci->mnemonic, ci->op_str);
    snprintf(o->mnem, sizeof o->mnem, "%s", ci->mnemonic);
    if (!strcmp(o->mnem, "retq"))
        strcpy(o->mnem, "ret");
    cs_x86 *x = &ci->detail->x86;
    long cc_imm = -1;
    size_t ml = strlen(o->mnem);
    if (!strncmp(o->mnem, "vcmp", 4) && ml > 6 && !strcmp(o->mnem + ml - 2, "ps") &&
        strcmp(o->mnem, "vcmpps")) {
        cc_imm = (long)x->avx_cc - 1;
        strcpy(o->mnem, "vcmpps");
    } else if (!strncmp(o->mnem, "cmp", 3) && ml > 5 && !strcmp(o->mnem + ml - 2, "ps") &&
               strcmp(o->mnem, "cmpps")) {
        cc_imm = x->sse_cc < (int)(sizeof sse_cc_imm / sizeof *sse_cc_imm) ? sse_cc_imm[x->sse_cc] : -1;
        strcpy(o->mnem, "cmpps");
    } else if ((!strcmp(o->mnem, "vpcmpeqd") || !strcmp(o->mnem, "vpcmpgtd")) &&
               strstr(ci->op_str, ", %k") != NULL) {
        /* Capstone prints vpcmpd $0 and $6 into a k register as the
         * aliases vpcmpeqd and vpcmpgtd; the selection writes vpcmpd */
        cc_imm = o->mnem[5] == 'e' ? 0 : 6;
        strcpy(o->mnem, "vpcmpd");
    } else if (!strncmp(o->mnem, "vpcmp", 5) && strcmp(o->mnem, "vpcmpeqd") &&
               strcmp(o->mnem, "vpcmpgtd") && strcmp(o->mnem, "vpcmpd") &&
               strcmp(o->mnem, "vpcmpud")) {
        static const char *pred[] = {"eq", "lt", "le", "false", "neq", "nlt", "nle", "true"};
        bool u = ml > 2 && !strcmp(o->mnem + ml - 2, "ud");
        size_t plen = ml - 5 - (u ? 2 : 1);
        for (int p = 0; p < 8; p++)
            if (strlen(pred[p]) == plen && !strncmp(o->mnem + 5, pred[p], plen))
                cc_imm = p;
        strcpy(o->mnem, u ? "vpcmpud" : "vpcmpd");
    }
    if (cc_imm >= 0)
        snprintf(o->ops[o->nops++], 48, "$%ld", cc_imm);
    bool writemask = strstr(ci->op_str, "{%k1}") != NULL;
    bool zero = strstr(ci->op_str, "{z}") != NULL;
    for (int k = 0; k < x->op_count && o->nops < 8; k++) {
        cs_x86_op *op = &x->operands[k];
        if (writemask && k == x->op_count - 1 && op->type == X86_OP_REG &&
            !strcmp(cs_reg_name(h, op->reg), "k1"))
            break;
        if (op->type == X86_OP_REG)
            snprintf(o->ops[o->nops++], 48, "%s", cs_reg_name(h, op->reg));
        else if (op->type == X86_OP_IMM)
            snprintf(o->ops[o->nops++], 48, "$%lld", (long long)op->imm);
        else {
            const char *base = op->mem.base ? cs_reg_name(h, op->mem.base) : "";
            bool rip = !strcmp(base, "rip") && !op->mem.index;
            bool stack = !strcmp(base, "rsp") || !strcmp(base, "rbp") || !strcmp(base, "esp") ||
                         !strcmp(base, "ebp");
            snprintf(o->ops[o->nops++], 48, "%s", rip ? "rip" : stack ? "%rsp" : "mem");
            o->mem = true;
            o->mem_write |= k == x->op_count - 1 && x->op_count > 1;
        }
    }
    if (writemask && o->nops) {
        char *last = o->ops[o->nops - 1];
        strncat(last, zero ? "{%k1}{z}" : "{%k1}", 47 - strlen(last));
    }
}

static void mir_ops(const RkMInstr *in, char ops[8][48], int *n)
{
    *n = 0;
    for (int k = in->nops - 1; k >= 0 && *n < 8; k--) {
        const RkMOp *o = &in->ops[k];
        if (o->kind == 'p')
            snprintf(ops[(*n)++], 48, "%s%s", o->phys, o->mask ? o->mask : "");
        else if (o->kind == 'i')
            snprintf(ops[(*n)++], 48, "$%lld", (long long)o->imm);
        else
            snprintf(ops[(*n)++], 48, "rip");
    }
}

/* --- checks ------------------------------------------------------------------------- */

typedef struct Ctx {
    const RkProfile *p;
    const RkMFunc *f;
    ElfObject *obj;
    ElfSymbol *sym;
    int level;
    bool failed;
} Ctx;

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

static bool is_gpr(const char *r)
{
    return r[0] == 'e' || r[0] == 'r' || (r[0] && r[1] == 'x' && strlen(r) == 2) ||
           !strcmp(r, "al") || !strcmp(r, "ah");
}

static void check_insn(Ctx *c, const Insn *in, bool last, int index)
{
    const char *m = in->mnem;
    const char *const *ok = c->level == 1 ? sse2_ok : c->level == 2 ? avx2_ok : avx512_ok;
    if (!strncmp(m, "call", 4) || m[0] == 'j' || !strncmp(m, "loop", 4) ||
        !strcmp(m, "syscall") || !strcmp(m, "int3") || !strncmp(m, "int", 3))
        return violation(c, in, "control-flow", "a register kernel makes no calls and no "
                                                "jumps");
    if (!strncmp(m, "push", 4) || !strncmp(m, "pop", 3) || !strcmp(m, "leave") ||
        !strcmp(m, "enter"))
        return violation(c, in, "stack", "a register kernel doesn't touch the stack");
    for (int k = 0; k < in->nops; k++)
        if (!strcmp(in->ops[k], "%rsp") || !strcmp(in->ops[k], "rsp") ||
            !strcmp(in->ops[k], "rbp") || !strcmp(in->ops[k], "esp") ||
            !strcmp(in->ops[k], "ebp"))
            return violation(c, in, "stack", "a register kernel doesn't use the stack or its "
                                             "registers (no spills)");
    if (c->level == 1 && in_list(not_sse2, m))
        return violation(c, in, "isa", "%s is not SSE2 (it needs SSE4.1 or SSSE3); x86-sse2 "
                                       "objects use SSE2 only",
                         m);
    if (c->level == 2)
        for (int k = 0; k < in->nops; k++)
            if (in->ops[k][0] == 'z' || !strncmp(in->ops[k], "k1", 2) || strchr(in->ops[k], '{'))
                return violation(c, in, "isa", "an x86-avx2 object has no EVEX (AVX-512) "
                                               "instructions");
    if (!in_list(ok, m)) {
        bool scalar = strlen(m) > 2 && !strcmp(m + strlen(m) - 2, "ss");
        return violation(c, in, scalar ? "whole-register" : "allowlist",
                         scalar ? "%s is scalar arithmetic on one lane; racks stay in whole "
                                  "registers"
                                : "%s is not in the %s instruction list",
                         m, c->p->name);
    }
    if (in->mem && (in->mem_write || strcmp(in->ops[0], "rip")))
        return violation(c, in, "memory", "the only memory operand a register kernel has is "
                                          "a rip-relative constant load");
    if (!strcmp(m, "ret") && !last)
        return violation(c, in, "control-flow", "ret before the end of the function");
    (void)index;
}

static void check_transfer(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    if (in->nops == 0)
        return;
    const char *dst = in->ops[in->nops - 1];
    if (!is_gpr(dst))
        return;
    if (strcmp(mi->origin, "result") || strcmp(dst, "eax") ||
        (strcmp(in->mnem, "movd") && strcmp(in->mnem, "vmovd")))
        violation(c, in, "scalar-transfer", "%s is written; a kernel's only general-register "
                                            "write is its terminal transfer into eax",
                  dst);
}

static void check_whole(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    if (c->level == 1 || !strcmp(mi->origin, "entry") || !strcmp(mi->origin, "result"))
        return;
    for (int k = 0; k < in->nops; k++) {
        if (strncmp(in->ops[k], "xmm", 3))
            continue;
        bool count = k == 0 && in->nops == 3 && (!strcmp(in->mnem, "vpslld") ||
                                                 !strcmp(in->mnem, "vpsrld") ||
                                                 !strcmp(in->mnem, "vpsrad"));
        if (!count)
            violation(c, in, "whole-register", "%s is a 128-bit part of a %s rack", in->ops[k],
                      c->p->vreg);
    }
}

static void check_cross(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    if (!in_list(cross_lane_ops, in->mnem))
        return;
    static const char *allowed[] = {"entry", "rack.extract", "rack.insert", "rack.shuffle",
                                    "rack.sum", "rack.product", "rack.minimum", "rack.maximum",
                                    "rack.scan_sum", "rack.scan_product", "rack.scan_minimum",
                                    "rack.scan_maximum", "mask.all", "mask.any",
                                    "mask.bitmask", "rack.splat", "const", "mask.const",
                                    "u.mul", NULL};
    if (in_list(allowed, mi->origin))
        return;
    /* SSE2's integer multiply interleaves even and odd lanes */
    if (c->level == 1 && !strcmp(mi->origin, "rack.mul") &&
        (!strcmp(in->mnem, "pshufd") || !strcmp(in->mnem, "punpckldq")))
        return;
    /* constants are broadcast from memory; the rest move lanes */
    if ((!strcmp(in->mnem, "vbroadcastss") || !strcmp(in->mnem, "kmovw")) && in->mem)
        return;
    violation(c, in, "cross-lane", "%s moves data across lanes, but it was selected for %s",
              in->mnem, mi->origin);
}

static const ElfReloc *reloc_at(Ctx *c, uint64_t off)
{
    for (int i = 0; i < c->obj->nrelocs; i++)
        if (c->obj->text_relocs[i].offset == off)
            return &c->obj->text_relocs[i];
    return NULL;
}

static void check_constant(Ctx *c, const Insn *in, const RkMInstr *mi)
{
    int cidx = -1;
    for (int k = 0; k < mi->nops; k++)
        if (mi->ops[k].kind == 'c')
            cidx = mi->ops[k].cidx;
    if (cidx < 0 || cidx >= c->f->nconsts)
        return;
    const ElfReloc *r = reloc_at(c, in->addr + (uint64_t)in->size - 4);
    if (!r || r->type != 2 /* R_X86_64_PC32 */ || r->sym->shndx != c->obj->rodata)
        return violation(c, in, "relocation", "a constant load needs an R_X86_64_PC32 "
                                              "relocation into .rodata");
    const RkMConst *k = &c->f->consts[cidx];
    int64_t at = (int64_t)r->sym->value + r->addend + 4;
    ElfSection *ro = &c->obj->sections[c->obj->rodata];
    if (at < 0 || (uint64_t)at + (uint64_t)k->size > ro->size)
        return violation(c, in, "constant", "the constant lies outside .rodata");
    uint8_t want[64];
    memcpy(want, k->words, (size_t)k->size);
    if (memcmp(ro->data + at, want, (size_t)k->size))
        violation(c, in, "constant", "the loaded constant's bytes differ from constant C%d of "
                                     "the selection",
                  cidx);
}

static void check_abi(Ctx *c)
{
    int nvec = 0, nint = 0;
    static const char *ints[] = {"edi", "esi", "edx", "ecx", "r8d", "r9d"};
    for (int i = 0; i < c->f->nargs; i++) {
        const RkMArg *a = &c->f->args[i];
        const char *want;
        bool intarg = !strcmp(a->type, "i32") || !strcmp(a->type, "u32") ||
                      !strcmp(a->type, "bool");
        if (intarg)
            want = nint < 6 ? ints[nint++] : "the stack";
        else if (nvec < 8)
            want = rk_arena_printf(&rk_heap, "%s%d", !strcmp(a->type, "f32") ? "xmm" : c->p->vreg,
                                   nvec++);
        else
            want = "the stack";
        if (strcmp(want, a->reg))
            violation(c, NULL, "abi", "argument %s (%s) is in %s, but System V passes it in %s",
                      a->name, a->type, a->reg, want);
    }
}

static void verify_function(Ctx *c, csh h)
{
    ElfSection *text = &c->obj->sections[c->obj->text];
    check_abi(c);
    if (c->sym->value + c->sym->size > text->size)
        return violation(c, NULL, "symbols", "the symbol lies outside .text");
    cs_insn *ci;
    size_t n = cs_disasm(h, text->data + c->sym->value, c->sym->size, c->sym->value, 0, &ci);
    size_t decoded = 0;
    for (size_t i = 0; i < n; i++)
        decoded += ci[i].size;
    if (decoded != c->sym->size) {
        cs_free(ci, n);
        return violation(c, NULL, "allowlist", "bytes at +0x%llx don't decode as an "
                                               "instruction Capstone knows",
                         (unsigned long long)decoded);
    }
    /* first the rules that need no selection, and the multiply-adds */
    int fmas = 0;
    for (size_t i = 0; i < n && !c->failed; i++) {
        Insn in;
        normalise(h, &ci[i], &in);
        check_insn(c, &in, i == n - 1, (int)i);
        if (!strncmp(in.mnem, "vfmadd", 6) || !strncmp(in.mnem, "vfmsub", 6) ||
            !strncmp(in.mnem, "vfnm", 4))
            fmas++;
    }
    if (!c->failed && fmas != c->f->fmas)
        violation(c, NULL, "fma-count", "%d fused multiply-adds, but %d were selected", fmas,
                  c->f->fmas);
    for (size_t i = 0; i < n && !c->failed; i++) {
        Insn in;
        normalise(h, &ci[i], &in);
        if ((int)i >= c->f->ninstrs) {
            violation(c, &in, "selection", "an instruction the selection doesn't have");
            break;
        }
        const RkMInstr *mi = &c->f->instrs[i];
        char want[8][48];
        int nw;
        mir_ops(mi, want, &nw);
        bool same = !strcmp(in.mnem, mi->op) && nw == in.nops;
        for (int k = 0; same && k < nw; k++)
            same = !strcmp(want[k], in.ops[k]);
        if (!same) {
            char buf[400] = "";
            for (int k = 0; k < nw; k++)
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", k ? ", " : " ",
                         want[k]);
            violation(c, &in, "selection", "the selection has %s%s here", mi->op, buf);
            break;
        }
        check_transfer(c, &in, mi);
        check_whole(c, &in, mi);
        check_cross(c, &in, mi);
        check_constant(c, &in, mi);
    }
    if (!c->failed && (int)n < c->f->ninstrs)
        violation(c, NULL, "selection", "the object ends before the selection's %s",
                  c->f->instrs[n].op);
    if (!c->failed && (n == 0 || (strcmp(ci[n - 1].mnemonic, "ret") &&
                                  strcmp(ci[n - 1].mnemonic, "retq"))))
        violation(c, NULL, "control-flow", "the kernel doesn't end in ret");
    cs_free(ci, n);
}

int verify_x86(ElfObject *obj, const RkMModule *m, const RkProfile *p)
{
    csh h;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
        rk_diag_internal("cannot open Capstone for x86-64");
    cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    int level = !strcmp(p->name, "x86-sse2") ? 1 : !strcmp(p->name, "x86-avx2") ? 2 : 3;
    int bad = 0;
    if (obj->machine != 62) {
        fprintf(stderr, "rake-verify: elf: not an x86-64 object\n");
        return 1;
    }
    if (obj->text < 0) {
        fprintf(stderr, "rake-verify: elf: the object has no .text section\n");
        return 1;
    }
    for (int i = 0; i < obj->nrelocs; i++) {
        const ElfReloc *r = &obj->text_relocs[i];
        if (r->type != 2 || r->sym->shndx != obj->rodata) {
            fprintf(stderr, "rake-verify: relocation: .text+0x%llx has relocation type %u "
                            "against %s; kernels only load constants from .rodata\n",
                    (unsigned long long)r->offset, r->type,
                    r->sym->name[0] ? r->sym->name : "a section");
            bad++;
        }
    }
    for (int i = 0; i < obj->nsymbols; i++) {
        const ElfSymbol *s = &obj->symbols[i];
        if (s->type != 2 /* FUNC */)
            continue;
        bool known = false;
        for (int k = 0; k < m->nfuncs; k++)
            known |= !strcmp(m->funcs[k]->name, s->name);
        if (!known) {
            fprintf(stderr, "rake-verify: symbols: function %s is not in the selection\n",
                    s->name);
            bad++;
        }
    }
    for (int k = 0; k < m->nfuncs; k++) {
        const RkMFunc *f = m->funcs[k];
        ElfSymbol *sym = NULL;
        for (int i = 0; i < obj->nsymbols; i++)
            if (obj->symbols[i].type == 2 && !strcmp(obj->symbols[i].name, f->name))
                sym = &obj->symbols[i];
        Ctx c = {p, f, obj, sym, level, false};
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

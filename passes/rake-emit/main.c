/* rake-emit: rake.mir (allocated) -> GNU assembly
 *
 * Input:  rake.mir version 2 after rake-ra.
 * Output: AT&T-syntax assembly for `as --64`: each kernel a hidden global
 *         function symbol with .type and .size, its blocks as local labels
 *         (.Lrk_FUNC_LABEL), its constants in .rodata aligned to their
 *         size, and a .note.GNU-stack section.  The instructions are
 *         rk_mir_flatten's list (lib/mir.c): the prologue saving the
 *         callee-saved registers rake-ra used, each block's code, its
 *         terminator in the target's instructions, and before each return
 *         the restores and the target's vzeroupper where AVX needs it.
 *         Register names come from the target table.  Operands are
 *         printed in reverse of the IR's Intel order.
 * With --header: a C header declaring every kernel with immintrin.h types.
 * Output is deterministic: the same document gives the same bytes. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "cnames.h"
#include "ir.h"
#include "mir.h"
#include "profile.h"

static const RkMModule *M;

static const char *reg_name(RkMReg r, int bits)
{
    const char *n = rk_target_reg_name(M->t, (RkRegClass)r.cls, r.num, bits);
    if (r.virt || !n)
        rk_diag_internal("virtual register v%d reached rake-emit (run rake-ra first)", r.num);
    return n;
}

static void label(const RkMFunc *f, int block)
{
    printf(".Lrk_%s_%s", f->name, f->blocks[block]->label);
}

static void operand(const RkMFunc *f, const RkMOp *o)
{
    switch (o->kind) {
    case RK_MO_REG:
        printf("%%%s", reg_name(o->reg, o->bits));
        if (o->mask.num >= 0)
            printf("{%%%s}%s", reg_name(o->mask, 0), o->zero ? "{z}" : "");
        break;
    case RK_MO_IMM:
        printf("$%" PRId64, o->imm);
        break;
    case RK_MO_CONST:
        printf(".Lrk_%s_c%" PRId64 "(%%rip)", f->name, o->imm);
        break;
    case RK_MO_LABEL:
        label(f, (int)o->imm);
        break;
    case RK_MO_MEM:
        if (o->disp)
            printf("%" PRId64, o->disp);
        putchar('(');
        if (o->reg.num >= 0)
            printf("%%%s", reg_name(o->reg, 64));
        if (o->index.num >= 0)
            printf(",%%%s,%d", reg_name(o->index, 64), o->scale);
        putchar(')');
        if (o->mask.num >= 0)
            printf("{%%%s}", reg_name(o->mask, 0));
        break;
    }
}

/* A table (64 bytes or more: a run's lane orders) another function of the
 * module already emitted with the same bytes: its label, which this one's
 * is set to, so the object holds each table once. */
static const char *shared_table(const RkMFunc *f, const RkMConst *c)
{
    if (c->size < 64)
        return NULL;
    for (int i = 0; i < M->nfuncs && M->funcs[i] != f; i++) {
        const RkMFunc *g = M->funcs[i];
        for (int k = 0; k < g->nconsts; k++)
            if (g->consts[k].size == c->size &&
                !memcmp(g->consts[k].words, c->words, (size_t)c->size) && !shared_table(g, &g->consts[k]))
                return rk_arena_printf(&rk_heap, ".Lrk_%s_c%d", g->name, k);
    }
    return NULL;
}

/* --- slow blocks' trampolines (target.h, RkSlowCall) -------------------------- */

/* The save area is addressed from the stack pointer. */
static const char *sp(void)
{
    return reg_name(rk_mreg(RK_RC_GPR, false, M->t->stack_pointer), 0);
}

/* The save area: each class's registers in turn, then the 8-byte slots
 * of the values the block reads (at least one, for its value). */
typedef struct Area {
    int at[RK_RC_COUNT];   /* each class's first byte */
    int size[RK_RC_COUNT]; /* each class's register bytes */
    int io, bytes;
} Area;

static Area area_of(const RkMInstr *in)
{
    Area a = {{0}, {0}, 0, 0};
    int off = 0;
    for (int c = 0; c < RK_RC_COUNT; c++) {
        const RkRegFile *rf = &M->t->regs[c];
        a.at[c] = off;
        a.size[c] = c == RK_RC_VEC ? rf->full_bits / 8 : 8;
        off += rf->count * a.size[c];
    }
    a.io = off;
    int slots = in->nops > 1 ? in->nops : 1;
    a.bytes = (off + 8 * slots + 63) / 64 * 64;
    return a;
}

static void save_all(const Area *a, bool restore)
{
    const RkSlowCall *sc = M->t->slow;
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (int r = 0; r < M->t->regs[c].count; r++) {
            if (!rk_target_slow_saved(M->t, (RkRegClass)c, r))
                continue;
            const char *reg = reg_name(rk_mreg((RkRegClass)c, false, r), 0);
            int off = a->at[c] + r * a->size[c];
            if (restore)
                printf("\t%s\t%d(%%%s), %%%s\n", sc->save[c], off, sp(), reg);
            else
                printf("\t%s\t%%%s, %d(%%%s)\n", sc->save[c], reg, off, sp());
        }
}

/* An 8-byte move between two places of the area, through the scratch
 * register (saved already, restored after). */
static void area_move(int from, int to)
{
    const RkSlowCall *sc = M->t->slow;
    const char *x = reg_name(rk_mreg(RK_RC_GPR, false, sc->scratch), 0);
    printf("\t%s\t%d(%%%s), %%%s\n\t%s\t%%%s, %d(%%%s)\n", sc->slot_move, from, sp(), x,
           sc->slot_move, x, to, sp());
}

static int slot_of(const Area *a, const RkMOp *o)
{
    return a->at[o->reg.cls] + o->reg.num * a->size[o->reg.cls];
}

static void trampoline(const RkMFunc *f, int k, const RkMInstr *in)
{
    const RkSlowCall *sc = M->t->slow;
    Area a = area_of(in);
    bool value = in->ops[0].kind == RK_MO_REG;
    int first = value ? 1 : 0; /* the block's line and column */
    printf("\t.p2align 4\n\t.type\trk_tramp_%s_%d, @function\nrk_tramp_%s_%d:\n", f->name, k,
           f->name, k);
    printf(sc->enter, a.bytes);
    save_all(&a, false);
    for (int i = first + 2; i < in->nops; i++)
        area_move(slot_of(&a, &in->ops[i]), a.io + 8 * (i - first - 2));
    const RkRegRef *arg = M->t->args[RK_RC_GPR];
    printf("\t%s\t%d(%%%s), %%%s\n", sc->arg, a.io, sp(),
           reg_name(rk_mreg(RK_RC_GPR, false, arg[0].num), 0));
    if (M->t->zeroupper)
        printf("\t%s\n", M->t->zeroupper);
    printf("\t%s\t%s\n", sc->call, rk_mir_slow_helper(in));
    if (value && in->ops[0].reg.cls == RK_RC_VEC) {
        const char *x = reg_name(rk_mreg(RK_RC_GPR, false, sc->scratch), 32);
        printf("\t%s\t%d(%%%s), %%%s\n", sc->lane_move, a.io, sp(), x);
        for (int l = 0; l < a.size[RK_RC_VEC] / 4; l++)
            printf("\t%s\t%%%s, %d(%%%s)\n", sc->lane_move, x, slot_of(&a, &in->ops[0]) + 4 * l,
                   sp());
    } else if (value) {
        area_move(a.io, slot_of(&a, &in->ops[0]));
    }
    save_all(&a, true);
    fputs(sc->leave, stdout);
    printf("\t.size\trk_tramp_%s_%d, .-rk_tramp_%s_%d\n", f->name, k, f->name, k);
}

static bool slow_call(const RkMInstr *in)
{
    const RkInsnDesc *d = rk_target_insn(M->t, in->op);
    return d && (d->flags & RK_I_SLOW);
}

static void function(const RkMFunc *f)
{
    printf("\t.text\n\t.p2align 4\n\t.globl\t%s\n\t.hidden\t%s\n\t.type\t%s, @function\n%s:\n",
           f->name, f->name, f->name, f->name);
    RkMFlat fl = rk_mir_flatten(f, M->t);
    int calls = 0;
    for (int i = 0; i < fl.n; i++) {
        if (fl.loop_head[i])
            printf("\t.p2align %d\n", M->t->loop_align);
        for (int b = 1; b < f->nblocks; b++)
            if (fl.block_at[b] == i) {
                label(f, b);
                printf(":\n");
            }
        const RkMInstr *in = &fl.ins[i];
        if (slow_call(in)) {
            if (!M->t->slow)
                rk_diag_internal("%s has no way to call a slow block", M->t->profile);
            printf("\t%s\trk_tramp_%s_%d\n", M->t->slow->call, f->name, calls++);
            continue;
        }
        printf("\t%s", in->op);
        for (int k = in->nops - 1; k >= 0; k--) {
            fputs(k == in->nops - 1 ? "\t" : ", ", stdout);
            operand(f, &in->ops[k]);
        }
        putchar('\n');
    }
    printf("\t.size\t%s, .-%s\n", f->name, f->name);
    for (int i = 0, k = 0; i < fl.n; i++)
        if (slow_call(&fl.ins[i]))
            trampoline(f, k++, &fl.ins[i]);
    if (!f->nconsts)
        return;
    printf("\t.section\t.rodata\n");
    for (int k = 0; k < f->nconsts; k++) {
        const RkMConst *c = &f->consts[k];
        const char *same = shared_table(f, c);
        if (same) {
            printf("\t.set\t.Lrk_%s_c%d, %s\n", f->name, k, same);
            continue;
        }
        int align = c->size >= 64 ? 6 : c->size == 32 ? 5 : c->size == 16 ? 4 : c->size == 4 ? 2 : 1;
        printf("\t.p2align %d\n.Lrk_%s_c%d:\n", align, f->name, k);
        if (c->size == 2) {
            printf("\t.short\t0x%04x\n", c->words[0] & 0xffff);
            continue;
        }
        for (int w = 0; w < c->size / 4; w++)
            printf("%s0x%08x%s", w % 8 ? ", " : "\t.long\t", c->words[w],
                   w % 8 == 7 || w == c->size / 4 - 1 ? "\n" : "");
    }
}

/* The body of an assembler string: quotes, backslashes and anything
 * unprintable as octal escapes, so a path can't end the string. */
static void asm_string(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\' || *p < 0x20 || *p >= 0x7f)
            printf("\\%03o", *p);
        else
            putchar(*p);
    }
}

/* --- the C header ------------------------------------------------------------ */

/* RAKE_<STEM>_H from the source's file name, in C identifier characters. */
static void print_guard(const char *source)
{
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".rk"))
        n -= 3;
    printf("RAKE_");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)base[i];
        putchar(c >= 'a' && c <= 'z' ? c - 'a' + 'A'
                : (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
    }
    printf("_H");
}

/* A C comment can't hold the source path verbatim if it contains the end
 * of a comment. */
static void comment_text(const char *s)
{
    for (; *s; s++) {
        putchar(*s == '\n' ? ' ' : *s);
        if (*s == '*' && s[1] == '/')
            putchar(' ');
    }
}

static const char *c_type(const char *nir, int bits)
{
    const char *v = bits == 128 ? "__m128" : bits == 256 ? "__m256" : "__m512";
    if (!strcmp(nir, "rack<f32>"))
        return v;
    if (!strncmp(nir, "rack<", 5) || !strncmp(nir, "mask<", 5)) {
        static char buf[16];
        snprintf(buf, sizeof buf, "%si", v);
        return buf;
    }
    if (!strcmp(nir, "f32"))
        return "float";
    if (!strcmp(nir, "i32"))
        return "int32_t";
    if (!strcmp(nir, "u32"))
        return "uint32_t";
    if (!strcmp(nir, "bool"))
        return "bool";
    rk_diag_internal("no C type for %s", nir);
}

/* The header: every scratch and rake; the stack runs' C boundary (their
 * descriptors and prototypes, from rake-cgen --header-runs) is the text of
 * `runs`, put in as it is. */
static void header(const RkMModule *m, const char *runs)
{
    const RkProfile *p = rk_profile_find(m->target);
    const char *flags = !strcmp(p->name, "x86-sse2") ? "-msse2"
                        : !strcmp(p->name, "x86-avx2") ? "-mavx2 -mfma" : "-mavx512f";
    for (int i = 0; i < m->nfuncs; i++)
        if (rk_cnames_reserved(m->funcs[i]->name))
            rk_diag_fatal(m->funcs[i]->loc, "%s %s can't be declared in C: '%s' is a C "
                                            "keyword or a reserved name; rename it to call "
                                            "it from C",
                          m->funcs[i]->kind, m->funcs[i]->name, m->funcs[i]->name);
    printf("/* Generated by rake-emit from ");
    comment_text(m->source);
    printf(" for %s: a C caller needs only this\n"
           " * header and the object.  Compile callers with %s.  Kernels inherit the\n"
           " * caller's floating-point environment: round to nearest even, FTZ and\n"
           " * DAZ clear. */\n",
           p->name, flags);
    printf("#ifndef ");
    print_guard(m->source);
    printf("\n#define ");
    print_guard(m->source);
    printf("\n\n#include <immintrin.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n");
    for (int i = 0; i < m->nfuncs; i++) {
        const RkMFunc *f = m->funcs[i];
        if (!strcmp(f->kind, "stack_run") || !strcmp(f->kind, "general_run"))
            continue; /* runs: rake-cgen's text below */
        printf("%s %s(", c_type(f->result_type, p->vector_bits), f->name);
        for (int k = 0; k < f->nargs; k++) {
            /* a parameter named like a C keyword is declared without its name */
            const char *name = f->args[k].name;
            printf("%s%s%s%s", k ? ", " : "", c_type(f->args[k].type, p->vector_bits),
                   rk_cnames_reserved(name) ? "" : " ", rk_cnames_reserved(name) ? "" : name);
        }
        printf("%s);\n", f->nargs ? "" : "void");
    }
    if (runs) {
        FILE *r = fopen(runs, "r");
        if (!r)
            rk_diag_input("cannot read %s", runs);
        int ch;
        printf("\n/* stack runs: the C boundary of spec page 03 */\n");
        while ((ch = fgetc(r)) != EOF)
            putchar(ch);
        fclose(r);
    }
    printf("\n#endif\n");
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-emit");
    bool want_header = argc >= 2 && !strcmp(argv[1], "--header");
    bool c_unit = argc == 2 && !strcmp(argv[1], "--c-unit");
    const char *with = NULL;
    if (want_header && argc == 4 && !strcmp(argv[2], "--with"))
        with = argv[3];
    if ((argc > 2 && !with) || (argc > 1 && !want_header && !c_unit))
        rk_diag_input("unknown argument '%s' (usage: rake-emit [--header [--with RUNS.h] | "
                      "--c-unit] < rake.mir)",
                      argv[1]);
    RkIrDoc doc = rk_ir_read(stdin, "rake.mir", 2);
    RkMModule *m = rk_mir_decode(doc.root);
    M = m;
    if (m->t->arch != RK_ARCH_X86)
        rk_ir_fail_at("/target", "rake-emit writes x86 assembly; %s's emitter arrives with its "
                                 "backend",
                      m->target);
    if (want_header) {
        header(m, with);
        return 0;
    }
    if (!m->allocated)
        rk_ir_fail_at("/allocated", "the rake.mir document has virtual registers: run rake-ra "
                                    "first");
    if (c_unit) {
        /* for a top-level asm statement of a C unit (rake-cgen --asm): the
         * C compiler's own section stays current around it */
        printf("\t.pushsection\t.text\n");
    } else {
        printf("\t.file\t\"");
        asm_string(m->source);
        printf("\"\n");
    }
    for (int i = 0; i < m->nfuncs; i++)
        function(m->funcs[i]);
    if (c_unit)
        printf("\t.popsection\n");
    else
        printf("\t.section\t.note.GNU-stack,\"\",@progbits\n");
    return 0;
}

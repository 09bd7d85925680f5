/* rake-ra: rake.mir (virtual registers) -> rake.mir (physical registers)
 *
 * Input:  rake.mir from an instruction selector.
 * Output: the same functions with every virtual register replaced by a
 *         physical one ("allocated": true), self-moves removed; with
 *         --text, a readable listing instead.
 * The allocator never spills: every live rack and every temporary of a
 * sequence gets its own register.  Arguments stay in the registers the
 * calling convention gives them until their last use.  A function that
 * needs more registers at once than the profile has is rejected, as the
 * spec requires: it would otherwise need the stack.
 *
 * Register facts come from the profile table (lib/profile.c): the name
 * prefix (xmm, ymm, zmm; v on AArch64), how many there are, and the one
 * SSE2 reserves (xmm15), so the same pass can serve other targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "mir.h"
#include "profile.h"

typedef struct Range {
    int def, last; /* instruction indices; -1 = at entry */
    int reg;       /* assigned register number, -1 = none */
    bool pinned;
} Range;

static int reg_number(const char *name)
{
    const char *p = name;
    while (*p && (*p < '0' || *p > '9'))
        p++;
    return atoi(p);
}

static void ranges(RkMFunc *f, Range *r)
{
    for (int v = 0; v < f->nvregs; v++)
        r[v] = (Range){-2, -2, -1, false};
    for (int a = 0; a < f->nargs; a++) {
        Range *x = &r[f->args[a].vreg];
        bool vec = f->args[a].reg[0] == 'x' || f->args[a].reg[0] == 'y' ||
                   f->args[a].reg[0] == 'z';
        if (!vec)
            continue; /* integer arguments reach a vector register by movd */
        x->def = x->last = -1;
        x->reg = reg_number(f->args[a].reg);
        x->pinned = true;
    }
    for (int i = 0; i < f->ninstrs; i++) {
        RkMInstr *in = &f->instrs[i];
        for (int k = 0; k < in->nops; k++) {
            RkMOp *o = &in->ops[k];
            if (o->kind != 'v' || o->vreg < 0 || o->vreg >= f->nvregs)
                continue;
            Range *x = &r[o->vreg];
            if (x->def == -2)
                x->def = i;
            if (o->use || o->def)
                x->last = i > x->last ? i : x->last;
        }
    }
}

static void allocate(RkMFunc *f, const RkProfile *p, const char *source)
{
    Range *r = calloc((size_t)f->nvregs + 1, sizeof *r);
    ranges(f, r);
    int nregs = p->vregs;
    int *owner = calloc((size_t)nregs + 1, sizeof *owner); /* vreg + 1, 0 = free */
    for (int v = 0; v < f->nvregs; v++)
        if (r[v].pinned)
            owner[r[v].reg] = v + 1;
    for (int i = 0; i < f->ninstrs; i++) {
        /* registers of values dying here may be reused by this instruction's
         * results: operands are read before results are written */
        for (int g = 0; g < nregs; g++)
            if (owner[g] && r[owner[g] - 1].last < i)
                owner[g] = 0;
        RkMInstr *in = &f->instrs[i];
        for (int k = 0; k < in->nops; k++) {
            RkMOp *o = &in->ops[k];
            if (o->kind != 'v' || r[o->vreg].reg >= 0)
                continue;
            for (int g = 0; g < nregs; g++)
                if (owner[g] && r[owner[g] - 1].last == i && !r[owner[g] - 1].pinned &&
                    r[owner[g] - 1].def != i)
                    owner[g] = 0;
            int free_reg = -1;
            for (int g = 0; g < nregs && free_reg < 0; g++)
                if (!owner[g])
                    free_reg = g;
            if (free_reg < 0) {
                int live = 0;
                for (int g = 0; g < nregs; g++)
                    live += owner[g] != 0;
                rk_diag_source(source, NULL);
                RkLoc at = in->loc.line > 0 ? in->loc : f->loc;
                rk_diag_fatal(at, "%s %s needs more than the %d vector registers of %s%s at "
                                  "once: %d values are live here; Rake never spills to the stack",
                              f->kind, f->name, nregs, p->name,
                              p->reserved ? rk_arena_printf(&rk_heap, " (%s is reserved)",
                                                            p->reserved)
                                          : "",
                              live);
            }
            r[o->vreg].reg = free_reg;
            owner[free_reg] = o->vreg + 1;
        }
    }
    for (int i = 0; i < f->ninstrs; i++) {
        RkMInstr *in = &f->instrs[i];
        for (int k = 0; k < in->nops; k++) {
            RkMOp *o = &in->ops[k];
            if (o->kind != 'v')
                continue;
            const char *prefix = o->width == 'x' ? "xmm" : p->vreg;
            o->kind = 'p';
            o->phys = rk_arena_printf(&rk_heap, "%s%d", prefix, r[o->vreg].reg);
            o->width = 0;
        }
    }
    /* drop moves of a register onto itself */
    int n = 0;
    for (int i = 0; i < f->ninstrs; i++) {
        RkMInstr *in = &f->instrs[i];
        bool self = (!strcmp(in->op, "movaps") || !strcmp(in->op, "vmovaps")) && in->nops == 2 &&
                    !in->ops[0].mask && in->ops[0].kind == 'p' && in->ops[1].kind == 'p' &&
                    !strcmp(in->ops[0].phys, in->ops[1].phys);
        if (!self)
            f->instrs[n++] = *in;
    }
    f->ninstrs = n;
    free(r);
    free(owner);
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-ra");
    bool text = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--text"))
            text = true;
        else
            rk_diag_input("usage: rake-ra [--text] < rake.mir");
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.mir", 1);
    RkMModule *m = rk_mir_decode(doc.root);
    const RkProfile *p = rk_profile_find(m->target);
    if (!p || !p->vreg)
        rk_ir_fail_at("/target", "rake-ra allocates for profiles with vector registers, not "
                                 "'%s'",
                      m->target);
    if (!m->allocated)
        for (int i = 0; i < m->nfuncs; i++)
            allocate(m->funcs[i], p, m->source);
    m->allocated = true;
    if (text)
        rk_mir_print(m, stdout);
    else
        rk_ir_write(rk_mir_encode(m), stdout);
    return 0;
}

/* rake-ra: rake.mir (virtual registers) -> rake.mir (physical registers)
 *
 * Input:  rake.mir from an instruction selector.
 * Output: the same functions with every virtual register replaced by a
 *         physical one ("allocated": true), self-moves removed; with
 *         --text, a readable listing instead.
 *
 * The allocator never spills: every live rack and every temporary of a
 * sequence gets its own register.  A kernel is one block, so allocation
 * is one linear scan in instruction order:
 *   - arguments stay in the registers the calling convention gives them
 *     until their last use;
 *   - a value dying at an instruction hands its register to that
 *     instruction's result (operands are read before results are
 *     written), so `movaps` copies of dying values become self-moves and
 *     disappear;
 *   - a value whose last use is the result move prefers register zero, so
 *     the move disappears too;
 *   - when every register is taken, a constant loaded from .rodata that is
 *     live but not used here is rematerialised: its register is freed and
 *     the same load is repeated right before its next use.  A reload from
 *     read-only data is not a spill (nothing is stored) and the verifier
 *     accepts it like any constant load.
 * A function that still needs more registers at once than the profile has
 * is rejected, as the spec requires: it would otherwise need the stack.
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
    int hint;      /* preferred register, -1 = none */
    bool pinned;
} Range;

static int reg_number(const char *name)
{
    const char *p = name;
    while (*p && (*p < '0' || *p > '9'))
        p++;
    return atoi(p);
}

static bool is_vector_reg(const char *name)
{
    return name[0] == 'x' || name[0] == 'y' || name[0] == 'z';
}

/* A move into the physical result register: `movaps =%ymm0, vN`. */
static bool result_move(const RkMInstr *in)
{
    return in->nops == 2 && strstr(in->op, "mov") && in->ops[0].kind == 'p' && in->ops[0].def &&
           !in->ops[0].mask && is_vector_reg(in->ops[0].phys) && in->ops[1].kind == 'v' &&
           !strcmp(in->origin, "result");
}

static void ranges(RkMFunc *f, Range *r)
{
    for (int v = 0; v < f->nvregs; v++)
        r[v] = (Range){-2, -2, -1, -1, false};
    for (int a = 0; a < f->nargs; a++) {
        Range *x = &r[f->args[a].vreg];
        if (!is_vector_reg(f->args[a].reg))
            continue; /* integer arguments reach a vector register by movd */
        x->def = x->last = -1;
        x->reg = reg_number(f->args[a].reg);
        x->pinned = true;
    }
    for (int i = 0; i < f->ninstrs; i++) {
        RkMInstr *in = &f->instrs[i];
        for (int k = 0; k < in->nops; k++) {
            RkMOp *o = &in->ops[k];
            if (o->kind != 'v')
                continue;
            Range *x = &r[o->vreg];
            if (x->def == -2)
                x->def = i;
            x->last = i > x->last ? i : x->last;
        }
        if (result_move(in))
            r[in->ops[1].vreg].hint = reg_number(in->ops[0].phys);
    }
}

static bool const_load(const RkMInstr *in) { return in->nops == 2 && in->ops[1].kind == 'c'; }

/* A value defined by a constant load and nothing else: `vmovups =vN, C2`. */
static bool remat_def(const RkMFunc *f, int v, int def)
{
    if (def < 0)
        return false;
    const RkMInstr *in = &f->instrs[def];
    return const_load(in) && in->ops[0].kind == 'v' && in->ops[0].vreg == v && in->ops[0].def &&
           !in->ops[0].use && !in->ops[0].mask && !in->ops[0].width;
}

static bool uses_at(const RkMInstr *in, int v)
{
    for (int k = 0; k < in->nops; k++)
        if (in->ops[k].kind == 'v' && in->ops[k].vreg == v)
            return true;
    return false;
}

/* Insert a copy of instruction `from` at index `at`, shifting the rest. */
static void insert_copy(RkMFunc *f, int at, int from)
{
    RkMInstr copy = f->instrs[from];
    rk_mir_add(f, copy.op, copy.origin, copy.nir); /* grows the array */
    memmove(&f->instrs[at + 1], &f->instrs[at], sizeof *f->instrs * (size_t)(f->ninstrs - 1 - at));
    RkMOp *ops = rk_arena_alloc(&rk_heap, sizeof *ops * (size_t)copy.nops);
    memcpy(ops, copy.ops, sizeof *ops * (size_t)copy.nops);
    copy.ops = ops;
    copy.loc = f->instrs[at + 1].loc;
    f->instrs[at] = copy;
}

/* Free a register at instruction i by reloading a live constant before its
 * next use; false when no live value can be rematerialised. */
static bool rematerialise(RkMFunc *f, const Range *r, const int *owner, int nregs, int i)
{
    int victim = -1, victim_next = -1;
    for (int g = 0; g < nregs; g++) {
        int v = owner[g] - 1;
        if (v < 0 || r[v].pinned || !remat_def(f, v, r[v].def) || uses_at(&f->instrs[i], v))
            continue;
        int next = i + 1;
        while (next <= r[v].last && !uses_at(&f->instrs[next], v))
            next++;
        /* a reload right after i would need a register where i did */
        if (next > r[v].last || next == i + 1)
            continue;
        if (next > victim_next) {
            victim = v;
            victim_next = next;
        }
    }
    if (victim < 0)
        return false;
    int fresh = rk_mir_vreg(f);
    int def = r[victim].def;
    insert_copy(f, victim_next, def);
    f->instrs[victim_next].ops[0].vreg = fresh;
    f->instrs[victim_next].origin = "remat";
    for (int j = victim_next + 1; j < f->ninstrs; j++)
        for (int k = 0; k < f->instrs[j].nops; k++)
            if (f->instrs[j].ops[k].kind == 'v' && f->instrs[j].ops[k].vreg == victim)
                f->instrs[j].ops[k].vreg = fresh;
    return true;
}

/* Pick a register for a value defined at i, or -1. */
static int pick_reg(const Range *x, const int *owner, int nregs)
{
    if (x->hint >= 0 && x->hint < nregs && !owner[x->hint])
        return x->hint;
    for (int g = 0; g < nregs; g++)
        if (!owner[g])
            return g;
    return -1;
}

/* One linear scan.  Returns -1 when every value has a register, or the
 * index of the instruction where registers ran out (r and owner then
 * describe that point). */
static int scan(RkMFunc *f, Range *r, int *owner, int nregs)
{
    ranges(f, r);
    memset(owner, 0, sizeof *owner * (size_t)(nregs + 1));
    for (int v = 0; v < f->nvregs; v++)
        if (r[v].pinned)
            owner[r[v].reg] = v + 1;
    for (int i = 0; i < f->ninstrs; i++) {
        for (int g = 0; g < nregs; g++)
            if (owner[g] && r[owner[g] - 1].last < i)
                owner[g] = 0;
        RkMInstr *in = &f->instrs[i];
        for (int k = 0; k < in->nops; k++) {
            RkMOp *o = &in->ops[k];
            if (o->kind != 'v' || r[o->vreg].reg >= 0)
                continue;
            /* values dying here hand over their registers */
            for (int g = 0; g < nregs; g++)
                if (owner[g] && r[owner[g] - 1].last == i && r[owner[g] - 1].def != i)
                    owner[g] = 0;
            int g = pick_reg(&r[o->vreg], owner, nregs);
            if (g < 0)
                return i;
            r[o->vreg].reg = g;
            owner[g] = o->vreg + 1;
        }
    }
    return -1;
}

static void assign(RkMFunc *f, const Range *r, const RkProfile *p)
{
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
}

/* drop moves of a register onto itself */
static void drop_self_moves(RkMFunc *f)
{
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
}

static _Noreturn void out_of_registers(const RkMFunc *f, const RkProfile *p, const char *source,
                                       const int *owner, int i)
{
    int nregs = p->vregs, live = 0;
    for (int g = 0; g < nregs; g++)
        live += owner[g] != 0;
    rk_diag_source(source, NULL);
    RkLoc at = f->instrs[i].loc.line > 0 ? f->instrs[i].loc : f->loc;
    rk_diag_fatal(at, "%s %s needs more than the %d vector registers of %s%s at once: %d values "
                      "are live here; Rake never spills to the stack",
                  f->kind, f->name, nregs, p->name,
                  p->reserved ? rk_arena_printf(&rk_heap, " (%s is reserved)", p->reserved) : "",
                  live);
}

static void allocate(RkMFunc *f, const RkProfile *p, const char *source)
{
    int nregs = p->vregs;
    int *owner = calloc((size_t)nregs + 1, sizeof *owner); /* vreg + 1, 0 = free */
    /* a bound on reloads, so allocation always ends: a few per constant */
    int budget = 16;
    for (int i = 0; i < f->ninstrs; i++)
        budget += 4 * const_load(&f->instrs[i]);
    for (;;) {
        Range *r = calloc((size_t)f->nvregs + 1, sizeof *r);
        int stuck = scan(f, r, owner, nregs);
        if (stuck < 0) {
            assign(f, r, p);
            free(r);
            break;
        }
        /* each reload frees a register over part of the function */
        if (budget-- == 0 || !rematerialise(f, r, owner, nregs, stuck))
            out_of_registers(f, p, source, owner, stuck);
        free(r);
    }
    drop_self_moves(f);
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

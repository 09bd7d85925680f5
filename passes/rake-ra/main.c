/* rake-ra: rake.mir (virtual registers) -> rake.mir (physical registers)
 *
 *   rake-ra [--text] [--refused FILE] [--no-recompute] < rake.mir
 *
 * Input:  rake.mir version 2 from an instruction selector.
 * Output: the same functions with every virtual register replaced by a
 *         physical one of its class ("allocated": true), block parameters
 *         replaced by copies on the jumps that reach them, copies of a
 *         register onto itself removed, and the callee-saved registers
 *         used listed in "saved" (rake-emit saves and restores exactly
 *         those); with --text, a readable listing instead.
 *
 * The allocator never spills.  It computes liveness over the control-flow
 * graph (live.c), gives each virtual register one interval of positions,
 * and runs one linear scan over them (scan.c): arguments stay in their
 * calling-convention registers until their last use, dying values hand
 * their registers to results, hints avoid moves into the result register
 * and across loop edges, and a constant load may be repeated when a class
 * runs out (as may a column pointer, a loaded rack, or a run's stack
 * argument or its sign extension, from the argument's slot: stackarg.c,
 * origin "stack.arg"); as a last resort, a value computed from others still live is
 * computed again where it is next read (recompute.c; --no-recompute
 * turns that off, to see what it saves).  A function that still needs
 * more registers of a class at once than the target has is rejected with
 * a located error (exit 1);
 * with --refused FILE its name is also appended to FILE and the other
 * functions are allocated (each refused one reported), for rakec, which
 * then lowers those again for fewer live values (rake-lower
 * --low-pressure) before it gives up.
 * Vector, general and mask registers are allocated alike; only the target
 * table (lib/target_x86.c, lib/target_arm64.c) knows their names.  The
 * output is a function of the input alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "ra.h"

/* Each vreg's allowed registers (rematerialised copies, numbered after
 * the selector's, are unlimited), and per class the registers some
 * limited vreg may need. */
static void limits(Ra *ra)
{
    RkMFunc *f = ra->f;
    ra->allowed = calloc((size_t)f->nvregs + 1, sizeof *ra->allowed);
    memset(ra->limited, 0, sizeof ra->limited);
    memset(ra->nlimited, 0, sizeof ra->nlimited);
    for (int v = 0; v < f->nvregs; v++) {
        ra->allowed[v] = rk_mir_vreg_allowed(f, v);
        if (ra->allowed[v] != ~0ull) {
            ra->limited[f->vclass[v]] |= ra->allowed[v];
            ra->nlimited[f->vclass[v]]++;
        }
    }
}

/* Frees a register of class cls at `stuck` by reloading a value or, as
 * a last resort, computing one again, each within its budget; false when
 * neither can. */
static bool free_register(Ra *ra, int stuck, int cls, int *reloads, int *recomputes)
{
    if (*reloads > 0) {
        --*reloads;
        if (ra_rematerialise(ra, stuck, cls))
            return true;
    }
    if (*recomputes > 0 && !ra_no_recompute) {
        --*recomputes;
        return ra_recompute(ra, stuck, cls);
    }
    return false;
}

static void allocate(const RkMModule *m, RkMFunc *f)
{
    Ra ra;
    memset(&ra, 0, sizeof ra);
    ra.t = m->t;
    ra.m = m;
    ra.f = f;
    for (int c = 0; c < RK_RC_COUNT; c++) {
        size_t n = (size_t)m->t->regs[c].count + 1;
        ra.owner[c] = calloc(n, sizeof(int));
        ra.given[c] = calloc(n, sizeof(int *));
        ra.ngiven[c] = calloc(n, sizeof(int));
        ra.capgiven[c] = calloc(n, sizeof(int));
        if (!ra.owner[c] || !ra.given[c] || !ra.ngiven[c] || !ra.capgiven[c])
            rk_diag_internal("out of memory for the register file");
    }

    /* a bound on reloads, so allocation always ends: a few per constant,
     * and a computation again per instruction */
    int budget = 16, recomputes = 0;
    for (int b = 0; b < f->nblocks; b++) {
        recomputes += f->blocks[b]->ninstrs;
        for (int i = 0; i < f->blocks[b]->ninstrs; i++) {
            const RkMInstr *in = &f->blocks[b]->instrs[i];
            budget += 4 * (rk_mir_const_load(in) || ra_column_load(in));
        }
    }
    for (bool first = true;; first = false) {
        ra_positions(&ra);
        ra.r = calloc((size_t)f->nvregs + 1, sizeof *ra.r);
        limits(&ra);
        ra_intervals(&ra);
        ra.writes = rk_mir_write_counts(f);
        if (first && ra_commute(&ra)) {
            free(ra.r);
            free(ra.allowed);
            continue;
        }
        int cls = 0, stuck = ra_scan(&ra, &cls);
        if (stuck < 0)
            break;
        /* each reload frees a register over part of the function */
        if (!free_register(&ra, stuck, cls, &budget, &recomputes))
            ra_out_of_registers(&ra, stuck, cls);
        free(ra.r);
        free(ra.allowed);
    }
    ra_resolve(&ra);
    rk_mir_compact_pool(f); /* a constant given back may now be read in place */
    free(ra.r);
    free(ra.allowed);
    f->nallow = 0; /* met: the output names physical registers only */
    for (int c = 0; c < RK_RC_COUNT; c++) {
        free(ra.owner[c]);
        free(ra.given[c]);
        free(ra.ngiven[c]);
        free(ra.capgiven[c]);
    }
}

const char *ra_refused_file;
bool ra_no_recompute;
jmp_buf ra_next_function;

/* allocate, or false when f was refused (reported, and named in the
 * --refused file) */
static bool try_allocate(const RkMModule *m, RkMFunc *f)
{
    if (setjmp(ra_next_function))
        return false;
    allocate(m, f);
    return true;
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-ra");
    bool text = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--text"))
            text = true;
        else if (!strcmp(argv[i], "--refused") && i + 1 < argc)
            ra_refused_file = argv[++i];
        else if (!strcmp(argv[i], "--no-recompute"))
            ra_no_recompute = true;
        else
            rk_diag_input("usage: rake-ra [--text] [--refused FILE] [--no-recompute] < rake.mir");
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.mir", 2);
    RkMModule *m = rk_mir_decode(doc.root);
    int refused = 0;
    if (!m->allocated)
        for (int i = 0; i < m->nfuncs; i++)
            refused += !try_allocate(m, m->funcs[i]);
    if (refused)
        return RK_EXIT_USER;
    m->allocated = true;
    if (text)
        rk_mir_print(m, stdout);
    else
        rk_ir_write(rk_mir_encode(m), stdout);
    return 0;
}

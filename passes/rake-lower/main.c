/* rake-lower: rake.checked -> rake.nir
 *
 * Input:  a rake.checked document on stdin.
 * Output: a rake.nir document: every scratch and rake as a register-kernel
 *         function (calls to other scratches and rakes inlined), every run
 *         as a function of explicit loops, memory accesses and bounds
 *         checks.  Global tines are inlined where applied; slow functions
 *         stay in rake.checked (the slow tier) and a run's slow blocks
 *         become `slow.call` instructions naming the block.
 * Adds:   SSA values with native types, fused-region and participation-mask
 *         annotations, sanitisation of exception-capable operations under
 *         masks (on profiles with floating-point exceptions).
 * Removes: names, scopes, the tree.
 * Options: --low-pressure NAME (repeatable): lower the scratch, rake or
 *         run NAME for fewer live values at once, at some cost in
 *         instructions (a sweep joins each arm as it is made, on the
 *         lanes it takes; kernel.c).  rakec asks for it when rake-ra
 *         finds NAME needs more registers than the target has.
 * The IR verifier checks the output; a violation is an internal error. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "lower.h"

/* Whether `--low-pressure fn` is among the arguments. */
static bool low_pressure(int argc, char **argv, const char *fn)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--low-pressure") && !strcmp(argv[++i], fn))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-lower");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--low-pressure") && i + 1 < argc)
            i++;
        else
            rk_diag_input("unknown argument '%s' (usage: rake-lower [--low-pressure NAME]... "
                          "< rake.checked > rake.nir)",
                          argv[i]);
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.checked", 1);
    RkModule *m = rk_ast_decode(doc.root);
    const RkProfile *p = doc.target ? rk_profile_find(doc.target) : NULL;
    if (!p)
        rk_ir_fail_at("/target", "the document's target is not a profile");
    Lower lower = {0};
    L = &lower;
    L->profile = p;
    L->module = m;
    L->out = RK_NEW(RkNirModule);
    L->out->source = m->source;
    L->out->target = p->name;
    for (int i = 0; i < m->decls.len; i++) {
        RkNode *d = m->decls.items[i];
        L->sweep_forward = low_pressure(argc, argv, d->name);
        if (d->kind == RK_SCRATCH || d->kind == RK_RAKE)
            lower_kernel_fn(d);
        else if (d->kind == RK_RUN)
            lower_run(d);
    }
    if (rk_nir_verify(L->out, p->fp_exceptions, p->lanes))
        rk_diag_internal("the lowered IR fails verification (see above)");
    rk_ir_write(rk_nir_encode(L->out), stdout);
    return 0;
}

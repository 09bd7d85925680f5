/* opt.h: state shared by rake-opt's files.
 *
 *   main.c   reading and writing rake.nir, the rewrites on instructions
 *   facts.c  branch facts: conditions decided by the branches that
 *            dominate them, and the blocks no path reaches any more */
#ifndef RAKE_OPT_H
#define RAKE_OPT_H

#include <stdbool.h>
#include <stdint.h>

#include "nir.h"

typedef struct Fn {
    RkFunc *f;
    RkInstr **def; /* by value id */
    int *uses;
} Fn;

/* main.c */
void opt_replace_uses(RkFunc *f, int from, int to);
void opt_make_constant(RkInstr *in, uint64_t canonical);
RkInstr *opt_const_def(Fn *x, int id); /* a scalar `const`, else NULL */

/* facts.c: true if a condition became a constant, a branch a jump, or a
 * block went (the caller reindexes) */
bool opt_branch_facts(Fn *x);

#endif

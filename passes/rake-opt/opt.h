/* opt.h: state shared by rake-opt's files.
 *
 *   main.c   reading and writing rake.nir, the rewrites on instructions
 *   cfg.c    blocks in reverse postorder, predecessors, dominators
 *   facts.c  branch facts: conditions decided by the branches that
 *            dominate them, and the blocks no path reaches any more
 *   masks.c  comparisons whose outcome is fixed, and what reads them
 *   domcse.c uniform arithmetic equal to an instruction of a dominating
 *            block in the same loops is replaced by it
 *   sink.c   uniform values move to the later block that dominates their
 *            readers (past a loop they take no part in) */
#ifndef RAKE_OPT_H
#define RAKE_OPT_H

#include <stdbool.h>
#include <stdint.h>

#include "dom.h"
#include "nir.h"

typedef struct Fn {
    RkFunc *f;
    RkInstr **def;        /* by value id */
    int *uses;
    const RkType **type;  /* by value id: parameters and block parameters too */
    int *repl;            /* by value id: what replaces it (opt_replace_uses), -1 none */
    bool pending;         /* some repl not yet applied to the function */
} Fn;

/* cfg.c: blocks by position in f->blocks; the entry is position 0 */
typedef struct OptCfg {
    RkFunc *f;
    int *at, nat;     /* by block id: its position, -1 none */
    RkDom dom;        /* over positions, from the entry (lib/dom.h) */
    char **body;      /* opt_cfg_find_loops: per natural loop, its blocks */
    int nloops;
} OptCfg;
void opt_cfg_build(OptCfg *g, RkFunc *f);
void opt_cfg_free(OptCfg *g);
int opt_cfg_pos(const OptCfg *g, int block_id);
int opt_cfg_nca(const OptCfg *g, int a, int b);     /* nearest common dominator */
bool opt_cfg_dominates(const OptCfg *g, int a, int b); /* both reached: O(1) */
void opt_cfg_find_loops(OptCfg *g);
bool opt_cfg_loops_within(const OptCfg *g, int s, int b); /* every loop holding s holds b */

/* main.c */
/* Every use of `from` becomes `to`: recorded, and applied to the whole
 * function in one pass when the caller reindexes (a scan per replacement
 * was quadratic: a scratch of 12,000 lets merges 12,000 constants).  A
 * pass that compares operands calls opt_rename_operands on each
 * instruction first, so what it replaced earlier in its scan shows. */
void opt_replace_uses(Fn *x, int from, int to);
void opt_rename_operands(Fn *x, RkInstr *in);
/* visit(&value, block position, ctx) for every use of a value: operands,
 * through masks, returned values and branch conditions, edge arguments. */
void opt_each_use(RkFunc *f, void (*visit)(int *value, int block, void *ctx), void *ctx);

/* Instructions met so far, found by a hash of their operation and
 * operands (opt_instr_hash, or the caller's own), each with its block:
 * common-subexpression passes look an instruction up instead of scanning
 * every earlier one.  Equal instructions hash alike, so a lookup meets
 * them in the order they were added. */
typedef struct OptSeen {
    struct OptSeenSlot {
        RkInstr *in;
        int block;
    } *slot;
    size_t cap;  /* a power of two, at least twice the entries */
} OptSeen;
void opt_seen_init(OptSeen *s, size_t entries);
void opt_seen_free(OptSeen *s);
size_t opt_instr_hash(const RkInstr *in, const int *args); /* args: in's, or canonical ones */
/* The first instruction added under hash h that ok() accepts, or NULL. */
RkInstr *opt_seen_find(const OptSeen *s, size_t h, bool (*ok)(const struct OptSeenSlot *, void *),
                       void *ctx);
void opt_seen_add(OptSeen *s, size_t h, RkInstr *in, int block);
void opt_make_constant(RkInstr *in, uint64_t canonical);
RkInstr *opt_const_def(Fn *x, int id); /* a scalar `const`, else NULL */
/* A pure uniform instruction that can neither trap nor raise a flag, on
 * and to integer, Boolean and pointer values, read by something, not
 * fused or masked: what sinking may move and dominator CSE merge. */
bool opt_uniform_arith(const Fn *x, const RkInstr *in);

/* facts.c: true if a condition became a constant, a branch a jump, or a
 * block went (the caller reindexes) */
bool opt_branch_facts(Fn *x);

/* masks.c: true if a mask became a constant, or something reading one
 * folded (the caller reindexes) */
bool opt_known_masks(Fn *x);

/* domcse.c: true if an instruction was replaced by an equal one in a
 * dominating block (the caller reindexes) */
bool opt_dom_cse(Fn *x);

/* sink.c: true if an instruction moved (the caller reindexes) */
bool opt_sink(Fn *x);

#endif

/* lower.h: the state of rake-lower.
 *
 *   main.c    reading rake.checked, lowering each function, verifying
 *   emit.c    the builder: values, constants, broadcasts, sanitisation
 *   expr.c    expressions to SSA values
 *   kernel.c  statements, inlined calls, tines, through blocks, sweeps
 *   run.c     stack runs and general runs: loops, memory, tails
 */
#ifndef RAKE_LOWER_H
#define RAKE_LOWER_H

#include "ast.h"
#include "nir.h"
#include "nirops.h"
#include "profile.h"
#include "types.h"

/* A value being lowered: an SSA id, or a constant not yet materialised. */
typedef struct LVal {
    int id;              /* -1 for a pending constant */
    const RkType *ty;    /* semantic type (scalar, rack, mask, view, ...) */
    bool is_const;
    uint64_t bits;
} LVal;

/* The values of one function activation (a function, an inlined call, or
 * a global tine's instantiation), indexed by the checked slots. */
typedef struct Env Env;
struct Env {
    int nslots;
    LVal *slots;
    LVal **elems;        /* rack arrays: one value per element */
    int *nelems;
    RkNode **preds;      /* local tines */
    int *pred_mask;      /* their lowered mask, -1 until needed */
    int *pred_ctx;       /* ... the mask it was lowered under, and its block: */
    int *pred_block;     /* it is reused only under the same mask, there */
    RkNode *fn;
};

typedef struct Lower {
    const RkProfile *profile;
    RkModule *module;
    RkNirModule *out;
    RkFunc *f;
    RkBlock *b;
    Env *env;
    int ctx;             /* the participation mask, -1 for every lane */
    int region;          /* the fused region being emitted, -1 for none */
    bool regions_on;     /* false directly in a stack run's body */
    bool sweep_forward;  /* the function is lowered for pressure (--low-pressure):
                            sweeps join arm by arm */
    /* stack runs: the current rack of records */
    int run_base;        /* i64 index of its first record */
    int64_t run_imm;     /* plus this many records (an unrolled loop's later racks) */
    int run_lanes;
    int domain_bits;
    int *col_ptr;        /* per stack param slot x field: column pointer */
    int **col_cache;     /* loaded column racks in this rack of records */
} Lower;

extern Lower *L;

/* emit.c */
RkInstr *emit(RkOp op, const RkType *t, const int *args, int nargs, RkLoc loc);
int emit1(RkOp op, const RkType *t, int a, RkLoc loc);
int emit2(RkOp op, const RkType *t, int a, int b, RkLoc loc);
int emit3(RkOp op, const RkType *t, int a, int b, int c, RkLoc loc);
int const_uniform(RkElem e, uint64_t bits);
int const_rack(RkElem e, uint64_t bits);
int const_mask(int bits, bool value);
LVal lval(int id, const RkType *t);
LVal lconst(const RkType *t, uint64_t bits);
int as_uniform(LVal v);
int as_rack(LVal v, RkElem e);
int materialize(LVal v, const RkType *want);
int mask_and(int a, int b, RkLoc loc);
int mask_not(int a, RkLoc loc);
int lanewise(RkOp op, const RkType *t, const int *args, int nargs, RkLoc loc);
void set_block(RkBlock *b);
const RkType *value_type(int id);
Env *env_new(RkNode *fn);
RkElem domain_elem(int bits, bool sign);

/* expr.c */
LVal lower_expr(RkNode *e);
int lower_rack(RkNode *e, const RkType *t);
int lower_mask(RkNode *e);
LVal lower_call_kernel(RkNode *callee, RkNode *call, LVal *given);
int lower_tine(RkNode *ref);
const RkType *node_ty(RkNode *n);

/* kernel.c */
void lower_stmts(RkList body, int upto);
void lower_stmt(RkNode *s, bool fused);
LVal lower_kernel_body(RkNode *fn);
void lower_kernel_fn(RkNode *fn);

/* run.c */
void lower_run(RkNode *fn);
LVal lower_column(RkNode *field);
LVal lower_view_access(RkNode *e);
void lower_store(RkNode *target, int value);
void lower_for(RkNode *s);
void lower_if_stmt(RkNode *s);
LVal lower_slow_block(RkNode *blk);

#endif

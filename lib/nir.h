/* nir.h: rake.nir, Rake's typed SSA native IR.
 *
 * A module is a list of functions.  A function has typed parameters and a
 * list of blocks; every block has typed block parameters (instead of phi
 * nodes), a list of instructions and exactly one terminator.  Every value
 * is an integer id, defined once: a function parameter, a block parameter,
 * or an instruction's result.  Ids are never renumbered, so a value keeps
 * its name from lowering through optimisation.
 *
 * Types are strings: rack<f32> rack<i32> rack<u32> rack<u8> rack<i16>
 * rack<i64> rack<u64>, mask<32> (lanes of 32 bits; also 8, 16, 64), the
 * uniform scalars f32 i32 u32 i64 u64 u8 i16 bool, ptr<f32> (an element
 * pointer), view<f32> (a pointer and an i32 count), stack<P> (a stack
 * descriptor) and void.
 *
 * An instruction's operation is an RkOp (nirops.h), decoded from its
 * name once by rk_nir_decode and written back by rk_nir_encode; the name
 * stays beside it for readers that still spell operations.
 *
 * Instructions carry their source location and two annotations:
 *   fused   the fused region (numbered per function) or -1;
 *   through the value id of the participation mask it runs under, or -1.
 * An exception-capable operation under a mask on a profile with
 * floating-point exceptions has sanitized=true, and each of its operands
 * comes from a `mask.select %k, x, benign` marked benign=true (or is a
 * constant that can't raise, or a comparison's operand proven normal
 * outside the mask: nirproof.h).
 * docs/nir.md lists every operation. */
#ifndef RK_NIR_H
#define RK_NIR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "nirops.h"
#include "types.h"

typedef struct RkInstr {
    int id;               /* result value, -1 when the op has none */
    RkOp opc;             /* the operation; RK_OP_NONE for an unknown name */
    const char *op;       /* its spelling (the name read, for an unknown one) */
    const RkType *type;   /* result type, NULL when none */
    int *args;
    int nargs;
    uint64_t bits;        /* constants: the value's bits */
    int64_t imm;          /* lane index, shift count, element offset */
    int *lanes;           /* shuffle indices */
    int nlanes;
    const char *text;     /* trap message, slow block reference */
    RkLoc loc;
    int fused;
    int through;
    bool benign;
    bool sanitized;
} RkInstr;

typedef enum RkTermKind { RK_TERM_RET, RK_TERM_BR, RK_TERM_CBR, RK_TERM_TRAP } RkTermKind;

typedef struct RkEdge {
    int block;
    int *args;
    int nargs;
} RkEdge;

typedef struct RkTerm {
    RkTermKind kind;
    int value;            /* return value (-1 for void), cbr condition */
    RkEdge to, alt;       /* br: to; cbr: to if true, alt if false; trap: to.args
                             are the values its message shows (to.block unused) */
    const char *text;     /* trap message; "{k}" shows to.args[k] in signed decimal */
    RkLoc loc;
} RkTerm;

typedef struct RkBlock {
    int id;
    int *params;
    const RkType **ptypes;
    int nparams;
    RkInstr **instrs;
    int ninstrs, cap;
    RkTerm term;
    bool terminated;
} RkBlock;

typedef struct RkFunc {
    const char *name;
    const char *kind;     /* scratch rake stack_run general_run */
    RkLoc loc;
    int *params;
    const RkType **ptypes;
    const char **pnames;
    int nparams;
    const RkType *result; /* NULL: void */
    RkBlock **blocks;
    int nblocks, bcap;
    int nvalues;          /* ids are below this */
    int nregions;         /* fused regions used */
} RkFunc;

typedef struct RkNirModule {
    const char *source;
    const char *target;
    RkFunc **funcs;
    int nfuncs, cap;
} RkNirModule;

/* types */
const char *rk_nir_type_str(const RkType *t);
const RkType *rk_nir_type_parse(const char *s);
const RkType *rk_ty_ptr(RkElem e);

/* building */
RkFunc *rk_nir_func(RkNirModule *m, const char *name, const char *kind, RkLoc loc);
int rk_nir_param(RkFunc *f, const RkType *t, const char *name);
RkBlock *rk_nir_block(RkFunc *f);
int rk_nir_block_param(RkFunc *f, RkBlock *b, const RkType *t);
RkInstr *rk_nir_emit(RkFunc *f, RkBlock *b, RkOp op, const RkType *t,
                     const int *args, int nargs, RkLoc loc);
/* Put an existing instruction into b at position pos (0: first). */
void rk_nir_insert(RkBlock *b, int pos, RkInstr *in);
/* Make `in` the operation `op` (its enum and its spelling). */
void rk_nir_set_op(RkInstr *in, RkOp op);
/* Is `in` a materialised constant (const, rack.splat or mask.const with
 * its value in `bits`, no operands)? */
bool rk_nir_is_constant(const RkInstr *in);
/* Are a and b constants of one operation, type and value?  (Every block
 * has its own constants, so passes compare them by value.) */
bool rk_nir_same_constant(const RkInstr *a, const RkInstr *b);
/* The ids of the blocks a terminated block branches to, in s; how many. */
int rk_nir_successors(const RkBlock *b, int s[2]);
/* Are a and b the same instruction: one operation, type, operands,
 * immediates, text, lanes, fused region, through mask and sanitising
 * marks?  (rake-explore tells a rewritten instruction with it.) */
bool rk_nir_instr_same(const RkInstr *a, const RkInstr *b);
/* The same, whatever fused regions a and b belong to: the value they
 * compute (rake-opt's common-subexpression test, by which rake-explore
 * explains it; a region only chooses which additions contract, which
 * rake-opt has done before it). */
bool rk_nir_instr_same_value(const RkInstr *a, const RkInstr *b);
/* Whether rake-opt's common-subexpression rule lets `earlier` stand for
 * `in`: the same value, and for a benign select the same region too (it
 * sanitises one operation's operand, which AVX-512 reads past). */
bool rk_nir_instr_merges(const RkInstr *earlier, const RkInstr *in);
RkFunc *rk_nir_find(RkNirModule *m, const char *name);
RkBlock *rk_nir_block_by_id(RkFunc *f, int id);

/* JSON and text */
json_t *rk_nir_encode(const RkNirModule *m);
RkNirModule *rk_nir_decode(json_t *root);
void rk_nir_print(const RkNirModule *m, FILE *out);
void rk_nir_print_func(const RkFunc *f, FILE *out);

/* The verifier: returns the number of violations, each reported on
 * stderr as `PROGRAM: function @f, %id (op): rule: detail`.  `profile`
 * says whether sanitisation is required. */
int rk_nir_verify(const RkNirModule *m, bool fp_exceptions, int f32_lanes);
/* The same on a program's input: any violation exits 2 with a first line
 * `PROGRAM: <stdin>:LINE:COL: ...` located at the offending function. */
void rk_nir_verify_input(const RkNirModule *m, bool fp_exceptions, int f32_lanes);

/* Lanes of a rack or mask type on a profile with `f32_lanes` lanes. */
int rk_nir_lanes(const RkType *t, int f32_lanes);

#endif

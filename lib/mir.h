/* mir.h: rake.mir, machine IR.
 *
 * A function is a straight list of machine instructions (register kernels
 * have no control flow) over virtual registers, with the constants it
 * loads rip-relative and its calling convention.  rake-isel-x86 writes it
 * with virtual registers; rake-ra rewrites every virtual register to a
 * physical one; rake-emit prints it as GNU assembly; rake-verify compares
 * the disassembled object with it.
 *
 * An instruction is an opcode (the mnemonic) and operands in Intel order
 * (destination first), each written as a string:
 *   v12        a virtual vector register, read      (=v12 written, +v12 both)
 *   v12.x      its 128-bit view (an xmm register whatever the profile)
 *   %xmm0      a physical register (=%eax written)
 *   $31        an immediate
 *   C3         constant 3, loaded rip-relative
 *   ...{k1}    AVX-512 masking of a destination ({k1}{z}: zeroing)
 * Each instruction also records the native-IR operation it was selected
 * for (`origin`), which the object verifier uses to allow cross-lane
 * instructions only where the source asked for them. */
#ifndef RK_MIR_H
#define RK_MIR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

typedef struct RkMOp {
    char kind;          /* 'v' virtual, 'p' physical, 'i' immediate, 'c' constant */
    int vreg;
    const char *phys;   /* "xmm0", "eax", "k1" */
    int64_t imm;
    int cidx;
    bool def, use;
    char width;         /* 'x' for the 128-bit view of a vector vreg, else 0 */
    const char *mask;   /* "{%k1}" or "{%k1}{z}" */
} RkMOp;

typedef struct RkMInstr {
    const char *op;
    RkMOp *ops;
    int nops;
    const char *origin; /* the native-IR op, "entry", "result", "move" */
    int nir;            /* the native-IR value id, -1 if none */
    RkLoc loc;          /* the source of the native-IR op, {0,0} if none */
} RkMInstr;

typedef struct RkMConst {
    int size;           /* bytes: 4 (broadcast), 2 (a k mask), 16, 32, 64 */
    uint32_t words[16];
} RkMConst;

typedef struct RkMArg {
    const char *name;
    const char *type;   /* native-IR type, e.g. rack<f32>, i32 */
    const char *reg;    /* xmm0, ymm1, edi, ... */
    int vreg;           /* the virtual register holding it after entry */
} RkMArg;

typedef struct RkMFunc {
    const char *name;
    const char *kind;
    RkLoc loc;               /* the kernel's definition */
    RkMArg *args;
    int nargs;
    const char *result_type;
    const char *result_reg;  /* xmm0/ymm0/zmm0/eax, or NULL */
    RkMInstr *instrs;
    int ninstrs, cap;
    RkMConst *consts;
    int nconsts, ccap;
    int nvregs;
    int fmas;                /* rack.fma operations selected */
} RkMFunc;

typedef struct RkMModule {
    const char *source;
    const char *target;
    bool allocated;          /* after rake-ra: no virtual registers left */
    RkMFunc **funcs;
    int nfuncs, cap;
} RkMModule;

RkMFunc *rk_mir_func(RkMModule *m, const char *name, const char *kind);
RkMInstr *rk_mir_add(RkMFunc *f, const char *op, const char *origin, int nir);
void rk_mir_operand(RkMInstr *in, RkMOp op);
int rk_mir_const(RkMFunc *f, int size, const uint32_t *words);
int rk_mir_vreg(RkMFunc *f);

/* operand constructors */
RkMOp rk_mv(int vreg);      /* use */
RkMOp rk_mvd(int vreg);     /* def */
RkMOp rk_mvu(int vreg);     /* def and use */
RkMOp rk_mvx(RkMOp o);      /* 128-bit view */
RkMOp rk_mp(const char *reg, bool def);
RkMOp rk_mi(int64_t imm);
RkMOp rk_mc(int cidx);
RkMOp rk_mmask(RkMOp o, bool zero);

const char *rk_mir_operand_str(const RkMOp *o);
bool rk_mir_operand_parse(const char *s, RkMOp *o);

json_t *rk_mir_encode(const RkMModule *m);
RkMModule *rk_mir_decode(json_t *root);
void rk_mir_print(const RkMModule *m, FILE *out);

#endif

/* nirops.h: the table of native-IR operations.
 *
 * One row per operation: its spelling, its shape (which operand and
 * result types it takes, checked by the verifier), whether it is pure, a
 * memory access or an effect, whether it may appear in a fused region,
 * whether it moves data across lanes, and the benign operand that
 * sanitises it under a mask on profiles with floating-point exceptions
 * (00-backend.md and 01-tines-through-sweeps.md). */
#ifndef RK_NIROPS_H
#define RK_NIROPS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum RkShape {
    SH_CONST,     /* 0 args: const T, rack.splat T, mask.const */
    SH_SPLAT,     /* uniform T -> rack<T>; bool -> mask */
    SH_COPY,      /* X -> X */
    SH_BIN,       /* rack T, rack T -> rack T */
    SH_UN,        /* rack T -> rack T */
    SH_TER,       /* rack T x3 -> rack T */
    SH_SHIFT,     /* rack T [, u32] -> rack T */
    SH_CMP,       /* rack T, rack T -> mask */
    SH_MBIN,      /* mask, mask -> mask */
    SH_MUN,       /* mask -> mask */
    SH_SELECT,    /* mask, X, X -> X */
    SH_CONVERT,   /* rack A -> rack B (checked by op) */
    SH_REDUCE,    /* rack T -> T */
    SH_SCAN,      /* rack T -> rack T */
    SH_EXTRACT,   /* rack T -> T, imm lane */
    SH_INSERT,    /* rack T, T -> rack T, imm lane */
    SH_SHUFFLE,   /* rack T [, rack T] -> rack T, lanes */
    SH_MREDUCE,   /* mask -> bool or u32 */
    SH_UBIN,      /* T, T -> T */
    SH_UUN,       /* T -> T */
    SH_UCMP,      /* T, T -> bool */
    SH_USELECT,   /* bool, T, T -> T */
    SH_UCVT,      /* T -> U */
    SH_MEM,       /* memory: checked by op */
} RkShape;

enum {
    RK_OP_PURE = 1,     /* no memory, no effect */
    RK_OP_FUSABLE = 2,  /* may appear in a fused region */
    RK_OP_CROSS = 4,    /* moves data across lanes */
    RK_OP_FLOAT = 8,    /* takes float racks only */
    RK_OP_INT = 16,     /* takes integer racks only */
    RK_OP_EFFECT = 32,  /* writes memory or state */
    RK_OP_RAISES = 64,  /* exception-capable on float operands */
};

typedef struct RkOpInfo {
    const char *name;
    RkShape shape;
    int flags;
    uint32_t benign;    /* the benign f32 operand (bits) when RK_OP_RAISES */
    uint32_t benign2;   /* for the second operand, when it differs (div) */
} RkOpInfo;

const RkOpInfo *rk_nir_op(const char *name);

#endif

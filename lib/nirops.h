/* nirops.h: the table of native-IR operations.
 *
 * Every operation of rake.nir is one row of RK_NIR_OPS below, and nowhere
 * else: the RkOp enum and the facts table of nirops.c are generated from
 * it (as QBE's ops.h or wabt's opcode.def), so adding an operation is
 * adding a row, and a pass that needs a fact about operations asks the
 * table instead of keeping a list of names.  rk_nir_decode turns an
 * instruction's op name into its RkOp once, at the IR boundary; passes
 * switch on the enum.
 *
 * The columns of a row, in order:
 *   ID       the enum member is RK_OP_<ID>
 *   name     the spelling in rake.nir ("rack.add")
 *   shape    which operand and result types it takes (RkShape; the
 *            verifier checks them)
 *   min,max  how many operands it takes; max RK_VARIADIC for any number
 *   result   what kind of value it produces (RkResult)
 *   flags    RK_OPF_*: pure (no memory, no effect), fusable (may appear in
 *            a fused region), cross-lane, float-only, integer-only, effect
 *            (writes memory or state: never removed), raises (exception-
 *            capable on float operands, so sanitised under a mask),
 *            zero (+0 in every rack operand of a lane gives +0 there:
 *            rake-isel-x86 knows a rack computed from racks that are 0
 *            outside a mask is 0 there too, and sanitises it no more)
 *   benign   the f32 bits of the benign operand that sanitises a raising
 *            operation under a mask (00-backend.md and
 *            01-tines-through-sweeps.md); 0 otherwise
 *   benign2  the second operand's, when it differs (div's 1.0); else 0
 *   archs    RK_ON_*: the target architectures with a native lowering of
 *            the operation (the capability table's facts: exp, log, log2,
 *            tanh, the packed conversions and the relaxed operations exist
 *            only on WebAssembly). */
#ifndef RK_NIROPS_H
#define RK_NIROPS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

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

typedef enum RkResult {
    RK_RES_NONE,      /* no value (a store, a count update) */
    RK_RES_UNIFORM,   /* a uniform scalar */
    RK_RES_RACK,      /* a rack */
    RK_RES_MASK,      /* a mask */
    RK_RES_LANES,     /* a rack or a mask (a lane-wise selection) */
    RK_RES_POINTER,   /* an element pointer */
    RK_RES_OPERAND,   /* the operand's own type (copy) */
    RK_RES_OPTIONAL,  /* a uniform or no value (a slow block) */
} RkResult;

enum {
    RK_OPF_PURE = 1,     /* no memory, no effect */
    RK_OPF_FUSABLE = 2,  /* may appear in a fused region */
    RK_OPF_CROSS = 4,    /* moves data across lanes */
    RK_OPF_FLOAT = 8,    /* takes float racks only */
    RK_OPF_INT = 16,     /* takes integer racks only */
    RK_OPF_EFFECT = 32,  /* writes memory or state */
    RK_OPF_RAISES = 64,  /* exception-capable on float operands */
    RK_OPF_ZERO = 128,   /* a lane whose rack operands are all +0 (every bit
                          * clear) gives +0 and raises nothing */
};

/* target architectures, one bit per RkArch */
enum {
    RK_ON_X86 = 1 << RK_ARCH_X86,
    RK_ON_AARCH64 = 1 << RK_ARCH_AARCH64,
    RK_ON_WASM = 1 << RK_ARCH_WASM,
    RK_ON_ALL = RK_ON_X86 | RK_ON_AARCH64 | RK_ON_WASM,
};

#define RK_VARIADIC (-1)

/* abbreviations for the rows */
#define RKO_P RK_OPF_PURE
#define RKO_FU RK_OPF_FUSABLE
#define RKO_X RK_OPF_CROSS
#define RKO_FL RK_OPF_FLOAT
#define RKO_IN RK_OPF_INT
#define RKO_EF RK_OPF_EFFECT
#define RKO_R RK_OPF_RAISES
#define RKO_Z RK_OPF_ZERO
#define RKO_ONE 0x3f800000u
#define RKO_ZERO 0u
#define RKO_ALL RK_ON_ALL
#define RKO_WASM RK_ON_WASM
#define RKO_U RK_RES_UNIFORM
#define RKO_RACK RK_RES_RACK
#define RKO_MASK RK_RES_MASK

/* X(ID, name, shape, min, max, result, flags, benign, benign2, archs)
 * The uniform operations (u.*) are fusable: a fused binding may compute on
 * uniforms (`a * (<k> + <k>)`) and test them in a uniform `if`
 * (10-gap-notes.md sections 2 and 3). */
#define RK_NIR_OPS(X) \
    X(CONST, "const", SH_CONST, 0, 0, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                     \
    X(RACK_SPLAT, "rack.splat", SH_CONST, 0, 1, RKO_RACK, RKO_P | RKO_FU, 0, 0, RKO_ALL)        \
    X(MASK_CONST, "mask.const", SH_CONST, 0, 0, RKO_MASK, RKO_P | RKO_FU, 0, 0, RKO_ALL)        \
    X(MASK_SPLAT, "mask.splat", SH_SPLAT, 1, 1, RKO_MASK, RKO_P | RKO_FU, 0, 0, RKO_ALL)        \
    X(COPY, "copy", SH_COPY, 1, 1, RK_RES_OPERAND, RKO_P | RKO_FU | RKO_Z, 0, 0, RKO_ALL)       \
    X(RACK_ADD, "rack.add", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z, RKO_ZERO,   \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_SUB, "rack.sub", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z, RKO_ZERO,   \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_MUL, "rack.mul", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z, RKO_ONE,    \
      RKO_ONE, RKO_ALL)                                                                         \
    X(RACK_DIV, "rack.div", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R,            \
      RKO_ZERO, RKO_ONE, RKO_ALL)                                                               \
    X(RACK_MIN, "rack.min", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z, RKO_ZERO,   \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_MAX, "rack.max", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z, RKO_ZERO,   \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_AND, "rack.and", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0, 0,      \
      RKO_ALL)                                                                                  \
    X(RACK_OR, "rack.or", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0, 0,        \
      RKO_ALL)                                                                                  \
    X(RACK_XOR, "rack.xor", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0, 0,      \
      RKO_ALL)                                                                                  \
    X(RACK_ANDNOT, "rack.andnot", SH_BIN, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0,   \
      0, RKO_ALL)                                                                               \
    X(RACK_RELAXED_MIN, "rack.relaxed_min", SH_BIN, 2, 2, RKO_RACK,                             \
      RKO_P | RKO_FU | RKO_FL | RKO_Z, 0, 0, RKO_WASM)                                          \
    X(RACK_RELAXED_MAX, "rack.relaxed_max", SH_BIN, 2, 2, RKO_RACK,                             \
      RKO_P | RKO_FU | RKO_FL | RKO_Z, 0, 0, RKO_WASM)                                          \
    X(RACK_NEG, "rack.neg", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU, 0, 0, RKO_ALL)               \
    X(RACK_ABS, "rack.abs", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_Z, 0, 0, RKO_ALL)       \
    X(RACK_SQRT, "rack.sqrt", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z,   \
      RKO_ONE, 0, RKO_ALL)                                                                      \
    X(RACK_FLOOR, "rack.floor", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z, \
      RKO_ZERO, 0, RKO_ALL)                                                                     \
    X(RACK_CEIL, "rack.ceil", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z,   \
      RKO_ZERO, 0, RKO_ALL)                                                                     \
    X(RACK_TRUNC, "rack.trunc", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z, \
      RKO_ZERO, 0, RKO_ALL)                                                                     \
    X(RACK_NEAREST, "rack.nearest", SH_UN, 1, 1, RKO_RACK,                                      \
      RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z, RKO_ZERO, 0, RKO_ALL)                            \
    X(RACK_EXP, "rack.exp", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R, RKO_ZERO,   \
      0, RKO_WASM)                                                                              \
    X(RACK_LOG, "rack.log", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R, RKO_ONE,    \
      0, RKO_WASM)                                                                              \
    X(RACK_LOG2, "rack.log2", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R,           \
      RKO_ONE, 0, RKO_WASM)                                                                     \
    X(RACK_TANH, "rack.tanh", SH_UN, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z,   \
      RKO_ZERO, 0, RKO_WASM)                                                                    \
    X(RACK_FMA, "rack.fma", SH_TER, 3, 3, RKO_RACK, RKO_P | RKO_FU | RKO_FL | RKO_R | RKO_Z,    \
      RKO_ZERO, RKO_ZERO, RKO_ALL)                                                              \
    X(RACK_RELAXED_MADD, "rack.relaxed_madd", SH_TER, 3, 3, RKO_RACK,                           \
      RKO_P | RKO_FU | RKO_FL | RKO_Z, 0, 0, RKO_WASM)                                          \
    X(RACK_RELAXED_NMADD, "rack.relaxed_nmadd", SH_TER, 3, 3, RKO_RACK,                         \
      RKO_P | RKO_FU | RKO_FL, 0, 0, RKO_WASM)                                                  \
    X(RACK_SHL, "rack.shl", SH_SHIFT, 1, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0, 0,    \
      RKO_ALL)                                                                                  \
    X(RACK_SHR, "rack.shr", SH_SHIFT, 1, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0, 0,    \
      RKO_ALL)                                                                                  \
    X(RACK_SAR, "rack.sar", SH_SHIFT, 1, 2, RKO_RACK, RKO_P | RKO_FU | RKO_IN | RKO_Z, 0, 0,    \
      RKO_ALL)                                                                                  \
    X(RACK_CMP_EQ, "rack.cmp.eq", SH_CMP, 2, 2, RKO_MASK, RKO_P | RKO_FU | RKO_R, RKO_ZERO,     \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_CMP_NE, "rack.cmp.ne", SH_CMP, 2, 2, RKO_MASK, RKO_P | RKO_FU | RKO_R, RKO_ZERO,     \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_CMP_LT, "rack.cmp.lt", SH_CMP, 2, 2, RKO_MASK, RKO_P | RKO_FU | RKO_R, RKO_ZERO,     \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_CMP_LE, "rack.cmp.le", SH_CMP, 2, 2, RKO_MASK, RKO_P | RKO_FU | RKO_R, RKO_ZERO,     \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_CMP_GT, "rack.cmp.gt", SH_CMP, 2, 2, RKO_MASK, RKO_P | RKO_FU | RKO_R, RKO_ZERO,     \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(RACK_CMP_GE, "rack.cmp.ge", SH_CMP, 2, 2, RKO_MASK, RKO_P | RKO_FU | RKO_R, RKO_ZERO,     \
      RKO_ZERO, RKO_ALL)                                                                        \
    X(MASK_AND, "mask.and", SH_MBIN, 2, 2, RKO_MASK, RKO_P | RKO_FU, 0, 0, RKO_ALL)             \
    X(MASK_OR, "mask.or", SH_MBIN, 2, 2, RKO_MASK, RKO_P | RKO_FU, 0, 0, RKO_ALL)               \
    X(MASK_NOT, "mask.not", SH_MUN, 1, 1, RKO_MASK, RKO_P | RKO_FU, 0, 0, RKO_ALL)              \
    X(MASK_SELECT, "mask.select", SH_SELECT, 3, 3, RK_RES_LANES, RKO_P | RKO_FU, 0, 0, RKO_ALL) \
    X(RACK_TO_I32, "rack.to_i32", SH_CONVERT, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z,   \
      RKO_ZERO, 0, RKO_ALL)                                                                     \
    X(RACK_TO_U32, "rack.to_u32", SH_CONVERT, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_R | RKO_Z,   \
      RKO_ZERO, 0, RKO_ALL)                                                                     \
    X(RACK_TO_F32, "rack.to_f32", SH_CONVERT, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_Z, 0, 0,     \
      RKO_ALL)                                                                                  \
    X(RACK_BITCAST, "rack.bitcast", SH_CONVERT, 1, 1, RKO_RACK, RKO_P | RKO_Z, 0, 0, RKO_ALL)   \
    X(RACK_WIDEN_LOW, "rack.widen_low", SH_CONVERT, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_Z,     \
      0, 0, RKO_WASM)                                                                           \
    X(RACK_WIDEN_HIGH, "rack.widen_high", SH_CONVERT, 1, 1, RKO_RACK, RKO_P | RKO_FU | RKO_Z,   \
      0, 0, RKO_WASM)                                                                           \
    X(RACK_NARROW, "rack.narrow", SH_CONVERT, 2, 2, RKO_RACK, RKO_P | RKO_FU | RKO_Z, 0, 0,     \
      RKO_WASM)                                                                                 \
    X(RACK_DOT, "rack.dot", SH_CONVERT, 2, 2, RKO_RACK, RKO_P | RKO_FU, 0, 0, RKO_WASM)         \
    X(RACK_SUM, "rack.sum", SH_REDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)               \
    X(RACK_PRODUCT, "rack.product", SH_REDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)       \
    X(RACK_MINIMUM, "rack.minimum", SH_REDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)       \
    X(RACK_MAXIMUM, "rack.maximum", SH_REDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)       \
    X(RACK_SCAN_SUM, "rack.scan_sum", SH_SCAN, 1, 1, RKO_RACK, RKO_P | RKO_X, 0, 0, RKO_ALL)    \
    X(RACK_SCAN_PRODUCT, "rack.scan_product", SH_SCAN, 1, 1, RKO_RACK, RKO_P | RKO_X, 0, 0,     \
      RKO_ALL)                                                                                  \
    X(RACK_SCAN_MINIMUM, "rack.scan_minimum", SH_SCAN, 1, 1, RKO_RACK, RKO_P | RKO_X, 0, 0,     \
      RKO_ALL)                                                                                  \
    X(RACK_SCAN_MAXIMUM, "rack.scan_maximum", SH_SCAN, 1, 1, RKO_RACK, RKO_P | RKO_X, 0, 0,     \
      RKO_ALL)                                                                                  \
    X(RACK_EXTRACT, "rack.extract", SH_EXTRACT, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)      \
    X(RACK_INSERT, "rack.insert", SH_INSERT, 2, 2, RKO_RACK, RKO_P | RKO_X, 0, 0, RKO_ALL)      \
    X(RACK_SHUFFLE, "rack.shuffle", SH_SHUFFLE, 1, 2, RKO_RACK, RKO_P | RKO_FU | RKO_X, 0, 0,   \
      RKO_ALL)                                                                                  \
    X(MASK_ALL, "mask.all", SH_MREDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)              \
    X(MASK_ANY, "mask.any", SH_MREDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)              \
    X(MASK_BITMASK, "mask.bitmask", SH_MREDUCE, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)      \
    X(U_ADD, "u.add", SH_UBIN, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                      \
    X(U_SUB, "u.sub", SH_UBIN, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                      \
    X(U_MUL, "u.mul", SH_UBIN, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                      \
    X(U_DIV, "u.div", SH_UBIN, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                      \
    X(U_AND, "u.and", SH_UBIN, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                      \
    X(U_OR, "u.or", SH_UBIN, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                        \
    X(U_NEG, "u.neg", SH_UUN, 1, 1, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                       \
    X(U_NOT, "u.not", SH_UUN, 1, 1, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                       \
    X(U_CMP_EQ, "u.cmp.eq", SH_UCMP, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                \
    X(U_CMP_NE, "u.cmp.ne", SH_UCMP, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                \
    X(U_CMP_LT, "u.cmp.lt", SH_UCMP, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                \
    X(U_CMP_LE, "u.cmp.le", SH_UCMP, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                \
    X(U_CMP_GT, "u.cmp.gt", SH_UCMP, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                \
    X(U_CMP_GE, "u.cmp.ge", SH_UCMP, 2, 2, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                \
    X(U_SELECT, "u.select", SH_USELECT, 3, 3, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)             \
    X(U_CVT, "u.cvt", SH_UCVT, 1, 1, RKO_U, RKO_P | RKO_FU, 0, 0, RKO_ALL)                      \
    X(STACK_COUNT, "stack.count", SH_MEM, 1, 1, RKO_U, RKO_P, 0, 0, RKO_ALL)                    \
    X(STACK_COLUMN, "stack.column", SH_MEM, 1, 1, RK_RES_POINTER, RKO_P, 0, 0, RKO_ALL)         \
    X(STACK_SET_COUNT, "stack.set_count", SH_MEM, 2, 2, RK_RES_NONE, RKO_EF, 0, 0, RKO_ALL)     \
    X(VIEW_PTR, "view.ptr", SH_MEM, 1, 1, RK_RES_POINTER, RKO_P, 0, 0, RKO_ALL)                 \
    X(VIEW_COUNT, "view.count", SH_MEM, 1, 1, RKO_U, RKO_P, 0, 0, RKO_ALL)                      \
    X(PTR_ADD, "ptr.add", SH_MEM, 2, 2, RK_RES_POINTER, RKO_P, 0, 0, RKO_ALL)                   \
    X(RACK_LOAD, "rack.load", SH_MEM, 1, 1, RKO_RACK, 0, 0, 0, RKO_ALL)                         \
    X(RACK_LOAD_MASKED, "rack.load.masked", SH_MEM, 2, 2, RKO_RACK, 0, 0, 0, RKO_ALL)           \
    X(RACK_STORE, "rack.store", SH_MEM, 2, 2, RK_RES_NONE, RKO_EF, 0, 0, RKO_ALL)               \
    X(RACK_STORE_MASKED, "rack.store.masked", SH_MEM, 3, 3, RK_RES_NONE, RKO_EF, 0, 0, RKO_ALL) \
    X(RACK_COMPRESS_STORE, "rack.compress_store", SH_MEM, 3, 3, RK_RES_NONE, RKO_EF | RKO_X,    \
      0, 0, RKO_ALL)                                                                            \
    X(RACK_GATHER, "rack.gather", SH_MEM, 2, 3, RKO_RACK, RKO_X, 0, 0, RKO_ALL)                 \
    X(ELEM_LOAD, "elem.load", SH_MEM, 2, 2, RKO_U, 0, 0, 0, RKO_ALL)                            \
    X(MASK_POPCOUNT, "mask.popcount", SH_MEM, 1, 1, RKO_U, RKO_P | RKO_X, 0, 0, RKO_ALL)        \
    X(MASK_LANES_BELOW, "mask.lanes_below", SH_MEM, 1, 1, RKO_MASK, RKO_P, 0, 0, RKO_ALL)       \
    X(SLOW_CALL, "slow.call", SH_MEM, 0, RK_VARIADIC, RK_RES_OPTIONAL, RKO_EF, 0, 0, RKO_ALL)

typedef enum RkOp {
    RK_OP_NONE, /* not an operation: an unknown name */
#define RK_OP_ENUM(id, ...) RK_OP_##id,
    RK_NIR_OPS(RK_OP_ENUM)
#undef RK_OP_ENUM
    RK_OP_COUNT
} RkOp;

typedef struct RkOpInfo {
    RkOp op;
    const char *name;
    RkShape shape;
    int min_args, max_args; /* max_args RK_VARIADIC: any number */
    RkResult result;
    int flags;              /* RK_OPF_* */
    uint32_t benign;        /* the benign f32 operand (bits) when RK_OPF_RAISES */
    uint32_t benign2;       /* for the second operand, when it differs (div) */
    unsigned archs;         /* RK_ON_*: architectures that have it natively */
} RkOpInfo;

/* The row of `op`; NULL for RK_OP_NONE or anything out of range. */
const RkOpInfo *rk_nir_op_info(RkOp op);
/* The spelling of `op` in rake.nir; "?" for RK_OP_NONE. */
const char *rk_nir_op_name(RkOp op);
/* The operation spelt `name`, or RK_OP_NONE. */
RkOp rk_nir_op_lookup(const char *name);
/* The row of the operation spelt `name`, or NULL. */
const RkOpInfo *rk_nir_op(const char *name);
/* Does `arch` have a native lowering of `op`? */
bool rk_nir_op_on_arch(RkOp op, RkArch arch);
/* The benign bits of operand `i` (from 0) of a raising operation. */
uint32_t rk_nir_op_benign(const RkOpInfo *info, int i);
/* Whether a constant with these f32 bits may stay as operand `i` of a
 * raising operation in inactive lanes, all its other operands being
 * benign: the benign value itself, or a constant on which the operation
 * is exact and raises nothing (docs/nir.md, "Sanitisation"). */
bool rk_nir_op_const_benign(const RkOpInfo *info, int i, uint32_t bits);

/* The stack descriptor that stack.count and stack.set_count read and
 * write and stack.column reads (docs/runs.md, and the struct the C
 * header declares): the record count at RK_STACK_COUNT_AT, then column
 * k's pointer at RK_STACK_COLUMNS_AT + RK_STACK_COLUMN_BYTES * k.  A run
 * writes only the count, so a column pointer may be loaded again. */
enum { RK_STACK_COUNT_AT = 0, RK_STACK_COLUMNS_AT = 8, RK_STACK_COLUMN_BYTES = 8 };

#endif

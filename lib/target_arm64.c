/* target_arm64.c: the AArch64 target (aarch64-neon), registers first.
 *
 * The register file and calling convention of AAPCS64, laid out as the x86
 * table is, so the NEON backend adds a selector, an emitter and this
 * file's instruction table (today only control flow and the stack: no
 * selector emits NEON code yet, and rakec says so).
 *
 * Vector registers are v0-v31, named by view: v (the whole 128 bits; the
 * emitter adds the arrangement, v3.4s), d (64), s (32).  v8-v15 are
 * reserved: AAPCS64 makes their low halves callee-saved, and a kernel
 * that never saves a vector register never has to.  General registers are
 * x0-x30 (w0-w30 at 32 bits): x18 (the platform register), x29 (frame
 * pointer) and x30 (link register) are reserved, x19-x28 are callee-saved
 * and come last in the allocation order.  There are no mask registers:
 * NEON masks are vectors. */
#include <stddef.h>

#include "target.h"

static const char *const vq[] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"};
static const char *const vd[] = {"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30", "d31"};
static const char *const vs[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31"};
static const char *const x64[] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp"};
static const char *const w32[] = {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10", "w11", "w12", "w13", "w14", "w15", "w16", "w17", "w18", "w19", "w20", "w21", "w22", "w23", "w24", "w25", "w26", "w27", "w28", "w29", "w30", "wsp"};

static const RkRegView vec_views[] = {{32, vs}, {64, vd}, {128, vq}, {0, NULL}};
static const RkRegView gpr_views[] = {{32, w32}, {64, x64}, {0, NULL}};

static const int8_t vec_order[] = {0,  1,  2,  3,  4,  5,  6,  7,  16, 17, 18, 19,
                                   20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1};
/* caller-saved x0-x17 first, then callee-saved x19-x28 */
static const int8_t gpr_order[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                   14, 15, 16, 17, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, -1};

#define BIT(n) (1ull << (n))
#define RANGE(a, b) (((1ull << ((b) + 1)) - 1) & ~((1ull << (a)) - 1))

static const RkRegRef vec_args[] = {{RK_RC_VEC, 0}, {RK_RC_VEC, 1}, {RK_RC_VEC, 2},
                                    {RK_RC_VEC, 3}, {RK_RC_VEC, 4}, {RK_RC_VEC, 5},
                                    {RK_RC_VEC, 6}, {RK_RC_VEC, 7}, {RK_RC_VEC, -1}};
static const RkRegRef gpr_args[] = {{RK_RC_GPR, 0}, {RK_RC_GPR, 1}, {RK_RC_GPR, 2},
                                    {RK_RC_GPR, 3}, {RK_RC_GPR, 4}, {RK_RC_GPR, 5},
                                    {RK_RC_GPR, 6}, {RK_RC_GPR, 7}, {RK_RC_GPR, -1}};
static const char *const conds[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                    "mi", "pl", NULL};
static const char *const inverse[] = {"ne", "eq", "ge", "gt", "le", "lt", "hs", "hi", "ls", "lo",
                                      "pl", "mi", NULL};

static const RkInsnDesc insns[] = {
    {"b", "A64", 1, RK_I_BRANCH, "l"},
    {"ret", "A64", 1, RK_I_RET, ""},
    {"brk", "A64", 1, RK_I_TRAP, "i"},
    {"stp", "A64", 1, RK_I_STACK, "r r"},
    {"ldp", "A64", 1, RK_I_STACK, "w w"},
    {"bl", "A64", 0, RK_I_CALL, "l"},
    {NULL, NULL, 0, 0, NULL},
};

const RkTarget rk_target_arm64 = {
    .profile = "aarch64-neon",
    .arch = RK_ARCH_AARCH64,
    .index = 0,
    .regs = {{32, RANGE(8, 15), 0, vec_order, 128, vec_views, "mov"},
             {32, BIT(18) | BIT(29) | BIT(30) | BIT(31), RANGE(19, 28), gpr_order, 64, gpr_views,
              "mov"},
             {0, 0, 0, NULL, 0, NULL, NULL}},
    .args = {vec_args, gpr_args, NULL},
    .nargs = {8, 8, 0},
    .result = {0, 0, -1},
    .stack_pointer = 31,
    .conds = conds,
    .inverse = inverse,
    .jump = "b",
    .branch_fmt = "b.%s",
    .test_reg = {NULL, NULL}, /* cbnz/cbz branch on a register */
    .ret = "ret",
    .trap = "brk",
    .push = NULL,
    .pop = NULL,
    .zeroupper = NULL,
    .insns = insns,
};

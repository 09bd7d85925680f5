/* profile.h: the one table of target profiles and what each can compile.
 *
 * A profile's language facts (lanes, vector width, capabilities and the
 * reason for each capability's status) live here and nowhere else: the
 * checker asks rk_profile_cap() before accepting a construct, and
 * `rakec --print-capabilities` prints the same rows.  Machine facts
 * (registers, calling convention, instructions) live in the target
 * tables (target.h). */
#ifndef RK_PROFILE_H
#define RK_PROFILE_H

#include <stdbool.h>

typedef enum RkArch { RK_ARCH_X86, RK_ARCH_AARCH64, RK_ARCH_WASM, RK_ARCH_NONE } RkArch;

typedef enum RkCapStatus {
    RK_CAP_YES,     /* compiles */
    RK_CAP_PARTIAL, /* compiles a stated subset; the rest is rejected */
    RK_CAP_NO,      /* the instruction set cannot: rejected */
    RK_CAP_WIP,     /* work in progress: rejected */
} RkCapStatus;

typedef struct RkProfile {
    const char *name;
    RkArch arch;
    int lanes;              /* f32 lanes in one rack */
    int vector_bits;
    bool fma;               /* has a fused multiply-add instruction */
    bool contracts;         /* forms fma from + and * in fused regions */
    bool fp_exceptions;     /* inactive operands must be made benign */
    bool relaxed;           /* has the relaxed SIMD operations */
    bool usable;            /* false: the profile itself is rejected (WIP) */
    int unroll;             /* racks per iteration of a stack run's full-rack
                               loop, compaction aside (docs/performance.md) */
    const char *isa;        /* one-line description */
} RkProfile;

#define RK_FEATURES(X)                                                        \
    X(F32_ARITH, "f32.arith")                                                 \
    X(MASKS, "masks")                                                         \
    X(UNIFORM_IF, "uniform.if")                                               \
    X(CONVERT, "convert")                                                     \
    X(CROSS_LANE, "cross-lane")                                               \
    X(MASK_REDUCE, "mask.reduce")                                             \
    X(UNIFORM_ARITH, "uniform.arith")                                         \
    X(FMA, "fma")                                                             \
    X(TRANSCENDENTAL, "transcendental")                                       \
    X(TRIG, "trig")                                                           \
    X(INT32_RACKS, "int32.racks")                                             \
    X(U32_NEG_ABS, "u32.neg-abs")                                             \
    X(NARROW_RACKS, "narrow.racks")                                           \
    X(WIDE_RACKS, "wide.racks")                                               \
    X(U8_MUL, "u8.mul")                                                       \
    X(U8_NEG, "u8.neg")                                                       \
    X(U64_NEG_ABS, "u64.neg-abs")                                             \
    X(I64_MINMAX, "64bit.minmax")                                             \
    X(U64_COMPARE, "u64.compare")                                             \
    X(NARROW_REDUCE, "narrow.reduce")                                         \
    X(PACKED_CONVERT, "packed.convert")                                       \
    X(RELAXED, "relaxed")                                                     \
    X(BITMASK_ARITH, "bitmask.arith")                                         \
    X(STACK_RUN, "run.stack")                                                 \
    X(STACK_RUN_CROSS_LANE, "run.stack.cross-lane")                           \
    X(STACK_RUN_VIEWS, "run.stack.views")                                     \
    X(NARROW_REPLACE, "run.stack.narrow-replace")                             \
    X(COMPACT_BYTES, "run.stack.compact-8bit")                                \
    X(DOMAIN_64, "run.stack.domain-64")                                       \
    X(GENERAL_RUN, "run.general")                                             \
    X(GATHER, "gather")                                                       \
    X(SLOW_TIER, "slow")                                                      \
    X(LANE_INDEX, "lane-index")                                               \
    X(WHOLE_LANE_SHIFT, "whole-lane-shift")

typedef enum RkFeature {
#define X(k, s) RK_FEAT_##k,
    RK_FEATURES(X)
#undef X
    RK_FEATURE_COUNT
} RkFeature;

typedef struct RkCap {
    RkCapStatus status;
    const char *reason; /* why, for anything but a plain yes */
} RkCap;

int rk_profile_count(void);
const RkProfile *rk_profile_at(int i);
/* By name; "native" resolves to the strongest profile of this CPU. NULL if
 * the name is unknown. */
const RkProfile *rk_profile_find(const char *name);
const RkProfile *rk_profile_native(void);
/* The comma-separated list of profile names, for messages. */
const char *rk_profile_names(void);

const char *rk_feature_name(RkFeature f);
const char *rk_feature_summary(RkFeature f);
RkCap rk_profile_cap(const RkProfile *p, RkFeature f);
const char *rk_cap_status_name(RkCapStatus s);

#endif

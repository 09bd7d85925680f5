/* profile.c: the profile rows and the capability matrix.
 *
 * Columns of the matrix follow the order of `profiles`.  A cell is Y (yes)
 * or a status with its reason.  Every statement here comes from the
 * language pages (../shared/spec/02 and 03); docs/capabilities.md explains
 * the rows. */
#include "profile.h"

#include <string.h>

static const RkProfile profiles[] = {
    {"x86-sse2", RK_ARCH_X86, 4, 128, false, false,
     true, false, true, 2, "one 128-bit XMM register, SSE2"},
    {"x86-avx2", RK_ARCH_X86, 8, 256, true, true, true,
     false, true, 2, "one 256-bit YMM register, AVX2 and FMA3"},
    {"x86-avx512", RK_ARCH_X86, 16, 512, true, true,
     true, false, true, 2, "one 512-bit ZMM register, AVX-512F (masks in k1)"},
    {"aarch64-neon", RK_ARCH_AARCH64, 4, 128, true, true,
     true, false, true, 1, "one 128-bit vector register, AAPCS64"},
    {"wasm-simd128", RK_ARCH_WASM, 4, 128, false, false,
     false, false, true, 1, "one v128, as C with one intrinsic per instruction"},
    {"wasm-simd128-relaxed", RK_ARCH_WASM, 4, 128, false,
     false, false, true, true, 1, "wasm-simd128 and the relaxed SIMD operations"},
    {"scalar", RK_ARCH_NONE, 1, 32, false, false, false,
     false, false, 1, "no vector register (work in progress)"},
};

enum { NPROF = sizeof profiles / sizeof profiles[0] };

int rk_profile_count(void) { return NPROF; }
const RkProfile *rk_profile_at(int i) { return &profiles[i]; }

const RkProfile *rk_profile_native(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return &profiles[2];
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return &profiles[1];
    return &profiles[0];
#elif defined(__aarch64__)
    return &profiles[3];
#else
    return &profiles[4];
#endif
}

const RkProfile *rk_profile_find(const char *name)
{
    if (!strcmp(name, "native"))
        return rk_profile_native();
    for (int i = 0; i < NPROF; i++)
        if (!strcmp(profiles[i].name, name))
            return &profiles[i];
    return NULL;
}

const char *rk_profile_names(void)
{
    return "native, x86-sse2, x86-avx2, x86-avx512, aarch64-neon, "
           "wasm-simd128, wasm-simd128-relaxed, scalar";
}

/* --- features ------------------------------------------------------------- */

static const char *feature_names[] = {
#define X(k, s) s,
    RK_FEATURES(X)
#undef X
};

const char *rk_feature_name(RkFeature f) { return feature_names[f]; }

const char *rk_cap_status_name(RkCapStatus s)
{
    static const char *n[] = {"yes", "partial", "no", "WIP"};
    return n[s];
}

#define Y {RK_CAP_YES, NULL}
#define P(r) {RK_CAP_PARTIAL, r}
#define NO(r) {RK_CAP_NO, r}
#define WIP(r) {RK_CAP_WIP, r}
#define SCALAR WIP("the scalar profile is work in progress")
/* the same cell on the four physical profiles */
#define PHYS(c) c, c, c, c
#define WASM(c) c, c

typedef struct Row {
    const char *summary;
    RkCap cell[NPROF];
} Row;

#define NO_FMA_WASM                                                           \
    NO("strict WebAssembly SIMD has no fused multiply-add instruction")
#define NARROW_PHYS WIP("8-, 16- and 64-bit racks compile only on WebAssembly")
#define STACK_CROSS                                                           \
    WIP("reductions, scans, extraction, insertion and shuffles in stack "     \
        "runs are work in progress")

static const Row rows[RK_FEATURE_COUNT] = {
    [RK_FEAT_F32_ARITH] = {"+ - * /, negation, sqrt, abs, min, max, floor, "
                           "ceil, trunc, nearest on f32s",
                           {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_MASKS] = {"comparisons, and/or/not on masks, select, if on a mask",
                       {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_UNIFORM_IF] = {"if on a uniform comparison or Boolean uniform",
                            {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_CONVERT] = {"to_i32, to_u32 (nearest-even, saturating), to_f32, "
                         "bitcast",
                         {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_CROSS_LANE] = {"sum, product, minimum, maximum, the scans, "
                            "extract, insert, shuffle",
                            {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_MASK_REDUCE] = {"all, any, bitmask of f32s, i32s and u32s masks",
                             {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_UNIFORM_ARITH] = {"arithmetic on uniform f32, i32 and u32 results "
                               "in register kernels",
                               {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_FMA] = {"fma(a, b, c): a * b + c with one rounding",
                     {NO("SSE2 has no fused multiply-add instruction"), Y, Y, Y,
                      NO_FMA_WASM, NO_FMA_WASM, SCALAR}},
    [RK_FEAT_TRANSCENDENTAL] = {"exp, log, log2, tanh (Cephes binary32)",
                                {PHYS(WIP("exp, log, log2 and tanh have no "
                                          "native lowering yet")),
                                 WASM(Y), SCALAR}},
    [RK_FEAT_TRIG] = {"sin, cos, tan, pow, atan2",
                      {PHYS(NO("sin, cos, tan, pow and atan2 type-check but "
                               "have no lowering")),
                       WASM(NO("sin, cos, tan, pow and atan2 type-check but "
                               "have no lowering")),
                       SCALAR}},
    [RK_FEAT_INT32_RACKS] = {"i32s and u32s: wrapping + - *, min, max, "
                             "comparisons, bit operations, shifts",
                             {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_U32_NEG_ABS] = {"negation and abs of u32s racks",
                             {PHYS(WIP("negation and abs of u32s racks are "
                                       "work in progress")),
                              WASM(WIP("negation and abs of u32s racks are "
                                       "work in progress")),
                              SCALAR}},
    [RK_FEAT_NARROW_RACKS] = {"u8s and i16s racks",
                              {PHYS(NARROW_PHYS), WASM(Y), SCALAR}},
    [RK_FEAT_WIDE_RACKS] = {"i64s and u64s racks",
                            {PHYS(NARROW_PHYS), WASM(Y), SCALAR}},
    [RK_FEAT_U8_MUL] = {"multiplication of u8s racks",
                        {PHYS(NARROW_PHYS),
                         WASM(WIP("u8s multiplication is work in progress")),
                         SCALAR}},
    [RK_FEAT_U8_NEG] = {"negation of u8s racks",
                        {PHYS(NARROW_PHYS),
                         WASM(WIP("u8s negation is work in progress")), SCALAR}},
    [RK_FEAT_U64_NEG_ABS] = {"negation and abs of u64s racks",
                             {PHYS(NARROW_PHYS),
                              WASM(WIP("negation and abs of u64s racks are "
                                       "work in progress")),
                              SCALAR}},
    [RK_FEAT_I64_MINMAX] = {"min and max of i64s and u64s racks",
                            {PHYS(NARROW_PHYS),
                             WASM(WIP("min and max of 64-bit racks are work "
                                      "in progress")),
                             SCALAR}},
    [RK_FEAT_U64_COMPARE] = {"comparisons of u64s racks",
                             {PHYS(NARROW_PHYS),
                              WASM(WIP("comparisons of u64s racks are work in "
                                       "progress")),
                              SCALAR}},
    [RK_FEAT_NARROW_REDUCE] = {"reductions and scans of 8-, 16- and 64-bit "
                               "racks",
                               {PHYS(NARROW_PHYS),
                                WASM(WIP("8-, 16- and 64-bit reductions and "
                                         "scans are work in progress")),
                                SCALAR}},
    [RK_FEAT_PACKED_CONVERT] = {"dot, narrow, widen_low, widen_high",
                                {PHYS(NARROW_PHYS), WASM(Y), SCALAR}},
    [RK_FEAT_RELAXED] = {"relaxed_madd, relaxed_nmadd, relaxed_min, "
                         "relaxed_max",
                         {PHYS(NO("the relaxed SIMD operations exist only on "
                                  "wasm-simd128-relaxed")),
                          NO("the relaxed SIMD operations exist only on "
                             "wasm-simd128-relaxed"),
                          Y, SCALAR}},
    [RK_FEAT_BITMASK_ARITH] = {"scalar arithmetic on a bitmask result",
                               {PHYS(P("wrapping +, - and * only; further "
                                       "scalar operations are work in "
                                       "progress")),
                                WASM(P("wrapping +, - and * only; further "
                                       "scalar operations are work in "
                                       "progress")),
                                SCALAR}},
    [RK_FEAT_STACK_RUN] = {"stack runs over f32, i32 and u32 columns, "
                           "widened compact columns",
                           {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_STACK_RUN_CROSS_LANE] = {"reductions, scans, extract, insert, "
                                      "shuffle, all/any/bitmask in stack runs",
                                      {PHYS(STACK_CROSS), WASM(STACK_CROSS),
                                       SCALAR}},
    [RK_FEAT_STACK_RUN_VIEWS] = {"views and gathers in stack runs",
                                 {PHYS(WIP("views in native stack runs are "
                                           "work in progress")),
                                  WASM(Y), SCALAR}},
    [RK_FEAT_NARROW_REPLACE] = {"replacing a byte or 16-bit field in a stack "
                                "run",
                                {PHYS(WIP("replacing a byte or 16-bit field is "
                                          "work in progress")),
                                 WASM(WIP("replacing a byte or 16-bit field is "
                                          "work in progress")),
                                 SCALAR}},
    [RK_FEAT_COMPACT_BYTES] = {"compacting a run whose widest column has 8 "
                               "bits",
                               {PHYS(WIP("native targets implement 32-bit "
                                         "domains only")),
                                WASM(WIP("compacting a run whose widest column "
                                         "has 8 bits is work in progress")),
                                SCALAR}},
    [RK_FEAT_DOMAIN_64] = {"stack runs in 8-, 16- and 64-bit domains",
                           {PHYS(WIP("native targets implement 32-bit domains "
                                     "only")),
                            WASM(Y), SCALAR}},
    [RK_FEAT_GENERAL_RUN] = {"general runs: views, counted loops, gathers",
                             {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_GATHER] = {"gathers view[indices] by an i32s or u32s rack",
                        {PHYS(WIP("gathers are work in progress on native "
                                  "targets")),
                         WASM(Y), SCALAR}},
    [RK_FEAT_SLOW_TIER] = {"slow functions and whole programs",
                           {PHYS(Y), WASM(Y), SCALAR}},
    [RK_FEAT_LANE_INDEX] = {"@ (the lane index), lanes, zip_low",
                            {PHYS(WIP("parse only: no implementation")),
                             WASM(WIP("parse only: no implementation")),
                             SCALAR}},
    [RK_FEAT_WHOLE_LANE_SHIFT] = {"shift_left, shift_right, rotate_left, "
                                  "rotate_right (whole lanes)",
                                  {PHYS(WIP("reserved: moving whole lanes is "
                                            "unavailable")),
                                   WASM(WIP("reserved: moving whole lanes is "
                                            "unavailable")),
                                   SCALAR}},
};

const char *rk_feature_summary(RkFeature f) { return rows[f].summary; }

RkCap rk_profile_cap(const RkProfile *p, RkFeature f)
{
    return rows[f].cell[p - profiles];
}

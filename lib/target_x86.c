/* target_x86.c: the x86-64 targets (x86-sse2, x86-avx2, x86-avx512).
 *
 * Register numbers are the hardware encodings.  The vector file is xmm,
 * ymm or zmm by view width; SSE2 keeps xmm15 for instruction temporaries,
 * AVX-512 has 32 registers.  The general file is rax..r15 (eax..r15d at
 * 32 bits): rsp and rbp are reserved, System V's callee-saved rbx and
 * r12-r15 come last in the allocation order, so a function saves one only
 * when it needs more general registers than the caller-saved ones.  The
 * 8- and 16-bit views are named too, so the verifier knows a write to cl
 * or r9w for what it is.  The mask file exists on AVX-512 only: k1-k7 (k0 can't be a write mask).
 *
 * The instruction table lists every mnemonic an x86 selector may emit,
 * in AT&T spelling (as Capstone prints it), and a few SSE4.1/SSSE3 ones
 * no profile may use, so the verifier can name their extension.  The
 * `profiles` column is a set: S x86-sse2, A x86-avx2, Z x86-avx512.
 * RK_I_MASKABLE marks the lane-wise rows AVX-512 may write under a
 * merging mask (maskfuse.c); not the conversions: Debian's Capstone
 * doesn't decode their masked EVEX forms (vcvtdq2ps %zmm1, %zmm3{%k1}),
 * and rake-verify reads every instruction with it. */
#include <stddef.h>
#include <string.h>

#include "target.h"

#define S 1u
#define A 2u
#define Z 4u
#define ALL (S | A | Z)
#define VEX (A | Z)

static const char *const xmm[] = {
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
    "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
    "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",
    "xmm31"};
static const char *const ymm[] = {
    "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9", "ymm10",
    "ymm11", "ymm12", "ymm13", "ymm14", "ymm15", "ymm16", "ymm17", "ymm18", "ymm19", "ymm20",
    "ymm21", "ymm22", "ymm23", "ymm24", "ymm25", "ymm26", "ymm27", "ymm28", "ymm29", "ymm30",
    "ymm31"};
static const char *const zmm[] = {
    "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9", "zmm10",
    "zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "zmm16", "zmm17", "zmm18", "zmm19", "zmm20",
    "zmm21", "zmm22", "zmm23", "zmm24", "zmm25", "zmm26", "zmm27", "zmm28", "zmm29", "zmm30",
    "zmm31"};
static const char *const r64[] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                  "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const r32[] = {"eax", "ecx", "edx",  "ebx",  "esp",  "ebp",  "esi",  "edi",
                                  "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};
static const char *const r16[] = {"ax",  "cx",  "dx",   "bx",   "sp",   "bp",   "si",   "di",
                                  "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w"};
static const char *const r8[] = {"al",  "cl",  "dl",   "bl",   "spl",  "bpl",  "sil",  "dil",
                                 "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b"};
static const char *const kreg[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};

static const RkRegView vec_views[] = {{128, xmm}, {256, ymm}, {512, zmm}, {0, NULL}};
static const RkRegView gpr_views[] = {{8, r8}, {16, r16}, {32, r32}, {64, r64}, {0, NULL}};
static const RkRegView mask_views[] = {{16, kreg}, {0, NULL}};

static const int8_t vec_order[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                   11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                   22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1};
/* caller-saved first: rax rcx rdx rsi rdi r8-r11, then rbx r12-r15 */
static const int8_t gpr_order[] = {0, 1, 2, 6, 7, 8, 9, 10, 11, 3, 12, 13, 14, 15, -1};
static const int8_t mask_order[] = {1, 2, 3, 4, 5, 6, 7, -1};

#define BIT(n) (1ull << (n))
#define GPR_FILE                                                                          \
    {16, BIT(4) | BIT(5), BIT(3) | BIT(5) | BIT(12) | BIT(13) | BIT(14) | BIT(15), gpr_order, \
     64, gpr_views, "movq"}

static const RkRegRef vec_args[] = {{RK_RC_VEC, 0}, {RK_RC_VEC, 1}, {RK_RC_VEC, 2},
                                    {RK_RC_VEC, 3}, {RK_RC_VEC, 4}, {RK_RC_VEC, 5},
                                    {RK_RC_VEC, 6}, {RK_RC_VEC, 7}, {RK_RC_VEC, -1}};
static const RkRegRef gpr_args[] = {{RK_RC_GPR, 7}, {RK_RC_GPR, 6}, {RK_RC_GPR, 2},
                                    {RK_RC_GPR, 1}, {RK_RC_GPR, 8}, {RK_RC_GPR, 9},
                                    {RK_RC_GPR, -1}};
static const char *const conds[] = {"e", "ne", "l", "le", "g", "ge", "b", "be", "a", "ae",
                                    "s", "ns", NULL};
static const char *const inverse[] = {"ne", "e", "ge", "g", "le", "l", "ae", "a", "be", "b",
                                      "ns", "s", NULL};

static const RkInsnDesc insns[] = {
    /* SSE2, two-operand */
    {"movaps", "SSE", S, RK_I_COPY | RK_I_MEMSRC, "w r"},
    {"movups", "SSE", S, RK_I_COPY | RK_I_FAULT, "w r"},
    {"movd", "SSE2", S, 0, "w r"},
    {"addps", "SSE", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"subps", "SSE", S, RK_I_MEMSRC, "x r"},
    {"mulps", "SSE", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"divps", "SSE", S, RK_I_MEMSRC, "x r"},
    {"sqrtps", "SSE", S, 0, "w r"},
    {"minps", "SSE", S, RK_I_MEMSRC, "x r"},
    {"maxps", "SSE", S, RK_I_MEMSRC, "x r"},
    {"andps", "SSE", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"andnps", "SSE", S, RK_I_MEMSRC, "x r"},
    {"orps", "SSE", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"xorps", "SSE", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"cmpps", "SSE", S, RK_I_MEMSRC, "x r i"},
    {"paddd", "SSE2", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"psubd", "SSE2", S, RK_I_MEMSRC, "x r"},
    {"pmuludq", "SSE2", S, 0, "x r"},
    {"pshufd", "SSE2", S, RK_I_CROSS, "w r i"},
    {"punpckldq", "SSE2", S, RK_I_CROSS, "x r"},
    {"pcmpeqd", "SSE2", S, RK_I_MEMSRC | RK_I_COMMUTE, "x r"},
    {"pcmpgtd", "SSE2", S, RK_I_MEMSRC, "x r"},
    {"pslld", "SSE2", S, 0, "x i|x r"},
    {"psrld", "SSE2", S, 0, "x i|x r"},
    {"psrad", "SSE2", S, 0, "x i|x r"},
    {"psllq", "SSE2", S, 0, "x i|x r"},
    {"psrlq", "SSE2", S, 0, "x i|x r"},
    {"cvtdq2ps", "SSE2", S, 0, "w r"},
    {"cvtps2dq", "SSE2", S, 0, "w r"},
    {"cvttps2dq", "SSE2", S, 0, "w r"},
    {"shufps", "SSE", S, RK_I_CROSS, "x r i"},
    {"movmskps", "SSE", S, RK_I_CROSS, "w r"},
    /* stack runs: lane-sized transfers, widening and narrowing (SSE2) */
    {"movss", "SSE", S, RK_I_FAULT, "w r"},
    {"movsd", "SSE2", S, RK_I_FAULT, "w r"},
    {"movlhps", "SSE", S, RK_I_CROSS, "x r"},
    {"punpcklbw", "SSE2", S, RK_I_CROSS, "x r"},
    {"punpcklwd", "SSE2", S, RK_I_CROSS, "x r"},
    {"packssdw", "SSE2", S, RK_I_CROSS, "x r"},
    {"packsswb", "SSE2", S, RK_I_CROSS, "x r"},
    {"pinsrw", "SSE2", S, RK_I_FAULT, "x r i"},
    {"pextrw", "SSE2", S, RK_I_CROSS, "w r i"},
    /* newer than SSE2: named so an SSE2 object containing one is told why */
    {"pminsd", "SSE4.1", 0, 0, "x r"},
    {"pmaxsd", "SSE4.1", 0, 0, "x r"},
    {"pminud", "SSE4.1", 0, 0, "x r"},
    {"pmaxud", "SSE4.1", 0, 0, "x r"},
    {"pabsd", "SSSE3", 0, 0, "w r"},
    {"pmulld", "SSE4.1", 0, 0, "x r"},
    {"blendvps", "SSE4.1", 0, 0, "x r r"},
    {"blendps", "SSE4.1", 0, 0, "x r i"},
    {"roundps", "SSE4.1", 0, 0, "w r i"},
    {"pshufb", "SSSE3", 0, 0, "x r"},
    {"ptest", "SSE4.1", 0, 0, "r r"},
    {"pblendvb", "SSE4.1", 0, 0, "x r r"},
    {"insertps", "SSE4.1", 0, 0, "x r i"},
    {"extractps", "SSE4.1", 0, 0, "w r i"},
    {"pextrd", "SSE4.1", 0, 0, "w r i"},
    {"pinsrd", "SSE4.1", 0, 0, "x r i"},
    /* AVX and AVX2 (VEX), and their AVX-512 (EVEX) forms */
    {"vmovaps", "AVX", VEX, RK_I_COPY | RK_I_MEMSRC, "w r"},
    {"vmovups", "AVX", VEX, RK_I_COPY | RK_I_FAULT, "w r"},
    {"vmovd", "AVX", VEX, 0, "w r"},
    {"vbroadcastss", "AVX", VEX, RK_I_CROSS, "w r"},
    {"vpbroadcastd", "AVX2", VEX, RK_I_CROSS, "w r"},
    {"vaddps", "AVX", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vsubps", "AVX", VEX, RK_I_MEMSRC | RK_I_MASKABLE, "w r r"},
    {"vmulps", "AVX", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vdivps", "AVX", VEX, RK_I_MEMSRC | RK_I_MASKABLE, "w r r"},
    {"vsqrtps", "AVX", VEX, RK_I_MASKABLE, "w r"},
    {"vminps", "AVX", VEX, RK_I_MEMSRC | RK_I_MASKABLE, "w r r"},
    {"vmaxps", "AVX", VEX, RK_I_MEMSRC | RK_I_MASKABLE, "w r r"},
    {"vandps", "AVX", A, RK_I_MEMSRC | RK_I_COMMUTE, "w r r"},
    {"vandnps", "AVX", A, RK_I_MEMSRC, "w r r"},
    {"vorps", "AVX", A, RK_I_MEMSRC | RK_I_COMMUTE, "w r r"},
    {"vxorps", "AVX", A, RK_I_MEMSRC | RK_I_COMMUTE, "w r r"},
    {"vcmpps", "AVX", VEX, RK_I_MEMSRC | RK_I_PREDICATE, "w r r i"},
    {"vpaddd", "AVX2", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpsubd", "AVX2", VEX, RK_I_MEMSRC | RK_I_MASKABLE, "w r r"},
    {"vpmulld", "AVX2", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpminsd", "AVX2", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpmaxsd", "AVX2", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpminud", "AVX2", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpmaxud", "AVX2", VEX, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpabsd", "AVX2", VEX, RK_I_MASKABLE, "w r"},
    {"vpcmpeqd", "AVX2", A, RK_I_MEMSRC | RK_I_COMMUTE, "w r r"},
    {"vpcmpgtd", "AVX2", A, RK_I_MEMSRC, "w r r"},
    {"vpslld", "AVX2", VEX, RK_I_MASKABLE, "w r i|w r r"},
    {"vpsrld", "AVX2", VEX, RK_I_MASKABLE, "w r i|w r r"},
    {"vpsrad", "AVX2", VEX, RK_I_MASKABLE, "w r i|w r r"},
    {"vpsllq", "AVX2", VEX, 0, "w r i|w r r"},
    {"vpsrlq", "AVX2", VEX, 0, "w r i|w r r"},
    {"vcvtdq2ps", "AVX", VEX, 0, "w r"},
    {"vcvtps2dq", "AVX", VEX, 0, "w r"},
    {"vcvttps2dq", "AVX", Z, 0, "w r"},
    {"vroundps", "AVX", A, 0, "w r i"},
    {"vblendvps", "AVX", A, RK_I_MEMSRC, "w r r r"},
    {"vblendps", "AVX", A, RK_I_CROSS, "w r r i"},
    {"vperm2f128", "AVX", A, RK_I_CROSS, "w r r i"},
    {"vpermilps", "AVX", VEX, RK_I_CROSS, "w r i"},
    {"vpermps", "AVX2", VEX, RK_I_CROSS | RK_I_MEMSRC, "w r r"},
    {"vpshufd", "AVX2", VEX, RK_I_CROSS, "w r i"},
    {"vfmadd231ps", "FMA", VEX, RK_I_FMA | RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "x r r"},
    {"vmaskmovps", "AVX", A, RK_I_FAULT, "w r r"},
    {"vpmaskmovd", "AVX2", A, RK_I_FAULT, "w r r"},
    {"vmovmskps", "AVX", A, RK_I_CROSS, "w r"},
    /* stack runs: packed extension of compact columns, narrowing, the
     * AVX2 compaction permutation and lane-sized transfers */
    {"vpmovzxbd", "AVX2", VEX, RK_I_FAULT, "w r"},
    {"vpmovsxbd", "AVX2", VEX, RK_I_FAULT, "w r"},
    {"vpmovzxwd", "AVX2", VEX, RK_I_FAULT, "w r"},
    {"vpmovsxwd", "AVX2", VEX, RK_I_FAULT, "w r"},
    {"vpshufb", "AVX2", A, RK_I_CROSS | RK_I_MEMSRC, "w r r"},
    {"vpermd", "AVX2", VEX, RK_I_CROSS | RK_I_MEMSRC, "w r r"},
    {"vmovq", "AVX", A, RK_I_FAULT, "w r"},
    {"vpinsrb", "AVX", A, RK_I_FAULT, "w r r i"},
    {"vpinsrw", "AVX", A, RK_I_FAULT, "w r r i"},
    {"vpextrb", "AVX", A, RK_I_CROSS | RK_I_FAULT, "w r i"},
    {"vpextrw", "AVX", A, RK_I_CROSS | RK_I_FAULT, "w r i"},
    {"vzeroupper", "AVX", VEX, 0, ""},
    /* AVX-512F only */
    {"vpandd", "AVX-512F", Z, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpandnd", "AVX-512F", Z, RK_I_MEMSRC | RK_I_MASKABLE, "w r r"},
    {"vpord", "AVX-512F", Z, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpxord", "AVX-512F", Z, RK_I_MEMSRC | RK_I_COMMUTE | RK_I_MASKABLE, "w r r"},
    {"vpcmpd", "AVX-512F", Z, RK_I_MEMSRC | RK_I_KMASKABLE | RK_I_PREDICATE, "w r r i"},
    {"vpcmpud", "AVX-512F", Z, RK_I_MEMSRC | RK_I_KMASKABLE | RK_I_PREDICATE, "w r r i"},
    {"vptestmd", "AVX-512F", Z, RK_I_KMASKABLE, "w r r"},
    {"vpblendmd", "AVX-512F", Z, RK_I_MEMSRC, "w r r"},
    {"valignd", "AVX-512F", Z, RK_I_CROSS, "w r r i"},
    {"kmovw", "AVX-512F", Z, RK_I_CROSS, "w r"},
    {"kortestw", "AVX-512F", Z, RK_I_FLAGS, "r r"},
    {"kandw", "AVX-512F", Z, 0, "w r r"},
    {"korw", "AVX-512F", Z, 0, "w r r"},
    {"vcvtudq2ps", "AVX-512F", Z, 0, "w r"},
    {"vcompressps", "AVX-512F", Z, RK_I_CROSS | RK_I_FAULT, "w r"},
    {"vpmovdb", "AVX-512F", Z, RK_I_CROSS | RK_I_FAULT, "w r"},
    {"vpmovdw", "AVX-512F", Z, RK_I_CROSS | RK_I_FAULT, "w r"},
    /* general registers, control flow and the stack, every profile */
    {"movl", "x86-64", ALL, RK_I_COPY, "w r"},
    {"movslq", "x86-64", ALL, 0, "w r"},
    {"movq", "x86-64", ALL, RK_I_COPY, "w r"},
    {"leaq", "x86-64", ALL, 0, "w r"},
    {"addl", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"addq", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"subl", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"subq", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"andl", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"andq", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"orl", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"orq", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"xorl", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"xorq", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"shlq", "x86-64", ALL, RK_I_FLAGS, "x i"},
    {"shrq", "x86-64", ALL, RK_I_FLAGS, "x i"},
    {"imull", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"imulq", "x86-64", ALL, RK_I_FLAGS, "x r"},
    {"cmpl", "x86-64", ALL, RK_I_FLAGS, "r r"},
    {"cmpq", "x86-64", ALL, RK_I_FLAGS, "r r"},
    {"testl", "x86-64", ALL, RK_I_FLAGS, "r r"},
    {"testq", "x86-64", ALL, RK_I_FLAGS, "r r"},
    /* POPCNT is its own CPUID bit; every AVX2 and AVX-512 processor has it
     * (x86-64-v3), so those profiles count mask bits with it */
    {"popcntl", "POPCNT", VEX, RK_I_FLAGS, "w r"},
    {"shrl", "x86-64", ALL, RK_I_FLAGS, "x i"},
    {"shll", "x86-64", ALL, RK_I_FLAGS, "x i"},
    {"movzbl", "x86-64", ALL, RK_I_FAULT, "w r"},
    {"movsbl", "x86-64", ALL, RK_I_FAULT, "w r"},
    {"movzwl", "x86-64", ALL, RK_I_FAULT, "w r"},
    {"movswl", "x86-64", ALL, RK_I_FAULT, "w r"},
    {"movb", "x86-64", ALL, RK_I_FAULT, "w r"},
    {"movw", "x86-64", ALL, RK_I_FAULT, "w r"},
    {"cmovlq", "x86-64", ALL, 0, "x r"},
    {"cmovgq", "x86-64", ALL, 0, "x r"},
    {"cmovleq", "x86-64", ALL, 0, "x r"},
    {"cmovgeq", "x86-64", ALL, 0, "x r"},
    {"cmoveq", "x86-64", ALL, 0, "x r"},
    {"cmovneq", "x86-64", ALL, 0, "x r"},
    {"cmovbq", "x86-64", ALL, 0, "x r"},
    {"cmovaq", "x86-64", ALL, 0, "x r"},
    {"cmovbeq", "x86-64", ALL, 0, "x r"},
    {"cmovaeq", "x86-64", ALL, 0, "x r"},
    {"jmp", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"je", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jne", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jl", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jle", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jg", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jge", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jb", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jbe", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"ja", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jae", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"js", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"jns", "x86-64", ALL, RK_I_BRANCH, "l"},
    {"ret", "x86-64", ALL, RK_I_RET, ""},
    {"ud2", "x86-64", ALL, RK_I_TRAP, ""},
    {"pushq", "x86-64", ALL, RK_I_STACK, "r"},
    {"popq", "x86-64", ALL, RK_I_STACK, "w"},
    {"call.slow", "x86-64", ALL, RK_I_SLOW, "w i i *|i i *"},
    {"callq", "x86-64", 0, RK_I_CALL, "l"},
    {"call", "x86-64", 0, RK_I_CALL, "l"},
    {NULL, NULL, 0, 0, NULL},
};

/* A slow block's trampoline (target.h): rbp keeps the caller's stack
 * pointer, the flags are pushed, and the save area is 64-byte aligned.  A
 * failed check's helper passes its site and kind in the second and third
 * argument registers and jumps to the reporter (rdi keeps the slots). */
#define SLOW_CALL(vec)                                                                    \
    {"call", {vec, "movq", "kmovw"},                                                      \
     "\tpushq\t%%rbp\n\tmovq\t%%rsp, %%rbp\n\tpushfq\n\tandq\t$-64, %%rsp\n\tsubq\t$%d, %%rsp\n",  \
     "\tleaq\t-8(%rbp), %rsp\n\tpopfq\n\tpopq\t%rbp\n\tret\n", "movq", "movl", 0, "leaq", \
     "\tmovl\t$%d, %%esi\n\tmovl\t$%d, %%edx\n\tjmp\t%s\n"}
static const RkSlowCall slow_sse = SLOW_CALL("movups");
static const RkSlowCall slow_avx = SLOW_CALL("vmovups");

/* A comparison's predicate with its sources swapped.  vcmpps: AVX's 32
 * predicates, LT and GT, LE and GE, NLT and NGT, NLE and NGE trade
 * places (each in its ordered or unordered, signalling or quiet form);
 * the others are symmetric.  vpcmpd and vpcmpud: AVX-512's 8 integer
 * predicates (EQ LT LE FALSE NE NLT NLE TRUE), LT and NLE, LE and NLT
 * trade places. */
static int swap_predicate(const RkInsnDesc *d, int64_t p)
{
    static const int8_t swap[32] = {0,  14, 13, 3,  4,  10, 9,  7,  8,  6,  5,
                                    11, 12, 2,  1,  15, 16, 30, 29, 19, 20, 26,
                                    25, 23, 24, 22, 21, 27, 28, 18, 17, 31};
    static const int8_t iswap[8] = {0, 6, 5, 3, 4, 2, 1, 7};
    if (!strncmp(d->mnem, "vpcmp", 5))
        return p >= 0 && p < 8 ? iswap[p] : -1;
    return p >= 0 && p < 32 ? swap[p] : -1;
}

/* Loop heads start on a 32-byte boundary: the fetch block of AMD's Zen
 * cores and half an Intel uop-cache line.  Unaligned, count's 7-instruction
 * loop of two racks took two cycles an iteration on this machine's Zen 4
 * instead of one (bench/: 28 -> 41 G records/s). */
#define LOOP_ALIGN 5

#define X86_COMMON                                                                    \
    .arch = RK_ARCH_X86, .args = {vec_args, gpr_args, NULL}, .nargs = {8, 6, 0},      \
    .result = {0, 0, -1}, .stack_pointer = 4, .stack_args = 8, .push_bytes = 8,                \
    .stack_load = {"movl", "movq"}, .conds = conds, .inverse = inverse, .jump = "jmp",         \
    .branch_fmt = "j%s", .test_reg = {"testl", "testq"}, .test_conds = {"ne", "e"}, .ret = "ret", .trap = "ud2", \
    .push = "pushq", .pop = "popq", .insns = insns, .swap_predicate = swap_predicate,  \
    .loop_align = LOOP_ALIGN

const RkTarget rk_target_x86[3] = {
    {.profile = "x86-sse2",
     .index = 0,
     .regs = {{16, BIT(15), 0, vec_order, 128, vec_views, "movaps"}, GPR_FILE,
              {0, 0, 0, mask_order, 16, mask_views, NULL}},
     .zeroupper = NULL,
     .slow = &slow_sse,
     X86_COMMON},
    {.profile = "x86-avx2",
     .index = 1,
     .regs = {{16, 0, 0, vec_order, 256, vec_views, "vmovaps"}, GPR_FILE,
              {0, 0, 0, mask_order, 16, mask_views, NULL}},
     .zeroupper = "vzeroupper",
     .slow = &slow_avx,
     X86_COMMON},
    {.profile = "x86-avx512",
     .index = 2,
     .regs = {{32, 0, 0, vec_order, 512, vec_views, "vmovaps"}, GPR_FILE,
              {8, BIT(0), 0, mask_order, 16, mask_views, "kmovw"}},
     /* rax rcx rdx rbx rbp rsi rdi: no REX.X, so r8-r15 may be the base */
     .evex_index = BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(5) | BIT(6) | BIT(7),
     /* zmm0-15: vpaddd (%rcx,%rsi,4), %zmm16, %zmm1 decodes as (%rcx,%xmm6,4) */
     .evex_nds = 0xffffull,
     .zeroupper = "vzeroupper",
     .slow = &slow_avx,
     X86_COMMON},
};

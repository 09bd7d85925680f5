/* bench/probes/count_mix.c: what bounds the `count` kernel in cache.
 *
 * bench/run puts `count` (four racks of keys > threshold a step, each
 * comparison's lanes counted into its own u32 accumulator) at about 79 %
 * of the port bound on AVX2 and 65 % on AVX-512 at 4 Ki keys, while the
 * bound is the loads alone: four vector loads a step, two a cycle at 256
 * bits and one at 512 bits on Zen 4.  This probe times the loop Rake
 * writes, instruction for instruction, next to the same loop with parts
 * taken out or spelled another way, on 4 Ki floats in L1, and prints
 * cycles per step (the core clock measured with a chain of dependent
 * adds, as bench.c does).  If "loads" runs at the bound and "rake" doesn't,
 * the mix of comparisons and integer adds is what the core can't issue
 * faster, and no spelling of the count that keeps its meaning is faster
 * either (docs/performance.md has the figures).
 *
 * Every loop is inline assembly, so the compiler can't change what is
 * measured.  The AVX-512 rows run only where the CPU has avx512f and
 * avx512dq; `--quick` takes a few repetitions (tests/63 runs it so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"

#define N 4096

/* One loop over k[0..n) by STEP floats; BODY addresses k + 4 * i. */
#define LOOP(name, step, body, ...) LOOP_FOR(, name, step, body, __VA_ARGS__)
#define LOOP_FOR(attr, name, step, body, ...)                                          \
    attr static void name(const float *k, long n)                                      \
    {                                                                                  \
        long i = 0;                                                                    \
        __asm__ volatile(".p2align 5\n1:\n" body "addq $" #step ", %0\n"               \
                         "cmpq %1, %0\n jl 1b\n"                                       \
                         : "+r"(i)                                                     \
                         : "r"(n), "r"(k)                                              \
                         : "memory", __VA_ARGS__);                                     \
    }

/* AVX2: Rake's loop (tests/63 checks rakec still writes it so: four
 * compares with a load operand, four vpsubd), then parts of it. */
#define CMP(o, acc) "vcmpps $17, " #o "(%2,%0,4), %%ymm0, %%ymm5\n vpsubd %%ymm5, " acc ", " acc "\n"
LOOP(avx2_rake, 32, CMP(0, "%%ymm1") CMP(32, "%%ymm2") CMP(64, "%%ymm3") CMP(96, "%%ymm4"),
     "xmm1", "xmm2", "xmm3", "xmm4", "xmm5")
#define LD(o, r) "vmovups " #o "(%2,%0,4), " r "\n"
LOOP(avx2_loads, 32, LD(0, "%%ymm5") LD(32, "%%ymm6") LD(64, "%%ymm7") LD(96, "%%ymm8"),
     "xmm5", "xmm6", "xmm7", "xmm8")
#define CO(o, r) "vcmpps $17, " #o "(%2,%0,4), %%ymm0, " r "\n"
LOOP(avx2_compares, 32, CO(0, "%%ymm5") CO(32, "%%ymm6") CO(64, "%%ymm7") CO(96, "%%ymm8"),
     "xmm5", "xmm6", "xmm7", "xmm8")
#define SPLIT(o, r, acc) LD(o, r) "vcmpps $17, " r ", %%ymm0, " r "\n vpsubd " r ", " acc ", " acc "\n"
LOOP(avx2_split_loads, 32,
     SPLIT(0, "%%ymm5", "%%ymm1") SPLIT(32, "%%ymm6", "%%ymm2") SPLIT(64, "%%ymm7", "%%ymm3")
         SPLIT(96, "%%ymm8", "%%ymm4"),
     "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8")
#define CG(o, r) "vcmpps $17, " #o "(%2,%0,4), %%ymm0, " r "\n"
#define SG(r, acc) "vpsubd " r ", " acc ", " acc "\n"
LOOP(avx2_grouped, 32,
     CG(0, "%%ymm5") CG(32, "%%ymm6") CG(64, "%%ymm7") CG(96, "%%ymm8") SG("%%ymm5", "%%ymm1")
         SG("%%ymm6", "%%ymm2") SG("%%ymm7", "%%ymm3") SG("%%ymm8", "%%ymm4"),
     "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8")
#define OR(o, acc) "vcmpps $17, " #o "(%2,%0,4), %%ymm0, %%ymm5\n vorps %%ymm5, " acc ", " acc "\n"
LOOP(avx2_orps, 32, OR(0, "%%ymm1") OR(32, "%%ymm2") OR(64, "%%ymm3") OR(96, "%%ymm4"),
     "xmm1", "xmm2", "xmm3", "xmm4", "xmm5")
/* Not the kernel's meaning (an integer comparison of float bits): how
 * the same loop runs when its comparison is an integer one. */
#define ICMP(o, acc) "vpcmpgtd " #o "(%2,%0,4), %%ymm0, %%ymm5\n vpsubd %%ymm5, " acc ", " acc "\n"
LOOP(avx2_int_compare, 32, ICMP(0, "%%ymm1") ICMP(32, "%%ymm2") ICMP(64, "%%ymm3") ICMP(96, "%%ymm4"),
     "xmm1", "xmm2", "xmm3", "xmm4", "xmm5")

/* AVX-512: built for it whatever the compiler's flags (the k registers
 * need it), called only where the CPU has it. */
#define Z __attribute__((target("avx512f,avx512dq")))
/* Rake's loop: a compare into k1 and an add of 1s under it, four times
 * (tests/63 checks rakec still writes it so). */
#define KADD(o, acc) "vcmpps $17, " #o "(%2,%0,4), %%zmm0, %%k1\n vpaddd %%zmm17, " acc ", " acc "%{%%k1%}\n"
LOOP_FOR(Z, avx512_rake, 64, KADD(0, "%%zmm16") KADD(64, "%%zmm18") KADD(128, "%%zmm19") KADD(192, "%%zmm20"),
     "xmm16", "xmm18", "xmm19", "xmm20", "k1")
#define LDZ(o, r) "vmovups " #o "(%2,%0,4), " r "\n"
LOOP_FOR(Z, avx512_loads, 64, LDZ(0, "%%zmm21") LDZ(64, "%%zmm22") LDZ(128, "%%zmm23") LDZ(192, "%%zmm24"),
     "xmm21", "xmm22", "xmm23", "xmm24")
#define KCO(o, kr) "vcmpps $17, " #o "(%2,%0,4), %%zmm0, " kr "\n"
LOOP_FOR(Z, avx512_compares, 64, KCO(0, "%%k1") KCO(64, "%%k2") KCO(128, "%%k3") KCO(192, "%%k1"),
     "k1", "k2", "k3")
#define MOVM(o, acc) "vcmpps $17, " #o "(%2,%0,4), %%zmm0, %%k1\n vpmovm2d %%k1, %%zmm21\n vpsubd %%zmm21, " acc ", " acc "\n"
LOOP_FOR(Z, avx512_movm2d, 64, MOVM(0, "%%zmm16") MOVM(64, "%%zmm18") MOVM(128, "%%zmm19") MOVM(192, "%%zmm20"),
     "xmm16", "xmm18", "xmm19", "xmm20", "xmm21", "k1")
#define POP(o, r) "vcmpps $17, " #o "(%2,%0,4), %%zmm0, %%k1\n kmovw %%k1, %%r10d\n popcntl %%r10d, %%r10d\n addq %%r10, " r "\n"
LOOP_FOR(Z, avx512_popcount, 64, POP(0, "%%r8") POP(64, "%%r9") POP(128, "%%r11") POP(192, "%%r8"),
     "r8", "r9", "r10", "r11", "k1")

typedef void Loop(const float *, long);

static void row(const char *name, Loop *f, const float *k, int step, int reps, double hz, double bound)
{
    double best;
    PROBE_BEST(best, reps, f(k, N));
    double cycles = best * hz / (N / step);
    printf("%-20s %6.2f cycles a step of %2d floats  (%3.0f %% of the load bound, %.2f)\n", name, cycles,
           step, 100.0 * bound / cycles, bound);
}

int main(int argc, char **argv)
{
    int reps = probe_quick(argc, argv) ? 50 : 20000;
    float *k = aligned_alloc(64, N * sizeof(float));
    if (!k)
        return 1;
    for (int i = 0; i < N; i++)
        k[i] = (float)((i * 2654435761u) % 1000u) / 1000.0f;
    double hz = probe_core_hz();
    printf("core %.2f GHz; %d floats in L1; a step is four racks\n", hz / 1e9, N);
    static const struct {
        const char *name;
        Loop *f;
        int avx512;
    } rows[] = {
        {"avx2 rake", avx2_rake, 0},         {"avx2 loads", avx2_loads, 0},
        {"avx2 compares", avx2_compares, 0}, {"avx2 split loads", avx2_split_loads, 0},
        {"avx2 grouped", avx2_grouped, 0},   {"avx2 orps", avx2_orps, 0},
        {"avx2 int compare", avx2_int_compare, 0},
        {"avx512 rake", avx512_rake, 1},     {"avx512 loads", avx512_loads, 1},
        {"avx512 compares", avx512_compares, 1}, {"avx512 vpmovm2d", avx512_movm2d, 1},
        {"avx512 popcount", avx512_popcount, 1},
    };
    __builtin_cpu_init();
    int has[2] = {__builtin_cpu_supports("avx2"),
                  __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")};
    for (int isa = 0; isa < 2; isa++) {
        if (!has[isa])
            printf("%s: not on this CPU, skipped\n", isa ? "avx512" : "avx2");
        for (size_t r = 0; has[isa] && r < sizeof rows / sizeof rows[0]; r++)
            if (rows[r].avx512 == isa) /* a step: four racks; the bound: four loads */
                row(rows[r].name, rows[r].f, k, isa ? 64 : 32, reps, hz, isa ? 4.0 : 2.0);
    }
    free(k);
    return 0;
}

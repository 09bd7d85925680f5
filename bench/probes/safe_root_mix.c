/* bench/probes/safe_root_mix.c: what bounds `safe_root` in cache.
 *
 * bench/run puts `safe_root` near 20 % of the port bound at 4 Ki
 * records on every profile, and every variant (gcc, clang, Highway) with
 * it.  This probe times, per rack of 8 on 4 Ki floats in L1:
 *
 *   rake        the AVX2 loop rakec writes for bench/kernels/safe_root.rk
 *               (tests/63 checks it still does: two racks a step)
 *   sqrt        its square roots alone (a load and a vsqrtps a rack)
 *   memory      its load and store alone
 *
 * in cycles a rack (the core clock measured with a chain of dependent
 * adds).  If "sqrt" takes as long as "rake", the square root's
 * throughput is the bound, not the ports.  `--quick` takes a few
 * repetitions (tests/63 runs it so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"

#define N 4096

static const float zero = 0.0f, one = 1.0f;

/* %0 the index, %1 the end, %2 the input, %3 the output; ymm0 zeros,
 * ymm1 ones, as rakec keeps them. */
#define LOOP(name, body)                                                                   \
    static void name(const float *in, float *out, long n)                                  \
    {                                                                                      \
        long i = 0;                                                                        \
        __asm__ volatile("vbroadcastss %4, %%ymm0\n vbroadcastss %5, %%ymm1\n"             \
                         ".p2align 5\n1:\n" body "addq $16, %0\n cmpq %1, %0\n jl 1b\n"    \
                         : "+r"(i)                                                         \
                         : "r"(n), "r"(in), "r"(out), "m"(zero), "m"(one)                  \
                         : "memory", "xmm0", "xmm1", "xmm2", "xmm3");                      \
    }

#define RAKE(O)                                                                            \
    "vmovups " #O "(%2,%0,4), %%ymm2\n vcmpps $29, %%ymm0, %%ymm2, %%ymm3\n"               \
    "vblendvps %%ymm3, %%ymm2, %%ymm1, %%ymm2\n vsqrtps %%ymm2, %%ymm2\n"                  \
    "vandps %%ymm2, %%ymm3, %%ymm2\n vmovups %%ymm2, " #O "(%3,%0,4)\n"
LOOP(rake, RAKE(0) RAKE(32))

#define SQRT(O) "vsqrtps " #O "(%2,%0,4), %%ymm2\n"
LOOP(sqrt_only, SQRT(0) SQRT(32))

#define MEMORY(O) "vmovups " #O "(%2,%0,4), %%ymm2\n vmovups %%ymm2, " #O "(%3,%0,4)\n"
LOOP(memory, MEMORY(0) MEMORY(32))

typedef void Loop(const float *, float *, long);

int main(int argc, char **argv)
{
    int reps = probe_quick(argc, argv) ? 50 : 20000;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) {
        printf("avx2: not on this CPU, skipped\n");
        return 0;
    }
    float *in = aligned_alloc(64, N * sizeof(float)), *out = aligned_alloc(64, N * sizeof(float));
    if (!in || !out)
        return 1;
    for (int i = 0; i < N; i++) /* both signs, as the benchmark's */
        in[i] = (float)(i % 101) * (i % 4 == 3 ? -0.5f : 0.5f);
    double hz = probe_core_hz();
    printf("core %.2f GHz; %d floats in L1; AVX2\n", hz / 1e9, N);
    struct {
        const char *name;
        Loop *f;
    } rows[] = {{"rake", rake}, {"sqrt", sqrt_only}, {"memory", memory}};
    for (int r = 0; r < 3; r++) {
        double best;
        PROBE_BEST(best, reps, rows[r].f(in, out, N));
        double cycles = best * hz / (N / 8);
        printf("%-7s %5.2f cycles a rack of 8  (%3.0f %% of the port bound, 1)\n", rows[r].name, cycles,
               100.0 / cycles);
    }
    free(in);
    free(out);
    return 0;
}

/* bench/probes/advance_mix.c: what bounds the `advance` kernel in cache.
 *
 * bench/run's in-cache size is 4 Ki records; a particle is five f32
 * columns and a u8 column, 21 bytes, so 4 Ki particles are 86 KB, more
 * than Zen 4's 32 KB L1 data cache, and `advance` runs at about 55 % of
 * the L1 port bound there (six loads and three stores a rack of eight:
 * three cycles at two loads and one store a cycle).  This probe times,
 * per rack of eight particles, on the same column layout at 1 Ki
 * particles (21 KB, in L1) and at 4 Ki (in L2):
 *
 *   rake        the AVX2 loop rakec writes for bench/kernels/advance.rk,
 *               instruction for instruction (tests/63 checks it still
 *               does: two racks a step)
 *   memory      the same loads and stores and nothing else
 *   loads       the six loads alone
 *
 * If "memory" at 4 Ki is as slow as "rake", the loop waits for L2, not
 * for its arithmetic or its ports.  All loops are inline assembly;
 * `--quick` takes a few repetitions (tests/63 runs it so). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"

/* The columns, as the benchmark's stack holds them. */
typedef struct Cols {
    float *posx, *posy, *velx, *vely, *age;
    uint8_t *kill;
} Cols;

/* Operands: %0 the index (records), %1 the end, %2 posx, %3 velx,
 * %4 posy, %5 vely, %6 age, %7 kill; ymm0 holds dt, ymm1 zeros. */
#define LOOP(name, body)                                                                   \
    static void name(Cols *c, long n)                                                      \
    {                                                                                      \
        long i = 0;                                                                        \
        __asm__ volatile("vbroadcastss %8, %%ymm0\n vpxor %%xmm1, %%xmm1, %%xmm1\n"        \
                         ".p2align 5\n1:\n" body "addq $16, %0\n cmpq %1, %0\n jl 1b\n"    \
                         : "+r"(i)                                                         \
                         : "r"(n), "r"(c->posx), "r"(c->velx), "r"(c->posy), "r"(c->vely), \
                           "r"(c->age), "r"(c->kill), "m"(dt_value)                        \
                         : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",       \
                           "xmm6", "xmm7", "xmm8");                                        \
    }

static float dt_value = 0.01f;

/* One rack at byte offset O of the f32 columns (O / 4 of the u8 one). */
#define RAKE(O, B)                                                                         \
    "vpmovzxbd " #B "(%7,%0,1), %%ymm2\n"                                                  \
    "vmovups " #O "(%2,%0,4), %%ymm3\n vmovaps %%ymm3, %%ymm4\n"                           \
    "vfmadd231ps " #O "(%3,%0,4), %%ymm0, %%ymm4\n"                                        \
    "vmovups " #O "(%4,%0,4), %%ymm5\n vmovaps %%ymm5, %%ymm6\n"                           \
    "vfmadd231ps " #O "(%5,%0,4), %%ymm0, %%ymm6\n"                                        \
    "vmovups " #O "(%6,%0,4), %%ymm7\n vaddps %%ymm0, %%ymm7, %%ymm8\n"                    \
    "vpcmpeqd %%ymm1, %%ymm2, %%ymm2\n"                                                    \
    "vblendvps %%ymm2, %%ymm4, %%ymm3, %%ymm3\n vmovups %%ymm3, " #O "(%2,%0,4)\n"         \
    "vblendvps %%ymm2, %%ymm6, %%ymm5, %%ymm3\n vmovups %%ymm3, " #O "(%4,%0,4)\n"         \
    "vblendvps %%ymm2, %%ymm8, %%ymm7, %%ymm2\n vmovups %%ymm2, " #O "(%6,%0,4)\n"
LOOP(rake, RAKE(0, 0) RAKE(32, 8))

#define MEMORY(O, B)                                                                       \
    "vpmovzxbd " #B "(%7,%0,1), %%ymm2\n vmovups " #O "(%2,%0,4), %%ymm3\n"                \
    "vmovups " #O "(%3,%0,4), %%ymm4\n vmovups " #O "(%4,%0,4), %%ymm5\n"                  \
    "vmovups " #O "(%5,%0,4), %%ymm6\n vmovups " #O "(%6,%0,4), %%ymm7\n"                  \
    "vmovups %%ymm3, " #O "(%2,%0,4)\n vmovups %%ymm5, " #O "(%4,%0,4)\n"                  \
    "vmovups %%ymm7, " #O "(%6,%0,4)\n"
LOOP(memory, MEMORY(0, 0) MEMORY(32, 8))

#define LOADS(O, B)                                                                        \
    "vpmovzxbd " #B "(%7,%0,1), %%ymm2\n vmovups " #O "(%2,%0,4), %%ymm3\n"                \
    "vmovups " #O "(%3,%0,4), %%ymm4\n vmovups " #O "(%4,%0,4), %%ymm5\n"                  \
    "vmovups " #O "(%5,%0,4), %%ymm6\n vmovups " #O "(%6,%0,4), %%ymm7\n"
LOOP(loads, LOADS(0, 0) LOADS(32, 8))

typedef void Loop(Cols *, long);

/* Columns of n records, each its own allocation as the benchmark's. */
static Cols columns(long n)
{
    Cols c;
    float **f[5] = {&c.posx, &c.posy, &c.velx, &c.vely, &c.age};
    for (int k = 0; k < 5; k++) {
        *f[k] = aligned_alloc(64, (size_t)n * sizeof(float));
        if (!*f[k])
            exit(1);
        for (long i = 0; i < n; i++)
            (*f[k])[i] = (float)(i % 97) * 0.5f + (float)k;
    }
    c.kill = aligned_alloc(64, (size_t)n);
    if (!c.kill)
        exit(1);
    for (long i = 0; i < n; i++)
        c.kill[i] = ((uint32_t)i * 2654435761u >> 7) % 4 == 0; /* 75 % alive */
    return c;
}

static void row(const char *name, Loop *f, long n, int reps, double hz)
{
    Cols c = columns(n);
    double best;
    PROBE_BEST(best, reps, f(&c, n));
    double cycles = best * hz / ((double)n / 8);
    printf("%-7s %5ld particles  %5.2f cycles a rack of 8  (%3.0f %% of the port bound, 3)\n", name, n,
           cycles, 300.0 / cycles);
    float **f5[5] = {&c.posx, &c.posy, &c.velx, &c.vely, &c.age};
    for (int k = 0; k < 5; k++)
        free(*f5[k]);
    free(c.kill);
}

int main(int argc, char **argv)
{
    int quick = probe_quick(argc, argv);
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("avx2: not on this CPU, skipped\n");
        return 0;
    }
    double hz = probe_core_hz();
    printf("core %.2f GHz; five f32 columns and a u8 column; AVX2\n", hz / 1e9);
    static const long sizes[] = {1024, 4096};
    for (int s = 0; s < 2; s++) {
        int reps = quick ? 20 : (int)(40000000 / sizes[s]);
        row("rake", rake, sizes[s], reps, hz);
        row("memory", memory, sizes[s], reps, hz);
        row("loads", loads, sizes[s], reps, hz);
    }
    return 0;
}

/* bench/probes/normalise_mix.c: what bounds `normalise` at 16 Mi records.
 *
 * bench/run's memory-bound bound for `normalise` is the 5 bytes a record
 * it moves (a u8 read, an f32 written) over the measured copy bandwidth
 * (an f32 stream scaled into another: STREAM's counting, 8 bytes an
 * element), and Rake's AVX2 loop lands near 90 % of it, as every other
 * variant does.  This probe times, on 16 Mi records in arrays allocated
 * as the benchmark's, each the median of 9 single passes taken in turn:
 *
 *   rake        the AVX2 loop rakec writes for bench/kernels/normalise.rk
 *               (tests/63 checks it still does: two racks a step)
 *   memory      its widening loads and its stores alone
 *   nt-stores   the loop with non-temporal stores (`vmovntps`), which
 *               don't read the destination's lines first; Rake doesn't
 *               issue them (docs/performance.md)
 *   f32 copy    the bound's own pattern: 16 Mi f32 scaled into another
 *
 * and prints records a second and counted bytes a second.  An ordinary
 * store first reads its line (write-allocate), so an f32 written costs
 * 8 bytes of traffic where 4 are counted: a copy moves 12 bytes for 8
 * counted, normalise 9 for 5, so at the same traffic normalise counts
 * (5/9) / (8/12) = 83 % of the copy's bytes, whoever writes it.  If
 * "memory" runs at "rake"'s rate, the loop's arithmetic costs nothing
 * there.
 * `--quick` takes 1 Mi records and 3 passes (tests/63 runs it so). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"

static float scale_value = 1.0f / 255.0f;

/* %0 the index (records), %1 the end, %2 the u8 input, %3 the f32
 * output; ymm0 holds the scale. */
#define LOOP(name, body)                                                                   \
    static void name(const uint8_t *in, float *out, long n)                                \
    {                                                                                      \
        long i = 0;                                                                        \
        __asm__ volatile("vbroadcastss %4, %%ymm0\n"                                       \
                         ".p2align 5\n1:\n" body "addq $16, %0\n cmpq %1, %0\n jl 1b\n"    \
                         "sfence\n"                                                        \
                         : "+r"(i)                                                         \
                         : "r"(n), "r"(in), "r"(out), "m"(scale_value)                     \
                         : "memory", "xmm0", "xmm1");                                      \
    }

#define RAKE(O, B)                                                                         \
    "vpmovzxbd " #B "(%2,%0,1), %%ymm1\n vcvtdq2ps %%ymm1, %%ymm1\n"                       \
    "vmulps %%ymm0, %%ymm1, %%ymm1\n vmovups %%ymm1, " #O "(%3,%0,4)\n"
LOOP(rake, RAKE(0, 0) RAKE(32, 8))

#define MEMORY(O, B) "vpmovzxbd " #B "(%2,%0,1), %%ymm1\n vmovups %%ymm1, " #O "(%3,%0,4)\n"
LOOP(memory, MEMORY(0, 0) MEMORY(32, 8))

#define NT(O, B)                                                                           \
    "vpmovzxbd " #B "(%2,%0,1), %%ymm1\n vcvtdq2ps %%ymm1, %%ymm1\n"                       \
    "vmulps %%ymm0, %%ymm1, %%ymm1\n vmovntps %%ymm1, " #O "(%3,%0,4)\n"
LOOP(nt_stores, NT(0, 0) NT(32, 8))

/* f32 in (as bytes through %2), f32 out: the copy bound's pattern. */
#define COPY(O) "vmulps " #O "(%2,%0,4), %%ymm0, %%ymm1\n vmovups %%ymm1, " #O "(%3,%0,4)\n"
LOOP(f32_copy, COPY(0) COPY(32))

typedef void Loop(const uint8_t *, float *, long);

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int quick = probe_quick(argc, argv);
    long n = quick ? 1L << 20 : 1L << 24;
    int passes = quick ? 3 : 9;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) {
        printf("avx2: not on this CPU, skipped\n");
        return 0;
    }
    uint8_t *in = aligned_alloc(64, (size_t)n);
    float *out = aligned_alloc(64, (size_t)n * sizeof(float));
    float *src = aligned_alloc(64, (size_t)n * sizeof(float));
    if (!in || !out || !src)
        return 1;
    for (long i = 0; i < n; i++) {
        in[i] = (uint8_t)(i * 2654435761u >> 11);
        out[i] = 0.0f;
        src[i] = (float)in[i];
    }
    struct {
        const char *name;
        Loop *f;
        const uint8_t *from;
        double bytes; /* counted a record */
        double t[9];
    } rows[] = {
        {"rake", rake, in, 5, {0}},
        {"memory", memory, in, 5, {0}},
        {"nt-stores", nt_stores, in, 5, {0}},
        {"f32 copy", f32_copy, (const uint8_t *)src, 8, {0}},
    };
    int nrows = (int)(sizeof rows / sizeof rows[0]);
    for (int r = 0; r < nrows; r++) /* a warm-up pass each */
        rows[r].f(rows[r].from, out, n);
    for (int p = 0; p < passes; p++)
        for (int r = 0; r < nrows; r++) {
            double t0 = probe_now();
            rows[r].f(rows[r].from, out, n);
            rows[r].t[p] = probe_now() - t0;
        }
    printf("%ld records, median of %d passes taken in turn; AVX2\n", n, passes);
    for (int r = 0; r < nrows; r++) {
        qsort(rows[r].t, (size_t)passes, sizeof(double), by_value);
        double t = rows[r].t[passes / 2];
        printf("%-10s %7.0f M records/s  %5.1f GB/s counted (%g bytes a record)\n", rows[r].name,
               (double)n / t / 1e6, (double)n * rows[r].bytes / t / 1e9, rows[r].bytes);
    }
    free(in);
    free(out);
    free(src);
    return 0;
}

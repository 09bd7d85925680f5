/* bench/probes/compact_mix.c: what bounds `compact` in cache.
 *
 * bench/run puts the AVX2 compaction at 50 % and 99 % survival near 46 %
 * of its port bound at 4 Ki records (a store a column a rack).  Each kept
 * rack of a column is stored whole at the write cursor, which is aligned
 * to nothing, so about half of the 32-byte stores cross a 64-byte line.
 * This probe times, on the benchmark's six columns of 4 Ki records at
 * 50 % survival (each call on one of 64 kill patterns in turn, the
 * patterns put back before each call, untimed):
 *
 *   rake        the AVX2 loop rakec writes for bench/kernels/compact.rk,
 *               instruction for instruction (tests/63 checks it still
 *               does), with its register names
 *   aligned     the same with each store at the cursor rounded down to
 *               8 records (wrong output: for timing only)
 *   no-stores   the same without the column stores
 *
 * in nanoseconds a call and cycles a rack of 8.  If "aligned" is much
 * faster than "rake", the split stores are what the loop waits for.
 * `--quick` takes a few calls (tests/63 runs it so). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"

#define N 4096
#define PATTERNS 64

/* What the loop reads: the columns, the kill bytes, the table of lane
 * indices for each 8-bit selection, and the count of whole racks. */
typedef struct Args {
    float *posx, *posy, *velx, *vely, *age; /* rax rcx rdx rsi r8 */
    uint8_t *kill;                          /* r9 */
    const uint8_t *table;                   /* r12 */
    long racks_end;                         /* r10: records in whole racks */
} Args;

#define PROLOGUE                                                                           \
    "movq 0(%0), %%rax\n movq 8(%0), %%rcx\n movq 16(%0), %%rdx\n movq 24(%0), %%rsi\n"    \
    "movq 32(%0), %%r8\n movq 40(%0), %%r9\n movq 48(%0), %%r12\n movq 56(%0), %%r10\n"    \
    "xorl %%r11d, %%r11d\n xorl %%r13d, %%r13d\n"                                          \
    "vpxor %%xmm0, %%xmm0, %%xmm0\n vpxor %%xmm1, %%xmm1, %%xmm1\n"                        \
    "jmp 3f\n"
#define CLOBBERS                                                                           \
    "memory", "cc", "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12", "r13",    \
        "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3"

/* The loop.  PREP starts a kept rack's stores; STORE(column, register)
 * writes the rack of a column, KILLSTORE the kill column's zeros. */
#define LOOP(name, PREP, STORE, KILLSTORE)                                                 \
    static long name(Args *a)                                                              \
    {                                                                                      \
        long kept;                                                                         \
        __asm__ volatile(PROLOGUE ".p2align 5\n1:\n"                                       \
                         "vpmovzxbd (%%r9,%%r11,1), %%ymm2\n"                              \
                         "vpcmpeqd %%ymm0, %%ymm2, %%ymm2\n"                               \
                         "vmovmskps %%ymm2, %%r14d\n"                                      \
                         "testl %%r14d, %%r14d\n"                                          \
                         "je 2f\n" PREP                                                    \
                         "vpmovzxbd (%%r12,%%r14,8), %%ymm2\n"                             \
                         "vpermps (%%rax,%%r11,4), %%ymm2, %%ymm3\n" STORE("rax", "ymm3")  \
                         "vpermps (%%rcx,%%r11,4), %%ymm2, %%ymm3\n" STORE("rcx", "ymm3")  \
                         "vpermps (%%rdx,%%r11,4), %%ymm2, %%ymm3\n" STORE("rdx", "ymm3")  \
                         "vpermps (%%rsi,%%r11,4), %%ymm2, %%ymm3\n" STORE("rsi", "ymm3")  \
                         "vpermps (%%r8,%%r11,4), %%ymm2, %%ymm2\n" STORE("r8", "ymm2")    \
                         KILLSTORE                                                         \
                         "2:\n"                                                            \
                         "popcntl %%r14d, %%r14d\n"                                        \
                         "addq %%r14, %%r13\n"                                             \
                         "addq $8, %%r11\n"                                                \
                         "3:\n"                                                            \
                         "cmpq %%r10, %%r11\n"                                             \
                         "jl 1b\n"                                                         \
                         "movq %%r13, %1\n"                                                \
                         : "+r"(a), "=m"(kept)                                             \
                         :                                                                 \
                         : CLOBBERS);                                                      \
        return kept;                                                                       \
    }

/* rakec's: each rack at the cursor, r13 */
#define AT_CURSOR(col, reg) "vmovups %%" reg ", (%%" col ",%%r13,4)\n"
#define KILL_AT_CURSOR "vmovq %%xmm1, (%%r9,%%r13,1)\n"
LOOP(rake, "", AT_CURSOR, KILL_AT_CURSOR)

/* r15: the cursor rounded down to 8 records, made first in the rack
 * (one more instruction a rack) */
#define ROUND_DOWN "movq %%r13, %%r15\n andq $-8, %%r15\n"
#define ALIGNED(col, reg) "vmovups %%" reg ", (%%" col ",%%r15,4)\n"
LOOP(aligned, ROUND_DOWN, ALIGNED, "vmovq %%xmm1, (%%r9,%%r15,1)\n")

#define NONE(col, reg) ""
LOOP(no_stores, "", NONE, "")

typedef long Loop(Args *);

static void fill(float *c, int k)
{
    for (int i = 0; i < N; i++)
        c[i] = (float)(i % 89) + (float)k;
}

int main(int argc, char **argv)
{
    int calls = probe_quick(argc, argv) ? 64 : 64 * 400;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("popcnt")) {
        printf("avx2: not on this CPU, skipped\n");
        return 0;
    }
    static uint8_t table[256 * 8];
    for (int m = 0; m < 256; m++) {
        int k = 0;
        for (int lane = 0; lane < 8; lane++)
            if (m >> lane & 1)
                table[m * 8 + k++] = (uint8_t)lane;
        while (k < 8)
            table[m * 8 + k++] = 0;
    }
    static uint8_t patterns[PATTERNS][N];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int p = 0; p < PATTERNS; p++)
        for (int i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            patterns[p][i] = (uint8_t)(x >> 32 & 1); /* 50 % killed */
        }
    Args a;
    float **cols[5] = {&a.posx, &a.posy, &a.velx, &a.vely, &a.age};
    for (int k = 0; k < 5; k++) {
        *cols[k] = aligned_alloc(64, N * sizeof(float));
        if (!*cols[k])
            return 1;
        fill(*cols[k], k);
    }
    a.kill = aligned_alloc(64, N);
    if (!a.kill)
        return 1;
    a.table = table;
    a.racks_end = N;
    struct {
        const char *name;
        Loop *f;
    } rows[] = {{"rake", rake}, {"aligned", aligned}, {"no-stores", no_stores}};
    printf("%d records, 50 %% survival, %d kill patterns in turn; AVX2\n", N, PATTERNS);
    for (int r = 0; r < 3; r++) {
        double best = 1e9;
        long kept = 0;
        for (int round = 0; round < 5; round++) {
            double total = 0;
            for (int c = 0; c < calls; c++) {
                memcpy(a.kill, patterns[c % PATTERNS], N);
                double t0 = probe_now();
                kept += rows[r].f(&a);
                total += probe_now() - t0;
            }
            best = total / calls < best ? total / calls : best;
        }
        printf("%-10s %7.1f ns a call  %5.2f ns a rack of 8  (kept %ld a call)\n", rows[r].name,
               best * 1e9, best * 1e9 / (N / 8), kept / (5L * calls));
    }
    for (int k = 0; k < 5; k++)
        free(*cols[k]);
    free(a.kill);
    return 0;
}

/* bench/probes/probe.h: what every probe shares.  A probe times a
 * kernel's loop, as rakec writes it, in inline assembly beside parts of
 * it (docs/performance.md cites the figures; tests/63 checks each
 * probe's "rake" loop is still rakec's). */
#ifndef RAKE_PROBE_H
#define RAKE_PROBE_H

#include <string.h>
#include <time.h>

static inline double probe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Cycles a second: a chain of dependent adds, one a cycle (as bench.c
 * measures the core clock). */
static inline double probe_core_hz(void)
{
    double best = 1e9;
    for (int s = 0; s < 5; s++) {
        long x = 0, iters = 50000000;
        double t0 = probe_now();
        __asm__ volatile("1:\n addq $1, %0\n addq $1, %0\n addq $1, %0\n addq $1, %0\n"
                         "subq $4, %1\n jnz 1b\n"
                         : "+r"(x), "+r"(iters));
        double t = probe_now() - t0;
        best = t < best ? t : best;
    }
    return 50000000.0 / best;
}

/* best = the least seconds a call over seven samples of reps calls of
 * CALL (a statement; the loops take different arguments). */
#define PROBE_BEST(best, reps, CALL)                                       \
    do {                                                                   \
        (best) = 1e9;                                                      \
        for (int s_ = 0; s_ < 7; s_++) {                                   \
            double t0_ = probe_now();                                      \
            for (int r_ = 0; r_ < (reps); r_++)                            \
                CALL;                                                      \
            double t_ = (probe_now() - t0_) / (reps);                      \
            (best) = t_ < (best) ? t_ : (best);                            \
        }                                                                  \
    } while (0)

/* Whether the probe was asked for a quick run (`--quick`: tests/63). */
static inline int probe_quick(int argc, char **argv)
{
    return argc > 1 && !strcmp(argv[1], "--quick");
}

#endif

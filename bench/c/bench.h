/* Shared declarations of the benchmark harness: the variant functions
 * linked into bench (plain C per compiler, Highway per instruction set,
 * Rake per profile through the generated rake_table.c), and the table
 * bench/run generates of what rakec compiled or refused.
 *
 * Every variant of a kernel has the signature in rake_abi.h; the tables
 * hold them as `bench_fn` and the harness casts back to the kernel's own
 * type before calling (converting between function pointer types and back
 * is defined C). */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include "rake_abi.h"

#include <stddef.h>

typedef void (*bench_fn)(void);

/* one Rake kernel file compiled (or refused) for one profile */
struct rake_entry {
    const char *file;    /* bench/kernels/FILE.rk */
    const char *profile; /* x86-sse2, x86-avx2, x86-avx512 */
    bench_fn fn;         /* the run, or NULL when rakec refused */
    const char *error;   /* rakec's message when refused, else NULL */
};
extern const struct rake_entry rake_entries[];
extern const int rake_entry_count;

/* the C and Highway variants of every kernel, by prefix */
#define BENCH_DECLARE(P)                                                   \
    advance_fn P##advance;                                                 \
    compact_live_fn P##compact_live;                                       \
    roots_fn P##roots;                                                     \
    clamp_counts_fn P##clamp_counts;                                       \
    normalise_fn P##normalise;                                             \
    dot_product_fn P##dot_product;                                         \
    count_above_fn P##count_above;

BENCH_DECLARE(gcc_)
BENCH_DECLARE(clang_)
BENCH_DECLARE(ref_)
BENCH_DECLARE(hwy_ssse3_)
BENCH_DECLARE(hwy_avx2_)
BENCH_DECLARE(hwy_avx512_)

#endif

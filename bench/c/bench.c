/* The benchmark harness: every kernel in every variant, timed in one
 * process, checked against Rake's output, and set against what the
 * machine allows.
 *
 * A kernel (advance, compact at three survival rates, safe_root, clamp,
 * normalise, dot, count) owns a few columns: pristine data from a fixed
 * seed, and a working copy the variants run on.  For each size and kernel
 * the harness
 *
 *   1. runs each variant once from the pristine data and compares its
 *      outputs with the Rake run's for the same profile (exact for
 *      integers, bytes and compaction; floats exact or within the
 *      kernel's documented tolerance where FMA or the summation order
 *      differ), or with the scalar reference (kernels_c.c built with
 *      -O2 -fno-tree-vectorize -ffp-contract=off, Rake's interpreter
 *      semantics) where rakec refused the kernel;
 *   2. times each variant: warm-up call, then samples of at least
 *      --min-ms of calls each (compaction is destructive, so each of its
 *      calls is timed alone after an untimed reset, its kill column taken
 *      from several random patterns in turn), the median of
 *      --samples samples, in records per second; the row's variants
 *      take their samples in turn, so machine noise falls on all alike
 *      (RAKE_BENCH_TRACE set: each sample's row, index and variant on
 *      stderr, in the order taken);
 *   3. computes the bound: for in-cache sizes the port model (vector
 *      loads and stores per cycle at the profile's width as measured in
 *      L1, at the core clock measured with a chain of dependent adds), for
 *      memory-bound sizes the bytes the kernel must move over the stream
 *      bandwidth measured here (256 MiB arrays, 1 or 8 interleaved
 *      streams, whichever is faster; a read-only sum for kernels that
 *      write nothing, a copy for the others, STREAM's byte counting);
 *   4. evaluates the targets for Rake and flags every miss.
 *
 * It prints a table and writes RESULTS.json and RESULTS.dat (for
 * bench/plot.gp).  The JSON format is in bench/README.md.  Exit status:
 * 1 if any output differed, 0 otherwise (performance misses are printed
 * and recorded, never fatal). */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- profiles and variants ------------------------------------------ */

enum { NPROF = 3 };
static const char *const prof_name[NPROF] = {"x86-sse2", "x86-avx2",
                                             "x86-avx512"};
static const int prof_lanes[NPROF] = {4, 8, 16};
static const char *const hwy_name[NPROF] = {"hwy-ssse3", "hwy-avx2",
                                            "hwy-avx512"};
static bool prof_ok[NPROF];
static const char *prof_why[NPROF];

/* the functions of one kernel, one per variant, by prefix */
struct fnset {
    bench_fn gcc, clang, ref, hwy[NPROF];
};
#define FNSET(k)                                                           \
    {(bench_fn)gcc_##k, (bench_fn)clang_##k, (bench_fn)ref_##k,           \
     {(bench_fn)hwy_ssse3_##k, (bench_fn)hwy_avx2_##k,                    \
      (bench_fn)hwy_avx512_##k}}

/* ---- small helpers --------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *xmalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* splitmix64: the data's fixed-seed generator */
static uint64_t rng_state;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static float rng_unit(void) /* [-1, 1) */
{
    return (float)((double)(rng() >> 40) / (double)(1ull << 23)) - 1.0f;
}
static double rng_01(void)
{
    return (double)(rng() >> 11) / 9007199254740992.0;
}

/* ---- columns and kernels --------------------------------------------- */

enum kind { F32, I32, U32, U8 };
static const size_t kind_size[] = {4, 4, 4, 1};

struct col {
    enum kind kind;
    bool output;
    int64_t len;
    void *work, *pristine, *saved;
};

enum { MAXCOL = 8 };
struct ctx {
    int64_t n;
    struct col col[MAXCOL];
    int ncol;
    int64_t count, saved_count; /* a compaction's result count */
    double tol_abs, tol_rel;    /* float outputs: allowed difference */
    /* timed resets of a compaction draw the kill column from npatterns
     * random patterns in turn (pattern 0 is the pristine one) */
    uint8_t *patterns;
    int patcol, npatterns, next_pattern;
};

struct kernel {
    const char *id, *file, *title;
    double survival;           /* compaction only */
    bool destructive;          /* reset before every timed call */
    int loads, stores;         /* vector transfers per rack (port model) */
    double rbytes, wbytes;     /* bytes per record the kernel must move */
    struct fnset fns;
    void (*setup)(struct ctx *, const struct kernel *);
    void (*call)(struct ctx *, bench_fn);
};

static void *add_col(struct ctx *c, enum kind k, bool output, int64_t len)
{
    struct col *col = &c->col[c->ncol++];
    col->kind = k;
    col->output = output;
    col->len = len;
    col->pristine = xmalloc((size_t)len * kind_size[k]);
    col->work = xmalloc((size_t)len * kind_size[k]);
    col->saved = NULL;
    return col->pristine;
}

static float *fill_unit(float *p, int64_t n, float scale, float offset)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = rng_unit() * scale + offset;
    return p;
}

static void reset(struct ctx *c)
{
    for (int i = 0; i < c->ncol; i++)
        memcpy(c->col[i].work, c->col[i].pristine,
               (size_t)c->col[i].len * kind_size[c->col[i].kind]);
    c->count = c->n;
}

/* the reset before a timed call: the next of the kill patterns, so the
 * branch predictor can't learn the data of a branchy variant by heart
 * (a repeated 4 Ki pattern is learnt: gcc's compaction ran 3.7 times
 * faster on it than on fresh data) */
static void reset_timed(struct ctx *c)
{
    reset(c);
    if (c->npatterns > 1) {
        int k = c->next_pattern++ % c->npatterns;
        memcpy(c->col[c->patcol].work, c->patterns + (size_t)k * (size_t)c->n,
               (size_t)c->n);
    }
}

static void free_ctx(struct ctx *c)
{
    for (int i = 0; i < c->ncol; i++) {
        free(c->col[i].work);
        free(c->col[i].pristine);
        free(c->col[i].saved);
    }
    free(c->patterns);
    c->ncol = 0;
}

static void fill_kill(uint8_t *kill, int64_t n, double survival)
{
    for (int64_t i = 0; i < n; i++)
        kill[i] = rng_01() < survival ? 0 : (uint8_t)(1 + rng() % 255);
}

/* particles: 5 f32 columns and the kill byte; dead with probability
 * 1 - survival, in a random (not periodic) pattern.  A compaction's timed
 * calls take their kill column from enough patterns that together they
 * hold at least 256 Ki records (at most 1,024 patterns): the same pattern
 * call after call would be periodic. */
static void setup_particles(struct ctx *c, const struct kernel *k)
{
    int64_t n = c->n;
    for (int i = 0; i < 5; i++)
        fill_unit(add_col(c, F32, true, n), n, 100.0f, 0.0f);
    uint8_t *kill = add_col(c, U8, true, n);
    fill_kill(kill, n, k->survival);
    if (k->destructive) {
        int64_t want = (262144 + n - 1) / n;
        c->npatterns = want > 1024 ? 1024 : (int)want;
        c->patcol = c->ncol - 1;
        c->patterns = xmalloc((size_t)c->npatterns * (size_t)n);
        memcpy(c->patterns, kill, (size_t)n);
        for (int p = 1; p < c->npatterns; p++)
            fill_kill(c->patterns + (size_t)p * (size_t)n, n, k->survival);
    }
    c->tol_abs = 1e-5;
    c->tol_rel = 1e-6;
}

static struct rake_stack_Particle_v2 particles(struct ctx *c)
{
    struct rake_stack_Particle_v2 s = {
        c->count,          c->col[0].work, c->col[1].work, c->col[2].work,
        c->col[3].work,    c->col[4].work, c->col[5].work};
    return s;
}

static void call_advance(struct ctx *c, bench_fn f)
{
    struct rake_stack_Particle_v2 s = particles(c);
    ((advance_fn *)f)(&s, 0.01f);
}

static void call_compact(struct ctx *c, bench_fn f)
{
    struct rake_stack_Particle_v2 s = particles(c);
    ((compact_live_fn *)f)(&s);
    c->count = s.count;
}

/* safe_root: values in [-1, 1), a few NaNs and signed zeros */
static void setup_roots(struct ctx *c, const struct kernel *k)
{
    (void)k;
    float *v = fill_unit(add_col(c, F32, false, c->n), c->n, 1.0f, 0.0f);
    for (int64_t i = 0; i < c->n; i += 97)
        v[i] = (i / 97) % 3 == 0 ? NAN : (i / 97) % 3 == 1 ? -0.0f : 0.0f;
    add_col(c, F32, true, c->n);
    c->tol_abs = c->tol_rel = 0;
}

static void call_roots(struct ctx *c, bench_fn f)
{
    struct rake_stack_Samples_v2 in = {c->n, c->col[0].work};
    struct rake_stack_Roots_v2 out = {c->n, c->col[1].work};
    ((roots_fn *)f)(&in, &out);
}

/* clamp: the whole i32 and u32 ranges, clamped to narrower bounds */
static void setup_clamp(struct ctx *c, const struct kernel *k)
{
    (void)k;
    int32_t *s = add_col(c, I32, true, c->n);
    uint32_t *u = add_col(c, U32, true, c->n);
    for (int64_t i = 0; i < c->n; i++) {
        uint64_t r = rng();
        s[i] = (int32_t)(uint32_t)r;
        u[i] = (uint32_t)(r >> 32);
    }
}

static void call_clamp(struct ctx *c, bench_fn f)
{
    struct rake_stack_Counts_v2 s = {c->n, c->col[0].work, c->col[1].work};
    ((clamp_counts_fn *)f)(&s, -1000000, 1000000, 1000u, 3000000000u);
}

static void setup_normalise(struct ctx *c, const struct kernel *k)
{
    (void)k;
    uint8_t *b = add_col(c, U8, false, c->n);
    for (int64_t i = 0; i < c->n; i++)
        b[i] = (uint8_t)rng();
    add_col(c, F32, true, c->n);
    c->tol_abs = c->tol_rel = 0;
}

static void call_normalise(struct ctx *c, bench_fn f)
{
    struct rake_stack_Bytes_v2 in = {c->n, c->col[0].work};
    struct rake_stack_Levels_v2 out = {c->n, c->col[1].work};
    ((normalise_fn *)f)(&in, &out, 1.0f / 255.0f);
}

/* dot and count run over views of n elements, n a multiple of 64 (a
 * general run's rack loads trap past the end, and Rake's dot steps by four
 * racks, 64 records on AVX-512); out is one rack wide */
static void setup_dot(struct ctx *c, const struct kernel *k)
{
    (void)k;
    float *x = fill_unit(add_col(c, F32, false, c->n), c->n, 1.0f, 0.0f);
    float *y = fill_unit(add_col(c, F32, false, c->n), c->n, 1.0f, 0.0f);
    add_col(c, F32, true, 16);
    double mag = 0;
    for (int64_t i = 0; i < c->n; i++)
        mag += fabs((double)x[i] * y[i]);
    /* the summation order differs between variants and profiles */
    c->tol_abs = 1e-6 * mag;
    c->tol_rel = 0;
}

static void call_dot(struct ctx *c, bench_fn f)
{
    int32_t n = (int32_t)c->n;
    ((dot_product_fn *)f)(c->col[0].work, n, c->col[1].work, n,
                          c->col[2].work, 16, n);
}

static void setup_count(struct ctx *c, const struct kernel *k)
{
    (void)k;
    fill_unit(add_col(c, F32, false, c->n), c->n, 1.0f, 0.0f);
    add_col(c, U32, true, 16);
}

static void call_count(struct ctx *c, bench_fn f)
{
    int32_t n = (int32_t)c->n;
    ((count_above_fn *)f)(c->col[0].work, n, c->col[1].work, 16, n, 0.25f);
}

#define PARTICLE_ADV 6, 3, 21, 12
#define PARTICLE_CMP(r) 6, 6, 21, 21 * (r)
static const struct kernel kernels[] = {
    {"advance", "advance", "particle advance where #alive (75% alive)", 0.75,
     false, PARTICLE_ADV, FNSET(advance), setup_particles, call_advance},
    {"compact_1", "compact", "compact live records, 1% survive", 0.01, true,
     PARTICLE_CMP(0.01), FNSET(compact_live), setup_particles, call_compact},
    {"compact_50", "compact", "compact live records, 50% survive", 0.50,
     true, PARTICLE_CMP(0.50), FNSET(compact_live), setup_particles,
     call_compact},
    {"compact_99", "compact", "compact live records, 99% survive", 0.99,
     true, PARTICLE_CMP(0.99), FNSET(compact_live), setup_particles,
     call_compact},
    {"safe_root", "safe_root", "safe-root rake over a column", 0, false, 1,
     1, 4, 4, FNSET(roots), setup_roots, call_roots},
    {"clamp", "clamp", "clamp i32 and u32 columns", 0, false, 2, 2, 8, 8,
     FNSET(clamp_counts), setup_clamp, call_clamp},
    {"normalise", "normalise", "u8 -> f32 widening normalisation", 0, false,
     1, 1, 1, 4, FNSET(normalise), setup_normalise, call_normalise},
    {"dot", "dot", "dot product over two views", 0, false, 2, 0, 8, 0,
     FNSET(dot_product), setup_dot, call_dot},
    {"count", "count", "bitmask count of keys > 0.25", 0, false, 1, 0, 4, 0,
     FNSET(count_above), setup_count, call_count},
};
enum { NKERNEL = sizeof kernels / sizeof kernels[0] };

/* ---- output comparison ----------------------------------------------- */

/* save the outputs of the last call as the comparison's reference */
static void save_outputs(struct ctx *c)
{
    for (int i = 0; i < c->ncol; i++) {
        struct col *col = &c->col[i];
        size_t bytes = (size_t)col->len * kind_size[col->kind];
        if (!col->output)
            continue;
        if (!col->saved)
            col->saved = xmalloc(bytes);
        memcpy(col->saved, col->work, bytes);
    }
    c->saved_count = c->count;
}

static int64_t out_len(const struct ctx *c, const struct col *col)
{
    if (col->len == 16) /* dot and count: one result */
        return 1;
    return c->count;
}

static bool same_float(float a, float b, const struct ctx *c, double *diff)
{
    uint32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia == ib || (isnan(a) && isnan(b)))
        return true;
    double d = fabs((double)a - (double)b);
    if (isnan(d) || d > *diff)
        *diff = isnan(d) ? INFINITY : d;
    return d <= c->tol_abs + c->tol_rel * fabs((double)b);
}

/* compare the working outputs with the saved ones; 0 exact, 1 within
 * tolerance (max difference in *diff), -1 different (message in why) */
static int compare_outputs(const struct ctx *c, double *diff, char *why,
                           size_t whylen)
{
    int result = 0;
    *diff = 0;
    if (c->count != c->saved_count) {
        snprintf(why, whylen, "count %lld, expected %lld",
                 (long long)c->count, (long long)c->saved_count);
        return -1;
    }
    for (int i = 0; i < c->ncol; i++) {
        const struct col *col = &c->col[i];
        int64_t n = out_len(c, col);
        size_t es = kind_size[col->kind];
        if (!col->output || !memcmp(col->work, col->saved, (size_t)n * es))
            continue;
        for (int64_t j = 0; j < n; j++) {
            const char *w = (const char *)col->work + j * (int64_t)es;
            const char *s = (const char *)col->saved + j * (int64_t)es;
            if (!memcmp(w, s, es))
                continue;
            float a, b;
            memcpy(&a, w, 4);
            memcpy(&b, s, 4);
            if (col->kind == F32 && same_float(a, b, c, diff)) {
                result = 1;
                continue;
            }
            snprintf(why, whylen, "column %d record %lld differs", i,
                     (long long)j);
            return -1;
        }
    }
    return result;
}

/* ---- timing ---------------------------------------------------------- */

struct opts {
    int64_t sizes[8];
    int nsizes;
    int samples;
    double min_s;
    bool smoke;
    const char *out;
};

/* seconds of one batch of reps calls; destructive kernels are reset
 * (untimed) before every call */
static double timed_batch(struct ctx *c, const struct kernel *k,
                          bench_fn f, long reps)
{
    double total = 0;
    if (!k->destructive) {
        double t0 = now_s();
        for (long r = 0; r < reps; r++)
            k->call(c, f);
        return now_s() - t0;
    }
    for (long r = 0; r < reps; r++) {
        reset_timed(c);
        double t0 = now_s();
        k->call(c, f);
        total += now_s() - t0;
    }
    return total;
}

struct vres {
    bool ran;
    double rate;      /* records per second */
    int check;        /* 0 exact, 1 within tolerance, -1 different */
    double diff;      /* largest float difference */
    char why[160];    /* what differed */
    const char *against;
};

/* One variant being timed: its function, the calls in one sample, its
 * samples' rates and where its median goes. */
struct timing {
    bench_fn f;
    long reps;
    double rates[64];
    struct vres *res;
};

/* calls in a sample of >= min_s: a warm-up call times the first */
static long reps_for(struct ctx *c, const struct kernel *k, bench_fn f,
                     const struct opts *o)
{
    reset(c);
    double one = timed_batch(c, k, f, 1);
    if (one <= 0)
        one = 1e-9;
    long reps = (long)ceil(o->min_s / one);
    return reps < 1 ? 1 : reps;
}

/* records per second of each variant: the median of `samples` samples of
 * >= min_s, taken round-robin (sample s of every variant, then sample
 * s + 1), so a slow stretch of a shared machine falls on every variant
 * of the row alike instead of on the one being timed then. */
static void measure_all(struct ctx *c, const struct kernel *k, struct timing *t, int nt,
                        const struct opts *o, int samples)
{
    bool trace = getenv("RAKE_BENCH_TRACE") != NULL; /* tests/60 checks the order */
    for (int v = 0; v < nt; v++)
        t[v].reps = reps_for(c, k, t[v].f, o);
    for (int s = 0; s < samples; s++)
        for (int v = 0; v < nt; v++) {
            if (trace)
                fprintf(stderr, "sample %s %lld %d %d of %d\n", k->id, (long long)c->n, s, v, nt);
            double secs = timed_batch(c, k, t[v].f, t[v].reps);
            t[v].rates[s] = (double)c->n * (double)t[v].reps / secs;
        }
    for (int v = 0; v < nt; v++) {
        t[v].res->rate = median(t[v].rates, samples);
        t[v].res->ran = true;
    }
}

/* ---- the machine: clock and bandwidth -------------------------------- */

/* the core clock: a chain of 200 million dependent register adds, one a
 * cycle (adds of an immediate won't do: Golden Cove's renamer folds
 * chains of them and runs several a cycle) */
static double measure_ghz(void)
{
    double v[5];
    for (int s = 0; s < 5; s++) {
        uint64_t x = 0, one = 1;
        double t0 = now_s();
        for (long i = 0; i < 2000000; i++)
            __asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr"
                             : "+r"(x)
                             : "r"(one));
        v[s] = 2e8 / (now_s() - t0) / 1e9;
    }
    return median(v, 5);
}

/* The load and store ports: vector transfers per cycle at each profile's
 * width, measured on a 2 KiB buffer in L1 with cache-line-aligned
 * addresses (the best case), so an in-cache bound is what this core can
 * move, not a nominal figure: Zen 4, for one, moves 512-bit vectors at
 * half the rate of 256-bit ones.  Each sample is 400,000 x 64 transfers;
 * the best of five samples counts (noise only slows a loop down). */
#define PORT_ONE(pre, off, post) pre " " off "(%0)" post "\n\t"
#define PORT_REPT(pre, post)                                                 \
    ".rept 8\n\t" PORT_ONE(pre, "0", post) PORT_ONE(pre, "64", post)          \
        PORT_ONE(pre, "128", post) PORT_ONE(pre, "192", post)                  \
            PORT_ONE(pre, "256", post) PORT_ONE(pre, "320", post)              \
                PORT_ONE(pre, "384", post) PORT_ONE(pre, "448", post) ".endr"
#define PORT_LOOP(asm_text, clobber)                                          \
    for (long i = 0; i < 400000; i++)                                        \
        __asm__ volatile(asm_text : : "r"(buf) : "memory", clobber)

static double port_sample(int width, bool store, char *buf)
{
    double t0 = now_s();
    if (width == 128 && !store)
        PORT_LOOP(PORT_REPT("movups", ", %%xmm0"), "xmm0");
    else if (width == 128)
        PORT_LOOP(PORT_REPT("movups %%xmm0,", ""), "xmm0");
    else if (width == 256 && !store)
        PORT_LOOP(PORT_REPT("vmovups", ", %%ymm0"), "xmm0");
    else if (width == 256)
        PORT_LOOP(PORT_REPT("vmovups %%ymm0,", ""), "xmm0");
    else if (!store)
        PORT_LOOP(PORT_REPT("vmovups", ", %%zmm0"), "xmm0");
    else
        PORT_LOOP(PORT_REPT("vmovups %%zmm0,", ""), "xmm0");
    return 400000.0 * 64 / (now_s() - t0);
}

static void measure_ports(double ghz, double loads[NPROF], double stores[NPROF])
{
    static const int width[NPROF] = {128, 256, 512};
    char *buf = xmalloc(2048);
    memset(buf, 0, 2048);
    for (int p = 0; p < NPROF; p++) {
        loads[p] = stores[p] = 0;
        if (!prof_ok[p])
            continue;
        for (int s = 0; s < 5; s++) {
            loads[p] = fmax(loads[p], port_sample(width[p], false, buf) / (ghz * 1e9));
            stores[p] = fmax(stores[p], port_sample(width[p], true, buf) / (ghz * 1e9));
        }
    }
    free(buf);
}

/* one pass of the read-only sum and of the scaled copy over n floats,
 * as `streams` interleaved sequential streams (one core gets more of the
 * memory system with several streams in flight than with one) */
static void stream_pass(const float *a, float *b, size_t n, int streams,
                        double *r, double *w)
{
    size_t m = n / (size_t)streams;
    float acc[16] = {0};
    double t0 = now_s();
    for (size_t i = 0; i < m; i += 16)
        for (int k = 0; k < streams; k++)
            for (int j = 0; j < 16; j++)
                acc[j] += a[(size_t)k * m + i + j];
    *r = (double)n * 4 / (now_s() - t0);
    float f = acc[0] == -1.0f ? 2.0f : 1.0f; /* not known to the compiler */
    t0 = now_s();
    for (size_t i = 0; i < m; i += 16)
        for (int k = 0; k < streams; k++)
            for (int j = 0; j < 16; j++)
                b[(size_t)k * m + i + j] = f * a[(size_t)k * m + i + j];
    *w = (double)n * 8 / (now_s() - t0);
}

/* stream bandwidth in bytes per second over 256 MiB arrays: a read-only
 * sum (bytes read) and a copy with a scale (bytes read + bytes written,
 * STREAM's counting), each as 1 and as 8 interleaved streams; per
 * pattern the better stream count's median of `runs` runs */
static void measure_stream(double *read_bw, double *copy_bw, int runs)
{
    const size_t n = (256u << 20) / sizeof(float);
    float *a = xmalloc(n * 4), *b = xmalloc(n * 4);
    double r[8], w[8];
    for (size_t i = 0; i < n; i++)
        a[i] = (float)(i & 1023), b[i] = 0;
    *read_bw = *copy_bw = 0;
    for (int streams = 1; streams <= 8; streams *= 8) {
        for (int s = 0; s < runs; s++)
            stream_pass(a, b, n, streams, &r[s], &w[s]);
        *read_bw = fmax(*read_bw, median(r, runs));
        *copy_bw = fmax(*copy_bw, median(w, runs));
    }
    free(a);
    free(b);
}

static struct {
    double ghz, read_bw, copy_bw, load[3];
    double port_loads[NPROF], port_stores[NPROF]; /* per cycle */
    char cpu[128];
} machine;

static void read_machine_facts(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &machine.load[0], &machine.load[1],
                   &machine.load[2]) != 3)
            machine.load[0] = -1;
        fclose(f);
    }
    f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            snprintf(machine.cpu, sizeof machine.cpu, "%s", colon + 2);
            machine.cpu[strcspn(machine.cpu, "\n")] = 0;
            break;
        }
    }
    if (f)
        fclose(f);
}

static void detect_profiles(void)
{
    __builtin_cpu_init();
    prof_ok[0] = true;
    prof_ok[1] = __builtin_cpu_supports("avx2") &&
                 __builtin_cpu_supports("fma");
    prof_ok[2] = __builtin_cpu_supports("avx512f") &&
                 __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512dq") &&
                 __builtin_cpu_supports("avx512vl");
    prof_why[1] = "this CPU has no avx2 and fma (/proc/cpuinfo)";
    prof_why[2] = "this CPU has no avx512f, bw, dq and vl (/proc/cpuinfo; "
                  "Highway's AVX3 needs all four)";
    for (int p = 0; p < NPROF; p++)
        if (!prof_ok[p])
            printf("skipping %s: %s\n", prof_name[p], prof_why[p]);
}

/* ---- one row of results: a kernel at a size -------------------------- */

enum cls { CACHE, MID, MEMORY };
static const char *const cls_name[] = {"cache", "mid", "memory"};


struct row {
    const struct kernel *k;
    int64_t n;
    enum cls cls;
    struct vres gcc, clang, rake[NPROF], hwy[NPROF];
    const char *rake_error[NPROF];
    double bound[NPROF];
    int patterns; /* input patterns the timed calls take in turn */
    char misses[NPROF][512];
    int nmiss[NPROF];
};

static int failures; /* outputs that differed */

static enum cls class_of(int64_t n)
{
    return n <= 65536 ? CACHE : n >= 4 * 1048576 ? MEMORY : MID;
}

static bench_fn rake_fn(const struct kernel *k, int p, const char **error)
{
    for (int i = 0; i < rake_entry_count; i++) {
        const struct rake_entry *e = &rake_entries[i];
        if (!strcmp(e->file, k->file) && !strcmp(e->profile, prof_name[p])) {
            *error = e->error;
            return e->fn;
        }
    }
    *error = "no object: bench/run did not compile this kernel";
    return NULL;
}

/* run f once from the pristine data and compare with the saved outputs */
static void check_variant(struct ctx *c, const struct kernel *k, bench_fn f,
                          struct vres *v, const char *against)
{
    double diff;
    char why[160] = "";
    reset(c);
    k->call(c, f);
    int r = compare_outputs(c, &diff, why, sizeof why);
    if (r < v->check || !v->against) { /* keep the worst result */
        v->check = r;
        v->against = against;
        snprintf(v->why, sizeof v->why, "%s", why);
    }
    if (diff > v->diff)
        v->diff = diff;
}

static void save_from(struct ctx *c, const struct kernel *k, bench_fn f)
{
    reset(c);
    k->call(c, f);
    save_outputs(c);
}

/* every variant of profile p compared with Rake's output (or, where
 * rakec refused the kernel, with the scalar reference's) */
static void check_profile(struct ctx *c, struct row *w, int p)
{
    const struct kernel *k = w->k;
    bench_fn rk = rake_fn(k, p, &w->rake_error[p]);
    const char *against = rk ? "rake" : "reference";
    save_from(c, k, k->fns.ref);
    if (rk) {
        check_variant(c, k, rk, &w->rake[p], "reference");
        save_outputs(c);
    }
    check_variant(c, k, k->fns.gcc, &w->gcc, against);
    check_variant(c, k, k->fns.clang, &w->clang, against);
    check_variant(c, k, k->fns.hwy[p], &w->hwy[p], against);
}

static double bound_of(const struct kernel *k, enum cls cls, int p)
{
    if (cls == MEMORY) {
        double bw = k->wbytes == 0 ? machine.read_bw : machine.copy_bw;
        return bw / (k->rbytes + k->wbytes);
    }
    double cycles = fmax(k->loads / machine.port_loads[p],
                         k->stores / machine.port_stores[p]);
    return machine.ghz * 1e9 * prof_lanes[p] / cycles;
}

static void time_row(struct ctx *c, struct row *w, const struct opts *o)
{
    const struct kernel *k = w->k;
    int samples = o->samples ? o->samples : w->cls == MEMORY ? 5
                                          : w->cls == MID    ? 7
                                                             : 9;
    struct timing t[2 + 2 * NPROF];
    int nt = 0;
    t[nt++] = (struct timing){.f = k->fns.gcc, .res = &w->gcc};
    t[nt++] = (struct timing){.f = k->fns.clang, .res = &w->clang};
    for (int p = 0; p < NPROF; p++) {
        if (!prof_ok[p])
            continue;
        const char *err;
        bench_fn rk = rake_fn(k, p, &err);
        if (rk)
            t[nt++] = (struct timing){.f = rk, .res = &w->rake[p]};
        t[nt++] = (struct timing){.f = k->fns.hwy[p], .res = &w->hwy[p]};
    }
    measure_all(c, k, t, nt, o, samples);
}

/* ---- targets --------------------------------------------------------- */

static void miss(struct row *w, int p, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t used = strlen(w->misses[p]);
    snprintf(w->misses[p] + used, sizeof w->misses[p] - used, "%s%s",
             used ? "; " : "", buf);
    w->nmiss[p]++;
}

static double best_c(const struct row *w)
{
    return fmax(w->gcc.rate, w->clang.rate);
}

/* the targets for Rake on profile p; every miss is recorded */
static void judge(struct row *w, int p)
{
    const struct vres *r = &w->rake[p];
    w->bound[p] = bound_of(w->k, w->cls, p);
    if (!r->ran) {
        miss(w, p, "Rake not compiled: %s", w->rake_error[p]);
        return;
    }
    double pct = 100 * r->rate / w->bound[p];
    if (w->cls == CACHE && pct < 80)
        miss(w, p, "%.0f%% of the port bound (target 80%%)", pct);
    if (w->cls == MEMORY && pct < 90)
        miss(w, p, "%.0f%% of stream bandwidth (target 90%%)", pct);
    if (p != 1)
        return; /* the speed targets are the issue's, on AVX2 */
    if (r->rate < best_c(w))
        miss(w, p, "slower than best C (x%.2f)", r->rate / best_c(w));
    if (r->rate < w->hwy[p].rate)
        miss(w, p, "slower than Highway (x%.2f)", r->rate / w->hwy[p].rate);
    if (!strcmp(w->k->id, "compact_50") && r->rate < 3 * best_c(w))
        miss(w, p, "compaction x%.2f best C (target x3)",
             r->rate / best_c(w));
}

/* ---- one kernel at one size ------------------------------------------ */

static void run_row(struct row *w, const struct kernel *k, int64_t n,
                    const struct opts *o)
{
    struct ctx c = {0};
    memset(w, 0, sizeof *w);
    w->k = k;
    w->n = k->setup == setup_dot || k->setup == setup_count ? n / 64 * 64 : n;
    w->cls = class_of(w->n);
    c.n = w->n;
    rng_state = 0x5eed0000u + (uint64_t)(k - kernels);
    k->setup(&c, k);
    w->patterns = c.npatterns > 1 ? c.npatterns : 1;
    for (int p = 0; p < NPROF; p++)
        if (prof_ok[p])
            check_profile(&c, w, p);
    time_row(&c, w, o);
    for (int p = 0; p < NPROF; p++)
        if (prof_ok[p])
            judge(w, p);
    free_ctx(&c);
}

/* ---- output: table, JSON, gnuplot data -------------------------------- */

static const char *check_word(const struct vres *v)
{
    return v->check < 0 ? "DIFFERS" : v->check ? "within tolerance" : "exact";
}

static void print_rate(const struct vres *v)
{
    if (v->ran)
        printf(" %9.1f", v->rate / 1e6);
    else
        printf(" %9s", "-");
}

static void print_ratio(const struct vres *a, const struct vres *b)
{
    if (a->ran && b->ran)
        printf(" %6.2f", a->rate / b->rate);
    else
        printf(" %6s", "-");
}

static void print_header(void)
{
    printf("\n%-10s %9s %-10s %9s %9s %9s %9s %6s %6s %6s %9s %6s  %s\n",
           "kernel", "records", "profile", "Rake", "gcc", "clang",
           "Highway", "R/gcc", "R/clng", "R/hwy", "bound", "%bnd",
           "misses (flagged)");
    printf("%-10s %9s %-10s %9s %9s %9s %9s %6s %6s %6s %9s %6s\n", "", "",
           "", "Mrec/s", "Mrec/s", "Mrec/s", "Mrec/s", "", "", "", "Mrec/s",
           "");
}

static void print_row(const struct row *w, int p)
{
    const struct vres *r = &w->rake[p];
    printf("%-10s %9lld %-10s", w->k->id, (long long)w->n, prof_name[p]);
    if (r->ran)
        printf(" %9.1f", r->rate / 1e6);
    else
        printf(" %9s", "n/c");
    print_rate(&w->gcc);
    print_rate(&w->clang);
    print_rate(&w->hwy[p]);
    print_ratio(r, &w->gcc);
    print_ratio(r, &w->clang);
    print_ratio(r, &w->hwy[p]);
    printf(" %9.1f", w->bound[p] / 1e6);
    if (r->ran)
        printf(" %5.0f%%", 100 * r->rate / w->bound[p]);
    else
        printf(" %6s", "-");
    printf("  %s%s\n", w->nmiss[p] ? "MISS: " : "ok", w->misses[p]);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_variant(FILE *f, const char *key, const char *name,
                         const struct vres *v, const struct row *w, int p,
                         const char *error)
{
    fprintf(f, "        ");
    json_str(f, key);
    fprintf(f, ": {\"name\": ");
    json_str(f, name);
    if (!v->ran) {
        fprintf(f, ", \"status\": \"not-compiled\", \"reason\": ");
        json_str(f, error);
        fprintf(f, "}");
        return;
    }
    fprintf(f, ", \"status\": \"measured\", \"records_per_s\": %.6g, "
               "\"pct_of_bound\": %.2f, \"check\": ",
            v->rate, 100 * v->rate / w->bound[p]);
    json_str(f, check_word(v));
    fprintf(f, ", \"checked_against\": ");
    json_str(f, v->against);
    fprintf(f, ", \"max_float_difference\": %.3g", v->diff);
    if (v->check < 0) {
        fprintf(f, ", \"difference\": ");
        json_str(f, v->why);
    }
    fprintf(f, "}");
}

static void json_ratio(FILE *f, const char *key, const struct vres *a,
                       const struct vres *b, bool last)
{
    fprintf(f, "\"%s\": ", key);
    if (a->ran && b->ran)
        fprintf(f, "%.4f", a->rate / b->rate);
    else
        fprintf(f, "null");
    fprintf(f, last ? "" : ", ");
}

static void json_row(FILE *f, const struct row *w, int p, bool last)
{
    const struct kernel *k = w->k;
    fprintf(f, "    {\"kernel\": \"%s\", \"title\": ", k->id);
    json_str(f, k->title);
    fprintf(f, ", \"records\": %lld, \"class\": \"%s\", \"profile\": "
               "\"%s\", \"lanes\": %d, \"data_patterns\": %d,\n",
            (long long)w->n, cls_name[w->cls], prof_name[p], prof_lanes[p],
            w->patterns);
    fprintf(f, "     \"bound\": {\"kind\": \"%s\", \"records_per_s\": %.6g, "
               "\"loads_per_rack\": %d, \"stores_per_rack\": %d, "
               "\"bytes_per_record\": %.3g, \"target_pct\": %s},\n",
            w->cls == MEMORY ? "stream" : "port", w->bound[p], k->loads,
            k->stores, k->rbytes + k->wbytes,
            w->cls == CACHE ? "80" : w->cls == MEMORY ? "90" : "null");
    fprintf(f, "     \"variants\": {\n");
    json_variant(f, "rake", prof_name[p], &w->rake[p], w, p,
                 w->rake_error[p]);
    fprintf(f, ",\n");
    json_variant(f, "gcc", "gcc -O3 -march=native", &w->gcc, w, p, NULL);
    fprintf(f, ",\n");
    json_variant(f, "clang", "clang -O3 -march=native", &w->clang, w, p,
                 NULL);
    fprintf(f, ",\n");
    json_variant(f, "highway", hwy_name[p], &w->hwy[p], w, p, NULL);
    fprintf(f, "},\n     \"ratios\": {");
    json_ratio(f, "rake/gcc", &w->rake[p], &w->gcc, false);
    json_ratio(f, "rake/clang", &w->rake[p], &w->clang, false);
    json_ratio(f, "rake/highway", &w->rake[p], &w->hwy[p], true);
    fprintf(f, "},\n     \"targets_met\": %s, \"misses\": ",
            w->nmiss[p] ? "false" : "true");
    json_str(f, w->misses[p]);
    fprintf(f, "}%s\n", last ? "" : ",");
}

static void json_header(FILE *f, const struct opts *o)
{
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(f, "{\n  \"format\": \"rake-bench/1\",\n  \"mode\": \"%s\",\n"
               "  \"date\": \"%s\",\n  \"cpu\": ",
            o->smoke ? "smoke" : "full", date);
    json_str(f, machine.cpu);
    fprintf(f, ",\n  \"load_average_at_start\": [%.2f, %.2f, %.2f],\n",
            machine.load[0], machine.load[1], machine.load[2]);
    fprintf(f, "  \"core_ghz\": %.4f,\n  \"stream_bytes_per_s\": "
               "{\"read\": %.6g, \"copy\": %.6g},\n",
            machine.ghz, machine.read_bw, machine.copy_bw);
    fprintf(f, "  \"port_model\": \"vector loads and stores per cycle at "
               "the profile's width, measured in L1\",\n  \"ports\": {");
    for (int p = 0, first = 1; p < NPROF; p++)
        if (prof_ok[p]) {
            fprintf(f, "%s\"%s\": {\"loads_per_cycle\": %.3f, "
                       "\"stores_per_cycle\": %.3f}",
                    first ? "" : ", ", prof_name[p], machine.port_loads[p],
                    machine.port_stores[p]);
            first = 0;
        }
    fprintf(f, "},\n");
    fprintf(f, "  \"profiles\": [");
    for (int p = 0; p < NPROF; p++) {
        fprintf(f, "%s{\"name\": \"%s\", \"lanes\": %d, \"run\": %s, "
                   "\"reason\": ",
                p ? ", " : "", prof_name[p], prof_lanes[p],
                prof_ok[p] ? "true" : "false");
        json_str(f, prof_ok[p] ? "" : prof_why[p]);
        fprintf(f, "}");
    }
    fprintf(f, "],\n");
}

static void write_json(const char *path, struct row *rows, int nrows,
                       const struct opts *o, int misses)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    json_header(f, o);
    fprintf(f, "  \"results\": [\n");
    int last = -1;
    for (int i = 0; i < nrows; i++)
        for (int p = 0; p < NPROF; p++)
            if (prof_ok[p])
                last = i * NPROF + p;
    for (int i = 0; i < nrows; i++)
        for (int p = 0; p < NPROF; p++)
            if (prof_ok[p])
                json_row(f, &rows[i], p, i * NPROF + p == last);
    fprintf(f, "  ],\n  \"missed_targets\": %d,\n  \"output_mismatches\": "
               "%d\n}\n",
            misses, failures);
    fclose(f);
}

/* RESULTS.dat: one gnuplot block per size, a line per kernel, Mrec/s per
 * variant (NaN where the variant did not run) */
static void dat_rate(FILE *f, const struct vres *v)
{
    if (v->ran)
        fprintf(f, " %.4g", v->rate / 1e6);
    else
        fprintf(f, " NaN");
}

static void write_dat(const char *path, struct row *rows, int nrows,
                      const struct opts *o)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    for (int s = 0; s < o->nsizes; s++) {
        fprintf(f, "# %lld records\nkernel rake-sse2 rake-avx2 "
                   "rake-avx512 gcc clang hwy-ssse3 hwy-avx2 hwy-avx512\n",
                (long long)o->sizes[s]);
        for (int i = s * NKERNEL; i < (s + 1) * NKERNEL && i < nrows; i++) {
            fprintf(f, "%s", rows[i].k->id);
            for (int p = 0; p < NPROF; p++)
                dat_rate(f, &rows[i].rake[p]);
            dat_rate(f, &rows[i].gcc);
            dat_rate(f, &rows[i].clang);
            for (int p = 0; p < NPROF; p++)
                dat_rate(f, &rows[i].hwy[p]);
            fprintf(f, "\n");
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
}

/* ---- main ------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: bench [--smoke] [--sizes N,N,...] "
                    "[--samples N] [--min-ms MS] --out PATH-STEM\n");
    exit(2);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    static const int64_t full[] = {4096, 1048576, 16777216};
    static const int64_t smoke[] = {1003, 65541};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--smoke"))
            o->smoke = true;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            o->out = argv[++i];
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            o->samples = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-ms") && i + 1 < argc)
            o->min_s = atof(argv[++i]) / 1e3;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            for (char *s = strtok(argv[++i], ","); s; s = strtok(NULL, ",")) {
                int n = (int)(sizeof o->sizes / sizeof o->sizes[0]);
                if (o->nsizes == n) {
                    fprintf(stderr, "bench: --sizes takes at most %d sizes\n", n);
                    exit(2);
                }
                char *end;
                long long v = strtoll(s, &end, 10);
                if (*end || v < 1) {
                    fprintf(stderr, "bench: --sizes: '%s' is not a positive count\n", s);
                    exit(2);
                }
                o->sizes[o->nsizes++] = v;
            }
        else
            usage();
    }
    if (!o->out || o->samples < 0 || o->samples > 64)
        usage();
    const int64_t *def = o->smoke ? smoke : full;
    for (int i = 0; !o->nsizes && i < 3 - o->smoke; i++)
        o->sizes[i] = def[i];
    if (!o->nsizes)
        o->nsizes = o->smoke ? 2 : 3;
    if (o->smoke && !o->samples)
        o->samples = 3;
    if (o->min_s <= 0)
        o->min_s = o->smoke ? 0.001 : 0.02;
}

static int report(struct row *rows, int nrows)
{
    int misses = 0;
    print_header();
    for (int i = 0; i < nrows; i++)
        for (int p = 0; p < NPROF; p++)
            if (prof_ok[p]) {
                print_row(&rows[i], p);
                misses += rows[i].nmiss[p];
            }
    return misses;
}

/* every output that differed, printed and counted */
static void report_checks(const struct row *w)
{
    const struct vres *all[2 + 2 * NPROF] = {&w->gcc, &w->clang};
    const char *names[2 + 2 * NPROF] = {"gcc", "clang"};
    for (int p = 0; p < NPROF; p++) {
        all[2 + p] = &w->rake[p], names[2 + p] = prof_name[p];
        all[2 + NPROF + p] = &w->hwy[p], names[2 + NPROF + p] = hwy_name[p];
    }
    for (int i = 0; i < 2 + 2 * NPROF; i++)
        if (all[i]->against && all[i]->check < 0) {
            printf("OUTPUT DIFFERS: %s at %lld records, %s against %s: %s\n",
                   w->k->id, (long long)w->n, names[i], all[i]->against,
                   all[i]->why);
            failures++;
        }
}

int main(int argc, char **argv)
{
    struct opts o = {0};
    char path[4096];
    parse_args(argc, argv, &o);
    read_machine_facts();
    detect_profiles();
    printf("load average at start: %.2f %.2f %.2f\n", machine.load[0],
           machine.load[1], machine.load[2]);
    machine.ghz = measure_ghz();
    measure_ports(machine.ghz, machine.port_loads, machine.port_stores);
    measure_stream(&machine.read_bw, &machine.copy_bw, o.smoke ? 2 : 5);
    printf("core clock %.2f GHz (dependent adds); stream bandwidth: read "
           "%.1f GB/s, copy %.1f GB/s (256 MiB arrays, 1 or 8 streams)\n",
           machine.ghz, machine.read_bw / 1e9, machine.copy_bw / 1e9);
    for (int p = 0; p < NPROF; p++)
        if (prof_ok[p])
            printf("ports at %s's width: %.2f loads and %.2f stores a cycle "
                   "(L1, aligned)\n",
                   prof_name[p], machine.port_loads[p], machine.port_stores[p]);
    int nrows = o.nsizes * NKERNEL;
    struct row *rows = calloc((size_t)nrows, sizeof *rows);
    for (int s = 0; s < o.nsizes; s++)
        for (int k = 0; k < NKERNEL; k++) {
            struct row *w = &rows[s * NKERNEL + k];
            run_row(w, &kernels[k], o.sizes[s], &o);
            report_checks(w);
            fprintf(stderr, "  %s at %lld records done\n", kernels[k].id,
                    (long long)w->n);
        }
    int misses = report(rows, nrows);
    snprintf(path, sizeof path, "%s.json", o.out);
    write_json(path, rows, nrows, &o, misses);
    snprintf(path, sizeof path, "%s.dat", o.out);
    write_dat(path, rows, nrows, &o);
    printf("\n%d missed targets (flagged MISS above); %d output "
           "mismatches\n",
           misses, failures);
    free(rows);
    return failures ? 1 : 0;
}

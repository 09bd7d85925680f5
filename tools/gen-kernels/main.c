/* gen-kernels: random, well-typed Rake kernels and calls for them, for the
 * differential test of rake-interp's native-IR evaluator against its tree
 * evaluator (tests/40-nir-diff.bats, tests/nirdiff/README.md).
 *
 *   gen-kernels --seed S --count N --profile P --out-rk F.rk --out-calls F.calls
 *               [--calls K] [--depth D] [--contract-rich] [--contracting-ok]
 *   gen-kernels --compare A.out B.out F.rk F.calls
 *   gen-kernels --show F.rk NAME|LINE
 *
 * The first form writes N kernel groups valid on profile P (x86-sse2,
 * x86-avx2, x86-avx512, aarch64-neon, wasm-simd128) and, for each, K calls
 * (default 8; `rake-interp --kernels` lines) whose inputs mix special
 * values (signed zeros, infinities, quiet and signalling NaNs, subnormals,
 * 2^23, 2^31 and 2^32 boundaries, ties, to_i32/to_u32 saturation bounds,
 * integer extremes, u32 lanes with bit 31 set, shift counts >= 32, values
 * whose products round differently when fused) with ordinary and random
 * ones, lanes often repeating within a call.  A group is, between the
 * comment lines `~~ begin NAME` and `~~ end NAME`: its global tines (some
 * referring to others, defined later or earlier), at most one helper (a
 * scratch or rake the kernel calls, so it is inlined, sometimes under a
 * mask), and the kernel NAME, a scratch or a rake.  NAME ends in the
 * result's kind: _f for f32 (racks and scalars), _i i32, _u u32, _m mask,
 * _b bool.  The output is a function of the arguments only.
 *
 * Scratches have lets, uniform lets, runs of fused bindings (one region
 * each), locations, rack arrays, assignments and repeat; rakes have setup
 * lets, local tines, one to three through blocks (with and without else,
 * some nested under an earlier one's predicate, reading earlier results)
 * and a sweep.  Expressions use every operation of the f32s/i32s/u32s
 * subset (fma only where the profile has it), masks, mask and uniform ifs,
 * conversions, bitcasts, reductions, scans, lane moves, all/any/bitmask,
 * uniform arithmetic and calls of the helper.
 *
 * Every kernel must pass rake-check: the generator keeps the rules the
 * checker enforces (see passes/rake-check):
 *   - types: one element per operation, literals typed by their
 *     neighbour (never a bare literal where nothing types it), no
 *     literal-with-literal operation, marks on named uniforms, integer
 *     racks don't divide, unary minus not on u32s;
 *   - where operations may appear: no reductions or scans in through
 *     bodies or fused bindings, no extract, insert, bitmask, bitcast,
 *     indexing or calls in fused bindings, no calls in through bodies;
 *   - definedness: a through result without else is read only under a
 *     mask that implies its predicate.  The generator models predicates
 *     as truth tables over the checker's comparison atoms (a comparison is
 *     one atom, keyed by its structure, as in rake-check's pred.c), and
 *     tracks the mask every expression is evaluated under: a sweep arm's
 *     remaining lanes, a through block's predicate, a mask if's branches;
 *     `a and b` evaluates b where a holds, `a or b` where it doesn't;
 *   - cross-lane operations (shuffle, extract, insert, reductions, scans,
 *     all, any, bitmask) under a partial mask take only names defined in
 *     every lane;
 *   - coverage: every sweep arm selects some lane the earlier ones left,
 *     and a sweep ends with `_` exactly when its arms don't cover every
 *     lane (some end with a complementary `(... or ...) gaps` arm instead).
 *
 * Contraction: on x86-avx2, x86-avx512 and aarch64-neon a float multiply
 * never feeds a float add in the same fused region, unless --contracting-ok
 * (the comparison is with `rake-interp --contract`) or --contract-rich,
 * which seeks multiply-add shapes: in one region, across regions, in lets
 * and in final results (which are in no region), products with several
 * uses, products of uniforms.
 *
 * Constructs that hit an open bug are avoided, each with a reproducer in
 * tests/nirdiff/repro/ (none now); a reproducer's gen-option line names an
 * option that asks for the construct anyway, where there is one.
 *
 * NaN payloads are unspecified, so a float value whose bits reach a
 * non-float result (a bitcast) is made only from operations that define
 * every bit: parameters, negation, abs, selections, shuffles and bitcasts
 * from integers.  A helper's parameters count as such, so its f32 rack
 * arguments are made that way too (a min of a NaN reached a helper that
 * bitcast it: SSE2 and AVX2 give that NaN all-ones bits, the interpreter
 * 0x7fc00000, seed 53000 kernel k0409_f).
 *
 * --compare checks two `rake-interp --kernels` outputs for the calls of
 * F.calls line by line: bit for bit, except that in the lanes of an _f
 * kernel any NaN equals any NaN.  On a difference it prints the kernel's
 * group, the call and both results, and exits 1.  --show prints the group
 * of a kernel (by name or group prefix) or of a line of F.rk.
 *
 * Build: cc -O2 -std=c11 with every .c file of this folder.  This file
 * holds the options and the output; gen-kernels.h lists the others. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-kernels.h"

/* --- profiles and options ---------------------------------------------------- */

static const Prof profs[] = {
    {"x86-sse2", 4, 0, 0},     {"x86-avx2", 8, 1, 1},     {"x86-avx512", 16, 1, 1},
    {"aarch64-neon", 4, 1, 1}, {"wasm-simd128", 4, 0, 0},
};

const Prof *P;
int no_contract; /* no f32 multiply feeding an f32 add in one region */
int contract_rich;
static int contracting_ok; /* rake-interp --contract emulates contraction */
int deep; /* --depth: extra expression depth */

/* --- main ------------------------------------------------------------------------ */

/* One stream per (seed, profile), another with --contract-rich. */
static uint64_t stream(unsigned long long seed, const char *prof)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull;
    for (const char *p = prof; *p; p++)
        s = (s ^ (uint64_t)(unsigned char)*p) * 0x100000001b3ull;
    if (contract_rich)
        s ^= 0xc0ffee;
    return s;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gen-kernels --seed S --count N --profile P --out-rk F.rk --out-calls F.calls\n"
            "                   [--calls K] [--depth D] [--contract-rich] [--contracting-ok]\n"
            "       gen-kernels --show F.rk NAME|LINE\n"
            "       gen-kernels --compare A.out B.out F.rk F.calls\n");
    exit(2);
}

typedef struct Opts {
    unsigned long long seed;
    int count, ncalls;
    const char *prof, *out_rk, *out_calls;
} Opts;

/* The option at argv[i]: how many arguments after it it takes. */
static int option(Opts *o, int argc, char **argv, int i)
{
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--seed") && v)
        o->seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--count") && v)
        o->count = atoi(v);
    else if (!strcmp(a, "--calls") && v)
        o->ncalls = atoi(v);
    else if (!strcmp(a, "--profile") && v)
        o->prof = v;
    else if (!strcmp(a, "--out-rk") && v)
        o->out_rk = v;
    else if (!strcmp(a, "--out-calls") && v)
        o->out_calls = v;
    else if (!strcmp(a, "--depth") && v)
        deep = atoi(v);
    else if (!strcmp(a, "--contract-rich"))
        return contract_rich = 1, 0;
    else if (!strcmp(a, "--contracting-ok"))
        return contracting_ok = 1, 0;
    else
        usage();
    return 1;
}

/* The groups and their calls, written to the two files. */
static int generate(const Opts *o)
{
    Buf rk = {0}, calls = {0};
    bput(&rk, "~~ generated by tools/gen-kernels --seed %llu --count %d --profile %s%s\n\n", o->seed,
         o->count, o->prof, contract_rich ? " --contract-rich" : "");
    bput(&calls, "# generated by tools/gen-kernels --seed %llu --count %d --profile %s%s\n", o->seed,
         o->count, o->prof, contract_rich ? " --contract-rich" : "");
    for (int i = 0; i < o->count; i++)
        gen_group(&rk, &calls, i, o->ncalls);
    FILE *f = fopen(o->out_rk, "w");
    FILE *g = fopen(o->out_calls, "w");
    if (!f || !g) {
        fprintf(stderr, "gen-kernels: cannot write the output files\n");
        return 2;
    }
    fputs(rk.s, f);
    fputs(calls.s, g);
    fclose(f);
    fclose(g);
    return 0;
}

int main(int argc, char **argv)
{
    Opts o = {1, 50, 8, NULL, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--compare") && i + 4 < argc)
            return compare(argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]);
        if (!strcmp(argv[i], "--show") && i + 2 < argc)
            return show(argv[i + 1], argv[i + 2]);
        i += option(&o, argc, argv, i);
    }
    if (!o.prof || !o.out_rk || !o.out_calls || o.count < 1 || o.ncalls < 1)
        usage();
    for (int i = 0; i < COUNT(profs); i++)
        if (!strcmp(profs[i].name, o.prof))
            P = &profs[i];
    if (!P) {
        fprintf(stderr, "gen-kernels: unknown profile '%s'\n", o.prof);
        return 2;
    }
    no_contract = P->contracts && !contract_rich && !contracting_ok;
    rand_seed(stream(o.seed, o.prof));
    return generate(&o);
}

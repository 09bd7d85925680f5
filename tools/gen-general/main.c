/* gen-general: random, well-typed Rake programs of general runs (runs
 * over views, spec page 03), for tests/53-general-runs.bats: each is run
 * by `rakec --run` and `rakec --interpret` with 0, 1, 3 and 5 arguments
 * on every x86 profile, and stdout, stderr and the exit status must be
 * equal, traps included.
 *
 *   gen-general --seed S --out DIR [--files N]
 *
 * writes DIR/gNNN.rk, N files (default 16).  Each holds one run `g` over
 * an f32 view x it reads and two views it reads and writes, y (i32) and
 * out (f32), with three i32 uniforms a, b and k, and `slow main(argc,
 * argv)`, which fills arrays of random sizes, calls `g` with bounds made
 * from argc and returns a checksum of what `g` wrote.  The run has one to three counted loops `for <i: i32> from <a>
 * up to <b> by <s>` (a step of 1, 2, 4, 8 or 16, which rake-lower checks
 * before the loop, or 3 or 5, which it checks at each access), whose
 * bodies store, load and accumulate racks and read elements at the index
 * plus or minus a constant, at the index plus a uniform (never hoisted),
 * inside `if`s on the index (conditional accesses: never hoisted) and
 * outside them.  As argc grows the bounds move past either end of the
 * arrays, so each program runs the fast copy of a loop, its checked copy
 * and the trap of the access the interpreter stops at, on some argc;
 * with no argument every access stays inside the arrays.
 *
 * Nothing else may differ between the two: no multiply is added to
 * (contraction), float values stay small integers and halves (every sum
 * exact), integers stay far from overflow.  The output is a function of
 * the arguments.  Build: cc -O2 -std=c11 tools/gen-general/main.c */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next64(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rnd(int n) { return n <= 1 ? 0 : (int)(next64() % (uint64_t)n); }
static int chance(int pct) { return rnd(100) < pct; }
static int pick(const int *v, int n) { return v[rnd(n)]; }

static FILE *out;

static void put(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vfprintf(out, f, ap);
    va_end(ap);
}

/* An index into a view at the loop index: plus or minus a constant
 * (hoistable), or plus the uniform parameter k (checked where it
 * happens). */
static void index_at(void)
{
    int c = rnd(19) - 6;
    if (chance(12))
        put("<i> + <k>");
    else if (c == 0)
        put("<i>");
    else if (c < 0)
        put("<i> - <%d>", -c);
    else
        put("<i> + <%d>", c);
}

/* An element index (inside <...>): the loop index plus a constant. */
static void element_at(void)
{
    int c = rnd(15) - 4;
    if (c < 0)
        put("i - %d", -c);
    else
        put("i + %d", c);
}

static void f32_expr(int depth);
static void i32_expr(int depth);

/* What a select's arm may be: values already in registers (Rake
 * computes both arms, so neither may read memory). */
static void f32_pure(int depth)
{
    if (depth > 0 && chance(40)) {
        put("(");
        f32_pure(depth - 1);
        put(chance(50) ? " + " : " - ");
        f32_pure(depth - 1);
        put(")");
    } else if (chance(40)) {
        put("acc");
    } else {
        put("<%d.5>", rnd(7) - 3);
    }
}

static void i32_pure(int depth)
{
    if (depth > 0 && chance(40)) {
        put("(");
        i32_pure(depth - 1);
        put(chance(50) ? " + " : " - ");
        i32_pure(depth - 1);
        put(")");
    } else if (chance(40)) {
        put("iacc");
    } else {
        put("<%d>", rnd(9) - 4);
    }
}

static void f32_leaf(void)
{
    switch (rnd(6)) {
    case 0:
    case 1:
        put("x[");
        index_at();
        put("]");
        break;
    case 2:
        put("out[");
        index_at();
        put("]");
        break;
    case 3:
        put("<x[");
        element_at();
        put("]>");
        break;
    case 4:
        put("to_f32(y[");
        index_at();
        put("])");
        break;
    default:
        put("<%d.5>", rnd(7) - 3);
        break;
    }
}

static void f32_expr(int depth)
{
    if (depth <= 0 || chance(35)) {
        f32_leaf();
        return;
    }
    static const char *ops[] = {" + ", " - "};
    switch (rnd(4)) {
    case 0:
    case 1:
        put("(");
        f32_expr(depth - 1);
        put("%s", ops[rnd(2)]);
        f32_expr(depth - 1);
        put(")");
        break;
    case 2:
        put(chance(50) ? "min(" : "max(");
        f32_expr(depth - 1);
        put(", ");
        f32_expr(depth - 1);
        put(")");
        break;
    default:
        /* a lane mask (a rack on the left), arms that read no memory */
        put("select(x[");
        index_at();
        put(chance(50) ? "] > " : "] <= ");
        f32_expr(depth - 1);
        put(", ");
        f32_pure(depth - 1);
        put(", ");
        f32_pure(depth - 1);
        put(")");
        break;
    }
}

static void i32_leaf(void)
{
    switch (rnd(5)) {
    case 0:
    case 1:
        put("y[");
        index_at();
        put("]");
        break;
    case 2:
        put("y[");
        index_at();
        put("]");
        break;
    case 3:
        put("<y[");
        element_at();
        put("]>");
        break;
    default:
        put("<%d>", rnd(9) - 4);
        break;
    }
}

static void i32_expr(int depth)
{
    if (depth <= 0 || chance(35)) {
        i32_leaf();
        return;
    }
    switch (rnd(4)) {
    case 0:
        put("(");
        i32_expr(depth - 1);
        put(chance(50) ? " + " : " - ");
        i32_expr(depth - 1);
        put(")");
        break;
    case 1:
        put("(");
        i32_expr(depth - 1);
        put(" * <%d>)", rnd(3) + 2);
        break;
    case 2:
        put(chance(50) ? "min(" : "max(");
        i32_expr(depth - 1);
        put(", ");
        i32_expr(depth - 1);
        put(")");
        break;
    default:
        put("select(y[");
        index_at();
        put("] < ");
        i32_expr(depth - 1);
        put(", ");
        i32_pure(depth - 1);
        put(", ");
        i32_pure(depth - 1);
        put(")");
        break;
    }
}

/* One statement of a loop body at the given indentation. */
static void statement(int indent, int nested)
{
    put("%*s", indent, "");
    switch (rnd(nested ? 4 : 6)) {
    case 0:
        put("out[");
        index_at();
        put("] <- ");
        f32_expr(2);
        break;
    case 1:
        put("y[");
        index_at();
        put("] <- ");
        i32_expr(2);
        break;
    case 2:
        put("acc <- acc + ");
        f32_expr(2);
        break;
    case 3:
        put("iacc <- iacc + ");
        i32_expr(2);
        break;
    case 4:
        put("if <i> %s <%d>:\n", chance(50) ? "<" : ">=", rnd(40));
        statement(indent + 2, 1);
        if (chance(50)) {
            put("%*selse:\n", indent, "");
            statement(indent + 2, 1);
        }
        return;
    default:
        put("if <k> > <%d>:\n", rnd(6));
        statement(indent + 2, 1);
        return;
    }
    put("\n");
}

static void loop(void)
{
    static const int steps[] = {1, 2, 4, 8, 16, 3, 5};
    put("  for <i: i32> from <a> up to <b> by <%d>:\n", pick(steps, 7));
    int n = 1 + rnd(4);
    for (int s = 0; s < n; s++)
        statement(4, 0);
}

static void program(int k)
{
    static const int sizes[] = {40, 48, 64, 80, 96};
    int nx = pick(sizes, 5), ny = pick(sizes, 5), no = pick(sizes, 5);
    put("~~ tools/gen-general, program %d: a general run over three views\n", k);
    put("run g(x: []f32, y: mut []i32, out: mut []f32, <a: i32>, <b: i32>, <k: i32>):\n");
    put("  acc := <0.0>\n  iacc: i32s := <0>\n");
    int loops = 1 + rnd(3);
    for (int l = 0; l < loops; l++)
        loop();
    put("  out[<0>] <- out[<0>] + acc\n");
    put("  y[<0>] <- y[<0>] + iacc\n\n");
    put("slow main(argc: i32, argv: ptr ptr u8) -> i32:\n");
    put("  x: [%d]f32 := [0.0; %d]\n  y: [%d]i32 := [0; %d]\n", nx, nx, ny, ny);
    put("  out: [%d]f32 := [0.0; %d]\n", no, no);
    put("  for i from 0 up to %d:\n    x[i] <- f32((i * %d) %% %d) - %d.5\n", nx, 3 + rnd(20),
        5 + rnd(9), rnd(4));
    put("  for i from 0 up to %d:\n    y[i] <- (i * %d) %% %d - %d\n", ny, 3 + rnd(20), 5 + rnd(9),
        rnd(4));
    /* the bounds move with argc (1, 2, 4 or 6): a start that may fall
     * below 0, an end that may pass the arrays, the uniform offset */
    int least = nx < ny ? nx : ny;
    least = least < no ? least : no;
    /* with no argument (argc 1) every access stays inside: offsets
     * reach 6 below the index and 12 plus a 16-lane rack above it */
    put("  let a = %d - (argc - 1) * %d\n", 7 + rnd(4), rnd(3));
    put("  let b = %d + (argc - 1) * %d\n", least - 30 - rnd(8), pick((const int[]){0, 4, 8, 12}, 4));
    put("  let k = (argc - 1) * %d\n", rnd(6));
    put("  g(x, y, out, <a>, <b>, <k>)\n");
    put("  total := 0.0\n  for i from 0 up to %d:\n", no);
    put("    total <- total + out[i] * f32(i %% 7 + 1)\n");
    put("  itotal: i32 := 0\n  for i from 0 up to %d:\n", ny);
    put("    itotal <- itotal + y[i] * (i %% 5 + 1)\n");
    put("  return i32(total) + itotal %% 100000\n");
}

static void usage(void)
{
    fprintf(stderr, "usage: gen-general --seed S --out DIR [--files N]\n");
    exit(2);
}

/* A decimal argument no larger than max, or the usage. */
static unsigned long long number(const char *s, unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || v > max || s[0] == '-')
        usage();
    return v;
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1;
    const char *dir = NULL;
    int files = 16;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = number(argv[++i], ULLONG_MAX);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--files") && i + 1 < argc)
            files = (int)number(argv[++i], 100000);
        else
            usage();
    }
    if (!dir || files < 1 || files > 100000)
        usage();
    state = seed * 0x2545f4914f6cdd1dull ^ 0x47454e45ull;
    for (int k = 0; k < files; k++) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/g%03d.rk", dir, k) >= (int)sizeof path) {
            fprintf(stderr, "gen-general: %s: a directory name longer than %zu bytes\n", dir,
                    sizeof path - 16);
            return 2;
        }
        out = fopen(path, "w");
        if (!out) {
            perror(path);
            return 1;
        }
        program(k);
        if (fclose(out) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}

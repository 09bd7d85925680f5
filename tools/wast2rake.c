/* wast2rake: turn WebAssembly SIMD spec assertions into Rake programs.
 *
 *   wast2rake [-s SKIPS] [-n MAX] OUTDIR FILE.wast...
 *
 * Reads each .wast file's modules and `assert_return` forms.  An exported
 * function whose body is one instruction applied to its parameters in
 * order (`(f32x4.add (local.get 0) (local.get 1))`, `(f32x4.extract_lane 3
 * (local.get 0))`) is "direct"; the instruction names the Rake operation
 * in the table below.  Every assertion on a direct function whose
 * instruction is in the table becomes one check in a generated program;
 * every other form (and every assertion on a composite or unmapped
 * function) must match a line of the skips file, whose classes are
 *
 *   FILE-GLOB  EXPORT-GLOB  REASON...
 *
 * matched with fnmatch against the file's base name and against
 *   - the instruction (`i64x2.add`, `f64x2.extract_lane 1`), for a direct
 *     function the table doesn't cover;
 *   - `composite:EXPORT`, for a function that isn't direct;
 *   - `@assert_invalid`, `@assert_malformed`, ... for other forms;
 *   - `INSTR@TAG` for a table instruction whose assertion the table
 *     excludes by value (TAG is documented beside the rule below).
 * An unclassified assertion, or a skips line that matches nothing, is an
 * error (exit 1), so the skips file stays complete and current.
 *
 * Output in OUTDIR, per group of at most MAX (default 500) assertions on
 * one instruction from one file:
 *   NNN.rk      a program: a general run applying the operation to views,
 *               and a slow main that fills the views from exact bit
 *               patterns, runs it and compares every lane.  main returns 0
 *               when every assertion holds, else FAILS * 10000 + FIRST
 *               (FIRST = 1-based index of the first failing assertion).
 *   NNN.lines   one `FILE:LINE INSTR` per assertion, in order.
 *   index.tsv   `NNN.rk <TAB> ASSERTIONS <TAB> FILE <TAB> INSTR` per program.
 *   skips.tsv   `COUNT <TAB> FILE-GLOB <TAB> EXPORT-GLOB <TAB> REASON`.
 * and on stdout a one-line summary.
 *
 * Expectations: a float lane is compared bit for bit (so -0 and +0
 * differ) unless it is `nan:canonical` or `nan:arithmetic`, which accept
 * any quiet NaN (Rake leaves NaN signs and payloads unspecified).
 *
 * Build: cc -std=c11 -O1 -o wast2rake tools/wast2rake.c (tools/wast2rake
 * does this on demand). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- errors and allocation ------------------------------------------------- */

static const char *cur_file = "";

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "wast2rake: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = xmalloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

/* --- S-expressions ------------------------------------------------------------ */

typedef struct Sx Sx;
struct Sx {
    int list; /* 1: a list (kids); 0: an atom (text) */
    int str;  /* atom was a "string" */
    char *text;
    Sx **kids;
    int n, cap;
    int line;
};

typedef struct {
    const char *s;
    size_t i, n;
    int line;
} Lex;

static void skip_space(Lex *L)
{
    for (;;) {
        while (L->i < L->n && strchr(" \t\r\n", L->s[L->i])) {
            if (L->s[L->i] == '\n')
                L->line++;
            L->i++;
        }
        if (L->i + 1 < L->n && L->s[L->i] == ';' && L->s[L->i + 1] == ';') {
            while (L->i < L->n && L->s[L->i] != '\n')
                L->i++;
            continue;
        }
        if (L->i + 1 < L->n && L->s[L->i] == '(' && L->s[L->i + 1] == ';') {
            int depth = 0;
            while (L->i + 1 < L->n) {
                if (L->s[L->i] == '(' && L->s[L->i + 1] == ';') {
                    depth++;
                    L->i += 2;
                } else if (L->s[L->i] == ';' && L->s[L->i + 1] == ')') {
                    depth--;
                    L->i += 2;
                    if (!depth)
                        break;
                } else {
                    if (L->s[L->i] == '\n')
                        L->line++;
                    L->i++;
                }
            }
            continue;
        }
        return;
    }
}

static void push(Sx *l, Sx *k)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->kids = realloc(l->kids, sizeof(Sx *) * (size_t)l->cap);
        if (!l->kids)
            die("out of memory");
    }
    l->kids[l->n++] = k;
}

/* One S-expression, or NULL at the end of the input or a ')'. */
static Sx *parse_sx(Lex *L)
{
    skip_space(L);
    if (L->i >= L->n || L->s[L->i] == ')')
        return NULL;
    Sx *x = xmalloc(sizeof *x);
    x->line = L->line;
    if (L->s[L->i] == '(') {
        L->i++;
        x->list = 1;
        Sx *k;
        while ((k = parse_sx(L)))
            push(x, k);
        if (L->i >= L->n)
            die("%s:%d: unclosed '('", cur_file, x->line);
        L->i++;
        return x;
    }
    size_t st = L->i;
    if (L->s[L->i] == '"') {
        x->str = 1;
        L->i++;
        while (L->i < L->n && L->s[L->i] != '"') {
            if (L->s[L->i] == '\\')
                L->i++;
            if (L->i < L->n && L->s[L->i] == '\n')
                L->line++;
            L->i++;
        }
        L->i++;
        x->text = xmalloc(L->i - st - 1);
        memcpy(x->text, L->s + st + 1, L->i - st - 2);
        return x;
    }
    while (L->i < L->n && !strchr(" \t\r\n()", L->s[L->i]))
        L->i++;
    x->text = xmalloc(L->i - st + 1);
    memcpy(x->text, L->s + st, L->i - st);
    return x;
}

static int is_atom(Sx *x, const char *t) { return x && !x->list && !strcmp(x->text, t); }
static const char *head(Sx *x) { return x && x->list && x->n && !x->kids[0]->list ? x->kids[0]->text : ""; }

/* --- numbers -------------------------------------------------------------------- */

static char *strip_underscores(const char *s)
{
    char *r = xmalloc(strlen(s) + 1), *p = r;
    for (; *s; s++)
        if (*s != '_')
            *p++ = *s;
    *p = 0;
    return r;
}

/* An integer literal of a lane of `bits` bits, wrapped to those bits. */
static uint64_t parse_int(const char *t, int line)
{
    char *s = strip_underscores(t), *p = s, *end;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    errno = 0;
    unsigned long long u;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        u = strtoull(p + 2, &end, 16);
    else
        u = strtoull(p, &end, 10); /* leading zeros are decimal in wast */
    if (*end || end == p || errno)
        die("%s:%d: bad integer '%s'", cur_file, line, t);
    free(s);
    return neg ? 0 - (uint64_t)u : (uint64_t)u;
}

enum { NAN_NONE, NAN_CANON, NAN_ARITH };

/* A float literal of binary32 (bits 32) or binary64 (bits 64). */
static uint64_t parse_float(const char *t, int bits, int *nan_kind, int line)
{
    char *s = strip_underscores(t), *p = s;
    int neg = 0;
    *nan_kind = NAN_NONE;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t sign = neg ? (bits == 32 ? 0x80000000ull : 0x8000000000000000ull) : 0;
    uint64_t r;
    if (!strcmp(p, "inf")) {
        r = sign | (bits == 32 ? 0x7f800000ull : 0x7ff0000000000000ull);
    } else if (!strncmp(p, "nan", 3)) {
        uint64_t exp = bits == 32 ? 0x7f800000ull : 0x7ff0000000000000ull;
        uint64_t quiet = bits == 32 ? 0x400000ull : 0x8000000000000ull;
        if (!p[3]) {
            r = sign | exp | quiet;
        } else if (!strcmp(p + 3, ":canonical")) {
            *nan_kind = NAN_CANON;
            r = sign | exp | quiet;
        } else if (!strcmp(p + 3, ":arithmetic")) {
            *nan_kind = NAN_ARITH;
            r = sign | exp | quiet;
        } else if (!strncmp(p + 3, ":0x", 3)) {
            char *end;
            uint64_t pay = strtoull(p + 6, &end, 16);
            if (*end || !pay || pay >= (bits == 32 ? 0x800000ull : 0x10000000000000ull))
                die("%s:%d: bad NaN '%s'", cur_file, line, t);
            r = sign | exp | pay;
        } else {
            die("%s:%d: bad NaN '%s'", cur_file, line, t);
        }
    } else {
        char *end;
        errno = 0;
        if (bits == 32) {
            float f = strtof(p, &end);
            uint32_t b;
            memcpy(&b, &f, 4);
            r = b;
        } else {
            double d = strtod(p, &end);
            memcpy(&r, &d, 8);
        }
        if (*end || end == p)
            die("%s:%d: bad float '%s'", cur_file, line, t);
        r |= sign;
    }
    free(s);
    return r;
}

/* A constant: a v128 as 16 little-endian bytes with per-f32-lane NaN
 * patterns, or a scalar. */
typedef struct {
    int v128;
    char shape[8];     /* v128: f32x4, i32x4, ...; scalar: i32, f32, ... */
    uint8_t bytes[16]; /* v128 */
    int nan[4];        /* v128 f32x4 lanes; nan[0] of an f32 scalar */
    uint64_t bits;     /* scalar */
} Const;

static void parse_const(Sx *x, Const *c)
{
    memset(c, 0, sizeof *c);
    const char *h = head(x);
    if (!strcmp(h, "v128.const")) {
        if (x->n < 2 || x->kids[1]->list)
            die("%s:%d: bad v128.const", cur_file, x->line);
        const char *sh = x->kids[1]->text;
        int lanes, bits, isf = sh[0] == 'f';
        if (!strcmp(sh, "i8x16")) lanes = 16, bits = 8;
        else if (!strcmp(sh, "i16x8")) lanes = 8, bits = 16;
        else if (!strcmp(sh, "i32x4") || !strcmp(sh, "f32x4")) lanes = 4, bits = 32;
        else if (!strcmp(sh, "i64x2") || !strcmp(sh, "f64x2")) lanes = 2, bits = 64;
        else die("%s:%d: unknown shape %s", cur_file, x->line, sh);
        if (x->n != 2 + lanes)
            die("%s:%d: %s needs %d lanes", cur_file, x->line, sh, lanes);
        c->v128 = 1;
        snprintf(c->shape, sizeof c->shape, "%s", sh);
        for (int l = 0; l < lanes; l++) {
            int nk = NAN_NONE;
            uint64_t v = isf ? parse_float(x->kids[2 + l]->text, bits, &nk, x->line)
                             : parse_int(x->kids[2 + l]->text, x->line);
            if (isf && bits == 32)
                c->nan[l] = nk;
            else if (nk)
                die("%s:%d: NaN patterns only in f32x4 lanes here", cur_file, x->line);
            for (int b = 0; b < bits / 8; b++)
                c->bytes[l * bits / 8 + b] = (uint8_t)(v >> (8 * b));
        }
        return;
    }
    const char *dot = strchr(h, '.');
    if (!dot || strcmp(dot, ".const") || x->n != 2)
        die("%s:%d: expected a constant, got (%s ...)", cur_file, x->line, h);
    snprintf(c->shape, sizeof c->shape, "%.*s", (int)(dot - h), h);
    if (c->shape[0] == 'f')
        c->bits = parse_float(x->kids[1]->text, c->shape[1] == '3' ? 32 : 64, &c->nan[0], x->line);
    else
        c->bits = parse_int(x->kids[1]->text, x->line);
    if (!strcmp(c->shape, "i32") || !strcmp(c->shape, "f32"))
        c->bits &= 0xffffffffull;
}

static uint32_t word(const Const *c, int l)
{
    return (uint32_t)c->bytes[4 * l] | (uint32_t)c->bytes[4 * l + 1] << 8 |
           (uint32_t)c->bytes[4 * l + 2] << 16 | (uint32_t)c->bytes[4 * l + 3] << 24;
}

static int16_t half(const Const *c, int l)
{
    return (int16_t)(c->bytes[2 * l] | c->bytes[2 * l + 1] << 8);
}

/* --- the operation table -------------------------------------------------------- */

typedef enum {
    K_MAP,     /* v128 operands -> v128: out = EXPR(x, y, z) */
    K_CMP,     /* v128 x2 -> i32x4 of -1/0: EXPR is a mask */
    K_SHIFT,   /* v128, i32 count -> v128; the count is a uniform u32 */
    K_EXTRACT, /* v128 -> scalar lane L */
    K_REPLACE, /* v128, scalar -> v128 with lane L replaced */
    K_SPLAT,   /* scalar -> v128 */
    K_DOT      /* i16x8 x2 -> i32x4 */
} Kind;

typedef struct {
    const char *instr; /* wasm instruction, with its lane immediate if any */
    Kind kind;
    int arity;         /* v128 operands */
    const char *in;    /* element type of the operand views: f32 i32 u32 i16 */
    const char *out;   /* element type of the result view */
    const char *expr;  /* Rake expression of x, y, z (and <c>, <r>) */
    int lane;          /* K_EXTRACT, K_REPLACE */
} Op;

static const Op ops[] = {
    {"f32x4.add", K_MAP, 2, "f32", "f32", "x + y", 0},
    {"f32x4.sub", K_MAP, 2, "f32", "f32", "x - y", 0},
    {"f32x4.mul", K_MAP, 2, "f32", "f32", "x * y", 0},
    {"f32x4.div", K_MAP, 2, "f32", "f32", "x / y", 0},
    {"f32x4.neg", K_MAP, 1, "f32", "f32", "-x", 0},
    {"f32x4.sqrt", K_MAP, 1, "f32", "f32", "sqrt(x)", 0},
    {"f32x4.abs", K_MAP, 1, "f32", "f32", "abs(x)", 0},
    {"f32x4.min", K_MAP, 2, "f32", "f32", "min(x, y)", 0},
    {"f32x4.max", K_MAP, 2, "f32", "f32", "max(x, y)", 0},
    {"f32x4.ceil", K_MAP, 1, "f32", "f32", "ceil(x)", 0},
    {"f32x4.floor", K_MAP, 1, "f32", "f32", "floor(x)", 0},
    {"f32x4.trunc", K_MAP, 1, "f32", "f32", "trunc(x)", 0},
    {"f32x4.nearest", K_MAP, 1, "f32", "f32", "nearest(x)", 0},
    {"f32x4.eq", K_CMP, 2, "f32", "i32", "x = y", 0},
    {"f32x4.ne", K_CMP, 2, "f32", "i32", "x != y", 0},
    {"f32x4.lt", K_CMP, 2, "f32", "i32", "x < y", 0},
    {"f32x4.le", K_CMP, 2, "f32", "i32", "x <= y", 0},
    {"f32x4.gt", K_CMP, 2, "f32", "i32", "x > y", 0},
    {"f32x4.ge", K_CMP, 2, "f32", "i32", "x >= y", 0},
    {"f32x4.convert_i32x4_s", K_MAP, 1, "i32", "f32", "to_f32(x)", 0},
    {"f32x4.convert_i32x4_u", K_MAP, 1, "u32", "f32", "to_f32(x)", 0},
    {"i32x4.trunc_sat_f32x4_s", K_MAP, 1, "f32", "i32", "to_i32(trunc(x))", 0},
    {"i32x4.trunc_sat_f32x4_u", K_MAP, 1, "f32", "u32", "to_u32(trunc(x))", 0},
    {"i32x4.add", K_MAP, 2, "i32", "i32", "x + y", 0},
    {"i32x4.sub", K_MAP, 2, "i32", "i32", "x - y", 0},
    {"i32x4.mul", K_MAP, 2, "i32", "i32", "x * y", 0},
    {"i32x4.neg", K_MAP, 1, "i32", "i32", "-x", 0},
    {"i32x4.abs", K_MAP, 1, "i32", "i32", "abs(x)", 0},
    {"i32x4.min_s", K_MAP, 2, "i32", "i32", "min(x, y)", 0},
    {"i32x4.min_u", K_MAP, 2, "u32", "u32", "min(x, y)", 0},
    {"i32x4.max_s", K_MAP, 2, "i32", "i32", "max(x, y)", 0},
    {"i32x4.max_u", K_MAP, 2, "u32", "u32", "max(x, y)", 0},
    {"i32x4.eq", K_CMP, 2, "i32", "i32", "x = y", 0},
    {"i32x4.ne", K_CMP, 2, "i32", "i32", "x != y", 0},
    {"i32x4.lt_s", K_CMP, 2, "i32", "i32", "x < y", 0},
    {"i32x4.le_s", K_CMP, 2, "i32", "i32", "x <= y", 0},
    {"i32x4.gt_s", K_CMP, 2, "i32", "i32", "x > y", 0},
    {"i32x4.ge_s", K_CMP, 2, "i32", "i32", "x >= y", 0},
    {"i32x4.lt_u", K_CMP, 2, "u32", "i32", "x < y", 0},
    {"i32x4.le_u", K_CMP, 2, "u32", "i32", "x <= y", 0},
    {"i32x4.gt_u", K_CMP, 2, "u32", "i32", "x > y", 0},
    {"i32x4.ge_u", K_CMP, 2, "u32", "i32", "x >= y", 0},
    {"i32x4.shl", K_SHIFT, 1, "i32", "i32", "shift_bits_left(x, <c>)", 0},
    {"i32x4.shr_s", K_SHIFT, 1, "i32", "i32", "shift_bits_right_signed(x, <c>)", 0},
    {"i32x4.shr_u", K_SHIFT, 1, "i32", "i32", "shift_bits_right(x, <c>)", 0},
    {"i32x4.dot_i16x8_s", K_DOT, 2, "i16", "i32", "dot(x, y)", 0},
    {"v128.and", K_MAP, 2, "u32", "u32", "bit_and(x, y)", 0},
    {"v128.or", K_MAP, 2, "u32", "u32", "bit_or(x, y)", 0},
    {"v128.xor", K_MAP, 2, "u32", "u32", "bit_xor(x, y)", 0},
    {"v128.andnot", K_MAP, 2, "u32", "u32", "bit_andnot(x, y)", 0},
    {"v128.not", K_MAP, 1, "u32", "u32", "bit_xor(x, <4294967295>)", 0},
    {"v128.bitselect", K_MAP, 3, "u32", "u32", "bit_or(bit_and(x, z), bit_andnot(y, z))", 0},
    {"f32x4.splat", K_SPLAT, 0, "f32", "f32", "", 0},
    {"i32x4.splat", K_SPLAT, 0, "i32", "i32", "", 0},
    {"f32x4.extract_lane 0", K_EXTRACT, 1, "f32", "f32", "", 0},
    {"f32x4.extract_lane 1", K_EXTRACT, 1, "f32", "f32", "", 1},
    {"f32x4.extract_lane 2", K_EXTRACT, 1, "f32", "f32", "", 2},
    {"f32x4.extract_lane 3", K_EXTRACT, 1, "f32", "f32", "", 3},
    {"i32x4.extract_lane 0", K_EXTRACT, 1, "i32", "i32", "", 0},
    {"i32x4.extract_lane 1", K_EXTRACT, 1, "i32", "i32", "", 1},
    {"i32x4.extract_lane 2", K_EXTRACT, 1, "i32", "i32", "", 2},
    {"i32x4.extract_lane 3", K_EXTRACT, 1, "i32", "i32", "", 3},
    {"f32x4.replace_lane 0", K_REPLACE, 1, "f32", "f32", "", 0},
    {"f32x4.replace_lane 1", K_REPLACE, 1, "f32", "f32", "", 1},
    {"f32x4.replace_lane 2", K_REPLACE, 1, "f32", "f32", "", 2},
    {"f32x4.replace_lane 3", K_REPLACE, 1, "f32", "f32", "", 3},
    {"i32x4.replace_lane 0", K_REPLACE, 1, "i32", "i32", "", 0},
    {"i32x4.replace_lane 1", K_REPLACE, 1, "i32", "i32", "", 1},
    {"i32x4.replace_lane 2", K_REPLACE, 1, "i32", "i32", "", 2},
    {"i32x4.replace_lane 3", K_REPLACE, 1, "i32", "i32", "", 3},
};

static const Op *find_op(const char *instr)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].instr, instr))
            return &ops[i];
    return NULL;
}

/* Value-based exclusions of table instructions: the tag, or NULL.
 *   ne@nan   f32x4.ne with a NaN in either operand's lane: wasm's ne is
 *            unordered-or-different (true), Rake's != is ordered (false). */
static const char *value_tag(const Op *op, Const *args)
{
    if (!strcmp(op->instr, "f32x4.ne")) {
        for (int a = 0; a < 2; a++)
            for (int l = 0; l < 4; l++)
                if ((word(&args[a], l) & 0x7fffffffu) > 0x7f800000u)
                    return "nan";
    }
    return NULL;
}

/* --- skips ------------------------------------------------------------------------ */

typedef struct {
    char *file, *exp, *reason;
    int count, line;
} Skip;

static Skip *skips;
static int nskips;
static const char *skips_path;

static void read_skips(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("can't read %s: %s", path, strerror(errno));
    skips_path = path;
    char buf[4096];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        char *p = buf;
        p[strcspn(p, "\n")] = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            continue;
        char *a = strtok(p, " \t"), *b = strtok(NULL, " \t"), *r = strtok(NULL, "");
        while (r && (*r == ' ' || *r == '\t'))
            r++;
        if (!a || !b || !r || !*r)
            die("%s:%d: expected FILE-GLOB EXPORT-GLOB REASON", path, line);
        skips = realloc(skips, sizeof(Skip) * (size_t)(nskips + 1));
        skips[nskips++] = (Skip){xstrdup(a), xstrdup(b), xstrdup(r), 0, line};
    }
    fclose(f);
}

static int unclassified;

static void skip(const char *base, const char *what, int line)
{
    for (int i = 0; i < nskips; i++)
        if (!fnmatch(skips[i].file, base, 0) && !fnmatch(skips[i].exp, what, 0)) {
            skips[i].count++;
            return;
        }
    fprintf(stderr, "wast2rake: %s:%d: no table entry and no skip class for '%s'\n",
            base, line, what);
    unclassified++;
}

/* --- modules ------------------------------------------------------------------------ */

typedef struct {
    char *name;  /* export */
    char *instr; /* direct instruction with immediate, or NULL */
} Export;

static Export *exports;
static int nexports;

static void read_module(Sx *m)
{
    nexports = 0;
    for (int i = 1; i < m->n; i++) {
        Sx *f = m->kids[i];
        if (strcmp(head(f), "func"))
            continue;
        char *name = NULL;
        int nparams = 0, j = 1;
        char *pnames[16] = {0};
        for (; j < f->n; j++) {
            Sx *k = f->kids[j];
            if (!strcmp(head(k), "export") && k->n == 2)
                name = k->kids[1]->text;
            else if (!strcmp(head(k), "param")) {
                /* (param $x T) names one; (param T T ...) several */
                if (k->n == 3 && k->kids[1]->text[0] == '$') {
                    if (nparams < 16)
                        pnames[nparams] = k->kids[1]->text;
                    nparams++;
                } else {
                    nparams += k->n - 1;
                }
            } else if (!strcmp(head(k), "result"))
                ;
            else
                break;
        }
        if (!name)
            continue;
        exports = realloc(exports, sizeof(Export) * (size_t)(nexports + 1));
        Export *e = &exports[nexports++];
        e->name = name;
        e->instr = NULL;
        if (j != f->n - 1 || !f->kids[j]->list)
            continue;
        Sx *b = f->kids[j];
        const char *op = head(b);
        if (!*op)
            continue;
        int k = 1;
        char imm[64] = "";
        if (k < b->n && !b->kids[k]->list) {
            snprintf(imm, sizeof imm, " %s", b->kids[k]->text);
            k++;
        }
        int ok = b->n - k == nparams;
        for (int p = 0; ok && p < nparams; p++) {
            Sx *g = b->kids[k + p];
            if (strcmp(head(g), "local.get") || g->n != 2) {
                ok = 0;
                break;
            }
            const char *ref = g->kids[1]->text;
            char num[16];
            snprintf(num, sizeof num, "%d", p);
            ok = !strcmp(ref, num) || (p < 16 && pnames[p] && !strcmp(ref, pnames[p]));
        }
        if (!ok)
            continue;
        size_t len = strlen(op) + strlen(imm) + 1;
        e->instr = xmalloc(len);
        snprintf(e->instr, len, "%s%s", op, imm);
    }
}

static Export *find_export(const char *name)
{
    for (int i = 0; i < nexports; i++)
        if (!strcmp(exports[i].name, name))
            return &exports[i];
    return NULL;
}

/* --- assertions and groups ------------------------------------------------------------ */

typedef struct {
    const char *file;
    int line;
    Const args[3];
    Const res;
} Assertion;

typedef struct {
    const char *file;
    const Op *op;
    Assertion *as;
    int n, cap;
} Group;

static Group *groups;
static int ngroups;

static Group *group_for(const char *file, const Op *op)
{
    for (int i = 0; i < ngroups; i++)
        if (groups[i].file == file && groups[i].op == op)
            return &groups[i];
    groups = realloc(groups, sizeof(Group) * (size_t)(ngroups + 1));
    Group *g = &groups[ngroups++];
    memset(g, 0, sizeof *g);
    g->file = file;
    g->op = op;
    return g;
}

static int nsupported;

static void read_assert_return(const char *base, Sx *a)
{
    Sx *inv = a->n > 1 ? a->kids[1] : NULL;
    if (strcmp(head(inv), "invoke") || inv->n < 2 || !inv->kids[1]->str) {
        skip(base, "@assert_return-without-invoke", a->line);
        return;
    }
    const char *name = inv->kids[1]->text;
    Export *e = find_export(name);
    if (!e)
        die("%s:%d: no export '%s' in the current module", base, a->line, name);
    const Op *op = e->instr ? find_op(e->instr) : NULL;
    if (!op) {
        if (e->instr) {
            skip(base, e->instr, a->line);
        } else {
            char what[256];
            snprintf(what, sizeof what, "composite:%s", name);
            skip(base, what, a->line);
        }
        return;
    }
    Assertion as;
    memset(&as, 0, sizeof as);
    as.file = base;
    as.line = a->line;
    int nargs = inv->n - 2;
    if (nargs > 3 || a->n != 3)
        die("%s:%d: unexpected shape of assertion", base, a->line);
    int want = op->kind == K_SHIFT || op->kind == K_REPLACE ? 2
               : op->kind == K_SPLAT || op->kind == K_EXTRACT ? 1
                                                             : op->arity;
    if (nargs != want)
        die("%s:%d: %s takes %d operands, the assertion gives %d", base, a->line,
            op->instr, want, nargs);
    for (int i = 0; i < nargs; i++) {
        parse_const(inv->kids[2 + i], &as.args[i]);
        int scalar = (op->kind == K_SHIFT || op->kind == K_REPLACE) ? i == 1
                     : op->kind == K_SPLAT;
        if (as.args[i].v128 == scalar)
            die("%s:%d: operand %d of %s has the wrong kind", base, a->line, i + 1,
                op->instr);
    }
    parse_const(a->kids[2], &as.res);
    const char *tag = value_tag(op, as.args);
    if (tag) {
        char what[128];
        snprintf(what, sizeof what, "%s@%s", op->instr, tag);
        skip(base, what, a->line);
        return;
    }
    Group *g = group_for(base, op);
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->as = realloc(g->as, sizeof(Assertion) * (size_t)g->cap);
        if (!g->as)
            die("out of memory");
    }
    g->as[g->n++] = as;
    nsupported++;
}

static void read_wast(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("can't read %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = xmalloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        die("can't read %s", path);
    fclose(f);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    base = xstrdup(base);
    cur_file = base;
    Lex L = {s, 0, (size_t)n, 1};
    Sx *x;
    while ((x = parse_sx(&L))) {
        const char *h = head(x);
        if (!strcmp(h, "module")) {
            if (x->n > 1 && is_atom(x->kids[1], "quote"))
                continue;
            read_module(x);
        } else if (!strcmp(h, "assert_return")) {
            read_assert_return(base, x);
        } else {
            char what[64];
            snprintf(what, sizeof what, "@%s", h);
            skip(base, what, x->line);
        }
    }
    skip_space(&L);
    if (L.i < L.n)
        die("%s:%d: unexpected ')'", base, L.line);
}

/* --- generating programs ------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
} Buf;

static void bprintf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k < 0)
            die("vsnprintf failed");
        if (b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap ? 2 * b->cap + (size_t)k : 4096 + (size_t)k;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            die("out of memory");
    }
}

/* An array literal of `n` values produced by `val(i)`, wrapped. */
static void array_literal(Buf *b, const char *name, const char *ty, int n,
                          const char *(*val)(void *, int), void *ctx)
{
    bprintf(b, "  %s: [%d]%s := [", name, n, ty);
    for (int i = 0; i < n; i++) {
        if (i)
            bprintf(b, i % 8 ? ", " : ",\n    ");
        bprintf(b, "%s", val(ctx, i));
    }
    bprintf(b, "]\n");
}

typedef struct {
    Assertion *as;
    int operand; /* -1: the expected result */
    const Op *op;
    char tmp[48];
} ValCtx;

/* Lane i of an operand as a literal of the view's element type; f32 lanes
 * go through u32 bits. */
static const char *operand_lane(void *vc, int i)
{
    ValCtx *c = vc;
    const Op *op = c->op;
    if (!strcmp(op->in, "i16")) {
        Assertion *a = &c->as[i / 8];
        snprintf(c->tmp, sizeof c->tmp, "%d", half(&a->args[c->operand], i % 8));
        return c->tmp;
    }
    Assertion *a = &c->as[i / 4];
    int l = i % 4;
    uint32_t w;
    if (op->kind == K_SPLAT || (op->kind == K_REPLACE && c->operand == 1)) {
        /* the scalar sits in lane 0 of its group */
        w = l == 0 ? (uint32_t)a->args[c->operand].bits : 0;
    } else {
        w = word(&a->args[c->operand], l);
    }
    if (!strcmp(op->in, "i32"))
        snprintf(c->tmp, sizeof c->tmp, "%d", (int32_t)w);
    else
        snprintf(c->tmp, sizeof c->tmp, "%u", w);
    return c->tmp;
}

static uint32_t expected_word(Assertion *a, const Op *op, int l)
{
    if (op->kind == K_EXTRACT)
        return (uint32_t)a->res.bits; /* broadcast to every lane */
    return word(&a->res, l);
}

static int expected_nan(Assertion *a, const Op *op, int l)
{
    if (op->kind == K_EXTRACT)
        return a->res.nan[0];
    return !strcmp(a->res.shape, "f32x4") ? a->res.nan[l] : 0;
}

static const char *expected_lane(void *vc, int i)
{
    ValCtx *c = vc;
    uint32_t w = expected_word(&c->as[i / 4], c->op, i % 4);
    if (!strcmp(c->op->out, "i32"))
        snprintf(c->tmp, sizeof c->tmp, "%d", (int32_t)w);
    else
        snprintf(c->tmp, sizeof c->tmp, "%u", w);
    return c->tmp;
}

static const char *nan_lane(void *vc, int i)
{
    ValCtx *c = vc;
    return expected_nan(&c->as[i / 4], c->op, i % 4) ? "true" : "false";
}

static const char *count_of(void *vc, int i)
{
    ValCtx *c = vc;
    snprintf(c->tmp, sizeof c->tmp, "%u", i % 4 ? 0 : (uint32_t)c->as[i / 4].args[1].bits);
    return c->tmp;
}

static const char *zero_of(const char *ty) { return !strcmp(ty, "f32") ? "0.0" : "0"; }

static void write_file(const char *path, Buf *b)
{
    FILE *f = fopen(path, "w");
    if (!f || fwrite(b->s, 1, b->n, f) != b->n || fclose(f))
        die("can't write %s", path);
}

static void emit_kernel(Buf *b, const Op *op)
{
    const char *in = op->in, *out = op->out;
    bprintf(b, "run kern(");
    int nin = op->kind == K_SPLAT ? 1 : op->kind == K_REPLACE ? 2 : op->arity;
    for (int i = 0; i < nin; i++)
        bprintf(b, "%ca: []%s, ", "xyz"[i], in);
    if (op->kind == K_SHIFT)
        bprintf(b, "cv: []u32, ");
    bprintf(b, "ov: mut []%s, <n: i32>):\n", out);
    bprintf(b, "  for <i: i32> from <0> up to <n> by <4>:\n");
    if (op->kind == K_SHIFT) /* the count, at the group's first element */
        bprintf(b, "    let <c: u32> = <cv[i]>\n");
    if (op->kind == K_DOT) {
        bprintf(b, "    let <j: i32> = <i> * <2>\n");
        bprintf(b, "    let x = xa[<j>]\n    let y = ya[<j>]\n");
        bprintf(b, "    ov[<i>] <- %s\n\n", op->expr);
        return;
    }
    switch (op->kind) {
    case K_SPLAT:
        bprintf(b, "    let <r: %s> = <xa[i]>\n", in);
        bprintf(b, "    let v: %ss = <r>\n", out);
        bprintf(b, "    ov[<i>] <- v\n\n");
        return;
    case K_EXTRACT:
        bprintf(b, "    let <e: %s> = extract(xa[<i>], %d)\n", in, op->lane);
        bprintf(b, "    let v: %ss = <e>\n", out);
        bprintf(b, "    ov[<i>] <- v\n\n");
        return;
    case K_REPLACE:
        bprintf(b, "    ov[<i>] <- insert(xa[<i>], %d, <ya[i]>)\n\n", op->lane);
        return;
    default:
        break;
    }
    for (int i = 0; i < op->arity; i++)
        bprintf(b, "    let %c = %ca[<i>]\n", "xyz"[i], "xyz"[i]);
    if (op->kind == K_CMP) {
        /* typed rack bindings, so the select's arms are racks */
        bprintf(b, "    let yes: i32s = <-1>\n    let no: i32s = <0>\n");
        bprintf(b, "    ov[<i>] <- select(%s, yes, no)\n\n", op->expr);
    } else {
        bprintf(b, "    ov[<i>] <- %s\n\n", op->expr);
    }
}

static void emit_program(const char *dir, int index, Group *g, int from, int count)
{
    const Op *op = g->op;
    Assertion *as = g->as + from;
    int lanes = 4 * count;
    int in_lanes = !strcmp(op->in, "i16") ? 8 * count : lanes;
    Buf b = {0};
    bprintf(&b, "~~ generated by tools/wast2rake from %s: %s, assertions %d-%d of %d\n",
            g->file, op->instr, from + 1, from + count, g->n);
    bprintf(&b, "~~ expect: 0\n");
    emit_kernel(&b, op);
    bprintf(&b, "slow main() -> i32:\n");
    int nin = op->kind == K_SPLAT ? 1 : op->kind == K_REPLACE ? 2 : op->arity;
    ValCtx c = {as, 0, op, ""};
    for (int i = 0; i < nin; i++) {
        char name[8], bits[8];
        snprintf(name, sizeof name, "%ca", "xyz"[i]);
        snprintf(bits, sizeof bits, "%cb", "xyz"[i]);
        c.operand = i;
        if (!strcmp(op->in, "f32")) {
            array_literal(&b, bits, "u32", in_lanes, operand_lane, &c);
            bprintf(&b, "  %s: [%d]f32 := [0.0; %d]\n", name, in_lanes, in_lanes);
            bprintf(&b, "  for q from 0 up to %d:\n", in_lanes);
            bprintf(&b, "    %s[q] <- bitcast(f32, %s[q])\n", name, bits);
        } else {
            array_literal(&b, name, op->in, in_lanes, operand_lane, &c);
        }
    }
    bprintf(&b, "  ov: [%d]%s := [%s; %d]\n", lanes, op->out, zero_of(op->out), lanes);
    if (op->kind == K_SHIFT)
        array_literal(&b, "cv", "u32", lanes, count_of, &c);
    bprintf(&b, "  kern(");
    for (int i = 0; i < nin; i++)
        bprintf(&b, "%ca, ", "xyz"[i]);
    bprintf(&b, "%sov, <%d>)\n", op->kind == K_SHIFT ? "cv, " : "", lanes);
    const char *ety = !strcmp(op->out, "i32") ? "i32" : "u32";
    array_literal(&b, "want", ety, lanes, expected_lane, &c);
    int any_nan = 0;
    for (int i = 0; i < lanes; i++)
        any_nan |= expected_nan(&as[i / 4], op, i % 4) != 0;
    if (any_nan)
        array_literal(&b, "anynan", "bool", lanes, nan_lane, &c);
    bprintf(&b, "  fails := 0\n  first := 0\n");
    bprintf(&b, "  for j from 0 up to %d:\n", count);
    bprintf(&b, "    bad := false\n");
    bprintf(&b, "    for l from 0 up to 4:\n");
    bprintf(&b, "      q := 4 * j + l\n");
    if (!strcmp(op->out, "f32"))
        bprintf(&b, "      got := bitcast(u32, ov[q])\n");
    else
        bprintf(&b, "      got := ov[q]\n");
    if (any_nan) {
        bprintf(&b, "      if anynan[q]:\n");
        bprintf(&b, "        if bit_and(got, 0x7fc00000) != 0x7fc00000:\n");
        bprintf(&b, "          bad <- true\n");
        bprintf(&b, "      else if got != want[q]:\n");
    } else {
        bprintf(&b, "      if got != want[q]:\n");
    }
    bprintf(&b, "        bad <- true\n");
    bprintf(&b, "    if bad:\n");
    bprintf(&b, "      if fails = 0:\n        first <- j + 1\n");
    bprintf(&b, "      fails <- fails + 1\n");
    bprintf(&b, "  return fails * 10000 + first\n");

    char path[4096];
    snprintf(path, sizeof path, "%s/%03d.rk", dir, index);
    write_file(path, &b);
    Buf lines = {0};
    for (int i = 0; i < count; i++)
        bprintf(&lines, "%s:%d %s\n", as[i].file, as[i].line, op->instr);
    snprintf(path, sizeof path, "%s/%03d.lines", dir, index);
    write_file(path, &lines);
    free(b.s);
    free(lines.s);
}

int main(int argc, char **argv)
{
    const char *skips_file = NULL;
    int max = 500, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc)
            skips_file = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            max = atoi(argv[++i]);
        else
            die("usage: wast2rake [-s SKIPS] [-n MAX] OUTDIR FILE.wast...");
    }
    if (argc - i < 2 || max < 1 || max > 9999)
        die("usage: wast2rake [-s SKIPS] [-n MAX] OUTDIR FILE.wast...");
    const char *dir = argv[i++];
    if (skips_file)
        read_skips(skips_file);
    for (; i < argc; i++)
        read_wast(argv[i]);

    Buf index = {0};
    int prog = 0;
    for (int g = 0; g < ngroups; g++)
        for (int from = 0; from < groups[g].n; from += max) {
            int count = groups[g].n - from < max ? groups[g].n - from : max;
            emit_program(dir, ++prog, &groups[g], from, count);
            bprintf(&index, "%03d.rk\t%d\t%s\t%s\n", prog, count, groups[g].file,
                    groups[g].op->instr);
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/index.tsv", dir);
    write_file(path, &index);
    Buf sk = {0};
    int nskipped = 0, stale = 0;
    for (int s = 0; s < nskips; s++) {
        bprintf(&sk, "%d\t%s\t%s\t%s\n", skips[s].count, skips[s].file, skips[s].exp,
                skips[s].reason);
        nskipped += skips[s].count;
        if (!skips[s].count) {
            fprintf(stderr, "wast2rake: %s:%d: skip class '%s %s' matches nothing\n",
                    skips_path, skips[s].line, skips[s].file, skips[s].exp);
            stale++;
        }
    }
    snprintf(path, sizeof path, "%s/skips.tsv", dir);
    write_file(path, &sk);
    printf("%d assertions in %d programs; %d skipped in %d classes\n", nsupported, prog,
           nskipped, nskips);
    return unclassified || (skips_file && stale) ? 1 : 0;
}

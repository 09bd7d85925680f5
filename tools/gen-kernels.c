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
 * from integers.
 *
 * --compare checks two `rake-interp --kernels` outputs for the calls of
 * F.calls line by line: bit for bit, except that in the lanes of an _f
 * kernel any NaN equals any NaN.  On a difference it prints the kernel's
 * group, the call and both results, and exits 1.  --show prints the group
 * of a kernel (by name or group prefix) or of a line of F.rk. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- random --------------------------------------------------------------- */

static uint64_t rstate;

static uint64_t next64(void)
{
    uint64_t z = (rstate += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rnd(int n) { return n <= 1 ? 0 : (int)(next64() % (uint64_t)n); }
static int chance(int pct) { return rnd(100) < pct; }

/* --- strings -------------------------------------------------------------- */

static char *xfmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

typedef struct Buf {
    char *s;
    size_t n, cap;
} Buf;

static void bput(Buf *b, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    if (b->n + (size_t)n + 1 > b->cap) {
        b->cap = (b->n + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    va_start(ap, f);
    vsnprintf(b->s + b->n, (size_t)n + 1, f, ap);
    va_end(ap);
    b->n += (size_t)n;
}

/* --- profiles ------------------------------------------------------------- */

typedef struct Prof {
    const char *name;
    int lanes, fma, contracts;
} Prof;

static const Prof profs[] = {
    {"x86-sse2", 4, 0, 0},     {"x86-avx2", 8, 1, 1},     {"x86-avx512", 16, 1, 1},
    {"aarch64-neon", 4, 1, 1}, {"wasm-simd128", 4, 0, 0},
};

static const Prof *P;
static int no_contract; /* no f32 multiply feeding an f32 add in one region */
static int contract_rich;
static int contracting_ok; /* rake-interp --contract emulates contraction */
static int deep; /* --depth: extra expression depth */

/* --- types ---------------------------------------------------------------- */

enum { T_F, T_I, T_U, T_M, T_SF, T_SI, T_SU, T_SB, NTY };
static const char *tyname[NTY] = {"f32s", "i32s", "u32s", "mask", "f32", "i32", "u32", "bool"};
static int is_rack(int t) { return t <= T_U; }
static int is_uni(int t) { return t >= T_SF; }
static int sc_of(int t) { return t + 4; } /* T_F -> T_SF, ... */
static int rk_of(int t) { return t - 4; }

/* --- truth tables over comparison atoms ------------------------------------ */

enum { MAXATOMS = 10, TTW = (1 << MAXATOMS) / 64 };

typedef struct TT {
    uint64_t w[TTW];
} TT;

static TT tt_const(int v)
{
    TT t;
    for (int i = 0; i < TTW; i++)
        t.w[i] = v ? ~0ull : 0;
    return t;
}

static TT tt_var(int a)
{
    TT t = tt_const(0);
    for (int x = 0; x < (1 << MAXATOMS); x++)
        if ((x >> a) & 1)
            t.w[x / 64] |= 1ull << (x % 64);
    return t;
}

static TT tt_and(TT a, TT b)
{
    for (int i = 0; i < TTW; i++)
        a.w[i] &= b.w[i];
    return a;
}

static TT tt_or(TT a, TT b)
{
    for (int i = 0; i < TTW; i++)
        a.w[i] |= b.w[i];
    return a;
}

static TT tt_not(TT a)
{
    for (int i = 0; i < TTW; i++)
        a.w[i] = ~a.w[i];
    return a;
}

static int tt_zero(TT a)
{
    for (int i = 0; i < TTW; i++)
        if (a.w[i])
            return 0;
    return 1;
}

static int tt_sub(TT a, TT b) /* a implies b */
{
    for (int i = 0; i < TTW; i++)
        if (a.w[i] & ~b.w[i])
            return 0;
    return 1;
}


/* The atoms of the function being generated: rake-check's comparison keys
 * (operator and operands, names by binding, literals by value, marks
 * transparent) as our own canonical strings. */
typedef struct Atom {
    char *key, *text;
    TT need;   /* where evaluating it is defined */
    int reuse; /* its text may be written again (it names no through-body binding) */
} Atom;

static Atom atoms[MAXATOMS];
static int natoms;

static int atom_find(const char *key)
{
    for (int i = 0; i < natoms; i++)
        if (!strcmp(atoms[i].key, key))
            return i;
    return -1;
}

static int atom_new(const char *key, const char *text, TT need, int reuse)
{
    int i = atom_find(key);
    if (i >= 0) {
        if (!atoms[i].reuse && reuse && text) { /* first met inside a global tine */
            atoms[i].text = xfmt("%s", text);
            atoms[i].need = need;
            atoms[i].reuse = 1;
        }
        return i;
    }
    if (natoms == MAXATOMS)
        return -1;
    atoms[natoms] = (Atom){xfmt("%s", key), xfmt("%s", text ? text : key), need, reuse && text};
    return natoms++;
}

/* --- variables, context, expressions ------------------------------------- */

typedef struct Var {
    char *name;
    int ty;
    TT def;     /* lanes where it is defined */
    int full;   /* defined in every lane */
    int exact;  /* f32 rack whose every bit is defined (no NaN payload games) */
    int region; /* fused region it was bound in, -1 for none */
    int fmul;   /* an f32 rack multiply of that region */
    int prod;   /* an f32 rack multiply, in a region or not */
    int has_tt; /* a mask whose truth table we know */
    TT tt;
    int partial_through; /* a through result without else */
    int loc;             /* a location (x := e), assignable */
    int alen;            /* a rack array of this many racks ([N]T := e) */
} Var;

enum { MAXV = 256 };
static Var V[MAXV];
static int nv;

typedef struct Ctx {
    TT m;        /* an upper bound of the lanes being evaluated */
    int masked;  /* possibly not every lane */
    int through; /* in a through body */
    int fused;   /* in a fused binding's value */
    int region;  /* fused region, -1 for none */
    int rake;    /* modelled predicates available */
} Ctx;

typedef struct E {
    char *s;
    int ty;
    int atomic; /* needs no parentheses as an operand */
    int lit;    /* a literal, marked or not */
    int fmul;   /* an f32 rack multiply in the current region */
    int exact;
    int has_tt;
    TT tt;
} E;

static E mk(char *s, int ty, int atomic)
{
    E e;
    memset(&e, 0, sizeof e);
    e.s = s;
    e.ty = ty;
    e.atomic = atomic;
    return e;
}

static char *par(E e) { return e.atomic ? e.s : xfmt("(%s)", e.s); }

/* Helper kernels the current kernel can call. */
typedef struct Helper {
    char *name;
    int np, pty[4], ret;
    int cross; /* its body moves data across lanes */
} Helper;

static Helper helper;
static int have_helper;

/* Global tines: a formula over parameters and literals. */
typedef struct Opd {
    int param; /* >= 0: a parameter; else the literal */
    const char *lit;
} Opd;

enum { FM_CMP, FM_AND, FM_OR, FM_NOT, FM_APP };

typedef struct Fm {
    int op;
    const char *cmp;
    Opd l, r;
    struct Fm *a, *b;
    int gt;
    int nargs;
    Opd args[3];
} Fm;

typedef struct GTine {
    char *name;
    int np, pty[3]; /* pty: T_F.. racks or T_SF.. uniforms */
    Fm *body;
} GTine;

enum { MAXGT = 4 };
static GTine gts[MAXGT];
static int ngt;

/* Local tines of the rake being generated. */
typedef struct LTine {
    char *name;
    TT tt;
} LTine;

static LTine lts[8];
static int nlt;

/* Module constants of the group: a literal or a negated one, used as
 * uniform operands, shift counts and lane indices. */
typedef struct Const {
    char *name;
    int ty;      /* T_SF, T_SI, T_SU */
    long long v; /* an integer's value */
} Const;

static Const consts[4];
static int nconst;

static int name_counter;
static int in_repeat; /* generating a repeat body: its index goes out of scope */
static char *fresh(const char *p) { return xfmt("%s%d", p, name_counter++); }

static int region_counter;
static int lanes(void) { return P->lanes; }

/* --- literals ------------------------------------------------------------- */

static const char *F_LITS[] = {
    "0.0",  "-0.0",       "1.0",          "-1.0",          "0.5",          "1.5",
    "2.5",  "-2.5",       "2.0",          "3.0",           "100.0",        "0.1",
    "1e-3", "3.4e38",     "1e-40",        "16777217.0",    "2147483648.0", "-2147483648.0",
    "0.25", "4294967296.0", "8388608.0", "0.333",         "65536.0",      "2",
    "7",    "16777217",   "-3",           "1.0e10",        "-0.5",         "12.75",
};
static const char *I_LITS[] = {"0",  "1",          "-1",          "2",          "7",
                               "-17", "31",        "255",         "65535",      "2147483647",
                               "-2147483648", "0x7fffffff", "1000000", "-5", "3"};
static const char *U_LITS[] = {"0",          "1",          "2",          "7",
                               "255",        "2147483648", "4294967295", "0xffffffff",
                               "0x80000000", "3",          "65536",      "0x55555555"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *lit_of(int elem) /* elem: T_F, T_I or T_U */
{
    if (elem == T_F)
        return F_LITS[rnd(COUNT(F_LITS))];
    if (elem == T_I)
        return I_LITS[rnd(COUNT(I_LITS))];
    return U_LITS[rnd(COUNT(U_LITS))];
}

static char *lit_text(const char *l) { return l[0] == '-' ? xfmt("(%s)", l) : xfmt("%s", l); }
static char *lit_key(const char *l) { return xfmt("n:%a", strtod(l, NULL)); }

/* A literal as a uniform operand: bare or marked. */
static E lit_expr(int elem)
{
    const char *l = lit_of(elem);
    E e = mk(chance(50) ? xfmt("<%s>", l) : lit_text(l), sc_of(elem), 1);
    e.lit = 1;
    return e;
}

/* --- variables ------------------------------------------------------------ */

static Var *add_var(const char *name, int ty)
{
    Var *v = &V[nv++];
    memset(v, 0, sizeof *v);
    v->name = xfmt("%s", name);
    v->ty = ty;
    v->def = tt_const(1);
    v->full = 1;
    v->region = -1;
    return v;
}

static int readable(Var *v, Ctx *c) { return tt_sub(c->m, v->def); }

/* A variable of type t readable here; prefer through results.  -1 if none. */
static int pick_var(int t, Ctx *c, int need_full, int need_exact)
{
    int cand[MAXV], w[MAXV], n = 0, total = 0;
    for (int i = 0; i < nv; i++) {
        Var *v = &V[i];
        if (v->ty != t || v->alen || !readable(v, c) || (need_full && !v->full) ||
            (need_exact && !v->exact))
            continue;
        cand[n] = i;
        w[n] = v->partial_through ? 5 : 2;
        total += w[n++];
    }
    if (!n)
        return -1;
    int r = rnd(total);
    for (int i = 0; i < n; i++) {
        if (r < w[i])
            return cand[i];
        r -= w[i];
    }
    return cand[n - 1];
}

static E var_expr(int i, Ctx *c)
{
    Var *v = &V[i];
    E e = mk(is_uni(v->ty) ? xfmt("<%s>", v->name) : xfmt("%s", v->name), v->ty, 1);
    e.exact = v->exact;
    e.fmul = v->fmul && c->region >= 0 && v->region == c->region;
    e.has_tt = v->has_tt;
    e.tt = v->tt;
    return e;
}

/* --- expressions ---------------------------------------------------------- */

static E gen(int t, Ctx *c, int d);
static E gen_rack(int t, Ctx *c, int d);
static E gen_mask(Ctx *c, int d);
static E gen_uni(int t, Ctx *c, int d);
static E gen_exact_f(Ctx *c, int d);
static int gen_pred(Ctx *c, TT where, int d, char **text, TT *tt);

static E gen(int t, Ctx *c, int d)
{
    if (is_rack(t))
        return gen_rack(t, c, d);
    if (t == T_M)
        return gen_mask(c, d);
    return gen_uni(t, c, d);
}

static E mask_select_uni(int t, Ctx *c, int d);

/* A rack, or sometimes a uniform that broadcasts. */
static E gen_operand(int t, Ctx *c, int d, int uni_ok)
{
    if (uni_ok && chance(8))
        return mask_select_uni(t, c, d);
    if (uni_ok && chance(28))
        return chance(45) ? lit_expr(t) : gen_uni(sc_of(t), c, d - 1);
    return gen_rack(t, c, d);
}

static E leaf_rack(int t, Ctx *c)
{
    if (!c->fused && chance(25)) { /* an element of a rack array (no indexing in fused bindings) */
        for (int j = nv - 1; j >= 0; j--)
            if (V[j].alen && V[j].ty == t && chance(60))
                return mk(xfmt("%s[<%d>]", V[j].name, rnd(V[j].alen)), t, 1);
    }
    int i = pick_var(t, c, 0, 0);
    if (i >= 0)
        return var_expr(i, c);
    int f = pick_var(T_F, c, 0, 0);
    E x = f >= 0 ? var_expr(f, c) : mk("a0", T_F, 1);
    if (t == T_F)
        return x;
    return mk(xfmt("%s(%s)", t == T_I ? "to_i32" : "to_u32", x.s), t, 1);
}

/* A rack operand of a cross-lane operation: under a partial mask only a
 * name defined in every lane.  ok = 0 when there is none. */
static E cross_operand(int t, Ctx *c, int d, int *ok)
{
    *ok = 1;
    if (c->masked) {
        int i = pick_var(t, c, 1, 0);
        if (i < 0) {
            *ok = 0;
            return mk("", t, 1);
        }
        return var_expr(i, c);
    }
    return gen_rack(t, c, d - 1);
}

/* A constant of type t (and, for integers, value in [lo, hi]), or NULL. */
static const char *pick_const(int t, long long lo, long long hi)
{
    int k = rnd(4);
    for (int n = 0; n < nconst; n++, k++) {
        Const *q = &consts[k % (nconst ? nconst : 1)];
        if (q->ty == t && (t == T_SF || (q->v >= lo && q->v <= hi)))
            return q->name;
    }
    return NULL;
}

/* A lane index: a literal, sometimes a constant. */
static char *lane_index(void)
{
    const char *q = chance(25) ? pick_const(T_SI, 0, lanes() - 1) : NULL;
    return q ? xfmt("%s", q) : xfmt("%d", rnd(lanes()));
}

static char *shuffle_list(int n)
{
    Buf b = {0};
    bput(&b, "[");
    for (int i = 0; i < lanes(); i++)
        bput(&b, "%s%d", i ? ", " : "", rnd(n));
    bput(&b, "]");
    return b.s;
}

static char *ucond(Ctx *c, int d);

/* The mask of all, any or bitmask: under a partial mask only a name
 * defined in every lane. */
static E mask_operand(Ctx *c, int d, int *ok)
{
    *ok = 1;
    if (c->masked) {
        int i = pick_var(T_M, c, 1, 0);
        if (i < 0) {
            *ok = 0;
            return mk("", T_M, 1);
        }
        return var_expr(i, c);
    }
    return gen_mask(c, d);
}

static const char *CMPS[] = {"=", "!=", "<", "<=", ">", ">="};
static const char *ARITH[] = {"+", "-", "*", "/"};

/* The two branches of a mask if or select: a under ctx & m, b under
 * ctx & not m (as rake-check's branches()). */
static void branches(int t, Ctx *c, int d, E cond, E *a, E *b)
{
    Ctx ct = *c, cf = *c;
    ct.masked = cf.masked = 1;
    if (cond.has_tt) {
        ct.m = tt_and(c->m, cond.tt);
        cf.m = tt_and(c->m, tt_not(cond.tt));
    }
    int uni_ok = t != T_M;
    *a = uni_ok ? gen_operand(t, &ct, d - 1, 1) : gen_mask(&ct, d - 1);
    if (uni_ok && !is_rack(a->ty))
        *b = gen_rack(t, &cf, d - 1);
    else
        *b = uni_ok ? gen_operand(t, &cf, d - 1, 1) : gen_mask(&cf, d - 1);
}

/* A call of the helper.  A helper that moves data across lanes is not
 * called under a partial mask: its shuffles and reductions would read
 * lanes its inlined body computed under that mask, which rake-check
 * rejects unless every lane move reads a fully defined parameter directly
 * (since 99d7c15; before, it accepted them and the evaluators disagreed:
 * tests/nirdiff/regress/masked-call-*.rk).  So the arguments under a
 * partial mask needn't be defined in every lane. */
static E call_helper(Ctx *c, int d, int *ok)
{
    Buf b = {0};
    *ok = !(c->masked && helper.cross);
    if (!*ok)
        return mk("", helper.ret, 1);
    bput(&b, "%s(", helper.name);
    for (int i = 0; i < helper.np; i++) {
        int t = helper.pty[i];
        E a;
        if (c->masked && helper.cross && !is_uni(t)) {
            int v = pick_var(t, c, 1, 0);
            if (v < 0 && t != T_M) {
                a = gen_uni(sc_of(t), c, d - 1);
            } else if (v < 0) {
                *ok = 0;
                return mk("", helper.ret, 1);
            } else {
                a = var_expr(v, c);
            }
        } else {
            a = is_rack(t) ? gen_operand(t, c, d - 1, 1) : gen(t, c, d - 1);
        }
        bput(&b, "%s%s", i ? ", " : "", a.s);
    }
    bput(&b, ")");
    return mk(b.s, helper.ret, 1);
}

static int can_call(Ctx *c) { return have_helper && !c->through && !c->fused; }

static E arith2(int t, Ctx *c, int d, const char *op)
{
    E l, r;
    if (chance(25)) {
        l = gen_operand(t, c, d - 1, 1);
        r = is_rack(l.ty) ? gen_operand(t, c, d - 1, 1) : gen_rack(t, c, d - 1);
    } else {
        l = gen_rack(t, c, d - 1);
        r = gen_operand(t, c, d - 1, 1);
    }
    if (t == T_F && op[0] == '+' && c->region >= 0 && no_contract && (l.fmul || r.fmul))
        op = "-";
    E e = mk(xfmt("%s %s %s", par(l), op, par(r)), t, 0);
    e.fmul = t == T_F && op[0] == '*' && c->region >= 0;
    return e;
}

/* How often gen_rack tries each of its cases, by element. */
static const int RACK_W[3][20] = {
    /*      arith  neg un mm fma sel  uif cv bc sc shf    ins cal bit ex nm */
    [T_F] = {5, 0, 0, 1, 3, 2, 1, 3, 0, 1, 1, 1, 1, 2, 0, 1, 2, 0, 1, 1},
    [T_I] = {5, 0, 0, 1, 1, 2, 0, 3, 0, 1, 1, 1, 1, 2, 0, 1, 2, 5, 0, 1},
    [T_U] = {5, 0, 0, 0, 0, 2, 0, 3, 0, 1, 1, 1, 1, 2, 0, 1, 2, 5, 0, 1},
};

static int pick_case(const int *w, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += w[i];
    int r = rnd(total);
    for (int i = 0; i < n; i++) {
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return n - 1;
}

/* A mask if or select of two uniforms, the first not a literal so that
 * it types the other; modelled as a uniform, which is safe whether
 * rake-check types it as a rack (it does now) or a uniform (it did, and
 * rake-lower then selected between two scalars, read as the then-branch
 * in every lane: tests/nirdiff/regress/mask-select-uniforms.rk). */
static E mask_select_uni(int t, Ctx *c, int d)
{
    E m = gen_mask(c, d - 1);
    Ctx ct = *c, cf = *c;
    ct.masked = cf.masked = 1;
    if (m.has_tt) {
        ct.m = tt_and(c->m, m.tt);
        cf.m = tt_and(c->m, tt_not(m.tt));
    }
    E a = gen_uni(sc_of(t), &ct, d - 1);
    if (a.lit) {
        int i = pick_var(sc_of(t), &ct, 0, 0);
        if (i < 0)
            return gen_rack(t, c, d);
        a = var_expr(i, &ct);
    }
    E b = chance(40) ? lit_expr(t) : gen_uni(sc_of(t), &cf, d - 1);
    if (chance(50))
        return mk(xfmt("select(%s, %s, %s)", m.s, a.s, b.s), sc_of(t), 1);
    return mk(xfmt("if %s then %s else %s", m.s, a.s, b.s), sc_of(t), 0);
}

static E gen_rack(int t, Ctx *c, int d)
{
    if (d <= 0 || chance(18))
        return leaf_rack(t, c);
    for (int tries = 0; tries < 30; tries++) {
        int k = pick_case(RACK_W[t], 20);
        int ok = 1;
        switch (k) {
        case 0: case 1: case 2: { /* arithmetic */
            const char *op;
            if (contract_rich && t == T_F && c->region >= 0)
                op = chance(50) ? "*" : chance(80) ? "+" : "-";
            else
                op = ARITH[rnd(t == T_F ? 4 : 3)];
            return arith2(t, c, d, op);
        }
        case 3: /* negation */
            if (t == T_U)
                break;
            return mk(xfmt("-%s", par(gen_rack(t, c, d - 1))), t, 0);
        case 4: { /* unary built-ins */
            if (t == T_U)
                break;
            static const char *fu[] = {"sqrt", "abs", "floor", "ceil", "trunc", "nearest"};
            const char *f = t == T_F ? fu[rnd(6)] : "abs";
            E x = gen_rack(t, c, d - 1);
            E e = mk(xfmt("%s(%s)", f, x.s), t, 1);
            return e;
        }
        case 5: { /* min, max */
            E a = gen_rack(t, c, d - 1), b = gen_operand(t, c, d - 1, 1);
            if (chance(30)) {
                E s = a;
                a = b;
                b = s;
            }
            return mk(xfmt("%s(%s, %s)", chance(50) ? "min" : "max", a.s, b.s), t, 1);
        }
        case 6: /* fma */
            if (t != T_F || !P->fma)
                break;
            {
                /* one rack, anywhere; operands before it are typed without
                 * context, so a literal there is a float one */
                E x[3];
                int r = rnd(3);
                for (int j = 0; j < 3; j++) {
                    x[j] = j == r ? gen_rack(T_F, c, d - 1) : gen_operand(T_F, c, d - 1, 1);
                    if (j < r && x[j].lit)
                        x[j] = mk(chance(50) ? "1.5" : "<-0.25>", T_SF, 1);
                }
                return mk(xfmt("fma(%s, %s, %s)", x[0].s, x[1].s, x[2].s), T_F, 1);
            }
        case 7: case 8: { /* mask selection */
            E m = gen_mask(c, d - 1), a, b;
            branches(t, c, d, m, &a, &b);
            E e = chance(50) ? mk(xfmt("select(%s, %s, %s)", m.s, a.s, b.s), t, 1)
                             : mk(xfmt("if %s then %s else %s", m.s, a.s, b.s), t, 0);
            e.exact = a.exact && b.exact;
            return e;
        }
        case 9: { /* uniform if */
            char *cond = ucond(c, d - 1);
            E a = gen_operand(t, c, d - 1, 1);
            E b = is_rack(a.ty) ? gen_operand(t, c, d - 1, 1) : gen_rack(t, c, d - 1);
            E e = mk(xfmt("if %s then %s else %s", cond, a.s, b.s), t, 0);
            e.exact = a.exact && b.exact;
            return e;
        }
        case 10: /* conversions */
            if (t == T_F)
                return mk(xfmt("to_f32(%s)", gen_rack(chance(50) ? T_I : T_U, c, d - 1).s),
                          T_F, 1);
            return mk(xfmt("%s(%s)", t == T_I ? "to_i32" : "to_u32", gen_rack(T_F, c, d - 1).s),
                      t, 1);
        case 11: { /* bitcast */
            if (c->fused)
                break;
            E x;
            if (t == T_F) {
                x = gen_rack(chance(50) ? T_I : T_U, c, d - 1);
            } else if (chance(50)) {
                x = gen_exact_f(c, d - 1);
            } else {
                x = gen_rack(t == T_I ? T_U : T_I, c, d - 1);
            }
            E e = mk(xfmt("bitcast(%s, %s)", tyname[t], x.s), t, 1);
            e.exact = 1;
            return e;
        }
        case 12: { /* scans */
            if (c->through || c->fused)
                break;
            E x = cross_operand(t, c, d, &ok);
            if (!ok)
                break;
            static const char *sc[] = {"scan_sum", "scan_product", "scan_minimum", "scan_maximum"};
            return mk(xfmt("%s(%s)", sc[rnd(4)], x.s), t, 1);
        }
        case 13: case 14: { /* shuffle */
            E a = cross_operand(t, c, d, &ok);
            if (!ok)
                break;
            if (chance(50)) {
                E e = mk(xfmt("shuffle(%s, %s)", a.s, shuffle_list(lanes())), t, 1);
                e.exact = a.exact;
                return e;
            }
            E b = cross_operand(t, c, d, &ok);
            if (!ok)
                break;
            E e = mk(xfmt("shuffle(%s, %s, %s)", a.s, b.s, shuffle_list(2 * lanes())), t, 1);
            e.exact = a.exact && b.exact;
            return e;
        }
        case 15: { /* insert */
            if (c->fused)
                break;
            E a = cross_operand(t, c, d, &ok);
            if (!ok)
                break;
            E u = chance(30) ? lit_expr(t) : gen_uni(sc_of(t), c, d - 1);
            char *k = lane_index();
            E e = mk(xfmt("insert(%s, %s, %s)", a.s, k, u.s), t, 1);
            (void)u;
            return e;
        }
        case 16: /* a call */
            if (!can_call(c) || helper.ret != t)
                break;
            {
                E e = call_helper(c, d, &ok);
                if (ok)
                    return e;
            }
            break;
        case 17: { /* bit operations and shifts */
            if (t == T_F)
                break;
            if (chance(50)) {
                static const char *bo[] = {"bit_and", "bit_or", "bit_xor", "bit_andnot"};
                E a = gen_operand(t, c, d - 1, 1);
                E b = is_rack(a.ty) && chance(70) ? gen_operand(t, c, d - 1, 1)
                                                  : chance(50) ? gen_rack(t, c, d - 1)
                                                               : gen_operand(t, c, d - 1, 1);
                if (!is_rack(a.ty) && !is_rack(b.ty) && (a.lit || b.lit))
                    b = gen_rack(t, c, d - 1);
                return mk(xfmt("%s(%s, %s)", bo[rnd(4)], a.s, b.s), t, 1);
            }
            static const char *sh[] = {"shift_bits_left", "shift_bits_right",
                                       "shift_bits_right_signed"};
            char *n;
            int u = pick_var(T_SU, c, 0, 0);
            const char *q = chance(20) ? pick_const(T_SI, 0, 31) : NULL;
            if (q)
                n = xfmt("%s", q);
            else if (u >= 0 && chance(45))
                n = xfmt("<%s>", V[u].name);
            else if (chance(8))
                n = xfmt("<%d>", rnd(70));
            else
                n = xfmt("%d", chance(30) ? (int[]){0, 1, 31, 16}[rnd(4)] : rnd(32));
            const char *f = sh[rnd(3)];
            E x = gen_rack(t, c, d - 1);
            return mk(xfmt("%s(%s, %s)", f, x.s, n), t, 1);
        }
        case 18: /* exact float operations */
            if (t != T_F)
                break;
            return gen_exact_f(c, d);
        default: /* a name */
            return leaf_rack(t, c);
        }
    }
    return leaf_rack(t, c);
}

/* An f32 rack all of whose bits are defined. */
static E gen_exact_f(Ctx *c, int d)
{
    int i = pick_var(T_F, c, 0, 1);
    if (d <= 0 || chance(35)) {
        if (i >= 0)
            return var_expr(i, c);
        d = d < 1 ? 1 : d;
    }
    E e;
    switch (rnd(6)) {
    case 0:
        e = mk(xfmt("-%s", par(gen_exact_f(c, d - 1))), T_F, 0);
        break;
    case 1:
        e = mk(xfmt("abs(%s)", gen_exact_f(c, d - 1).s), T_F, 1);
        break;
    case 2: {
        E m = gen_mask(c, d - 1);
        Ctx ct = *c, cf = *c;
        ct.masked = cf.masked = 1;
        if (m.has_tt) {
            ct.m = tt_and(c->m, m.tt);
            cf.m = tt_and(c->m, tt_not(m.tt));
        }
        E a = gen_exact_f(&ct, d - 1), b = gen_exact_f(&cf, d - 1);
        e = mk(xfmt("select(%s, %s, %s)", m.s, a.s, b.s), T_F, 1);
        break;
    }
    case 3:
        if (!c->masked) {
            E x = gen_exact_f(c, d - 1);
            e = mk(xfmt("shuffle(%s, %s)", x.s, shuffle_list(lanes())), T_F, 1);
            break;
        }
        /* fall through */
    case 4:
        if (!c->fused) {
            e = mk(xfmt("bitcast(f32s, %s)", gen_rack(chance(50) ? T_I : T_U, c, d - 1).s), T_F,
                   1);
            break;
        }
        /* fall through */
    default:
        if (i >= 0)
            return var_expr(i, c);
        e = mk(xfmt("abs(%s)", leaf_rack(T_F, c).s), T_F, 1);
        break;
    }
    e.exact = 1;
    return e;
}

/* A comparison of two values of one element, at least one a rack. */
static E compare_expr(Ctx *c, int d)
{
    int t = rnd(3);
    E a = gen_rack(t, c, d - 1), b = gen_operand(t, c, d - 1, 1);
    if (chance(25)) {
        E s = a;
        a = b;
        b = s;
    }
    return mk(xfmt("%s %s %s", par(a), CMPS[rnd(6)], par(b)), T_M, 0);
}

static E gen_mask(Ctx *c, int d)
{
    if (chance(c->rake ? 40 : 15)) {
        char *text;
        TT tt;
        if (gen_pred(c, c->m, d < 2 ? 1 : 2, &text, &tt)) {
            E e = mk(text, T_M, 0);
            e.has_tt = 1;
            e.tt = tt;
            return e;
        }
    }
    if (d <= 0 || chance(15)) {
        int i = pick_var(T_M, c, 0, 0);
        if (i >= 0)
            return var_expr(i, c);
        return compare_expr(c, 1);
    }
    switch (rnd(9)) {
    case 0: case 1: case 2:
        return compare_expr(c, d);
    case 3: { /* and: the right side is evaluated where the left holds */
        E a = gen_mask(c, d - 1);
        Ctx c2 = *c;
        c2.masked = 1;
        if (a.has_tt)
            c2.m = tt_and(c->m, a.tt);
        E b = gen_mask(&c2, d - 1);
        E e = mk(xfmt("%s and %s", par(a), par(b)), T_M, 0);
        if (a.has_tt && b.has_tt) {
            e.has_tt = 1;
            e.tt = tt_and(a.tt, b.tt);
        }
        return e;
    }
    case 4: {
        E a = gen_mask(c, d - 1);
        Ctx c2 = *c;
        c2.masked = 1;
        if (a.has_tt)
            c2.m = tt_and(c->m, tt_not(a.tt));
        E b = gen_mask(&c2, d - 1);
        E e = mk(xfmt("%s or %s", par(a), par(b)), T_M, 0);
        if (a.has_tt && b.has_tt) {
            e.has_tt = 1;
            e.tt = tt_or(a.tt, b.tt);
        }
        return e;
    }
    case 5: {
        E a = gen_mask(c, d - 1);
        E e = chance(50) ? mk(xfmt("not (%s)", a.s), T_M, 0) : mk(xfmt("(%s) gaps", a.s), T_M, 0);
        e.has_tt = a.has_tt;
        e.tt = tt_not(a.tt);
        return e;
    }
    case 6: { /* a selection of masks */
        E m = gen_mask(c, d - 1), a, b;
        branches(T_M, c, d, m, &a, &b);
        return mk(xfmt("select(%s, %s, %s)", m.s, a.s, b.s), T_M, 1);
    }
    case 7:
        if (can_call(c) && helper.ret == T_M) {
            int ok;
            E e = call_helper(c, d, &ok);
            if (ok)
                return e;
        }
        /* fall through */
    default: {
        int i = pick_var(T_M, c, 0, 0);
        if (i >= 0)
            return var_expr(i, c);
        return compare_expr(c, d);
    }
    }
}

/* A uniform condition, as page 10 section 3 describes it: comparisons
 * naming a marked uniform, Boolean uniforms, and, or, not. */
static char *ucond(Ctx *c, int d)
{
    int r = rnd(10);
    if (d > 0 && r < 2) {
        char *a = ucond(c, d - 1), *b = ucond(c, d - 1);
        return xfmt("(%s) %s (%s)", a, r ? "and" : "or", b);
    }
    if (d > 0 && r == 2)
        return xfmt("not (%s)", ucond(c, d - 1));
    if (r < 5) {
        int b = pick_var(T_SB, c, 0, 0);
        if (b >= 0)
            return xfmt("<%s>", V[b].name);
        if (r == 4)
            return xfmt("<%s>", chance(50) ? "true" : "false");
    }
    if ((r == 5 || (r == 6 && d > 0)) && !c->fused && !c->through) {
        int ok;
        E m = mask_operand(c, d - 1, &ok);
        if (ok)
            return xfmt("%s(%s)", chance(50) ? "all" : "any", m.s);
    }
    int t = T_SF + rnd(3);
    int i = pick_var(t, c, 0, 0);
    if (i < 0) {
        t = T_SF;
        i = pick_var(t, c, 0, 0);
    }
    E other = chance(20) ? gen_uni(t, c, d - 1) : lit_expr(rk_of(t));
    E self = i >= 0 ? var_expr(i, c) : gen_uni(t, c, d - 1);
    if (self.lit && other.lit)
        other = gen_uni(t, c, 0);
    if (self.lit && other.lit)
        return xfmt("<%s>", chance(50) ? "true" : "false");
    if (chance(30)) {
        E s = self;
        self = other;
        other = s;
    }
    return xfmt("%s %s %s", par(self), CMPS[rnd(6)], par(other));
}

static const char *REDUCE[] = {"sum", "product", "minimum", "maximum"};

static E gen_uni(int t, Ctx *c, int d)
{
    if (t == T_SB) {
        if (!c->fused && !c->through && chance(40)) {
            int ok;
            E m = mask_operand(c, d - 1, &ok);
            if (ok)
                return mk(xfmt("%s(%s)", chance(50) ? "all" : "any", m.s), T_SB, 1);
        }
        return mk(ucond(c, d), T_SB, 0);
    }
    int rt = rk_of(t);
    int i = pick_var(t, c, 0, 0);
    if (d <= 0 || chance(20)) {
        const char *q = chance(15) ? pick_const(t, -(1ll << 40), 1ll << 40) : NULL;
        if (q)
            return mk(xfmt("%s", q), t, 1);
        if (i >= 0 && chance(75))
            return var_expr(i, c);
        return lit_expr(rt);
    }
    for (int tries = 0; tries < 20; tries++) {
        int ok = 1;
        switch (rnd(9)) {
        case 0: case 1: { /* reductions */
            if (c->fused || c->through)
                break;
            E x = cross_operand(rt, c, d, &ok);
            if (!ok)
                break;
            return mk(xfmt("%s(%s)", REDUCE[rnd(4)], x.s), t, 1);
        }
        case 2: { /* extract */
            if (c->fused)
                break;
            E x = cross_operand(rt, c, d, &ok);
            if (!ok)
                break;
            return mk(xfmt("extract(%s, %s)", x.s, lane_index()), t, 1);
        }
        case 3: case 4: { /* uniform arithmetic */
            E a = gen_uni(t, c, d - 1), b = gen_uni(t, c, d - 1);
            if (a.lit && b.lit)
                break;
            const char *op = ARITH[rnd(t == T_SF ? 4 : 3)];
            return mk(xfmt("%s %s %s", par(a), op, par(b)), t, 0);
        }
        case 5: { /* negation */
            if (t == T_SU || i < 0)
                break;
            return mk(xfmt("-%s", var_expr(i, c).s), t, 0);
        }
        case 6: /* bitmask */
            if (t != T_SU || c->fused || c->through)
                break;
            {
                E m = mask_operand(c, d - 1, &ok);
                if (!ok)
                    break;
                return mk(xfmt("bitmask(%s)", m.s), T_SU, 1);
            }
        case 7: { /* a uniform if */
            char *cond = ucond(c, d - 1);
            E a = gen_uni(t, c, d - 1), b = gen_uni(t, c, d - 1);
            if (a.lit && b.lit) {
                if (i < 0)
                    break;
                b = var_expr(i, c);
            }
            return mk(xfmt("if %s then %s else %s", cond, a.s, b.s), t, 0);
        }
        default:
            if (can_call(c) && helper.ret == t) {
                E e = call_helper(c, d, &ok);
                if (ok)
                    return e;
            }
            if (i >= 0)
                return var_expr(i, c);
            return lit_expr(rt);
        }
    }
    if (i >= 0)
        return var_expr(i, c);
    return lit_expr(rt);
}

/* --- predicates ------------------------------------------------------------ */

/* Arithmetic in a predicate (no calls): text and atom key.  Reads of
 * partially defined names only where `where` implies their definition. */
typedef struct Ar {
    char *s, *key;
    int rack, lit, atomic;
} Ar;

static Ar ar_leaf(int rt, int want_rack, Ctx *c, TT where)
{
    Ctx c2 = *c;
    c2.m = where;
    if (want_rack || chance(55)) {
        int i = pick_var(rt, &c2, 0, 0);
        if (i >= 0)
            return (Ar){xfmt("%s", V[i].name), xfmt("%s", V[i].name), 1, 0, 1};
        if (want_rack) {
            i = pick_var(T_F, &c2, 0, 0);
            if (rt != T_F || i < 0)
                return (Ar){NULL, NULL, 0, 0, 0};
            return (Ar){xfmt("%s", V[i].name), xfmt("%s", V[i].name), 1, 0, 1};
        }
    }
    int u = pick_var(sc_of(rt), &c2, 0, 0);
    if (u >= 0 && chance(50))
        return (Ar){xfmt("<%s>", V[u].name), xfmt("%s", V[u].name), 0, 0, 1};
    const char *q = chance(15) ? pick_const(sc_of(rt), -(1ll << 40), 1ll << 40) : NULL;
    if (q)
        return (Ar){xfmt("%s", q), xfmt("@%s", q), 0, 0, 1};
    const char *l = lit_of(rt);
    return (Ar){chance(50) ? xfmt("<%s>", l) : lit_text(l), lit_key(l), 0, 1, 1};
}

static Ar ar_gen(int rt, int want_rack, Ctx *c, TT where, int d)
{
    if (d <= 0 || chance(60))
        return ar_leaf(rt, want_rack, c, where);
    const char *op = ARITH[rnd(3)];
    Ar a = ar_gen(rt, want_rack, c, where, d - 1);
    if (!a.s)
        return a;
    Ar b = ar_gen(rt, 0, c, where, d - 1);
    if (!b.s || (a.lit && b.lit))
        return a;
    if (chance(30)) {
        Ar s = a;
        a = b;
        b = s;
    }
    return (Ar){xfmt("(%s %s %s)", a.s, op, b.s), xfmt("(%s %s %s)", op, a.key, b.key),
                a.rack || b.rack, 0, 1};
}

/* A comparison atom: new, or one already met. */
static int pred_atom(Ctx *c, TT where, char **text, TT *tt)
{
    if (natoms && (natoms == MAXATOMS || chance(40))) {
        int k = rnd(natoms);
        for (int n = 0; n < natoms; n++, k = (k + 1) % natoms)
            if (atoms[k].reuse && tt_sub(where, atoms[k].need)) {
                *text = xfmt("%s", atoms[k].text);
                *tt = tt_var(k);
                return 1;
            }
        if (natoms == MAXATOMS)
            return 0;
    }
    for (int tries = 0; tries < 6; tries++) {
        int rt = rnd(3);
        Ar a = ar_gen(rt, 1, c, where, 1);
        if (!a.s)
            continue;
        Ar b = ar_gen(rt, 0, c, where, 1);
        if (!b.s)
            continue;
        if (chance(25)) {
            Ar s = a;
            a = b;
            b = s;
        }
        const char *op = CMPS[rnd(6)];
        char *key = xfmt("(%s %s %s)", op, a.key, b.key);
        char *t = xfmt("%s %s %s", a.s, op, b.s);
        int k = atom_new(key, t, where, !c->through && !in_repeat);
        if (k < 0)
            return 0;
        *text = t;
        *tt = tt_var(k);
        return 1;
    }
    return 0;
}

static char *opd_key(Opd o, char **args) { return o.param >= 0 ? args[o.param] : lit_key(o.lit); }

/* The truth table of a global tine's formula with these argument keys. */
static int fm_eval(Fm *f, char **args, TT *tt)
{
    TT a, b;
    switch (f->op) {
    case FM_CMP: {
        char *key = xfmt("(%s %s %s)", f->cmp, opd_key(f->l, args), opd_key(f->r, args));
        int k = atom_new(key, NULL, tt_const(0), 0);
        if (k < 0)
            return 0;
        *tt = tt_var(k);
        return 1;
    }
    case FM_APP: {
        char *inner[3];
        for (int i = 0; i < f->nargs; i++)
            inner[i] = opd_key(f->args[i], args);
        return fm_eval(gts[f->gt].body, inner, tt);
    }
    case FM_NOT:
        if (!fm_eval(f->a, args, &a))
            return 0;
        *tt = tt_not(a);
        return 1;
    default:
        if (!fm_eval(f->a, args, &a) || !fm_eval(f->b, args, &b))
            return 0;
        *tt = f->op == FM_AND ? tt_and(a, b) : tt_or(a, b);
        return 1;
    }
}

/* An application of a global tine, defined where `where` holds. */
static int pred_gtine(Ctx *c, TT where, char **text, TT *tt)
{
    if (!ngt)
        return 0;
    GTine *g = &gts[rnd(ngt)];
    Ctx c2 = *c;
    c2.m = where;
    Buf b = {0};
    char *keys[3];
    bput(&b, "#%s(", g->name);
    for (int i = 0; i < g->np; i++) {
        int t = g->pty[i];
        Ar a;
        if (is_rack(t)) {
            a = ar_gen(t, 1, &c2, where, 1);
            if (!a.s)
                return 0;
        } else { /* a marked uniform or a marked literal */
            int u = pick_var(t, &c2, 0, 0);
            if (u >= 0 && chance(60)) {
                a = (Ar){xfmt("<%s>", V[u].name), xfmt("%s", V[u].name), 0, 0, 1};
            } else {
                const char *l = lit_of(rk_of(t));
                a = (Ar){xfmt("<%s>", l), lit_key(l), 0, 1, 1};
            }
        }
        bput(&b, "%s%s", i ? ", " : "", a.s);
        keys[i] = a.key;
    }
    bput(&b, ")");
    if (!fm_eval(g->body, keys, tt))
        return 0;
    *text = b.s;
    return 1;
}

/* A predicate in the predicate grammar that is also an expression:
 * comparisons, tines, not, gaps, and, or, every operand parenthesised.
 * Defined wherever `where` holds. */
static int gen_pred(Ctx *c, TT where, int d, char **text, TT *tt)
{
    int r = rnd(10);
    if (d > 0 && r < 3) {
        char *a, *b;
        TT ta, tb;
        if (!gen_pred(c, where, d - 1, &a, &ta))
            return 0;
        int and = r < 2;
        TT w2 = tt_and(where, and ? ta : tt_not(ta));
        if (!gen_pred(c, w2, d - 1, &b, &tb))
            return 0;
        *text = xfmt("(%s) %s (%s)", a, and ? "and" : "or", b);
        *tt = and ? tt_and(ta, tb) : tt_or(ta, tb);
        return 1;
    }
    if (d > 0 && r == 3) {
        char *a;
        TT ta;
        if (!gen_pred(c, where, d - 1, &a, &ta))
            return 0;
        *text = chance(50) ? xfmt("not (%s)", a) : xfmt("(%s) gaps", a);
        *tt = tt_not(ta);
        return 1;
    }
    if (r == 4 && nlt) {
        LTine *l = &lts[rnd(nlt)];
        *text = chance(25) ? xfmt("#%s gaps", l->name) : xfmt("#%s", l->name);
        *tt = strstr(*text, "gaps") ? tt_not(l->tt) : l->tt;
        return 1;
    }
    if (r == 5 && pred_gtine(c, where, text, tt)) {
        if (chance(20)) {
            *text = xfmt("%s gaps", *text);
            *tt = tt_not(*tt);
        }
        return 1;
    }
    return pred_atom(c, where, text, tt);
}

/* --- global tines ---------------------------------------------------------- */

static const char *gparam_name[3] = {"x", "y", "lim"};

static void fm_text(Buf *b, Fm *f, GTine *g)
{
    switch (f->op) {
    case FM_CMP:
        for (int s = 0; s < 2; s++) {
            Opd o = s ? f->r : f->l;
            if (s)
                bput(b, " %s ", f->cmp);
            if (o.param >= 0)
                bput(b, is_uni(g->pty[o.param]) ? "<%s>" : "%s", gparam_name[o.param]);
            else
                bput(b, "%s", lit_text(o.lit));
        }
        return;
    case FM_APP:
        bput(b, "#%s(", gts[f->gt].name);
        for (int i = 0; i < f->nargs; i++) {
            Opd o = f->args[i];
            int t = gts[f->gt].pty[i];
            if (i)
                bput(b, ", ");
            if (o.param >= 0)
                bput(b, is_uni(g->pty[o.param]) ? "<%s>" : "%s", gparam_name[o.param]);
            else
                bput(b, is_uni(t) ? "<%s>" : "%s", o.lit);
        }
        bput(b, ")");
        return;
    case FM_NOT:
        bput(b, "not (");
        fm_text(b, f->a, g);
        bput(b, ")");
        return;
    default:
        bput(b, "(");
        fm_text(b, f->a, g);
        bput(b, ") %s (", f->op == FM_AND ? "and" : "or");
        fm_text(b, f->b, g);
        bput(b, ")");
        return;
    }
}

static Fm *fm_cmp(GTine *g)
{
    Fm *f = calloc(1, sizeof *f);
    f->op = FM_CMP;
    f->cmp = CMPS[rnd(6)];
    int rt = g->pty[0];
    f->l = (Opd){0, NULL};
    if (g->np > 1 && chance(70))
        f->r = (Opd){1 + rnd(g->np - 1), NULL};
    else
        f->r = (Opd){-1, lit_of(rt)};
    if (chance(20)) {
        Opd s = f->l;
        f->l = f->r;
        f->r = s;
    }
    return f;
}

/* Global tines of one group: the first compares, later ones may refer to
 * an earlier one (written after it or before it in the file). */
static void gen_gtines(const char *prefix, Buf *out)
{
    ngt = rnd(3);
    /* Definitions, sometimes later ones first (a literal argument of a
     * later tine was typed before its parameters until 99d7c15:
     * tests/nirdiff/regress/forward-tine-literal.rk). */
    int rev = chance(50);
    for (int i = 0; i < ngt; i++) {
        GTine *g = &gts[i];
        g->name = xfmt("%s_g%d", prefix, i);
        int rt = rnd(3);
        g->np = 1 + rnd(3);
        g->pty[0] = rt;
        if (g->np > 1)
            g->pty[1] = rt;
        if (g->np > 2)
            g->pty[2] = sc_of(rt);
        if (g->np == 2 && chance(50))
            g->pty[1] = sc_of(rt);
        Fm *f = fm_cmp(g);
        int k = rnd(4);
        if (k == 1) {
            Fm *n = calloc(1, sizeof *n);
            n->op = FM_NOT;
            n->a = f;
            f = n;
        } else if (k >= 2) {
            Fm *n = calloc(1, sizeof *n);
            n->op = k == 2 ? FM_AND : FM_OR;
            n->a = f;
            n->b = fm_cmp(g);
            /* an earlier tine of the same rack element, applied to x */
            for (int j = 0; j < i; j++)
                if (gts[j].pty[0] == rt && chance(70)) {
                    Fm *a = calloc(1, sizeof *a);
                    a->op = FM_APP;
                    a->gt = j;
                    a->nargs = gts[j].np;
                    a->args[0] = (Opd){0, NULL};
                    for (int p = 1; p < gts[j].np; p++) {
                        int q = -1;
                        for (int k2 = 1; k2 < g->np; k2++)
                            if (g->pty[k2] == gts[j].pty[p])
                                q = k2;
                        if (is_rack(gts[j].pty[p]))
                            a->args[p] = (Opd){0, NULL};
                        else if (q >= 0 && chance(50))
                            a->args[p] = (Opd){q, NULL};
                        else
                            a->args[p] = (Opd){-1, lit_of(rt)};
                    }
                    n->b = a;
                    break;
                }
            f = n;
        }
        g->body = f;
    }
    for (int k = 0; k < ngt; k++) {
        GTine *g = &gts[rev ? ngt - 1 - k : k];
        bput(out, "tine #%s(", g->name);
        for (int p = 0; p < g->np; p++)
            bput(out, is_uni(g->pty[p]) ? "%s<%s: %s>" : "%s%s: %s", p ? ", " : "",
                 gparam_name[p], tyname[g->pty[p]]);
        bput(out, ") means ");
        fm_text(out, g->body, g);
        bput(out, "\n");
    }
}

/* --- statements and kernels ------------------------------------------------ */

/* A value where nothing gives a literal its type (an unannotated binding,
 * a through block's result): never a bare literal. */
static E gen_value(int t, Ctx *c, int d, int uni_pct)
{
    if (t != T_M && chance(uni_pct)) {
        E e = gen_uni(sc_of(t), c, d);
        if (!e.lit)
            return e;
    }
    return gen(t, c, d);
}

static int rand_rack(void) { return (int[]){T_F, T_F, T_I, T_U}[rnd(4)]; }
static int rand_bind_type(void) { return (int[]){T_F, T_F, T_I, T_U, T_M}[rnd(5)]; }

/* Parameters: at least one f32s rack, `a0`. */
static int gen_params(Buf *b, int *pty, int maxp)
{
    int np = 1 + rnd(maxp);
    pty[0] = T_F;
    for (int i = 1; i < np; i++) {
        int r = rnd(10);
        pty[i] = r < 5 ? rand_rack() : r < 6 ? T_M : (int[]){T_SF, T_SI, T_SU, T_SB, T_SF, T_SU}[rnd(6)];
    }
    /* shuffle the order, keeping a0 first in the names */
    bput(b, "(");
    for (int i = 0; i < np; i++) {
        char *n = xfmt("a%d", i);
        bput(b, is_uni(pty[i]) ? "%s<%s: %s>" : "%s%s: %s", i ? ", " : "", n, tyname[pty[i]]);
        Var *v = add_var(n, pty[i]);
        v->exact = pty[i] == T_F;
    }
    bput(b, ")");
    return np;
}

/* Multiply-add shapes for a fused region: products, sums of products,
 * products bound by one binding and added by a later one, products with
 * several uses.  With no_contract, an add of a product becomes a
 * subtract. */
static E f_leaf(Ctx *c)
{
    if (chance(12))
        return chance(50) ? lit_expr(T_F) : gen_uni(T_SF, c, 0);
    return leaf_rack(T_F, c);
}

static E f_mul(Ctx *c)
{
    if (chance(10)) {
        /* a product of uniforms: not a rack multiply, never contracted */
        int i = pick_var(T_SF, c, 0, 0);
        if (i >= 0) {
            E u = f_leaf(c);
            if (!is_rack(u.ty))
                return mk(xfmt("(%s * %s)", var_expr(i, c).s, par(u)), T_SF, 1);
        }
    }
    E a = leaf_rack(T_F, c), b = f_leaf(c);
    if (chance(30)) {
        E s = a;
        a = b;
        b = s;
    }
    E e = mk(xfmt("%s * %s", par(a), par(b)), T_F, 0);
    e.fmul = 1;
    return e;
}

static E f_add(E a, E b)
{
    const char *op = no_contract && (a.fmul || b.fmul) ? "-" : "+";
    return mk(xfmt("%s %s %s", a.s, op, b.fmul ? par(b) : b.s), T_F, 0);
}

/* f_add of two generated operands, generated in order (C leaves the
 * order of a call's arguments open, and the output must not depend on
 * the compiler). */
static E f_add_of(E (*x)(Ctx *), E (*y)(Ctx *), Ctx *c)
{
    E a = x(c);
    E b = y(c);
    return f_add(a, b);
}

/* A product bound earlier: in this region (contracted when added), or in
 * another region or a let (not contracted).  -1 if none. */
static int pick_prod(Ctx *c)
{
    int any = -1;
    for (int i = nv - 1; i >= 0; i--) {
        if (!V[i].prod || !readable(&V[i], c))
            continue;
        if (V[i].region == c->region && c->region >= 0 && chance(70))
            return i;
        if (any < 0 || chance(30))
            any = i;
    }
    return any;
}

/* An add that contracting profiles leave alone: the product was bound in
 * another region or outside any (or this is not in a region). */
static E prod_sum(Ctx *c)
{
    int i = pick_prod(c);
    E m = i >= 0 ? var_expr(i, c) : f_mul(c);
    E l = f_leaf(c);
    return chance(50) ? f_add(m, l) : f_add(l, m);
}

static E contract_value(Ctx *c)
{
    int prod = pick_prod(c);
    switch (rnd(8)) {
    case 0: case 1:
        return f_mul(c);
    case 2:
        return f_add_of(f_mul, f_leaf, c);
    case 3:
        return f_add_of(f_leaf, f_mul, c);
    case 4:
        return f_add_of(f_mul, f_mul, c);
    case 5: case 6:
        if (prod >= 0) {
            E m = var_expr(prod, c);
            E l = f_leaf(c);
            return chance(50) ? f_add(m, l) : f_add(l, m);
        }
        return f_add_of(f_mul, f_leaf, c);
    default: { /* not contracted: a negated product, a difference */
        E m = f_mul(c);
        return chance(50) ? mk(xfmt("-(%s) + %s", m.s, par(f_leaf(c))), T_F, 0)
                          : mk(xfmt("%s - %s", m.s, par(f_leaf(c))), T_F, 0);
    }
    }
}

static int pick_loc(int t)
{
    for (int j = nv - 1; j >= 0; j--)
        if (V[j].loc && !V[j].alen && (t < 0 || V[j].ty == t) && chance(60))
            return j;
    return -1;
}

static int pick_array(int t)
{
    for (int j = nv - 1; j >= 0; j--)
        if (V[j].alen && (t < 0 || V[j].ty == t) && chance(60))
            return j;
    return -1;
}

/* An assignment to a location or a rack array element (index: a literal,
 * or the repeat index `idx` when it stays in range). */
static void gen_assign(Buf *b, Ctx *c, const char *ind, const char *idx, int idx_max)
{
    int j = chance(50) ? pick_loc(-1) : pick_array(-1);
    if (j < 0)
        j = pick_loc(-1);
    if (j < 0)
        return;
    Var *v = &V[j];
    int t = v->ty;
    char *target = v->alen ? (idx && idx_max <= v->alen && chance(70)
                                  ? xfmt("%s[<%s>]", v->name, idx)
                                  : xfmt("%s[<%d>]", v->name, rnd(v->alen)))
                           : xfmt("%s", v->name);
    E e;
    if (!v->alen && chance(50) && t != T_M) { /* acc <- acc op x */
        const char *op = ARITH[rnd(t == T_F ? 4 : 3)];
        E x = gen_operand(t, c, 1, 1);
        e = mk(xfmt("%s %s %s", v->name, op, par(x)), t, 0);
    } else {
        e = t == T_M ? gen_mask(c, 2) : gen_operand(t, c, 2, 1);
    }
    bput(b, "%s%s <- %s\n", ind, target, e.s);
}

/* Locations, rack arrays, assignments and repeat (a scratch's body). */
static void gen_loc_stmt(Buf *b, Ctx *c, const char *ind)
{
    int k = rnd(10);
    if (k < 3) {
        int t = (int[]){T_F, T_F, T_I, T_U, T_M}[rnd(5)];
        char *name = fresh("l");
        E e = t == T_M ? gen_mask(c, 2) : gen_value(t, c, 2, 10);
        if (t != T_M && chance(30))
            bput(b, "%s%s: %s := %s\n", ind, name, tyname[t], e.s);
        else
            bput(b, "%s%s := %s\n", ind, name, e.s);
        Var *v = add_var(name, t);
        v->loc = 1;
        v->exact = 0;
    } else if (k < 5) {
        int t = rand_rack();
        int n = 2 + rnd(3);
        char *name = fresh("p");
        bput(b, "%s%s: [%d]%s := %s\n", ind, name, n, tyname[t], gen_operand(t, c, 2, 1).s);
        Var *v = add_var(name, t);
        v->loc = 1;
        v->alen = n;
    } else if (k < 8) {
        gen_assign(b, c, ind, NULL, 0);
    } else {
        int have = 0;
        for (int j = 0; j < nv; j++)
            have |= V[j].loc;
        if (!have) { /* something for the loop to assign */
            int t = rand_rack();
            char *name = fresh("l");
            bput(b, "%s%s := %s\n", ind, name, gen_rack(t, c, 1).s);
            add_var(name, t)->loc = 1;
        }
        int n = 1 + rnd(4);
        char *idx = fresh("k");
        bput(b, "%srepeat <%s: i32> from <0> up to <%d>:\n", ind, idx, n);
        int saved = nv;
        add_var(idx, T_SI);
        char *ind2 = xfmt("%s  ", ind);
        int m = 1 + rnd(3);
        size_t before = b->n;
        in_repeat++;
        for (int i = 0; i < m; i++)
            gen_assign(b, c, ind2, idx, n);
        in_repeat--;
        if (b->n == before) /* nothing to assign: a location for the body */
            bput(b, "%s%s := <%s>\n", ind2, fresh("l"), idx);
        nv = saved;
    }
}

/* Statements of a scratch or a through body: lets, uniform lets and runs
 * of fused bindings (each run one region); in a scratch (locs) also
 * locations, rack arrays, assignments and repeat. */
static void gen_stmts(Buf *b, Ctx *c, int n, const char *ind, int locs)
{
    for (int i = 0; i < n; i++) {
        if (locs && chance(20)) {
            gen_loc_stmt(b, c, ind);
            continue;
        }
        int k = rnd(10);
        if (k < 4) { /* fused run */
            int run = 1 + rnd(contract_rich ? 4 : 3);
            Ctx f = *c;
            f.fused = 1;
            f.region = region_counter++;
            for (int j = 0; j < run; j++) {
                int t = rand_bind_type();
                E e;
                if (chance(contract_rich ? 75 : 20)) {
                    t = T_F;
                    e = contract_value(&f);
                } else {
                    e = gen_value(t, &f, 1 + rnd(3) + deep, 10);
                }
                char *name = fresh("q");
                if (chance(20))
                    bput(b, "%s| %s: %s <| %s\n", ind, name, tyname[t], e.s);
                else
                    bput(b, "%s| %s <| %s\n", ind, name, e.s);
                Var *v = add_var(name, t);
                v->region = f.region;
                v->fmul = e.fmul;
                v->prod = e.fmul && e.ty == T_F;
                v->exact = e.exact && t == T_F && is_rack(e.ty);
                v->has_tt = e.has_tt;
                v->tt = e.tt;
                v->def = c->m;
                v->full = !c->masked;
            }
            i += run - 1;
        } else if (k < 7) { /* let */
            int t = rand_bind_type();
            char *name = fresh("v");
            E e;
            if (t != T_M && chance(12)) {
                e = gen_uni(sc_of(t), c, 1);
                bput(b, "%slet %s: %s = %s\n", ind, name, tyname[t], e.s);
            } else if (contract_rich && chance(60)) {
                t = T_F;
                e = chance(50) ? f_mul(c) : prod_sum(c);
                if (e.ty != T_F)
                    e = f_mul(c);
                bput(b, "%slet %s = %s\n", ind, name, e.s);
            } else {
                e = gen_value(t, c, 1 + rnd(3) + deep, 8);
                bput(b, "%slet %s = %s\n", ind, name, e.s);
            }
            Var *v = add_var(name, t);
            v->exact = e.exact && t == T_F && is_rack(e.ty);
            v->has_tt = e.has_tt;
            v->tt = e.tt;
            v->def = c->m;
            v->full = !c->masked;
            v->prod = e.fmul && e.ty == T_F;
        } else { /* uniform let */
            int t = (int[]){T_SF, T_SF, T_SI, T_SU, T_SB}[rnd(5)];
            char *name = fresh("s");
            E e = gen_uni(t, c, 1 + rnd(2));
            bput(b, "%slet <%s: %s> = %s\n", ind, name, tyname[t], e.s);
            add_var(name, t);
        }
    }
}

static void reset_fn(void)
{
    nv = 0;
    natoms = 0;
    nlt = 0;
    region_counter = 0;
}

static Ctx top_ctx(int rake)
{
    Ctx c;
    memset(&c, 0, sizeof c);
    c.m = tt_const(1);
    c.region = -1;
    c.rake = rake;
    return c;
}

static int rand_result(int helper_fn)
{
    int r = rnd(20);
    if (r < 8)
        return T_F;
    if (r < 11)
        return T_I;
    if (r < 13)
        return T_U;
    if (r < 15)
        return T_M;
    if (r < 17)
        return T_SF;
    if (helper_fn)
        return T_F;
    return (int[]){T_SI, T_SU, T_SB}[r - 17];
}

static void gen_scratch(Buf *out, const char *name, int ret, int small, int *pty, int *np)
{
    reset_fn();
    Ctx c = top_ctx(0);
    Buf params = {0};
    *np = gen_params(&params, pty, small ? 2 : 5);
    bput(out, "scratch %s%s -> %s:\n", name, params.s, tyname[ret]);
    gen_stmts(out, &c, rnd(small ? 3 : 7), "  ", 1);
    E r = is_rack(ret) ? gen_operand(ret, &c, (small ? 2 : 3) + deep, 1) : gen(ret, &c, (small ? 2 : 3) + deep);
    if (ret == T_F && contract_rich && chance(40)) /* outside any region */
        r = prod_sum(&c);
    bput(out, "  %s\n", r.s);
}

static void gen_rake(Buf *out, const char *name, int ret, int small, int *pty, int *np)
{
    reset_fn();
    Ctx c = top_ctx(1);
    Buf params = {0};
    *np = gen_params(&params, pty, small ? 3 : 5);
    bput(out, "rake %s%s -> %s:\n", name, params.s, tyname[ret]);
    /* setup lets */
    int ns = rnd(small ? 2 : 4);
    for (int i = 0; i < ns; i++) {
        if (chance(25)) {
            int t = (int[]){T_SF, T_SI, T_SU, T_SB}[rnd(4)];
            char *n = fresh("s");
            bput(out, "  let <%s: %s> = %s\n", n, tyname[t], gen_uni(t, &c, 2).s);
            add_var(n, t);
            continue;
        }
        int t = rand_bind_type();
        char *n = fresh("v");
        E e = gen_value(t, &c, 2 + deep, 8);
        bput(out, "  let %s = %s\n", n, e.s);
        Var *v = add_var(n, t);
        v->exact = e.exact && t == T_F && is_rack(e.ty);
        v->has_tt = e.has_tt;
        v->tt = e.tt;
    }
    /* local tines */
    int nl = rnd(small ? 2 : 4);
    for (int i = 0; i < nl; i++) {
        char *text;
        TT tt;
        if (!gen_pred(&c, tt_const(1), 1 + rnd(2), &text, &tt) || tt_zero(tt))
            continue;
        LTine *l = &lts[nlt++];
        l->name = fresh("t");
        l->tt = tt;
        bput(out, "  tine #%s means %s\n", l->name, text);
    }
    /* through blocks */
    int nth = 1 + rnd(small ? 2 : 3);
    char *tpred[4];
    TT ttp[4];
    int done = 0;
    for (int k = 0; k < nth; k++) {
        char *text = NULL;
        TT tt;
        int ok = 0;
        for (int tries = 0; tries < 8 && !ok; tries++) {
            if (done && chance(40)) { /* nest under an earlier through block */
                int j = rnd(done);
                char *x;
                TT tx;
                if (gen_pred(&c, ttp[j], 1, &x, &tx)) {
                    text = xfmt("(%s) and (%s)", tpred[j], x);
                    tt = tt_and(ttp[j], tx);
                    ok = !tt_zero(tt);
                }
            } else if (gen_pred(&c, tt_const(1), 1 + rnd(2), &text, &tt)) {
                ok = !tt_zero(tt);
            }
        }
        if (!ok) {
            if (k)
                break;
            text = xfmt("a0 >= <0.0>");
            int a = atom_new("(>= a0 n:0x0p+0)", text, tt_const(1), 1);
            tt = a >= 0 ? tt_var(a) : tt_const(1);
        }
        int t = chance(60) && ret != T_M ? ret : rand_rack();
        char *rname = fresh("r");
        int has_else = chance(35);
        bput(out, "  through %s", text);
        if (has_else) {
            int u = pick_var(sc_of(t), &c, 0, 0);
            if (u >= 0 && chance(50))
                bput(out, " else <%s>", V[u].name);
            else {
                const char *l = lit_of(t);
                bput(out, chance(50) ? " else <%s>" : " else %s", l);
            }
        }
        bput(out, " into %s:\n", rname);
        Ctx tc = c;
        tc.m = tt;
        tc.masked = 1;
        tc.through = 1;
        int saved = nv;
        gen_stmts(out, &tc, rnd(small ? 2 : 4), "    ", 0);
        E r = gen_value(t, &tc, 1 + rnd(3) + deep, 8);
        if (t == T_F && contract_rich && chance(40)) /* outside any region */
            r = prod_sum(&tc);
        bput(out, "    %s\n", r.s);
        nv = saved;
        Var *v = add_var(rname, t);
        if (!has_else) {
            v->def = tt;
            v->full = 0;
            v->partial_through = 1;
        }
        v->exact = 0;
        tpred[done] = text;
        ttp[done] = tt;
        done++;
    }
    /* the sweep */
    bput(out, "  sweep:\n");
    TT remaining = tt_const(1);
    char *arms[6];
    TT atts[6];
    int narms = 0, want = 1 + rnd(4);
    for (int i = 0; i < want && narms < 5; i++) {
        char *text = NULL;
        TT tt;
        int ok = 0;
        for (int tries = 0; tries < 10 && !ok; tries++) {
            int k = rnd(10);
            int j = rnd(done);
            if (k < 3) {
                text = xfmt("%s", tpred[j]);
                tt = ttp[j];
            } else if (k < 4) {
                text = xfmt("(%s) gaps", tpred[j]);
                tt = tt_not(ttp[j]);
            } else if (k < 6) {
                char *x;
                TT tx;
                if (!gen_pred(&c, tt_and(remaining, ttp[j]), 1, &x, &tx))
                    continue;
                text = xfmt("(%s) and (%s)", tpred[j], x);
                tt = tt_and(ttp[j], tx);
            } else if (k == 6 && narms && !small) {
                /* complement of everything so far: covers the rest */
                Buf b = {0};
                TT u = tt_const(0);
                bput(&b, "(");
                for (int a = 0; a < narms; a++) {
                    bput(&b, "%s(%s)", a ? " or " : "", arms[a]);
                    u = tt_or(u, atts[a]);
                }
                bput(&b, ") gaps");
                text = b.s;
                tt = tt_not(u);
            } else if (!gen_pred(&c, remaining, 1 + rnd(2), &text, &tt)) {
                continue;
            }
            ok = !tt_zero(tt_and(remaining, tt));
        }
        if (!ok)
            break;
        Ctx ac = c;
        ac.m = tt_and(remaining, tt);
        ac.masked = 1;
        E v = ret == T_M ? gen_mask(&ac, 1 + rnd(3) + deep) : gen_operand(ret, &ac, 1 + rnd(3) + deep, 1);
        bput(out, "    | %s => %s\n", text, v.s);
        arms[narms] = text;
        atts[narms++] = tt;
        remaining = tt_and(remaining, tt_not(tt));
        if (tt_zero(remaining))
            break;
    }
    if (!tt_zero(remaining)) {
        Ctx ac = c;
        ac.m = remaining;
        ac.masked = 1;
        E v = ret == T_M ? gen_mask(&ac, 1 + rnd(3) + deep) : gen_operand(ret, &ac, 1 + rnd(3) + deep, 1);
        bput(out, "    | _ => %s\n", v.s);
    }
}

/* --- calls ------------------------------------------------------------------ */

static const uint32_t F_SPECIAL[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000, 0xffc00001,
    0xff800001, 0x7f800001, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000,
    0x00800000, 0x80800000, 0x4b000000, 0xcb000000, 0x4b000001, 0x4b7fffff, 0x4affffff,
    0x4f000000, 0xcf000000, 0xcf000001, 0x4effffff, 0x4f800000, 0x4f7fffff, 0x5f800000,
    0x3fc00000, 0x40200000, 0xbfc00000, 0xc0200000, 0x3f000000, 0xbf000000, 0x3f800000,
    0xbf800000, 0x40000000, 0x3f800001, 0x3f7fffff, 0x7f7fffff, 0xff7fffff, 0x3effffff,
    0xbf400000, 0x40400000, 0x40600000, 0xbf7fffff, 0x3f400000, 0xbec00000, 0x34000000,
    0x3f800800, 0xbf801000, 0x0f800000, 0x5f000000,
};
static const uint32_t I_SPECIAL[] = {0,          1,          0xffffffff, 0x80000000, 0x7fffffff,
                                     0x80000001, 0x7ffffffe, 2,          0xfffffffe, 31,
                                     32,         255,        0x10000,    0xffff0000, 0x01000001};
static const uint32_t U_SPECIAL[] = {0,          1,          0xffffffff, 0x80000000, 0x7fffffff,
                                     0x80000001, 0xfffffffe, 31,         32,         33,
                                     255,        64,         0x00ffffff, 0x01000001};

typedef struct Pool {
    uint32_t v[3][4];
} Pool;

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint32_t value(int elem, Pool *p)
{
    int r = rnd(100);
    if (p && r < 22)
        return p->v[elem][rnd(4)];
    if (elem == T_F) {
        if (r < 60)
            return F_SPECIAL[rnd(COUNT(F_SPECIAL))];
        if (r < 75)
            return fbits((float)(rnd(61) - 30) * (chance(30) ? 0.5f : 1.0f));
        if (r < 85) /* many mantissa bits near 1: rounding differs under fma */
            return (rnd(2) ? 0xbf800000u : 0x3f800000u) | ((uint32_t)next64() & 0x007fffffu);
        return (uint32_t)next64();
    }
    const uint32_t *sp = elem == T_I ? I_SPECIAL : U_SPECIAL;
    int ns = elem == T_I ? COUNT(I_SPECIAL) : COUNT(U_SPECIAL);
    if (r < 55)
        return sp[rnd(ns)];
    if (r < 80)
        return elem == T_I ? (uint32_t)(rnd(101) - 50) : (uint32_t)rnd(300);
    return (uint32_t)next64();
}

static void gen_calls(Buf *out, const char *name, const int *pty, int np, int k)
{
    for (int call = 0; call < k; call++) {
        Pool p;
        for (int e = 0; e < 3; e++)
            for (int i = 0; i < 4; i++)
                p.v[e][i] = value(e, NULL);
        bput(out, "%s", name);
        for (int i = 0; i < np; i++) {
            int t = pty[i];
            bput(out, " ");
            if (t == T_M) {
                for (int l = 0; l < lanes(); l++)
                    bput(out, "%s%d", l ? "," : "", rnd(2));
            } else if (is_rack(t)) {
                for (int l = 0; l < lanes(); l++)
                    bput(out, "%s%x", l ? "," : "", value(t, &p));
            } else if (t == T_SB) {
                bput(out, "%d", rnd(2));
            } else {
                bput(out, "%x", value(rk_of(t), &p));
            }
        }
        bput(out, "\n");
    }
}

/* --- one group --------------------------------------------------------------- */

static const char suffix[NTY] = {'f', 'i', 'u', 'm', 'f', 'i', 'u', 'b'};

static void gen_group(Buf *rk, Buf *calls, int index, int ncalls)
{
    int is_rake = chance(55);
    int ret = is_rake ? (int[]){T_F, T_F, T_F, T_I, T_U, T_M}[rnd(6)] : rand_result(0);
    char *prefix = xfmt("k%04d", index);
    char *name = xfmt("%s_%c", prefix, suffix[ret]);
    Buf body = {0};
    bput(rk, "~~ begin %s\n", name);
    nconst = rnd(4);
    for (int i = 0; i < nconst; i++) {
        Const *q = &consts[i];
        q->name = xfmt("%s_c%d", prefix, i);
        q->ty = (int[]){T_SF, T_SI, T_SI, T_SU}[rnd(4)];
        const char *l;
        if (q->ty == T_SI && chance(60)) { /* a shift count or lane index */
            q->v = rnd(chance(50) ? lanes() : 32);
            l = xfmt("%lld", q->v);
        } else {
            l = lit_of(rk_of(q->ty));
            q->v = strtoll(l, NULL, 0);
        }
        /* a negated literal, for signed types (rake-check rejects a
         * negated u32 constant: tests/nirdiff/regress/u32-const-negated.rk) */
        int neg = q->ty != T_SU && l[0] != '-' && chance(30) && strcmp(l, "2147483648.0");
        if (neg)
            q->v = -q->v;
        bput(rk, "const %s: %s = %s%s%s\n", q->name, tyname[q->ty], neg ? "-(" : "", l,
             neg ? ")" : "");
    }
    gen_gtines(prefix, rk);
    have_helper = 0;
    if (chance(35)) {
        size_t hstart = rk->n;
        int hp[8], hn;
        int hret = rand_result(1);
        char *hname = xfmt("%s_h", prefix);
        if (chance(30) && hret != T_M && hret != T_SF)
            gen_rake(rk, hname, hret, 1, hp, &hn);
        else
            gen_scratch(rk, hname, hret, 1, hp, &hn);
        helper.name = hname;
        helper.np = hn;
        for (int i = 0; i < hn && i < 4; i++)
            helper.pty[i] = hp[i];
        helper.ret = hret;
        helper.cross = 0;
        static const char *cross[] = {"shuffle(", "sum(", "product(", "minimum(", "maximum(",
                                      "scan_", "extract(", "insert(", "all(", "any(",
                                      "bitmask("};
        for (int i = 0; i < COUNT(cross); i++)
            helper.cross |= strstr(rk->s + hstart, cross[i]) != NULL;
        have_helper = hn <= 4;
    }
    int pty[8], np;
    if (is_rake)
        gen_rake(&body, name, ret, 0, pty, &np);
    else
        gen_scratch(&body, name, ret, 0, pty, &np);
    bput(rk, "%s~~ end %s\n\n", body.s, name);
    gen_calls(calls, name, pty, np, ncalls);
}

/* --- comparing outputs ---------------------------------------------------------- */

static char **read_lines(const char *path, int *n, int skip_comments)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gen-kernels: cannot open %s\n", path);
        exit(2);
    }
    char **v = NULL;
    int cap = 0;
    *n = 0;
    char *line = NULL;
    size_t lc = 0;
    ssize_t got;
    while ((got = getline(&line, &lc, f)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
        if (skip_comments) {
            const char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!*p || *p == '#')
                continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            v = realloc(v, sizeof *v * (size_t)cap);
        }
        v[(*n)++] = xfmt("%s", line);
    }
    free(line);
    fclose(f);
    return v;
}

static int is_nan_hex(const char *s, size_t n)
{
    char buf[32];
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    unsigned long long x = strtoull(buf, NULL, 16);
    return (x & 0x7fffffffu) > 0x7f800000u && x <= 0xffffffffull;
}

/* Equal results: bit for bit, except any NaN lane equals any NaN lane in
 * an f32 result. */
static int same(const char *a, const char *b, int fl)
{
    if (!strcmp(a, b))
        return 1;
    if (!fl)
        return 0;
    for (;;) {
        size_t na = strcspn(a, ","), nb = strcspn(b, ",");
        int eq = (na == nb && !strncmp(a, b, na)) || (is_nan_hex(a, na) && is_nan_hex(b, nb));
        if (!eq)
            return 0;
        if (!a[na] || !b[nb])
            return !a[na] && !b[nb];
        a += na + 1;
        b += nb + 1;
    }
}

/* The group of a kernel, by its name or its group's prefix (kNNNN). */
static void print_kernel(char **rk, int nrk, const char *name)
{
    size_t n = strcspn(name, "_");
    int on = 0;
    for (int i = 0; i < nrk; i++) {
        if (!strncmp(rk[i], "~~ begin ", 9) && !strncmp(rk[i] + 9, name, n) &&
            rk[i][9 + n] == '_')
            on = 1;
        if (on)
            printf("    %s\n", rk[i]);
        if (on && !strncmp(rk[i], "~~ end ", 7))
            break;
    }
}

/* --show F.rk NAME|LINE: the group of a kernel, or the one holding a line. */
static int show(const char *prk, const char *what)
{
    int nrk;
    char **rk = read_lines(prk, &nrk, 0);
    char *end;
    long line = strtol(what, &end, 10);
    if (*end) {
        print_kernel(rk, nrk, what);
        return 0;
    }
    const char *name = NULL;
    for (int i = 0; i < nrk && i < line; i++)
        if (!strncmp(rk[i], "~~ begin ", 9))
            name = rk[i] + 9;
    if (name)
        print_kernel(rk, nrk, name);
    return 0;
}

static int compare(const char *pa, const char *pb, const char *prk, const char *pcalls)
{
    int na, nb, nrk, nc;
    char **a = read_lines(pa, &na, 0), **b = read_lines(pb, &nb, 0);
    char **rk = read_lines(prk, &nrk, 0), **calls = read_lines(pcalls, &nc, 1);
    int bad = 0, shown = 0;
    char *last = NULL;
    int n = na < nb ? na : nb;
    for (int i = 0; i < n; i++) {
        char *sa = strchr(a[i], ' '), *sb = strchr(b[i], ' ');
        size_t la = sa ? (size_t)(sa - a[i]) : strlen(a[i]);
        size_t lb = sb ? (size_t)(sb - b[i]) : strlen(b[i]);
        int fl = la > 2 && a[i][la - 2] == '_' && a[i][la - 1] == 'f';
        if (la != lb || strncmp(a[i], b[i], la) || !sa || !sb || !same(sa + 1, sb + 1, fl)) {
            bad++;
            char *name = xfmt("%.*s", (int)la, a[i]);
            if (shown < 10) {
                printf("MISMATCH in %s (call %d):\n", name, i + 1);
                if (!last || strcmp(last, name))
                    print_kernel(rk, nrk, name);
                printf("  call:  %s\n", i < nc ? calls[i] : "?");
                printf("  first:  %s\n  second: %s\n", a[i], b[i]);
                shown++;
            }
            last = name;
        }
    }
    if (na != nb || na != nc) {
        printf("OUTPUT LENGTHS DIFFER: %d and %d result lines for %d calls\n", na, nb, nc);
        int k = na < nb ? na : nb;
        if (k < nc) {
            char *sp = strchr(calls[k], ' ');
            char *name = xfmt("%.*s", sp ? (int)(sp - calls[k]) : (int)strlen(calls[k]), calls[k]);
            printf("  the first missing result is of %s; call: %s\n", name, calls[k]);
            print_kernel(rk, nrk, name);
        }
        bad++;
    }
    printf("%d calls compared, %d mismatches\n", n, bad);
    return bad ? 1 : 0;
}

/* --- main ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr,
            "usage: gen-kernels --seed S --count N --profile P --out-rk F.rk --out-calls F.calls\n"
            "                   [--calls K] [--depth D] [--contract-rich] [--contracting-ok]\n"
            "       gen-kernels --show F.rk NAME|LINE\n"
            "       gen-kernels --compare A.out B.out F.rk F.calls\n");
    exit(2);
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1;
    int count = 50, ncalls = 8;
    const char *prof = NULL, *out_rk = NULL, *out_calls = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--compare") && i + 4 < argc)
            return compare(argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]);
        if (!strcmp(argv[i], "--show") && i + 2 < argc)
            return show(argv[i + 1], argv[i + 2]);
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            ncalls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            prof = argv[++i];
        else if (!strcmp(argv[i], "--out-rk") && i + 1 < argc)
            out_rk = argv[++i];
        else if (!strcmp(argv[i], "--out-calls") && i + 1 < argc)
            out_calls = argv[++i];
        else if (!strcmp(argv[i], "--contract-rich"))
            contract_rich = 1;
        else if (!strcmp(argv[i], "--contracting-ok"))
            contracting_ok = 1;
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
            deep = atoi(argv[++i]);

        else
            usage();
    }
    if (!prof || !out_rk || !out_calls || count < 1 || ncalls < 1)
        usage();
    for (int i = 0; i < COUNT(profs); i++)
        if (!strcmp(profs[i].name, prof))
            P = &profs[i];
    if (!P) {
        fprintf(stderr, "gen-kernels: unknown profile '%s'\n", prof);
        return 2;
    }
    no_contract = P->contracts && !contract_rich && !contracting_ok;
    /* one stream per (seed, profile) */
    rstate = seed * 0x2545f4914f6cdd1dull;
    for (const char *p = prof; *p; p++)
        rstate = (rstate ^ (uint64_t)(unsigned char)*p) * 0x100000001b3ull;
    if (contract_rich)
        rstate ^= 0xc0ffee;
    Buf rk = {0}, calls = {0};
    bput(&rk, "~~ generated by tools/gen-kernels --seed %llu --count %d --profile %s%s\n\n", seed,
         count, prof, contract_rich ? " --contract-rich" : "");
    bput(&calls, "# generated by tools/gen-kernels --seed %llu --count %d --profile %s%s\n", seed,
         count, prof, contract_rich ? " --contract-rich" : "");
    for (int i = 0; i < count; i++)
        gen_group(&rk, &calls, i, ncalls);
    FILE *f = fopen(out_rk, "w");
    FILE *g = fopen(out_calls, "w");
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

/* expr.c: rack expressions, masks and predicates of a run or scratch.
 *
 * An expression is generated for a rack type (T_F, T_I, T_U) under a
 * context (Ctx): inside a fused binding or not (rake-check forbids
 * calls, bitcasts and widen there), its fused region, and whether an f32
 * result must be exact.  The result (E) is its text with what its users
 * need: whether it is a rack (a uniform or a literal broadcasts, and a
 * literal takes its type from its neighbour, so an operation always has
 * one rack operand), whether it is an f32 multiply of the current fused
 * region, and whether every bit of an f32 value is defined.
 *
 * Exactness: Rake leaves NaN payloads of arithmetic open, so an f32 value
 * whose bits reach an integer (a bitcast) or an exact column is built
 * only from operations that define every bit: exact columns, uniforms,
 * literals, negation, abs and selections of exact values, to_f32 and
 * bitcasts from integers, and any value with its NaN lanes replaced
 * (`if x = x then x else <0.0>`: a result that isn't NaN is exact).  min
 * and max of a NaN give some quiet NaN (x86's SSE2 and AVX2 the all-ones
 * one, the interpreter 0x7fc00000), so they are exact only that way.
 *
 * Contraction: x86-avx2 and x86-avx512 contract an f32 multiply feeding
 * an f32 add of one fused region into an fma, which the interpreter
 * (Rake's semantics) does not; such an add is written as a subtract.
 *
 * The operands read are columns of the run's stacks (32-bit ones
 * directly, narrower ones through widen, which sign- or zero-extends),
 * variables (lets, fused bindings, locations, uniform lets), the run's
 * uniform parameters, literals, calls of the case's scratch, and masks:
 * comparisons, local tines, the case's global tine, and/or/not. */
#include <string.h>

#include "gen-runs.h"

const char *tyname[NTY] = {"f32s", "i32s", "u32s", "mask", "f32", "i32", "u32"};
const char *stname[NST] = {"f32", "i32", "u32", "u8", "i8", "u16", "i16"};

Scope *S;
Scratch *scr;
GTine *gt;

static const char *CMPS[] = {"=", "!=", "<", "<=", ">", ">="};

E mk(char *s, int ty, int paren)
{
    E e = {0};
    e.s = s;
    e.ty = ty;
    e.rack = !is_uni(ty);
    e.paren = paren;
    e.exact = 1;
    return e;
}

char *par(E e) { return e.paren ? xfmt("(%s)", e.s) : e.s; }

Var *add_var(const char *name, int ty)
{
    Var *v = &S->v[S->nv++];
    memset(v, 0, sizeof *v);
    v->name = xfmt("%s", name);
    v->ty = ty;
    v->region = -1;
    v->exact = 1;
    return v;
}

/* --- leaves ----------------------------------------------------------------- */

/* Every rack leaf of type t readable in context c, by text. */
static int rack_leaves(int t, Ctx *c, E *out, int max)
{
    int n = 0;
    for (int p = 0; p < S->nsp; p++)
        for (int f = 0; f < S->sppack[p]->nf; f++) {
            Field *fl = &S->sppack[p]->f[f];
            if (st_rack(fl->st) != t || (c->fused && !st_wide(fl->st)) || !S->ok[p][f])
                continue;
            if (t == T_F && c->exact && !fl->exact)
                continue;
            if (n == max)
                return n;
            E e = mk(st_wide(fl->st) ? xfmt("%s.%s", S->spname[p], fl->name)
                                     : xfmt("widen(%s.%s)", S->spname[p], fl->name),
                     t, 0);
            e.exact = t != T_F || fl->exact;
            out[n++] = e;
        }
    for (int i = 0; i < S->nv && n < max; i++) {
        Var *v = &S->v[i];
        if (v->ty != t || (t == T_F && c->exact && !v->exact))
            continue;
        E e = mk(v->name, t, 0);
        e.exact = v->exact;
        e.fmul = c->fused && v->prod && v->region == c->region;
        out[n++] = e;
    }
    return n;
}

static E conv_to(int t, Ctx *c, int d);

/* x with 0.0 in its NaN lanes: exact whatever x is (a float result that
 * isn't NaN is defined bit for bit). */
static E no_nan(E x)
{
    return mk(xfmt("if %s = %s then %s else <0.0>", par(x), par(x), par(x)), T_F, 1);
}

/* A rack leaf of type t; a conversion of another type's leaf when there
 * is none (every run has a 32-bit column, so some type has one). */
static E leaf_rack(int t, Ctx *c, int d)
{
    E cand[64];
    int n = rack_leaves(t, c, cand, 64);
    if (n)
        return cand[rnd(n)];
    if (t == T_F && c->exact) { /* x without its NaN lanes is exact */
        Ctx c2 = *c;
        c2.exact = 0;
        return no_nan(leaf_rack(T_F, &c2, d));
    }
    return conv_to(t, c, d + 1);
}

/* The variables holding a uniform of rack type t's scalar (parameters,
 * uniform lets, slow blocks' values): their indices in ids, their count
 * returned. */
int uniforms_of(int t, int *ids)
{
    int n = 0;
    for (int i = 0; i < S->nv; i++)
        if (S->v[i].ty == sc_of(t))
            ids[n++] = i;
    return n;
}

/* A uniform of type t (a parameter or uniform let) or a literal. */
static E leaf_uni(int t)
{
    int ids[MAXV], n = uniforms_of(t, ids);
    if (n && chance(60)) {
        E e = mk(xfmt("<%s>", S->v[ids[rnd(n)]].name), sc_of(t), 0);
        return e;
    }
    E e = mk(xfmt("<%s>", lit_of(t)), sc_of(t), 0);
    e.lit = 1;
    return e;
}

/* --- expressions ------------------------------------------------------------ */

/* A conversion into t from another rack type (no bitcast in a fused
 * binding, and a bitcast from f32 only of an exact value), from a type
 * with a leaf when there is one. */
static E conv_to(int t, Ctx *c, int d)
{
    Ctx c2 = *c;
    c2.exact = 0;
    E tmp[1];
    int from[2], n = 0;
    for (int u = T_F; u <= T_U; u++)
        if (u != t && rack_leaves(u, &c2, tmp, 1))
            from[n++] = u;
    int f = n ? from[rnd(n)] : (t == T_F ? T_I : T_F);
    if (d > 3) /* cannot happen: every run has a 32-bit column */
        return mk(xfmt("%s", "?"), t, 0);
    if (!c->fused && chance(40)) {
        c2.exact = f == T_F;
        E x = leaf_rack(f, &c2, d + 1);
        return mk(xfmt("bitcast(%s, %s)", tyname[t], x.s), t, 0);
    }
    if (t != T_F)
        f = T_F;
    E x = d >= 1 ? leaf_rack(f, &c2, d + 1) : gen_rack(f, &c2, 1);
    return mk(xfmt("%s(%s)", t == T_F ? "to_f32" : t == T_I ? "to_i32" : "to_u32", x.s), t, 0);
}

static E binop(int t, Ctx *c, int d)
{
    static const char *OPS[] = {"+", "-", "*", "min", "max", "/"};
    int nops = t == T_F ? 6 : 5;
    int o = c->exact && t == T_F ? 3 + rnd(2) : rnd(nops);
    if (o == 5 && chance(50))
        o = rnd(5); /* division now and then */
    Ctx c2 = *c;
    c2.exact = 0;
    E a = gen(t, &c2, d - 1);
    E b = gen(t, &c2, d - 1);
    if (!a.rack && !b.rack)
        b = leaf_rack(t, &c2, 0);
    if (o >= 3 && o <= 4) {
        E m = mk(xfmt("%s(%s, %s)", OPS[o], a.s, b.s), t, 0);
        m.exact = t != T_F; /* a NaN lane's payload is open */
        return t == T_F && c->exact ? no_nan(m) : m;
    }
    const char *op = OPS[o];
    if (o == 0 && t == T_F && c->fused && P->contracts && (a.fmul || b.fmul))
        op = "-"; /* would contract (see above) */
    E e = mk(xfmt("%s %s %s", par(a), op, par(b)), t, 1);
    e.exact = 0;
    e.fmul = o == 2 && t == T_F && c->fused;
    return e;
}

static E call_scratch(int t, Ctx *c, int d)
{
    Buf b = {0};
    int exact = scr->exact;
    bput(&b, "%s(", scr->name);
    for (int i = 0; i < scr->np; i++) {
        int pt = scr->pty[i];
        Ctx c2 = *c;
        /* the scratch takes its f32 parameters as exact (its body may
         * bitcast them), so its f32 arguments are, whatever the context */
        c2.exact = pt == T_F;
        E a = is_uni(pt) ? leaf_uni(rk_of(pt)) : gen(pt, &c2, d - 1);
        if (pt == T_F && !a.exact)
            exact = 0;
        bput(&b, "%s%s", i ? ", " : "", a.s);
    }
    bput(&b, ")");
    E e = mk(b.s, t, 0);
    e.exact = exact || t != T_F;
    /* a scratch whose result isn't exact (a min or max of a NaN) */
    return c->exact && !e.exact ? no_nan(e) : e;
}

E gen(int t, Ctx *c, int d)
{
    if (d <= 0 || chance(25)) {
        if (chance(18))
            return leaf_uni(t);
        return leaf_rack(t, c, 0);
    }
    for (;;) {
        int k = rnd(10);
        if (k < 4) {
            if (c->exact && t == T_F && chance(40)) {
                E x = gen_rack(T_F, c, d - 1);
                return mk(xfmt("%s(%s)", chance(50) ? "abs" : "-", par(x)), T_F, 1);
            }
            return binop(t, c, d);
        }
        if (k == 4 && t != T_U) { /* negation, abs */
            E x = gen_rack(t, c, d - 1);
            int neg = chance(50);
            E e = mk(neg ? xfmt("-%s", par(x)) : xfmt("abs(%s)", x.s), t, neg);
            e.exact = x.exact;
            return e;
        }
        if (k == 5 || k == 6)
            return conv_to(t, c, 0);
        if (k == 7) { /* a selection */
            E m = gen_mask(c, d - 1);
            E a = gen(t, c, d - 1);
            E b = gen(t, c, d - 1);
            if (!a.rack && !b.rack)
                b = leaf_rack(t, c, 0);
            E e = mk(xfmt("if %s then %s else %s", par(m), par(a), par(b)), t, 1);
            e.exact = a.exact && b.exact;
            return e;
        }
        if (k == 8 && scr && scr->ty == t && !c->fused)
            return call_scratch(t, c, d);
        if (k == 9)
            return leaf_rack(t, c, 0);
    }
}

E gen_rack(int t, Ctx *c, int d)
{
    E e = gen(t, c, d);
    return e.rack ? e : leaf_rack(t, c, 0);
}

/* --- masks and predicates --------------------------------------------------- */

/* A comparison in a mask expression: any operands. */
static char *comparison(Ctx *c, int d)
{
    int t = rnd(3);
    Ctx c2 = *c;
    c2.exact = 0;
    E a = gen(t, &c2, d);
    E b = gen(t, &c2, d);
    if (!a.rack && !b.rack)
        a = leaf_rack(t, &c2, 0);
    return xfmt("%s %s %s", par(a), CMPS[rnd(6)], par(b));
}

/* An operand of a predicate (a tine, where, a global tine's argument):
 * rake-check takes names, fields, marks and literals only.  A rack of
 * type t (a name or a 32-bit column), or -1 if there is none. */
static int pred_rack(int t, E *out)
{
    Ctx c = {1, -2, 0}; /* as in a fused binding: no widen */
    E cand[64];
    int n = rack_leaves(t, &c, cand, 64);
    if (!n)
        return 0;
    *out = cand[rnd(n)];
    return 1;
}

/* A comparison of predicate operands, one of them a rack. */
static char *pred_cmp(void)
{
    int t = rnd(3);
    E a, b;
    for (int i = 0; i < 3 && !pred_rack(t, &a); i++)
        t = (t + 1) % 3;
    if (chance(45))
        b = leaf_uni(t);
    else if (!pred_rack(t, &b))
        b = leaf_uni(t);
    if (chance(25)) {
        E x = a;
        a = b;
        b = x;
    }
    return xfmt("%s %s %s", a.s, CMPS[rnd(6)], b.s);
}

static char *gt_apply(void)
{
    E x, y;
    if (!pred_rack(gt->ty, &x))
        return pred_cmp();
    if (!gt->two)
        y = leaf_uni(gt->ty);
    else if (!pred_rack(gt->ty, &y))
        y = x;
    return xfmt("#%s(%s, %s)", gt->name, x.s, y.s);
}

E gen_mask(Ctx *c, int d)
{
    int k = rnd(10);
    if (k < 3 && S->ntines && !c->fused)
        return mk(xfmt("#%s", S->tines[rnd(S->ntines)]), T_M, 0);
    if (k < 5) {
        int ids[MAXV], n = 0;
        for (int i = 0; i < S->nv; i++)
            if (S->v[i].ty == T_M)
                ids[n++] = i;
        if (n)
            return mk(S->v[ids[rnd(n)]].name, T_M, 0);
    }
    if (k == 5 && d > 0) {
        E a = gen_mask(c, d - 1);
        E b = gen_mask(c, d - 1);
        return mk(xfmt("%s %s %s", par(a), chance(50) ? "and" : "or", par(b)), T_M, 1);
    }
    if (k == 6 && d > 0) {
        E a = gen_mask(c, d - 1);
        return mk(xfmt("not %s", par(a)), T_M, 1);
    }
    return mk(comparison(c, d > 1 ? 1 : 0), T_M, 1);
}

/* A tine's formula: comparisons, earlier tines, the global tine,
 * and/or/not. */
char *gen_pred(int d)
{
    int k = rnd(10);
    if (k < 2 && S->ntines)
        return xfmt("#%s", S->tines[rnd(S->ntines)]);
    if (k == 2 && gt)
        return gt_apply();
    if (k >= 7 && d > 0) {
        char *a = gen_pred(d - 1);
        if (k == 9)
            return xfmt("not (%s)", a);
        char *b = gen_pred(d - 1);
        return xfmt("(%s) %s (%s)", a, k == 7 ? "and" : "or", b);
    }
    return pred_cmp();
}

/* The predicate of `where`: a tine, its gaps, and/or of two, not, the
 * global tine, or a comparison. */
char *gen_where(void)
{
    int k = rnd(10);
    if (S->ntines && k < 7) {
        char *a = S->tines[rnd(S->ntines)];
        char *b = S->tines[rnd(S->ntines)];
        switch (k) {
        case 0: case 1: return xfmt("#%s", a);
        case 2: return xfmt("#%s gaps", a);
        case 3: return xfmt("(#%s and #%s)", a, b);
        case 4: return xfmt("(#%s or #%s) gaps", a, b);
        case 5: return xfmt("not #%s", a);
        default: return xfmt("(#%s and not #%s) gaps", a, b);
        }
    }
    if (gt && k < 9) {
        char *g = gt_apply();
        return chance(30) ? xfmt("(%s) gaps", g) : g;
    }
    char *p = pred_cmp();
    return chance(25) ? xfmt("(%s) gaps", p) : p;
}

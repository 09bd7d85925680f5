/* expr.c: what expression generation shares.
 *
 * An expression is generated for a type (T_F..T_SB) under a context
 * (Ctx): the lanes it is evaluated under, as an upper bound in the
 * truth-table model, whether that may be a partial mask, and whether it
 * is in a through body or a fused binding, which forbid some operations.
 * The result (E) is its text with what its users must know: its type
 * (a rack request may give a uniform, which broadcasts), whether it
 * needs parentheses as an operand, whether it is a literal (typed by its
 * neighbour, so never alone where nothing types it), whether it is an f32
 * multiply of the current fused region, whether every bit of an f32 rack
 * is defined, and a mask's truth table when known.
 *
 * Variables are the names in scope (V): parameters, lets, fused
 * bindings, locations, arrays, through results, each with the lanes
 * where it is defined.  pick_var chooses one readable under the context,
 * through results more often (they carry the definedness rules).
 *
 * Cross-lane operations under a partial mask take only a name defined in
 * every lane (cross_operand, mask_operand); a helper that moves data
 * across lanes is not called under a partial mask at all (call_helper). */
#include <string.h>

#include "gen-kernels.h"

/* --- types and the state of the group ---------------------------------------- */

const char *tyname[NTY] = {"f32s", "i32s", "u32s", "mask", "f32", "i32", "u32", "bool"};

Var V[MAXV];
int nv;

Helper helper;
int have_helper;
Const consts[4];
int nconst;

/* --- expressions and literals ---------------------------------------------- */

E mk(char *s, int ty, int atomic)
{
    E e;
    memset(&e, 0, sizeof e);
    e.s = s;
    e.ty = ty;
    e.atomic = atomic;
    return e;
}

char *par(E e) { return e.atomic ? e.s : xfmt("(%s)", e.s); }

/* A literal as a uniform operand: bare or marked. */
E lit_expr(int elem)
{
    const char *l = lit_of(elem);
    E e = mk(chance(50) ? xfmt("<%s>", l) : lit_text(l), sc_of(elem), 1);
    e.lit = 1;
    return e;
}

/* --- variables ------------------------------------------------------------ */

Var *add_var(const char *name, int ty)
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

int readable(Var *v, Ctx *c) { return tt_sub(c->m, v->def); }

/* A variable of type t readable here; prefer through results.  -1 if none. */
int pick_var(int t, Ctx *c, int need_full, int need_exact)
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

E var_expr(int i, Ctx *c)
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

E gen(int t, Ctx *c, int d)
{
    if (is_rack(t))
        return gen_rack(t, c, d);
    if (t == T_M)
        return gen_mask(c, d);
    return gen_uni(t, c, d);
}

/* A rack, or sometimes a uniform that broadcasts. */
E gen_operand(int t, Ctx *c, int d, int uni_ok)
{
    if (uni_ok && chance(8))
        return mask_select_uni(t, c, d);
    if (uni_ok && chance(28))
        return chance(45) ? lit_expr(t) : gen_uni(sc_of(t), c, d - 1);
    return gen_rack(t, c, d);
}

E leaf_rack(int t, Ctx *c)
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
E cross_operand(int t, Ctx *c, int d, int *ok)
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
const char *pick_const(int t, long long lo, long long hi)
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
char *lane_index(void)
{
    const char *q = chance(25) ? pick_const(T_SI, 0, lanes() - 1) : NULL;
    return q ? xfmt("%s", q) : xfmt("%d", rnd(lanes()));
}

char *shuffle_list(int n)
{
    Buf b = {0};
    bput(&b, "[");
    for (int i = 0; i < lanes(); i++)
        bput(&b, "%s%d", i ? ", " : "", rnd(n));
    bput(&b, "]");
    return b.s;
}

/* The mask of all, any or bitmask: under a partial mask only a name
 * defined in every lane. */
E mask_operand(Ctx *c, int d, int *ok)
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

const char *CMPS[] = {"=", "!=", "<", "<=", ">", ">="};
const char *ARITH[] = {"+", "-", "*", "/"};

/* The two branches of a mask if or select: a under ctx & m, b under
 * ctx & not m (as rake-check's branches()). */
void branches(int t, Ctx *c, int d, E cond, E *a, E *b)
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
E call_helper(Ctx *c, int d, int *ok)
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
            int v = pick_var(t, c, 1, t == T_F);
            if (v < 0 && t == T_F) {
                *ok = 0;
                return mk("", helper.ret, 1);
            } else if (v < 0 && t != T_M) {
                a = gen_uni(sc_of(t), c, d - 1);
            } else if (v < 0) {
                *ok = 0;
                return mk("", helper.ret, 1);
            } else {
                a = var_expr(v, c);
            }
        } else {
            a = t == T_F    ? gen_exact_f(c, d - 1)
                : is_rack(t) ? gen_operand(t, c, d - 1, 1)
                             : gen(t, c, d - 1);
        }
        bput(&b, "%s%s", i ? ", " : "", a.s);
    }
    bput(&b, ")");
    return mk(b.s, helper.ret, 1);
}

int can_call(Ctx *c) { return have_helper && !c->through && !c->fused; }

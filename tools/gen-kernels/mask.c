/* mask.c: masks, uniform conditions and uniform values.
 *
 * gen_mask writes a mask: comparisons (at least one rack operand), and,
 * or, not, gaps, selections of masks, calls, names, and, more often in a
 * rake, a modelled predicate (gen_pred) whose truth table later masks
 * rely on.  The right side of `a and b` is generated where a holds, of
 * `a or b` where it doesn't, as rake-check evaluates them.
 *
 * ucond writes a uniform condition as page 10 section 3 describes it:
 * comparisons naming a marked uniform, Boolean uniforms, all and any,
 * and, or, not.  gen_uni writes a uniform value: names, constants,
 * literals, reductions, extract, uniform arithmetic (never literal with
 * literal), negation, bitmask, uniform ifs and calls; reductions,
 * extract and bitmask stay out of fused bindings and through bodies. */
#include "gen-kernels.h"

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

E gen_mask(Ctx *c, int d)
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
char *ucond(Ctx *c, int d)
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

E gen_uni(int t, Ctx *c, int d)
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

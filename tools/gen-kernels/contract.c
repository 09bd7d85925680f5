/* contract.c: multiply-add shapes.
 *
 * On x86-avx2, x86-avx512 and aarch64-neon an f32 multiply feeding an f32
 * add in the same fused region may be contracted into an fma, which
 * rounds once.  Without --contracting-ok or --contract-rich (no_contract)
 * such an add is written as a subtract instead, so every evaluator rounds
 * alike.  --contract-rich seeks the shapes instead: products, sums of
 * products, a product bound by one fused binding and added by a later
 * one of the same region (contracted) or of another region or a let (not
 * contracted), products with several uses, products of uniforms (not a
 * rack multiply), negated products and differences, and, through
 * prod_sum, adds outside any region (lets and final results). */
#include "gen-kernels.h"

/* An operand of a product or a sum: mostly a rack name, sometimes a
 * literal or a uniform. */
static E f_leaf(Ctx *c)
{
    if (chance(12))
        return chance(50) ? lit_expr(T_F) : gen_uni(T_SF, c, 0);
    return leaf_rack(T_F, c);
}

E f_mul(Ctx *c)
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
E prod_sum(Ctx *c)
{
    int i = pick_prod(c);
    E m = i >= 0 ? var_expr(i, c) : f_mul(c);
    E l = f_leaf(c);
    return chance(50) ? f_add(m, l) : f_add(l, m);
}

E contract_value(Ctx *c)
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

/* rack.c: rack expressions.
 *
 * gen_rack(t) writes an f32s, i32s or u32s expression: arithmetic (a
 * uniform or literal on either side broadcasts), negation, unary
 * built-ins, min and max, fma where the profile has it, mask selections
 * and mask ifs (each branch under its part of the mask), uniform ifs,
 * conversions, bitcasts, scans, shuffles, insert, calls of the helper,
 * bit operations and shifts (counts: literals, marked uniforms,
 * constants, some of them 32 or more).  RACK_W weighs the cases by
 * element; a case not allowed here (a scan in a through body, a bitcast
 * in a fused binding, a call of a helper that moves data across lanes
 * under a partial mask) is drawn again, up to thirty times, then a name
 * is used.
 *
 * NaN payloads are unspecified, so a float whose bits reach a non-float
 * result (a bitcast) comes from gen_exact_f: operations that define every
 * bit (parameters, negation, abs, selections, shuffles, bitcasts from
 * integers).  With no_contract, an f32 add of a product of the current
 * fused region becomes a subtract, which no profile contracts. */
#include "gen-kernels.h"

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
E mask_select_uni(int t, Ctx *c, int d)
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

E gen_rack(int t, Ctx *c, int d)
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
E gen_exact_f(Ctx *c, int d)
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

/* kernel.c: scratches, rakes and one group.
 *
 * A group, between `~~ begin NAME` and `~~ end NAME`, is: up to three
 * module constants (literals, some negated, small integers that serve as
 * shift counts and lane indices), its global tines, sometimes a helper
 * (a small scratch or rake the kernel calls, so it is inlined, sometimes
 * under a mask), and the kernel NAME, whose suffix names its result's
 * kind.  A helper whose text moves data across lanes (shuffle, reduction,
 * scan, extract, insert, all, any, bitmask) is marked cross, and is then
 * not called under a partial mask.
 *
 * A scratch is parameters, statements and a result.  A rake is
 * parameters, setup lets, local tines, one to three through blocks and a
 * sweep.  A through block's predicate selects some lane; it may be nested
 * under an earlier block's (`(P) and (Q)`, Q generated where P holds).
 * Its body is generated under its predicate, and its result, without
 * else, is defined only there: the variable records that, and later
 * expressions read it only under a mask that implies it.  Each sweep arm
 * selects some lane the earlier arms left (an earlier block's predicate,
 * its gaps, a refinement, a new predicate, or the gaps of every arm so
 * far, which covers the rest), its value is generated under the lanes it
 * takes, and the sweep ends with `_` exactly when lanes remain. */
#include <stdlib.h>
#include <string.h>

#include "gen-kernels.h"

/* --- functions ----------------------------------------------------------------- */

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

/* --- rakes --------------------------------------------------------------------- */

/* The through blocks of a rake so far: predicates and truth tables. */
typedef struct Thr {
    char *text[4];
    TT tt[4];
    int n;
} Thr;

/* The arms of a sweep so far and the lanes they leave. */
typedef struct Sweep {
    char *text[6];
    TT tt[6];
    int n;
    TT remaining;
} Sweep;

static void setup_lets(Buf *out, Ctx *c, int small)
{
    int ns = rnd(small ? 2 : 4);
    for (int i = 0; i < ns; i++) {
        if (chance(25)) {
            int t = (int[]){T_SF, T_SI, T_SU, T_SB}[rnd(4)];
            char *n = fresh("s");
            bput(out, "  let <%s: %s> = %s\n", n, tyname[t], gen_uni(t, c, 2).s);
            add_var(n, t);
            continue;
        }
        int t = rand_bind_type();
        char *n = fresh("v");
        E e = gen_value(t, c, 2 + deep, 8);
        bput(out, "  let %s = %s\n", n, e.s);
        Var *v = add_var(n, t);
        v->exact = e.exact && t == T_F && is_rack(e.ty);
        v->has_tt = e.has_tt;
        v->tt = e.tt;
    }
}

static void local_tines(Buf *out, Ctx *c, int small)
{
    int nl = rnd(small ? 2 : 4);
    for (int i = 0; i < nl; i++) {
        char *text;
        TT tt;
        if (!gen_pred(c, tt_const(1), 1 + rnd(2), &text, &tt) || tt_zero(tt))
            continue;
        LTine *l = &lts[nlt++];
        l->name = fresh("t");
        l->tt = tt;
        bput(out, "  tine #%s means %s\n", l->name, text);
    }
}

/* A through block's predicate that selects some lane: new, or nested
 * under an earlier block's.  0 if eight tries find none. */
static int through_pred(Ctx *c, const Thr *th, char **text, TT *tt)
{
    int ok = 0;
    for (int tries = 0; tries < 8 && !ok; tries++) {
        if (th->n && chance(40)) { /* nest under an earlier through block */
            int j = rnd(th->n);
            char *x;
            TT tx;
            if (gen_pred(c, th->tt[j], 1, &x, &tx)) {
                *text = xfmt("(%s) and (%s)", th->text[j], x);
                *tt = tt_and(th->tt[j], tx);
                ok = !tt_zero(*tt);
            }
        } else if (gen_pred(c, tt_const(1), 1 + rnd(2), text, tt)) {
            ok = !tt_zero(*tt);
        }
    }
    return ok;
}

/* `through P [else X] into r:`; returns whether it has an else. */
static int through_head(Buf *out, Ctx *c, int t, const char *text, const char *rname)
{
    int has_else = chance(35);
    bput(out, "  through %s", text);
    if (has_else) {
        int u = pick_var(sc_of(t), c, 0, 0);
        if (u >= 0 && chance(50))
            bput(out, " else <%s>", V[u].name);
        else {
            const char *l = lit_of(t);
            bput(out, chance(50) ? " else <%s>" : " else %s", l);
        }
    }
    bput(out, " into %s:\n", rname);
    return has_else;
}

/* One through block; 0 when no predicate is found for a block after the
 * first (the first falls back to a0 >= 0). */
static int through_block(Buf *out, Ctx *c, int ret, int small, Thr *th)
{
    char *text = NULL;
    TT tt;
    if (!through_pred(c, th, &text, &tt)) {
        if (th->n)
            return 0;
        text = xfmt("a0 >= <0.0>");
        int a = atom_new("(>= a0 n:0x0p+0)", text, tt_const(1), 1);
        tt = a >= 0 ? tt_var(a) : tt_const(1);
    }
    int t = chance(60) && ret != T_M ? ret : rand_rack();
    char *rname = fresh("r");
    int has_else = through_head(out, c, t, text, rname);
    Ctx tc = *c;
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
    th->text[th->n] = text;
    th->tt[th->n] = tt;
    th->n++;
    return 1;
}

/* The complement of every arm so far: covers the rest. */
static char *gaps_of_arms(const Sweep *sw, TT *tt)
{
    Buf b = {0};
    TT u = tt_const(0);
    bput(&b, "(");
    for (int a = 0; a < sw->n; a++) {
        bput(&b, "%s(%s)", a ? " or " : "", sw->text[a]);
        u = tt_or(u, sw->tt[a]);
    }
    bput(&b, ") gaps");
    *tt = tt_not(u);
    return b.s;
}

/* A sweep arm's predicate that selects some lane the earlier arms left.
 * 0 if ten tries find none. */
static int arm_pred(Ctx *c, const Thr *th, const Sweep *sw, int small, char **text, TT *tt)
{
    int ok = 0;
    for (int tries = 0; tries < 10 && !ok; tries++) {
        int k = rnd(10);
        int j = rnd(th->n);
        if (k < 3) {
            *text = xfmt("%s", th->text[j]);
            *tt = th->tt[j];
        } else if (k < 4) {
            *text = xfmt("(%s) gaps", th->text[j]);
            *tt = tt_not(th->tt[j]);
        } else if (k < 6) {
            char *x;
            TT tx;
            if (!gen_pred(c, tt_and(sw->remaining, th->tt[j]), 1, &x, &tx))
                continue;
            *text = xfmt("(%s) and (%s)", th->text[j], x);
            *tt = tt_and(th->tt[j], tx);
        } else if (k == 6 && sw->n && !small) {
            *text = gaps_of_arms(sw, tt);
        } else if (!gen_pred(c, sw->remaining, 1 + rnd(2), text, tt)) {
            continue;
        }
        ok = !tt_zero(tt_and(sw->remaining, *tt));
    }
    return ok;
}

/* `| P => value`, the value generated under the lanes m. */
static void arm(Buf *out, Ctx *c, int ret, TT m, const char *text)
{
    Ctx ac = *c;
    ac.m = m;
    ac.masked = 1;
    E v = ret == T_M ? gen_mask(&ac, 1 + rnd(3) + deep) : gen_operand(ret, &ac, 1 + rnd(3) + deep, 1);
    bput(out, "    | %s => %s\n", text, v.s);
}

static void sweep(Buf *out, Ctx *c, int ret, int small, const Thr *th)
{
    bput(out, "  sweep:\n");
    Sweep sw = {.n = 0};
    sw.remaining = tt_const(1);
    int want = 1 + rnd(4);
    for (int i = 0; i < want && sw.n < 5; i++) {
        char *text = NULL;
        TT tt;
        if (!arm_pred(c, th, &sw, small, &text, &tt))
            break;
        arm(out, c, ret, tt_and(sw.remaining, tt), text);
        sw.text[sw.n] = text;
        sw.tt[sw.n++] = tt;
        sw.remaining = tt_and(sw.remaining, tt_not(tt));
        if (tt_zero(sw.remaining))
            break;
    }
    if (!tt_zero(sw.remaining))
        arm(out, c, ret, sw.remaining, "_");
}

static void gen_rake(Buf *out, const char *name, int ret, int small, int *pty, int *np)
{
    reset_fn();
    Ctx c = top_ctx(1);
    Buf params = {0};
    *np = gen_params(&params, pty, small ? 3 : 5);
    bput(out, "rake %s%s -> %s:\n", name, params.s, tyname[ret]);
    setup_lets(out, &c, small);
    local_tines(out, &c, small);
    Thr th = {.n = 0};
    int nth = 1 + rnd(small ? 2 : 3);
    for (int k = 0; k < nth; k++)
        if (!through_block(out, &c, ret, small, &th))
            break;
    sweep(out, &c, ret, small, &th);
}

/* --- one group ----------------------------------------------------------------- */

static const char suffix[NTY] = {'f', 'i', 'u', 'm', 'f', 'i', 'u', 'b'};

static void gen_consts(Buf *rk, const char *prefix)
{
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
}

static void gen_helper(Buf *rk, const char *prefix)
{
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

void gen_group(Buf *rk, Buf *calls, int index, int ncalls)
{
    int is_rake = chance(55);
    int ret = is_rake ? (int[]){T_F, T_F, T_F, T_I, T_U, T_M}[rnd(6)] : rand_result(0);
    char *prefix = xfmt("k%04d", index);
    char *name = xfmt("%s_%c", prefix, suffix[ret]);
    Buf body = {0};
    bput(rk, "~~ begin %s\n", name);
    gen_consts(rk, prefix);
    gen_gtines(prefix, rk);
    have_helper = 0;
    if (chance(35))
        gen_helper(rk, prefix);
    int pty[8], np;
    if (is_rake)
        gen_rake(&body, name, ret, 0, pty, &np);
    else
        gen_scratch(&body, name, ret, 0, pty, &np);
    bput(rk, "%s~~ end %s\n\n", body.s, name);
    gen_calls(calls, name, pty, np, ncalls);
}

/* stmt.c: parameters and statements.
 *
 * A scratch's body and a through body are statements: lets (some with a
 * uniform type), uniform lets, and runs of fused bindings, each run one
 * fused region (where rake-check forbids reductions, scans, extract,
 * insert, bitmask, bitcast, indexing and calls).  A scratch also has
 * locations (x := e, sometimes typed), rack arrays ([N]T := e),
 * assignments (acc <- acc op x, element stores) and repeat loops whose
 * index, while in range, indexes arrays; the index goes out of scope
 * after the loop, and so do atoms that name it.
 *
 * Every binding records the lanes it is defined in (the context's mask:
 * a binding in a through body is defined where its predicate holds), its
 * fused region, whether it is an f32 product, and a mask's truth table.
 * gen_value writes a value where nothing types a literal (an unannotated
 * binding, a result): a uniform sometimes, never a bare literal. */
#include "gen-kernels.h"

int in_repeat;
int region_counter;

/* A value where nothing gives a literal its type (an unannotated binding,
 * a through block's result): never a bare literal. */
E gen_value(int t, Ctx *c, int d, int uni_pct)
{
    if (t != T_M && chance(uni_pct)) {
        E e = gen_uni(sc_of(t), c, d);
        if (!e.lit)
            return e;
    }
    return gen(t, c, d);
}

int rand_rack(void) { return (int[]){T_F, T_F, T_I, T_U}[rnd(4)]; }
int rand_bind_type(void) { return (int[]){T_F, T_F, T_I, T_U, T_M}[rnd(5)]; }

/* Parameters: at least one f32s rack, `a0`. */
int gen_params(Buf *b, int *pty, int maxp)
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
void gen_stmts(Buf *b, Ctx *c, int n, const char *ind, int locs)
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

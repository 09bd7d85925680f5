/* tines.c: the global tines of a group.
 *
 * A group has up to two global tines, kNNNN_g0 and kNNNN_g1: a formula
 * (Fm) over their parameters (x: a rack, y: a rack or a marked uniform,
 * lim: a marked uniform) and literals: one comparison, its negation, or
 * the and/or of two, where the second may apply an earlier tine of the
 * same element to x.  They are written in order or in reverse (a tine
 * may refer to one defined later in the file).
 *
 * A formula is kept rather than its text so that an application,
 * #g(args), gets its truth table by evaluating the formula with the
 * arguments' atom keys (fm_eval), as rake-check instantiates a tine:
 * comparisons inside it are atoms of the function that applies it. */
#include <stdlib.h>

#include "gen-kernels.h"

/* --- global tines ---------------------------------------------------------- */

GTine gts[MAXGT];
int ngt;

static char *opd_key(Opd o, char **args) { return o.param >= 0 ? args[o.param] : lit_key(o.lit); }

/* The truth table of a global tine's formula with these argument keys. */
int fm_eval(Fm *f, char **args, TT *tt)
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

/* --- their text ------------------------------------------------------------ */

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
void gen_gtines(const char *prefix, Buf *out)
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

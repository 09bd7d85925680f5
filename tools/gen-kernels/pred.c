/* pred.c: the definedness model: truth tables, atoms and predicates.
 *
 * rake-check proves definedness and coverage with decision diagrams over
 * comparison atoms (passes/rake-check/pred.c); the generator keeps the
 * same model, small enough for plain truth tables: at most MAXATOMS atoms
 * per function, a predicate is the set of atom assignments where it holds
 * (a TT, one bit per assignment).  An atom is a comparison keyed by its
 * structure as the checker keys it (operator and operands, names by
 * binding, literals by value, marks transparent), so the same comparison
 * written twice, or reached through a global tine's body, is one atom.
 *
 * Each atom records where evaluating it is defined (it may read a through
 * result without else) and whether its text may be written again: not
 * when it names a binding of a through body or a repeat index, which goes
 * out of scope.
 *
 * gen_pred writes a predicate that is also an expression (comparisons,
 * local and global tines, not, gaps, and, or; every operand
 * parenthesised), defined wherever `where` holds: the right side of `and`
 * is evaluated where the left holds, of `or` where it doesn't.  It fails
 * (returns 0) when the atoms run out or no operand is readable. */
#include <string.h>

#include "gen-kernels.h"

/* --- truth tables over comparison atoms ------------------------------------ */

TT tt_const(int v)
{
    TT t;
    for (int i = 0; i < TTW; i++)
        t.w[i] = v ? ~0ull : 0;
    return t;
}

TT tt_var(int a)
{
    TT t = tt_const(0);
    for (int x = 0; x < (1 << MAXATOMS); x++)
        if ((x >> a) & 1)
            t.w[x / 64] |= 1ull << (x % 64);
    return t;
}

TT tt_and(TT a, TT b)
{
    for (int i = 0; i < TTW; i++)
        a.w[i] &= b.w[i];
    return a;
}

TT tt_or(TT a, TT b)
{
    for (int i = 0; i < TTW; i++)
        a.w[i] |= b.w[i];
    return a;
}

TT tt_not(TT a)
{
    for (int i = 0; i < TTW; i++)
        a.w[i] = ~a.w[i];
    return a;
}

int tt_zero(TT a)
{
    for (int i = 0; i < TTW; i++)
        if (a.w[i])
            return 0;
    return 1;
}

int tt_sub(TT a, TT b) /* a implies b */
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
int natoms;

LTine lts[8];
int nlt;

static int atom_find(const char *key)
{
    for (int i = 0; i < natoms; i++)
        if (!strcmp(atoms[i].key, key))
            return i;
    return -1;
}

int atom_new(const char *key, const char *text, TT need, int reuse)
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
int gen_pred(Ctx *c, TT where, int d, char **text, TT *tt)
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

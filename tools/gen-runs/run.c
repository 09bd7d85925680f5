/* run.c: packs, the global tine, the scratch and the runs of a case.
 *
 * A pack has one to seven fields of mixed stored types, at least one of
 * them 32-bit (so every run computes in the 32-bit domain, the one native
 * targets implement); each f32 field is exact or not (see expr.c).
 *
 * A run's body is, in order, a few statements (lets of racks and masks,
 * typed lets of a broadcast uniform, lets of widened columns, runs of
 * fused bindings, uniform lets, local tines, locations updated directly or
 * in a repeat loop) and one of the four final forms: `s with { ... }`,
 * `s with { ... } where p`, `compact s where p` and
 * `compact s with { ... } where p`.  A replacement names a 32-bit field
 * only (replacing a narrower one is work in progress); narrower columns
 * are read through widen and carried by compaction.  Nothing a native
 * stack run does not support yet: no views, reductions, scans, lane
 * moves or slow blocks. */
#include <string.h>

#include "gen-runs.h"

static const int ST_WEIGHT[] = {S_F32, S_F32, S_F32, S_I32, S_I32, S_U32, S_U32,
                                S_U8,  S_I8,  S_U16, S_I16};

/* The depth of a let's or a column's expression: SSE2's 15 vector
 * registers (two-operand forms, and/andnot/or selections, the long
 * float-to-u32 sequence) take shallower ones than AVX's. */
static int max_depth(void) { return P->lanes == 4 ? 2 : 3; }

void gen_pack(Buf *out, Pack *p, const char *name)
{
    p->name = xfmt("%s", name);
    /* SSE2's compaction holds each column and its permutation at once */
    p->nf = 1 + rnd(P->lanes == 4 ? NATIVE_FIELDS - 2 : NATIVE_FIELDS);
    int wide = 0;
    for (int i = 0; i < p->nf; i++) {
        Field *f = &p->f[i];
        f->name = xfmt("f%d", i);
        f->st = ST_WEIGHT[rnd(COUNT(ST_WEIGHT))];
        f->exact = f->st == S_F32 && chance(50);
        wide |= st_wide(f->st);
    }
    if (!wide)
        p->f[rnd(p->nf)].st = (int[]){S_F32, S_I32, S_U32}[rnd(3)];
    bput(out, "pack %s {\n", p->name);
    for (int i = 0; i < p->nf; i++) /* sometimes several fields on a line */
        if (i + 1 < p->nf && p->f[i + 1].st == p->f[i].st && chance(60)) {
            bput(out, "  %s: %s, %s;\n", stname[p->f[i].st], p->f[i].name, p->f[i + 1].name);
            i++;
        } else {
            bput(out, "  %s: %s;\n", stname[p->f[i].st], p->f[i].name);
        }
    bput(out, "}\n\n");
}

static const char *CMPS[] = {"=", "!=", "<", "<=", ">", ">="};

/* #cN_g(x: T, <lim: T>) or #cN_g(x: T, y: T): one comparison, or two. */
void gen_gtine(Buf *out, const char *prefix)
{
    static GTine g;
    g.name = xfmt("%s_g", prefix);
    g.ty = rnd(3);
    g.two = chance(40);
    const char *y = g.two ? "y" : "<lim>";
    bput(out, "tine #%s(x: %s, ", g.name, tyname[g.ty]);
    bput(out, g.two ? "y: %s) means " : "<lim: %s>) means ", tyname[g.two ? g.ty : sc_of(g.ty)]);
    int a = rnd(6);
    if (chance(40)) {
        int b = rnd(6);
        bput(out, "(x %s %s) %s (x %s <%s>)\n", CMPS[a], y, chance(50) ? "and" : "or", CMPS[b],
             lit_of(g.ty));
    } else {
        bput(out, "x %s %s\n", CMPS[a], y);
    }
    bput(out, "\n");
    gt = &g;
}

/* A run's `slow { }` block giving a uniform: it counts its calls in the
 * module's rk_ticks (once per rack: full racks, then the tail) and mixes
 * the count with uniforms of the run (f32, i32, u32) it captures, never
 * trapping (wrapping integer arithmetic, f32 from a bounded count). */
static void gen_slow_block(Buf *b)
{
    int t = rnd(3);
    char *name = fresh("sb");
    int ids[MAXV], nu = uniforms_of(t, ids);
    const char *u = nu ? S->v[ids[rnd(nu)]].name : NULL;
    bput(b, "  let <%s: %s> = slow {\n    rk_ticks <- wrap_add(rk_ticks, %d)\n", name,
         tyname[sc_of(t)], 1 + rnd(5));
    if (t == T_F)
        bput(b, "    f32(rk_ticks %% 64) * 0.5%s%s }\n", u ? " - " : "", u ? u : "");
    else if (t == T_I)
        bput(b, "    %s }\n", u ? xfmt("wrap_add(i32(rk_ticks %% 1000), %s)", u)
                              : "i32(rk_ticks % 1000) - 7");
    else
        bput(b, "    %s }\n", u ? xfmt("wrap_mul(rk_ticks, %s)", u) : "rk_ticks");
    add_var(name, sc_of(t));
}

/* Statements of a scratch or run body. */
static void gen_stmts(Buf *b, int n, int run)
{
    static int region;
    for (int i = 0; i < n; i++) {
        int k = rnd(run ? 12 : 6);
        Ctx c = {0, -1, 0};
        if (k < 3) { /* let */
            int t = (int[]){T_F, T_F, T_I, T_U, T_M}[rnd(5)];
            char *name = fresh("v");
            if (t != T_M && chance(10)) {
                E e = gen(t, &c, 0);
                if (!e.rack) { /* a typed let broadcasts a uniform */
                    bput(b, "  let %s: %s = %s\n", name, tyname[t], e.s);
                    add_var(name, t)->exact = 1;
                    continue;
                }
            }
            E e = t == T_M ? gen_mask(&c, 2) : gen_rack(t, &c, 1 + rnd(max_depth()));
            bput(b, "  let %s = %s\n", name, e.s);
            add_var(name, t)->exact = e.exact;
        } else if (k < 5) { /* fused bindings: one region */
            Ctx f = {1, region++, 0};
            int m = 1 + rnd(3);
            for (int j = 0; j < m; j++) {
                int t = (int[]){T_F, T_F, T_F, T_I, T_U}[rnd(5)];
                E e = gen_rack(t, &f, 1 + rnd(2));
                char *name = fresh("q");
                if (chance(25))
                    bput(b, "  | %s: %s <| %s\n", name, tyname[t], e.s);
                else
                    bput(b, "  | %s <| %s\n", name, e.s);
                Var *v = add_var(name, t);
                v->region = f.region;
                v->prod = e.fmul;
                v->exact = e.exact;
            }
        } else if (k == 5 && run && chance(30)) { /* a slow block's uniform */
            gen_slow_block(b);
        } else if (k == 5) { /* uniform let */
            int t = rnd(3);
            char *name = fresh("un");
            int ids[MAXV], nu = uniforms_of(t, ids);
            static const char *UOPS[] = {"+", "-", "*"};
            const char *l = lit_of(t);
            if (nu)
                bput(b, "  let <%s: %s> = <%s> %s <%s>\n", name, tyname[sc_of(t)],
                     S->v[ids[rnd(nu)]].name, UOPS[rnd(3)], l);
            else
                bput(b, "  let <%s: %s> = <%s>\n", name, tyname[sc_of(t)], l);
            add_var(name, sc_of(t));
        } else if (k < 8) { /* a widened column, or a local tine */
            if (k == 6) {
                int p = rnd(S->nsp);
                Pack *pk = S->sppack[p];
                int fi = rnd(pk->nf);
                Field *fl = &pk->f[fi];
                if (!st_wide(fl->st) && S->ok[p][fi]) {
                    char *name = fresh("w");
                    bput(b, "  let %s = widen(%s.%s)\n", name, S->spname[p], fl->name);
                    add_var(name, st_rack(fl->st));
                    continue;
                }
            }
            char *name = fresh("t");
            bput(b, "  tine #%s means %s\n", name, gen_pred(2));
            S->tines[S->ntines++] = name;
        } else if (k < 10) { /* a location, updated in place or in a loop */
            int t = (int[]){T_F, T_I, T_U}[rnd(3)];
            char *name = fresh("l");
            bput(b, "  %s := %s\n", name, gen_rack(t, &c, 1).s);
            static const char *OPS[] = {"+", "-", "*"};
            const char *op = OPS[rnd(3)];
            E x = gen(t, &c, 1);
            if (chance(50)) {
                int n2 = 1 + rnd(3);
                char *idx = fresh("ix");
                bput(b, "  repeat <%s: i32> from <0> up to <%d>:\n", idx, n2);
                bput(b, "    %s <- %s %s %s\n", name, name, op, par(x));
            } else {
                bput(b, "  %s <- %s %s %s\n", name, name, op, par(x));
            }
            Var *v = add_var(name, t);
            v->loc = 1;
            v->exact = 0;
        } else { /* a mask let from the tines */
            char *name = fresh("m");
            bput(b, "  let %s = %s\n", name, gen_mask(&c, 2).s);
            add_var(name, T_M);
        }
    }
}

/* cN_h(x0, x1, <x2>) -> T: called from the runs (and inlined). */
void gen_scratch(Buf *out, const char *prefix)
{
    static Scratch sc;
    static Scope scope;
    memset(&scope, 0, sizeof scope);
    S = &scope;
    scr = NULL;
    sc.name = xfmt("%s_h", prefix);
    sc.ty = rnd(3);
    sc.np = 1 + rnd(3);
    bput(out, "scratch %s(", sc.name);
    for (int i = 0; i < sc.np; i++) {
        int t = i == 0 ? sc.ty : chance(30) ? sc_of(rnd(3)) : rnd(3);
        sc.pty[i] = t;
        char *n = xfmt("x%d", i);
        bput(out, is_uni(t) ? "%s<%s: %s>" : "%s%s: %s", i ? ", " : "", n, tyname[t]);
        add_var(n, t);
    }
    bput(out, ") -> %s:\n", tyname[sc.ty]);
    gen_stmts(out, rnd(3), 0);
    Ctx c = {0, -1, 0};
    E e = gen_rack(sc.ty, &c, 2);
    bput(out, "  %s\n\n", e.s);
    sc.exact = e.exact;
    scr = &sc;
}

int run_compacts(const Run *r) { return r->form >= F_COMPACT; }

void gen_run(Buf *out, Run *r)
{
    static Scope scope;
    memset(&scope, 0, sizeof scope);
    S = &scope;
    S->nsp = r->nsp;
    bput(out, "run %s(", r->name);
    for (int i = 0; i < r->nsp; i++) {
        S->spname[i] = r->spname[i];
        S->sppack[i] = r->sppack[i];
        bput(out, "%s%s: stack %s", i ? ", " : "", r->spname[i], r->sppack[i]->name);
    }
    for (int i = 0; i < r->nu; i++) {
        char *n = fresh("k");
        bput(out, ", <%s: %s>", n, tyname[r->uty[i]]);
        add_var(n, r->uty[i]);
    }
    Pack *rp = r->sppack[r->result];
    const char *s = r->spname[r->result];
    for (int f = 0; f < rp->nf; f++)
        S->ok[r->result][f] = 1;
    for (int k = 0; k < NATIVE_OTHERS && r->nsp > 1; k++) {
        int p = rnd(r->nsp);
        S->ok[p][rnd(r->sppack[p]->nf)] = 1;
    }
    bput(out, ") -> stack %s:\n", rp->name);
    gen_stmts(out, rnd(6), 1);
    Buf with = {0};
    if (r->form != F_COMPACT) {
        int any = 0;
        bput(&with, "%s with { ", s);
        for (int pass = 0; !any; pass++)
            for (int i = 0; i < rp->nf; i++) {
                Field *f = &rp->f[i];
                if (!st_wide(f->st) || !chance(pass ? 60 : 45))
                    continue;
                Ctx c = {0, -1, f->exact};
                E e = gen_rack(st_rack(f->st), &c, 1 + rnd(max_depth()));
                bput(&with, "%s%s: %s", any ? ", " : "", f->name, e.s);
                any = 1;
            }
        bput(&with, " }");
    }
    switch (r->form) {
    case F_WITH: bput(out, "  %s\n\n", with.s); break;
    case F_WITH_WHERE: bput(out, "  %s where %s\n\n", with.s, gen_where()); break;
    case F_COMPACT: bput(out, "  compact %s where %s\n\n", s, gen_where()); break;
    default: bput(out, "  compact %s where %s\n\n", with.s, gen_where()); break;
    }
}

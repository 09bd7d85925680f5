/* facts.c: branch facts.
 *
 * A `cbr %c, T, F` tells every block T dominates, when T is reached by
 * that edge alone, that %c is true there (F: false).  A fact spreads
 * through the Boolean operations that make %c: `u.and` true makes both
 * operands true, `u.or` false makes both false, `u.not` flips.  A
 * comparison fact says which outcomes of comparing its two operands
 * remain (less, equal, greater, and for f32 unordered), so `a <= b`
 * false decides `b < a` true and `a == b` false, in either operand
 * order.  The outcomes each predicate accepts are read off lib/lanewise
 * (rk_lane_compare on sample lanes), the evaluators' own definition.
 *
 * A counted loop's i64 index, a block parameter every edge starts at a
 * small constant or steps up while it stays below a widened i32, is
 * never negative (never_negative), which decides its comparisons with 0.
 *
 * Where the facts of a block decide one of its Boolean instructions
 * (u.cmp.*, and Boolean u.and, u.or, u.not), it becomes that constant,
 * and a u.and with an operand known true (u.or: known false) becomes
 * its other operand;
 * where they decide a `cbr`, the branch becomes a `br` to the edge it
 * takes (a branch on a constant too); blocks no path from the entry
 * reaches any more go.  A general run's loop guard is the case: each
 * copy of a versioned loop is entered only when `b <= a` was false, and
 * tested `a < b` again.
 *
 * Soundness rests on SSA: a fact is about one value, and a block T
 * dominates is only reached through the edge that decided it, after the
 * value's last definition (the classic dominator argument; a loop can't
 * carry a stale fact round its back edge, since the loop head isn't
 * dominated by a block inside the loop).  A contradiction (no outcome
 * left: code no execution reaches) decides nothing. */
#include <stdlib.h>
#include <string.h>

#include "lanewise.h"
#include "nirops.h"
#include "opt.h"
#include "types.h"

typedef struct Fact {
    int value;
    bool truth;
} Fact;

/* A fact and the block whose entry edge gives it (it holds in every
 * block that block dominates). */
typedef struct Held {
    int block, value;
    bool truth;
} Held;

typedef struct Helds {
    Held *v;
    int n, cap;
} Helds;

typedef struct Facts {
    Fn *x;
    RkFunc *f;
    OptCfg g;
    Fact **own;     /* per position: the facts its entry edge adds */
    int *nown, *capown;
    Helds *on;      /* per value: the facts about it */
    Helds *cmp;     /* per value: the comparison facts it is a non-constant operand of */
    int *param_of;  /* per value: the block whose parameter it is + 1, or 0 */
    int *param_k;   /* and which parameter */
} Facts;

enum { LT = 1, EQ = 2, GT = 4, UN = 8 };

static RkInstr *def_of(const Facts *F, int id)
{
    return id >= 0 && id < F->f->nvalues ? F->x->def[id] : NULL;
}

static bool boolean(const RkInstr *d)
{
    return d && d->type && d->type->kind == RK_T_SCALAR && d->type->elem == RK_E_BOOL;
}

static void add_fact(Facts *F, int b, int value, bool truth)
{
    if (F->nown[b] == F->capown[b]) {
        F->capown[b] = F->capown[b] ? 2 * F->capown[b] : 4;
        F->own[b] = realloc(F->own[b], sizeof(Fact) * (size_t)F->capown[b]);
        if (!F->own[b])
            rk_diag_internal("out of memory for branch facts");
    }
    F->own[b][F->nown[b]++] = (Fact){value, truth};
}

/* The fact the edge into b gives, when it is b's only edge from a cbr,
 * and what follows from it through u.and, u.or and u.not. */
static void edge_facts(Facts *F, int b)
{
    if (b == 0 || F->g.dom.first[b + 1] - F->g.dom.first[b] != 1)
        return;
    const RkTerm *t = &F->f->blocks[F->g.dom.preds[F->g.dom.first[b]]]->term;
    if (t->kind != RK_TERM_CBR || t->to.block == t->alt.block)
        return;
    add_fact(F, b, t->value, t->to.block == F->f->blocks[b]->id);
    for (int i = 0; i < F->nown[b]; i++) {
        Fact c = F->own[b][i];
        RkInstr *d = def_of(F, c.value);
        if (!boolean(d))
            continue;
        if (d->opc == RK_OP_U_NOT && d->nargs == 1)
            add_fact(F, b, d->args[0], !c.truth);
        else if (d->nargs == 2 && ((d->opc == RK_OP_U_AND && c.truth) ||
                                   (d->opc == RK_OP_U_OR && !c.truth)))
            for (int k = 0; k < 2; k++)
                add_fact(F, b, d->args[k], c.truth);
    }
}

/* The outcomes (LT, EQ, GT, UN) for which comparison `opc` of (a, b)
 * holds; swapped: of (b, a).  Sample lanes stand for each outcome. */
static int accepts(RkOp opc, bool swapped)
{
    const char *pred = strrchr(rk_nir_op_info(opc)->name, '.') + 1;
    static const struct { int outcome; RkElem e; uint64_t a, b; } sample[] = {
        {LT, RK_E_I32, 0, 1}, {EQ, RK_E_I32, 0, 0}, {GT, RK_E_I32, 1, 0}, {UN, RK_E_F32, 0x7fc00000u, 0},
    };
    int set = 0;
    for (size_t i = 0; i < sizeof sample / sizeof *sample; i++) {
        uint64_t a = swapped ? sample[i].b : sample[i].a, b = swapped ? sample[i].a : sample[i].b;
        if (rk_lane_compare(pred, sample[i].e, a, b))
            set |= sample[i].outcome;
    }
    return set;
}

static bool comparison(const RkInstr *d)
{
    return d && d->nargs == 2 && rk_nir_op_info(d->opc) && rk_nir_op_info(d->opc)->shape == SH_UCMP;
}

static bool known(Facts *F, int b, int v, bool *truth, int depth);

/* The same operand: one value, or constants of one type and value (each
 * block loads its own constants, so `i < <8>` in two blocks reads two). */
static bool same_operand(Facts *F, int x, int y)
{
    if (x == y)
        return true;
    const RkInstr *a = opt_const_def(F->x, x), *b = opt_const_def(F->x, y);
    return a && b && rk_nir_same_constant(a, b);
}

/* --- counters that stay non-negative ---------------------------------------------------- */

/* A constant i64 in [0, limit). */
static bool small_const(Facts *F, int v, uint64_t limit)
{
    const RkInstr *c = opt_const_def(F->x, v);
    return c && c->type->elem == RK_E_I64 && c->bits < limit;
}

/* Below 2^32: an i32 or u32 widened (u.cvt), or a small constant. */
static bool below_2_32(Facts *F, int v)
{
    const RkInstr *d = def_of(F, v);
    if (small_const(F, v, 1ull << 32))
        return true;
    if (!d || d->opc != RK_OP_U_CVT || d->nargs != 1 || d->args[0] < 0 ||
        d->args[0] >= F->f->nvalues || !F->x->type[d->args[0]])
        return false;
    RkElem e = F->x->type[d->args[0]]->elem;
    return F->x->type[d->args[0]]->kind == RK_T_SCALAR && (e == RK_E_I32 || e == RK_E_U32);
}

/* What edge e of p's terminator passes as parameter k of block b is
 * either a constant in [0, 2^31), x itself, or x + c (c in [0, 2^31))
 * on the edge a `next >= B` takes when false (`next < B` when true), B
 * below 2^32. */
static bool step_ok(Facts *F, int x, const RkTerm *t, const RkEdge *e, int k)
{
    int a = e->args[k];
    if (a == x || small_const(F, a, 1ull << 31))
        return true;
    const RkInstr *d = def_of(F, a), *c = t->kind == RK_TERM_CBR ? def_of(F, t->value) : NULL;
    if (!d || d->opc != RK_OP_U_ADD || d->nargs != 2 || !c || c->nargs != 2 ||
        t->to.block == t->alt.block)
        return false;
    if (!((d->args[0] == x && small_const(F, d->args[1], 1ull << 31)) ||
          (d->args[1] == x && small_const(F, d->args[0], 1ull << 31))))
        return false;
    bool taken = e == &t->to;
    return c->args[0] == a && below_2_32(F, c->args[1]) &&
           ((c->opc == RK_OP_U_CMP_GE && !taken) || (c->opc == RK_OP_U_CMP_LT && taken));
}

/* Whether x, a block parameter of i64, is never negative: every edge into
 * its block starts it at a small constant or steps it up while it stays
 * below a bound under 2^32 (a counted loop's index: by induction it
 * lies in [0, 2^32), so the step never wraps).  A general run's checked
 * copy then needn't test `index >= 0` for an access at the index. */
static bool never_negative(Facts *F, int x)
{
    if (x < 0 || x >= F->f->nvalues || !F->param_of[x] || !F->x->type[x] ||
        F->x->type[x]->kind != RK_T_SCALAR || F->x->type[x]->elem != RK_E_I64)
        return false;
    int b = F->param_of[x] - 1, k = F->param_k[x], id = F->f->blocks[b]->id, edges = 0;
    for (int i = F->g.dom.first[b]; i < F->g.dom.first[b + 1]; i++) {
        const RkTerm *t = &F->f->blocks[F->g.dom.preds[i]]->term;
        const RkEdge *e[2] = {&t->to, &t->alt};
        for (int j = 0; j < (t->kind == RK_TERM_CBR ? 2 : 1); j++)
            if (e[j]->block == id) {
                if (k >= e[j]->nargs || !step_ok(F, x, t, e[j], k))
                    return false;
                edges++;
            }
    }
    return edges > 0;
}

/* A comparison of a never-negative value with 0 (i64), when its sign
 * decides it. */
static bool sign_known(Facts *F, const RkInstr *d, bool *truth)
{
    int x = d->args[0], y = d->args[1];
    bool zero_right = small_const(F, y, 1), zero_left = small_const(F, x, 1);
    if (!(zero_right && never_negative(F, x)) && !(zero_left && never_negative(F, y)))
        return false;
    int left = zero_right ? EQ | GT : LT | EQ, q = accepts(d->opc, false);
    if (!(left & ~q))
        return *truth = true, true;
    if (!(left & q))
        return *truth = false, true;
    return false;
}

/* A comparison decided by the comparison facts on its operands. */
static bool compare_known(Facts *F, int b, const RkInstr *d, bool *truth)
{
    if (sign_known(F, d, truth))
        return true;
    int x = d->args[0], y = d->args[1];
    int key = !opt_const_def(F->x, x) ? x : !opt_const_def(F->x, y) ? y : -1;
    if (key < 0 || key >= F->f->nvalues)
        return false; /* two constants: folding's */
    const RkType *t = x >= 0 && x < F->f->nvalues ? F->x->type[x] : NULL;
    RkElem e = t ? t->elem : RK_E_F32; /* unknown: the widest set of outcomes */
    int left = e == RK_E_F32 ? LT | EQ | GT | UN : LT | EQ | GT;
    for (int i = 0; i < F->cmp[key].n; i++) {
        Held h = F->cmp[key].v[i];
        if (!opt_cfg_dominates(&F->g, h.block, b))
            continue;
        const RkInstr *c = def_of(F, h.value);
        if (!comparison(c))
            continue; /* decided since (a constant now) */
        bool direct = same_operand(F, c->args[0], x) && same_operand(F, c->args[1], y);
        if (!direct && !(same_operand(F, c->args[0], y) && same_operand(F, c->args[1], x)))
            continue;
        int set = accepts(c->opc, !direct);
        left &= h.truth ? set : ~set;
    }
    int q = accepts(d->opc, false);
    if (!left)
        return false; /* unreachable: decide nothing */
    if (!(left & ~q))
        return *truth = true, true;
    if (!(left & q))
        return *truth = false, true;
    return false;
}

static bool known(Facts *F, int b, int v, bool *truth, int depth)
{
    RkInstr *c = opt_const_def(F->x, v);
    if (c && c->type->elem == RK_E_BOOL)
        return *truth = c->bits & 1, true;
    for (int i = 0; v >= 0 && v < F->f->nvalues && i < F->on[v].n; i++)
        if (opt_cfg_dominates(&F->g, F->on[v].v[i].block, b))
            return *truth = F->on[v].v[i].truth, true;
    RkInstr *d = def_of(F, v);
    if (!boolean(d) || depth > 8)
        return false;
    if (comparison(d))
        return compare_known(F, b, d, truth);
    bool l, r;
    if (d->opc == RK_OP_U_NOT && d->nargs == 1 && known(F, b, d->args[0], &l, depth + 1))
        return *truth = !l, true;
    if ((d->opc != RK_OP_U_AND && d->opc != RK_OP_U_OR) || d->nargs != 2)
        return false;
    bool and = d->opc == RK_OP_U_AND, kl = known(F, b, d->args[0], &l, depth + 1),
         kr = known(F, b, d->args[1], &r, depth + 1);
    if ((kl && l != and) || (kr && r != and))
        return *truth = !and, true; /* false and _, true or _ */
    if (kl && kr)
        return *truth = and, true;
    return false;
}

static void hold(Helds *l, Held h)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 2;
        l->v = realloc(l->v, sizeof(Held) * (size_t)l->cap);
        if (!l->v)
            rk_diag_internal("out of memory for branch facts");
    }
    l->v[l->n++] = h;
}

/* Every fact indexed by its value and, for a comparison, by its
 * non-constant operands. */
static void index_facts(Facts *F)
{
    int nb = F->f->nblocks;
    for (int p = 0; p < nb; p++)
        for (int i = 0; i < F->nown[p]; i++) {
            Held h = {p, F->own[p][i].value, F->own[p][i].truth};
            if (h.value < 0 || h.value >= F->f->nvalues)
                continue;
            hold(&F->on[h.value], h);
            const RkInstr *c = def_of(F, h.value);
            for (int k = 0; comparison(c) && k < 2; k++) {
                int o = c->args[k];
                if (o >= 0 && o < F->f->nvalues && !opt_const_def(F->x, o) && (k == 0 || o != c->args[0]))
                    hold(&F->cmp[o], h);
            }
        }
}

/* A u.and with an operand known true (u.or: known false) is its other
 * operand, in b and everywhere b's value is read (blocks b dominates,
 * where the fact holds too): it becomes a copy, which main.c's
 * substitution removes.  A general run's second check of the same index
 * tests `index >= 0 and end <= count`, the first half decided by the
 * first check. */
static bool drop_known_operand(Facts *F, int b, RkInstr *in)
{
    bool t, unit = in->opc == RK_OP_U_AND;
    for (int k = 0; k < 2; k++)
        if (known(F, b, in->args[k], &t, 0) && t == unit) {
            int other = in->args[1 - k];
            rk_nir_set_op(in, RK_OP_COPY);
            in->args[0] = other;
            in->nargs = 1;
            return true;
        }
    return false;
}

/* Decide what the facts of block b decide in it. */
static bool decide_block(Facts *F, int b)
{
    RkBlock *blk = F->f->blocks[b];
    bool changed = false, t;
    for (int j = 0; j < blk->ninstrs; j++) {
        RkInstr *in = blk->instrs[j];
        if (in->id < 0 || !F->x->uses[in->id] || !boolean(in) || rk_nir_is_constant(in) ||
            !(comparison(in) || in->opc == RK_OP_U_AND || in->opc == RK_OP_U_OR ||
              in->opc == RK_OP_U_NOT))
            continue;
        if (known(F, b, in->id, &t, 0)) {
            opt_make_constant(in, t);
            changed = true;
        } else if ((in->opc == RK_OP_U_AND || in->opc == RK_OP_U_OR) && in->nargs == 2) {
            changed |= drop_known_operand(F, b, in);
        }
    }
    RkTerm *term = &blk->term;
    if (term->kind == RK_TERM_CBR && known(F, b, term->value, &t, 0)) {
        if (!t)
            term->to = term->alt;
        term->kind = RK_TERM_BR;
        term->value = -1;
        term->alt = (RkEdge){-1, NULL, 0};
        changed = true;
    }
    return changed;
}

/* Drop the blocks the entry no longer reaches, keeping the order. */
static bool drop_unreached(RkFunc *f)
{
    OptCfg g;
    opt_cfg_build(&g, f);
    int k = 0;
    for (int i = 0; i < f->nblocks; i++)
        if (g.dom.order[i] >= 0)
            f->blocks[k++] = f->blocks[i];
    bool changed = k != f->nblocks;
    f->nblocks = k;
    opt_cfg_free(&g);
    return changed;
}

bool opt_branch_facts(Fn *x)
{
    RkFunc *f = x->f;
    if (f->nblocks == 0)
        return false;
    int nb = f->nblocks;
    Facts F = {.x = x, .f = f};
    opt_cfg_build(&F.g, f);
    F.param_of = calloc((size_t)f->nvalues + 1, sizeof(int));
    F.param_k = calloc((size_t)f->nvalues + 1, sizeof(int));
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < f->blocks[b]->nparams; k++) {
            int v = f->blocks[b]->params[k];
            if (v >= 0 && v < f->nvalues)
                F.param_of[v] = b + 1, F.param_k[v] = k;
        }
    F.own = calloc((size_t)nb + 1, sizeof(Fact *));
    F.nown = calloc((size_t)nb + 1, sizeof(int));
    F.capown = calloc((size_t)nb + 1, sizeof(int));
    for (int i = 0; i < F.g.dom.nrpo; i++)
        edge_facts(&F, F.g.dom.rpo[i]);
    F.on = calloc((size_t)f->nvalues + 1, sizeof(Helds));
    F.cmp = calloc((size_t)f->nvalues + 1, sizeof(Helds));
    index_facts(&F);
    bool changed = false;
    for (int i = 0; i < F.g.dom.nrpo; i++)
        changed |= decide_block(&F, F.g.dom.rpo[i]);
    for (int i = 0; i < nb; i++)
        free(F.own[i]);
    for (int v = 0; v < f->nvalues; v++)
        free(F.on[v].v), free(F.cmp[v].v);
    free(F.own), free(F.nown), free(F.capown);
    free(F.on), free(F.cmp);
    free(F.param_of), free(F.param_k);
    opt_cfg_free(&F.g);
    return drop_unreached(f) || changed;
}

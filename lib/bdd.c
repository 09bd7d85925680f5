/* bdd.c: a hash-consed node table and memoised apply. */
#include "bdd.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"

typedef struct Node {
    int var; /* terminals: INT_MAX-like sentinel */
    RkBdd lo, hi;
} Node;

enum { TERMINAL_VAR = 1 << 30 };

static Node *nodes;
static int nnodes, cap;
static int *unique; /* open addressing: node index + 1, 0 = empty */
static int ucap;

typedef struct Memo {
    int op, a, b, r; /* op 0 = empty */
} Memo;
static Memo memo[1 << 16];

static unsigned hash3(int a, int b, int c)
{
    unsigned h = (unsigned)a * 2654435761u ^ (unsigned)b * 40503u ^ (unsigned)c * 97u;
    return h ^ (h >> 15);
}

static void init(void)
{
    cap = 1024;
    nodes = malloc(sizeof *nodes * (size_t)cap);
    nodes[0] = (Node){TERMINAL_VAR, 0, 0};
    nodes[1] = (Node){TERMINAL_VAR, 1, 1};
    nnodes = 2;
    ucap = 2048;
    unique = calloc((size_t)ucap, sizeof *unique);
    if (!nodes || !unique)
        rk_diag_internal("out of memory in the BDD table");
}

static void rehash(void)
{
    free(unique);
    ucap *= 2;
    unique = calloc((size_t)ucap, sizeof *unique);
    if (!unique)
        rk_diag_internal("out of memory in the BDD table");
    for (int i = 2; i < nnodes; i++) {
        unsigned h = hash3(nodes[i].var, nodes[i].lo, nodes[i].hi) & (unsigned)(ucap - 1);
        while (unique[h])
            h = (h + 1) & (unsigned)(ucap - 1);
        unique[h] = i + 1;
    }
}

static RkBdd mk(int var, RkBdd lo, RkBdd hi)
{
    if (lo == hi)
        return lo;
    if (!nodes)
        init();
    unsigned h = hash3(var, lo, hi) & (unsigned)(ucap - 1);
    while (unique[h]) {
        Node *n = &nodes[unique[h] - 1];
        if (n->var == var && n->lo == lo && n->hi == hi)
            return unique[h] - 1;
        h = (h + 1) & (unsigned)(ucap - 1);
    }
    if (nnodes == cap) {
        cap *= 2;
        nodes = realloc(nodes, sizeof *nodes * (size_t)cap);
        if (!nodes)
            rk_diag_internal("out of memory in the BDD table");
    }
    nodes[nnodes] = (Node){var, lo, hi};
    unique[h] = nnodes + 1;
    RkBdd r = nnodes++;
    if (nnodes * 2 > ucap)
        rehash();
    return r;
}

RkBdd rk_bdd_var(int var)
{
    if (!nodes)
        init();
    return mk(var, RK_BDD_FALSE, RK_BDD_TRUE);
}

static int var_of(RkBdd a) { return nodes[a].var; }

enum { OP_AND = 1, OP_OR = 2, OP_NOT = 3 };

static bool memo_get(int op, RkBdd a, RkBdd b, RkBdd *r)
{
    Memo *m = &memo[hash3(op, a, b) & ((1 << 16) - 1)];
    if (m->op == op && m->a == a && m->b == b) {
        *r = m->r;
        return true;
    }
    return false;
}

static void memo_put(int op, RkBdd a, RkBdd b, RkBdd r)
{
    Memo *m = &memo[hash3(op, a, b) & ((1 << 16) - 1)];
    *m = (Memo){op, a, b, r};
}

RkBdd rk_bdd_not(RkBdd a)
{
    if (a <= 1)
        return !a;
    RkBdd r;
    if (memo_get(OP_NOT, a, 0, &r))
        return r;
    Node n = nodes[a];
    r = mk(n.var, rk_bdd_not(n.lo), rk_bdd_not(n.hi));
    memo_put(OP_NOT, a, 0, r);
    return r;
}

static RkBdd apply(int op, RkBdd a, RkBdd b)
{
    if (op == OP_AND) {
        if (a == RK_BDD_FALSE || b == RK_BDD_FALSE)
            return RK_BDD_FALSE;
        if (a == RK_BDD_TRUE)
            return b;
        if (b == RK_BDD_TRUE || a == b)
            return a;
    } else {
        if (a == RK_BDD_TRUE || b == RK_BDD_TRUE)
            return RK_BDD_TRUE;
        if (a == RK_BDD_FALSE)
            return b;
        if (b == RK_BDD_FALSE || a == b)
            return a;
    }
    if (a > b) {
        RkBdd t = a;
        a = b;
        b = t;
    }
    RkBdd r;
    if (memo_get(op, a, b, &r))
        return r;
    int va = var_of(a), vb = var_of(b);
    int v = va < vb ? va : vb;
    RkBdd alo = va == v ? nodes[a].lo : a, ahi = va == v ? nodes[a].hi : a;
    RkBdd blo = vb == v ? nodes[b].lo : b, bhi = vb == v ? nodes[b].hi : b;
    RkBdd lo = apply(op, alo, blo);
    RkBdd hi = apply(op, ahi, bhi);
    r = mk(v, lo, hi);
    memo_put(op, a, b, r);
    return r;
}

RkBdd rk_bdd_and(RkBdd a, RkBdd b) { return apply(OP_AND, a, b); }
RkBdd rk_bdd_or(RkBdd a, RkBdd b) { return apply(OP_OR, a, b); }

bool rk_bdd_implies(RkBdd a, RkBdd b)
{
    return rk_bdd_and(a, rk_bdd_not(b)) == RK_BDD_FALSE;
}

bool rk_bdd_witness(RkBdd a, int *assign, int nvars)
{
    for (int i = 0; i < nvars; i++)
        assign[i] = -1;
    if (a == RK_BDD_FALSE)
        return false;
    while (a > 1) {
        Node n = nodes[a];
        if (n.lo != RK_BDD_FALSE) {
            if (n.var < nvars)
                assign[n.var] = 0;
            a = n.lo;
        } else {
            if (n.var < nvars)
                assign[n.var] = 1;
            a = n.hi;
        }
    }
    return true;
}

int rk_bdd_size(void) { return nnodes; }

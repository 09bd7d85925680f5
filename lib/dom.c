/* dom.c: dominators by Cooper, Harvey and Kennedy (dom.h).
 *
 * The roots hang below a virtual root, block n, so that a block reached
 * from two roots is dominated by itself alone, as the meet of its
 * predecessors' dominator sets says; n comes first in the order (-1) and
 * is its own immediate dominator. */
#include "dom.h"

#include <stdlib.h>

#include "diag.h"

static void *take(size_t n, size_t size)
{
    void *p = calloc(n + 1, size);
    if (!p)
        rk_diag_internal("out of memory for dominators");
    return p;
}

/* Reverse postorder from the virtual root: the roots, then successors. */
static void number(RkDom *d, const int *sfirst, const int *succ, const int *roots, int nroots)
{
    int n = d->n, *stack = take((size_t)n + 1, sizeof(int)), *next = take((size_t)n + 1, sizeof(int));
    int *post = take((size_t)n + 1, sizeof(int)), sp = 0, np = 0;
    char *seen = take((size_t)n + 1, 1);
    stack[sp++] = n;
    seen[n] = 1;
    while (sp) {
        int b = stack[sp - 1];
        int have = b == n ? nroots : sfirst[b + 1] - sfirst[b];
        if (next[b] < have) {
            int t = b == n ? roots[next[b]++] : succ[sfirst[b] + next[b]++];
            if (t >= 0 && t < n && !seen[t]) {
                seen[t] = 1;
                stack[sp++] = t;
            }
            continue;
        }
        post[np++] = b;
        sp--;
    }
    d->nrpo = np - 1; /* the virtual root ends the postorder */
    for (int i = 0; i <= n; i++)
        d->order[i] = -1;
    for (int i = 0; i < d->nrpo; i++) {
        d->rpo[i] = post[np - 2 - i];
        d->order[d->rpo[i]] = i;
    }
    free(stack), free(next), free(post), free(seen);
}

/* The edges into each reached block from reached blocks, in the order
 * of the walk's blocks and then of their successors. */
static void predecessors(RkDom *d, const int *sfirst, const int *succ)
{
    int n = d->n, *fill = take((size_t)n + 1, sizeof(int));
    d->first = take((size_t)n + 2, sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < d->nrpo; i++) {
            int b = d->rpo[i];
            for (int k = sfirst[b]; k < sfirst[b + 1]; k++) {
                int t = succ[k];
                if (t < 0 || t >= n)
                    continue;
                if (pass)
                    d->preds[d->first[t] + fill[t]] = b;
                fill[t]++;
            }
        }
        if (!pass) {
            for (int i = 0; i < n; i++)
                d->first[i + 1] = d->first[i] + fill[i];
            d->preds = take((size_t)d->first[n], sizeof(int));
            for (int i = 0; i < n; i++)
                fill[i] = 0;
        }
    }
    free(fill);
}

static int meet(const RkDom *d, int a, int b)
{
    while (a != b) {
        while (d->order[a] > d->order[b])
            a = d->up[a];
        while (d->order[b] > d->order[a])
            b = d->up[b];
    }
    return a;
}

static void dominators(RkDom *d, const int *roots, int nroots)
{
    int n = d->n;
    char *root = take((size_t)n + 1, 1);
    for (int i = 0; i < nroots; i++)
        if (roots[i] >= 0 && roots[i] < n)
            root[roots[i]] = 1;
    for (int i = 0; i < n; i++)
        d->up[i] = -1;
    d->up[n] = n;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < d->nrpo; i++) {
            int b = d->rpo[i], m = root[b] ? n : -1;
            for (int k = d->first[b]; k < d->first[b + 1]; k++) {
                int p = d->preds[k];
                if (d->up[p] >= 0)
                    m = m < 0 ? p : meet(d, p, m);
            }
            if (m != d->up[b]) {
                d->up[b] = m;
                changed = true;
            }
        }
    }
    for (int i = 0; i < n; i++)
        d->idom[i] = d->up[i] == n ? i : d->up[i];
    free(root);
}

/* Preorder and postorder numbers of the tree under the virtual root. */
static void tree_numbers(RkDom *d)
{
    int n = d->n, *first = take((size_t)n + 2, sizeof(int)), *kids = take((size_t)n + 1, sizeof(int));
    int *fill = take((size_t)n + 1, sizeof(int));
    for (int i = 0; i < d->nrpo; i++)
        first[d->up[d->rpo[i]] + 1]++;
    for (int b = 0; b <= n; b++)
        first[b + 1] += first[b];
    for (int i = 0; i < d->nrpo; i++) {
        int b = d->rpo[i], p = d->up[b];
        kids[first[p] + fill[p]++] = b;
    }
    int *stack = take((size_t)n + 1, sizeof(int)), *next = take((size_t)n + 1, sizeof(int));
    int sp = 0, clock = 0;
    stack[sp++] = n;
    while (sp) {
        int b = stack[sp - 1];
        if (first[b] + next[b] < first[b + 1]) {
            int c = kids[first[b] + next[b]++];
            d->pre[c] = clock++;
            stack[sp++] = c;
        } else {
            if (b < n)
                d->post[b] = clock++;
            sp--;
        }
    }
    free(first), free(kids), free(fill), free(stack), free(next);
}

void rk_dom_build(RkDom *d, int n, const int *sfirst, const int *succ, const int *roots,
                  int nroots)
{
    *d = (RkDom){.n = n};
    d->rpo = take((size_t)n, sizeof(int));
    d->order = take((size_t)n + 1, sizeof(int));
    d->idom = take((size_t)n, sizeof(int));
    d->up = take((size_t)n + 1, sizeof(int));
    d->pre = take((size_t)n, sizeof(int));
    d->post = take((size_t)n, sizeof(int));
    number(d, sfirst, succ, roots, nroots);
    predecessors(d, sfirst, succ);
    dominators(d, roots, nroots);
    tree_numbers(d);
}

bool rk_dom_dominates(const RkDom *d, int a, int b)
{
    return d->order[a] >= 0 && d->order[b] >= 0 && d->pre[a] <= d->pre[b] &&
           d->post[b] <= d->post[a];
}

int rk_dom_nca(const RkDom *d, int a, int b)
{
    int m = meet(d, a, b);
    return m == d->n ? -1 : m;
}

void rk_dom_free(RkDom *d)
{
    free(d->rpo), free(d->order), free(d->idom), free(d->up), free(d->first), free(d->preds);
    free(d->pre), free(d->post);
    *d = (RkDom){0};
}

/* cfg.c: the control-flow facts rake-opt's block-level rewrites share.
 *
 * Blocks are named by their position in f->blocks.  opt_cfg_build finds
 * the blocks the entry reaches, in reverse postorder (an explicit stack:
 * a general run with thousands of checked accesses has thousands of
 * blocks), the edges into each (a cbr whose two edges reach one block
 * counts twice), and immediate dominators by Cooper, Harvey and
 * Kennedy's iteration over reverse postorder, numbered in the dominator
 * tree's preorder and postorder so that dominance is two comparisons
 * (a run's blocks nest thousands deep).  Unreached blocks have order -1
 * and no dominator; nothing here changes the function. */
#include <stdlib.h>

#include "opt.h"

int opt_cfg_successors(const RkBlock *b, int s[2])
{
    if (b->term.kind == RK_TERM_BR) {
        s[0] = b->term.to.block;
        return 1;
    }
    if (b->term.kind == RK_TERM_CBR) {
        s[0] = b->term.to.block;
        s[1] = b->term.alt.block;
        return 2;
    }
    return 0;
}

int opt_cfg_pos(const OptCfg *g, int id)
{
    return id >= 0 && id < g->nat ? g->at[id] : -1;
}

static void index_blocks(OptCfg *g)
{
    RkFunc *f = g->f;
    g->nat = 0;
    for (int i = 0; i < f->nblocks; i++)
        if (f->blocks[i]->id + 1 > g->nat)
            g->nat = f->blocks[i]->id + 1;
    g->at = malloc(sizeof(int) * (size_t)(g->nat + 1));
    for (int i = 0; i < g->nat; i++)
        g->at[i] = -1;
    for (int i = 0; i < f->nblocks; i++)
        if (f->blocks[i]->id >= 0)
            g->at[f->blocks[i]->id] = i;
}

static void number_blocks(OptCfg *g)
{
    int nb = g->f->nblocks, *stack = malloc(sizeof(int) * (size_t)(nb + 1));
    int *next = calloc((size_t)nb + 1, sizeof(int)), *post = malloc(sizeof(int) * (size_t)(nb + 1));
    char *seen = calloc((size_t)nb + 1, 1);
    int sp = 0, np = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) {
        int b = stack[sp - 1], s[2], n = opt_cfg_successors(g->f->blocks[b], s);
        if (next[b] < n) {
            int t = opt_cfg_pos(g, s[next[b]++]);
            if (t >= 0 && !seen[t]) {
                seen[t] = 1;
                stack[sp++] = t;
            }
            continue;
        }
        post[np++] = b;
        sp--;
    }
    g->nrpo = np;
    for (int i = 0; i < nb; i++)
        g->order[i] = -1;
    for (int i = 0; i < np; i++) {
        g->rpo[i] = post[np - 1 - i];
        g->order[g->rpo[i]] = i;
    }
    free(stack);
    free(next);
    free(post);
    free(seen);
}

/* The edges into each reached block, from reached blocks, as lists. */
static void predecessors(OptCfg *g)
{
    int nb = g->f->nblocks;
    g->first = calloc((size_t)nb + 2, sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        int *fill = calloc((size_t)nb + 1, sizeof(int));
        for (int i = 0; i < g->nrpo; i++) {
            int s[2], n = opt_cfg_successors(g->f->blocks[g->rpo[i]], s);
            for (int k = 0; k < n; k++) {
                int t = opt_cfg_pos(g, s[k]);
                if (t < 0)
                    continue;
                if (pass)
                    g->preds[g->first[t] + fill[t]] = g->rpo[i];
                fill[t]++;
            }
        }
        if (!pass) {
            for (int i = 0; i < nb; i++)
                g->first[i + 1] = g->first[i] + fill[i];
            g->preds = malloc(sizeof(int) * (size_t)(g->first[nb] + 1));
        }
        free(fill);
    }
}

int opt_cfg_nca(const OptCfg *g, int a, int b)
{
    while (a != b) {
        while (g->order[a] > g->order[b])
            a = g->idom[a];
        while (g->order[b] > g->order[a])
            b = g->idom[b];
    }
    return a;
}

static void dominators(OptCfg *g)
{
    for (int i = 0; i < g->f->nblocks; i++)
        g->idom[i] = -1;
    g->idom[0] = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 1; i < g->nrpo; i++) {
            int b = g->rpo[i], d = -1;
            for (int k = g->first[b]; k < g->first[b + 1]; k++) {
                int p = g->preds[k];
                if (g->idom[p] >= 0)
                    d = d < 0 ? p : opt_cfg_nca(g, p, d);
            }
            if (d != g->idom[b]) {
                g->idom[b] = d;
                changed = true;
            }
        }
    }
}

/* The dominator tree's preorder and postorder numbers (an explicit
 * stack: thousands of blocks may nest). */
static void tree_numbers(OptCfg *g)
{
    int nb = g->f->nblocks, *first = calloc((size_t)nb + 2, sizeof(int));
    int *kids = malloc(sizeof(int) * (size_t)(nb + 1)), *fill = calloc((size_t)nb + 1, sizeof(int));
    for (int i = 1; i < g->nrpo; i++)
        first[g->idom[g->rpo[i]] + 1]++;
    for (int b = 0; b < nb; b++)
        first[b + 1] += first[b];
    for (int i = 1; i < g->nrpo; i++) {
        int b = g->rpo[i], p = g->idom[b];
        kids[first[p] + fill[p]++] = b;
    }
    int *stack = malloc(sizeof(int) * (size_t)(nb + 1)), *next = calloc((size_t)nb + 1, sizeof(int));
    int sp = 0, clock = 0;
    stack[sp++] = 0;
    g->pre[0] = clock++;
    while (sp) {
        int b = stack[sp - 1];
        if (first[b] + next[b] < first[b + 1]) {
            int c = kids[first[b] + next[b]++];
            g->pre[c] = clock++;
            stack[sp++] = c;
        } else {
            g->post[b] = clock++;
            sp--;
        }
    }
    free(first), free(kids), free(fill), free(stack), free(next);
}

void opt_cfg_build(OptCfg *g, RkFunc *f)
{
    int nb = f->nblocks;
    *g = (OptCfg){.f = f};
    index_blocks(g);
    g->rpo = malloc(sizeof(int) * (size_t)(nb + 1));
    g->order = malloc(sizeof(int) * (size_t)(nb + 1));
    g->idom = malloc(sizeof(int) * (size_t)(nb + 1));
    g->pre = malloc(sizeof(int) * (size_t)(nb + 1));
    g->post = malloc(sizeof(int) * (size_t)(nb + 1));
    number_blocks(g);
    predecessors(g);
    dominators(g);
    tree_numbers(g);
}

bool opt_cfg_dominates(const OptCfg *g, int a, int b)
{
    return g->order[a] >= 0 && g->order[b] >= 0 && g->pre[a] <= g->pre[b] &&
           g->post[b] <= g->post[a];
}

void opt_cfg_free(OptCfg *g)
{
    free(g->at), free(g->rpo), free(g->order), free(g->idom), free(g->first), free(g->preds);
    free(g->pre), free(g->post);
    *g = (OptCfg){0};
}

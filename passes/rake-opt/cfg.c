/* cfg.c: the control-flow facts rake-opt's block-level rewrites share.
 *
 * Blocks are named by their position in f->blocks.  opt_cfg_build maps
 * block ids to positions and hands the edges to lib/dom.h, which finds
 * the blocks the entry reaches in reverse postorder, the edges into each
 * (a cbr whose two edges reach one block counts twice) and the dominator
 * tree, numbered so that dominance is two comparisons.  Unreached blocks
 * have order -1 and no dominator.  opt_cfg_find_loops adds the natural
 * loops, for the rewrites that mustn't make a value live, or computed,
 * in a loop it wasn't in.  Nothing here changes the function. */
#include <stdlib.h>

#include "opt.h"

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

void opt_cfg_build(OptCfg *g, RkFunc *f)
{
    int nb = f->nblocks, *sfirst = malloc(sizeof(int) * (size_t)(nb + 2));
    int *succ = malloc(sizeof(int) * (size_t)(2 * nb + 1)), ns = 0, root = 0;
    *g = (OptCfg){.f = f};
    index_blocks(g);
    for (int b = 0; b < nb; b++) {
        int s[2], n = rk_nir_successors(f->blocks[b], s);
        sfirst[b] = ns;
        for (int k = 0; k < n; k++)
            succ[ns++] = opt_cfg_pos(g, s[k]);
    }
    sfirst[nb] = ns;
    rk_dom_build(&g->dom, nb, sfirst, succ, &root, nb > 0);
    free(sfirst);
    free(succ);
}

bool opt_cfg_dominates(const OptCfg *g, int a, int b) { return rk_dom_dominates(&g->dom, a, b); }

int opt_cfg_nca(const OptCfg *g, int a, int b) { return rk_dom_nca(&g->dom, a, b); }

/* Natural loops: for each back edge t -> h (h dominates t), h and the
 * blocks that reach t without passing h. */
void opt_cfg_find_loops(OptCfg *g)
{
    int nb = g->f->nblocks, cap = 0, *stack = malloc(sizeof(int) * (size_t)(nb + 1));
    const RkDom *d = &g->dom;
    for (int h = 0; h < nb; h++)
        for (int e = d->first[h]; e < d->first[h + 1]; e++) {
            int t = d->preds[e];
            if (!opt_cfg_dominates(g, h, t))
                continue;
            if (g->nloops == cap) {
                cap = cap ? 2 * cap : 4;
                g->body = realloc(g->body, sizeof(char *) * (size_t)cap);
            }
            char *in = g->body[g->nloops++] = calloc((size_t)nb + 1, 1);
            int sp = 0;
            in[h] = 1;
            if (!in[t])
                in[t] = 1, stack[sp++] = t;
            while (sp) {
                int b = stack[--sp];
                for (int q = d->first[b]; q < d->first[b + 1]; q++)
                    if (!in[d->preds[q]])
                        in[d->preds[q]] = 1, stack[sp++] = d->preds[q];
            }
        }
    free(stack);
}

bool opt_cfg_loops_within(const OptCfg *g, int s, int b)
{
    for (int l = 0; l < g->nloops; l++)
        if (g->body[l][s] && !g->body[l][b])
            return false;
    return true;
}

void opt_cfg_free(OptCfg *g)
{
    for (int l = 0; l < g->nloops; l++)
        free(g->body[l]);
    free(g->body);
    free(g->at);
    rk_dom_free(&g->dom);
    *g = (OptCfg){0};
}

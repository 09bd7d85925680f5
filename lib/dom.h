/* dom.h: dominators of a control-flow graph, for any pass that has one.
 *
 * Blocks are numbers 0 .. n-1; the graph is each block's successors in a
 * compressed list (succ[sfirst[b] .. sfirst[b+1]), repeats allowed: a
 * cbr whose two edges reach one block), and paths start at the roots (a
 * function's entry; the native-IR verifier adds the blocks nothing jumps
 * to, each dominated by itself alone).  rk_dom_build finds the blocks
 * the roots reach, in reverse postorder of a depth-first walk that takes
 * the roots and then each block's successors in order (an explicit
 * stack: a general run with thousands of checked accesses nests
 * thousands of blocks deep), the edges into each from reached blocks,
 * and immediate dominators by Cooper, Harvey and Kennedy's iteration
 * over that order.  The dominator tree's preorder and postorder numbers
 * make a dominance question two comparisons.  Everything costs about the
 * size of the graph, where bit sets of dominators cost blocks squared.
 *
 * A root's immediate dominator is itself; blocks no root reaches have
 * order -1 and none. */
#ifndef RK_DOM_H
#define RK_DOM_H

#include <stdbool.h>

typedef struct RkDom {
    int n;              /* blocks */
    int *rpo, nrpo;     /* the reached blocks in reverse postorder */
    int *order;         /* per block: its place in rpo, -1 unreached */
    int *idom;          /* per block: its immediate dominator, -1 unreached */
    int *first, *preds; /* edges into b from reached blocks: preds[first[b] .. first[b+1]) */
    int *pre, *post;    /* per reached block: its dominator-tree numbers */
    int *up;            /* idom with a virtual root n above the roots (rk_dom_nca) */
} RkDom;

void rk_dom_build(RkDom *d, int n, const int *sfirst, const int *succ, const int *roots,
                  int nroots);
void rk_dom_free(RkDom *d);

/* Whether a dominates b (every path from a root to b passes a); both
 * reached, else false. */
bool rk_dom_dominates(const RkDom *d, int a, int b);

/* The nearest block dominating both a and b (reached), or -1 when they
 * lie under different roots. */
int rk_dom_nca(const RkDom *d, int a, int b);

#endif

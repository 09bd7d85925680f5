/* bdd.h: reduced ordered binary decision diagrams over independent atoms.
 *
 * rake-check proves lane coverage with these: each distinct comparison (or
 * uniform condition) in a predicate is one Boolean variable, and tines,
 * `not`, `and`, `or` and `gaps` build functions of them.  No numeric
 * reasoning relates two comparisons, so `x >= 0` and `x < 0` are two
 * unrelated variables and their disjunction is not a tautology: exactly the
 * NaN-honest reading the language requires.
 *
 * A diagram is an index into one process-wide table; RK_BDD_FALSE and
 * RK_BDD_TRUE are the constants.  Nodes are hash-consed, so two diagrams are
 * equivalent exactly when their indices are equal. */
#ifndef RK_BDD_H
#define RK_BDD_H

#include <stdbool.h>

typedef int RkBdd;
enum { RK_BDD_FALSE = 0, RK_BDD_TRUE = 1 };

RkBdd rk_bdd_var(int var);
RkBdd rk_bdd_not(RkBdd a);
RkBdd rk_bdd_and(RkBdd a, RkBdd b);
RkBdd rk_bdd_or(RkBdd a, RkBdd b);
/* a implies b, i.e. a and not b is unsatisfiable */
bool rk_bdd_implies(RkBdd a, RkBdd b);
/* One satisfying assignment of a: assign[v] = 0 or 1 for the variables on
 * the path, -1 for the others (nvars entries).  False if a is FALSE. */
bool rk_bdd_witness(RkBdd a, int *assign, int nvars);
/* Number of nodes allocated so far (for benchmarks). */
int rk_bdd_size(void);

#endif

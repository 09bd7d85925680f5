/* children.c: a unit test of lib/ast.c's child visitor.
 *
 * The visitor must reach exactly the children the JSON form holds: for
 * every node kind, a node is built with every child member of RkNode set
 * (each single child a distinct leaf, each list two), encoded with
 * rk_ast_encode_node, and the objects and arrays of that encoding, in its
 * key order (the table's), are the children rk_ast_any_child_at must
 * visit, each once, in that order, with that key and index, and the ones
 * rk_ast_any_child and rk_ast_each_child must visit.  Leaves are told apart by their locations.  An encoding that
 * still holds a null node or an empty list means this file fills too few
 * members (RkNode grew a child), and fails.  A node with no children set
 * must visit nothing, and a test that answers true stops the walk.
 *
 * Prints one line per failure and exits 1 if any; built and run by
 * tests/06-ast.bats:
 *
 *   cc -Ilib tests/ast/children.c build/lib/librake.a -ljansson -lm */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ast.h"

enum { MAX_SEEN = 64 };

typedef struct Seen {
    RkNode *node[MAX_SEEN];
    const char *key[MAX_SEEN];
    int index[MAX_SEEN];
    int n;
    int stop_at; /* answer true at this visit (1-based), 0 never */
} Seen;

static int failures;
static int next_line = 2;

static void fail(RkKind k, const char *what)
{
    printf("FAILED %s: %s\n", rk_kind_name(k), what);
    failures++;
}

static RkNode *leaf(void)
{
    return rk_node_new(RK_WILDCARD, (RkLoc){next_line++, 1});
}

static RkList two_leaves(void)
{
    RkListBuilder b = {0};
    rk_list_push(&b, leaf());
    rk_list_push(&b, leaf());
    return rk_list_finish(&b);
}

/* Every child member of RkNode (lib/ast.h), whatever the kind uses. */
static RkNode *full_node(RkKind k)
{
    RkNode *n = rk_node_new(k, (RkLoc){1, 1});
    n->name = n->op = n->text = "x";
    RkNode **one[] = {&n->type, &n->ret, &n->lhs, &n->rhs, &n->operand,
                      &n->cond, &n->then_e, &n->else_e, &n->value, &n->target,
                      &n->object, &n->index, &n->pred, &n->from, &n->to,
                      &n->step, &n->stack, &n->elem, &n->len};
    for (size_t i = 0; i < sizeof one / sizeof *one; i++)
        *one[i] = leaf();
    RkList *lists[] = {&n->params, &n->body, &n->else_body, &n->args,
                       &n->arms, &n->fields, &n->elems};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        *lists[i] = two_leaves();
    return n;
}

static bool record(RkNode *child, const char *key, int index, void *ctx)
{
    Seen *s = ctx;
    if (s->n < MAX_SEEN) {
        s->node[s->n] = child;
        s->key[s->n] = key;
        s->index[s->n] = index;
    }
    s->n++;
    return s->n == s->stop_at;
}

static bool record_any(RkNode *child, void *ctx)
{
    return record(child, NULL, 0, ctx);
}

static void record_each(RkNode *child, void *ctx)
{
    record(child, NULL, 0, ctx);
}

/* Did two walks visit the same nodes? */
static bool same_visits(const Seen *a, const Seen *b)
{
    return a->n == b->n &&
           !memcmp(a->node, b->node, sizeof(RkNode *) * (size_t)a->n);
}

static bool same_leaf(json_t *j, const RkNode *n)
{
    char loc[32];
    snprintf(loc, sizeof loc, "%d:%d", n->loc.line, n->loc.col);
    const char *got = json_string_value(json_object_get(j, "loc"));
    return got && !strcmp(got, loc);
}

/* Is visit i the child j of the encoding, under key at index? */
static void expect(RkKind k, Seen *s, int i, json_t *j, const char *key,
                   int index)
{
    char what[160];
    if (i >= s->n || i >= MAX_SEEN) {
        snprintf(what, sizeof what, "'%s'[%d] never visited", key, index);
        fail(k, what);
    } else if (strcmp(s->key[i], key) || s->index[i] != index ||
               !same_leaf(j, s->node[i])) {
        snprintf(what, sizeof what, "visit %d is '%s'[%d], expected '%s'[%d]",
                 i + 1, s->key[i], s->index[i], key, index);
        fail(k, what);
    }
}

/* Compare the visits with the encoding's children; returns their count. */
static int compare(RkKind k, Seen *s, json_t *enc)
{
    int i = 0;
    const char *key;
    json_t *v;
    json_object_foreach(enc, key, v) {
        if (!strcmp(key, "loc"))
            continue;
        if (json_is_null(v) || (json_is_array(v) && !json_array_size(v))) {
            char what[120];
            snprintf(what, sizeof what, "'%s' is not filled by "
                                        "tests/ast/children.c", key);
            fail(k, what);
        } else if (json_is_object(v)) {
            expect(k, s, i++, v, key, -1);
        } else if (json_is_array(v)) {
            size_t j;
            json_t *item;
            json_array_foreach(v, j, item)
                expect(k, s, i++, item, key, (int)j);
        }
    }
    if (s->n != i) {
        char what[80];
        snprintf(what, sizeof what, "%d visits, the encoding has %d children",
                 s->n, i);
        fail(k, what);
    }
    return i;
}

/* A walk that answers true at each visit in turn stops there. */
static void check_stops(RkKind k, RkNode *n, int count)
{
    for (int stop = 1; stop <= count; stop++) {
        Seen at = {.stop_at = stop}, plain = {.stop_at = stop};
        if (!rk_ast_any_child_at(n, record, &at) || at.n != stop ||
            !rk_ast_any_child(n, record_any, &plain) || plain.n != stop)
            fail(k, "a true answer does not stop the walk");
    }
}

static void check_kind(RkKind k)
{
    RkNode *n = full_node(k);
    json_t *enc = rk_ast_encode_node(n);
    Seen at = {0}, any = {0}, each = {0};
    if (rk_ast_any_child_at(n, record, &at) ||
        rk_ast_any_child(n, record_any, &any))
        fail(k, "the walk is true though no test was");
    int count = compare(k, &at, enc);
    rk_ast_each_child(n, record_each, &each);
    if (!same_visits(&at, &any))
        fail(k, "rk_ast_any_child visits other children");
    if (!same_visits(&at, &each))
        fail(k, "rk_ast_each_child visits other children");
    check_stops(k, n, count);
    Seen none = {0};
    rk_ast_any_child_at(rk_node_new(k, (RkLoc){1, 1}), record, &none);
    if (none.n)
        fail(k, "a node with no children set has visits");
    json_decref(enc);
}

int main(void)
{
    for (int k = 0; k < RK_KIND_COUNT; k++)
        check_kind((RkKind)k);
    if (failures)
        printf("%d failure(s)\n", failures);
    else
        printf("the visitor reaches every child of all %d kinds, in order\n",
               RK_KIND_COUNT);
    return failures != 0;
}

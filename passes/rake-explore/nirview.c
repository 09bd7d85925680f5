/* nirview.c: the native IR before and after rake-opt, as one diff.
 *
 * Each function is printed in the text form of docs/nir.md
 * (rk_nir_print_func, the form `rakec --emit-native-ir` prints), one row
 * per line, and each row keeps what it came from: the instruction's value
 * id, operation and source location, or the terminator's location.  The
 * two listings of a function are aligned by their longest common
 * subsequence of lines: a row both have is kept ("="), a row only
 * rake-lower wrote is removed ("-"), one only rake-opt wrote is added
 * ("+").  A removed or added instruction whose value id the other side
 * also defines was rewritten in place (`rewritten`: rake-opt keeps ids, so
 * %5's rack.add becoming %5's rack.fma is one value changing form).  Per
 * function the view counts the operations removed and added, and each
 * changed row says which rewrite of rake-opt explains it (optwhy.c).  A `benign`
 * select (the value an exception-capable operation sees in inactive
 * lanes) is marked `aux`: it serves the operation of its location rather
 * than computing it, and the page highlights it more faintly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "explore.h"

typedef struct Row {
    const char *text;
    const char *loc;
    const char *op;
    const char *what; /* func, block, instr, term, end */
    int id;           /* an instruction's value, -1 otherwise */
    bool aux;         /* a benign select: it only feeds inactive lanes safe values */
} Row;

typedef struct Rows {
    Row *v;
    int n;
} Rows;

static char **func_lines(const RkFunc *f, int *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        rk_diag_internal("out of memory");
    rk_nir_print_func(f, m);
    fclose(m);
    int cap = 16;
    char **lines = malloc(sizeof *lines * (size_t)cap);
    *n = 0;
    for (char *p = buf; *p;) {
        char *e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        if (*n == cap)
            lines = realloc(lines, sizeof *lines * (size_t)(cap *= 2));
        lines[(*n)++] = rk_arena_strndup(&rk_heap, p, (size_t)(e - p));
        p = *e ? e + 1 : e;
    }
    free(buf);
    return lines;
}

static void add(Rows *r, const char *what, const char *loc, const char *op, int id)
{
    r->v[r->n] = (Row){NULL, loc, op, what, id, false};
    r->n++;
}

static int row_count(const RkFunc *f)
{
    int n = 2; /* the header and the closing brace */
    for (int i = 0; i < f->nblocks; i++)
        n += (f->nblocks > 1 || f->blocks[i]->nparams) + f->blocks[i]->ninstrs +
             f->blocks[i]->terminated;
    return n;
}

/* The rows of a function, in the order rk_nir_print_func prints them. */
static Rows func_rows(const RkFunc *f)
{
    int nlines;
    char **lines = func_lines(f, &nlines);
    Rows r = {rk_arena_alloc(&rk_heap, sizeof(Row) * (size_t)row_count(f)), 0};
    if (row_count(f) != nlines)
        rk_diag_internal("function %s printed %d lines for %d rows (a line break in an "
                         "instruction's text?)", f->name, nlines, row_count(f));
    add(&r, "func", ex_loc_str(f->loc), NULL, -1);
    for (int i = 0; i < f->nblocks; i++) {
        const RkBlock *b = f->blocks[i];
        if (f->nblocks > 1 || b->nparams)
            add(&r, "block", NULL, NULL, -1);
        for (int j = 0; j < b->ninstrs; j++) {
            add(&r, "instr", ex_loc_str(b->instrs[j]->loc), b->instrs[j]->op, b->instrs[j]->id);
            r.v[r.n - 1].aux = b->instrs[j]->benign;
        }
        if (b->terminated)
            add(&r, "term", ex_loc_str(b->term.loc), NULL, -1);
    }
    add(&r, "end", NULL, NULL, -1);
    for (int i = 0; i < r.n; i++)
        r.v[i].text = lines[i];
    free(lines);
    return r;
}

static json_t *row_json(const Row *r, const char *d, bool rewritten)
{
    json_t *j = json_object();
    json_object_set_new(j, "t", ex_str(r->text));
    json_object_set_new(j, "k", json_string(r->what));
    if (r->loc)
        json_object_set_new(j, "loc", json_string(r->loc));
    if (r->op)
        json_object_set_new(j, "op", json_string(r->op));
    if (r->id >= 0)
        json_object_set_new(j, "id", json_integer(r->id));
    json_object_set_new(j, "d", json_string(d));
    if (rewritten)
        json_object_set_new(j, "rewritten", json_true());
    if (r->aux)
        json_object_set_new(j, "aux", json_true());
    return j;
}

static bool defines(const Rows *r, int id)
{
    for (int i = 0; id >= 0 && i < r->n; i++)
        if (r->v[i].id == id)
            return true;
    return false;
}

static void count_op(json_t *counts, const char *op)
{
    json_t *c = json_object_get(counts, op);
    json_object_set_new(counts, op, json_integer(c ? json_integer_value(c) + 1 : 1));
}

typedef struct Diff {
    json_t *rows, *removed, *added;
    const Rows *a, *b;
    OptWhy why;
} Diff;

static void emit(Diff *d, int side, int i)
{
    const Rows *mine = side <= 0 ? d->a : d->b, *other = side <= 0 ? d->b : d->a;
    const Row *r = &mine->v[i];
    if (side == 0) {
        json_array_append_new(d->rows, row_json(r, "=", false));
        return;
    }
    json_t *j = row_json(r, side < 0 ? "-" : "+", defines(other, r->id));
    const char **why = side < 0 ? d->why.before : d->why.after;
    if (why && r->id >= 0 && why[r->id])
        json_object_set_new(j, "why", json_string(why[r->id]));
    else if (why && r->id < 0 && !strcmp(r->what, "instr"))
        json_object_set_new(j, "why", json_string(ex_opt_renamed(&d->why, side > 0)));
    json_array_append_new(d->rows, j);
    if (r->op)
        count_op(side < 0 ? d->removed : d->added, r->op);
}

/* The longest common subsequence of two functions' lines, after their
 * common prefix and suffix. */
static void align(Diff *d)
{
    const Rows *a = d->a, *b = d->b;
    int lo = 0, ha = a->n, hb = b->n;
    while (lo < ha && lo < hb && !strcmp(a->v[lo].text, b->v[lo].text))
        emit(d, 0, lo++);
    while (ha > lo && hb > lo && !strcmp(a->v[ha - 1].text, b->v[hb - 1].text))
        ha--, hb--;
    int n = ha - lo, m = hb - lo;
    int *t = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof *t);
    if (!t)
        rk_diag_internal("out of memory aligning %d and %d lines", n, m);
#define T(i, j) t[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
    for (int i = n - 1; i >= 0; i--)
        for (int j = m - 1; j >= 0; j--)
            T(i, j) = !strcmp(a->v[lo + i].text, b->v[lo + j].text)
                          ? T(i + 1, j + 1) + 1
                          : T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1);
    int i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && !strcmp(a->v[lo + i].text, b->v[lo + j].text))
            emit(d, 0, lo + i), i++, j++;
        else if (i < n && (j == m || T(i + 1, j) >= T(i, j + 1)))
            emit(d, -1, lo + i++);
        else
            emit(d, 1, lo + j++);
    }
#undef T
    free(t);
    for (int k = ha; k < a->n; k++)
        emit(d, 0, k);
}

static json_t *func_diff(const RkFunc *before, const RkFunc *after)
{
    Rows none = {NULL, 0};
    Rows a = before ? func_rows(before) : none, b = after ? func_rows(after) : none;
    Diff d = {json_array(), json_object(), json_object(), &a, &b, ex_opt_why(before, after)};
    align(&d);
    const RkFunc *f = after ? after : before;
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(f->name));
    json_object_set_new(j, "kind", json_string(f->kind));
    if (ex_loc_str(f->loc))
        json_object_set_new(j, "loc", json_string(ex_loc_str(f->loc)));
    json_object_set_new(j, "removed", d.removed);
    json_object_set_new(j, "added", d.added);
    json_object_set_new(j, "changes", d.why.counts);
    json_object_set_new(j, "rows", d.rows);
    return j;
}

static RkNirModule *decode(json_t *doc)
{
    return doc ? rk_nir_decode(doc) : NULL;
}

static const RkFunc *find(const RkNirModule *m, const char *name)
{
    for (int i = 0; m && i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name))
            return m->funcs[i];
    return NULL;
}

/* Functions in rake-opt's order, then any only rake-lower had. */
json_t *ex_nir_view(json_t *before, json_t *after)
{
    RkNirModule *a = decode(before), *b = decode(after);
    json_t *funcs = json_array();
    for (int i = 0; b && i < b->nfuncs; i++)
        json_array_append_new(funcs, func_diff(find(a, b->funcs[i]->name), b->funcs[i]));
    for (int i = 0; a && i < a->nfuncs; i++)
        if (!find(b, a->funcs[i]->name))
            json_array_append_new(funcs, func_diff(a->funcs[i], NULL));
    json_t *v = json_object();
    json_object_set_new(v, "before", json_boolean(a != NULL));
    json_object_set_new(v, "after", json_boolean(b != NULL));
    json_object_set_new(v, "functions", funcs);
    return v;
}

/* checked.c: rake.checked for people.
 *
 * A copy of the document's declarations in which every node that has a
 * type (`ty`) also says its tier and, for racks and masks, its lanes:
 *   tier  "vector"  a value with one element per lane, in kernel code
 *                   (scratch, rake, tine, run);
 *         "uniform" a scalar in kernel code: one value for every lane;
 *         "slow"    slow code (slow functions, externs, `slow { }` blocks);
 *         "module"  module constants and state.
 *   lanes the profile's lanes for the element (lib/types.c rk_lanes_of),
 *         or in a stack run the lanes of the run's domain (its `note`).
 * and a summary of the masks, in words: every tine (what its mask
 * selects), every through block (which lanes it computes), every sweep
 * (which lanes each arm takes, in priority order, and why every lane is
 * taken) and every `where` of a run.  The words are built from the
 * checked tree, never re-derived: the coverage sentence states what
 * rake-check proved before it wrote the document (docs/checker.md). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "strbuf.h"
#include "explore.h"
#include "profile.h"
#include "types.h"

typedef struct Ctx {
    int f32_lanes;
    const char *tier;   /* the enclosing declaration's: vector, slow, module */
    int domain_lanes;   /* inside a stack run, its racks' lanes; else 0 */
    json_t *summary;
} Ctx;

/* --- expressions as text --------------------------------------------------- */

static const char *kind(json_t *n)
{
    const char *k = json_string_value(json_object_get(n, "k"));
    return k ? k : "";
}

static const char *sval(json_t *n, const char *key)
{
    const char *s = json_string_value(json_object_get(n, key));
    return s ? s : "";
}

static int prec(const char *op)
{
    static const char *const levels[][6] = {
        {"or"}, {"and"}, {"=", "!=", "<", "<=", ">", ">="}, {"+", "-", "|", "^"},
        {"*", "/", "%", "&", "<<", ">>"},
    };
    for (int l = 0; l < 5; l++)
        for (int i = 0; i < 6 && levels[l][i]; i++)
            if (!strcmp(op, levels[l][i]))
                return l + 1;
    return 6;
}

static void expr(RkBuf *b, json_t *n);

static void operand(RkBuf *b, json_t *n, int parent, bool right)
{
    bool paren = !strcmp(kind(n), "binary") &&
                 (prec(sval(n, "op")) < parent || (right && prec(sval(n, "op")) == parent));
    rk_buf_put(b, paren ? "(" : "");
    expr(b, n);
    rk_buf_put(b, paren ? ")" : "");
}

static void args(RkBuf *b, json_t *a)
{
    rk_buf_put(b, "(");
    for (size_t i = 0; i < json_array_size(a); i++) {
        rk_buf_put(b, i ? ", " : "");
        expr(b, json_array_get(a, i));
    }
    rk_buf_put(b, ")");
}

static void expr(RkBuf *b, json_t *n)
{
    const char *k = kind(n);
    if (!strcmp(k, "tine_ref")) {
        rk_buf_put(b, "#");
        rk_buf_put(b, sval(n, "name"));
        if (json_is_true(json_object_get(n, "applied")))
            args(b, json_object_get(n, "args"));
    } else if (!strcmp(k, "binary")) {
        int p = prec(sval(n, "op"));
        operand(b, json_object_get(n, "lhs"), p, false);
        rk_buf_put(b, " ");
        rk_buf_put(b, sval(n, "op"));
        rk_buf_put(b, " ");
        operand(b, json_object_get(n, "rhs"), p, true);
    } else if (!strcmp(k, "unary")) {
        rk_buf_put(b, sval(n, "op"));
        rk_buf_put(b, isalpha((unsigned char)sval(n, "op")[0]) ? " " : "");
        operand(b, json_object_get(n, "operand"), 6, false);
    } else if (!strcmp(k, "gaps")) {
        operand(b, json_object_get(n, "operand"), 6, false);
        rk_buf_put(b, " gaps");
    } else if (!strcmp(k, "uniform")) {
        rk_buf_put(b, "<");
        expr(b, json_object_get(n, "operand"));
        rk_buf_put(b, ">");
    } else if (!strcmp(k, "call")) {
        rk_buf_put(b, sval(n, "name"));
        args(b, json_object_get(n, "args"));
    } else if (!strcmp(k, "field")) {
        expr(b, json_object_get(n, "object"));
        rk_buf_put(b, ".");
        rk_buf_put(b, sval(n, "name"));
    } else if (!strcmp(k, "index")) {
        expr(b, json_object_get(n, "object"));
        rk_buf_put(b, "[");
        expr(b, json_object_get(n, "index"));
        rk_buf_put(b, "]");
    } else if (!strcmp(k, "convert") || !strcmp(k, "bitcast")) {
        rk_buf_put(b, sval(json_object_get(n, "type"), "name"));
        rk_buf_put(b, "(");
        expr(b, json_object_get(n, "operand"));
        rk_buf_put(b, ")");
    } else if (!strcmp(k, "name")) {
        rk_buf_put(b, sval(n, "name"));
    } else if (!strcmp(k, "int") || !strcmp(k, "float") || !strcmp(k, "bool")) {
        rk_buf_put(b, sval(n, "text"));
    } else if (!strcmp(k, "wildcard")) {
        rk_buf_put(b, "_");
    } else {
        rk_buf_put(b, "…");
    }
}

static const char *text_of(json_t *n)
{
    RkBuf b = {0};
    rk_buf_put(&b, "");
    expr(&b, n);
    return b.s;
}

/* --- lanes and tiers -------------------------------------------------------- */

static void annotate_type(json_t *n, const Ctx *c)
{
    const char *ty = json_string_value(json_object_get(n, "ty"));
    if (!ty || !c->tier)
        return;
    const RkType *t = rk_type_parse(ty);
    while (t && t->kind == RK_T_ARRAY && t->inner)
        t = t->inner;
    bool lanewise = t && (t->kind == RK_T_RACK || t->kind == RK_T_MASK || t->kind == RK_T_COLUMN);
    const char *tier = c->tier;
    if (!strcmp(tier, "vector") && !lanewise)
        tier = "uniform";
    json_object_set_new(n, "tier", json_string(tier));
    if (lanewise && strcmp(tier, "slow") != 0) {
        int lanes = c->domain_lanes ? c->domain_lanes : rk_lanes_of(t->elem, c->f32_lanes);
        json_object_set_new(n, "lanes", json_integer(lanes));
    }
}

static void summarise(json_t *n, const char *what, const char *words, json_t *more, Ctx *c)
{
    json_t *e = json_object();
    json_object_set(e, "loc", json_object_get(n, "loc"));
    json_object_set_new(e, "what", json_string(what));
    json_object_set_new(e, "words", ex_str(words));
    if (more)
        json_object_set_new(e, "arms", more);
    json_object_set_new(n, "words", ex_str(words));
    json_array_append_new(c->summary, e);
}

static const char *lanes_phrase(json_t *n)
{
    json_int_t l = json_integer_value(json_object_get(n, "lanes"));
    return l ? rk_arena_printf(&rk_heap, " (%lld lanes)", (long long)l) : "";
}

/* "the lanes where P holds", or for `P gaps` where P doesn't */
static const char *where(json_t *pred)
{
    if (!strcmp(kind(pred), "gaps"))
        return rk_arena_printf(&rk_heap, "the lanes where %s does not hold (%s)",
                               text_of(json_object_get(pred, "operand")), text_of(pred));
    return rk_arena_printf(&rk_heap, "the lanes where %s holds", text_of(pred));
}

/* A global tine's declaration has no type of its own: its predicate's. */
static void tine_words(json_t *n, Ctx *c)
{
    json_t *pred = json_object_get(n, "pred"), *typed = json_object_get(n, "ty") ? n : pred;
    annotate_type(typed, c);
    const char *w = rk_arena_printf(&rk_heap, "#%s is a %s mask%s: %s", sval(n, "name"),
                                    sval(typed, "ty"), lanes_phrase(typed), where(pred));
    summarise(n, "tine", w, NULL, c);
}

static void through_words(json_t *n, Ctx *c)
{
    json_t *els = json_object_get(n, "else");
    const char *w = rk_arena_printf(
        &rk_heap, "computes %s%s in %s; %s", sval(n, "into"), lanes_phrase(n),
        where(json_object_get(n, "pred")),
        els ? rk_arena_printf(&rk_heap, "the other lanes get %s", text_of(els))
            : "the other lanes are undefined, and rake-check proved nothing reads them");
    summarise(n, "through", w, NULL, c);
}

static void sweep_words(json_t *n, Ctx *c)
{
    json_t *arms = json_object_get(n, "arms"), *list = json_array();
    bool wildcard = false;
    for (size_t i = 0; i < json_array_size(arms); i++) {
        json_t *a = json_array_get(arms, i), *p = json_object_get(a, "pred");
        const char *value = text_of(json_object_get(a, "value"));
        const char *w;
        if (!strcmp(kind(p), "wildcard")) {
            wildcard = true;
            w = rk_arena_printf(&rk_heap, "arm %zu (_) gives %s in every lane no earlier arm took",
                                i + 1, value);
        } else {
            w = rk_arena_printf(&rk_heap, "arm %zu gives %s in %s%s", i + 1, value, where(p),
                                i ? ", unless an earlier arm took them" : "");
        }
        json_array_append_new(list, json_pack("{s:O, s:o}", "loc", json_object_get(a, "loc"),
                                              "words", ex_str(w)));
        json_object_set_new(a, "words", ex_str(w));
    }
    const char *cover = wildcard
        ? "every lane is taken: the last arm, _, takes whatever the others leave"
        : "every lane is taken by some arm: rake-check proved the predicates cover every lane "
          "(it rejects a sweep with a gap, naming a lane no arm takes)";
    summarise(n, "sweep", rk_arena_printf(&rk_heap, "%zu arms in priority order; %s",
                                          json_array_size(arms), cover),
              list, c);
}

static void where_words(json_t *n, Ctx *c)
{
    json_t *pred = json_object_get(n, "where");
    if (!pred)
        return;
    const char *w = !strcmp(kind(n), "compact")
        ? rk_arena_printf(&rk_heap, "keeps the records where %s holds, in order", text_of(pred))
        : rk_arena_printf(&rk_heap, "writes the new fields only in the records where %s holds",
                          text_of(pred));
    summarise(n, kind(n), w, NULL, c);
}

static void words(json_t *n, Ctx *c)
{
    const char *k = kind(n);
    if (!strcmp(k, "tine"))
        tine_words(n, c);
    else if (!strcmp(k, "through"))
        through_words(n, c);
    else if (!strcmp(k, "sweep"))
        sweep_words(n, c);
    else if (!strcmp(k, "with") || !strcmp(k, "compact"))
        where_words(n, c);
}

/* --- the walk --------------------------------------------------------------- */

static void walk(json_t *n, Ctx *c);

static void children(json_t *n, Ctx *c)
{
    const char *key;
    json_t *v;
    json_object_foreach(n, key, v) {
        if (json_is_object(v)) {
            walk(v, c);
        } else if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) walk(e, c);
        }
    }
}

/* The lanes of a stack run's racks, from its `domain N` note. */
static int domain_lanes(json_t *run, int f32_lanes)
{
    int bits = 0;
    if (sscanf(sval(run, "note"), "domain %d", &bits) != 1 || bits <= 0)
        return 0;
    return f32_lanes * 32 / bits;
}

static void decl(json_t *d, Ctx *c)
{
    const char *k = kind(d);
    Ctx inner = *c;
    inner.domain_lanes = 0;
    if (!strcmp(k, "scratch") || !strcmp(k, "rake") || !strcmp(k, "tine"))
        inner.tier = "vector";
    else if (!strcmp(k, "run"))
        inner.tier = "vector", inner.domain_lanes = domain_lanes(d, c->f32_lanes);
    else if (!strcmp(k, "slow") || !strcmp(k, "extern"))
        inner.tier = "slow";
    else if (!strcmp(k, "const") || !strcmp(k, "state") || !strcmp(k, "embed"))
        inner.tier = "module";
    else
        inner.tier = NULL;
    walk(d, &inner);
}

static void walk(json_t *n, Ctx *c)
{
    if (!json_is_object(n))
        return;
    Ctx inner = *c;
    if (!strcmp(kind(n), "slow_block"))
        inner.tier = "slow", inner.domain_lanes = 0;
    annotate_type(n, &inner);
    words(n, &inner);
    children(n, &inner);
}

json_t *ex_checked_view(json_t *doc)
{
    const char *target = json_string_value(json_object_get(doc, "target"));
    const RkProfile *p = target ? rk_profile_find(target) : NULL;
    Ctx c = {p ? p->lanes : 0, NULL, 0, json_array()};
    json_t *decls = json_deep_copy(json_object_get(doc, "decls"));
    size_t i;
    json_t *d;
    json_array_foreach(decls, i, d) decl(d, &c);
    json_t *v = json_object();
    json_object_set_new(v, "target", json_string(target ? target : ""));
    json_object_set_new(v, "f32_lanes", json_integer(c.f32_lanes));
    json_object_set_new(v, "decls", decls);
    json_object_set_new(v, "summary", c.summary);
    return v;
}

/* ast.c: node construction, the table-driven JSON form of the tree and
 * its child visitor.
 *
 * Each node is a JSON object {"k": KIND, "loc": "L:C", ...fields...}.  The
 * fields a kind has are listed once, in `specs` below, with their JSON key,
 * their C member and whether they may be absent.  Encoding writes them in
 * table order, so output is deterministic; decoding rejects missing
 * required fields, unknown keys and values of the wrong JSON type, each at
 * the value's place in the input.  The same table drives the child
 * visitor (rk_ast_any_child and its kin), so the passes' walkers that must reach every child
 * (free names, calls, memory reads, ...) reach the children the document
 * holds, no more and no fewer. */
#include "ast.h"
#include "strmap.h"

#include <stddef.h>
#include <string.h>

#include "arena.h"
#include "ir.h"

static const char *kind_names[] = {
#define X(k, s) s,
    RK_NODE_KINDS(X)
#undef X
};

const char *rk_kind_name(RkKind kind) { return kind_names[kind]; }

bool rk_kind_is_type(RkKind k) { return k >= RK_TYPE_NAME; }

bool rk_kind_is_expr(RkKind k)
{
    return k >= RK_INT && k <= RK_LANES && k != RK_FIELD_INIT;
}

int64_t rk_ast_literal_step(const RkNode *step)
{
    if (!step)
        return 1;
    if (step->kind == RK_UNIFORM) /* by <3> */
        step = step->operand;
    bool neg = false;
    uint64_t mag = 0;
    if (step && step->kind == RK_INT && step->text && rk_int_literal(step->text, &neg, &mag) &&
        !neg && mag > 0 && mag <= INT32_MAX)
        return (int64_t)mag;
    return 0;
}

bool rk_int_literal(const char *s, bool *neg, uint64_t *mag)
{
    *neg = *s == '-';
    if (*neg)
        s++;
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    uint64_t v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        int d = *s >= '0' && *s <= '9'   ? *s - '0'
                : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                         : 99;
        if (d >= base || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *mag = v;
    return true;
}

RkNode *rk_node_new(RkKind kind, RkLoc loc)
{
    RkNode *n = RK_NEW(RkNode);
    n->kind = kind;
    n->loc = loc;
    n->slot = -1;
    return n;
}

void rk_list_push(RkListBuilder *b, RkNode *n)
{
    if (b->len == b->cap) {
        int cap = b->cap ? 2 * b->cap : 4;
        RkNode **items = rk_arena_alloc(&rk_heap, sizeof *items * (size_t)cap);
        if (b->len)
            memcpy(items, b->items, sizeof *items * (size_t)b->len);
        b->items = items;
        b->cap = cap;
    }
    b->items[b->len++] = n;
}

RkList rk_list_finish(RkListBuilder *b)
{
    RkList l = {b->items, b->len};
    b->items = NULL;
    b->len = b->cap = 0;
    return l;
}

/* --- the field table ------------------------------------------------------ */

typedef enum {
    F_STR,      /* required string */
    F_OPT_STR,  /* string, absent when NULL */
    F_NODE,     /* required node */
    F_OPT_NODE, /* node, absent when NULL */
    F_LIST,     /* list, always present */
    F_OPT_LIST, /* list, absent when empty */
    F_FLAG,     /* bool, present only when true */
} FieldType;

typedef struct Field {
    const char *key;
    FieldType type;
    size_t off;
} Field;

#define O(m) offsetof(RkNode, m)
#define S(k, m) {k, F_STR, O(m)}
#define SO(k, m) {k, F_OPT_STR, O(m)}
#define N(k, m) {k, F_NODE, O(m)}
#define NO(k, m) {k, F_OPT_NODE, O(m)}
#define L(k, m) {k, F_LIST, O(m)}
#define LO(k, m) {k, F_OPT_LIST, O(m)}
#define B(k, m) {k, F_FLAG, O(m)}
#define END {NULL, F_STR, 0}

enum { MAX_FIELDS = 8 };
static const Field specs[RK_KIND_COUNT][MAX_FIELDS] = {
    [RK_PACK] = {S("name", name), L("fields", fields), END},
    [RK_RECORD] = {S("name", name), SO("header", text), L("fields", fields), END},
    [RK_UNION] = {S("name", name), SO("header", text), L("fields", fields), END},
    [RK_TINE] = {S("name", name), LO("params", params), N("pred", pred), END},
    [RK_SCRATCH] = {S("name", name), L("params", params), N("ret", ret),
                    L("body", body), END},
    [RK_RAKE] = {S("name", name), L("params", params), N("ret", ret),
                 L("body", body), END},
    [RK_RUN] = {S("name", name), L("params", params), NO("ret", ret),
                L("body", body), END},
    [RK_SLOW] = {S("name", name), L("params", params), NO("ret", ret),
                 L("body", body), END},
    [RK_EXTERN] = {S("name", name), L("params", params), NO("ret", ret),
                   SO("header", text), END},
    [RK_STATE] = {S("name", name), N("type", type), NO("value", value), END},
    [RK_CONST] = {S("name", name), N("type", type), N("value", value), END},
    [RK_EMBED] = {S("name", name), S("path", text), END},
    [RK_PARAM] = {S("name", name), N("type", type), B("uniform", uniform), END},
    [RK_FIELD_DECL] = {S("name", name), N("type", type), END},
    [RK_LET] = {S("name", name), NO("type", type), B("uniform", uniform),
                N("value", value), END},
    [RK_FUSED] = {S("name", name), NO("type", type), N("value", value), END},
    [RK_VAR] = {S("name", name), NO("type", type), N("value", value), END},
    [RK_ASSIGN] = {N("target", target), N("value", value), END},
    [RK_RETURN] = {NO("value", value), END},
    [RK_IF] = {N("cond", cond), L("body", body), LO("else", else_body), END},
    [RK_WHILE] = {N("cond", cond), L("body", body), END},
    [RK_FOR] = {S("name", name), NO("type", type), B("uniform", uniform),
                N("from", from), N("to", to), NO("by", step), L("body", body),
                END},
    [RK_REPEAT] = {S("name", name), NO("type", type), B("uniform", uniform),
                   N("from", from), N("to", to), L("body", body), END},
    [RK_BREAK] = {END},
    [RK_CONTINUE] = {END},
    [RK_THROUGH] = {N("pred", pred), NO("else", value), S("into", name),
                    L("body", body), END},
    [RK_SWEEP] = {L("arms", arms), END},
    [RK_ARM] = {N("pred", pred), N("value", value), END},
    [RK_WITH] = {N("stack", stack), L("fields", fields), NO("where", pred), END},
    [RK_COMPACT] = {N("stack", stack), LO("fields", fields), N("where", pred),
                    END},
    [RK_EXPR] = {N("value", value), END},
    [RK_INT] = {S("text", text), END},
    [RK_FLOAT] = {S("text", text), END},
    [RK_BOOL] = {S("text", text), END},
    [RK_STRING] = {S("text", text), END},
    [RK_NAME] = {S("name", name), END},
    [RK_UNIFORM] = {N("operand", operand), END},
    [RK_TINE_REF] = {S("name", name), B("applied", applied), LO("args", args),
                     END},
    [RK_GAPS] = {N("operand", operand), END},
    [RK_WILDCARD] = {END},
    [RK_BINARY] = {S("op", op), N("lhs", lhs), N("rhs", rhs), END},
    [RK_UNARY] = {S("op", op), N("operand", operand), END},
    [RK_FIELD] = {N("object", object), S("name", name), END},
    [RK_INDEX] = {N("object", object), N("index", index),
                  B("unchecked", unchecked), END},
    [RK_CALL] = {S("name", name), L("args", args), END},
    [RK_CONVERT] = {N("type", type), N("operand", operand), END},
    [RK_WRAP] = {N("type", type), N("operand", operand), END},
    [RK_BITCAST] = {N("type", type), N("operand", operand), END},
    [RK_IF_EXPR] = {N("cond", cond), N("then", then_e), N("else", else_e), END},
    [RK_SHUFFLE] = {L("args", args), L("indices", elems), END},
    [RK_RECORD_LIT] = {S("name", name), L("fields", fields), END},
    [RK_STACK_LIT] = {S("name", name), L("fields", fields), END},
    [RK_ARRAY_LIT] = {L("elems", elems), END},
    [RK_ARRAY_FILL] = {N("value", value), N("count", len), END},
    [RK_SLOW_BLOCK] = {L("body", body), B("discard", discard), END},
    [RK_LANE_INDEX] = {END},
    [RK_LANES] = {END},
    [RK_FIELD_INIT] = {S("name", name), N("value", value), END},
    [RK_TYPE_NAME] = {S("name", name), END},
    [RK_TYPE_ARRAY] = {N("len", len), N("elem", elem), END},
    [RK_TYPE_VIEW] = {B("mut", is_mut), N("elem", elem), END},
    [RK_TYPE_STACK] = {S("name", name), END},
    [RK_TYPE_PACK] = {S("name", name), END},
    [RK_TYPE_PTR] = {B("const", is_const), N("elem", elem), END},
    [RK_TYPE_FN] = {L("params", params), N("ret", ret), END},
    [RK_TYPE_MUT] = {N("elem", elem), END},
    [RK_TYPE_UNIT] = {END},
};

/* Annotations any node may carry after rake-check. */
static const Field notes[] = {SO("ty", ty), SO("ref", ref), SO("note", note),
                              END};

#define AT(n, f, T) (*(T *)((char *)(n) + (f)->off))

/* --- encoding ------------------------------------------------------------- */

static json_t *encode_list(RkList l)
{
    json_t *a = json_array();
    for (int i = 0; i < l.len; i++)
        json_array_append_new(a, rk_ast_encode_node(l.items[i]));
    return a;
}

static void encode_field(json_t *o, const RkNode *n, const Field *f)
{
    switch (f->type) {
    case F_STR:
    case F_OPT_STR: {
        const char *s = AT(n, f, const char *);
        if (s)
            json_object_set_new(o, f->key, json_string(s));
        else if (f->type == F_STR)
            json_object_set_new(o, f->key, json_string(""));
        break;
    }
    case F_NODE:
    case F_OPT_NODE: {
        const RkNode *c = AT(n, f, RkNode *);
        if (c)
            json_object_set_new(o, f->key, rk_ast_encode_node(c));
        else if (f->type == F_NODE)
            json_object_set_new(o, f->key, json_null());
        break;
    }
    case F_LIST:
    case F_OPT_LIST: {
        RkList l = AT(n, f, RkList);
        if (l.len || f->type == F_LIST)
            json_object_set_new(o, f->key, encode_list(l));
        break;
    }
    case F_FLAG:
        if (AT(n, f, bool))
            json_object_set_new(o, f->key, json_true());
        break;
    }
}

json_t *rk_ast_encode_node(const RkNode *n)
{
    json_t *o = json_object();
    json_object_set_new(o, "k", json_string(kind_names[n->kind]));
    json_object_set_new(o, "loc", rk_ir_loc(n->loc));
    for (const Field *f = specs[n->kind]; f->key; f++)
        encode_field(o, n, f);
    for (const Field *f = notes; f->key; f++)
        encode_field(o, n, f);
    if (n->slot >= 0)
        json_object_set_new(o, "slot", json_integer(n->slot));
    return o;
}

json_t *rk_ast_encode(const RkModule *m, const char *kind)
{
    json_t *doc = rk_ir_new_doc(kind, 1, m->source, m->target);
    if (m->extra) {
        const char *key;
        json_t *v;
        json_object_foreach(m->extra, key, v)
            json_object_set(doc, key, v);
    }
    json_object_set_new(doc, "decls", encode_list(m->decls));
    return doc;
}

/* --- children ------------------------------------------------------------ */

static const char *pointer_in(const RkNode *at, const RkNode *n, const char *path)
{
    if (at == n)
        return path;
    for (const Field *f = specs[at->kind]; f->key; f++) {
        if (f->type == F_NODE || f->type == F_OPT_NODE) {
            const RkNode *c = AT(at, f, RkNode *);
            const char *p = c ? pointer_in(c, n, rk_arena_printf(&rk_heap, "%s/%s", path, f->key))
                              : NULL;
            if (p)
                return p;
        } else if (f->type == F_LIST || f->type == F_OPT_LIST) {
            RkList l = AT(at, f, RkList);
            for (int i = 0; i < l.len; i++) {
                const char *p = pointer_in(
                    l.items[i], n, rk_arena_printf(&rk_heap, "%s/%s/%d", path, f->key, i));
                if (p)
                    return p;
            }
        }
    }
    return NULL;
}

const RkType *rk_ast_type(const RkModule *m, const RkNode *n, const char *pass)
{
    const RkType *t = n->ty ? rk_type_parse(n->ty) : NULL;
    if (t)
        return t;
    const char *at = m ? rk_ast_pointer(m, n) : NULL;
    if (at)
        rk_ir_fail_at(at, "this %s has %s \"ty\" (rake-check types every node %s reads)",
                      rk_kind_name(n->kind), n->ty ? "an unreadable" : "no", pass);
    rk_diag_internal("%s: %s at %d:%d has no type", pass, rk_kind_name(n->kind), n->loc.line,
                     n->loc.col);
}

const char *rk_ast_pointer(const RkModule *m, const RkNode *n)
{
    for (int i = 0; i < m->decls.len; i++) {
        const char *p = pointer_in(m->decls.items[i], n, rk_arena_printf(&rk_heap, "/decls/%d", i));
        if (p)
            return p;
    }
    return NULL;
}

bool rk_ast_any_child_at(RkNode *n, RkChildAtTest test, void *ctx)
{
    for (const Field *f = specs[n->kind]; f->key; f++) {
        if (f->type == F_NODE || f->type == F_OPT_NODE) {
            RkNode *c = AT(n, f, RkNode *);
            if (c && test(c, f->key, -1, ctx))
                return true;
        } else if (f->type == F_LIST || f->type == F_OPT_LIST) {
            RkList l = AT(n, f, RkList);
            for (int i = 0; i < l.len; i++)
                if (test(l.items[i], f->key, i, ctx))
                    return true;
        }
    }
    return false;
}

/* The plain callbacks, behind rk_ast_any_child_at. */
typedef struct Plain {
    RkChildTest test;
    RkChildVisit visit;
    void *ctx;
} Plain;

static bool plain_child(RkNode *child, const char *key, int index, void *ctx)
{
    (void)key;
    (void)index;
    Plain *p = ctx;
    if (p->visit) {
        p->visit(child, p->ctx);
        return false;
    }
    return p->test(child, p->ctx);
}

bool rk_ast_any_child(RkNode *n, RkChildTest test, void *ctx)
{
    Plain p = {test, NULL, ctx};
    return rk_ast_any_child_at(n, plain_child, &p);
}

void rk_ast_each_child(RkNode *n, RkChildVisit visit, void *ctx)
{
    Plain p = {NULL, visit, ctx};
    rk_ast_any_child_at(n, plain_child, &p);
}

/* --- decoding ------------------------------------------------------------- */

static RkNode *decode_node(json_t *j);

static RkList decode_list(json_t *a)
{
    RkListBuilder b = {0};
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        rk_ir_push_index(i);
        rk_list_push(&b, decode_node(v));
        rk_ir_pop();
    }
    return rk_list_finish(&b);
}

static void decode_field(json_t *j, RkNode *n, const Field *f)
{
    bool required = f->type == F_STR || f->type == F_NODE || f->type == F_LIST;
    switch (f->type) {
    case F_STR:
    case F_OPT_STR: {
        const char *s = rk_ir_get_str(j, f->key, required);
        AT(n, f, const char *) = s ? rk_arena_strdup(&rk_heap, s) : NULL;
        break;
    }
    case F_NODE:
    case F_OPT_NODE: {
        json_t *c = rk_ir_get(j, f->key, required);
        if (c && !json_is_null(c)) {
            rk_ir_push_key(f->key);
            AT(n, f, RkNode *) = decode_node(c);
            rk_ir_pop();
        } else if (required) {
            rk_ir_push_key(f->key);
            rk_ir_fail("expected a node");
        }
        break;
    }
    case F_LIST:
    case F_OPT_LIST: {
        json_t *a = rk_ir_get_array(j, f->key, required);
        if (a) {
            rk_ir_push_key(f->key);
            AT(n, f, RkList) = decode_list(a);
            rk_ir_pop();
        }
        break;
    }
    case F_FLAG:
        AT(n, f, bool) = rk_ir_get_bool(j, f->key);
        break;
    }
}

static bool known_key(RkKind k, const char *key)
{
    if (!strcmp(key, "k") || !strcmp(key, "loc") || !strcmp(key, "slot"))
        return true;
    for (const Field *f = specs[k]; f->key; f++)
        if (!strcmp(f->key, key))
            return true;
    for (const Field *f = notes; f->key; f++)
        if (!strcmp(f->key, key))
            return true;
    return false;
}

static RkKind kind_from_name(const char *s)
{
    for (int k = 0; k < RK_KIND_COUNT; k++)
        if (!strcmp(kind_names[k], s))
            return (RkKind)k;
    rk_ir_push_key("k");
    rk_ir_fail("unknown node kind \"%s\"", s);
}

static RkNode *decode_node(json_t *j)
{
    rk_ir_expect_object(j);
    RkKind k = kind_from_name(rk_ir_get_str(j, "k", true));
    RkNode *n = rk_node_new(k, rk_ir_get_loc(j));
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        if (!known_key(k, key)) {
            rk_ir_push_key(key);
            rk_ir_fail("unexpected key \"%s\" in a %s node", key,
                       kind_names[k]);
        }
    }
    for (const Field *f = specs[k]; f->key; f++)
        decode_field(j, n, f);
    for (const Field *f = notes; f->key; f++)
        decode_field(j, n, f);
    n->slot = (int)rk_ir_get_int(j, "slot", false, -1);
    return n;
}

struct RkDeclIndex {
    RkStrMap tines, others;
    int indexed;
};

RkNode *rk_ast_find_decl(RkModule *m, const char *name, bool tine)
{
    if (!m->index)
        m->index = RK_NEW(struct RkDeclIndex);
    struct RkDeclIndex *x = m->index;
    for (; x->indexed < m->decls.len; x->indexed++) {
        RkNode *d = m->decls.items[x->indexed];
        if (d->name)
            rk_strmap_add(d->kind == RK_TINE ? &x->tines : &x->others, d->name, d);
    }
    return rk_strmap_get(tine ? &x->tines : &x->others, name);
}

RkModule *rk_ast_decode(json_t *root)
{
    RkModule *m = RK_NEW(RkModule);
    m->source = rk_ir_get_str(root, "source", true);
    m->target = rk_ir_get_str(root, "target", false);
    json_t *decls = rk_ir_get_array(root, "decls", true);
    rk_ir_push_key("decls");
    m->decls = decode_list(decls);
    rk_ir_pop();
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (!strcmp(key, "ir") || !strcmp(key, "version") ||
            !strcmp(key, "source") || !strcmp(key, "target") ||
            !strcmp(key, "decls"))
            continue;
        if (!m->extra)
            m->extra = json_object();
        json_object_set(m->extra, key, v);
    }
    return m;
}

/* ast.h: the syntax tree of a Rake program, shared by rake.ast and
 * rake.checked.
 *
 * One struct, RkNode, serves every construct (as in chibicc): a node has a
 * kind, a location and the handful of named children its kind uses.  Which
 * children a kind has, and under which JSON keys, is one table in ast.c;
 * the generic encoder and decoder walk that table, so the C names and the
 * JSON names cannot drift apart, and so does the child visitor
 * (rk_ast_any_child), so a pass that walks every child of a node never
 * names them and cannot miss one.  The checker adds annotations (`ty`, `ref`,
 * ...) to the same nodes; they are encoded only when set, so a rake.ast
 * document never carries them. */
#ifndef RK_AST_H
#define RK_AST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "types.h"

#define RK_NODE_KINDS(X)                                                      \
    /* definitions */                                                         \
    X(PACK, "pack") X(RECORD, "record") X(UNION, "union") X(TINE, "tine")     \
    X(SCRATCH, "scratch") X(RAKE, "rake") X(RUN, "run") X(SLOW, "slow")       \
    X(EXTERN, "extern") X(STATE, "state") X(CONST, "const")                   \
    X(EMBED, "embed") X(PARAM, "param") X(FIELD_DECL, "field_decl")           \
    /* statements */                                                          \
    X(LET, "let") X(FUSED, "fused") X(VAR, "var") X(ASSIGN, "assign")         \
    X(RETURN, "return") X(IF, "if") X(WHILE, "while") X(FOR, "for")           \
    X(REPEAT, "repeat") X(BREAK, "break") X(CONTINUE, "continue")             \
    X(THROUGH, "through") X(SWEEP, "sweep") X(ARM, "arm") X(WITH, "with")     \
    X(COMPACT, "compact") X(EXPR, "expr")                                     \
    /* expressions */                                                         \
    X(INT, "int") X(FLOAT, "float") X(BOOL, "bool") X(STRING, "string")       \
    X(NAME, "name") X(UNIFORM, "uniform") X(TINE_REF, "tine_ref")             \
    X(GAPS, "gaps") X(WILDCARD, "wildcard") X(BINARY, "binary")               \
    X(UNARY, "unary") X(FIELD, "field") X(INDEX, "index") X(CALL, "call")     \
    X(CONVERT, "convert") X(WRAP, "wrap") X(BITCAST, "bitcast")               \
    X(IF_EXPR, "if_expr") X(SHUFFLE, "shuffle") X(RECORD_LIT, "record_lit")   \
    X(STACK_LIT, "stack_lit") X(ARRAY_LIT, "array_lit")                       \
    X(ARRAY_FILL, "array_fill") X(SLOW_BLOCK, "slow_block")                   \
    X(LANE_INDEX, "lane_index") X(LANES, "lanes") X(FIELD_INIT, "field_init") \
    /* type syntax */                                                         \
    X(TYPE_NAME, "type") X(TYPE_ARRAY, "array_type") X(TYPE_VIEW, "view_type")\
    X(TYPE_STACK, "stack_type") X(TYPE_PACK, "pack_type")                     \
    X(TYPE_PTR, "ptr_type") X(TYPE_FN, "fn_type") X(TYPE_MUT, "mut_type")     \
    X(TYPE_UNIT, "unit_type")

typedef enum RkKind {
#define X(k, s) RK_##k,
    RK_NODE_KINDS(X)
#undef X
    RK_KIND_COUNT
} RkKind;

typedef struct RkNode RkNode;

typedef struct RkList {
    RkNode **items;
    int len;
} RkList;

struct RkNode {
    RkKind kind;
    RkLoc loc;
    /* names and spellings */
    const char *name; /* defined or referenced name, field, callee, tine */
    const char *op;   /* operator spelling */
    const char *text; /* literal spelling, string, header or file path */
    /* children */
    RkNode *type;    /* declared type (type syntax) */
    RkNode *ret;     /* declared result type */
    RkNode *lhs, *rhs;
    RkNode *operand; /* unary, gaps, uniform mark, conversion */
    RkNode *cond, *then_e, *else_e;
    RkNode *value;   /* bound or assigned value, fallback, arm result */
    RkNode *target;  /* assigned place */
    RkNode *object;  /* field and index access */
    RkNode *index;
    RkNode *pred;    /* tine body, through header, arm, where */
    RkNode *from, *to, *step;
    RkNode *stack;   /* with / compact */
    RkNode *elem;    /* element type */
    RkNode *len;     /* array length */
    RkList params, body, else_body, args, arms, fields, elems;
    /* flags */
    bool uniform;    /* <name: T>, for <i: T>, let <x: T> */
    bool is_mut;
    bool is_const;
    bool unchecked;
    bool applied;    /* #t(args) rather than #t */
    bool discard;    /* slow { ...; } ends with ';' */
    bool has_else;   /* if statement with an else part */
    /* annotations added by rake-check (absent in rake.ast) */
    const char *ty;  /* semantic type, in rk_type syntax */
    const char *ref; /* what a name resolves to */
    const char *note;/* kind-specific extra (callee kind, literal bits) */
    int slot;        /* numbering for locals, tines, masks (-1 = none) */
};

typedef struct RkModule {
    const char *source;
    const char *target; /* NULL in rake.ast */
    RkList decls;
    json_t *extra;      /* further top-level keys, kept as they are */
    struct RkDeclIndex *index; /* rk_ast_find_decl's, built on first use */
} RkModule;

/* The module's first definition named name: a tine (tine true), or any
 * other definition.  Hashed, so lookups don't grow with the module; the
 * index follows decls as they are appended. */
RkNode *rk_ast_find_decl(RkModule *m, const char *name, bool tine);

/* The JSON pointer of node n in the module's document ("/decls/2/params/0"),
 * for a located input error about it; NULL if n is not in the tree (a node
 * a pass made). */
const char *rk_ast_pointer(const RkModule *m, const RkNode *n);

/* Node n's type from rake-check's "ty".  A node of m's document without
 * a readable one is not what rake-check writes: an input error at the
 * node (exit 2); a node `pass` made itself without one is its internal
 * error.  m may be NULL (then only the latter). */
const RkType *rk_ast_type(const RkModule *m, const RkNode *n, const char *pass);

RkNode *rk_node_new(RkKind kind, RkLoc loc);
const char *rk_kind_name(RkKind kind);
bool rk_kind_is_expr(RkKind kind);
bool rk_kind_is_type(RkKind kind);

/* Growable lists for building. */
typedef struct RkListBuilder {
    RkNode **items;
    int len, cap;
} RkListBuilder;
void rk_list_push(RkListBuilder *b, RkNode *n);
RkList rk_list_finish(RkListBuilder *b);

/* An integer literal's spelling: decimal (a leading zero is still
 * decimal), or 0x/0X hex, optionally negative.  False on overflow of
 * 64 bits or a malformed spelling. */
bool rk_int_literal(const char *text, bool *neg, uint64_t *magnitude);

/* A counted loop's step that needs no check at run time: an integer
 * literal from 1 to 2^31 - 1, bare or marked (`by 4`, `by <4>`); no step
 * at all is 1.  Its value, or 0 for any other step (rake-lower checks
 * those, and rake-cgen writes their trap helpers). */
int64_t rk_ast_literal_step(const RkNode *step);

/* The document: rake.ast or rake.checked (the same tree, annotated). */
json_t *rk_ast_encode(const RkModule *m, const char *kind);
RkModule *rk_ast_decode(json_t *root);
json_t *rk_ast_encode_node(const RkNode *n);

/* The children of a node, from the same table as the JSON form: every node
 * and node-list field of its kind, in table order (the order the encoder
 * writes them), each list item in turn; absent optional nodes are skipped,
 * strings and flags are not children.  A walker that must reach every child
 * recurses through these rather than naming members, so a field added to
 * the table reaches every walker. */

/* Calls test on each child until one returns true; returns whether one
 * did. */
typedef bool (*RkChildTest)(RkNode *child, void *ctx);
bool rk_ast_any_child(RkNode *n, RkChildTest test, void *ctx);

/* Calls visit on every child. */
typedef void (*RkChildVisit)(RkNode *child, void *ctx);
void rk_ast_each_child(RkNode *n, RkChildVisit visit, void *ctx);

/* rk_ast_any_child for walkers that need to know where a child is: `key`
 * is its field's JSON key, `index` its place in a list field or -1 for a
 * single node. */
typedef bool (*RkChildAtTest)(RkNode *child, const char *key, int index,
                              void *ctx);
bool rk_ast_any_child_at(RkNode *n, RkChildAtTest test, void *ctx);

#endif

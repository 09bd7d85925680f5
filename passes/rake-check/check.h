/* check.h: the state rake-check threads through its files.
 *
 *   main.c      options, reading rake.ast, writing rake.checked
 *   module.c    definitions, name table, tine instantiation and recursion
 *   scope.c     bindings, scopes, slots
 *   expr.c      expression typing: operators, names, marks
 *   literal.c   the type of a literal, from its context
 *   builtin.c   the signature of every built-in operation
 *   kernel.c    scratches and rakes: statements, through, sweep, the proofs
 *   run.c       stack runs and general runs
 *   slow.c      slow functions, moves, the slow tier's rules
 *   cinterop.c  records, unions, pointers, function pointers, externs, embed
 *   caps.c      capability checks and the printed capability table
 *   pred.c      predicates as BDDs over comparison atoms
 */
#ifndef RAKE_CHECK_H
#define RAKE_CHECK_H

#include "ast.h"
#include "bdd.h"
#include "diag.h"
#include "profile.h"
#include "strmap.h"
#include "types.h"

typedef enum BindKind {
    B_PARAM,    /* a function parameter */
    B_LET,      /* immutable binding: let, fused, through result */
    B_VAR,      /* a mutable location (:=) */
    B_INDEX,    /* a loop index */
    B_TINE,     /* a local tine */
} BindKind;

typedef struct Binding Binding;
struct Binding {
    const char *name;
    RkNode *decl;
    BindKind kind;
    const RkType *type;
    int slot;
    bool uniform;     /* a scalar in vector code: used as <name> */
    bool constant;    /* a repeat index: a compile-time constant */
    long long cval;   /* its value while checking a constant context */
    RkBdd def;        /* lanes where defined (a through result without else) */
    RkBdd mask;       /* a mask binding's value over atoms */
    RkBdd mask_def;
    const char *partial_pred; /* the through predicate, for messages */
    /* slow code: moves */
    bool moved;
    RkLoc moved_at;
    bool copy_source; /* stacks built from arrays or copies */
    bool ro_stack;    /* a stack with a column on read-only storage */
    Binding *next;    /* in its scope */
};

typedef struct Scope Scope;
struct Scope {
    Binding *head;    /* the newest first */
    RkStrMap names;   /* name -> its newest binding here (lookups in a scope
                         of thousands of lets were a scan each) */
    Scope *parent;
    bool barrier;     /* a slow block's scope: vector names stop here */
};

typedef enum FnKind { FN_SCRATCH, FN_RAKE, FN_STACK_RUN, FN_GENERAL_RUN, FN_SLOW, FN_TINE } FnKind;

typedef struct Info {
    const RkType *ty;
    RkBdd def;   /* lanes in which the value is defined */
    RkBdd mask;  /* for a mask: its value over atoms */
} Info;

typedef struct Check {
    const RkProfile *profile;
    RkModule *module;
    /* the function being checked */
    RkNode *fn;
    FnKind kind;
    int nslots;
    Scope *scope;
    RkBdd ctx;           /* the participation mask of the current code */
    const char *ctx_text;/* that mask's source, for messages */
    int through_depth;   /* inside a through body */
    const char *fused;   /* name of the fused binding being checked */
    int slow_block;      /* inside slow { } in a run */
    int loop_depth;      /* slow loops (break/continue) */
    int vector_loop;     /* runs: for loops */
    /* stack runs */
    int domain_bits;     /* widest column, 0 outside stack runs */
    int lanes;           /* lanes of a 32-bit rack on this profile */
    /* slow code */
    const RkType *ret;
    int call_depth;
} Check;

extern Check *C;

/* module.c */
RkNode *find_decl(const char *name);           /* functions, packs, values */
RkNode *find_global_tine(const char *name);
RkNode *find_pack(const char *name);
RkNode *pack_field(RkNode *pack, const char *field);
const RkType *resolve_type(RkNode *t, bool vector);
const RkType *resolve_slow_param_type(RkNode *t);
bool is_whole_program(void);
void check_module(void);
void ensure_tine_checked(RkNode *tine);

/* scope.c */
void scope_push(bool barrier);
void scope_pop(void);
Binding *bind(RkNode *decl, const char *name, BindKind kind, const RkType *ty);
Binding *lookup(const char *name);
Binding *lookup_any(const char *name, bool *behind_barrier);
void annotate_slot(RkNode *n, Binding *b);

/* expr.c */
Info check_expr(RkNode *e, const RkType *expect);
Info check_vexpr(RkNode *e, const RkType *expect);  /* vector code */
Info check_sexpr(RkNode *e, const RkType *expect);  /* slow code */
Info check_literal(RkNode *e, const RkType *expect);
Info vselect(RkNode *e, RkNode *cond, RkNode *tn, RkNode *fn, const RkType *expect);
RkBdd computed_def(RkBdd a, RkBdd b);
Info check_bitcast(RkNode *e);
const RkType *bitcast_literal_type(RkNode *operand, const RkType *to);
const RkType *convert_literal_type(RkNode *operand);
bool rack_elem_ok(RkElem el, RkLoc at);
Info const_range(RkNode *e, long long *lo, long long *hi);
void set_ty(RkNode *n, const RkType *t);
Info info_of(const RkType *t);
bool is_literal(RkNode *e);
bool vector_code(void);
const RkType *expect_scalar_of(const RkType *t);
Info coerce(RkNode *e, Info in, const RkType *want, const char *what);
const char *ty_name(const RkType *t);
bool int_literal_value(RkNode *lit, long long *out);
bool const_int_value(RkNode *n, long long *out);
bool is_error(const RkType *t);

/* builtin.c */
Info check_builtin(RkNode *call, const RkType *expect, bool *found);
Info check_slow_builtin(RkNode *call, const RkType *expect, bool *found);
Info check_shuffle(RkNode *n);
bool is_cross_lane_builtin(const char *name);
bool is_reduction_builtin(const char *name);
bool is_fusable_builtin(const char *name);

/* kernel.c */
void fn_begin(RkNode *fn, FnKind kind);
void fn_end(RkNode *fn);
void check_scratch(RkNode *fn);
void check_rake(RkNode *fn);
void check_vector_stmt(RkNode *s);
void check_vector_body(RkList body, int upto);
void require_defined(RkNode *e, Info in, RkBdd where, const char *what);
Info check_call_kernel(RkNode *call, RkNode *callee);

/* run.c */
void check_run(RkNode *fn);
Info check_column(RkNode *field, RkNode *stack_param);

/* slow.c */
void check_slow_fn(RkNode *fn);
void check_slow_stmt(RkNode *s);
Info check_slow_block(RkNode *blk, const RkType *expect);
Info check_slow_call(RkNode *call, RkNode *callee, const RkType *expect);

/* cinterop.c */
RkNode *find_record(const char *name);          /* a record or union */
RkNode *record_field(RkNode *rec, const char *field);
const char *source_relative(const char *path);
void check_record_decl(RkNode *d);
void check_record_cycles(RkNode *d);
void check_extern_decl(RkNode *d);
void check_embed_decl(RkNode *d);
bool ty_accepts(const RkType *want, const RkType *have);
bool is_constant_value(RkNode *v);
Info check_record_lit(RkNode *e);
Info check_record_field(RkNode *e, const RkType *object);
Info check_pointer_index(RkNode *e, const RkType *p);
bool place_writable(RkNode *a);
Info check_pointer_builtin(RkNode *call);
Info call_extern(RkNode *call, RkNode *fn);
Info call_function_pointer(RkNode *call, const RkType *ft);

/* caps.c */
bool require_cap(RkFeature f, RkLoc at, const char *what);
void print_targets(void);
void print_capabilities(bool json);

/* pred.c */
RkBdd pred_bdd(RkNode *p, RkBdd *def);
void pred_reset(void);
const char *pred_text(RkNode *p);
const char *describe_witness(RkBdd uncovered);
bool witness_all_fail(RkBdd uncovered);
RkBdd atom_for(RkNode *cmp);
RkBdd tine_mask(RkNode *tine, RkNode *ref);
const char *expr_text(RkNode *e);

#define ERROR(loc, ...) rk_diag_error((loc), __VA_ARGS__)

#endif

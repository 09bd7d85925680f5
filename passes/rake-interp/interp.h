/* interp.h: values and state of rake-interp.
 *
 *   main.c    reading rake.checked, finding main, printing its result
 *   value.c   values, buffers, views, stacks; scalar helpers
 *   vector.c  vector expressions lane by lane under an active-lane mask
 *   kernel.c  statements of vector code, scratches, rakes, tines, sweeps
 *   run.c     stack runs (racks of records, tails, where, compact) and
 *             general runs (views, counted loops, stores)
 *   slow.c    slow code: checked arithmetic, arrays, stacks, calls, traps
 */
#ifndef RAKE_INTERP_H
#define RAKE_INTERP_H

#include <stdint.h>

#include "ast.h"
#include "diag.h"
#include "profile.h"
#include "types.h"

enum { MAXL = 16 };

/* Calls (slow functions, kernels, tines) nest at most this deep; one more
 * traps.  main.c sizes the interpreter's stack for it. */
enum { MAX_DEPTH = 10000 };

typedef enum VKind {
    V_UNIT, V_SCALAR, V_RACK, V_MASK, V_ARRAY, V_VIEW, V_STACK, V_RACKS, V_PRED,
    V_RECORD, V_PTR, V_FN
} VKind;

typedef struct Val Val;

/* Memory: elements stored one per uint64_t in canonical form (see norm());
 * an array of records, pointers or function pointers holds Vals instead
 * (elem RK_E_NONE, cells). */
typedef struct Buffer {
    RkElem elem;
    int64_t n;
    uint64_t *data;
    Val *cells;
} Buffer;

typedef struct View {
    Buffer *buf;
    int64_t off, count;
} View;

typedef struct Stack {
    RkNode *pack;
    int64_t count;
    View *cols; /* one per field, in declaration order */
} Stack;

struct Val {
    VKind kind;
    RkElem elem;         /* scalar, rack, array element; mask: lane element */
    int lanes;           /* rack and mask */
    uint64_t v[MAXL];    /* scalar in v[0]; lanes; mask lanes 0 or 1 */
    Buffer *arr;         /* V_ARRAY: owned storage (value semantics) */
    View view;           /* V_VIEW */
    Stack *stack;        /* V_STACK */
    Val *racks;          /* V_RACKS: array of racks */
    int nracks;
    RkNode *pred;        /* V_PRED: a local tine's predicate */
    /* C interop (cvalue.c) */
    Val *fields;         /* V_RECORD: its fields, in declaration order */
    int nfields;
    RkNode *decl;        /* V_RECORD: the record; V_FN: the function (NULL: null) */
    Val *cell;           /* V_PTR to a whole value; else view.buf/view.off */
};

typedef struct Frame Frame;
struct Frame {
    RkNode *fn;
    Val *slots;
    int nslots;
    Frame *caller;
    int64_t arena_used;  /* bytes of the frame arena (copies) */
    RkNode **fused;      /* --contract: the fused binding that set a slot */
    int *region;         /* ... and its fused region, -1 if none */
    bool escaped;        /* addr() of a slot: keep the slots after return */
};

typedef struct Interp {
    int f32_lanes;
    const char *profile;
    RkModule *module;
    Frame *frame;
    uint64_t active;     /* active lanes of the current vector code */
    int64_t frame_bytes; /* RAKE_FRAME_BYTES */
    int depth;
    bool contract;       /* emulate multiply-add contraction (--contract) */
    int region;          /* the fused region being executed, -1 for none */
    int regions;         /* fused regions numbered so far */
    bool regions_on;     /* false directly in a run's body */
} Interp;

extern Interp *I;

/* value.c */
uint64_t norm(RkElem e, uint64_t x);
int lanes_of(RkElem e);
int checked_lanes(int n);
uint64_t all_lanes(int n);
Val v_unit(void);
Val v_scalar(RkElem e, uint64_t bits);
Val v_rack(RkElem e, int lanes);
Val v_splat(RkElem e, uint64_t bits);
Val v_mask(RkElem lane_elem, int lanes);
Val to_type(Val v, const RkType *t);
const RkType *ty_of(RkNode *n);
Buffer *buffer_new(RkElem e, int64_t n);
Val array_copy(Val a);
RkNode *find_fn(const char *name);
RkNode *find_tine(const char *name);
RkNode *find_pack_decl(const char *name);
Val *global_value(RkNode *name);
uint64_t parse_literal(RkNode *lit, RkElem e);
int64_t as_i64(Val v);
double as_f64(Val v);
uint64_t elem_size(RkElem e);

/* cvalue.c: records, pointers, function pointers, externs, embed */
Val value_copy(Val v);
void value_assign(Val *dst, Val v);
Val zero_of(const RkType *t);
Buffer *buffer_cells(int64_t n);
Val record_literal(RkNode *e);
Val field_value(RkNode *e);
Val read_element(RkNode *e);
void write_place(RkNode *target, Val v);
Val pointer_builtin(RkNode *call);
Val call_indirect(RkNode *call);
Val call_extern_trap(RkNode *call);
Val embed_value(RkNode *d);
Val main_argv(int argc, char **argv);
void refuse_unions(void);

/* vector.c */
Val eval(RkNode *e);
Val eval_under(RkNode *e, uint64_t active);
Val call_kernel(RkNode *fn, RkNode *call, Val *args);
Val builtin_vector(RkNode *call);
uint64_t mask_bits(Val m);
Val blend(Val m, Val a, Val b, const RkType *t);

/* kernel.c */
void exec_vector(RkNode *s);
void exec_vector_list(RkList body);
Val run_kernel(RkNode *fn, Val *args, int nargs);
Val eval_tine(RkNode *ref);

/* run.c */
void call_run(RkNode *run, RkNode *call, Val *args);
Val eval_column(RkNode *field);

/* contract.c */
bool contract_add(RkNode *e, Val *out);
void exec_statements(RkList body, int upto);

/* kernels.c */
void run_kernel_calls(const char *path);

/* nireval.c */
void nir_load(const char *path, const RkProfile *p);
bool nir_has(const char *name);
Val nir_call(const char *name, RkNode *src, Val *args, int nargs);
/* run.c: the checks a call to a stack run makes before it starts */
void run_checks(RkNode *run, RkNode *call, Val *args);

/* slow.c */
Val eval_slow(RkNode *e);
Val call_slow(RkNode *fn, Val *args, int nargs);
Val eval_slow_block(RkNode *blk);
Val call_from_slow(RkNode *call);

Frame *push_frame(RkNode *fn);
void pop_frame(Frame *f);

#define TRAP(loc, ...) rk_diag_trap((loc), __VA_ARGS__)

#endif

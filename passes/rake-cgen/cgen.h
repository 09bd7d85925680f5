/* cgen.h: the state and helpers of rake-cgen.
 *
 *   main.c     options, reading rake.checked, the unit's layout
 *   out.c      text buffers, C names and types, literals, trap sites
 *   expr.c     slow-code expressions and built-ins
 *   call.c     calls: slow functions, runs, kernels; native names; the
 *              C boundary's prototypes
 *   func.c     statements, slow functions, module state
 *   traps.c    the trap helpers native general runs call
 *   runtime.c  the runtime text every unit carries
 *
 * Code is generated one function at a time into two buffers: `decls`
 * (every slot and temporary, at the function's top) and `body`.  An
 * expression's code is a run of statements that leave its value in a
 * temporary, so evaluation order and traps follow the interpreter's
 * left-to-right walk exactly. */
#ifndef RAKE_CGEN_H
#define RAKE_CGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "diag.h"
#include "types.h"

typedef struct Buf {
    char *s;
    size_t len, cap;
} Buf;

void buf_add(Buf *b, const char *s);
void buf_addn(Buf *b, const char *s, size_t n); /* n bytes of s */
void buf_printf(Buf *b, const char *fmt, ...) RK_PRINTF(2, 3);
/* s as C string literal pieces, one per source line. */
void buf_cstring(Buf *b, const char *s, size_t n);
/* n bytes of assembly as a top-level __asm__ statement in .text */
void buf_asm(Buf *b, const char *text, size_t n);

/* What a slot of the current function holds. */
typedef struct Slot {
    const char *name;
    const RkType *ty;
    bool param;
    bool fresh;  /* an array bound in a loop and viewed: new storage per binding */
} Slot;

/* Names the unit defines once (array structs, type names, adapters,
 * native prototypes), in the order first named. */
typedef struct NameSet {
    const char **names;
    int n, cap;
} NameSet;

typedef struct Cg {
    RkModule *m;
    const char *source, *target;
    const char *src_text;    /* NULL when the source can't be read */
    const char **line_at;    /* where each of its lines starts (out.c line_start) */
    int nlines;
    Buf sites;               /* rk_sites entries */
    int nsites;
    RkLoc *site_locs;
    int site_cap;
    Buf types;               /* array structs */
    NameSet arrays;          /* their names, to declare each once */
    NameSet typenames;       /* records, function-pointer types, tags defined */
    NameSet adapters;        /* rk_fp_ adapters of slow functions, made once */
    Buf natives;             /* prototypes of runs and kernels */
    NameSet native_names;
    NameSet trap_names;      /* rk_trap_LINE_COL helpers made */
    Buf state;               /* module state and constants */
    Buf protos, funcs;
    /* the function being generated */
    RkNode *fn;
    Slot *slots;
    int nslots;
    Buf decls, body;
    int tmp, indent, loop_depth;
    bool uses_frame, uses_out;
} Cg;

extern Cg *G;

/* out.c */
void emit(const char *fmt, ...) RK_PRINTF(1, 2);
const char *fmt(const char *fmt, ...) RK_PRINTF(1, 2);
const char *elem_ctype(RkElem e);
const char *ctype(const RkType *t);      /* value type; arrays by struct */
int nameset_find(const NameSet *s, const char *name);  /* index, or -1 */
bool nameset_add(NameSet *s, const char *name);        /* false if already in */
const char *array_struct(const RkType *t);
const char *view_struct(RkElem e);
const char *stack_struct(const char *pack);
const RkType *type_of(RkNode *n);
const char *tmp(const RkType *t);        /* a new temporary of type t */
const char *tmp_c(const char *ctype_text, const char *init);
int site(RkLoc loc);
const char *literal(RkNode *lit, RkElem e);
_Noreturn void refuse(RkLoc loc, const char *fmt, ...) RK_PRINTF(2, 3);
const char *canon(const char *x, RkElem e); /* the value as canonical uint64_t */
const char *zero(const RkType *t);       /* a zero initialiser */

/* expr.c */
const char *ex(RkNode *e);               /* NULL for no value */
const char *view_of(RkNode *e, const char *v, const RkType *t);
const char *builtin(RkNode *call);
const char *index_place(RkNode *e);      /* o[i] as a checked lvalue */

/* call.c */
const char *finish_call(RkNode *c, const char *call_text); /* statement or temporary */
const char *call(RkNode *call);
RkNode *find_decl(const char *name, RkKind k1, RkKind k2);

/* func.c */
void gen_function(RkNode *fn);
void gen_run_blocks(RkNode *run);
void gen_global(RkNode *d);
const char *global_ref(RkNode *name);   /* pointer to a module value */
void gen_list(RkList body);
const char *slot_name(int slot, const char *name);

/* ctypes.c */
const char *interop_ctype(const RkType *t);
const char *elem_tag(const RkType *t);
bool aggregate(const RkType *t);         /* arrays, records, unions: lvalues */
bool pointer_like(const RkType *t);      /* pointers and function pointers */
RkNode *record_decl(const char *name);
bool header_backed(const RkNode *rec);
const char *member(const RkNode *rec, const char *field);
const char *field_lvalue(const RkType *rt, const char *o, const char *f, const RkType *ft);
void declare_records(void);
void gen_includes(Buf *o);
const char *source_path(const char *path);

/* interop.c */
const char *record_literal(RkNode *e);
const char *field_place(RkNode *e);      /* r.f or p.f as an lvalue */
const char *place(RkNode *e);            /* a name, field or element as an lvalue */
const char *pointer_builtin(RkNode *c);  /* addr, is_null, unchecked_view; NULL if not */
const char *pointer_bitcast(RkNode *e);
const char *extern_call(RkNode *c);
const char *fnptr_call(RkNode *c);
const char *embed_view(RkNode *name);
const char *string_arg(RkNode *s);
void gen_embed(RkNode *d);

/* runtime.c */
extern const char *const cg_runtime[];

/* call.c: the C boundary of runs (also rake-cgen --header-runs) */
const char *run_prototype(RkNode *c, RkNode *run, bool named);
bool native_run(RkNode *run);
bool physical_target(void);             /* x86 and aarch64: native general runs */

/* traps.c */
void gen_run_traps(RkNode *run);        /* a general run's rk_trap_LINE_COL */

#endif

/* gen-runs.h: what the files of gen-runs share.
 *
 *   main.c    options, profiles, the seeded stream, the file and main
 *   random.c  the random source, strings, fresh names, literal pools
 *   expr.c    variables, rack expressions, masks and predicates
 *   run.c     packs, global tines, the scratch and the runs of a case
 *   case.c    a case's stacks, data, calls and checksum
 *
 * As in gen-kernels, the generator is one random stream read in a fixed
 * order, so the output is a function of the arguments only: no file may
 * draw twice in the arguments of one call or the operands of one operator
 * (C leaves their order open). */
#ifndef GEN_RUNS_H
#define GEN_RUNS_H

#include <stddef.h>
#include <stdint.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* --- main.c ------------------------------------------------------------------ */

typedef struct Prof {
    const char *name;
    int lanes, contracts;
} Prof;

extern const Prof *P;

/* --- random.c ---------------------------------------------------------------- */

typedef struct Buf {
    char *s;
    size_t n, cap;
} Buf;

void rand_seed(uint64_t s);
uint64_t next64(void);
int rnd(int n);
int chance(int pct);
char *xfmt(const char *f, ...);
void bput(Buf *b, const char *f, ...);
char *fresh(const char *p);
const char *lit_of(int t); /* t: T_F, T_I or T_U */

/* --- types ------------------------------------------------------------------- */

/* Rack types, the mask, and uniform (scalar) types. */
enum { T_F, T_I, T_U, T_M, T_SF, T_SI, T_SU, NTY };
extern const char *tyname[NTY];
static inline int is_uni(int t) { return t >= T_SF; }
static inline int sc_of(int t) { return t + T_SF; } /* T_F -> T_SF */
static inline int rk_of(int t) { return t - T_SF; } /* T_SF -> T_F */

/* Stored column types. */
enum { S_F32, S_I32, S_U32, S_U8, S_I8, S_U16, S_I16, NST };
extern const char *stname[NST];
static inline int st_wide(int st) { return st <= S_U32; }
static inline int st_rack(int st) /* the rack a column reads as (widened) */
{
    return (int[]){T_F, T_I, T_U, T_U, T_I, T_U, T_I}[st];
}

/* --- packs and stacks (run.c) ------------------------------------------------ */

enum { MAXF = 7, MAXSP = 4, MAXV = 96 };

typedef struct Field {
    char *name;
    int st;
    int exact; /* f32: only values whose every bit is defined (no NaN payload
                * left to the implementation) are ever stored in it */
} Field;

typedef struct Pack {
    char *name;
    int nf;
    Field f[MAXF];
} Pack;

/* An expression: its text, type, and what its users must know. */
typedef struct E {
    char *s;
    int ty;
    int rack;  /* a rack (or mask), not a uniform or a literal */
    int lit;   /* a bare literal (typed by its neighbour) */
    int paren; /* needs parentheses as an operand */
    int fmul;  /* an f32 multiply of the current fused region */
    int exact; /* f32: every bit defined */
} E;

typedef struct Var {
    char *name;
    int ty;
    int region; /* fused region, -1 outside */
    int prod;   /* an f32 product bound in its region */
    int exact;
    int loc; /* a location (x := e) */
} Var;

/* The scope of the run (or scratch) being generated. */
typedef struct Scope {
    int nsp;             /* stack parameters */
    char *spname[MAXSP];
    Pack *sppack[MAXSP];
    Var v[MAXV];
    int nv;
    char *tines[8]; /* local tines */
    int ntines;
    /* the columns the run may read: every column of its result stack and
     * at most NATIVE_OTHERS of the others, so its column pointers, loop
     * counters and temporaries fit x86's 14 general registers (a native
     * run holds each column's pointer across its loop) */
    unsigned char ok[MAXSP][MAXF];
} Scope;

enum { NATIVE_FIELDS = 6, NATIVE_OTHERS = 1 };

typedef struct Ctx {
    int fused;  /* in a fused binding: no calls, bitcasts or widen */
    int region; /* the fused region, -1 outside */
    int exact;  /* an f32 result must be exact */
} Ctx;

/* The scratch a case's runs may call, and the case's global tine. */
typedef struct Scratch {
    char *name;
    int np, pty[3]; /* rack or uniform types */
    int ty;
    int exact; /* exact f32 result when its f32 arguments are exact */
} Scratch;

typedef struct GTine {
    char *name;
    int ty; /* its rack parameter's type */
    int two; /* a second rack parameter instead of the uniform */
} GTine;

extern Scope *S;
extern Scratch *scr; /* NULL: none in this case */
extern GTine *gt;    /* NULL: none in this case */

/* --- expr.c ------------------------------------------------------------------ */

E mk(char *s, int ty, int paren);
char *par(E e);
Var *add_var(const char *name, int ty);
E gen(int t, Ctx *c, int d);      /* a rack or uniform operand of rack type t */
E gen_rack(int t, Ctx *c, int d); /* a rack of type t (never a bare uniform) */
int uniforms_of(int t, int *ids); /* the uniform variables of type t, by index */
E gen_mask(Ctx *c, int d);
char *gen_pred(int d); /* a tine's formula */
char *gen_where(void); /* a `where` predicate */

/* --- run.c -------------------------------------------------------------------- */

enum { F_WITH, F_WITH_WHERE, F_COMPACT, F_COMPACT_WITH };

/* A run: its stack parameters (one of them the result) and uniforms. */
typedef struct Run {
    char *name;
    int nsp, result;
    Pack *sppack[MAXSP];
    char *spname[MAXSP];
    int nu, uty[3]; /* T_SF, T_SI, T_SU */
    int form;       /* F_WITH ... */
} Run;

void gen_pack(Buf *out, Pack *p, const char *name);
void gen_gtine(Buf *out, const char *prefix);
void gen_scratch(Buf *out, const char *prefix);
void gen_run(Buf *out, Run *r);
int run_compacts(const Run *r);

/* --- case.c ------------------------------------------------------------------- */

void gen_case(Buf *out, int id);

#endif

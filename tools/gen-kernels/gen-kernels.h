/* gen-kernels.h: what the files of gen-kernels share.
 *
 *   main.c      options, profiles, the seeded stream, writing the files
 *   random.c    the random source, strings, fresh names, literal pools
 *   expr.c      variables, operands, helper calls: what expressions share
 *   rack.c      rack expressions (gen_rack) and exact f32 racks
 *   mask.c      masks, uniform conditions and uniform values
 *   pred.c      truth tables, comparison atoms, predicates, local tines
 *   tines.c     global tines: their formulas, truth tables and text
 *   contract.c  multiply-add shapes (--contract-rich) and no_contract
 *   stmt.c      parameters, statements, locations, assignments, repeat
 *   kernel.c    scratches, rakes (through blocks, sweeps), one group
 *   calls.c     the calls of a kernel and their input values
 *   compare.c   --compare and --show
 *
 * The generator is one random stream read in a fixed order, so the
 * output is a function of the arguments only: no file may read the
 * stream in an order a compiler chooses (two draws in the arguments of
 * one call, or in the operands of one operator). */
#ifndef GEN_KERNELS_H
#define GEN_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* --- main.c: the profile and the options ------------------------------------ */

typedef struct Prof {
    const char *name;
    int lanes, fma, contracts;
} Prof;

extern const Prof *P;
extern int no_contract; /* no f32 multiply feeding an f32 add in one region */
extern int contract_rich;
extern int deep; /* --depth: extra expression depth */

static inline int lanes(void) { return P->lanes; }

/* --- random.c ------------------------------------------------------------------ */

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
const char *lit_of(int elem);
char *lit_text(const char *l);
char *lit_key(const char *l);

/* --- types ----------------------------------------------------------------------- */

enum { T_F, T_I, T_U, T_M, T_SF, T_SI, T_SU, T_SB, NTY };
extern const char *tyname[NTY];
static inline int is_rack(int t) { return t <= T_U; }
static inline int is_uni(int t) { return t >= T_SF; }
static inline int sc_of(int t) { return t + 4; } /* T_F -> T_SF, ... */
static inline int rk_of(int t) { return t - 4; }

/* --- pred.c: truth tables over comparison atoms ------------------------------------ */

enum { MAXATOMS = 10, TTW = (1 << MAXATOMS) / 64 };

typedef struct TT {
    uint64_t w[TTW];
} TT;

TT tt_const(int v);
TT tt_var(int a);
TT tt_and(TT a, TT b);
TT tt_or(TT a, TT b);
TT tt_not(TT a);
int tt_zero(TT a);
int tt_sub(TT a, TT b);

/* --- variables, context, expressions -------------------------------------------- */

typedef struct Var {
    char *name;
    int ty;
    TT def;     /* lanes where it is defined */
    int full;   /* defined in every lane */
    int exact;  /* f32 rack whose every bit is defined (no NaN payload games) */
    int region; /* fused region it was bound in, -1 for none */
    int fmul;   /* an f32 rack multiply of that region */
    int prod;   /* an f32 rack multiply, in a region or not */
    int has_tt; /* a mask whose truth table we know */
    TT tt;
    int partial_through; /* a through result without else */
    int loc;             /* a location (x := e), assignable */
    int alen;            /* a rack array of this many racks ([N]T := e) */
} Var;

enum { MAXV = 256 };
extern Var V[MAXV];
extern int nv;

typedef struct Ctx {
    TT m;        /* an upper bound of the lanes being evaluated */
    int masked;  /* possibly not every lane */
    int through; /* in a through body */
    int fused;   /* in a fused binding's value */
    int region;  /* fused region, -1 for none */
    int rake;    /* modelled predicates available */
} Ctx;

typedef struct E {
    char *s;
    int ty;
    int atomic; /* needs no parentheses as an operand */
    int lit;    /* a literal, marked or not */
    int fmul;   /* an f32 rack multiply in the current region */
    int exact;
    int has_tt;
    TT tt;
} E;

/* The helper the current kernel can call. */
typedef struct Helper {
    char *name;
    int np, pty[4], ret;
    int cross; /* its body moves data across lanes */
} Helper;

extern Helper helper;
extern int have_helper;

/* Module constants of the group: a literal or a negated one, used as
 * uniform operands, shift counts and lane indices. */
typedef struct Const {
    char *name;
    int ty;      /* T_SF, T_SI, T_SU */
    long long v; /* an integer's value */
} Const;

extern Const consts[4];
extern int nconst;

/* expr.c */
extern const char *CMPS[6];
extern const char *ARITH[4];
E mk(char *s, int ty, int atomic);
char *par(E e);
E lit_expr(int elem);
Var *add_var(const char *name, int ty);
int readable(Var *v, Ctx *c);
int pick_var(int t, Ctx *c, int need_full, int need_exact);
E var_expr(int i, Ctx *c);
E gen(int t, Ctx *c, int d);
E gen_operand(int t, Ctx *c, int d, int uni_ok);
E leaf_rack(int t, Ctx *c);
E cross_operand(int t, Ctx *c, int d, int *ok);
const char *pick_const(int t, long long lo, long long hi);
char *lane_index(void);
char *shuffle_list(int n);
E mask_operand(Ctx *c, int d, int *ok);
void branches(int t, Ctx *c, int d, E cond, E *a, E *b);
E call_helper(Ctx *c, int d, int *ok);
int can_call(Ctx *c);

/* rack.c */
E gen_rack(int t, Ctx *c, int d);
E mask_select_uni(int t, Ctx *c, int d);
E gen_exact_f(Ctx *c, int d);

/* mask.c */
E gen_mask(Ctx *c, int d);
char *ucond(Ctx *c, int d);
E gen_uni(int t, Ctx *c, int d);

/* --- pred.c and tines.c: predicates and tines --------------------------------------- */

/* Global tines: a formula over parameters and literals. */
typedef struct Opd {
    int param; /* >= 0: a parameter; else the literal */
    const char *lit;
} Opd;

enum { FM_CMP, FM_AND, FM_OR, FM_NOT, FM_APP };

typedef struct Fm {
    int op;
    const char *cmp;
    Opd l, r;
    struct Fm *a, *b;
    int gt;
    int nargs;
    Opd args[3];
} Fm;

typedef struct GTine {
    char *name;
    int np, pty[3]; /* pty: T_F.. racks or T_SF.. uniforms */
    Fm *body;
} GTine;

enum { MAXGT = 4 };
extern GTine gts[MAXGT];
extern int ngt;

/* Local tines of the rake being generated. */
typedef struct LTine {
    char *name;
    TT tt;
} LTine;

extern LTine lts[8];
extern int nlt;
extern int natoms;

/* pred.c */
int atom_new(const char *key, const char *text, TT need, int reuse);
int gen_pred(Ctx *c, TT where, int d, char **text, TT *tt);

/* tines.c */
int fm_eval(Fm *f, char **args, TT *tt);
void gen_gtines(const char *prefix, Buf *out);

/* --- statements, kernels, calls ---------------------------------------------------- */

extern int in_repeat; /* generating a repeat body: its index goes out of scope */
extern int region_counter;

/* contract.c */
E f_mul(Ctx *c);
E prod_sum(Ctx *c);
E contract_value(Ctx *c);

/* stmt.c */
E gen_value(int t, Ctx *c, int d, int uni_pct);
int rand_rack(void);
int rand_bind_type(void);
int gen_params(Buf *b, int *pty, int maxp);
void gen_stmts(Buf *b, Ctx *c, int n, const char *ind, int locs);

/* kernel.c */
void gen_group(Buf *rk, Buf *calls, int index, int ncalls);

/* calls.c */
void gen_calls(Buf *out, const char *name, const int *pty, int np, int k);

/* compare.c */
int compare(const char *pa, const char *pb, const char *prk, const char *pcalls);
int show(const char *prk, const char *what);

#endif

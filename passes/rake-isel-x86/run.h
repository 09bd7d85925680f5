/* run.h: the state run.c and general.c share while selecting one run.
 *
 * run.c selects every run (stack or general); compact.c a stack run's
 * compaction; general.c adds what only general runs have: views, element
 * reads, Booleans of comparisons, traps and 32-bit integers held in
 * general registers.  Both read and write R,
 * indexed by native-IR value id. */
#ifndef RAKE_ISEL_RUN_H
#define RAKE_ISEL_RUN_H

#include "isel.h"

typedef struct Addr {
    int base, index; /* general vregs; index -1: none */
    int scale;       /* the element's bytes */
    int64_t disp;
} Addr;

typedef struct Flag {
    const char *cc;  /* a condition of the target: a <cc> b */
    int a, b;        /* b -1: the immediate bimm */
    int64_t bimm;
    int bits;        /* 32: cmpl of the low halves; otherwise cmpq */
} Flag;

typedef struct Memo {  /* per mask value, within one native-IR block */
    int bits, count, prefix_bits, table;
    int prefix;        /* AVX2, AVX-512: lanes below the count, as a vector */
    int *perm;         /* SSE2: per compress_store instruction index, its permuted vreg */
    int tbase;         /* SSE2: the address of the table of masks (table: the entry's offset) */
    int skip;          /* full racks: 0 before its stores, 1 among them, 2 after */
    int skip_from, skip_stores, last; /* the test's block, the stores', the last store */
} Memo;

typedef struct Run {
    RkBlock *nb;       /* the native-IR block being selected */
    Addr *addr;
    bool *is_addr;
    Flag *flag;
    bool *is_flag;
    Memo *memo;
    unsigned *memo_gen; /* per value: the block generation its memo is of */
    unsigned gen;       /* the native-IR block being selected's */
    bool *is_gbool;    /* a Boolean held as 0 or 1 in a general register */
    int *formed, *formed_in; /* an address formed in register formed[id] at the end of
                                machine block formed_in[id] (-1: none), for its edges */
    bool *is_wide;     /* an i32 held sign-extended in a general register (a view's count) */
    bool *is_k32;      /* an i32 or u32 constant, k32 its value */
    int64_t *k32;
    bool *is_imm;      /* an i64 constant that fits a sign-extended imm32 */
    int64_t *imm;
    bool *g32;         /* general runs: an i32 or u32 uniform in a general register
                          (general.c); S->vreg is that register */
    bool *flag32;      /* a comparison of such values that only branches read */
    bool *cond;        /* an and/or/not of pending comparisons that only branches
                          read: never computed, a cascade of branches (general.c) */
    int *vform, *vform_in; /* a g32 value's broadcast, formed in machine block vform_in */
    int *nir2mir;      /* native-IR block id -> machine block */
    int nlabels;
} Run;

extern Run R;

static inline int gnew(void) { return rk_mir_vreg(S->mf, RK_RC_GPR); }
static inline RkMReg greg(int v) { return rk_mreg(RK_RC_GPR, true, v); }
static inline RkMOp gr(int v, int bits) { return rk_mo_reg(greg(v), bits == 64 ? 0 : bits, false, true); }
static inline RkMOp gw(int v, int bits) { return rk_mo_reg(greg(v), bits == 64 ? 0 : bits, true, false); }
static inline RkMOp gx(int v, int bits) { return rk_mo_reg(greg(v), bits == 64 ? 0 : bits, true, true); }
static inline const RkType *type_of(int id) { return S->type[id]; }
static inline int elem_bytes(const RkType *ptr) { return rk_elem_bits(ptr->elem) / 8; }
static inline bool is_int64(const RkType *t)
{
    return t && t->kind == RK_T_SCALAR && (t->elem == RK_E_I64 || t->elem == RK_E_U64);
}

/* run.c */
RkMOp mem(Addr a, int64_t elems, int bits, bool def);
Memo *memo(int mask_id);
int mask_bits(int mask_id, int m);
int shufd(int v, int imm);
int test_bit(int bits, int k);
int block(const char *tag);
int vparam(int b);
int gparam(int b);
void set_jump(int from, int to);
RkMReg kreg(int m);
int lanes_below(int n);
int popcount(int mask_id);
void store_full(Addr a, int64_t imm, int v);
void store_packed(Addr a, int64_t imm, int t); /* a compact column's packed rack */
bool float_elem(const RkType *ptr);
void guarded_store(Addr a, int bits, int active, int sure, int v);
int active_lanes(int id); /* the low lanes mask value id may hold */
int sure_lanes(int id);   /* the low lanes it surely holds */
int run_load(RkInstr *in); /* rack.load */

/* compact.c */
void compress_store(RkInstr *in);
bool deferred_load(RkInstr *in); /* selected by the compress_store that reads it */
Addr addr_of(int id);
void compare(Flag f);
RkMTerm *term_of(int b);
void set_branch(int from, const char *cc, int then, int els);
RkMReg value_reg(int id); /* a value crossing an edge, in its type's class */
const char *int_cc(RkOp op, bool sign);
RkOp swapped_cmp(RkOp op);

/* general.c */
bool general_run(void);
void view_elements(RkInstr *in, int ptr, bool masked);
int elem_load(RkInstr *in);
int gbool_of(int id);
bool gpr_bool(int id);
int gbool_op(RkInstr *in);
void trap(int here, RkTerm *t);
void plan_gpr32(RkFunc *nf);
int gpr32_of(int id);
int g32_instr(RkInstr *in);
Flag flag32(RkInstr *in);
int widen32(RkInstr *in);
void vector_args(RkInstr *in, int *saved);
void restore_args(RkInstr *in, const int *saved);
RkMReg edge_value(int arg, int block, int k);
int cond_blocks(int id);
void cascade(int id, int from, int then, int els, const int *mids, int *next);

#endif

/* isel.h: state of rake-isel-x86.
 *
 *   main.c    reading rake.nir, the calling convention, writing rake.mir
 *   seq.c     the instruction sequences, per profile (x86.h names them)
 *   select.c  one native-IR operation at a time
 *   run.c     runs: general registers, transfers, tails (run.h)
 *   compact.c a stack run's compaction
 *   general.c what only general runs have: views, traps, 32-bit integers
 *             in general registers
 *   slow.c    a run's slow blocks (call.slow)
 *   hoist.c   constant loads moved out of loops
 *   fold.c    constants folded into memory operands
 *   maskfuse.c AVX-512: selects and sanitized operations as masked writes
 */
#ifndef RAKE_ISEL_H
#define RAKE_ISEL_H

#include <stdarg.h>

#include "mir.h"
#include "nir.h"
#include "profile.h"
#include "target.h"

enum { SSE2 = 1, AVX2 = 2, AVX512 = 3 };

#define BLEND_K "vpblendmd" /* AVX-512's select under a k mask (seq.c) */
#define K_AND "kandw"       /* AVX-512's and of two k masks (seq.c, k_logic) */

typedef struct Sel {
    const RkProfile *profile;
    const RkTarget *target;
    int level;
    RkFunc *nf;
    RkMFunc *mf;
    int *vreg;           /* native-IR value id -> virtual register */
    const RkType **type; /* native-IR value id -> type */
    RkInstr **instr;     /* native-IR value id -> its instruction, NULL for a parameter */
    int *nreads;         /* value id -> how many operands, edges, returns, branches read it */
    RkInstr **reader;    /* value id -> the one instruction reading it, NULL if none or
                            several, or if a terminator reads it */
    int region;          /* runs: the machine block the native-IR block being selected
                            starts in (the blocks made since are reached through it), or -1 */
    const char *origin;  /* the op being selected */
    int nir;
    RkLoc loc;           /* its source location */
    int *kvreg;          /* constant index -> the vreg loaded with it, or -1 */
    int nk;
    int k;               /* AVX-512: the mask vreg last written (kdef) */
    int *view_count;     /* a view parameter's value id -> its count, sign-extended to
                            64 bits in a general register (the pointer is in vreg) */
    int *arg_gpr;        /* an integer uniform parameter's value id -> its argument's
                            general register (vreg holds its broadcast) */
} Sel;

extern Sel *S;

/* seq.c: building blocks; each returns the destination vreg */
void ins(const char *op, int nops, ...);
int fresh(void);
int lanes(void);
const char *pick(const char *sse2, const char *avx2, const char *avx512);
int konst_splat(uint32_t bits);
bool is_splat(int v);                   /* vreg v holds a broadcast constant */
bool splat_bits(int v, uint32_t *bits); /* ... and which: its lane's bits */
int konst_vector(const uint32_t *words);
int splat_gpr32(int g);                 /* the low 32 bits of general vreg g, broadcast */
int vmov(int a);
int vbin(const char *sse, const char *avx, const char *evex, int a, int b);
int vlogic(char op, int a, int b);      /* '&' '|' '^' 'n' (a & ~b) */
int vnot(int a);
int blend(int m, int a, int b);         /* m ? a : b */
int ones_of_mask(int v);                /* v = m ? 1 : 0: m, or -1 */
int merge_count(char op, int x, int m); /* AVX-512: x +- (m ? 1 : 0) under m's k */
int fcmp(const char *pred, int a, int b);
int fcmp_not(const char *pred, int a, int b); /* AVX: the complement, one vcmpps */
int icmp(const char *pred, bool sign, int a, int b);
int icmp_not(const char *pred, bool sign, int a, int b); /* AVX-512: the complement, one vpcmpd */
void note_flipped(int v);               /* a u32 uniform's broadcast, on entry */
int fminmax(bool max, bool canonical, int a, int b);
int iminmax(bool max, bool sign, int a, int b);
int imul(int a, int b);
int ineg(int a);
int iabs(int a);
int shift_imm(char kind, int a, int count);
int shift_var(char kind, int a, int count);
int cvt_to_f32(bool sign, int a);
int cvt_to_i32(int a);
int cvt_to_u32(int a);
int fround(char mode, int a);           /* 'f' floor 'c' ceil 't' trunc 'n' nearest */
int bcast_lane(int a, int k);
int insert_lane(int a, int k, int u);
int shuffle(int a, int b, const int *idx, int n);
enum { RK_FOLD_SUM, RK_FOLD_PRODUCT, RK_FOLD_MIN, RK_FOLD_MAX }; /* what a fold combines with */
int reduce(int op, RkElem e, int a, bool scan);
int mask_fold(bool and, int m);
int bitmask(int m);
int fma3(int a, int b, int c);
RkMOp kdef(void);                       /* a fresh mask vreg, written */
void k_from_mask(int m);                /* AVX-512: S->k holds vector mask m */
int k_test(int m);                      /* vptestmd m into a new k vreg, noted */
int k_in_block(int m);                  /* its k vreg from this block, or -1 */
int k_logic(char op, int a, int b);     /* kandw/korw of masks with k vregs, or -1 */
int k_noted(int m);                     /* the k vreg m was last made from or tested into */
void note_zero_out(int v, int m);       /* v is 0 where vector mask m doesn't hold */
int zero_outside(int v);                /* the vector mask v is 0 outside, or -1 */
void note_zero_through(int d, const int *src, int n); /* d = f(src), f(0) = 0 */
void k_note(int m, int k);              /* k vreg k holds vector mask m */
RkMOp kmasked(RkMOp o, bool zero);      /* o under the last mask */

/* run.c: a stack run's blocks, after main.c's entry */
void select_run(RkFunc *nf, RkMFunc *mf);
RkInstr *nir_def(int id); /* main.c: the instruction defining a value, or NULL */
int nir_reads(int id);    /* main.c: how many operands, edges, returns, branches read it */

/* hoist.c: constant loads leave loops for the entry block */
bool *loop_blocks(const RkMFunc *mf);    /* per block: on a cycle of the CFG */
bool const_load(const RkMInstr *in);     /* a pure load of a pool constant into a vector vreg */
void hoist_constants(RkMFunc *mf, const bool *loop);

/* fold.c: constants read straight from the pool where x86 allows it */
void fold_loads(RkMFunc *mf, const RkTarget *t);
void limit_nds(RkMFunc *mf, const RkTarget *t); /* AVX-512: Capstone's EVEX.V' reading */
void fold_constants(RkMFunc *mf, const RkTarget *t, int vector_bytes, const bool *loop);
int *read_counts(const RkMFunc *mf); /* per vreg: its readers (calloc'd) */
void drop_removed(RkMFunc *mf);      /* instructions whose op is NULL */
void prune_dead(RkMFunc *mf, const RkTarget *t); /* instructions nothing reads */

/* maskfuse.c: AVX-512 selects (BLEND_K, zeroing copies) into the masked
 * write of the operation computing their selected arm */
void fuse_masked_selects(RkMFunc *mf, const RkTarget *t);

/* slow.c */
int select_slow_call(RkInstr *in);

#endif

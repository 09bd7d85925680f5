/* mir.h: rake.mir version 2, machine IR.
 *
 * A function is a list of labelled blocks.  Each block has parameters
 * (virtual registers defined on entry, given by the jumps that reach it),
 * a list of machine instructions, and one terminator: return, jump (with
 * arguments for the target's parameters), conditional branch on a
 * condition of the flags or on a register being zero or not, or trap.
 * The first block is the entry: nothing jumps to it.
 *
 * An instruction is a mnemonic of the target's instruction table and
 * structured operands in Intel order (destination first):
 *   register   virtual (before rake-ra) or physical, with its register
 *              class (vec, gpr, mask), a view width when it is not the
 *              class's full width (the xmm view of a ymm register, the
 *              32-bit view of a general register), whether it is read,
 *              written or both, and for a destination an optional write
 *              mask register and zeroing;
 *   immediate, constant (an entry of the function's constant pool,
 *   loaded rip-relative on x86), label (a block);
 *   memory     base and index general registers, scale, displacement,
 *              access width in bits, read or written.
 * Each instruction records what it was selected for (`origin`: the
 * native-IR op, or entry, result, move, remat), that op's value id and
 * its source location.
 *
 * rake-isel-* writes the document with virtual registers; rake-ra
 * replaces every one with a physical register, removes block parameters
 * by moves on the jumps, and records the callee-saved registers it used;
 * rake-emit prints it (rk_mir_flatten gives the exact instruction list:
 * the prologue saving those registers, the blocks, their terminators
 * spelled in the target's instructions, the epilogue); rake-verify
 * compares the disassembled object with that same list.  Registers are
 * (class, number) pairs everywhere; names come from lib/target.c. */
#ifndef RK_MIR_H
#define RK_MIR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "target.h"

typedef enum RkMOpKind { RK_MO_REG, RK_MO_IMM, RK_MO_CONST, RK_MO_LABEL, RK_MO_MEM } RkMOpKind;

typedef struct RkMReg {
    bool virt;    /* a virtual register (before rake-ra) or a physical one */
    int8_t cls;   /* RkRegClass */
    int num;      /* the vreg id or the register number; -1 = none */
} RkMReg;

typedef struct RkMOp {
    RkMOpKind kind;
    RkMReg reg;   /* REG: the register; MEM: the base (num -1: none) */
    RkMReg index; /* MEM: the index register (num -1: none) */
    int scale;    /* MEM: 1, 2, 4 or 8 */
    int64_t disp; /* MEM: the displacement */
    int bits;     /* REG: the view (0: the class's full width); MEM: bits accessed */
    bool def, use;
    int64_t imm;  /* IMM: the value; CONST: the pool index; LABEL: the block */
    RkMReg mask;  /* REG: the write mask (num -1: none) */
    bool zero;    /* with a mask: zeroing, not merging */
} RkMOp;

/* The origin of rake-ra's reload of a run's stack argument (or of its
 * sign extension) from the argument's slot: its displacement is the
 * slot's at the entry, and rk_mir_flatten adds the prologue's pushes. */
#define RK_MIR_STACK_ARG "stack.arg"

typedef struct RkMInstr {
    const char *op;
    RkMOp *ops;
    int nops;
    const char *origin; /* the native-IR op, "entry", "result", "move", "remat",
                           RK_MIR_STACK_ARG */
    int nir;            /* the native-IR value id, -1 if none */
    RkLoc loc;          /* the source of the native-IR op, {0,0} if none */
    bool again;         /* added by rake-ra where registers ran out: a load
                           repeated or a value computed again */
} RkMInstr;

typedef enum RkMTermKind { RK_MT_RET, RK_MT_JUMP, RK_MT_BRANCH, RK_MT_TRAP } RkMTermKind;

typedef struct RkMTerm {
    RkMTermKind kind;
    const char *cond;   /* BRANCH: a condition of the target, or "nz"/"z" on reg */
    bool on_reg;        /* BRANCH: tests `reg` instead of the flags */
    RkMOp reg;
    int then, els;      /* JUMP: then; BRANCH: both */
    RkMReg *args;       /* JUMP: one per parameter of the target */
    int nargs;
    const char *origin;
    int nir;
    RkLoc loc;
} RkMTerm;

typedef struct RkMBlock {
    const char *label;
    RkMReg *params;
    int nparams;
    RkMInstr *instrs;
    int ninstrs, cap;
    RkMTerm term;
} RkMBlock;

enum { RK_MIR_CONST_MAX = 1 << 16 }; /* the largest table: 64 KiB */

typedef struct RkMConst {
    int size;           /* bytes: 4 (broadcast), 2 (a k mask), 16, 32, 64, or a
                           table (a stack run's lane orders): a multiple of 64 */
    uint32_t *words;    /* size / 4 words (one for a 2-byte constant) */
} RkMConst;

typedef struct RkMArg {
    const char *name;
    const char *type;   /* native-IR type, e.g. rack<f32>, i32 */
    RkMReg reg;         /* where the calling convention passes it (physical) */
    int bits;           /* its view: xmm for an f32 in a ymm profile, edi */
    int vreg;           /* the virtual register holding it on entry */
    int stack;          /* past the argument registers: its 8-byte stack slot (0 is
                           the first), loaded into reg (the allocator's choice) on
                           entry; -1: in reg */
} RkMArg;

/* The width System V gives an integer argument of this native-IR type:
 * 32 for i32, u32 and bool, 64 for the rest (pointers, i64, a stack's
 * descriptor). */
int rk_mir_int_arg_bits(const char *type);


/* A virtual register that only some registers of its class may hold (an
 * encoding limit the selector knows: docs/mir.md, "Register limits"). */
typedef struct RkMAllow {
    int vreg;
    uint64_t regs;           /* register numbers of the vreg's class */
} RkMAllow;

typedef struct RkMFunc {
    const char *name;
    const char *kind;
    RkLoc loc;               /* the kernel's definition */
    RkMArg *args;
    int nargs;
    const char *result_type;
    RkMReg result;           /* physical; num -1 = none */
    int result_bits;
    RkMBlock **blocks;
    int nblocks, bcap;
    int cur;                 /* the block rk_mir_add appends to */
    RkMConst *consts;
    int nconsts, ccap;
    int nvregs, vcap;
    int8_t *vclass;          /* the class of each virtual register */
    RkMAllow *allow;         /* virtual registers limited to some registers of their class */
    int nallow, acap;
    int fmas;                /* rack.fma operations selected */
    uint64_t saved[RK_RC_COUNT]; /* callee-saved registers used (after rake-ra) */
} RkMFunc;

typedef struct RkMModule {
    const char *source;
    const char *target;
    const RkTarget *t;
    bool allocated;          /* after rake-ra: no virtual registers left */
    RkMFunc **funcs;
    int nfuncs, cap;
} RkMModule;

/* building */
RkMFunc *rk_mir_func(RkMModule *m, const char *name, const char *kind);
int rk_mir_block(RkMFunc *f, const char *label); /* appends a block, makes it current */
RkMInstr *rk_mir_add(RkMFunc *f, const char *op, const char *origin, int nir);
/* The C helper a run's call.slow reaches (through its trampoline):
 * rk_slow_LINE_COL for a `slow { }` block, rk_trap_LINE_COL for a failed
 * check (origin "trap"), LINE:COL being the call's two immediates. */
const char *rk_mir_slow_helper(const RkMInstr *in);
RkMInstr *rk_mir_insert(RkMBlock *b, int at, const RkMInstr *copy);
void rk_mir_operand(RkMInstr *in, RkMOp op);
int rk_mir_const(RkMFunc *f, int size, const uint32_t *words);
int rk_mir_vreg(RkMFunc *f, RkRegClass c);
/* limits v to the registers in regs (intersecting any earlier limit) */
void rk_mir_vreg_allow(RkMFunc *f, int v, uint64_t regs);
/* the registers v may hold: ~0 when unlimited */
uint64_t rk_mir_vreg_allowed(const RkMFunc *f, int v);
void rk_mir_param(RkMBlock *b, RkMReg r);
void rk_mir_jump_arg(RkMTerm *t, RkMReg r);
/* the control-flow graph */
/* How many blocks the terminator may go to, and the k-th: a jump's
 * target; a branch's then and else. */
int rk_mir_nsuccs(const RkMTerm *t);
int rk_mir_succ(const RkMTerm *t, int k);
/* The register a terminator reads (a branch's tested register), or NULL. */
RkMOp *rk_mir_term_reg(RkMTerm *t);

/* operands */
RkMReg rk_mreg(RkRegClass c, bool virt, int num);
RkMOp rk_mo_reg(RkMReg r, int bits, bool def, bool use);
RkMOp rk_mv(int vreg);      /* a vector vreg, read */
RkMOp rk_mvd(int vreg);     /* written */
RkMOp rk_mvu(int vreg);     /* read and written */
RkMOp rk_mvx(RkMOp o);      /* its 128-bit view */
RkMOp rk_mi(int64_t imm);
RkMOp rk_mc(int cidx);
RkMOp rk_ml(int block);
RkMOp rk_mmem(RkMReg base, RkMReg index, int scale, int64_t disp, int bits, bool def);
RkMOp rk_mmask(RkMOp o, RkMReg mask, bool zero);
bool rk_mreg_eq(RkMReg a, RkMReg b);

/* renaming: every operand (register, base, index, mask) of in, or every
 * argument and tested register of t, naming virtual register `from`
 * names `to` instead (vreg numbers are unique across classes) */
void rk_mir_rename(RkMInstr *in, int from, int to);
void rk_mir_rename_term(RkMTerm *t, int from, int to);
/* both, in every block of f */
void rk_mir_rename_all(RkMFunc *f, int from, int to);
/* Whether operand o is register operand vreg v of class c. */
bool rk_mir_is_vreg(const RkMOp *o, RkRegClass c, int v);
/* How many instructions write each vreg (f->nvregs counts, arena
 * allocated): one for a value defined once, more where a destructive
 * instruction rewrites it; block parameters don't count. */
int *rk_mir_write_counts(const RkMFunc *f);

/* Stack argument a's slot as the stack pointer addresses it at the
 * entry (before the prologue's pushes), and the bytes those pushes move
 * it by (the callee-saved registers f saves); an argument's load after
 * the prologue reads their sum. */
int64_t rk_mir_arg_slot(const RkTarget *t, const RkMArg *a);
int64_t rk_mir_pushed_bytes(const RkMFunc *f, const RkTarget *t);

/* Whether f is a run (stack or general): only runs take arguments on the
 * stack. */
bool rk_mir_is_run(const RkMFunc *f);

/* constants as memory operands (mirfold.c) */
/* A pure load of a pool constant into a register (movaps, vbroadcastss,
 * leaq .LC(%rip)): repeatable.  An instruction that reads a constant
 * operand and its destination (`addps .LC(%rip), %xmm1`) is not. */
bool rk_mir_const_load(const RkMInstr *in);
/* Whether operand *k of in (vector vreg v) may be a memory operand; a
 * commuting instruction's or a comparison's sources may be swapped to
 * allow it, and *k follows the swap. */
bool rk_mir_foldable(const RkTarget *t, RkMInstr *in, int *k, int v);
/* Pool entry c as a full vector of `bytes` (a 4-byte broadcast entry
 * repeated); -1 if it is neither. */
int rk_mir_const_wide(RkMFunc *f, int c, int bytes);
/* Keeps the pool entries something reads, numbered by first use. */
void rk_mir_compact_pool(RkMFunc *f);

/* the emitted instruction list: prologue, blocks and terminators spelled
 * in the target's instructions, epilogues (rake-emit and rake-verify) */
typedef struct RkMFlat {
    RkMInstr *ins;
    int n;
    int *block_at;           /* the first instruction of each block; -1 for a
                                block that only jumps, which isn't emitted */
    bool *loop_head;         /* per instruction index (n + 1 of them): a loop
                                head starts there and is aligned to the
                                target's loop_align */
} RkMFlat;
RkMFlat rk_mir_flatten(const RkMFunc *f, const RkTarget *t);

/* the JSON form (mirjson.c) and the listing */
json_t *rk_mir_encode(const RkMModule *m);
RkMModule *rk_mir_decode(json_t *root);
void rk_mir_print(const RkMModule *m, FILE *out);
/* an operand as the listing and messages show it: v3, v3.128, %ymm3, $5, C2, B4,
 * 32[v2+v3*4+16] */
const char *rk_mir_operand_str(const RkMModule *m, const RkMOp *o);

#endif

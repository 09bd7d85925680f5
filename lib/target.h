/* target.h: the machine facts of every backend target, one table each.
 *
 * A target is a profile that has (or will have) a native backend.  Its
 * row says, and nothing else in the compiler restates:
 *   - its register files: one per register class (vector, general,
 *     mask), how many registers exist, which the allocator may use and in
 *     which order, which are reserved, which a callee must preserve, the
 *     name of each register at each view width (xmm3/ymm3/zmm3,
 *     eax/rax), and the instruction that copies one register to another;
 *   - its calling convention: the argument registers of each class and
 *     the result register of each class;
 *   - its control flow: the condition codes a branch may test and how a
 *     jump, a conditional branch, a return and a trap are spelled;
 *   - its instruction table: every mnemonic the selector may emit (and a
 *     few it must never emit, so the verifier can say why), the ISA
 *     extension that introduced it, which profiles of the family may use
 *     it, its operand roles and its facts (moves data across lanes, may
 *     fault, writes the flags, is a fused multiply-add, is a copy).
 * rake-isel-*, rake-ra, rake-emit and rake-verify all read these tables;
 * rake-ra sees register classes and numbers only.  One family's
 * instruction table (lib/target_x86.c) serves all its profiles; the
 * AArch64 register file (lib/target_arm64.c) is laid out the same way so
 * the NEON backend adds a selector, an emitter and an instruction table.
 *
 * Register numbers are the architecture's encodings (rax 0, rcx 1, ...,
 * rdi 7; x0..x30), so a number means the same register in every pass.
 * Sets of registers are 64-bit masks over those numbers. */
#ifndef RK_TARGET_H
#define RK_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

typedef enum RkRegClass { RK_RC_VEC, RK_RC_GPR, RK_RC_MASK, RK_RC_COUNT } RkRegClass;

enum { RK_REG_MAX = 64 }; /* register numbers per class: sets are uint64_t */

/* The names of a class's registers at one view width. */
typedef struct RkRegView {
    int bits;
    const char *const *names; /* by register number */
} RkRegView;

typedef struct RkRegFile {
    int count;                /* numbers 0..count-1 exist (0: no such class) */
    uint64_t reserved;        /* never allocated */
    uint64_t callee_saved;    /* a function that writes one saves it first */
    const int8_t *order;      /* allocation order, -1 terminated */
    int full_bits;            /* the view an operand has unless it says */
    const RkRegView *views;   /* NULL-names terminated */
    const char *copy;         /* mnemonic copying a whole register */
} RkRegFile;

typedef struct RkRegRef {
    RkRegClass cls;
    int num;
} RkRegRef;

/* Instruction facts. */
enum {
    RK_I_CROSS = 1,       /* moves data across lanes */
    RK_I_FAULT = 2,       /* may fault (a memory access) */
    RK_I_FLAGS = 4,       /* writes the condition flags */
    RK_I_FMA = 8,         /* a fused multiply-add */
    RK_I_COPY = 16,       /* copies its second operand to its first */
    RK_I_BRANCH = 32,     /* a jump or conditional branch (terminators only) */
    RK_I_RET = 64,        /* returns (terminators only) */
    RK_I_TRAP = 128,      /* traps (terminators only) */
    RK_I_STACK = 256,     /* pushes or pops (prologue and epilogue only) */
    RK_I_CALL = 512,      /* calls: never emitted, always rejected */
    RK_I_SLOW = 1024,     /* a run's call of a slow block (below) */
    RK_I_MEMSRC = 2048,   /* its last register source may be a full-width
                             memory operand instead (x86: the r/m operand;
                             for a four-register form, the third operand) */
    RK_I_COMMUTE = 4096,  /* its two sources (operands 1 and 2) commute */
    RK_I_PREDICATE = 8192, /* a comparison whose last operand is its predicate:
                              its sources swap with the predicate swapped
                              (RkTarget.swap_predicate) */
    RK_I_MASKABLE = 16384, /* lane-wise in 32-bit lanes, and its first operand
                              may be written under a merging write mask
                              (AVX-512's EVEX {k}): the lanes outside the mask
                              keep the register's value */
    RK_I_KMASKABLE = 32768, /* a comparison into a mask register that may be
                               written under a write mask: the bits outside
                               it become 0 (AVX-512's vpcmpd {k}) */
};

/* How a run calls a `slow { }` block's C helper: `call.slow` in the
 * machine IR (operands: the block's value if it has one, its line and
 * column, then the values it reads) is emitted as a call of a trampoline
 * that keeps every register.  The trampoline saves every register into
 * an aligned area on the stack (`save` per class), copies each value the
 * block reads into an 8-byte slot, calls rk_slow_LINE_COL with the slots'
 * address, copies slot 0 into the result's saved register (into every
 * 32-bit lane of a vector register: a uniform is kept broadcast), and
 * restores everything.  `enter` sets up the frame (a printf format of the area's
 * bytes), `leave` returns from it (plain text). */
typedef struct RkSlowCall {
    const char *call;              /* the call instruction */
    const char *save[RK_RC_COUNT]; /* a whole register to or from memory, per class */
    const char *enter, *leave;     /* the trampoline's frame */
    const char *slot_move;         /* an 8-byte move through the scratch register */
    const char *lane_move;         /* a 4-byte one: a vector result fills every lane */
    int scratch;                   /* a GPR the trampoline uses after saving it */
    const char *arg;               /* loading the slots' address into the argument register */
    /* A failed check's helper (rake-cgen's traps.c), in assembly: a printf
     * format of the site number and the kind (two ints) and the reporter
     * it jumps to, which takes the slots' address (left in the first
     * argument register by the trampoline) and those two as its
     * arguments. */
    const char *trap_stub;
} RkSlowCall;

typedef struct RkInsnDesc {
    const char *mnem;
    const char *isa;      /* the extension that introduced it: "SSE2", "AVX2", ... */
    unsigned profiles;    /* bit i: the family's profile i may emit it */
    unsigned flags;
    /* Operand forms in Intel order, '|' between alternatives; per operand
     * w written, r read (register, memory or constant), x read and
     * written, i an immediate, l a label, * any number of registers read. */
    const char *roles;
} RkInsnDesc;

typedef struct RkTarget {
    const char *profile;      /* the profile's name */
    RkArch arch;
    int index;                /* this profile's bit in RkInsnDesc.profiles */
    RkRegFile regs[RK_RC_COUNT];
    const RkRegRef *args[RK_RC_COUNT]; /* argument registers per class, -1 terminated */
    int nargs[RK_RC_COUNT];
    int result[RK_RC_COUNT];  /* the result register number per class */
    int stack_pointer;        /* its GPR number */
    /* Integer arguments past the registers (System V: 8-byte slots above
     * the return address): the first slot's offset from the stack pointer
     * on entry, each push's bytes, and the loads of a 32- and a 64-bit
     * argument (NULL: the backend reads no arguments from the stack). */
    int stack_args, push_bytes;
    const char *stack_load[2];
    const char *const *conds; /* condition codes a branch tests, NULL terminated */
    const char *const *inverse; /* the opposite of each of conds, in the same order */
    const char *jump;         /* "jmp" */
    const char *branch_fmt;   /* "j%s": a conditional branch on a condition */
    const char *test_reg[2];  /* testing a GPR (32, 64 bits) before a branch on it, or NULL */
    const char *test_conds[2]; /* the conditions that test leaves: nonzero, zero */
    const char *ret, *trap;
    const char *push, *pop;   /* saving a callee-saved GPR, or NULL */
    const char *zeroupper;    /* emitted before ret unless a wide vector is returned */
    /* A loop head (a block a later conditional branch goes back to) starts
     * on a 2^loop_align-byte boundary, the assembler padding with nops
     * before it (rake-verify accepts padding there only); 0: no alignment. */
    int loop_align;
    const RkSlowCall *slow;   /* calling a slow block's helper from a run, or NULL */
    uint64_t evex_index;      /* GPRs that may index an EVEX memory operand whatever its
                                 base (Capstone 4 decodes none whose base and index are
                                 both r8-r15); 0: the profile has no EVEX operands */
    uint64_t evex_nds;        /* vector registers that may be the first source (EVEX.vvvv)
                                 of an instruction with an indexed memory operand:
                                 Capstone 4 reads EVEX.V' as the index's high bit, so
                                 with zmm16-31 there it decodes (%rcx,%xmm6,4) */
    const RkInsnDesc *insns;  /* the family's table, NULL-mnem terminated */
    /* An RK_I_PREDICATE comparison's predicate for its sources swapped
     * (a < b as b > a), or -1 if the family has none for it; d is the
     * comparison's row (a family may number predicates per instruction). */
    int (*swap_predicate)(const RkInsnDesc *d, int64_t pred);
} RkTarget;

/* The target of a profile name, or NULL if it has no native backend. */
const RkTarget *rk_target_find(const char *profile);
const char *rk_reg_class_name(RkRegClass c);
/* A class by name ("vec", "gpr", "mask"); -1 if unknown. */
int rk_reg_class_find(const char *name);
/* A register's name at a view width (0: the class's full width); NULL if
 * the target has no such register or view. */
const char *rk_target_reg_name(const RkTarget *t, RkRegClass c, int num, int bits);
/* A register name of this target: its class, number and view width.
 * False if the name is not one of the target's registers. */
bool rk_target_reg_parse(const RkTarget *t, const char *name, RkRegRef *r, int *bits);
/* The instruction's row on this target (any profile of the family), or NULL. */
const RkInsnDesc *rk_target_insn(const RkTarget *t, const char *mnem);
/* Whether mnem (NULL: none) names a row carrying every RK_I_* flag in
 * flags. */
bool rk_target_insn_is(const RkTarget *t, const char *mnem, unsigned flags);
/* Whether this profile may emit the row. */
bool rk_target_has(const RkTarget *t, const RkInsnDesc *d);
/* Registers of a class the allocator may use on this target. */
int rk_target_allocatable(const RkTarget *t, RkRegClass c);
bool rk_target_cond(const RkTarget *t, const char *cond);
/* The condition that holds exactly when cond doesn't, or NULL. */
const char *rk_target_cond_inverse(const RkTarget *t, const char *cond);

/* Whether a slow block's trampoline saves and restores this register:
 * every one the target has, but the stack pointer and reserved general
 * and mask registers (the frame pointer is the trampoline's own). */
bool rk_target_slow_saved(const RkTarget *t, RkRegClass c, int num);

/* the tables (lib/target_x86.c, lib/target_arm64.c) */
extern const RkTarget rk_target_x86[3];
extern const RkTarget rk_target_arm64;

#endif

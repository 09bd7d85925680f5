/* ra.h: state of rake-ra.
 *
 *   main.c     reading and writing rake.mir, the allocation loop
 *   live.c     positions, liveness across blocks, each vreg's live segments
 *   scan.c     the linear scan, rematerialisation, running out
 *   recompute.c  computing a value again where it is next read
 *   stackarg.c a run's stack arguments loaded again from their slots
 *   commute.c  a copy into a commuting operation takes its dying operand
 *   resolve.c  physical registers into the code, jump moves, saves
 *
 * rake-ra sees register classes and numbers only; names, allocation
 * orders, reserved and callee-saved sets and copy instructions come from
 * the target table (lib/target.h). */
#ifndef RAKE_RA_H
#define RAKE_RA_H

#include <setjmp.h>

#include "mir.h"
#include "target.h"

/* Every instruction, terminator and block entry has a position, in block
 * order: block b's parameters are defined at start[b], its instructions
 * follow, its terminator is at start[b] + ninstrs + 1. */
typedef struct Pos {
    int *start;      /* per block */
    int *block;      /* per position: its block */
    int n;           /* positions */
} Pos;

typedef struct Seg {
    int lo, hi;      /* positions, inclusive */
} Seg;

typedef struct Range {
    int lo, hi;      /* positions; lo -1: an argument, live from the entry */
    Seg *seg;        /* where it is live, in order: lo..hi less the holes */
    int nseg, capseg;
    int reg;         /* assigned register number, -1 = none */
    int hint;        /* preferred register, -1 = none */
    bool pinned;     /* an argument in its calling-convention register */
    bool live_out;   /* live at the end of some block (crosses an edge) */
} Range;

typedef struct Fixed { /* a physical register named in the code */
    int pos;
    bool def, use;
} Fixed;

typedef struct Ra {
    const RkTarget *t;
    const RkMModule *m;
    RkMFunc *f;
    Pos pos;
    Range *r;        /* per vreg */
    int *owner[RK_RC_COUNT]; /* per register number: the vreg holding it at the stuck
                                position + 1, 0 = free (ra_holders) */
    int **given[RK_RC_COUNT]; /* per register number: the vregs given it so far
                                 that may still clash (scan.c taken) */
    int settled;             /* no value met from here on is live before this */
    int *ngiven[RK_RC_COUNT], *capgiven[RK_RC_COUNT];
    uint64_t *allowed;       /* per vreg: the registers it may hold (rk_mir_vreg_allowed) */
    int *writes;             /* per vreg: the instructions writing it (rk_mir_write_counts) */
    uint64_t limited[RK_RC_COUNT]; /* registers some limited vreg of the class may need */
    int nlimited[RK_RC_COUNT];     /* limited vregs of the class */
    Fixed *fixed[RK_RC_COUNT][RK_REG_MAX];
    int nfixed[RK_RC_COUNT][RK_REG_MAX];
    int capfixed[RK_RC_COUNT][RK_REG_MAX];
} Ra;

/* main.c: --refused FILE, or NULL; with it, a function refused for
 * registers jumps to ra_next_function, and the others are allocated */
extern const char *ra_refused_file;
extern jmp_buf ra_next_function;
extern bool ra_no_recompute; /* --no-recompute: recompute.c is not tried */

/* live.c */
void ra_positions(Ra *ra);
void ra_intervals(Ra *ra);
bool ra_live_at(const Ra *ra, int v, int pos);
RkMInstr *ra_instr_at(Ra *ra, int pos); /* NULL for a block entry or terminator */

/* scan.c: -1 when every vreg has a register, else the stuck position
 * (*cls its class) */
int ra_scan(Ra *ra, int *cls);
void ra_holders(Ra *ra, int pos); /* owner[][] at pos */
bool ra_rematerialise(Ra *ra, int stuck, int cls);
bool ra_column_load(const RkMInstr *in); /* a stack run's column pointer from its descriptor */
/* v's readers read a fresh copy made by `load` right before them (one per
 * block, none across `stuck`); drop: v's own definition (at its range's
 * start) goes */
void ra_split_with(Ra *ra, int v, int stuck, int cls, const RkMInstr *load, bool drop);
/* whether v is a block parameter or the register a branch tests */
bool ra_carried(Ra *ra, int v, int cls);
/* stackarg.c: true if it freed a general register at `stuck` by giving
 * back a stack argument or its sign extension, reloaded from its slot */
bool ra_stack_reload(Ra *ra, int stuck, int cls);
_Noreturn void ra_out_of_registers(Ra *ra, int stuck, int cls);
bool ra_defines(const RkMInstr *in, int v); /* writes v whole, unmasked */
bool ra_occurs_at(Ra *ra, int pos, int v);
int ra_next_use(Ra *ra, int v, int stuck); /* past v's range: none */
void ra_rename_from(Ra *ra, int b, int from, int old, int fresh);
/* whether an instruction at a position in [from, to] writes vreg v */
bool ra_written_between(Ra *ra, int v, int from, int to);

/* recompute.c: true if it freed a register of class cls at `stuck` by
 * computing a value again before its next read */
bool ra_recompute(Ra *ra, int stuck, int cls);

/* commute.c: true if it swapped operands (the intervals are then stale) */
bool ra_commute(Ra *ra);

/* resolve.c */
void ra_resolve(Ra *ra);

#endif

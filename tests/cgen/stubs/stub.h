/* stub.h: what a native general run does when a check fails, in C.
 *
 * tests/58-cgen-general.bats links a program's C unit with a stub
 * (tests/cgen/stubs/PROGRAM.c) that defines each of its general runs in
 * plain C with the C boundary's signature: it checks every access as the
 * run's native code will, with x86-sse2's four f32 lanes, and a failing
 * check calls the unit's rk_trap_LINE_COL helper with the slots the
 * helper contract names (docs/slow-tier.md): [start, end, count] for a
 * rack load or store, [index, count] for an element, none for a loop's
 * step.  The helper prints the trap and exits; it never returns. */
#ifndef RAKE_TEST_STUB_H
#define RAKE_TEST_STUB_H

#include <stdint.h>
#include <string.h>

#define LANES 4

typedef void trap_fn(unsigned char *rk_io);

/* a rack of LANES elements from k, in a view of n */
__attribute__((unused)) static void rack(trap_fn *trap, int64_t k, int64_t n)
{
    int64_t slots[3] = {k, k + LANES, n};
    if (k < 0 || k + LANES > n)
        trap((unsigned char *)slots);
}

/* one element at k, in a view of n */
__attribute__((unused)) static void element(trap_fn *trap, int64_t k, int64_t n)
{
    int64_t slots[2] = {k, n};
    if (k < 0 || k >= n)
        trap((unsigned char *)slots);
}

/* a counted loop's step */
__attribute__((unused)) static void step(trap_fn *trap, int64_t s)
{
    unsigned char none[8] = {0};
    if (s <= 0)
        trap(none);
}

#endif

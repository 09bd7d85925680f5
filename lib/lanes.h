/* lanes.h: the meaning of one lane of each rack operation.
 *
 * These functions are Rake's reference semantics for a single lane (or a
 * single slow-code scalar, where the slow tier shares the rule).  The
 * interpreter applies them lane by lane; the native-IR evaluator uses the
 * same functions, so a difference between the two is a difference in
 * lowering, never in arithmetic.  Everything here is IEEE binary32 with
 * round-to-nearest-even and no contraction: this file must be compiled
 * with -ffp-contract=off (the Makefile does), and never with -ffast-math.
 *
 * Floats are passed as their bit patterns (uint32_t) wherever a NaN's
 * payload or a zero's sign matters. */
#ifndef RK_LANES_H
#define RK_LANES_H

#include <stdbool.h>
#include <stdint.h>

#define RK_CANONICAL_NAN 0x7fc00000u

float rk_f32(uint32_t bits);
uint32_t rk_bits(float f);
bool rk_f32_is_nan(uint32_t bits);

/* IEEE minimum and maximum: a NaN operand gives the canonical quiet NaN;
 * -0 orders below +0; on a tie the left operand is kept.  This is both
 * the lane-wise min/max and the step of minimum/maximum reductions. */
uint32_t rk_f32_min(uint32_t a, uint32_t b);
uint32_t rk_f32_max(uint32_t a, uint32_t b);

uint32_t rk_f32_abs(uint32_t a);    /* clear the sign bit */
uint32_t rk_f32_neg(uint32_t a);    /* flip the sign bit */
uint32_t rk_f32_sqrt(uint32_t a);
uint32_t rk_f32_floor(uint32_t a);  /* NaN in, quiet NaN out; zero signs kept */
uint32_t rk_f32_ceil(uint32_t a);
uint32_t rk_f32_trunc(uint32_t a);
uint32_t rk_f32_nearest(uint32_t a); /* ties to even */
uint32_t rk_f32_fma(uint32_t a, uint32_t b, uint32_t c); /* one rounding */

/* Conversions of racks: round to nearest even, saturate, NaN to 0,
 * negatives to 0 for to_u32. */
int32_t rk_f32_to_i32(uint32_t a);
uint32_t rk_f32_to_u32(uint32_t a);
uint32_t rk_i32_to_f32(int32_t a);
uint32_t rk_u32_to_f32(uint32_t a);

/* Cephes single-precision exp, log, log2, tanh as fixed binary32
 * sequences (docs/semantics.md gives each step). */
uint32_t rk_f32_exp(uint32_t a);
uint32_t rk_f32_log(uint32_t a);
uint32_t rk_f32_log2(uint32_t a);
uint32_t rk_f32_tanh(uint32_t a);

#endif

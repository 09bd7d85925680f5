/* lanewise.h: rack operations on one lane held in canonical form.
 *
 * A lane (or a uniform) is a uint64_t: a float's bit pattern, a signed
 * integer sign-extended, an unsigned one zero-extended, a bool 0 or 1.
 * These helpers give each operation its reference meaning on that form,
 * on top of the binary32 rules of lanes.h, so that every evaluator (the
 * interpreter, the native-IR evaluator) computes a lane the same way. */
#ifndef RK_LANEWISE_H
#define RK_LANEWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

uint64_t rk_lane_norm(RkElem e, uint64_t x);
/* + - * / (wrapping for integers; / only for f32) */
uint64_t rk_lane_arith(char op, RkElem e, uint64_t a, uint64_t b);
/* = != < <= > >=, given as "eq" "ne" "lt" "le" "gt" "ge"; floats ordered */
bool rk_lane_compare(const char *cmp, RkElem e, uint64_t a, uint64_t b);
uint64_t rk_lane_minmax(bool max, RkElem e, uint64_t a, uint64_t b);
uint64_t rk_lane_neg(RkElem e, uint64_t a);
/* abs: floats clear the sign; u8 lanes are read as signed bytes */
uint64_t rk_lane_abs(RkElem e, uint64_t a);
/* 'l' left, 'r' right (zero fill), 's' right copying the high bit; the
 * count is taken modulo the lane width */
uint64_t rk_lane_shift(char kind, RkElem e, uint64_t x, uint64_t count);
/* f32 unary: "sqrt" "floor" "ceil" "trunc" "nearest" "exp" "log" "log2" "tanh" */
uint64_t rk_lane_f32_unary(const char *op, uint64_t a);
/* "sum" "product" "minimum" "maximum": one step of a left fold */
uint64_t rk_lane_reduce_step(const char *op, RkElem e, uint64_t acc, uint64_t x);

#endif

/* nirproof.h: what a mask proves about a rack's lanes.
 *
 * A sweep's second tine runs under NOT the first: its comparison's
 * operands are replaced by benign values in the lanes the first tine
 * took, so that no lane a tine doesn't run in raises a floating-point
 * exception (01-tines-through-sweeps.md).  Where the first tine is
 * `x >= <90.0>`, the lanes it took hold a normal x (or +inf), and a
 * comparison of a normal number or an infinity raises nothing, not even
 * x86's denormal-operand flag: the replacement changes nothing there.
 * rake-opt drops it and the IR verifier (lib/nirverify.c) accepts the
 * operand, both through this one function, so the rule is written once. */
#ifndef RK_NIRPROOF_H
#define RK_NIRPROOF_H

#include <stdbool.h>

#include "nir.h"

/* The instruction defining value id, or NULL (a parameter, none). */
typedef RkInstr *(*RkNirDefOf)(const void *ctx, int id);

/* Whether op is a float comparison: an operation that raises nothing
 * when each of its operands is zero, normal or infinite. */
bool rk_nir_op_quiet_on_normal(RkOp op);

/* Whether, in every lane where mask value t is false, f32 rack value x
 * holds a normal number or an infinity: t is `mask.not m` (or mask.and of
 * such) and wherever m is true a comparison of x with a constant passed
 * that only such values pass (x >= k or x > k with k at least the
 * smallest normal, x <= k or x < k with k at most its negation, x = k
 * with k normal or infinite; k on either side), through mask.or,
 * mask.and and mask.not, and through x's own benign replacement by 0.0
 * (a lane holding the 0.0 passes none of those). */
bool rk_nir_normal_outside(RkNirDefOf def, const void *ctx, int t, int x);

#endif

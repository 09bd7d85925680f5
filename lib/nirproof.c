/* nirproof.c: what a mask proves about a rack's lanes (nirproof.h).
 *
 * The proof walks the masks' definitions, a few levels deep (a sweep's
 * later tines run under `mask.and` of the earlier ones' negations):
 *
 *   outside(t): every lane where t is false holds a normal x
 *     t = mask.not m      inside(m)
 *     t = mask.and a, b   outside(a) and outside(b)
 *   inside(m): every lane where m is true holds a normal x
 *     m = mask.or a, b    inside(a) and inside(b)
 *     m = mask.and a, b   inside(a) or inside(b)
 *     m = mask.not a      outside(a)
 *     m = rack.cmp.OP v, k (or k, v) with the constant k passing only
 *         normal numbers and infinities, v being x or x's benign 0.0
 *         replacement (whose 0.0 lanes fail the comparison)
 *
 * "Normal" below includes the infinities: neither makes a comparison
 * raise.  NaN, zero and the subnormals never pass x >= k for k at least
 * 2^-126, and so on for the other comparisons. */
#include "nirproof.h"

#include <math.h>
#include <string.h>

enum { DEPTH = 8 };

static const float SMALLEST_NORMAL = 0x1p-126f;

bool rk_nir_op_quiet_on_normal(RkOp op)
{
    switch (op) {
    case RK_OP_RACK_CMP_EQ: case RK_OP_RACK_CMP_NE: case RK_OP_RACK_CMP_LT:
    case RK_OP_RACK_CMP_LE: case RK_OP_RACK_CMP_GT: case RK_OP_RACK_CMP_GE:
        return true;
    default:
        return false;
    }
}

static bool f32_splat(RkNirDefOf def, const void *ctx, int id, float *k)
{
    RkInstr *d = def(ctx, id);
    if (!d || d->opc != RK_OP_RACK_SPLAT || d->nargs || !d->type || d->type->elem != RK_E_F32)
        return false;
    uint32_t bits = (uint32_t)d->bits;
    memcpy(k, &bits, sizeof *k);
    return !isnan(*k);
}

/* Whether v is x, or x's benign replacement by +0.0 (mask.select m, x, 0.0). */
static bool is_x(RkNirDefOf def, const void *ctx, int v, int x)
{
    if (v == x)
        return true;
    RkInstr *d = def(ctx, v);
    float k;
    return d && d->opc == RK_OP_MASK_SELECT && d->nargs == 3 && d->args[1] == x &&
           f32_splat(def, ctx, d->args[2], &k) && k == 0.0f;
}

/* Whether a comparison OP of v (on the left when left) with k passes only
 * normal numbers and infinities. */
static bool passes_only_normal(RkOp op, bool left, float k)
{
    if (!left) /* k OP v: v's comparison is the mirror image */
        op = op == RK_OP_RACK_CMP_LT   ? RK_OP_RACK_CMP_GT
             : op == RK_OP_RACK_CMP_LE ? RK_OP_RACK_CMP_GE
             : op == RK_OP_RACK_CMP_GT ? RK_OP_RACK_CMP_LT
             : op == RK_OP_RACK_CMP_GE ? RK_OP_RACK_CMP_LE
                                       : op;
    switch (op) {
    case RK_OP_RACK_CMP_GE: case RK_OP_RACK_CMP_GT:
        return k >= SMALLEST_NORMAL;
    case RK_OP_RACK_CMP_LE: case RK_OP_RACK_CMP_LT:
        return k <= -SMALLEST_NORMAL;
    case RK_OP_RACK_CMP_EQ:
        return fabsf(k) >= SMALLEST_NORMAL;
    default:
        return false;
    }
}

static bool outside(RkNirDefOf def, const void *ctx, int t, int x, int depth);

static bool inside(RkNirDefOf def, const void *ctx, int m, int x, int depth)
{
    RkInstr *d = depth < DEPTH ? def(ctx, m) : NULL;
    if (!d)
        return false;
    switch (d->opc) {
    case RK_OP_MASK_OR:
        return d->nargs == 2 && inside(def, ctx, d->args[0], x, depth + 1) &&
               inside(def, ctx, d->args[1], x, depth + 1);
    case RK_OP_MASK_AND:
        return d->nargs == 2 && (inside(def, ctx, d->args[0], x, depth + 1) ||
                                 inside(def, ctx, d->args[1], x, depth + 1));
    case RK_OP_MASK_NOT:
        return d->nargs == 1 && outside(def, ctx, d->args[0], x, depth + 1);
    default:
        break;
    }
    if (!rk_nir_op_quiet_on_normal(d->opc) || d->nargs != 2)
        return false;
    for (int side = 0; side < 2; side++) {
        float k;
        if (is_x(def, ctx, d->args[side], x) && f32_splat(def, ctx, d->args[1 - side], &k) &&
            passes_only_normal(d->opc, side == 0, k))
            return true;
    }
    return false;
}

static bool outside(RkNirDefOf def, const void *ctx, int t, int x, int depth)
{
    RkInstr *d = depth < DEPTH ? def(ctx, t) : NULL;
    if (!d)
        return false;
    if (d->opc == RK_OP_MASK_NOT && d->nargs == 1)
        return inside(def, ctx, d->args[0], x, depth + 1);
    if (d->opc == RK_OP_MASK_AND && d->nargs == 2)
        return outside(def, ctx, d->args[0], x, depth + 1) &&
               outside(def, ctx, d->args[1], x, depth + 1);
    return false;
}

bool rk_nir_normal_outside(RkNirDefOf def, const void *ctx, int t, int x)
{
    return outside(def, ctx, t, x, 0);
}

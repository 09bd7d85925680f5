/* masks.c: masks known before the program runs.
 *
 * A scratch called with a constant, once inlined, often compares lanes
 * whose outcome is fixed: `if (x2 <= x2) then ... else ...` on integer
 * lanes is true in every lane, and `c20_h(x, y, <-2147483648>)` makes
 * its comparison one of two splats.  Such a comparison becomes a
 * `mask.const` (an integer comparison of a value with itself, or of two
 * integer splats, computed by lib/lanewise as the evaluators compute
 * it; f32 lanes are left alone, NaN and the flags being what they are),
 * and what reads a constant mask folds:
 *   - mask.and, mask.or with a constant side are the other side or the
 *     constant, mask.not of a constant the other constant;
 *   - mask.select on a constant mask is the arm it picks; a benign one
 *     (the sanitising of an operand) only under an all-true mask, where
 *     it is its operand;
 *   - an operation under an all-true mask (`through`) is under none: its
 *     `through` and `sanitized` marks go (every lane is active, so there
 *     is nothing to keep harmless).
 * An all-false through mask stays as it is: its operation's benign
 * operands keep it valid, and nothing reads it once its selects fold. */
#include "lanewise.h"
#include "nirops.h"
#include "opt.h"
#include "types.h"

#include <string.h>

/* the value of mask.const %id: 1 all true, 0 all false, -1 not one */
static int known(Fn *x, int id)
{
    RkInstr *d = id >= 0 && id < x->f->nvalues ? x->def[id] : NULL;
    return d && d->opc == RK_OP_MASK_CONST && d->nargs == 0 ? (int)(d->bits & 1) : -1;
}

static RkInstr *int_splat(Fn *x, int id)
{
    RkInstr *d = id >= 0 && id < x->f->nvalues ? x->def[id] : NULL;
    return d && d->opc == RK_OP_RACK_SPLAT && d->nargs == 0 ? d : NULL;
}

static void make_mask(RkInstr *in, bool value)
{
    rk_nir_set_op(in, RK_OP_MASK_CONST);
    in->nargs = 0;
    in->bits = value;
    in->through = -1;
    in->fused = -1;
    in->benign = in->sanitized = false;
}

/* An integer comparison whose outcome is the same in every lane. */
static bool fixed_compare(Fn *x, RkInstr *in)
{
    const RkOpInfo *op = rk_nir_op_info(in->opc);
    if (!op || op->shape != SH_CMP || in->nargs != 2)
        return false;
    const RkType *t = in->args[0] >= 0 && in->args[0] < x->f->nvalues ? x->type[in->args[0]] : NULL;
    if (!t || t->kind != RK_T_RACK || !rk_elem_is_int(t->elem))
        return false;
    const char *pred = strrchr(op->name, '.') + 1;
    RkInstr *a = int_splat(x, in->args[0]), *b = int_splat(x, in->args[1]);
    if (in->args[0] == in->args[1])
        make_mask(in, rk_lane_compare(pred, t->elem, 0, 0));
    else if (a && b)
        make_mask(in, rk_lane_compare(pred, t->elem, rk_lane_norm(t->elem, a->bits),
                                      rk_lane_norm(t->elem, b->bits)));
    else
        return false;
    return true;
}

/* The value in reads to, -1 if none (then *folded tells whether it
 * became a constant itself). */
static int reduce(Fn *x, RkInstr *in, bool *folded)
{
    *folded = false;
    int k0 = in->nargs > 0 ? known(x, in->args[0]) : -1, k1 = in->nargs > 1 ? known(x, in->args[1]) : -1;
    switch (in->opc) {
    case RK_OP_MASK_NOT:
        if (k0 >= 0)
            make_mask(in, !k0), *folded = true;
        return -1;
    case RK_OP_MASK_AND:
    case RK_OP_MASK_OR: {
        bool and = in->opc == RK_OP_MASK_AND;
        for (int s = 0; s < 2; s++) {
            int k = s ? k1 : k0;
            if (k < 0)
                continue;
            return k == and ? in->args[1 - s] : in->args[s]; /* x and true, x or false: x */
        }
        return -1;
    }
    case RK_OP_MASK_SELECT:
        if (k0 == 1)
            return in->args[1];
        if (k0 == 0 && !in->benign)
            return in->args[2];
        return -1;
    default:
        *folded = fixed_compare(x, in);
        return -1;
    }
}

bool opt_known_masks(Fn *x)
{
    bool changed = false;
    for (int i = 0; i < x->f->nblocks; i++) {
        RkBlock *b = x->f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *in = b->instrs[j];
            if (in->through >= 0 && known(x, in->through) == 1) {
                in->through = -1;
                in->sanitized = false;
                changed = true;
            }
            if (in->id < 0 || !x->uses[in->id])
                continue;
            bool folded;
            int to = reduce(x, in, &folded);
            if (to >= 0) {
                opt_replace_uses(x, in->id, to);
                x->uses[in->id] = 0;
            }
            changed |= to >= 0 || folded;
        }
    }
    return changed;
}

/* select.c: one native-IR operation at a time.
 *
 * Uniform values (f32, i32, u32, bool) live broadcast in vector registers,
 * so uniform arithmetic, uniform comparisons and the uniform `if` are the
 * same vector instructions as rack work, and a Boolean is a mask of
 * all-ones or all-zero lanes.  `rack.splat` of a uniform is then free.
 * An operation with no native form here rejects the function, naming the
 * operation: nothing falls back to scalar code or a helper call. */
#include <string.h>

#include "arena.h"
#include "isel.h"
#include "nirops.h"

static int in_v(RkInstr *in, int k) { return S->vreg[in->args[k]]; }
static const RkType *arg_t(RkInstr *in, int k) { return S->type[in->args[k]]; }

static _Noreturn void unsupported(RkInstr *in, const char *why)
{
    RkLoc l = in->loc;
    if (l.line > 0)
        rk_diag_fatal(l, "native instruction selection failed: %s has no native form "
                         "on %s%s%s",
                      in->op, S->profile->name, why ? ": " : "", why ? why : "");
    rk_diag_fatal(l, "native instruction selection failed in %s: %s has no native "
                     "form on %s%s%s",
                  S->nf->name, in->op, S->profile->name, why ? ": " : "", why ? why : "");
}

static bool is_f32(const RkType *t) { return t && t->elem == RK_E_F32; }

static int arith(RkInstr *in, char op)
{
    int a = in_v(in, 0), b = in_v(in, 1);
    if (is_f32(arg_t(in, 0))) {
        switch (op) {
        case '+': return vbin("addps", "vaddps", "vaddps", a, b);
        case '-': return vbin("subps", "vsubps", "vsubps", a, b);
        case '*': return vbin("mulps", "vmulps", "vmulps", a, b);
        default: return vbin("divps", "vdivps", "vdivps", a, b);
        }
    }
    if (op == '/')
        unsupported(in, "integers don't divide");
    if (op == '*')
        return imul(a, b);
    /* a + (m ? 1 : 0) is a - m, a mask's lanes being all ones (-1), and
     * a - (m ? 1 : 0) is a + m (AVX-512: a +- 1 under m's k register):
     * the blend goes if nothing else reads it */
    if (op == '+' && ones_of_mask(a) >= 0 && ones_of_mask(b) < 0) {
        int t = a;
        a = b;
        b = t;
    }
    if (ones_of_mask(b) >= 0 && S->level == AVX512)
        return merge_count(op, a, ones_of_mask(b));
    if (ones_of_mask(b) >= 0)
        return op == '+' ? vbin("psubd", "vpsubd", "vpsubd", a, ones_of_mask(b))
                         : vbin("paddd", "vpaddd", "vpaddd", a, ones_of_mask(b));
    return op == '+' ? vbin("paddd", "vpaddd", "vpaddd", a, b)
                     : vbin("psubd", "vpsubd", "vpsubd", a, b);
}

static int compare(RkInstr *in, const char *pred)
{
    const RkType *t = arg_t(in, 0);
    if (is_f32(t))
        return fcmp(pred, in_v(in, 0), in_v(in, 1));
    if (t->elem == RK_E_BOOL) {
        int eq = vbin("pcmpeqd", "vpcmpeqd", "", in_v(in, 0), in_v(in, 1));
        if (!strcmp(pred, "eq"))
            return eq;
        if (!strcmp(pred, "ne"))
            return vnot(eq);
        unsupported(in, "bools compare with = and != only");
    }
    return icmp(pred, t->elem == RK_E_I32, in_v(in, 0), in_v(in, 1));
}

static int constant(RkInstr *in)
{
    const RkType *t = in->type;
    uint32_t bits = (uint32_t)in->bits;
    if (t->kind == RK_T_MASK || (t->kind == RK_T_SCALAR && t->elem == RK_E_BOOL))
        bits = in->bits ? 0xffffffffu : 0;
    return konst_splat(bits);
}

static void check_width(RkInstr *in)
{
    const RkType *ts[4] = {in->type, NULL, NULL, NULL};
    for (int k = 0; k < in->nargs && k < 3; k++)
        ts[k + 1] = arg_t(in, k);
    for (int k = 0; k < 4; k++) {
        const RkType *t = ts[k];
        if (!t || t->kind == RK_T_MASK)
            continue;
        if ((t->kind == RK_T_RACK || t->kind == RK_T_SCALAR) && t->elem != RK_E_F32 &&
            t->elem != RK_E_I32 && t->elem != RK_E_U32 && t->elem != RK_E_BOOL)
            unsupported(in, rk_arena_printf(&rk_heap, "%s lanes compile only on WebAssembly",
                                            rk_elem_name(t->elem)));
        if (t->kind == RK_T_PTR || t->kind == RK_T_VIEW || t->kind == RK_T_STACK)
            unsupported(in, "memory accesses belong to runs, which this backend doesn't "
                            "compile yet");
    }
}

static int unary(RkInstr *in)
{
    int a = in_v(in, 0);
    bool f = is_f32(in->type);
    switch (in->opc) {
    case RK_OP_RACK_NEG:
    case RK_OP_U_NEG:
        return f ? vlogic('^', a, konst_splat(0x80000000u)) : ineg(a);
    case RK_OP_RACK_ABS:
        return f ? vlogic('&', a, konst_splat(0x7fffffffu)) : iabs(a);
    case RK_OP_RACK_SQRT: {
        int d = fresh();
        ins(pick("sqrtps", "vsqrtps", "vsqrtps"), 2, rk_mvd(d), rk_mv(a));
        return d;
    }
    case RK_OP_RACK_FLOOR: return fround('f', a);
    case RK_OP_RACK_CEIL: return fround('c', a);
    case RK_OP_RACK_TRUNC: return fround('t', a);
    case RK_OP_RACK_NEAREST: return fround('n', a);
    default: unsupported(in, NULL);
    }
}

/* The comparison's predicate: what follows "cmp." in its name. */
static const char *predicate(RkInstr *in)
{
    return strrchr(rk_nir_op_name(in->opc), '.') + 1;
}

static int shift(RkInstr *in, char k)
{
    /* a literal count is taken modulo 32 too (rk_lane_shift): x86
     * shifts by an immediate of 32 or more give 0 or the sign */
    return in->nargs == 2 ? shift_var(k, in_v(in, 0), in_v(in, 1))
                          : shift_imm(k, in_v(in, 0), (int)(in->imm & 31));
}

/* The reductions and scans by what they combine with. */
static int fold_kind(RkOp op)
{
    switch (op) {
    case RK_OP_RACK_SUM: case RK_OP_RACK_SCAN_SUM: return RK_FOLD_SUM;
    case RK_OP_RACK_PRODUCT: case RK_OP_RACK_SCAN_PRODUCT: return RK_FOLD_PRODUCT;
    case RK_OP_RACK_MINIMUM: case RK_OP_RACK_SCAN_MINIMUM: return RK_FOLD_MIN;
    default: return RK_FOLD_MAX;
    }
}

static int minmax(RkInstr *in, bool max)
{
    const RkType *t = in->type;
    return is_f32(t) ? fminmax(max, false, in_v(in, 0), in_v(in, 1))
                     : iminmax(max, t->elem == RK_E_I32, in_v(in, 0), in_v(in, 1));
}

/* Whether mask operation `in` combines a run's tail mask (lanes_below,
 * which only runs have) with another: the tail's k register is live
 * through its block anyway, so k_logic lengthens no k register's life but
 * the result's, which the stores read.  Elsewhere masks combine as
 * vectors: k registers are seven, and a combined mask kept in one would
 * hold it until its last use (rakes with many tines ran out). */
static bool with_tail(const RkInstr *in)
{
    for (int k = 0; k < 2; k++) {
        const RkInstr *d = nir_def(in->args[k]);
        if (d && d->opc == RK_OP_MASK_LANES_BELOW)
            return true;
    }
    return false;
}

/* The id of the instruction select_instr selected last. */
static int last_selected = -1;

/* not (a > b) of racks, right after the comparison, as one comparison
 * with the complementary predicate (AVX-512): the else arm then has a k
 * register of its own to run under, as the then arm has (a `where not
 * #t`'s division merges into the loaded column under it, no blend).  For
 * f32 the AVX predicate with bit 2 flipped (fcmp_not: true on a NaN, as
 * the not is); for i32 and u32 vpcmpd/vpcmpud's, likewise (icmp_not).
 * The comparison itself goes if nothing else reads it (fold.c's dead-
 * instruction sweep); right after it, its operands live no longer. */
static int complement_compare(RkInstr *in)
{
    RkInstr *d = nir_def(in->args[0]);
    if (S->level != AVX512 || !d || d->id != last_selected)
        return -1;
    switch (d->opc) {
    case RK_OP_RACK_CMP_EQ: case RK_OP_RACK_CMP_NE: case RK_OP_RACK_CMP_LT:
    case RK_OP_RACK_CMP_LE: case RK_OP_RACK_CMP_GT: case RK_OP_RACK_CMP_GE: break;
    default: return -1;
    }
    const RkType *t = arg_t(d, 0);
    int a = S->vreg[d->args[0]], b = S->vreg[d->args[1]];
    if (is_f32(t))
        return fcmp_not(predicate(d), a, b);
    if (t->elem != RK_E_I32 && t->elem != RK_E_U32)
        return -1;
    return icmp_not(predicate(d), t->elem == RK_E_I32, a, b);
}

static int lane_op(RkInstr *in)
{
    switch (in->opc) {
    case RK_OP_RACK_ADD: case RK_OP_U_ADD: return arith(in, '+');
    case RK_OP_RACK_SUB: case RK_OP_U_SUB: return arith(in, '-');
    case RK_OP_RACK_MUL: case RK_OP_U_MUL: return arith(in, '*');
    case RK_OP_RACK_DIV: case RK_OP_U_DIV: return arith(in, '/');
    case RK_OP_RACK_MIN: return minmax(in, false);
    case RK_OP_RACK_MAX: return minmax(in, true);
    case RK_OP_MASK_AND: case RK_OP_MASK_OR: {
        char op = in->opc == RK_OP_MASK_AND ? '&' : '|';
        int k = with_tail(in) ? k_logic(op, in_v(in, 0), in_v(in, 1)) : -1;
        return k >= 0 ? k : vlogic(op, in_v(in, 0), in_v(in, 1));
    }
    case RK_OP_RACK_AND: case RK_OP_U_AND: return vlogic('&', in_v(in, 0), in_v(in, 1));
    case RK_OP_RACK_OR: case RK_OP_U_OR: return vlogic('|', in_v(in, 0), in_v(in, 1));
    case RK_OP_RACK_XOR: return vlogic('^', in_v(in, 0), in_v(in, 1));
    case RK_OP_RACK_ANDNOT: return vlogic('n', in_v(in, 0), in_v(in, 1));
    case RK_OP_MASK_NOT: {
        int c = complement_compare(in);
        return c >= 0 ? c : vnot(in_v(in, 0));
    }
    case RK_OP_U_NOT: return vnot(in_v(in, 0));
    case RK_OP_RACK_FMA:
        if (!S->profile->fma)
            unsupported(in, "no fused multiply-add instruction");
        return fma3(in_v(in, 0), in_v(in, 1), in_v(in, 2));
    case RK_OP_RACK_SHL: return shift(in, 'l');
    case RK_OP_RACK_SHR: return shift(in, 'r');
    case RK_OP_RACK_SAR: return shift(in, 's');
    case RK_OP_RACK_CMP_EQ: case RK_OP_RACK_CMP_NE: case RK_OP_RACK_CMP_LT:
    case RK_OP_RACK_CMP_LE: case RK_OP_RACK_CMP_GT: case RK_OP_RACK_CMP_GE:
    case RK_OP_U_CMP_EQ: case RK_OP_U_CMP_NE: case RK_OP_U_CMP_LT:
    case RK_OP_U_CMP_LE: case RK_OP_U_CMP_GT: case RK_OP_U_CMP_GE:
        return compare(in, predicate(in));
    case RK_OP_RACK_TO_F32: return cvt_to_f32(arg_t(in, 0)->elem == RK_E_I32, in_v(in, 0));
    case RK_OP_RACK_TO_I32: return cvt_to_i32(in_v(in, 0));
    case RK_OP_RACK_TO_U32: return cvt_to_u32(in_v(in, 0));
    case RK_OP_RACK_BITCAST: case RK_OP_COPY: case RK_OP_MASK_SPLAT: return in_v(in, 0);
    case RK_OP_RACK_EXTRACT: return bcast_lane(in_v(in, 0), (int)in->imm);
    case RK_OP_RACK_INSERT: return insert_lane(in_v(in, 0), (int)in->imm, in_v(in, 1));
    case RK_OP_RACK_SHUFFLE:
        return shuffle(in_v(in, 0), in->nargs > 1 ? in_v(in, 1) : -1, in->lanes, in->nlanes);
    case RK_OP_RACK_SUM: case RK_OP_RACK_PRODUCT: case RK_OP_RACK_MINIMUM: case RK_OP_RACK_MAXIMUM:
        return reduce(fold_kind(in->opc), arg_t(in, 0)->elem, in_v(in, 0), false);
    case RK_OP_RACK_SCAN_SUM: case RK_OP_RACK_SCAN_PRODUCT: case RK_OP_RACK_SCAN_MINIMUM:
    case RK_OP_RACK_SCAN_MAXIMUM:
        return reduce(fold_kind(in->opc), arg_t(in, 0)->elem, in_v(in, 0), true);
    case RK_OP_RACK_SPLAT: return in->nargs ? in_v(in, 0) : constant(in);
    case RK_OP_CONST: case RK_OP_MASK_CONST: return constant(in);
    case RK_OP_MASK_SELECT: case RK_OP_U_SELECT:
        return blend(in_v(in, 0), in_v(in, 1), in_v(in, 2));
    case RK_OP_MASK_ALL: return mask_fold(true, in_v(in, 0));
    case RK_OP_MASK_ANY: return mask_fold(false, in_v(in, 0));
    case RK_OP_MASK_BITMASK: return bitmask(in_v(in, 0));
    default: return unary(in);
    }
}

/* The value benign select `id` sanitises, if that value is 0 outside
 * the select's mask already (a tail's masked load, or computed from
 * such), or -1. */
static int zero_benign(int id)
{
    RkInstr *d = nir_def(id);
    if (!d || d->opc != RK_OP_MASK_SELECT || !d->benign)
        return -1;
    return zero_outside(S->vreg[d->args[1]]) == S->vreg[d->args[0]] ? d->args[1] : -1;
}

/* Whether sanitised multiplication or square root `in` reads its
 * operand k as the value its benign select sanitises: that value is 0
 * outside the mask already, and sqrt(+0) and 0 times a finite value (the
 * other operand's benign 1.0, a constant the lowering kept) raise
 * nothing.  SSE2 and AVX2; AVX-512 computes such operations under the k
 * register on raw operands anyway (maskfuse.c). */
static bool raw_operand(const RkInstr *in, int k)
{
    if (S->level == AVX512 || !in->sanitized ||
        (in->opc != RK_OP_RACK_MUL && in->opc != RK_OP_RACK_SQRT) || zero_benign(in->args[k]) < 0)
        return false;
    if (in->opc == RK_OP_RACK_SQRT)
        return true;
    const RkInstr *o = nir_def(in->args[1 - k]);
    return o && ((o->opc == RK_OP_MASK_SELECT && o->benign) ||
                 (o->opc == RK_OP_RACK_SPLAT && !o->nargs));
}

/* A benign select only raw_operand's reader reads: not made at all. */
static bool unread_select(const RkInstr *in)
{
    const RkInstr *r = S->reader[in->id];
    if (in->opc != RK_OP_MASK_SELECT || !in->benign || !r)
        return false;
    for (int k = 0; k < r->nargs; k++)
        if (r->args[k] == in->id)
            return raw_operand(r, k);
    return false;
}

/* `in` with the operands raw_operand allows read raw, in tmp; whether
 * any is.  The product is +0 outside the mask where the other operand is
 * a benign select (its 1.0, or 0: `*zero`). */
static bool raw_operands(RkInstr *in, RkInstr *tmp, int *args, bool *zero)
{
    *zero = false;
    if (in->nargs > 2)
        return false;
    bool any = false;
    *tmp = *in;
    tmp->args = args;
    for (int k = 0; k < in->nargs; k++) {
        args[k] = in->args[k];
        if (!raw_operand(in, k))
            continue;
        args[k] = zero_benign(in->args[k]);
        any = true;
        if (in->nargs == 2) {
            const RkInstr *o = nir_def(in->args[1 - k]);
            *zero |= o->opc == RK_OP_MASK_SELECT && o->args[0] == nir_def(in->args[k])->args[0];
        }
    }
    return any;
}

int select_instr(RkInstr *in)
{
    S->origin = in->op;
    S->nir = in->id;
    S->loc = in->loc;
    check_width(in);
    /* the table says which operations x86 has natively (the others exist
     * only on WebAssembly); nothing falls back to scalar code */
    if (!rk_nir_op_on_arch(in->opc, RK_ARCH_X86))
        unsupported(in, NULL);
    if (unread_select(in))
        return -1;
    RkInstr tmp;
    int args[2];
    bool zero;
    int d = raw_operands(in, &tmp, args, &zero) ? lane_op(&tmp) : lane_op(in);
    if (zero)
        note_zero_out(d, S->vreg[nir_def(in->args[0])->args[0]]);
    last_selected = in->id;
    if ((rk_nir_op_info(in->opc)->flags & RK_OPF_ZERO) && in->nargs <= 3) {
        int src[3], n = 0; /* its racks: a shift's count is uniform */
        for (int k = 0; k < in->nargs; k++)
            if (arg_t(in, k)->kind == RK_T_RACK)
                src[n++] = in_v(in, k);
        note_zero_through(d, src, n);
    }
    return d;
}

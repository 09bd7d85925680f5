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

static int unary(RkInstr *in, const char *op)
{
    int a = in_v(in, 0);
    bool f = is_f32(in->type);
    if (!strcmp(op, "neg"))
        return f ? vlogic('^', a, konst_splat(0x80000000u)) : ineg(a);
    if (!strcmp(op, "abs"))
        return f ? vlogic('&', a, konst_splat(0x7fffffffu)) : iabs(a);
    if (!strcmp(op, "sqrt")) {
        int d = fresh();
        ins(pick("sqrtps", "vsqrtps", "vsqrtps"), 2, rk_mvd(d), rk_mv(a));
        return d;
    }
    if (!strcmp(op, "floor")) return fround('f', a);
    if (!strcmp(op, "ceil")) return fround('c', a);
    if (!strcmp(op, "trunc")) return fround('t', a);
    if (!strcmp(op, "nearest")) return fround('n', a);
    unsupported(in, NULL);
}

static int lane_op(RkInstr *in)
{
    const char *op = in->op + 5; /* after "rack." */
    if (!strcmp(op, "add")) return arith(in, '+');
    if (!strcmp(op, "sub")) return arith(in, '-');
    if (!strcmp(op, "mul")) return arith(in, '*');
    if (!strcmp(op, "div")) return arith(in, '/');
    if (!strcmp(op, "min") || !strcmp(op, "max")) {
        bool max = op[1] == 'a';
        const RkType *t = in->type;
        return is_f32(t) ? fminmax(max, in_v(in, 0), in_v(in, 1))
                         : iminmax(max, t->elem == RK_E_I32, in_v(in, 0), in_v(in, 1));
    }
    if (!strcmp(op, "and")) return vlogic('&', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "or")) return vlogic('|', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "xor")) return vlogic('^', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "andnot")) return vlogic('n', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "fma")) {
        if (!S->profile->fma)
            unsupported(in, "no fused multiply-add instruction");
        return fma3(in_v(in, 0), in_v(in, 1), in_v(in, 2));
    }
    if (!strcmp(op, "shl") || !strcmp(op, "shr") || !strcmp(op, "sar")) {
        char k = !strcmp(op, "shl") ? 'l' : !strcmp(op, "shr") ? 'r' : 's';
        /* a literal count is taken modulo 32 too (rk_lane_shift): x86
         * shifts by an immediate of 32 or more give 0 or the sign */
        return in->nargs == 2 ? shift_var(k, in_v(in, 0), in_v(in, 1))
                              : shift_imm(k, in_v(in, 0), (int)(in->imm & 31));
    }
    if (!strncmp(op, "cmp.", 4)) return compare(in, op + 4);
    if (!strcmp(op, "to_f32")) return cvt_to_f32(arg_t(in, 0)->elem == RK_E_I32, in_v(in, 0));
    if (!strcmp(op, "to_i32")) return cvt_to_i32(in_v(in, 0));
    if (!strcmp(op, "to_u32")) return cvt_to_u32(in_v(in, 0));
    if (!strcmp(op, "bitcast")) return in_v(in, 0);
    if (!strcmp(op, "extract")) return bcast_lane(in_v(in, 0), (int)in->imm);
    if (!strcmp(op, "insert")) return insert_lane(in_v(in, 0), (int)in->imm, in_v(in, 1));
    if (!strcmp(op, "shuffle"))
        return shuffle(in_v(in, 0), in->nargs > 1 ? in_v(in, 1) : -1, in->lanes, in->nlanes);
    if (!strcmp(op, "sum") || !strcmp(op, "product") || !strcmp(op, "minimum") ||
        !strcmp(op, "maximum"))
        return reduce(op, arg_t(in, 0)->elem, in_v(in, 0), false);
    if (!strncmp(op, "scan_", 5))
        return reduce(op + 5, arg_t(in, 0)->elem, in_v(in, 0), true);
    if (!strcmp(op, "splat"))
        return in->nargs ? in_v(in, 0) : constant(in);
    return unary(in, op);
}

static int uniform_op(RkInstr *in)
{
    const char *op = in->op + 2;
    if (!strcmp(op, "add")) return arith(in, '+');
    if (!strcmp(op, "sub")) return arith(in, '-');
    if (!strcmp(op, "mul")) return arith(in, '*');
    if (!strcmp(op, "div")) return arith(in, '/');
    if (!strncmp(op, "cmp.", 4)) return compare(in, op + 4);
    if (!strcmp(op, "and")) return vlogic('&', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "or")) return vlogic('|', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "not")) return vnot(in_v(in, 0));
    if (!strcmp(op, "neg")) return unary(in, "neg");
    if (!strcmp(op, "select")) return blend(in_v(in, 0), in_v(in, 1), in_v(in, 2));
    unsupported(in, NULL);
}

int select_instr(RkInstr *in)
{
    S->origin = in->op;
    S->nir = in->id;
    S->loc = in->loc;
    check_width(in);
    const char *op = in->op;
    if (!strcmp(op, "const") || !strcmp(op, "mask.const"))
        return constant(in);
    if (!strcmp(op, "copy") || !strcmp(op, "mask.splat"))
        return in_v(in, 0);
    if (!strcmp(op, "mask.and")) return vlogic('&', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "mask.or")) return vlogic('|', in_v(in, 0), in_v(in, 1));
    if (!strcmp(op, "mask.not")) return vnot(in_v(in, 0));
    if (!strcmp(op, "mask.select")) return blend(in_v(in, 0), in_v(in, 1), in_v(in, 2));
    if (!strcmp(op, "mask.all")) return mask_fold(true, in_v(in, 0));
    if (!strcmp(op, "mask.any")) return mask_fold(false, in_v(in, 0));
    if (!strcmp(op, "mask.bitmask")) return bitmask(in_v(in, 0));
    if (!strncmp(op, "u.", 2)) return uniform_op(in);
    if (!strncmp(op, "rack.", 5)) {
        static const char *wasm_only[] = {"rack.exp", "rack.log", "rack.log2", "rack.tanh",
                                          "rack.widen_low", "rack.widen_high", "rack.narrow",
                                          "rack.dot", "rack.relaxed_madd", "rack.relaxed_nmadd",
                                          "rack.relaxed_min", "rack.relaxed_max", NULL};
        for (const char **w = wasm_only; *w; w++)
            if (!strcmp(op, *w))
                unsupported(in, NULL);
        return lane_op(in);
    }
    unsupported(in, NULL);
}

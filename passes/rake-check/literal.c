/* literal.c: the type of a literal.
 *
 * A literal takes its type from what it meets (10-gap-notes.md, section
 * 1): the other operand, the parameter, the binding's declared type, in
 * slow and vector code alike; check_literal() is given that type as
 * `expect`.  With none, an integer literal is i32 and must fit, and a
 * float literal is f32.  Two contexts give a width rather than a type, and
 * choose one here (docs/checker-decisions.md, "Types and literals"): the
 * operand of bitcast(T, lit) is a bit pattern of T's width, and the
 * operand of a conversion T(lit) widens to i64 or u64 when it doesn't fit
 * i32. */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

static Info err_info(void) { return info_of(&rk_ty_error); }

static bool fits(const char *text, RkElem e)
{
    bool neg;
    uint64_t v;
    if (!rk_int_literal(text, &neg, &v))
        return false;
    switch (e) {
    case RK_E_I8: return neg ? v <= 128 : v <= 127;
    case RK_E_I16: return neg ? v <= 32768 : v <= 32767;
    case RK_E_I32: return neg ? v <= 2147483648ull : v <= 2147483647ull;
    case RK_E_I64: return neg ? v <= (1ull << 63) : v <= (unsigned long long)INT64_MAX;
    case RK_E_U8: return !neg && v <= 255;
    case RK_E_U16: return !neg && v <= 65535;
    case RK_E_U32: return !neg && v <= 4294967295ull;
    case RK_E_U64: return !neg || v == 0;
    default: return true;
    }
}

/* The type an integer literal takes as the operand of bitcast(T, lit): a
 * bit pattern of T's lane width, so the first of T's own integer element,
 * the signed and the unsigned integer of that width that holds it
 * (bitcast(f32, 4286578688) reads a u32, bitcast(u32s, <-2>) an i32).
 * NULL for any other operand, which keeps the type it has. */
const RkType *bitcast_literal_type(RkNode *operand, const RkType *to)
{
    RkNode *lit = operand->kind == RK_UNIFORM ? operand->operand : operand;
    if (lit->kind != RK_INT || (to->kind != RK_T_SCALAR && to->kind != RK_T_RACK) ||
        to->elem == RK_E_BOOL)
        return NULL;
    int bits = rk_elem_bits(to->elem);
    RkElem s = bits == 8 ? RK_E_I8 : bits == 16 ? RK_E_I16 : bits == 64 ? RK_E_I64 : RK_E_I32;
    RkElem u = bits == 8 ? RK_E_U8 : bits == 16 ? RK_E_U16 : bits == 64 ? RK_E_U64 : RK_E_U32;
    RkElem order[] = {rk_elem_is_int(to->elem) ? to->elem : s, s, u};
    for (int i = 0; i < 3; i++)
        if (fits(lit->text, order[i]))
            return rk_ty_scalar(order[i]);
    return rk_ty_scalar(u);
}

/* The type an integer literal takes as the operand of a conversion T(lit):
 * i32 when it fits (so u8(300) still traps when it runs), otherwise the
 * first of i64 and u64 that holds it (i64(5000000000), f64(4294967296)). */
const RkType *convert_literal_type(RkNode *operand)
{
    if (operand->kind != RK_INT || fits(operand->text, RK_E_I32))
        return NULL;
    return rk_ty_scalar(fits(operand->text, RK_E_I64) ? RK_E_I64 : RK_E_U64);
}

Info check_literal(RkNode *e, const RkType *expect)
{
    const RkType *want = expect_scalar_of(expect);
    if (e->kind == RK_BOOL) {
        set_ty(e, rk_ty_scalar(RK_E_BOOL));
        return info_of(rk_ty_scalar(RK_E_BOOL));
    }
    RkElem el = want ? want->elem : RK_E_NONE;
    if (e->kind == RK_FLOAT) {
        if (el != RK_E_F32 && el != RK_E_F64)
            el = RK_E_F32;
        if (want && !rk_elem_is_float(want->elem) && want->elem != RK_E_BOOL)
            ERROR(e->loc, "the float literal %s can't be %s", e->text, ty_name(want));
        else if (want && want->elem == RK_E_BOOL)
            ERROR(e->loc, "expected a bool, found the float literal %s", e->text);
    } else {
        if (el == RK_E_NONE || el == RK_E_BOOL)
            el = RK_E_I32;
        if (!rk_elem_is_float(el) && !fits(e->text, el)) {
            if (want && want->elem == el)
                ERROR(e->loc, "the literal %s is out of range for %s", e->text,
                      rk_elem_name(el));
            else
                ERROR(e->loc, "the literal %s is out of range for i32 (an "
                              "untyped integer literal is i32)",
                      e->text);
            return err_info();
        }
    }
    const RkType *t = rk_ty_scalar(el);
    set_ty(e, t);
    return info_of(t);
}

/* slow.c: slow code, in Rake's executable semantics.
 *
 * Integer arithmetic is checked: + - * / %, negation and abs trap on
 * overflow, division by zero and MIN / -1 (wrap_add and friends wrap).
 * Conversions T(x) trap unless the value fits; float to integer truncates
 * toward zero.  `and` and `or` short-circuit, and `if` evaluates only the
 * chosen branch.  Arrays are values (binding copies); views and stack
 * columns alias.  `copy(s)` takes its columns from the calling function's
 * frame arena of RAKE_FRAME_BYTES bytes, released when the function
 * returns; a copy that doesn't fit traps.  Traps print
 * `f.rk:L:C: trap: message` and exit 1 (lib/diag.c). */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"
#include "lanes.h"

typedef enum Flow { FLOW_NEXT, FLOW_BREAK, FLOW_CONTINUE, FLOW_RETURN } Flow;

static Val ret_val;

/* The helpers of eval_slow and exec_slow stay out of line, so a slow call
 * (which recurses through both) takes only the stack its path needs: deep
 * recursion then fits the main thread's stack (main.c) with room to
 * spare, sanitizers included. */
#define NOINLINE __attribute__((noinline))

static Val *slot(RkNode *n) { return &I->frame->slots[n->slot]; }

/* --- scalars -------------------------------------------------------------------- */

static float F(uint64_t b) { return rk_f32((uint32_t)b); }
static double D(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static uint64_t DB(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static bool fits(RkElem e, __int128 v)
{
    switch (e) {
    case RK_E_I8: return v >= INT8_MIN && v <= INT8_MAX;
    case RK_E_I16: return v >= INT16_MIN && v <= INT16_MAX;
    case RK_E_I32: return v >= INT32_MIN && v <= INT32_MAX;
    case RK_E_I64: return v >= INT64_MIN && v <= INT64_MAX;
    case RK_E_U8: return v >= 0 && v <= UINT8_MAX;
    case RK_E_U16: return v >= 0 && v <= UINT16_MAX;
    case RK_E_U32: return v >= 0 && v <= UINT32_MAX;
    case RK_E_U64: return v >= 0 && v <= (__int128)UINT64_MAX;
    default: return true;
    }
}

static __int128 wide(RkElem e, uint64_t x)
{
    return rk_elem_is_signed(e) ? (__int128)(int64_t)x : (__int128)x;
}

static uint64_t checked(RkNode *at, RkElem e, __int128 v)
{
    if (!fits(e, v))
        TRAP(at->loc, "%s overflow", rk_elem_name(e));
    return norm(e, (uint64_t)v);
}

static uint64_t int_arith(RkNode *at, char op, RkElem e, uint64_t a, uint64_t b)
{
    __int128 x = wide(e, a), y = wide(e, b);
    switch (op) {
    case '+': return checked(at, e, x + y);
    case '-': return checked(at, e, x - y);
    case '*': return checked(at, e, x * y);
    default:
        if (y == 0)
            TRAP(at->loc, "division by zero");
        if (op == '/')
            return checked(at, e, x / y);
        return norm(e, (uint64_t)(x % y));
    }
}

static uint64_t float_arith(char op, RkElem e, uint64_t a, uint64_t b)
{
    if (e == RK_E_F32) {
        float x = F(a), y = F(b);
        return rk_bits(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
    }
    double x = D(a), y = D(b);
    return DB(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
}

static bool scompare(const char *op, RkElem e, uint64_t a, uint64_t b)
{
    if (rk_elem_is_float(e)) {
        double x = e == RK_E_F32 ? F(a) : D(a), y = e == RK_E_F32 ? F(b) : D(b);
        if (!strcmp(op, "=")) return x == y;
        if (!strcmp(op, "!=")) return x < y || x > y;
        if (!strcmp(op, "<")) return x < y;
        if (!strcmp(op, "<=")) return x <= y;
        if (!strcmp(op, ">")) return x > y;
        return x >= y;
    }
    __int128 x = wide(e, a), y = wide(e, b);
    if (!strcmp(op, "=")) return x == y;
    if (!strcmp(op, "!=")) return x != y;
    if (!strcmp(op, "<")) return x < y;
    if (!strcmp(op, "<=")) return x <= y;
    if (!strcmp(op, ">")) return x > y;
    return x >= y;
}

NOINLINE static Val sbinary(RkNode *e)
{
    const char *op = e->op;
    Val a = eval_slow(e->lhs);
    if (!strcmp(op, "and") || !strcmp(op, "or")) {
        bool l = a.v[0] & 1;
        if (op[0] == 'a' ? !l : l)
            return v_scalar(RK_E_BOOL, l);
        return v_scalar(RK_E_BOOL, eval_slow(e->rhs).v[0] & 1);
    }
    Val b = eval_slow(e->rhs);
    if (strchr("+-*/%", op[0]) && !op[1]) {
        uint64_t r = rk_elem_is_float(a.elem) ? float_arith(op[0], a.elem, a.v[0], b.v[0])
                                              : int_arith(e, op[0], a.elem, a.v[0], b.v[0]);
        return v_scalar(a.elem, r);
    }
    return v_scalar(RK_E_BOOL, scompare(op, a.elem, a.v[0], b.v[0]));
}

NOINLINE static Val sunary(RkNode *e)
{
    Val a = eval_slow(e->operand);
    if (e->op[0] == 'n')
        return v_scalar(RK_E_BOOL, !(a.v[0] & 1));
    if (a.elem == RK_E_F32)
        return v_scalar(a.elem, rk_f32_neg((uint32_t)a.v[0]));
    if (a.elem == RK_E_F64)
        return v_scalar(a.elem, a.v[0] ^ (1ull << 63));
    return v_scalar(a.elem, checked(e, a.elem, -wide(a.elem, a.v[0])));
}

/* A float in a trap message: nan, inf, an integral value below 1e21 in
 * full ("2147483648 does not fit i32"), anything else in the fewest
 * significant digits that read back as the same value of its type. */
static const char *float_text(double d, RkElem e)
{
    if (isnan(d))
        return signbit(d) ? "-nan" : "nan";
    if (isinf(d))
        return d < 0 ? "-inf" : "inf";
    if (d == trunc(d) && fabs(d) < 1e21)
        return rk_arena_printf(&rk_heap, "%.0f", d);
    for (int p = 1; p < 17; p++) {
        const char *t = rk_arena_printf(&rk_heap, "%.*g", p, d);
        double back = strtod(t, NULL);
        if (e == RK_E_F32 ? (float)back == (float)d : back == d)
            return t;
    }
    return rk_arena_printf(&rk_heap, "%.17g", d);
}

NOINLINE static Val sconvert(RkNode *e)
{
    Val x = eval_slow(e->operand);
    if (x.kind == V_PTR || x.kind == V_FN)
        return x; /* bitcast between pointer types keeps the pointer */
    RkElem to = ty_of(e)->elem;
    if (e->kind == RK_WRAP || e->kind == RK_BITCAST)
        return v_scalar(to, norm(to, x.v[0]));
    if (to == RK_E_BOOL)
        return v_scalar(to, rk_elem_is_float(x.elem) ? as_f64(x) != 0 : x.v[0] != 0);
    if (rk_elem_is_float(to)) {
        if (to == RK_E_F32) {
            float f = x.elem == RK_E_F64 ? (float)D(x.v[0])
                      : x.elem == RK_E_F32 ? F(x.v[0])
                      : rk_elem_is_signed(x.elem) ? (float)(int64_t)x.v[0]
                                                  : (float)x.v[0];
            return v_scalar(to, rk_bits(f));
        }
        double d = x.elem == RK_E_F32 ? (double)F(x.v[0])
                   : x.elem == RK_E_F64 ? D(x.v[0])
                   : rk_elem_is_signed(x.elem) ? (double)(int64_t)x.v[0]
                                               : (double)x.v[0];
        return v_scalar(to, DB(d));
    }
    if (rk_elem_is_float(x.elem)) {
        double d = as_f64(x);
        double t = trunc(d);
        bool ok;
        if (to == RK_E_I64)
            ok = t >= -9223372036854775808.0 && t < 9223372036854775808.0;
        else if (to == RK_E_U64)
            ok = t > -1.0 && t < 18446744073709551616.0;
        else
            ok = !isnan(t) && fits(to, (__int128)fmax(fmin(t, 1e30), -1e30)) &&
                 fabs(t) < 1e30;
        if (!ok || isnan(d))
            TRAP(e->loc, "%s does not fit %s", float_text(d, x.elem), rk_elem_name(to));
        __int128 v = to == RK_E_U64 ? (__int128)(uint64_t)t : (__int128)(int64_t)t;
        return v_scalar(to, norm(to, (uint64_t)v));
    }
    __int128 v = wide(x.elem, x.v[0]);
    if (!fits(to, v)) {
        char buf[64];
        if (rk_elem_is_signed(x.elem))
            snprintf(buf, sizeof buf, "%lld", (long long)(int64_t)x.v[0]);
        else
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)x.v[0]);
        TRAP(e->loc, "%s does not fit %s", buf, rk_elem_name(to));
    }
    return v_scalar(to, norm(to, (uint64_t)v));
}

/* --- aggregates ------------------------------------------------------------------ */

static Val view_of(Val a)
{
    if (a.kind == V_VIEW)
        return a;
    Val v = v_unit();
    v.kind = V_VIEW;
    v.elem = a.arr->elem;
    v.view.buf = a.arr;
    v.view.off = 0;
    v.view.count = a.arr->n;
    return v;
}

NOINLINE static Val sindex(RkNode *e) { return read_element(e); }

NOINLINE static Val column(Val s, const char *field)
{
    Stack *st = s.stack;
    for (int i = 0; i < st->pack->fields.len; i++) {
        if (strcmp(st->pack->fields.items[i]->name, field))
            continue;
        Val v = v_unit();
        v.kind = V_VIEW;
        v.elem = st->cols[i].buf->elem;
        v.view = st->cols[i];
        v.view.count = st->count > 0 ? st->count : 0;
        return v;
    }
    rk_diag_internal("rake-interp: no column %s", field);
}

NOINLINE static Val array_literal(RkNode *e)
{
    const RkType *t = ty_of(e);
    Val a = v_unit();
    a.kind = V_ARRAY;
    if (t->inner->kind != RK_T_SCALAR) { /* records, pointers: cells */
        a.arr = buffer_cells(t->len);
        Val x = e->kind == RK_ARRAY_FILL ? eval_slow(e->value) : v_unit();
        for (int i = 0; i < t->len; i++)
            a.arr->cells[i] = value_copy(e->kind == RK_ARRAY_FILL ? x
                                                                 : eval_slow(e->elems.items[i]));
        return a;
    }
    a.elem = t->inner->elem;
    a.arr = buffer_new(a.elem, t->len);
    if (e->kind == RK_ARRAY_FILL) {
        Val x = eval_slow(e->value);
        for (int i = 0; i < t->len; i++)
            a.arr->data[i] = x.v[0];
    } else {
        for (int i = 0; i < t->len; i++)
            a.arr->data[i] = eval_slow(e->elems.items[i]).v[0];
    }
    return a;
}

NOINLINE static Val stack_literal(RkNode *e)
{
    RkNode *pack = find_pack_decl(e->name);
    Stack *st = RK_NEW(Stack);
    st->pack = pack;
    st->cols = rk_arena_alloc(&rk_heap, sizeof(View) * (size_t)pack->fields.len);
    int64_t first = -1;
    for (int i = 0; i < pack->fields.len; i++) {
        for (int j = 0; j < e->fields.len; j++) {
            RkNode *fi = e->fields.items[j];
            if (strcmp(fi->name, pack->fields.items[i]->name))
                continue;
            Val v = view_of(eval_slow(fi->value));
            st->cols[i] = v.view;
            if (first >= 0 && v.view.count != first)
                TRAP(e->loc, "a stack's columns hold %lld, %lld elements",
                     (long long)first, (long long)v.view.count);
            first = v.view.count;
        }
    }
    st->count = first < 0 ? 0 : first;
    Val s = v_unit();
    s.kind = V_STACK;
    s.stack = st;
    return s;
}

NOINLINE static Val copy_stack(RkNode *at, Val s)
{
    Stack *src = s.stack, *st = RK_NEW(Stack);
    *st = *src;
    int nf = src->pack->fields.len;
    int64_t n = src->count > 0 ? src->count : 0, bytes = 0;
    for (int i = 0; i < nf; i++)
        bytes += ((int64_t)elem_size(src->cols[i].buf->elem) * n + 15) / 16 * 16;
    Frame *f = I->frame;
    if (f->arena_used + bytes > I->frame_bytes)
        TRAP(at->loc, "copy of %lld bytes doesn't fit the frame arena (%lld of "
                      "RAKE_FRAME_BYTES = %lld in use)",
             (long long)bytes, (long long)f->arena_used, (long long)I->frame_bytes);
    f->arena_used += bytes;
    st->cols = rk_arena_alloc(&rk_heap, sizeof(View) * (size_t)nf);
    for (int i = 0; i < nf; i++) {
        Buffer *b = buffer_new(src->cols[i].buf->elem, n);
        memcpy(b->data, src->cols[i].buf->data + src->cols[i].off, sizeof(uint64_t) * (size_t)n);
        st->cols[i] = (View){b, 0, n};
    }
    s.stack = st;
    return s;
}

/* --- built-ins --------------------------------------------------------------------- */

static uint64_t fminmax(bool max, RkElem e, uint64_t a, uint64_t b)
{
    if (e == RK_E_F32)
        return max ? rk_f32_max((uint32_t)a, (uint32_t)b) : rk_f32_min((uint32_t)a, (uint32_t)b);
    double x = D(a), y = D(b);
    if (isnan(x) || isnan(y))
        return DB(NAN);
    if (x == 0 && y == 0)
        return max ? ((a & b) >> 63 ? a : DB(0.0)) : ((a | b) >> 63 ? DB(-0.0) : a);
    return max ? (y > x ? b : a) : (y < x ? b : a);
}

static int bitcount(uint64_t x, int w, int kind)
{
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    x &= m;
    if (kind == 2)
        return __builtin_popcountll(x);
    if (!x)
        return w;
    if (kind == 0)
        return __builtin_clzll(x) - (64 - w);
    return __builtin_ctzll(x);
}

NOINLINE static Val sbuiltin(RkNode *call)
{
    const char *n = call->name;
    Val a = eval_slow(call->args.items[0]);
    RkElem e = a.elem;
    if (!strcmp(n, "count")) {
        if (a.kind == V_STACK)
            return v_scalar(RK_E_I64, (uint64_t)(a.stack->count > 0 ? a.stack->count : 0));
        return v_scalar(RK_E_I32, (uint64_t)view_of(a).view.count);
    }
    if (!strcmp(n, "copy"))
        return copy_stack(call, a);
    if (!strcmp(n, "slice")) {
        Val v = view_of(a);
        int64_t s = (int64_t)eval_slow(call->args.items[1]).v[0];
        int64_t c = (int64_t)eval_slow(call->args.items[2]).v[0];
        if (s < 0 || c < 0 || s + c > v.view.count)
            TRAP(call->loc, "slice [%lld, %lld) outside %lld elements", (long long)s,
                 (long long)(s + c), (long long)v.view.count);
        v.view.off += s;
        v.view.count = c;
        return v;
    }
    if (!strcmp(n, "sqrt"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_sqrt((uint32_t)a.v[0]) : DB(sqrt(D(a.v[0]))));
    if (!strcmp(n, "floor"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_floor((uint32_t)a.v[0]) : DB(floor(D(a.v[0]))));
    if (!strcmp(n, "ceil"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_ceil((uint32_t)a.v[0]) : DB(ceil(D(a.v[0]))));
    /* f32: the fixed Cephes sequences; f64 has no rack form, and takes the
     * C library's functions, as the slow tier's C does */
    if (!strcmp(n, "exp"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_exp((uint32_t)a.v[0]) : DB(exp(D(a.v[0]))));
    if (!strcmp(n, "log"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_log((uint32_t)a.v[0]) : DB(log(D(a.v[0]))));
    if (!strcmp(n, "log2"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_log2((uint32_t)a.v[0]) : DB(log2(D(a.v[0]))));
    if (!strcmp(n, "tanh"))
        return v_scalar(e, e == RK_E_F32 ? rk_f32_tanh((uint32_t)a.v[0]) : DB(tanh(D(a.v[0]))));
    if (!strcmp(n, "abs")) {
        if (e == RK_E_F32)
            return v_scalar(e, rk_f32_abs((uint32_t)a.v[0]));
        if (e == RK_E_F64)
            return v_scalar(e, a.v[0] & ~(1ull << 63));
        __int128 x = wide(e, a.v[0]);
        return v_scalar(e, checked(call, e, x < 0 ? -x : x));
    }
    int w = rk_elem_bits(e);
    if (!strcmp(n, "bit_not"))
        return v_scalar(e, norm(e, ~a.v[0]));
    if (!strcmp(n, "count_leading_zeros"))
        return v_scalar(e, (uint64_t)bitcount(a.v[0], w, 0));
    if (!strcmp(n, "count_trailing_zeros"))
        return v_scalar(e, (uint64_t)bitcount(a.v[0], w, 1));
    if (!strcmp(n, "popcount"))
        return v_scalar(e, (uint64_t)bitcount(a.v[0], w, 2));
    Val b = eval_slow(call->args.items[1]);
    uint64_t x = a.v[0], y = b.v[0];
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    unsigned c = (unsigned)(y % (uint64_t)w);
    if (!strcmp(n, "min") || !strcmp(n, "max")) {
        bool max = n[1] == 'a';
        if (rk_elem_is_float(e))
            return v_scalar(e, fminmax(max, e, x, y));
        bool less = wide(e, y) < wide(e, x);
        return v_scalar(e, max ? (less ? x : (wide(e, y) > wide(e, x) ? y : x)) : (less ? y : x));
    }
    if (!strcmp(n, "bit_and")) return v_scalar(e, x & y);
    if (!strcmp(n, "bit_or")) return v_scalar(e, x | y);
    if (!strcmp(n, "bit_xor")) return v_scalar(e, norm(e, x ^ y));
    if (!strcmp(n, "bit_andnot")) return v_scalar(e, norm(e, x & ~y));
    if (!strcmp(n, "wrap_add")) return v_scalar(e, norm(e, x + y));
    if (!strcmp(n, "wrap_sub")) return v_scalar(e, norm(e, x - y));
    if (!strcmp(n, "wrap_mul")) return v_scalar(e, norm(e, x * y));
    uint64_t u = x & m;
    if (!strcmp(n, "shift_bits_left")) return v_scalar(e, norm(e, u << c));
    if (!strcmp(n, "shift_bits_right")) return v_scalar(e, norm(e, u >> c));
    if (!strcmp(n, "shift_bits_right_signed"))
        return v_scalar(e, norm(e, (uint64_t)((int64_t)(u << (64 - w)) >> (64 - w) >> c)));
    if (!strcmp(n, "rotate_bits_left"))
        return v_scalar(e, norm(e, c ? (u << c | u >> (w - c)) & m : u));
    if (!strcmp(n, "rotate_bits_right"))
        return v_scalar(e, norm(e, c ? (u >> c | u << (w - c)) & m : u));
    rk_diag_internal("rake-interp: no slow built-in '%s'", n);
}

/* --- calls --------------------------------------------------------------------------- */

NOINLINE static Val arg_for_vector(RkNode *a, RkNode *param)
{
    if (a->kind == RK_UNIFORM)
        return eval_slow(a->operand);
    Val v = eval_slow(a);
    const RkType *t = ty_of(param);
    if (t->kind == RK_T_VIEW)
        return view_of(v);
    return v;
}

Val call_from_slow(RkNode *call)
{
    RkNode *fn = find_fn(call->name);
    if (I->depth >= MAX_DEPTH) /* push_frame would trap too, at the callee */
        TRAP(call->loc, "calls nest more than %d deep", MAX_DEPTH);
    int n = call->args.len;
    Val *args = calloc((size_t)(n ? n : 1), sizeof(Val));
    for (int i = 0; i < n; i++)
        args[i] = arg_for_vector(call->args.items[i], fn->params.items[i]);
    Val r;
    if (nir_has(fn->name)) {
        /* the native-IR evaluator: the same checks at the call, then the IR */
        if (fn->kind == RK_RUN)
            run_checks(fn, call, args);
        else
            for (int i = 0; i < n; i++)
                args[i] = to_type(args[i], ty_of(fn->params.items[i]));
        r = nir_call(fn->name, fn, args, n);
        if (fn->kind == RK_RUN && fn->ret) {
            RkNode *last = fn->body.items[fn->body.len - 1];
            for (int i = 0; i < n; i++)
                if (fn->params.items[i]->slot == last->stack->slot)
                    r = args[i];
        }
    } else if (fn->kind == RK_RUN) {
        call_run(fn, call, args);
        int res = -1;
        if (fn->ret) {
            RkNode *last = fn->body.items[fn->body.len - 1];
            for (int i = 0; i < n; i++)
                if (fn->params.items[i]->slot == last->stack->slot)
                    res = i;
        }
        r = res >= 0 ? args[res] : v_unit();
    } else if (fn->kind == RK_SLOW) {
        r = call_slow(fn, args, n);
    } else {
        uint64_t saved = I->active;
        I->active = ~0ull;
        for (int i = 0; i < n; i++)
            args[i] = to_type(args[i], ty_of(fn->params.items[i]));
        r = run_kernel(fn, args, n);
        I->active = saved;
    }
    free(args);
    return r;
}

/* --- expressions ------------------------------------------------------------------------ */

NOINLINE static Val scall(RkNode *e)
{
    const char *note = e->note ? e->note : "";
    if (!strcmp(note, "builtin") &&
        (!strcmp(e->name, "addr") || !strcmp(e->name, "is_null") ||
         !strcmp(e->name, "unchecked_view")))
        return pointer_builtin(e);
    if (!strcmp(note, "builtin"))
        return sbuiltin(e);
    if (!strcmp(note, "fnptr"))
        return call_indirect(e);
    if (!strcmp(note, "extern"))
        return call_extern_trap(e);
    return call_from_slow(e);
}

Val eval_slow(RkNode *e)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
    case RK_BOOL: {
        const RkType *t = ty_of(e);
        return v_scalar(t->elem, parse_literal(e, t->elem));
    }
    case RK_NAME:
        if (e->ref && (!strcmp(e->ref, "const") || !strcmp(e->ref, "state") ||
                       !strcmp(e->ref, "embed")))
            return *global_value(e);
        return *slot(e);
    case RK_UNIFORM:
        return eval_slow(e->operand);
    case RK_BINARY:
        return sbinary(e);
    case RK_UNARY:
        return sunary(e);
    case RK_IF_EXPR:
        return eval_slow(eval_slow(e->cond).v[0] ? e->then_e : e->else_e);
    case RK_INDEX:
        return sindex(e);
    case RK_FIELD:
        if (e->note && strcmp(e->note, "column"))
            return field_value(e);
        return column(eval_slow(e->object), e->name);
    case RK_CALL:
        return scall(e);
    case RK_RECORD_LIT:
        return record_literal(e);
    case RK_CONVERT:
    case RK_WRAP:
    case RK_BITCAST:
        return sconvert(e);
    case RK_ARRAY_LIT:
    case RK_ARRAY_FILL:
        return array_literal(e);
    case RK_STACK_LIT:
        return stack_literal(e);
    case RK_SLOW_BLOCK:
        return eval_slow_block(e);
    default:
        rk_diag_internal("rake-interp: can't evaluate a %s in slow code",
                         rk_kind_name(e->kind));
    }
}

/* --- statements --------------------------------------------------------------------------- */

static Flow exec_list(RkList body);

/* Assigning an array or a record writes into its storage, as C does
 * (value_assign): views, stack columns and pointers on it see the new
 * values, and a `mut` parameter writes the caller's. */
NOINLINE static void sassign(RkNode *s)
{
    RkNode *t = s->target;
    Val v = eval_slow(s->value);
    if (t->kind == RK_NAME) {
        if (t->ref && !strcmp(t->ref, "state"))
            value_assign(global_value(t), v);
        else
            value_assign(slot(t), v);
        return;
    }
    write_place(t, v);
}

NOINLINE static Flow sfor(RkNode *s)
{
    Val a = eval_slow(s->from), b = eval_slow(s->to);
    RkElem e = a.elem;
    Val st = s->step ? eval_slow(s->step) : v_scalar(e, 1);
    if (rk_elem_is_signed(e) ? (int64_t)st.v[0] <= 0 : st.v[0] == 0)
        TRAP(s->loc, "a loop steps forward");
    uint64_t i = a.v[0], end = b.v[0];
    while (rk_elem_is_signed(e) ? (int64_t)i < (int64_t)end : i < end) {
        *slot(s) = v_scalar(e, i);
        Flow f = exec_list(s->body);
        if (f == FLOW_BREAK)
            break;
        if (f == FLOW_RETURN)
            return f;
        if (end - i <= st.v[0])
            break;
        i += st.v[0];
    }
    return FLOW_NEXT;
}

NOINLINE static void sbind(RkNode *s)
{
    Val v = value_copy(eval_slow(s->value));
    const RkType *t = ty_of(s);
    if (t->kind == RK_T_VIEW)
        v = view_of(v);
    *slot(s) = v;
}

NOINLINE static void sreturn(RkNode *s)
{
    ret_val = s->value ? value_copy(eval_slow(s->value)) : v_unit();
}

NOINLINE static bool scond(RkNode *e) { return eval_slow(e).v[0] & 1; }

NOINLINE static void sexpr(RkNode *e) { eval_slow(e); }

static Flow exec_slow(RkNode *s)
{
    switch (s->kind) {
    case RK_LET:
    case RK_VAR:
        sbind(s);
        return FLOW_NEXT;
    case RK_ASSIGN:
        sassign(s);
        return FLOW_NEXT;
    case RK_IF:
        return exec_list(scond(s->cond) ? s->body : s->else_body);
    case RK_WHILE:
        while (scond(s->cond)) {
            Flow f = exec_list(s->body);
            if (f == FLOW_BREAK)
                break;
            if (f == FLOW_RETURN)
                return f;
        }
        return FLOW_NEXT;
    case RK_FOR:
        return sfor(s);
    case RK_BREAK:
        return FLOW_BREAK;
    case RK_CONTINUE:
        return FLOW_CONTINUE;
    case RK_RETURN:
        sreturn(s);
        return FLOW_RETURN;
    case RK_EXPR:
        sexpr(s->value);
        return FLOW_NEXT;
    default:
        rk_diag_internal("rake-interp: no slow statement %s", rk_kind_name(s->kind));
    }
}

static Flow exec_list(RkList body)
{
    for (int i = 0; i < body.len; i++) {
        Flow f = exec_slow(body.items[i]);
        if (f != FLOW_NEXT)
            return f;
    }
    return FLOW_NEXT;
}

/* The innermost slow function's return point: a `return` inside a slow
 * block in slow code returns from that function (10-gap-notes.md,
 * section 6), from wherever in an expression the block sits. */
static jmp_buf *return_target;

Val eval_slow_block(RkNode *blk)
{
    RkList body = blk->body;
    Val v = v_unit();
    for (int i = 0; i < body.len; i++) {
        RkNode *s = body.items[i];
        if (i == body.len - 1 && s->kind == RK_EXPR && !blk->discard)
            return eval_slow(s->value);
        Flow f = exec_slow(s);
        if (f == FLOW_RETURN) {
            if (!return_target || I->frame->fn->kind != RK_SLOW)
                rk_diag_internal("rake-interp: return inside a slow block of a run");
            longjmp(*return_target, 1);
        }
        if (f != FLOW_NEXT)
            break;
    }
    return v;
}

Val call_slow(RkNode *fn, Val *args, int nargs)
{
    Frame *f = push_frame(fn);
    for (int i = 0; i < nargs; i++)
        f->slots[fn->params.items[i]->slot] = args[i];
    jmp_buf here;
    jmp_buf *saved = return_target;
    Val r;
    return_target = &here;
    ret_val = v_unit();
    if (!setjmp(here)) {
        Flow fl = exec_list(fn->body);
        r = fl == FLOW_RETURN ? ret_val : v_unit();
    } else {
        r = ret_val; /* a return inside a slow block */
    }
    return_target = saved;
    pop_frame(f);
    return r;
}

/* expr.c: slow-code expressions as C, in the interpreter's order.
 *
 * ex() emits the statements that compute an expression and returns where
 * its value is: a literal or a temporary for a scalar, view or stack (a
 * stack is a pointer to its descriptor, shared by every name bound to it,
 * as the interpreter shares its Stack), and an lvalue for an array (a
 * variable, `(*param)`, `(*global)` or a temporary), since an array
 * expression names storage that views may alias.  Operands are evaluated
 * left to right into temporaries before the operation, so which trap comes
 * first is the interpreter's.
 *
 * Integer + - * / %, negation and abs call the runtime's checked helpers
 * (rk_add_i32, ...); `and`/`or` and `if` evaluate only what they need;
 * conversions follow slow.c's sconvert, float to integer truncating first. */
#include <string.h>

#include "cgen.h"

static const char *capture(const RkType *t, const char *v)
{
    const char *t0 = tmp(t);
    emit("%s = %s;", t0, v);
    return t0;
}

/* An array whose lvalue may change meaning later: pin it by pointer. */
static const char *pin(const RkType *t, const char *lv)
{
    const char *p = tmp_c(fmt("%s *", ctype(t)), "NULL");
    emit("%s = &%s;", p, lv);
    return fmt("(*%s)", p);
}

static const char *slot_var(RkNode *n) { return fmt("rk_v%d_%s", n->slot, n->name); }

static const char *name(RkNode *e)
{
    const RkType *t = type_of(e);
    if (e->ref && (!strcmp(e->ref, "const") || !strcmp(e->ref, "state"))) {
        const char *p = global_ref(e);
        return aggregate(t) ? fmt("(*%s)", p) : capture(t, fmt("*%s", p));
    }
    if (e->ref && !strcmp(e->ref, "embed"))
        return embed_view(e);
    if (!e->ref || (strcmp(e->ref, "local") && strcmp(e->ref, "param")) || e->slot < 0 ||
        e->slot >= G->nslots || !G->slots[e->slot].name)
        refuse(e->loc, "rake-cgen: the name '%s' (%s) in slow code is not implemented",
               e->name, e->ref ? e->ref : "unresolved");
    Slot *s = &G->slots[e->slot];
    const char *v = slot_var(e);
    if (!aggregate(t))
        return capture(t, v);
    if (s->param)
        return fmt("(*%s)", v);
    return s->fresh ? pin(t, fmt("(*%s)", v)) : v;
}

/* --- operators ------------------------------------------------------------------- */

static const char *short_circuit(RkNode *e)
{
    bool is_and = !strcmp(e->op, "and");
    const char *r = tmp(rk_ty_scalar(RK_E_BOOL));
    emit("%s = %s;", r, ex(e->lhs));
    emit("if (%s%s) {", is_and ? "" : "!", r);
    G->indent++;
    const char *b = ex(e->rhs);
    emit("%s = %s;", r, b);
    G->indent--;
    emit("}");
    return r;
}

static const char *arith(RkNode *e, RkElem el, const char *a, const char *b)
{
    const RkType *t = rk_ty_scalar(el);
    char op = e->op[0];
    if (rk_elem_is_float(el)) {
        if (op == '%')
            refuse(e->loc, "rake-cgen: %% on %s is not implemented", rk_elem_name(el));
        return capture(t, fmt("%s %c %s", a, op, b));
    }
    if (el == RK_E_BOOL)
        refuse(e->loc, "rake-cgen: '%s' on bool is not implemented", e->op);
    const char *f = op == '+' ? "add" : op == '-' ? "sub" : op == '*' ? "mul" : op == '/' ? "div" : "rem";
    return capture(t, fmt("rk_%s_%s(%s, %s, %d)", f, rk_elem_name(el), a, b, site(e->loc)));
}

static const char *compare(RkNode *e, RkElem el, const char *a, const char *b)
{
    const char *op = e->op;
    const RkType *t = rk_ty_scalar(RK_E_BOOL);
    if (!strcmp(op, "="))
        return capture(t, fmt("%s == %s", a, b));
    if (!strcmp(op, "!="))
        return capture(t, rk_elem_is_float(el) ? fmt("rk_ne_float(%s, %s)", a, b)
                                                : fmt("%s != %s", a, b));
    if (strcmp(op, "<") && strcmp(op, "<=") && strcmp(op, ">") && strcmp(op, ">="))
        refuse(e->loc, "rake-cgen: the operator '%s' in slow code is not implemented", op);
    return capture(t, fmt("%s %s %s", a, op, b));
}

static const char *binary(RkNode *e)
{
    if (!strcmp(e->op, "and") || !strcmp(e->op, "or"))
        return short_circuit(e);
    RkElem el = type_of(e->lhs)->elem;
    if (type_of(e->lhs)->kind != RK_T_SCALAR)
        refuse(e->loc, "rake-cgen: '%s' on %s in slow code is not implemented", e->op,
               e->lhs->ty);
    const char *a = ex(e->lhs), *b = ex(e->rhs);
    if (strchr("+-*/%", e->op[0]) && !e->op[1])
        return arith(e, el, a, b);
    return compare(e, el, a, b);
}

static const char *unary(RkNode *e)
{
    const RkType *t = type_of(e->operand);
    const char *a = ex(e->operand);
    if (!strcmp(e->op, "not"))
        return capture(t, fmt("!%s", a));
    if (strcmp(e->op, "-"))
        refuse(e->loc, "rake-cgen: the operator '%s' in slow code is not implemented", e->op);
    if (t->elem == RK_E_F32 || t->elem == RK_E_F64)
        return capture(t, fmt("rk_neg_%s(%s)", rk_elem_name(t->elem), a));
    if (t->elem == RK_E_BOOL)
        refuse(e->loc, "rake-cgen: negating a bool is not implemented");
    return capture(t, fmt("rk_neg_%s(%s, %d)", rk_elem_name(t->elem), a, site(e->loc)));
}

static const char *if_expr(RkNode *e)
{
    const RkType *t = type_of(e);
    const char *c = ex(e->cond);
    bool arr = aggregate(t);
    const char *r = t->kind == RK_T_UNIT ? NULL
                    : arr                ? tmp_c(fmt("%s *", ctype(t)), "NULL")
                                         : tmp(t);
    RkNode *arm[2] = {e->then_e, e->else_e};
    for (int i = 0; i < 2; i++) {
        if (i)
            emit("} else {");
        else
            emit("if (%s) {", c);
        G->indent++;
        const char *v = ex(arm[i]);
        if (r)
            emit(arr ? "%s = &%s;" : "%s = %s;", r, v);
        G->indent--;
    }
    emit("}");
    return r && arr ? fmt("(*%s)", r) : r;
}

/* --- memory ---------------------------------------------------------------------- */

/* An array lvalue or view value as a view of all its elements. */
const char *view_of(RkNode *e, const char *v, const RkType *t)
{
    if (t->kind == RK_T_VIEW)
        return v;
    if (t->kind != RK_T_ARRAY)
        refuse(e->loc, "rake-cgen: a view of %s is not implemented", e->ty);
    return capture(rk_ty_view(t->inner, true), fmt("(%s){%s.e, %d}", view_struct(t->inner->elem), v, t->len));
}

/* The view a slice or a stack column keeps: a named array's own storage,
 * a fresh array value (literal, call) copied to storage of its own, as
 * the interpreter allocates a buffer for each. */
static const char *kept_view(RkNode *e)
{
    const RkType *t = type_of(e);
    const char *v = ex(e);
    if (t->kind == RK_T_VIEW || e->kind == RK_NAME)
        return view_of(e, v, t);
    if (e->kind == RK_IF_EXPR || e->kind == RK_SLOW_BLOCK)
        refuse(e->loc, "rake-cgen: a view of an array chosen by if or a slow block is not "
                       "implemented; bind the array to a name first");
    const char *p = tmp_c(fmt("%s *", ctype(t)), "NULL");
    G->uses_frame = true;
    emit("%s = rk_alloc(&rk_fr, sizeof *%s);", p, p);
    emit("*%s = %s;", p, v);
    return view_of(e, fmt("(*%s)", p), t);
}

/* o[i] as an lvalue, checked as element_at checks it (at `at`). */
static const char *element(RkNode *at, RkNode *obj, const char *o, RkNode *idx, const char *i)
{
    const RkType *ot = type_of(obj), *it = type_of(idx);
    const char *k = it->elem == RK_E_U64 ? fmt("rk_index_u64(%s)", i) : fmt("(int64_t)%s", i);
    if (ot->kind == RK_T_PTR)
        return fmt("(%s)[(int64_t)%s]", o, i);
    if (at->unchecked && ot->kind == RK_T_ARRAY)
        return fmt("%s.e[(int64_t)%s]", o, i);
    if (at->unchecked && ot->kind == RK_T_VIEW)
        return fmt("%s.p[(int64_t)%s]", o, i);
    if (ot->kind == RK_T_ARRAY)
        return fmt("%s.e[rk_index(%s, %d, %d)]", o, k, ot->len, site(at->loc));
    if (ot->kind == RK_T_VIEW)
        return fmt("%s.p[rk_index(%s, %s.n, %d)]", o, k, o, site(at->loc));
    refuse(at->loc, "rake-cgen: indexing %s in slow code is not implemented", obj->ty);
}

const char *index_place(RkNode *e)
{
    const char *o = ex(e->object);
    const char *i = ex(e->index);
    return element(e, e->object, o, e->index, i);
}

static const char *column(RkNode *e)
{
    const RkType *st = type_of(e->object);
    if (e->note && (!strcmp(e->note, "record_field") || !strcmp(e->note, "pointer_field"))) {
        const char *lv = field_place(e);
        return aggregate(type_of(e)) ? lv : capture(type_of(e), lv);
    }
    if (st->kind != RK_T_STACK)
        refuse(e->loc, "rake-cgen: a field of %s is not implemented", e->object->ty);
    const char *s = ex(e->object);
    const RkType *t = type_of(e);
    return capture(t, fmt("(%s){%s->%s, %s->count > 0 ? %s->count : 0}", view_struct(t->inner->elem),
                          s, e->name, s, s));
}

static const char *array_literal(RkNode *e)
{
    const RkType *t = type_of(e);
    const char *a = tmp(t);
    if (e->kind == RK_ARRAY_FILL) {
        const char *x = ex(e->value);
        emit("for (int rk_i = 0; rk_i < %d; rk_i++)", t->len);
        emit("    %s.e[rk_i] = %s;", a, x);
        return a;
    }
    for (int i = 0; i < e->elems.len; i++) {
        const char *x = ex(e->elems.items[i]);
        emit("%s.e[%d] = %s;", a, i, x);
    }
    return a;
}

static const char *stack_literal(RkNode *e)
{
    RkNode *pack = find_decl(e->name, RK_PACK, RK_PACK);
    if (!pack)
        refuse(e->loc, "rake-cgen: no pack %s", e->name);
    const RkType *t = type_of(e);
    const char *s = tmp(t), *first = tmp_c("int64_t", "-1");
    G->uses_frame = true;
    emit("%s = rk_alloc(&rk_fr, sizeof *%s);", s, s);
    emit("%s = -1;", first);
    for (int i = 0; i < pack->fields.len; i++) {
        const char *f = pack->fields.items[i]->name;
        RkNode *init = NULL;
        for (int j = 0; j < e->fields.len; j++)
            if (!strcmp(e->fields.items[j]->name, f))
                init = e->fields.items[j];
        if (!init)
            refuse(e->loc, "rake-cgen: a stack literal without the column '%s' is not "
                           "implemented", f);
        const char *v = kept_view(init->value);
        emit("%s->%s = %s.p;", s, f, v);
        emit("rk_column_count(&%s, %s.n, %d);", first, v, site(e->loc));
    }
    emit("%s->count = %s < 0 ? 0 : %s;", s, first, first);
    return s;
}

/* --- conversions ------------------------------------------------------------------ */

static const char *int_bounds(RkElem e, bool hi)
{
    switch (e) {
    case RK_E_I8: return hi ? "INT8_MAX" : "INT8_MIN";
    case RK_E_I16: return hi ? "INT16_MAX" : "INT16_MIN";
    case RK_E_I32: return hi ? "INT32_MAX" : "INT32_MIN";
    case RK_E_I64: return hi ? "INT64_MAX" : "INT64_MIN";
    case RK_E_U8: return hi ? "UINT8_MAX" : "0";
    case RK_E_U16: return hi ? "UINT16_MAX" : "0";
    case RK_E_U32: return hi ? "UINT32_MAX" : "0";
    default: return hi ? "UINT64_MAX" : "0";
    }
}

static const char *float_to_int(RkNode *e, RkElem from, RkElem to, const char *x)
{
    int kind = to == RK_E_I64 ? 1 : to == RK_E_U64 ? 2 : 0;
    const char *lo = kind ? "0" : fmt("(double)%s", int_bounds(to, false));
    const char *hi = kind ? "0" : fmt("(double)%s", int_bounds(to, true));
    const char *call = fmt("rk_f2i((double)%s, %s, %s, %d, %s, \"%s\", %d)", x, lo, hi, kind,
                           from == RK_E_F32 ? "true" : "false", rk_elem_name(to), site(e->loc));
    if (to == RK_E_U64)
        return fmt("(uint64_t)%s", call);
    return fmt("(%s)(int64_t)%s", elem_ctype(to), call);
}

static const char *int_to_int(RkNode *e, RkElem from, RkElem to, const char *x)
{
    const char *T = elem_ctype(to), *n = rk_elem_name(to);
    int s = site(e->loc);
    if (rk_elem_is_signed(from)) {
        const char *lo = rk_elem_is_signed(to) ? int_bounds(to, false) : "0";
        const char *hi = to == RK_E_U64 ? "INT64_MAX" : int_bounds(to, true);
        return fmt("(%s)rk_fit_s((int64_t)%s, %s, %s, \"%s\", %d)", T, x, lo, hi, n, s);
    }
    return fmt("(%s)rk_fit_u((uint64_t)%s, %s, \"%s\", %d)", T, x, int_bounds(to, true), n, s);
}

static const char *bitcast(RkElem from, RkElem to, const char *x)
{
    if (from == to)
        return x;
    if (to == RK_E_F32)
        return fmt("rk_f32((uint32_t)%s)", x);
    if (to == RK_E_F64)
        return fmt("rk_f64((uint64_t)%s)", x);
    if (from == RK_E_F32)
        return fmt("(%s)rk_bits(%s)", elem_ctype(to), x);
    if (from == RK_E_F64)
        return fmt("(%s)rk_bits64(%s)", elem_ctype(to), x);
    return fmt("(%s)%s", elem_ctype(to), x);
}

static const char *convert(RkNode *e)
{
    const RkType *ft = type_of(e->operand), *tt = type_of(e);
    if (e->kind == RK_BITCAST && pointer_like(ft) && pointer_like(tt))
        return pointer_bitcast(e);
    if (ft->kind != RK_T_SCALAR || tt->kind != RK_T_SCALAR)
        refuse(e->loc, "rake-cgen: converting %s to %s is not implemented", e->operand->ty, e->ty);
    RkElem from = ft->elem, to = tt->elem;
    const char *x = ex(e->operand);
    if (e->kind == RK_BITCAST) {
        if (rk_elem_bits(from) != rk_elem_bits(to))
            refuse(e->loc, "rake-cgen: a bitcast that changes the width is not implemented");
        return capture(tt, bitcast(from, to, x));
    }
    if (e->kind == RK_WRAP) {
        if (!rk_elem_is_int(from) || !rk_elem_is_int(to))
            refuse(e->loc, "rake-cgen: wrap of a non-integer is not implemented");
        return capture(tt, fmt("(%s)%s", elem_ctype(to), x));
    }
    if (to == RK_E_BOOL)
        return capture(tt, fmt("%s != 0", x));
    if (rk_elem_is_float(to))
        return capture(tt, fmt("(%s)%s", elem_ctype(to), x));
    if (rk_elem_is_float(from))
        return capture(tt, float_to_int(e, from, to, x));
    if (from == RK_E_BOOL)
        refuse(e->loc, "rake-cgen: converting a bool to a number is not implemented");
    return capture(tt, int_to_int(e, from, to, x));
}

/* --- slow blocks --------------------------------------------------------------------- */

static const char *slow_block(RkNode *blk)
{
    const RkType *t = type_of(blk);
    int saved = G->loop_depth;
    G->loop_depth = 0; /* break and continue refer to loops inside the block */
    const char *v = NULL;
    RkList body = blk->body;
    emit("{");
    G->indent++;
    for (int i = 0; i < body.len; i++) {
        RkNode *s = body.items[i];
        if (i == body.len - 1 && s->kind == RK_EXPR && !blk->discard)
            v = ex(s->value);
        else
            gen_list((RkList){&body.items[i], 1});
    }
    G->indent--;
    emit("}");
    G->loop_depth = saved;
    if (t->kind == RK_T_UNIT)
        return NULL;
    if (!v)
        refuse(blk->loc, "rake-cgen: a slow block of type %s without a final value", blk->ty);
    return aggregate(t) ? pin(t, v) : v;
}

const char *ex(RkNode *e)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
    case RK_BOOL: {
        const RkType *t = type_of(e);
        if (t->kind != RK_T_SCALAR)
            refuse(e->loc, "rake-cgen: a literal of type %s is not implemented", e->ty);
        return literal(e, t->elem);
    }
    case RK_NAME: return name(e);
    case RK_UNIFORM: return ex(e->operand);
    case RK_BINARY: return binary(e);
    case RK_UNARY: return unary(e);
    case RK_IF_EXPR: return if_expr(e);
    case RK_INDEX: {
        const char *lv = index_place(e);
        return aggregate(type_of(e)) ? lv : capture(type_of(e), lv);
    }
    case RK_RECORD_LIT: return record_literal(e);
    case RK_FIELD: return column(e);
    case RK_CALL:
        if (e->note && !strcmp(e->note, "builtin"))
            return builtin(e);
        return call(e);
    case RK_CONVERT:
    case RK_WRAP:
    case RK_BITCAST: return convert(e);
    case RK_ARRAY_LIT:
    case RK_ARRAY_FILL: return array_literal(e);
    case RK_STACK_LIT: return stack_literal(e);
    case RK_SLOW_BLOCK: return slow_block(e);
    default:
        refuse(e->loc, "rake-cgen: a %s expression in slow code is not implemented",
               rk_kind_name(e->kind));
    }
}

/* --- built-ins ------------------------------------------------------------------------ */

static const char *count(RkNode *c, const char *a, const RkType *at)
{
    const RkType *t = type_of(c);
    if (at->kind == RK_T_STACK)
        return capture(t, fmt("%s->count > 0 ? %s->count : 0", a, a));
    if (at->kind == RK_T_ARRAY)
        return capture(t, fmt("(int32_t)%d", at->len));
    return capture(t, fmt("(int32_t)%s.n", a));
}

static const char *slice(RkNode *c)
{
    if (c->args.len != 3)
        refuse(c->loc, "rake-cgen: slice takes three arguments");
    const char *v = kept_view(c->args.items[0]);
    const char *s = ex(c->args.items[1]), *n = ex(c->args.items[2]);
    emit("rk_slice((int64_t)%s, (int64_t)%s, %s.n, %d);", s, n, v, site(c->loc));
    return capture(type_of(c), fmt("(%s){%s.p + (int64_t)%s, (int64_t)%s}",
                                   view_struct(type_of(c)->inner->elem), v, s, n));
}

static const char *float_fn(RkNode *c, const char *n, RkElem e, const char *a)
{
    const RkType *t = rk_ty_scalar(e);
    if (e == RK_E_F32)
        return capture(t, fmt("rk_%s_f32(%s)", n, a));
    if (!strcmp(n, "abs"))
        return capture(t, fmt("rk_abs_f64(%s)", a));
    if (e != RK_E_F64)
        refuse(c->loc, "rake-cgen: %s of %s is not implemented", n, rk_elem_name(e));
    return capture(t, fmt("%s(%s)", n, a));
}

static const char *int_binary(RkNode *c, const char *n, RkElem e, const char *x, const char *y)
{
    const char *T = elem_ctype(e);
    const RkType *t = rk_ty_scalar(e);
    int w = rk_elem_bits(e);
    if (!strcmp(n, "min"))
        return capture(t, fmt("%s < %s ? %s : %s", y, x, y, x));
    if (!strcmp(n, "max"))
        return capture(t, fmt("%s > %s ? %s : %s", y, x, y, x));
    const char *ops[][2] = {{"bit_and", "&"}, {"bit_or", "|"}, {"bit_xor", "^"}, {"wrap_add", "+"},
                            {"wrap_sub", "-"}, {"wrap_mul", "*"}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(n, ops[i][0]))
            return capture(t, fmt("(%s)(%s %s %s)", T, canon(x, e), ops[i][1], canon(y, e)));
    if (!strcmp(n, "bit_andnot"))
        return capture(t, fmt("(%s)(%s & ~%s)", T, canon(x, e), canon(y, e)));
    const char *sh[] = {"shift_bits_left", "shift_bits_right", "shift_bits_right_signed",
                        "rotate_bits_left", "rotate_bits_right"};
    RkElem ye = type_of(c->args.items[1])->elem;
    for (int i = 0; i < 5; i++)
        if (!strcmp(n, sh[i]))
            return capture(t, fmt("(%s)rk_shift(%d, %s, %s, %d)", T, i, canon(x, e), canon(y, ye), w));
    refuse(c->loc, "rake-cgen: the built-in %s in slow code is not implemented", n);
}

static const char *two_args(RkNode *c, const char *n, RkElem e, const char *x)
{
    if (c->args.len != 2)
        refuse(c->loc, "rake-cgen: the built-in %s in slow code is not implemented", n);
    const char *y = ex(c->args.items[1]);
    const RkType *t = rk_ty_scalar(e);
    if ((!strcmp(n, "min") || !strcmp(n, "max")) && rk_elem_is_float(e)) {
        if (e == RK_E_F32)
            return capture(t, fmt("rk_%s_f32(%s, %s)", n, x, y));
        return capture(t, fmt("rk_minmax_f64(%s, %s, %s)", n[1] == 'a' ? "true" : "false", x, y));
    }
    if (!rk_elem_is_int(e))
        refuse(c->loc, "rake-cgen: %s of %s is not implemented", n, rk_elem_name(e));
    return int_binary(c, n, e, x, y);
}

const char *builtin(RkNode *c)
{
    const char *n = c->name;
    if (c->args.len < 1)
        refuse(c->loc, "rake-cgen: the built-in %s in slow code is not implemented", n);
    if (!strcmp(n, "slice"))
        return slice(c);
    if (!strcmp(n, "addr") || !strcmp(n, "is_null") || !strcmp(n, "unchecked_view"))
        return pointer_builtin(c);
    RkNode *a0 = c->args.items[0];
    const RkType *at = type_of(a0);
    const char *a = ex(a0);
    if (!strcmp(n, "count"))
        return count(c, a, at);
    if (!strcmp(n, "copy")) {
        if (at->kind != RK_T_STACK)
            refuse(c->loc, "rake-cgen: copy of %s is not implemented", a0->ty);
        G->uses_frame = true;
        return capture(at, fmt("rk_copy_%s(&rk_fr, %s, %d)", at->name, a, site(c->loc)));
    }
    if (at->kind != RK_T_SCALAR)
        refuse(c->loc, "rake-cgen: the built-in %s of %s is not implemented", n, a0->ty);
    RkElem e = at->elem;
    const char *fl[] = {"sqrt", "floor", "ceil", "exp", "log", "log2", "tanh"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(n, fl[i]))
            return float_fn(c, n, e, a);
    if (!strcmp(n, "abs")) {
        if (rk_elem_is_float(e))
            return float_fn(c, n, e, a);
        return capture(at, fmt("rk_abs_%s(%s, %d)", rk_elem_name(e), a, site(c->loc)));
    }
    int w = rk_elem_bits(e);
    const char *bc[] = {"count_leading_zeros", "count_trailing_zeros", "popcount"};
    for (int i = 0; i < 3 && rk_elem_is_int(e); i++)
        if (!strcmp(n, bc[i]))
            return capture(at, fmt("(%s)rk_bitcount(%s, %d, %d)", elem_ctype(e), canon(a, e), w, i));
    if (!strcmp(n, "bit_not") && rk_elem_is_int(e))
        return capture(at, fmt("(%s)~%s", elem_ctype(e), canon(a, e)));
    return two_args(c, n, e, a);
}

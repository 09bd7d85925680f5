/* slow.c: the slow tier: slow functions, module constants and state, and
 * the slow blocks inside runs.
 *
 * Slow code is scalar code with checked arithmetic.  It holds no racks; a
 * scalar becomes a rack only at a marked `<argument>` of a call to vector
 * code.  Stacks are values that move: passing a stack as a run's result
 * moves it into the run, and reading the variable afterwards is an error
 * until it is assigned again.  A move in either branch of an `if` counts
 * after the `if`, and a move inside a loop must be undone by an assignment
 * before the next iteration.  `copy(s)` keeps a stack usable. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check.h"
#include "slow.h"

/* --- moves -------------------------------------------------------------------- */

typedef struct Snap {
    Binding *b;
    bool moved;
    RkLoc at;
} Snap;

typedef struct Snapshot {
    Snap *s;
    int n;
} Snapshot;

static Snapshot snapshot(void)
{
    int n = 0;
    for (Scope *sc = C->scope; sc; sc = sc->parent)
        for (Binding *b = sc->head; b; b = b->next)
            n += b->type->kind == RK_T_STACK;
    Snapshot s = {rk_arena_alloc(&rk_heap, sizeof(Snap) * (size_t)(n + 1)), 0};
    for (Scope *sc = C->scope; sc; sc = sc->parent)
        for (Binding *b = sc->head; b; b = b->next)
            if (b->type->kind == RK_T_STACK)
                s.s[s.n++] = (Snap){b, b->moved, b->moved_at};
    return s;
}

static void restore(Snapshot s)
{
    for (int i = 0; i < s.n; i++) {
        s.s[i].b->moved = s.s[i].moved;
        s.s[i].b->moved_at = s.s[i].at;
    }
}

/* After both branches: moved if moved in either. */
static void merge(Snapshot before, Snapshot other)
{
    for (int i = 0; i < before.n; i++) {
        Binding *b = before.s[i].b;
        if (!b->moved && other.s[i].moved) {
            b->moved = true;
            b->moved_at = other.s[i].at;
        }
    }
}

static void loop_moves(Snapshot before)
{
    for (int i = 0; i < before.n; i++) {
        Binding *b = before.s[i].b;
        if (b->moved && !before.s[i].moved)
            ERROR(b->moved_at, "'%s' is moved into a run inside this loop and isn't "
                               "assigned again before the next iteration",
                  b->name);
    }
}

/* --- names ------------------------------------------------------------------------ */

static Info sname(RkNode *e)
{
    bool hidden = false;
    Binding *b = lookup_any(e->name, &hidden);
    if (!b) {
        RkNode *d = find_decl(e->name);
        if (!d) {
            ERROR(e->loc, "unknown name '%s'", e->name);
            return err();
        }
        if (d->kind == RK_CONST || d->kind == RK_STATE || d->kind == RK_EMBED) {
            e->ref = d->kind == RK_CONST ? "const" : d->kind == RK_STATE ? "state" : "embed";
            const RkType *t = d->ty ? rk_type_parse(d->ty) : &rk_ty_error;
            set_ty(e, t);
            return info_of(t);
        }
        ERROR(e->loc, "'%s' is a %s, not a value", e->name, rk_kind_name(d->kind));
        return err();
    }
    annotate_slot(e, b);
    const RkType *t = b->type;
    if (is_error(t))
        return err();
    if (hidden && t->kind != RK_T_SCALAR && t->kind != RK_T_VIEW) {
        ERROR(e->loc, "a slow block can't name '%s', which is %s; it reads the run's "
                      "uniforms and views only",
              e->name, ty_name(t));
        return err();
    }
    if (b->kind == B_TINE) {
        ERROR(e->loc, "'%s' is a tine", e->name);
        return err();
    }
    if (t->kind == RK_T_STACK && b->moved) {
        ERROR(e->loc, "'%s' was moved into a run at line %d; assign it again before "
                      "reading it",
              e->name, b->moved_at.line);
        return err();
    }
    set_ty(e, t);
    return info_of(t);
}

/* --- operators ---------------------------------------------------------------------- */

/* Two operands of one type: a literal takes the other side's type. */
void slow_operands(RkNode *l, RkNode *r, const RkType *expect, Info *li, Info *ri)
{
    if (is_literal(l) && !is_literal(r)) {
        *ri = check_sexpr(r, expect);
        *li = check_sexpr(l, is_error(ri->ty) ? expect : ri->ty);
    } else {
        *li = check_sexpr(l, expect);
        *ri = check_sexpr(r, is_error(li->ty) ? expect : li->ty);
    }
}

static Info sbinary(RkNode *e, const RkType *expect)
{
    const char *op = e->op;
    bool logic = !strcmp(op, "and") || !strcmp(op, "or");
    bool arith = strchr("+-*/%", op[0]) && !op[1];
    Info l, r;
    slow_operands(e->lhs, e->rhs, arith ? expect : NULL, &l, &r);
    if (is_error(l.ty) || is_error(r.ty))
        return err();
    if (logic) {
        if (!is_scalar(l.ty, RK_E_BOOL) || !is_scalar(r.ty, RK_E_BOOL)) {
            ERROR(e->loc, "'%s' takes two bools, not %s and %s", op, ty_name(l.ty),
                  ty_name(r.ty));
            return err();
        }
        set_ty(e, l.ty);
        return l;
    }
    const RkType *agg = l.ty->kind != RK_T_SCALAR ? l.ty : r.ty;
    if (agg->kind != RK_T_SCALAR) {
        bool ptr = agg->kind == RK_T_PTR || agg->kind == RK_T_FN;
        ERROR(e->loc, "'%s' works on numbers and bools, not %s%s", op, ty_name(agg),
              ptr ? "; test a pointer with is_null(p)" : "");
        return err();
    }
    if (!rk_ty_equal(l.ty, r.ty)) {
        ERROR(e->loc, "'%s' combines %s with %s; slow code has no implicit "
                      "conversion (write T(x))",
              op, ty_name(l.ty), ty_name(r.ty));
        return err();
    }
    if (arith) {
        if (!is_num(l.ty)) {
            ERROR(e->loc, "'%s' takes numbers, not %s", op, ty_name(l.ty));
            return err();
        }
        if (op[0] == '%' && rk_elem_is_float(l.ty->elem)) {
            ERROR(e->loc, "'%%' has no float form");
            return err();
        }
        set_ty(e, l.ty);
        return info_of(l.ty);
    }
    if (l.ty->elem == RK_E_BOOL && strcmp(op, "=") && strcmp(op, "!=")) {
        ERROR(e->loc, "bools compare with = and != only");
        return err();
    }
    set_ty(e, rk_ty_scalar(RK_E_BOOL));
    return info_of(rk_ty_scalar(RK_E_BOOL));
}

static Info sunary(RkNode *e, const RkType *expect)
{
    Info o = check_sexpr(e->operand, expect);
    if (is_error(o.ty))
        return o;
    bool neg = e->op[0] == '-';
    if (neg ? !is_num(o.ty) : !is_scalar(o.ty, RK_E_BOOL)) {
        ERROR(e->loc, neg ? "unary minus takes a number, not %s"
                          : "'not' takes a bool, not %s",
              ty_name(o.ty));
        return err();
    }
    bool neg_lit = false;
    uint64_t mag = 0;
    if (neg && e->operand->kind == RK_INT && o.ty->kind == RK_T_SCALAR &&
        (o.ty->elem == RK_E_U8 || o.ty->elem == RK_E_U16 || o.ty->elem == RK_E_U32 ||
         o.ty->elem == RK_E_U64) &&
        rk_int_literal(e->operand->text, &neg_lit, &mag) && mag != 0) {
        /* it would trap every time it runs; a constant would be wrong */
        ERROR(e->loc, "-(%s) is out of range for %s: an unsigned value can't be negative",
              e->operand->text, rk_ty_str(o.ty));
        return err();
    }
    set_ty(e, o.ty);
    return o;
}

static Info sif(RkNode *e, const RkType *expect)
{
    Info c = check_sexpr(e->cond, rk_ty_scalar(RK_E_BOOL));
    if (!is_error(c.ty) && !is_scalar(c.ty, RK_E_BOOL))
        ERROR(e->cond->loc, "an if's condition is a bool, not %s", ty_name(c.ty));
    Info a, b;
    slow_operands(e->then_e, e->else_e, expect, &a, &b);
    if (is_error(a.ty) || is_error(b.ty))
        return err();
    if (!rk_ty_equal(a.ty, b.ty)) {
        ERROR(e->loc, "the two branches are %s and %s; they need one type",
              ty_name(a.ty), ty_name(b.ty));
        return err();
    }
    set_ty(e, a.ty);
    return a;
}

static Info sindex(RkNode *e)
{
    Info o = check_sexpr(e->object, NULL);
    Info i = check_sexpr(e->index, rk_ty_scalar(RK_E_I32));
    if (is_error(o.ty) || is_error(i.ty))
        return err();
    if (!is_int(i.ty)) {
        ERROR(e->index->loc, "an index is an integer, not %s", ty_name(i.ty));
        return err();
    }
    if (o.ty->kind == RK_T_PTR)
        return check_pointer_index(e, o.ty);
    if (o.ty->kind != RK_T_ARRAY && o.ty->kind != RK_T_VIEW) {
        ERROR(e->object->loc, "only arrays, views and pointers can be indexed, not %s",
              ty_name(o.ty));
        return err();
    }
    e->note = "element";
    set_ty(e, o.ty->inner);
    return info_of(o.ty->inner);
}


static Info sfield(RkNode *e)
{
    Info o = check_sexpr(e->object, NULL);
    if (is_error(o.ty))
        return o;
    if (o.ty->kind != RK_T_STACK)
        return check_record_field(e, o.ty);
    RkNode *f = pack_field(find_pack(o.ty->name), e->name);
    if (!f) {
        ERROR(e->loc, "pack %s has no field '%s'", o.ty->name, e->name);
        return err();
    }
    if (!f->ty)
        return err();
    const RkType *t = rk_ty_view(rk_type_parse(f->ty), !slow_stack_ro(e->object));
    e->note = "column";
    set_ty(e, t);
    return info_of(t);
}

static Info sconvert(RkNode *e)
{
    const RkType *t = resolve_type(e->type, false);
    bool bits = e->kind == RK_BITCAST && !is_error(t);
    const RkType *lit = bits ? bitcast_literal_type(e->operand, t)
                       : e->kind == RK_CONVERT ? convert_literal_type(e->operand) : NULL;
    Info x = check_sexpr(e->operand, lit);
    if (is_error(t) || is_error(x.ty))
        return err();
    bool tp = t->kind == RK_T_PTR || t->kind == RK_T_FN;
    bool xp = x.ty->kind == RK_T_PTR || x.ty->kind == RK_T_FN;
    if (e->kind == RK_BITCAST && (tp || xp)) {
        if (!tp || !xp) {
            ERROR(e->loc, "bitcast changes one pointer type into another (ptr T, ptr (), "
                          "slow(...) -> U), not %s into %s",
                  ty_name(x.ty), rk_ty_str(t));
            return err();
        }
        set_ty(e, t);
        return info_of(t);
    }
    if (t->kind != RK_T_SCALAR || x.ty->kind != RK_T_SCALAR) {
        ERROR(e->loc, "%s(...) converts a scalar, not %s", rk_ty_str(t), ty_name(x.ty));
        return err();
    }
    if (e->kind == RK_WRAP && (!is_int(t) || !is_int(x.ty))) {
        ERROR(e->loc, "wrap(T, x) keeps the low bits of an integer");
        return err();
    }
    if (e->kind == RK_BITCAST &&
        (rk_elem_bits(t->elem) != rk_elem_bits(x.ty->elem) || t->elem == RK_E_BOOL)) {
        ERROR(e->loc, "bitcast keeps the same bits at the same width: %s is %d "
                      "bits and %s %d",
              rk_ty_str(x.ty), rk_elem_bits(x.ty->elem), rk_ty_str(t),
              rk_elem_bits(t->elem));
        return err();
    }
    if (e->kind == RK_CONVERT && x.ty->elem == RK_E_BOOL && t->elem != RK_E_BOOL) {
        ERROR(e->loc, "a bool converts to a number with if b then 1 else 0");
        return err();
    }
    set_ty(e, t);
    return info_of(t);
}

static bool array_elem_ok(const RkType *t)
{
    return t->kind == RK_T_SCALAR || t->kind == RK_T_RECORD || t->kind == RK_T_UNION ||
           t->kind == RK_T_PTR || t->kind == RK_T_FN;
}

static Info sarray(RkNode *e, const RkType *expect)
{
    const RkType *want = expect && expect->kind == RK_T_ARRAY ? expect->inner : NULL;
    if (e->kind == RK_ARRAY_FILL) {
        long long n;
        Info v = check_sexpr(e->value, want);
        if (!int_literal_value(e->len, &n) || n < 1 || n > (1 << 24)) {
            ERROR(e->len->loc, "[e; n] repeats e n times: n is an integer from 1 "
                               "to %d",
                  1 << 24);
            return err();
        }
        set_ty(e->len, rk_ty_scalar(RK_E_I32));
        if (is_error(v.ty))
            return v;
        if (!array_elem_ok(v.ty)) {
            ERROR(e->value->loc, "array elements are scalars, records or pointers, not %s",
                  ty_name(v.ty));
            return err();
        }
        const RkType *t = rk_ty_array(v.ty, (int)n);
        set_ty(e, t);
        return info_of(t);
    }
    const RkType *el = want;
    for (int i = 0; i < e->elems.len && !el; i++)
        if (!is_literal(e->elems.items[i]))
            el = check_sexpr(e->elems.items[i], NULL).ty;
    bool bad = false;
    for (int i = 0; i < e->elems.len; i++) {
        Info v = check_sexpr(e->elems.items[i], el);
        if (!el)
            el = v.ty;
        if (is_error(v.ty) || is_error(el)) {
            bad = true;
        } else if (!ty_accepts(el, v.ty) || !array_elem_ok(v.ty)) {
            ERROR(e->elems.items[i]->loc, "array elements share one type: "
                                          "this is %s, the others %s",
                  ty_name(v.ty), ty_name(el));
            bad = true;
        }
    }
    if (bad)
        return err();
    const RkType *t = rk_ty_array(el, e->elems.len);
    set_ty(e, t);
    return info_of(t);
}

static Info sstack(RkNode *e)
{
    RkNode *pack = find_pack(e->name);
    if (!pack) {
        ERROR(e->loc, "unknown pack '%s'", e->name);
        return err();
    }
    for (int i = 0; i < e->fields.len; i++) {
        RkNode *fi = e->fields.items[i];
        RkNode *f = pack_field(pack, fi->name);
        Info v = check_sexpr(fi->value, NULL);
        if (!f) {
            ERROR(fi->loc, "pack %s has no field '%s'", pack->name, fi->name);
            continue;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(e->fields.items[j]->name, fi->name))
                ERROR(fi->loc, "column '%s' is given twice", fi->name);
        if (is_error(v.ty) || !f->ty)
            continue;
        const RkType *want = rk_type_parse(f->ty);
        if ((v.ty->kind != RK_T_ARRAY && v.ty->kind != RK_T_VIEW) ||
            !rk_ty_equal(v.ty->inner, want))
            ERROR(fi->value->loc, "column '%s' is an array or view of %s, not %s",
                  fi->name, rk_ty_str(want), ty_name(v.ty));
        fi->ty = rk_ty_str(v.ty);
    }
    for (int i = 0; i < pack->fields.len; i++) {
        bool given = false;
        for (int j = 0; j < e->fields.len; j++)
            given |= !strcmp(e->fields.items[j]->name, pack->fields.items[i]->name);
        if (!given)
            ERROR(e->loc, "stack %s needs column '%s'", pack->name,
                  pack->fields.items[i]->name);
    }
    const RkType *t = rk_ty_stack(pack->name);
    set_ty(e, t);
    return info_of(t);
}

/* The function pointer type a called name holds, or NULL. */
static const RkType *fnptr_callee(RkNode *call)
{
    Binding *b = lookup(call->name);
    if (b) {
        if (b->type->kind != RK_T_FN)
            return NULL;
        annotate_slot(call, b);
        return b->type;
    }
    RkNode *d = find_decl(call->name);
    const RkType *t = d && d->kind == RK_STATE && d->ty ? rk_type_parse(d->ty) : NULL;
    if (!t || t->kind != RK_T_FN)
        return NULL;
    call->ref = "state";
    return t;
}

static Info scall(RkNode *call, const RkType *expect)
{
    const RkType *ft = fnptr_callee(call);
    if (ft)
        return call_function_pointer(call, ft);
    bool found;
    Info in = check_slow_builtin(call, expect, &found);
    if (found)
        return in;
    RkNode *d = find_decl(call->name);
    if (d)
        return check_slow_call(call, d, expect);
    if (is_cross_lane_builtin(call->name) || is_fusable_builtin(call->name) ||
        !strcmp(call->name, "widen") || !strcmp(call->name, "fma")) {
        ERROR(call->loc, "%s is a vector operation; slow code works on scalars",
              call->name);
    } else {
        ERROR(call->loc, "unknown function '%s'", call->name);
    }
    for (int i = 0; i < call->args.len; i++)
        check_sexpr(call->args.items[i], NULL);
    return err();
}

/* --- expressions ------------------------------------------------------------------------ */

Info check_sexpr(RkNode *e, const RkType *expect)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
    case RK_BOOL:
        return check_literal(e, expect);
    case RK_NAME:
        return sname(e);
    case RK_UNIFORM:
        ERROR(e->loc, "a <...> mark in slow code marks a scalar argument to vector "
                      "code; remove it here");
        check_sexpr(e->operand, expect);
        return err();
    case RK_BINARY:
        return sbinary(e, expect);
    case RK_UNARY:
        return sunary(e, expect);
    case RK_IF_EXPR:
        return sif(e, expect);
    case RK_INDEX:
        return sindex(e);
    case RK_FIELD:
        return sfield(e);
    case RK_CALL:
        return scall(e, expect);
    case RK_CONVERT:
    case RK_WRAP:
    case RK_BITCAST:
        return sconvert(e);
    case RK_ARRAY_LIT:
    case RK_ARRAY_FILL:
        return sarray(e, expect);
    case RK_STACK_LIT:
        return sstack(e);
    case RK_SLOW_BLOCK:
        return check_slow_block(e, expect);
    case RK_RECORD_LIT:
        return check_record_lit(e);
    case RK_STRING:
        ERROR(e->loc, "string literals are allowed only as an extern's ptr const u8 or "
                      "i8 argument");
        return err();
    default:
        ERROR(e->loc, "this is vector code (tines, masks, shuffles, lanes); slow "
                      "code works on scalars");
        return err();
    }
}

/* --- statements -------------------------------------------------------------------------- */

static void sblock(RkList body)
{
    scope_push(false);
    for (int i = 0; i < body.len; i++)
        check_slow_stmt(body.items[i]);
    scope_pop();
}

static const RkType *slow_local_type(RkNode *s, Info v, const RkType *want)
{
    const RkType *t = want ? want : v.ty;
    if (is_error(t) || is_error(v.ty))
        return &rk_ty_error;
    if (want && !ty_accepts(want, v.ty)) {
        bool view_of_array = want->kind == RK_T_VIEW &&
                             (v.ty->kind == RK_T_ARRAY || v.ty->kind == RK_T_VIEW) &&
                             rk_ty_equal(want->inner, v.ty->inner) && !want->mut;
        if (!view_of_array) {
            ERROR(s->value->loc, "'%s' is %s, but its value is %s", s->name,
                  ty_name(want), ty_name(v.ty));
            return &rk_ty_error;
        }
    }
    if (t->kind == RK_T_UNIT) {
        ERROR(s->value->loc, "this has no value to bind");
        return &rk_ty_error;
    }
    if (t->kind == RK_T_RACK || t->kind == RK_T_MASK) {
        ERROR(s->loc, "slow code can't hold %s values", rk_ty_str(t));
        return &rk_ty_error;
    }
    return t;
}

static void slow_bind(RkNode *s, BindKind kind)
{
    if (s->uniform) {
        ERROR(s->loc, "let <x: T> binds a uniform in vector code; slow code writes "
                      "let x: T = e");
    }
    const RkType *want = s->type ? resolve_type(s->type, false) : NULL;
    Info v = check_sexpr(s->value, want);
    const RkType *t = want && is_error(want) ? want : slow_local_type(s, v, want);
    Binding *b = bind(s, s->name, kind, t);
    if (t->kind == RK_T_STACK)
        b->ro_stack = slow_stack_ro(s->value);
    s->ty = is_error(t) ? NULL : rk_ty_str(t);
}

static void sassign(RkNode *s)
{
    RkNode *t = s->target;
    if (t->kind == RK_NAME) {
        Binding *b = lookup(t->name);
        RkNode *d = b ? NULL : find_decl(t->name);
        const RkType *tt;
        if (b) {
            bool mut_param = b->kind == B_PARAM && b->type->mut &&
                             (b->type->kind == RK_T_ARRAY || b->type->kind == RK_T_RECORD ||
                              b->type->kind == RK_T_UNION);
            if (b->kind != B_VAR && !mut_param) {
                ERROR(t->loc, "'%s' is not a location: create one with %s := e",
                      t->name, t->name);
                check_sexpr(s->value, NULL);
                return;
            }
            annotate_slot(t, b);
            tt = b->type;
        } else if (d && d->kind == RK_STATE) {
            t->ref = "state";
            tt = d->ty ? rk_type_parse(d->ty) : &rk_ty_error;
        } else {
            ERROR(t->loc, d ? "'%s' can't be assigned" : "unknown name '%s'", t->name);
            check_sexpr(s->value, NULL);
            return;
        }
        set_ty(t, tt);
        Info v = check_sexpr(s->value, tt);
        if (!is_error(v.ty) && !is_error(tt) && !ty_accepts(tt, v.ty))
            ERROR(s->value->loc, "'%s' is %s, but the new value is %s", t->name,
                  ty_name(tt), ty_name(v.ty));
        if (b && tt->kind == RK_T_STACK) {
            b->moved = false;
            b->ro_stack |= slow_stack_ro(s->value); /* read-only once, in any branch */
        }
        return;
    }
    if (t->kind == RK_INDEX || t->kind == RK_FIELD) {
        Info ti = check_sexpr(t, NULL);
        RkNode *base = t->object;
        bool through = t->note && (!strcmp(t->note, "pointer") ||
                                   !strcmp(t->note, "pointer_field"));
        if (is_error(ti.ty)) {
        } else if (through && !place_writable(t)) {
            ERROR(base->loc, "'%s' is a ptr const: what it points at can't be written",
                  expr_text(base));
        } else if (!through && !slow_writable(base)) {
            ERROR(base->loc, "'%s' can't be written: %s; assign into an array or record "
                             "bound with :=, module state or a mut view",
                  expr_text(base), slow_readonly_reason(base));
        }
        Info v = check_sexpr(s->value, ti.ty);
        if (!is_error(v.ty) && !is_error(ti.ty) && !ty_accepts(ti.ty, v.ty))
            ERROR(s->value->loc, "the %s is %s, but the new value is %s",
                  t->kind == RK_FIELD ? "field" : "element", ty_name(ti.ty), ty_name(v.ty));
        return;
    }
    ERROR(t->loc, "this can't be assigned: assign to a name, a field or an element");
    check_sexpr(s->value, NULL);
}

static void sif_stmt(RkNode *s)
{
    Info c = check_sexpr(s->cond, rk_ty_scalar(RK_E_BOOL));
    if (!is_error(c.ty) && !is_scalar(c.ty, RK_E_BOOL))
        ERROR(s->cond->loc, "an if's condition is a bool, not %s", ty_name(c.ty));
    Snapshot before = snapshot();
    sblock(s->body);
    Snapshot after_then = snapshot();
    restore(before);
    if (s->else_body.len)
        sblock(s->else_body);
    merge(before, after_then);
}

static void sloop(RkNode *s)
{
    Snapshot before = snapshot();
    C->loop_depth++;
    if (s->kind == RK_WHILE) {
        Info c = check_sexpr(s->cond, rk_ty_scalar(RK_E_BOOL));
        if (!is_error(c.ty) && !is_scalar(c.ty, RK_E_BOOL))
            ERROR(s->cond->loc, "a while condition is a bool, not %s", ty_name(c.ty));
        sblock(s->body);
    } else {
        if (s->uniform)
            ERROR(s->loc, "a slow loop's index is a plain name: for %s from a up to b",
                  s->name);
        const RkType *it = s->type ? resolve_type(s->type, false) : rk_ty_scalar(RK_E_I32);
        if (!is_error(it) && !is_int(it)) {
            ERROR(s->type->loc, "a loop index is an integer, not %s", ty_name(it));
            it = &rk_ty_error;
        }
        RkNode *bounds[] = {s->from, s->to, s->step};
        for (int i = 0; i < 3; i++) {
            if (!bounds[i])
                continue;
            Info b = check_sexpr(bounds[i], it);
            if (!is_error(b.ty) && !is_error(it) && !rk_ty_equal(b.ty, it))
                ERROR(bounds[i]->loc, "the loop index is %s, but this bound is %s",
                      rk_ty_str(it), ty_name(b.ty));
        }
        scope_push(false);
        bind(s, s->name, B_INDEX, it);
        sblock(s->body);
        scope_pop();
    }
    C->loop_depth--;
    loop_moves(before);
}

static void sreturn(RkNode *s)
{
    if (C->kind != FN_SLOW) {
        ERROR(s->loc, "runs have no return");
        return;
    }
    const RkType *r = C->ret;
    if (!s->value) {
        if (!is_error(r) && r->kind != RK_T_UNIT)
            ERROR(s->loc, "this function returns %s: return a value", ty_name(r));
        return;
    }
    Info v = check_sexpr(s->value, r);
    if (is_error(v.ty) || is_error(r))
        return;
    if (r->kind == RK_T_UNIT)
        ERROR(s->value->loc, "this function returns no value");
    else if (!rk_ty_equal(v.ty, r))
        ERROR(s->value->loc, "this function returns %s, not %s", ty_name(r),
              ty_name(v.ty));
}

void check_slow_stmt(RkNode *s)
{
    switch (s->kind) {
    case RK_LET:
        slow_bind(s, B_LET);
        return;
    case RK_VAR:
        slow_bind(s, B_VAR);
        return;
    case RK_ASSIGN:
        sassign(s);
        return;
    case RK_IF:
        sif_stmt(s);
        return;
    case RK_WHILE:
    case RK_FOR:
        sloop(s);
        return;
    case RK_BREAK:
    case RK_CONTINUE:
        if (!C->loop_depth && C->slow_block && C->kind != FN_SLOW)
            ERROR(s->loc, "%s is outside a loop: in a run's slow block, break "
                          "and continue refer only to loops inside the block",
                  rk_kind_name(s->kind));
        else if (!C->loop_depth)
            ERROR(s->loc, "%s is outside a loop", rk_kind_name(s->kind));
        return;
    case RK_RETURN:
        sreturn(s);
        return;
    case RK_EXPR: {
        RkNode *v = s->value;
        Info in = check_sexpr(v, NULL);
        if (v->kind != RK_CALL && v->kind != RK_SLOW_BLOCK && !is_error(in.ty))
            ERROR(s->loc, "this expression's value is unused");
        else if (v->kind == RK_CALL && !is_error(in.ty) && in.ty->kind == RK_T_STACK)
            ERROR(s->loc, "the stack this run returns is unused: bind it, as in "
                          "s <- %s(...)",
                  v->name);
        return;
    }
    default:
        ERROR(s->loc, "a %s statement is vector code; it doesn't belong in slow code",
              rk_kind_name(s->kind));
        return;
    }
}

/* Does every path through body end in a return?  A final braced block,
 * slow { ... }, returns when its own statements do: a return inside a
 * block returns from the function (10-gap-notes.md, section 6). */
static bool returns(RkList body)
{
    if (!body.len)
        return false;
    RkNode *last = body.items[body.len - 1];
    if (last->kind == RK_RETURN)
        return true;
    if (last->kind == RK_EXPR && last->value->kind == RK_SLOW_BLOCK)
        return returns(last->value->body);
    if (last->kind == RK_IF)
        return last->else_body.len && returns(last->body) && returns(last->else_body);
    return false;
}

Info check_slow_block(RkNode *blk, const RkType *expect)
{
    C->slow_block++;
    scope_push(C->kind != FN_SLOW);
    Info val = info_of(&rk_ty_unit);
    RkList body = blk->body;
    for (int i = 0; i < body.len; i++) {
        RkNode *s = body.items[i];
        if (i == body.len - 1 && s->kind == RK_EXPR && !blk->discard) {
            val = check_sexpr(s->value, expect);
            continue;
        }
        if (i == body.len - 1 && s->kind == RK_EXPR) {
            check_sexpr(s->value, NULL); /* `slow { e; }`: the ';' discards e */
            continue;
        }
        check_slow_stmt(s);
    }
    scope_pop();
    C->slow_block--;
    set_ty(blk, val.ty);
    return val;
}

/* --- definitions ----------------------------------------------------------------------- */

static void value_decl(RkNode *d)
{
    fn_begin(d, FN_SLOW);
    const RkType *t = resolve_type(d->type, false);
    bool c_value = t->kind == RK_T_RECORD || t->kind == RK_T_UNION || t->kind == RK_T_PTR ||
                   t->kind == RK_T_FN;
    if (!is_error(t) && t->kind != RK_T_SCALAR && t->kind != RK_T_ARRAY &&
        !(c_value && d->kind == RK_STATE)) {
        ERROR(d->type->loc, d->kind == RK_CONST
                                ? "module constants hold a scalar or an array, not %s"
                                : "module state holds a scalar, an array, a record or a "
                                  "pointer, not %s",
              ty_name(t));
        t = &rk_ty_error;
    }
    if (d->value) {
        Info v = check_sexpr(d->value, t);
        if (!is_error(v.ty) && !is_error(t) && !rk_ty_equal(v.ty, t))
            ERROR(d->value->loc, "%s is %s, but its value is %s", d->name, ty_name(t),
                  ty_name(v.ty));
        if (!is_constant_value(d->value))
            ERROR(d->value->loc, "a module %s is initialised with a literal",
                  d->kind == RK_CONST ? "constant" : "state");
    }
    d->ty = is_error(t) ? NULL : rk_ty_str(t);
    fn_end(d);
}

void check_slow_fn(RkNode *fn)
{
    if (fn->kind == RK_STATE || fn->kind == RK_CONST) {
        value_decl(fn);
        return;
    }
    fn_begin(fn, FN_SLOW);
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = resolve_slow_param_type(p->type);
        if (p->uniform)
            ERROR(p->loc, "a slow function's parameters are plain: %s: T", p->name);
        if (!is_error(t) && (t->kind == RK_T_RACK || t->kind == RK_T_MASK)) {
            ERROR(p->type->loc, "slow code can't take %s values", rk_ty_str(t));
            t = &rk_ty_error;
        } else if (!is_error(t) && t->kind == RK_T_STACK) {
            ERROR(p->type->loc, "slow functions can't take or return stacks");
            t = &rk_ty_error;
        }
        bind(p, p->name, B_PARAM, t);
        p->ty = is_error(t) ? NULL : rk_ty_str(t);
    }
    const RkType *r = fn->ret ? resolve_type(fn->ret, false) : &rk_ty_unit;
    if (!is_error(r) && (r->kind == RK_T_STACK || r->kind == RK_T_RACK ||
                         r->kind == RK_T_MASK || r->kind == RK_T_VIEW ||
                         r->kind == RK_T_PACK)) {
        ERROR(fn->ret->loc, "a slow function returns a scalar, an array, a record or a "
                            "pointer, not %s",
              ty_name(r));
        r = &rk_ty_error;
    }
    C->ret = r;
    fn->ty = is_error(r) ? NULL : rk_ty_str(r);
    for (int i = 0; i < fn->body.len; i++)
        check_slow_stmt(fn->body.items[i]);
    if (!is_error(r) && r->kind != RK_T_UNIT && !returns(fn->body))
        ERROR(fn->loc, "slow %s returns %s, but not on every path", fn->name, ty_name(r));
    fn_end(fn);
}

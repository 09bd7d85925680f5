/* expr.c: typing expressions.
 *
 * Vector code (scratches, rakes, tines, runs) and slow code share literals
 * and names but differ in almost every rule, so check_expr() sends each
 * expression to check_vexpr() or check_sexpr() (slow.c) by where it is.
 *
 * Literals (literal.c) take their type from what they meet (10-gap-notes.md, section 1):
 * the other operand, the parameter, the binding's declared type; otherwise
 * an integer literal is i32 and must fit, and a float literal is f32.  In
 * vector code a scalar value is uniform: a bare literal or a marked `<x>`
 * stands for every lane and is broadcast where it meets a rack.
 *
 * Besides a type, each vector expression gets two Boolean functions over
 * comparison atoms (pred.c): `def`, the lanes in which its value is
 * defined (a through result without `else` is defined only under its
 * predicate, and values computed under a mask only there), and, for masks,
 * `mask`, the mask itself.  kernel.c uses them for the coverage proofs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check.h"

Check *C;

bool is_error(const RkType *t) { return t->kind == RK_T_ERROR; }

Info info_of(const RkType *t)
{
    Info i = {t, RK_BDD_TRUE, RK_BDD_TRUE};
    return i;
}

static Info err_info(void) { return info_of(&rk_ty_error); }

void set_ty(RkNode *n, const RkType *t)
{
    if (!is_error(t))
        n->ty = rk_ty_str(t);
}

/* "a" or "an" before a type's spelling, as it is read aloud: an f32s, an
 * i32, a u32s, a bool. */
static const char *article(const char *word)
{
    return strchr("aefhilmnorsx", word[0]) ? "an" : "a";
}

const char *ty_name(const RkType *t)
{
    if (t->kind == RK_T_MASK)
        return rk_elem_bits(t->elem) == 32
                   ? "a mask"
                   : rk_arena_printf(&rk_heap, "a mask of %d-bit lanes",
                                     rk_elem_bits(t->elem));
    if (t->kind == RK_T_SCALAR)
        return rk_arena_printf(&rk_heap, "%s %s",
                               vector_code() ? "a uniform" : article(rk_ty_str(t)),
                               rk_ty_str(t));
    if (t->kind == RK_T_RACK)
        return rk_arena_printf(&rk_heap, "%s %s rack", article(rk_ty_str(t)),
                               rk_ty_str(t));
    if (t->kind == RK_T_UNIT)
        return "no value";
    return rk_arena_printf(&rk_heap, "%s", rk_ty_str(t));
}

bool vector_code(void)
{
    return C->kind != FN_SLOW && C->slow_block == 0;
}

Info check_expr(RkNode *e, const RkType *expect)
{
    return vector_code() ? check_vexpr(e, expect) : check_sexpr(e, expect);
}

/* --- literals -------------------------------------------------------------- */

bool is_literal(RkNode *e)
{
    if (e->kind == RK_UNIFORM)
        e = e->operand;
    return e->kind == RK_INT || e->kind == RK_FLOAT;
}

bool int_literal_value(RkNode *lit, long long *out)
{
    if (lit->kind != RK_INT)
        return false;
    bool neg;
    uint64_t v;
    if (!rk_int_literal(lit->text, &neg, &v) || (neg && v > (1ull << 63)) ||
        (!neg && v > (unsigned long long)INT64_MAX))
        return false;
    *out = neg ? (long long)(0 - v) : (long long)v;
    return true;
}

/* An integer literal, or the name of a module constant initialised with
 * one, which vector code may use as that literal (10-gap-notes.md,
 * section 6): its value. */
bool const_int_value(RkNode *n, long long *out)
{
    if (n->kind == RK_INT)
        return int_literal_value(n, out);
    if (n->kind != RK_NAME || lookup(n->name))
        return false;
    RkNode *d = find_decl(n->name);
    if (!d || d->kind != RK_CONST || !d->value)
        return false;
    RkNode *v = d->value;
    if (v->kind == RK_UNARY && v->op[0] == '-' && v->operand->kind == RK_INT &&
        int_literal_value(v->operand, out)) {
        *out = -*out;
        return true;
    }
    return int_literal_value(v, out);
}

/* The scalar element a literal should take from an expected type. */
const RkType *expect_scalar_of(const RkType *t)
{
    if (!t)
        return NULL;
    if (t->kind == RK_T_SCALAR || t->kind == RK_T_RACK || t->kind == RK_T_COLUMN)
        return rk_ty_scalar(t->elem);
    if (t->kind == RK_T_ARRAY || t->kind == RK_T_VIEW)
        return expect_scalar_of(t->inner);
    return NULL;
}

/* --- coercion ---------------------------------------------------------------- */

/* Accept a value of type `in` where `want` is expected: equal types, a
 * uniform broadcast into a rack of its element, or an error. */
Info coerce(RkNode *e, Info in, const RkType *want, const char *what)
{
    if (is_error(in.ty) || is_error(want) || rk_ty_equal(in.ty, want))
        return in;
    if (want->kind == RK_T_RACK && in.ty->kind == RK_T_SCALAR &&
        in.ty->elem == want->elem && vector_code()) {
        in.ty = want;
        return in;
    }
    if (want->kind == RK_T_VIEW && in.ty->kind == RK_T_VIEW &&
        rk_ty_equal(want->inner, in.ty->inner) && !want->mut)
        return in;
    ERROR(e->loc, "%s is %s, but %s is expected", what, ty_name(in.ty),
          ty_name(want));
    in.ty = &rk_ty_error;
    return in;
}

/* --- vector names and marks ------------------------------------------------- */

static int in_mark;

static Info module_value(RkNode *e, RkNode *d)
{
    if (d->kind == RK_CONST) {
        e->ref = "const";
        const RkType *t = d->ty ? rk_type_parse(d->ty) : &rk_ty_error;
        set_ty(e, t);
        return info_of(t);
    }
    if (d->kind == RK_STATE) {
        if (vector_code()) {
            ERROR(e->loc, "vector code can't read module state '%s'; pass it as "
                          "a parameter",
                  e->name);
            return err_info();
        }
        e->ref = "state";
        const RkType *t = d->ty ? rk_type_parse(d->ty) : &rk_ty_error;
        set_ty(e, t);
        return info_of(t);
    }
    ERROR(e->loc, "'%s' is a %s, not a value", e->name, rk_kind_name(d->kind));
    return err_info();
}

static Info vname(RkNode *e, bool marked)
{
    bool hidden = false;
    Binding *b = lookup_any(e->name, &hidden);
    if (!b) {
        RkNode *d = find_decl(e->name);
        if (d)
            return module_value(e, d);
        ERROR(e->loc, "unknown name '%s'", e->name);
        return err_info();
    }
    annotate_slot(e, b);
    const RkType *t = b->type;
    if (is_error(t))
        return err_info();
    if (b->kind == B_TINE) {
        ERROR(e->loc, "'%s' is a tine: write #%s", e->name, e->name);
        return err_info();
    }
    if (t->kind == RK_T_SCALAR && b->uniform && !marked && !in_mark) {
        ERROR(e->loc, "'%s' is a uniform %s: mark it at each use, <%s>", e->name,
              rk_ty_str(t), e->name);
        return err_info();
    }
    if (marked && t->kind != RK_T_SCALAR) {
        ERROR(e->loc, "<%s> marks a uniform, but '%s' is %s", e->name, e->name,
              ty_name(t));
        return err_info();
    }
    set_ty(e, t);
    Info in = info_of(t);
    in.def = b->def;
    if (t->kind == RK_T_MASK) {
        in.mask = b->mask;
        in.def = b->mask_def;
    }
    return in;
}

static Info uniform_index(RkNode *e);

static Info mark_operand(RkNode *e, const RkType *expect)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
    case RK_BOOL:
        return check_literal(e, expect);
    case RK_NAME:
        return vname(e, true);
    case RK_INDEX:
        return uniform_index(e);
    case RK_FIELD:
        ERROR(e->loc, "record fields are not implemented by this compiler yet");
        return err_info();
    default:
        ERROR(e->loc, "a mark holds a name, a literal, or an element v[i]");
        return err_info();
    }
}

/* <v[i]>: one element of a view, as a uniform. */
static Info uniform_index(RkNode *e)
{
    in_mark++;
    Info o = check_vexpr(e->object, NULL);
    Info i = check_vexpr(e->index, rk_ty_scalar(RK_E_I32));
    in_mark--;
    if (is_error(o.ty) || is_error(i.ty))
        return err_info();
    if (o.ty->kind != RK_T_VIEW) {
        ERROR(e->object->loc, "<x[i]> reads one element of a view, but this is %s",
              ty_name(o.ty));
        return err_info();
    }
    if (i.ty->kind != RK_T_SCALAR || !rk_elem_is_int(i.ty->elem)) {
        ERROR(e->index->loc, "an element index is a uniform integer, not %s",
              ty_name(i.ty));
        return err_info();
    }
    e->note = "element";
    set_ty(e, o.ty->inner);
    return info_of(o.ty->inner);
}

static Info vuniform(RkNode *e, const RkType *expect)
{
    Info in = mark_operand(e->operand, expect);
    if (!is_error(in.ty) && in.ty->kind != RK_T_SCALAR) {
        ERROR(e->loc, "a mark <...> holds a uniform scalar, not %s", ty_name(in.ty));
        return err_info();
    }
    set_ty(e, in.ty);
    return in;
}

/* --- operators ----------------------------------------------------------------- */

static void operands(RkNode *l, RkNode *r, const RkType *expect, Info *li, Info *ri)
{
    if (is_literal(l) && !is_literal(r)) {
        *ri = check_vexpr(r, expect);
        *li = check_vexpr(l, is_error(ri->ty) ? expect : ri->ty);
    } else {
        *li = check_vexpr(l, expect);
        *ri = check_vexpr(r, is_error(li->ty) ? expect : li->ty);
    }
}

RkBdd computed_def(RkBdd a, RkBdd b)
{
    return rk_bdd_and(C->ctx, rk_bdd_and(a, b));
}

static bool numeric(const RkType *t)
{
    return (t->kind == RK_T_RACK || t->kind == RK_T_SCALAR) && t->elem != RK_E_BOOL;
}

/* The type of a lane-wise operation on two numeric values. */
static const RkType *combine(RkNode *e, const RkType *a, const RkType *b)
{
    if (is_error(a) || is_error(b))
        return &rk_ty_error;
    if (a->kind == RK_T_MASK || b->kind == RK_T_MASK) {
        ERROR(e->loc, "'%s' doesn't apply to masks: combine masks with and, or "
                      "and not",
              e->op);
        return &rk_ty_error;
    }
    if (a->kind == RK_T_COLUMN || b->kind == RK_T_COLUMN) {
        RkNode *col = a->kind == RK_T_COLUMN ? e->lhs : e->rhs;
        RkElem el = (a->kind == RK_T_COLUMN ? a : b)->elem;
        ERROR(col->loc, "%s is a %s column, narrower than the run's domain: it "
                        "has no rack value until widen(%s)",
              expr_text(col), rk_elem_name(el), expr_text(col));
        return &rk_ty_error;
    }
    if (!numeric(a) || !numeric(b)) {
        ERROR(e->loc, "'%s' takes numbers, not %s", e->op,
              ty_name(numeric(a) ? b : a));
        return &rk_ty_error;
    }
    if (a->elem != b->elem) {
        ERROR(e->loc, "'%s' combines %s with %s; both sides need one element type "
                      "(no implicit conversion)",
              e->op, ty_name(a), ty_name(b));
        return &rk_ty_error;
    }
    return a->kind == RK_T_RACK ? a : b;
}

static Info varith(RkNode *e, const RkType *expect)
{
    Info l, r;
    operands(e->lhs, e->rhs, expect, &l, &r);
    const RkType *t = combine(e, l.ty, r.ty);
    if (is_error(t))
        return err_info();
    const char *op = e->op;
    bool rack = t->kind == RK_T_RACK;
    if (*op == '%' && C->through_depth)
        ERROR(e->loc, "'%%' is not allowed in a through block");
    if (rk_elem_is_float(t->elem)) {
        if (*op == '%') {
            ERROR(e->loc, "'%%' has no float form");
            return err_info();
        }
    } else if (*op == '/' || *op == '%') {
        ERROR(e->loc, rack ? "integer racks don't divide ('%s' on %s)"
                           : "vector code has no integer division ('%s' on %s)",
              op, ty_name(t));
        return err_info();
    }
    if (!rack) {
        if (t->elem != RK_E_F32 && t->elem != RK_E_I32 && t->elem != RK_E_U32) {
            ERROR(e->loc, "uniform arithmetic in vector code takes f32, i32 or u32, "
                          "not %s",
                  rk_elem_name(t->elem));
            return err_info();
        }
        require_cap(RK_FEAT_UNIFORM_ARITH, e->loc, "uniform arithmetic");
    } else if (t->elem == RK_E_U8 && *op == '*') {
        require_cap(RK_FEAT_U8_MUL, e->loc, "'*' on u8s racks");
    }
    set_ty(e, t);
    Info in = info_of(t);
    in.def = rack ? computed_def(l.def, r.def) : RK_BDD_TRUE;
    return in;
}

static Info vcompare(RkNode *e)
{
    Info l, r;
    operands(e->lhs, e->rhs, NULL, &l, &r);
    const RkType *t = combine(e, l.ty, r.ty);
    if (is_error(t))
        return err_info();
    if (t->kind == RK_T_RACK && t->elem == RK_E_U64)
        require_cap(RK_FEAT_U64_COMPARE, e->loc, "comparisons of u64s racks");
    const RkType *res = t->kind == RK_T_RACK ? rk_ty_mask(rk_elem_bits(t->elem))
                                             : rk_ty_scalar(RK_E_BOOL);
    if (t->kind == RK_T_SCALAR && is_literal(e->lhs) && is_literal(e->rhs)) {
        ERROR(e->loc, "a uniform comparison names at least one uniform scalar");
        return err_info();
    }
    set_ty(e, res);
    Info in = info_of(res);
    in.def = t->kind == RK_T_RACK ? computed_def(l.def, r.def) : RK_BDD_TRUE;
    in.mask = atom_for(e);
    return in;
}

/* Three-valued lane logic: a lane of `a and b` is defined where both are,
 * or where either is defined and false. */
static Info vlogic(RkNode *e)
{
    bool and = !strcmp(e->op, "and");
    Info l = check_vexpr(e->lhs, NULL);
    /* On masks the right operand is computed only in the lanes the left
     * doesn't decide (and: where it is true; or: where it is false), as the
     * interpreter and rake-lower evaluate it. */
    RkBdd saved = C->ctx;
    if (!is_error(l.ty) && l.ty->kind == RK_T_MASK)
        C->ctx = rk_bdd_and(saved, and ? l.mask : rk_bdd_not(l.mask));
    Info r = check_vexpr(e->rhs, NULL);
    C->ctx = saved;
    if (is_error(l.ty) || is_error(r.ty))
        return err_info();
    bool masks = l.ty->kind == RK_T_MASK && r.ty->kind == RK_T_MASK;
    bool bools = l.ty->kind == RK_T_SCALAR && r.ty->kind == RK_T_SCALAR &&
                 l.ty->elem == RK_E_BOOL && r.ty->elem == RK_E_BOOL;
    if (!masks && !bools) {
        ERROR(e->loc, "'%s' combines two masks or two uniform bools, not %s and %s",
              e->op, ty_name(l.ty), ty_name(r.ty));
        return err_info();
    }
    if (masks && !rk_ty_equal(l.ty, r.ty)) {
        ERROR(e->loc, "'%s' combines masks of different lane widths", e->op);
        return err_info();
    }
    set_ty(e, l.ty);
    Info in = info_of(l.ty);
    RkBdd la = and ? rk_bdd_not(l.mask) : l.mask;
    RkBdd ra = and ? rk_bdd_not(r.mask) : r.mask;
    in.mask = and ? rk_bdd_and(l.mask, r.mask) : rk_bdd_or(l.mask, r.mask);
    in.def = rk_bdd_or(rk_bdd_and(l.def, r.def),
                       rk_bdd_or(rk_bdd_and(l.def, la), rk_bdd_and(r.def, ra)));
    return in;
}

static Info vnegate(RkNode *e, const RkType *expect)
{
    Info o = check_vexpr(e->operand, expect);
    const RkType *t = o.ty;
    if (is_error(t))
        return o;
    if (t->kind == RK_T_RACK && t->elem != RK_E_BOOL) {
        if (t->elem == RK_E_U32)
            require_cap(RK_FEAT_U32_NEG_ABS, e->loc, "negation of u32s racks");
        else if (t->elem == RK_E_U8)
            require_cap(RK_FEAT_U8_NEG, e->loc, "negation of u8s racks");
        else if (t->elem == RK_E_U64)
            require_cap(RK_FEAT_U64_NEG_ABS, e->loc, "negation of u64s racks");
        o.def = computed_def(o.def, RK_BDD_TRUE);
    } else if (t->kind == RK_T_SCALAR && (t->elem == RK_E_F32 || t->elem == RK_E_I32)) {
        require_cap(RK_FEAT_UNIFORM_ARITH, e->loc, "uniform arithmetic");
    } else {
        ERROR(e->loc, "unary minus takes an f32 or signed integer value, not %s",
              ty_name(t));
        return err_info();
    }
    set_ty(e, t);
    return o;
}

static Info vnot(RkNode *e)
{
    Info o = check_vexpr(e->operand, NULL);
    if (is_error(o.ty))
        return o;
    if (o.ty->kind != RK_T_MASK && !(o.ty->kind == RK_T_SCALAR && o.ty->elem == RK_E_BOOL)) {
        ERROR(e->loc, "'not' takes a mask or a uniform bool, not %s", ty_name(o.ty));
        return err_info();
    }
    set_ty(e, o.ty);
    o.mask = rk_bdd_not(o.mask);
    return o;
}

static Info vgaps(RkNode *e)
{
    Info o = check_vexpr(e->operand, NULL);
    if (is_error(o.ty))
        return o;
    if (o.ty->kind != RK_T_MASK) {
        ERROR(e->loc, "'gaps' complements a mask, not %s", ty_name(o.ty));
        return err_info();
    }
    set_ty(e, o.ty);
    o.mask = rk_bdd_not(o.mask);
    return o;
}

/* --- if, tines, fields, indexing, calls ------------------------------------- */

static const RkType *unify(RkNode *e, const RkType *a, const RkType *b)
{
    if (is_error(a) || is_error(b))
        return &rk_ty_error;
    if (rk_ty_equal(a, b))
        return a;
    if (a->kind == RK_T_RACK && b->kind == RK_T_SCALAR && a->elem == b->elem)
        return a;
    if (b->kind == RK_T_RACK && a->kind == RK_T_SCALAR && a->elem == b->elem)
        return b;
    if (e->kind == RK_CALL)
        ERROR(e->loc, "select's two values are %s and %s; they need one type",
              ty_name(a), ty_name(b));
    else
        ERROR(e->loc, "the two branches are %s and %s; they need one type",
              ty_name(a), ty_name(b));
    return &rk_ty_error;
}

/* Does n load or gather, at any depth? */
static bool reads_memory(RkNode *n, void *unused)
{
    if (n->kind == RK_INDEX && n->note &&
        (!strcmp(n->note, "load") || !strcmp(n->note, "gather")))
        return true;
    return rk_ast_any_child(n, reads_memory, unused);
}

/* Check the two branches, literal-first ordering as for operators, each
 * under its own participation mask. */
static void branches(RkNode *tn, RkNode *fn, const RkType *expect, RkBdd tmask,
                     RkBdd fmask, Info *a, Info *b)
{
    RkBdd saved = C->ctx;
    bool swap = is_literal(tn) && !is_literal(fn);
    C->ctx = rk_bdd_and(saved, swap ? fmask : tmask);
    if (swap)
        *b = check_vexpr(fn, expect);
    else
        *a = check_vexpr(tn, expect);
    C->ctx = rk_bdd_and(saved, swap ? tmask : fmask);
    if (swap)
        *a = check_vexpr(tn, is_error(b->ty) ? expect : b->ty);
    else
        *b = check_vexpr(fn, is_error(a->ty) ? expect : a->ty);
    C->ctx = saved;
}

static Info select_info(RkNode *e, Info c, Info a, Info b)
{
    const RkType *t = unify(e, a.ty, b.ty);
    if (is_error(t))
        return err_info();
    /* a lane mask chooses per lane: two uniforms give a rack */
    if (c.ty->kind == RK_T_MASK && t->kind == RK_T_SCALAR && t->elem != RK_E_BOOL)
        t = rk_ty_rack(t->elem);
    set_ty(e, t);
    Info in = info_of(t);
    RkBdd m = c.mask;
    in.def = rk_bdd_and(c.def, rk_bdd_or(rk_bdd_and(m, a.def),
                                         rk_bdd_and(rk_bdd_not(m), b.def)));
    if (t->kind == RK_T_MASK)
        in.mask = rk_bdd_or(rk_bdd_and(m, a.mask), rk_bdd_and(rk_bdd_not(m), b.mask));
    return in;
}

Info vselect(RkNode *e, RkNode *cond, RkNode *tn, RkNode *fn, const RkType *expect)
{
    Info c = check_vexpr(cond, NULL), a = err_info(), b = err_info();
    if (is_error(c.ty)) {
        branches(tn, fn, expect, RK_BDD_TRUE, RK_BDD_TRUE, &a, &b);
        return err_info();
    }
    if (c.ty->kind == RK_T_MASK) {
        branches(tn, fn, expect, c.mask, rk_bdd_not(c.mask), &a, &b);
        /* Any vector if, on a mask as on a uniform (10-gap-notes.md,
         * sections 3 and 5: no gathers in conditional branches). */
        if (reads_memory(tn, NULL) || reads_memory(fn, NULL)) {
            ERROR(e->loc, "%s branches compute on values: read memory before "
                          "the %s",
                  e->kind == RK_CALL ? "select's" : "an if's",
                  e->kind == RK_CALL ? "select" : "if");
            return err_info();
        }
        if (!is_error(a.ty) && !is_error(b.ty) &&
            ((a.ty->kind == RK_T_RACK && rk_elem_bits(a.ty->elem) != rk_elem_bits(c.ty->elem)) ||
             (b.ty->kind == RK_T_RACK && rk_elem_bits(b.ty->elem) != rk_elem_bits(c.ty->elem)))) {
            ERROR(e->loc, "a mask of %d-bit lanes can't select %s",
                  rk_elem_bits(c.ty->elem), ty_name(a.ty->kind == RK_T_RACK ? a.ty : b.ty));
            return err_info();
        }
        return select_info(e, c, a, b);
    }
    if (c.ty->kind == RK_T_SCALAR && c.ty->elem == RK_E_BOOL) {
        require_cap(RK_FEAT_UNIFORM_IF, e->loc, "if on a uniform condition");
        branches(tn, fn, expect, RK_BDD_TRUE, RK_BDD_TRUE, &a, &b);
        if (reads_memory(tn, NULL) || reads_memory(fn, NULL)) {
            ERROR(e->loc, "an if's branches compute on values: read memory before "
                          "the if");
            return err_info();
        }
        e->note = "uniform";
        return select_info(e, c, a, b);
    }
    if (e->kind == RK_CALL)
        ERROR(cond->loc, "select's first argument is a lane mask, not %s",
              ty_name(c.ty));
    else
        ERROR(cond->loc, "an if's condition is a mask or a uniform bool, not %s",
              ty_name(c.ty));
    branches(tn, fn, expect, RK_BDD_TRUE, RK_BDD_TRUE, &a, &b);
    return err_info();
}

static Info vtine(RkNode *e)
{
    char *key = rk_arena_printf(&rk_heap, "#%s", e->name);
    Binding *b = lookup(key);
    if (b) {
        if (e->applied)
            ERROR(e->loc, "local tine #%s takes no arguments: write #%s", e->name,
                  e->name);
        annotate_slot(e, b);
        e->ref = "tine";
        set_ty(e, b->type);
        Info in = info_of(b->type);
        in.mask = b->mask;
        in.def = b->mask_def;
        return in;
    }
    RkNode *t = find_global_tine(e->name);
    if (!t) {
        RkNode *later = NULL;
        for (int i = 0; C->fn && C->fn->kind != RK_TINE && i < C->fn->body.len; i++) {
            RkNode *s = C->fn->body.items[i];
            if (s->kind == RK_TINE && !strcmp(s->name, e->name))
                later = s;
        }
        if (later)
            ERROR(e->loc, "local tine #%s is defined later, at line %d; a local "
                          "tine can refer only to earlier local tines",
                  e->name, later->loc.line);
        else
            ERROR(e->loc, "unknown tine #%s", e->name);
        return err_info();
    }
    e->ref = "global";
    if (!e->applied) {
        ERROR(e->loc, "tine #%s takes %d argument%s: write #%s(...)", e->name,
              t->params.len, t->params.len == 1 ? "" : "s", e->name);
        return err_info();
    }
    if (e->args.len != t->params.len) {
        ERROR(e->loc, "tine #%s takes %d argument%s, found %d", e->name,
              t->params.len, t->params.len == 1 ? "" : "s", e->args.len);
        return err_info();
    }
    /* a tine later in the file: its parameters' types are needed to type
     * the arguments (a literal takes the parameter's type) */
    ensure_tine_checked(t);
    RkBdd def = C->ctx;
    for (int i = 0; i < e->args.len; i++) {
        RkNode *p = t->params.items[i], *a = e->args.items[i];
        const RkType *pt = p->ty ? rk_type_parse(p->ty) : &rk_ty_error;
        Info ai = check_vexpr(a, pt);
        ai = coerce(a, ai, pt, rk_arena_printf(&rk_heap, "argument %d of #%s", i + 1, e->name));
        if (is_error(ai.ty))
            return err_info();
        def = rk_bdd_and(def, ai.def);
    }
    if (!t->pred->ty)
        return err_info();
    const RkType *ty = rk_type_parse(t->pred->ty);
    set_ty(e, ty);
    Info in = info_of(ty);
    in.mask = tine_mask(t, e);
    in.def = def;
    return in;
}

/* The range of a constant integer expression: literals, consts and repeat
 * indices combined with + - *.  .ty is error when it isn't constant. */
Info const_range(RkNode *e, long long *lo, long long *hi)
{
    RkNode *n = e->kind == RK_UNIFORM ? e->operand : e;
    long long v;
    if (int_literal_value(n, &v)) {
        *lo = *hi = v;
        return info_of(rk_ty_scalar(RK_E_I32));
    }
    if (n->kind == RK_NAME) {
        Binding *b = lookup(n->name);
        if (b && b->constant) {
            long long a, z;
            const_range(b->decl->from, lo, &a);
            const_range(b->decl->to, &z, hi);
            *hi -= 1;
            return info_of(b->type);
        }
        RkNode *d = find_decl(n->name);
        if (d && d->kind == RK_CONST && int_literal_value(d->value, &v)) {
            *lo = *hi = v;
            return info_of(rk_ty_scalar(RK_E_I32));
        }
    }
    if (n->kind == RK_BINARY && strchr("+-*", n->op[0]) && !n->op[1]) {
        long long a0, a1, b0, b1;
        if (is_error(const_range(n->lhs, &a0, &a1).ty) ||
            is_error(const_range(n->rhs, &b0, &b1).ty))
            return err_info();
        if (n->op[0] == '+') {
            *lo = a0 + b0;
            *hi = a1 + b1;
        } else if (n->op[0] == '-') {
            *lo = a0 - b1;
            *hi = a1 - b0;
        } else {
            long long c[4] = {a0 * b0, a0 * b1, a1 * b0, a1 * b1};
            *lo = *hi = c[0];
            for (int i = 1; i < 4; i++) {
                *lo = c[i] < *lo ? c[i] : *lo;
                *hi = c[i] > *hi ? c[i] : *hi;
            }
        }
        return info_of(rk_ty_scalar(RK_E_I32));
    }
    return err_info();
}

static Info rack_array_index(RkNode *e, Info o)
{
    long long lo, hi;
    Info i = check_vexpr(e->index, rk_ty_scalar(RK_E_I32));
    if (is_error(i.ty))
        return err_info();
    if (is_error(const_range(e->index, &lo, &hi).ty)) {
        ERROR(e->index->loc, "a rack array's index is a constant: a literal or a "
                             "repeat index");
        return err_info();
    }
    if (lo < 0 || hi >= o.ty->len) {
        ERROR(e->index->loc, "index %lld is outside the rack array's %d elements",
              lo < 0 ? lo : hi, o.ty->len);
        return err_info();
    }
    e->note = "array";
    set_ty(e, o.ty->inner);
    Info in = info_of(o.ty->inner);
    in.def = o.def;
    return in;
}

bool rack_elem_ok(RkElem el, RkLoc at)
{
    int bits = rk_elem_bits(el);
    if (bits == 8 || bits == 16)
        return require_cap(RK_FEAT_NARROW_RACKS, at, rk_elem_rack_name(el));
    if (bits == 64)
        return require_cap(RK_FEAT_WIDE_RACKS, at, rk_elem_rack_name(el));
    return true;
}

static Info view_index(RkNode *e, Info o)
{
    if (C->kind == FN_STACK_RUN)
        require_cap(RK_FEAT_STACK_RUN_VIEWS, e->loc, "views in stack runs");
    Info i = check_vexpr(e->index, rk_ty_scalar(RK_E_I32));
    if (is_error(i.ty))
        return err_info();
    RkElem el = o.ty->inner->elem;
    if (i.ty->kind == RK_T_SCALAR && rk_elem_is_int(i.ty->elem)) {
        /* any uniform integer expression: <i>, <i> + <4>, a literal */
        e->note = "load";
        const RkType *t = rk_ty_rack(el);
        rack_elem_ok(el, e->loc);
        set_ty(e, t);
        Info in = info_of(t);
        in.def = C->ctx;
        return in;
    }
    if (i.ty->kind == RK_T_RACK && (i.ty->elem == RK_E_I32 || i.ty->elem == RK_E_U32)) {
        require_cap(RK_FEAT_GATHER, e->loc, "gathers");
        if (rk_elem_bits(el) != 32) {
            ERROR(e->loc, "a gather reads 32-bit elements (f32, i32 or u32), not %s",
                  rk_elem_name(el));
            return err_info();
        }
        if (C->kind == FN_STACK_RUN && C->domain_bits != 32)
            ERROR(e->loc, "a gather in a stack run needs a 32-bit domain");
        e->note = "gather";
        const RkType *t = rk_ty_rack(el);
        set_ty(e, t);
        Info in = info_of(t);
        in.def = computed_def(i.def, RK_BDD_TRUE);
        return in;
    }
    ERROR(e->index->loc, "a view's index is a uniform integer <i> or an i32s or "
                         "u32s rack of indices, not %s",
          ty_name(i.ty));
    return err_info();
}

static Info vindex(RkNode *e)
{
    Info o = check_vexpr(e->object, NULL);
    if (is_error(o.ty))
        return o;
    if (o.ty->kind == RK_T_ARRAY && o.ty->inner->kind == RK_T_RACK)
        return rack_array_index(e, o);
    if (o.ty->kind == RK_T_VIEW)
        return view_index(e, o);
    ERROR(e->loc, "vector code indexes views and rack arrays, not %s", ty_name(o.ty));
    return err_info();
}

static Info vfield(RkNode *e)
{
    if (e->object->kind == RK_NAME) {
        Binding *b = lookup(e->object->name);
        if (b && b->type->kind == RK_T_STACK && C->kind == FN_STACK_RUN) {
            annotate_slot(e->object, b);
            set_ty(e->object, b->type);
            return check_column(e, b->decl);
        }
    }
    Info o = check_vexpr(e->object, NULL);
    if (!is_error(o.ty))
        ERROR(e->loc, "'.%s': in vector code only a stack run's stack parameters "
                      "have fields, and this is %s",
              e->name, ty_name(o.ty));
    return err_info();
}

static Info vcall(RkNode *e, const RkType *expect)
{
    bool found = false;
    Info in = check_builtin(e, expect, &found);
    if (found)
        return in;
    RkNode *d = find_decl(e->name);
    if (!d) {
        ERROR(e->loc, "unknown function '%s'", e->name);
        for (int i = 0; i < e->args.len; i++)
            check_vexpr(e->args.items[i], NULL);
        return err_info();
    }
    if (d->kind == RK_SCRATCH || d->kind == RK_RAKE) {
        if (C->through_depth) {
            ERROR(e->loc, "a through block can't call '%s': only built-in "
                          "operations are allowed there",
                  e->name);
            return err_info();
        }
        return check_call_kernel(e, d);
    }
    if (d->kind == RK_SLOW || d->kind == RK_EXTERN) {
        ERROR(e->loc, "vector code can't call '%s' as a uniform scalar function; "
                      "use a slow block in a run",
              e->name);
        return err_info();
    }
    if (d->kind == RK_RUN) {
        ERROR(e->loc, "vector code can't call run '%s'; runs are called from slow "
                      "code",
              e->name);
        return err_info();
    }
    ERROR(e->loc, "'%s' is a %s, not a function", e->name, rk_kind_name(d->kind));
    return err_info();
}

Info check_vexpr(RkNode *e, const RkType *expect)
{
    switch (e->kind) {
    case RK_INT:
    case RK_FLOAT:
        return check_literal(e, expect);
    case RK_BOOL:
        if (in_mark)
            return check_literal(e, expect);
        ERROR(e->loc, "true and false have no rack form: a mask comes from a "
                      "comparison, and a uniform bool is written <%s>",
              e->text);
        return err_info();
    case RK_NAME:
        return vname(e, false);
    case RK_UNIFORM:
        return vuniform(e, expect);
    case RK_BINARY:
        if (strchr("+-*/%", e->op[0]) && !e->op[1])
            return varith(e, expect);
        if (!strcmp(e->op, "and") || !strcmp(e->op, "or"))
            return vlogic(e);
        return vcompare(e);
    case RK_UNARY:
        return e->op[0] == '-' ? vnegate(e, expect) : vnot(e);
    case RK_IF_EXPR:
        return vselect(e, e->cond, e->then_e, e->else_e, expect);
    case RK_TINE_REF:
        return vtine(e);
    case RK_GAPS:
        return vgaps(e);
    case RK_FIELD:
        return vfield(e);
    case RK_INDEX:
        return vindex(e);
    case RK_CALL:
        return vcall(e, expect);
    case RK_SHUFFLE:
        return check_shuffle(e);
    case RK_BITCAST:
        return check_bitcast(e);
    case RK_SLOW_BLOCK:
        if (C->kind == FN_STACK_RUN || C->kind == FN_GENERAL_RUN)
            return check_slow_block(e, expect);
        ERROR(e->loc, "slow blocks belong in runs; scratches, rakes and tines "
                      "stay in vector registers");
        return err_info();
    case RK_CONVERT:
    case RK_WRAP:
        ERROR(e->loc, "%s converts scalars in slow code; racks convert with "
                      "to_f32, to_i32, to_u32 or bitcast",
              e->kind == RK_WRAP ? "wrap(T, x)" : "T(x)");
        return err_info();
    case RK_LANE_INDEX:
    case RK_LANES:
        require_cap(RK_FEAT_LANE_INDEX, e->loc,
                    e->kind == RK_LANES ? "'lanes'" : "'@' (the lane index)");
        return err_info();
    case RK_WILDCARD:
        ERROR(e->loc, "'_' stands alone as a sweep's last arm");
        return err_info();
    case RK_STRING:
        ERROR(e->loc, "strings appear only as extern arguments");
        return err_info();
    default:
        ERROR(e->loc, "%s is slow code; vector code works on racks, masks and "
                      "uniforms",
              e->kind == RK_STACK_LIT   ? "a stack literal"
              : e->kind == RK_RECORD_LIT ? "a record literal"
                                         : "an array literal");
        return err_info();
    }
}

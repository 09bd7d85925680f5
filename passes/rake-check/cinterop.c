/* cinterop.c: the slow tier's C interop: records, unions, pointers,
 * function pointers, externs and embedded files.
 *
 * Slow code talks to C through a few kinds of value (10-gap-notes.md,
 * section 6).  A record is a value: binding or assigning one copies it;
 * its layout is Rake's own, or C's when it is declared `from "h.h"`, and a
 * header-backed record declared without fields is opaque, usable only
 * behind a pointer.  A union always comes from a header, and a literal of
 * one sets exactly one member.  A pointer (`ptr T`, `ptr const T`,
 * `ptr ()`) aliases what it points at; it is indexed only with
 * `p[unchecked i]`, and `p.f` reads a field of the record it points at.
 * `addr(place)` takes a pointer to a variable, a field or an element (a
 * `ptr const T` when the place is read-only) and `addr(f)` a function
 * pointer to a slow function.  A function pointer, `slow(T, ...) -> U`, is
 * called like a function through the name that holds it.  An extern is a C
 * function declared with its header; a string literal is allowed only as
 * its `ptr const u8` or `ptr const i8` argument.  `embed e from "file"`
 * names a file's bytes as a read-only []u8.  Header and embedded paths are
 * relative to the source file's directory, as C's #include "...". */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "check.h"
#include "slow.h"

/* --- declarations ---------------------------------------------------------- */

RkNode *find_record(const char *name)
{
    RkNode *d = find_decl(name);
    return d && (d->kind == RK_RECORD || d->kind == RK_UNION) ? d : NULL;
}

RkNode *record_field(RkNode *rec, const char *field)
{
    for (int i = 0; i < rec->fields.len; i++)
        if (!strcmp(rec->fields.items[i]->name, field))
            return rec->fields.items[i];
    return NULL;
}

/* A path from the source, relative to the source file's directory. */
const char *source_relative(const char *path)
{
    const char *src = C->module->source ? C->module->source : "";
    const char *slash = strrchr(src, '/');
    if (path[0] == '/' || !slash)
        return path;
    return rk_arena_printf(&rk_heap, "%.*s/%s", (int)(slash - src), src, path);
}

static void require_file(RkNode *d, const char *what)
{
    const char *full = source_relative(d->text);
    FILE *f = fopen(full, "rb");
    if (!f) {
        ERROR(d->loc, "can't open the %s '%s' (looked for %s, relative to the "
                      "source file's directory)",
              what, d->text, full);
        return;
    }
    fclose(f);
}

/* Types a record field, an extern parameter or a function pointer's
 * parameter may have: what C can hold by value. */
static bool c_value_type(const RkType *t, bool arrays)
{
    switch (t->kind) {
    case RK_T_SCALAR: case RK_T_RECORD: case RK_T_UNION: case RK_T_PTR: case RK_T_FN:
        return true;
    case RK_T_ARRAY:
        return arrays && t->inner->kind != RK_T_RACK;
    default:
        return false;
    }
}

void check_record_decl(RkNode *d)
{
    const char *what = d->kind == RK_UNION ? "union" : "record";
    if (d->text)
        require_file(d, "C header");
    if (!d->fields.len && !d->text)
        ERROR(d->loc, "an empty record requires a C header: record %s from \"h.h\" {}",
              d->name);
    for (int i = 0; i < d->fields.len; i++) {
        RkNode *f = d->fields.items[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(d->fields.items[j]->name, f->name))
                ERROR(f->loc, "%s %s already has a field '%s'", what, d->name, f->name);
        const RkType *t = resolve_type(f->type, false);
        if (is_error(t))
            continue;
        if (!c_value_type(t, true)) {
            ERROR(f->type->loc, "a %s's fields are scalars, arrays, records, pointers "
                                "or function pointers, not %s",
                  what, ty_name(t));
            continue;
        }
        f->ty = rk_ty_str(t);
    }
}

/* Does record `rec` hold a `name` by value, directly or inside a field? */
static bool holds(RkNode *rec, const char *name, int depth)
{
    if (depth > 64)
        return true;
    for (int i = 0; i < rec->fields.len; i++) {
        const RkType *t = rec->fields.items[i]->ty ? rk_type_parse(rec->fields.items[i]->ty)
                                                   : NULL;
        while (t && t->kind == RK_T_ARRAY)
            t = t->inner;
        if (!t || (t->kind != RK_T_RECORD && t->kind != RK_T_UNION))
            continue;
        if (!strcmp(t->name, name))
            return true;
        RkNode *inner = find_record(t->name);
        if (inner && holds(inner, name, depth + 1))
            return true;
    }
    return false;
}

void check_record_cycles(RkNode *d)
{
    if (holds(d, d->name, 0))
        ERROR(d->loc, "%s %s contains itself; hold it through a pointer (ptr %s)",
              d->kind == RK_UNION ? "union" : "record", d->name, d->name);
}

void check_extern_decl(RkNode *d)
{
    fn_begin(d, FN_SLOW);
    require_file(d, "C header");
    for (int i = 0; i < d->params.len; i++) {
        RkNode *p = d->params.items[i];
        const RkType *t = resolve_type(p->type, false);
        if (!is_error(t) && !c_value_type(t, false)) {
            ERROR(p->type->loc, "an extern's parameters are scalars, pointers, records "
                                "(by value) and function pointers, not %s",
                  ty_name(t));
            t = &rk_ty_error;
        }
        if (p->uniform)
            ERROR(p->loc, "an extern's parameters are plain: %s: T", p->name);
        bind(p, p->name, B_PARAM, t);
        p->ty = is_error(t) ? NULL : rk_ty_str(t);
    }
    const RkType *r = d->ret ? resolve_type(d->ret, false) : &rk_ty_unit;
    if (!is_error(r) && r->kind != RK_T_UNIT && !c_value_type(r, false)) {
        ERROR(d->ret->loc, "an extern returns a scalar, a pointer, a record or a "
                           "function pointer, not %s",
              ty_name(r));
        r = &rk_ty_error;
    }
    d->ty = is_error(r) ? NULL : rk_ty_str(r);
    fn_end(d);
}

void check_embed_decl(RkNode *d)
{
    require_file(d, "embedded file");
    d->ty = rk_ty_str(rk_ty_view(rk_ty_scalar(RK_E_U8), false));
}

/* --- values ------------------------------------------------------------------ */

/* May a value of type `have` go where `want` is expected?  Equal types, or
 * a pointer gaining const. */
bool ty_accepts(const RkType *want, const RkType *have)
{
    if (rk_ty_equal(want, have))
        return true;
    return want->kind == RK_T_PTR && have->kind == RK_T_PTR && want->inner &&
           have->inner && want->is_const && !have->is_const &&
           rk_ty_equal(want->inner, have->inner);
}

static bool leaf_literal(RkNode *v)
{
    RkNode *x = v->kind == RK_UNARY ? v->operand : v;
    if (x->kind == RK_INT || x->kind == RK_FLOAT || x->kind == RK_BOOL)
        return true;
    if (x->kind == RK_ARRAY_FILL)
        return leaf_literal(x->value);
    RkList l = x->kind == RK_ARRAY_LIT ? x->elems : x->kind == RK_RECORD_LIT ? x->fields
                                                                             : (RkList){0};
    if (x->kind != RK_ARRAY_LIT && x->kind != RK_RECORD_LIT)
        return false;
    for (int i = 0; i < l.len; i++) {
        RkNode *item = l.items[i];
        if (!leaf_literal(item->kind == RK_FIELD_INIT ? item->value : item))
            return false;
    }
    return true;
}

bool is_constant_value(RkNode *v) { return leaf_literal(v); }

static void lit_field(RkNode *fi, RkNode *rec, const char *what)
{
    RkNode *f = record_field(rec, fi->name);
    if (!f) {
        ERROR(fi->loc, "%s %s has no field '%s'", what, rec->name, fi->name);
        check_sexpr(fi->value, NULL);
        return;
    }
    const RkType *want = f->ty ? rk_type_parse(f->ty) : &rk_ty_error;
    Info v = check_sexpr(fi->value, is_error(want) ? NULL : want);
    if (!is_error(v.ty) && !is_error(want) && !ty_accepts(want, v.ty))
        ERROR(fi->value->loc, "field '%s' is %s, not %s", fi->name, ty_name(want),
              ty_name(v.ty));
    fi->ty = f->ty;
}

Info check_record_lit(RkNode *e)
{
    RkNode *rec = find_record(e->name);
    if (!rec) {
        ERROR(e->loc, find_pack(e->name) ? "%s is a pack: build a stack with stack %s { ... }"
                                         : "unknown record '%s'",
              e->name, e->name);
        return err();
    }
    bool uni = rec->kind == RK_UNION;
    const char *what = uni ? "union" : "record";
    if (!rec->fields.len) {
        ERROR(e->loc, "record %s is opaque (declared without fields from its header); "
                      "use it through a pointer",
              rec->name);
        return err();
    }
    for (int i = 0; i < e->fields.len; i++) {
        RkNode *fi = e->fields.items[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(e->fields.items[j]->name, fi->name))
                ERROR(fi->loc, "field '%s' is given twice", fi->name);
        lit_field(fi, rec, what);
    }
    if (uni && e->fields.len != 1)
        ERROR(e->loc, "a union literal sets exactly one member; this one sets %d",
              e->fields.len);
    for (int i = 0; !uni && i < rec->fields.len; i++) {
        const char *name = rec->fields.items[i]->name;
        bool given = false;
        for (int j = 0; j < e->fields.len; j++)
            given |= !strcmp(e->fields.items[j]->name, name);
        if (!given)
            ERROR(e->loc, "a record literal names every field: %s %s is missing '%s'",
                  what, rec->name, name);
    }
    const RkType *t = rk_ty_record(rec->name, uni);
    set_ty(e, t);
    return info_of(t);
}

/* r.f on a record or union value, or through a pointer to one. */
Info check_record_field(RkNode *e, const RkType *o)
{
    bool via = o->kind == RK_T_PTR;
    const RkType *r = via ? o->inner : o;
    if (!r || (r->kind != RK_T_RECORD && r->kind != RK_T_UNION)) {
        ERROR(e->loc, "'.%s': only stacks, records and pointers to records have fields, "
                      "not %s",
              e->name, ty_name(o));
        return err();
    }
    RkNode *rec = find_record(r->name);
    if (!rec)
        return err();
    RkNode *f = record_field(rec, e->name);
    if (!f) {
        ERROR(e->loc, rec->fields.len ? "%s %s has no field '%s'"
                                      : "%s %s is opaque: its fields belong to C (no '%s')",
              rk_kind_name(rec->kind), rec->name, e->name);
        return err();
    }
    if (!f->ty)
        return err();
    e->note = via ? "pointer_field" : "record_field";
    const RkType *t = rk_type_parse(f->ty);
    set_ty(e, t);
    return info_of(t);
}

/* p[unchecked i] */
Info check_pointer_index(RkNode *e, const RkType *p)
{
    if (!e->unchecked) {
        ERROR(e->loc, "a pointer is indexed only with unchecked: %s[unchecked i]",
              expr_text(e->object));
        return err();
    }
    if (!p->inner || p->inner->kind == RK_T_UNIT) {
        ERROR(e->object->loc, "a ptr () has no element type; bitcast it to a typed "
                              "pointer first");
        return err();
    }
    RkNode *rec = p->inner->kind == RK_T_RECORD ? find_record(p->inner->name) : NULL;
    if (rec && !rec->fields.len) {
        ERROR(e->loc, "record %s is opaque (declared without fields from its header); "
                      "use it through a pointer",
              rec->name);
        return err();
    }
    e->note = "pointer";
    set_ty(e, p->inner);
    return info_of(p->inner);
}

/* --- writability ------------------------------------------------------------- */

/* A record, field or element place slow code may write: a field of a
 * writable record, an element of a writable array, anything a non-const
 * pointer points at. */
bool place_writable(RkNode *a)
{
    if (a->kind == RK_FIELD && a->note && !strcmp(a->note, "pointer_field")) {
        const RkType *p = a->object->ty ? rk_type_parse(a->object->ty) : NULL;
        return p && !p->is_const;
    }
    if (a->kind == RK_INDEX && a->note && !strcmp(a->note, "pointer")) {
        const RkType *p = a->object->ty ? rk_type_parse(a->object->ty) : NULL;
        return p && !p->is_const;
    }
    if ((a->kind == RK_FIELD && a->note && !strcmp(a->note, "record_field")) ||
        a->kind == RK_INDEX)
        return slow_writable(a->object);
    return false;
}

/* --- built-ins ------------------------------------------------------------------ */

static Info addr_of_function(RkNode *call, RkNode *arg, RkNode *fn)
{
    if (!strcmp(fn->name, "main")) {
        ERROR(arg->loc, "addr(main) is rejected: main is the program's entry point");
        return err();
    }
    if (fn->kind != RK_SLOW && fn->kind != RK_EXTERN) {
        ERROR(arg->loc, "addr takes a slow function or a place; %s is a %s", fn->name,
              rk_kind_name(fn->kind));
        return err();
    }
    int n = fn->params.len;
    const RkType **ps = rk_arena_alloc(&rk_heap, sizeof *ps * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        RkNode *p = fn->params.items[i];
        ps[i] = p->type->kind == RK_TYPE_MUT ? &rk_ty_error : resolve_type(p->type, false);
        if (!is_error(ps[i]) && !c_value_type(ps[i], false))
            ps[i] = &rk_ty_error;
        if (is_error(ps[i])) {
            ERROR(arg->loc, "addr(%s): parameter '%s' is %s; a function pointer passes "
                            "scalars, pointers, records and function pointers by value",
                  fn->name, p->name,
                  p->type->kind == RK_TYPE_MUT ? "mut, passed by reference"
                                               : "an array, passed by reference");
            return err();
        }
    }
    const RkType *r = fn->ret ? resolve_type(fn->ret, false) : &rk_ty_unit;
    if (is_error(r))
        return err();
    arg->ref = "function";
    set_ty(arg, &rk_ty_unit);
    const RkType *t = rk_ty_fn(ps, n, r);
    set_ty(call, t);
    return info_of(t);
}

static Info s_addr(RkNode *call)
{
    RkNode *a = call->args.items[0];
    if (a->kind == RK_NAME && !lookup(a->name)) {
        RkNode *d = find_decl(a->name);
        if (d && d->kind != RK_STATE && d->kind != RK_CONST && d->kind != RK_EMBED)
            return addr_of_function(call, a, d);
    }
    Info v = check_sexpr(a, NULL);
    if (is_error(v.ty))
        return v;
    bool place = a->kind == RK_NAME || a->kind == RK_FIELD || a->kind == RK_INDEX;
    if (!place || v.ty->kind == RK_T_VIEW || v.ty->kind == RK_T_STACK ||
        (a->kind == RK_NAME && a->ref && !strcmp(a->ref, "const"))) {
        ERROR(a->loc, "addr takes a place (a variable, a field or an element) or a slow "
                      "function, not %s",
              ty_name(v.ty));
        return err();
    }
    bool writable = slow_writable(a) || place_writable(a);
    const RkType *t = rk_ty_pointer(v.ty, !writable);
    set_ty(call, t);
    return info_of(t);
}

static Info s_is_null(RkNode *call)
{
    Info v = check_sexpr(call->args.items[0], NULL);
    if (is_error(v.ty))
        return v;
    if (v.ty->kind != RK_T_PTR && v.ty->kind != RK_T_FN) {
        ERROR(call->args.items[0]->loc, "is_null takes a pointer or a function pointer, "
                                        "not %s",
              ty_name(v.ty));
        return err();
    }
    set_ty(call, rk_ty_scalar(RK_E_BOOL));
    return info_of(rk_ty_scalar(RK_E_BOOL));
}

static Info s_unchecked_view(RkNode *call)
{
    Info p = check_sexpr(call->args.items[0], NULL);
    Info n = check_sexpr(call->args.items[1], rk_ty_scalar(RK_E_I32));
    if (is_error(p.ty) || is_error(n.ty))
        return err();
    const RkType *in = p.ty->kind == RK_T_PTR ? p.ty->inner : NULL;
    if (!in || in->kind != RK_T_SCALAR || in->elem == RK_E_BOOL) {
        ERROR(call->args.items[0]->loc, "unchecked_view takes a pointer to numeric "
                                        "scalars, not %s",
              ty_name(p.ty));
        return err();
    }
    if (!is_scalar(n.ty, RK_E_I32)) {
        ERROR(call->args.items[1]->loc, "a view's count is an i32, not %s", ty_name(n.ty));
        return err();
    }
    const RkType *t = rk_ty_view(in, !p.ty->is_const);
    set_ty(call, t);
    return info_of(t);
}

Info check_pointer_builtin(RkNode *call)
{
    if (!strcmp(call->name, "addr"))
        return s_addr(call);
    if (!strcmp(call->name, "is_null"))
        return s_is_null(call);
    return s_unchecked_view(call);
}

/* --- calls ------------------------------------------------------------------------ */

static bool string_param(const RkType *t)
{
    return t->kind == RK_T_PTR && t->is_const && t->inner &&
           (is_scalar(t->inner, RK_E_U8) || is_scalar(t->inner, RK_E_I8));
}

/* One argument for a by-value parameter of an extern or a function pointer. */
static void value_arg(RkNode *a, const RkType *pt, const char *what, bool strings)
{
    if (a->kind == RK_STRING) {
        if (strings && string_param(pt)) {
            set_ty(a, pt);
            return;
        }
        ERROR(a->loc, strings ? "a string literal goes only to a ptr const u8 or ptr const "
                                "i8 parameter; %s is %s"
                              : "string literals are allowed only as an extern's ptr const "
                                "u8 or i8 argument",
              what, ty_name(pt));
        return;
    }
    if (a->kind == RK_UNIFORM) {
        ERROR(a->loc, "a <...> mark in slow code marks a scalar argument to vector code");
        return;
    }
    Info v = check_sexpr(a, pt);
    if (!is_error(v.ty) && !is_error(pt) && !ty_accepts(pt, v.ty))
        ERROR(a->loc, "%s is %s, but this argument is %s", what, ty_name(pt), ty_name(v.ty));
}

Info call_extern(RkNode *call, RkNode *fn)
{
    for (int i = 0; i < call->args.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *pt = p->ty ? rk_type_parse(p->ty) : &rk_ty_error;
        value_arg(call->args.items[i], pt,
                  rk_arena_printf(&rk_heap, "parameter '%s' of %s", p->name, fn->name), true);
    }
    const RkType *t = fn->ty ? rk_type_parse(fn->ty) : &rk_ty_error;
    set_ty(call, t);
    return info_of(t);
}

/* f(args) where f names a function pointer (a local, a parameter or state). */
Info call_function_pointer(RkNode *call, const RkType *ft)
{
    call->note = "fnptr";
    if (call->args.len != ft->nparams) {
        ERROR(call->loc, "%s takes %d argument%s, found %d", call->name, ft->nparams,
              ft->nparams == 1 ? "" : "s", call->args.len);
        return err();
    }
    for (int i = 0; i < call->args.len; i++)
        value_arg(call->args.items[i], ft->params[i],
                  rk_arena_printf(&rk_heap, "argument %d of %s", i + 1, call->name), false);
    set_ty(call, ft->inner);
    return info_of(ft->inner);
}

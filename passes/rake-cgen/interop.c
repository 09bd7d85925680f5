/* interop.c: C interop in slow code: records, pointers, function pointers,
 * externs, string arguments and embedded files.
 *
 * Records and unions are values held in C structs (ctypes.c).  Like
 * arrays, ex() gives a record as an lvalue (a slot, `(*param)`, a
 * global, a temporary), so `r.f` is `(r).f` and writes through it reach
 * the record; binding or assigning one is a C struct assignment, a copy.
 * A record literal is a temporary, zeroed (so padding and a union's other
 * bytes are defined), then each field stored in the order written.  A
 * record parameter is passed by pointer (read-only unless `mut`, which
 * rake-check enforces); a record result is returned by value.
 *
 * A pointer is a C pointer: `p[unchecked i]` is `p[i]`, `p.f` is
 * `p->f`, is_null(p) compares with 0, and unchecked_view(p, n) is the
 * view {p, n}.  addr(place) is `&place`, where an element place is
 * checked as a[i] is (unless written `a[unchecked i]`), so taking the
 * address of an element out of bounds traps as reading it would.
 * bitcast between pointer and function-pointer types copies the bits.
 *
 * A function pointer is the typedef of its type.  addr(f) of a slow
 * function is rk_fn_f itself, or, when f takes a record (by pointer in
 * the unit, by value in a function pointer), an adapter rk_fp_f that
 * takes the record by value and passes its address.  addr(e) of an extern
 * is the C function.  A call through a function pointer reads the
 * pointer, evaluates the arguments left to right, then traps with `call
 * through a null function pointer` at the call if the pointer is null.
 *
 * An extern is called by its C name with the header's prototype (the unit
 * includes the header, never redeclares the function).  Pointer arguments
 * go as `void *` (or `const void *`) so they meet the header's pointer
 * types, string literals as C string literals, their escapes kept for C
 * as written; a record goes by value only when it is the header's.
 *
 * `embed e from "file"` is a 16-byte-aligned static const byte array,
 * rk_e_<e>, with its count rk_en_<e>, read as a []u8 view. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "cgen.h"

static const char *capture(const RkType *t, const char *v)
{
    const char *t0 = tmp(t);
    emit("%s = %s;", t0, v);
    return t0;
}

/* --- places ---------------------------------------------------------------------- */

static const char *name_place(RkNode *e)
{
    const RkType *t = type_of(e);
    if (e->ref && (!strcmp(e->ref, "state") || !strcmp(e->ref, "const")))
        return fmt("(*%s)", global_ref(e));
    if (!e->ref || (strcmp(e->ref, "local") && strcmp(e->ref, "param")) || e->slot < 0 ||
        e->slot >= G->nslots || !G->slots[e->slot].name)
        refuse(e->loc, "rake-cgen: the address of '%s' (%s) is not implemented", e->name,
               e->ref ? e->ref : "unresolved");
    Slot *s = &G->slots[e->slot];
    const char *v = slot_name(e->slot, e->name);
    if (aggregate(t) && (s->param || s->fresh))
        return fmt("(*%s)", v);
    return v;
}

const char *field_place(RkNode *e)
{
    const RkType *t = type_of(e), *ot = type_of(e->object);
    const char *o = ex(e->object);
    if (e->note && !strcmp(e->note, "pointer_field"))
        return field_lvalue(ot->inner, fmt("*%s", o), e->name, t);
    return field_lvalue(ot, o, e->name, t);
}

const char *place(RkNode *e)
{
    switch (e->kind) {
    case RK_NAME: return name_place(e);
    case RK_FIELD: return field_place(e);
    case RK_INDEX: return index_place(e);
    default:
        refuse(e->loc, "rake-cgen: a %s is not a place", rk_kind_name(e->kind));
    }
}

/* --- records ----------------------------------------------------------------------- */

const char *record_literal(RkNode *e)
{
    const RkType *t = type_of(e);
    const char *r = tmp(t);
    emit("memset(&%s, 0, sizeof %s);", r, r);
    for (int i = 0; i < e->fields.len; i++) {
        RkNode *fi = e->fields.items[i];
        const char *v = ex(fi->value);
        emit("%s = %s;", field_lvalue(t, r, fi->name, type_of(fi)), v);
    }
    return r;
}

/* --- function pointers ----------------------------------------------------------- */

/* rk_fp_f: slow function f with its records taken by value. */
static const char *adapter(RkNode *fn)
{
    const char *name = fmt("rk_fp_%s", fn->name);
    if (!nameset_add(&G->adapters, name))
        return name;
    const RkType *rt = fn->ty ? type_of(fn) : &rk_ty_unit;
    Buf sig = {0}, args = {0};
    buf_add(&args, "");
    buf_printf(&sig, "static %s %s(", rt->kind == RK_T_UNIT ? "void" : ctype(rt), name);
    for (int i = 0; i < fn->params.len; i++) {
        const RkType *pt = type_of(fn->params.items[i]);
        buf_printf(&sig, "%s%s rk_a%d", i ? ", " : "", ctype(pt), i);
        buf_printf(&args, "%s%srk_a%d", i ? ", " : "", aggregate(pt) ? "&" : "", i);
    }
    buf_add(&sig, fn->params.len ? ")" : "void)");
    buf_printf(&G->protos, "%s;\n", sig.s);
    buf_printf(&G->funcs, "\n/* addr(%s): its records by value */\n%s\n{\n    %srk_fn_%s(%s);\n}\n",
               fn->name, sig.s, rt->kind == RK_T_UNIT ? "" : "return ", fn->name, args.s);
    return name;
}

static const char *addr_of_function(RkNode *c, RkNode *a)
{
    const RkType *t = type_of(c);
    RkNode *fn = find_decl(a->name, RK_SLOW, RK_EXTERN);
    if (!fn)
        refuse(a->loc, "rake-cgen: addr(%s): no slow function or extern of that name", a->name);
    if (fn->kind == RK_EXTERN)
        return capture(t, fmt("(%s)%s", ctype(t), fn->name));
    bool records = false;
    for (int i = 0; i < fn->params.len; i++)
        records |= aggregate(type_of(fn->params.items[i]));
    return capture(t, records ? adapter(fn) : fmt("rk_fn_%s", fn->name));
}

/* The value of the function pointer a call goes through. */
static const char *callee(RkNode *c)
{
    if (c->ref && !strcmp(c->ref, "state"))
        return fmt("*%s", global_ref(c));
    if (c->slot < 0 || c->slot >= G->nslots || !G->slots[c->slot].name)
        refuse(c->loc, "rake-cgen: calling '%s' through a function pointer (%s) is not "
                       "implemented",
               c->name, c->ref ? c->ref : "unresolved");
    return slot_name(c->slot, c->name);
}

static const char *args_text(const char **v, int n)
{
    Buf b = {0};
    buf_add(&b, "");
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", v[i]);
    return b.s;
}

const char *fnptr_call(RkNode *c)
{
    const char *f = callee(c);
    const RkType *ft = NULL;
    if (c->ref && !strcmp(c->ref, "state")) {
        RkNode *d = find_decl(c->name, RK_STATE, RK_STATE);
        ft = d ? type_of(d) : NULL;
    } else {
        ft = G->slots[c->slot].ty;
    }
    if (!ft || ft->kind != RK_T_FN)
        refuse(c->loc, "rake-cgen: '%s' is not a function pointer", c->name);
    const char *fp = capture(ft, f);
    const char **v = rk_arena_alloc(&rk_heap, sizeof *v * (size_t)(c->args.len + 1));
    for (int i = 0; i < c->args.len; i++)
        v[i] = ex(c->args.items[i]);
    emit("if (!%s)", fp);
    emit("    rk_trap(%d, \"call through a null function pointer\");", site(c->loc));
    return finish_call(c, fmt("%s(%s)", fp, args_text(v, c->args.len)));
}

/* --- externs -------------------------------------------------------------------------- */

const char *string_arg(RkNode *s)
{
    Buf b = {0};
    buf_add(&b, "(const void *)\"");
    for (const char *p = s->text; *p; p++) {
        if (*p == '\\' && p[1]) {
            buf_printf(&b, "%c%c", p[0], p[1]);
            p++;
        } else if (*p == '?') {
            buf_add(&b, "\\?");
        } else {
            buf_printf(&b, "%c", *p);
        }
    }
    buf_add(&b, "\"");
    return b.s;
}

static void c_record(RkNode *c, RkNode *fn, const RkType *t, const char *what)
{
    if ((t->kind == RK_T_RECORD || t->kind == RK_T_UNION) && !header_backed(record_decl(t->name)))
        refuse(c->loc, "rake-cgen: extern %s %s record %s, which has Rake layout: declare it "
                       "`from \"h.h\"` to share it with C by value",
               fn->name, what, t->name);
}

static const char *extern_arg(RkNode *c, RkNode *fn, RkNode *a, RkNode *p)
{
    if (a->kind == RK_STRING)
        return string_arg(a);
    const RkType *pt = type_of(p);
    c_record(c, fn, pt, "takes");
    const char *v = ex(a);
    if (pt->kind == RK_T_PTR)
        return fmt("(%svoid *)%s", pt->is_const ? "const " : "", v);
    return v;
}

const char *extern_call(RkNode *c)
{
    RkNode *fn = find_decl(c->name, RK_EXTERN, RK_EXTERN);
    if (!fn || c->args.len != fn->params.len)
        refuse(c->loc, "rake-cgen: calling extern '%s' is not implemented", c->name);
    if (!strncmp(fn->name, "rk_", 3) || !strncmp(fn->name, "rake_", 5))
        refuse(fn->loc, "rake-cgen: '%s' can't be the C name of an extern: rk_ and rake_ are "
                        "the generated unit's own",
               fn->name);
    const RkType *rt = type_of(c);
    c_record(c, fn, rt, "returns");
    const char **v = rk_arena_alloc(&rk_heap, sizeof *v * (size_t)(c->args.len + 1));
    for (int i = 0; i < c->args.len; i++)
        v[i] = extern_arg(c, fn, c->args.items[i], fn->params.items[i]);
    const char *text = fmt("%s(%s)", fn->name, args_text(v, c->args.len));
    if (pointer_like(rt))
        text = fmt("(%s)%s", ctype(rt), text);
    return finish_call(c, text);
}

/* --- built-ins ------------------------------------------------------------------------- */

const char *pointer_builtin(RkNode *c)
{
    const char *n = c->name;
    const RkType *t = type_of(c);
    RkNode *a = c->args.items[0];
    if (!strcmp(n, "addr")) {
        if (a->ref && !strcmp(a->ref, "function"))
            return addr_of_function(c, a);
        return capture(t, fmt("(%s)&%s", ctype(t), place(a)));
    }
    const char *p = ex(a);
    if (!strcmp(n, "is_null"))
        return capture(t, fmt("%s == 0", p));
    if (c->args.len != 2)
        refuse(c->loc, "rake-cgen: unchecked_view takes two arguments");
    const char *k = ex(c->args.items[1]);
    return capture(t, fmt("(%s){(%s *)%s, (int64_t)%s}", view_struct(t->inner->elem),
                          elem_ctype(t->inner->elem), p, k));
}

const char *pointer_bitcast(RkNode *e)
{
    const RkType *tt = type_of(e);
    const char *x = ex(e->operand);
    const char *r = tmp(tt);
    emit("memcpy(&%s, &%s, sizeof %s);", r, x, r);
    return r;
}

/* --- embed ------------------------------------------------------------------------------ */

void gen_embed(RkNode *d)
{
    const char *path = source_path(d->text);
    FILE *f = fopen(path, "rb");
    if (!f)
        refuse(d->loc, "rake-cgen: can't read the embedded file '%s' (looked for %s)", d->text,
               path);
    Buf b = {0};
    buf_add(&b, "");
    long long n = 0;
    int ch;
    while ((ch = getc(f)) != EOF) {
        buf_printf(&b, "%s0x%02x,", n % 16 ? " " : "\n    ", (unsigned)ch);
        if (++n > 0x7fffffff)
            refuse(d->loc, "rake-cgen: the embedded file '%s' holds more than 2^31 - 1 bytes",
                   d->text);
    }
    fclose(f);
    buf_printf(&G->state, "/* embed %s */\nstatic _Alignas(16) const uint8_t "
                          "rk_e_%s[%lld] = {%s%s};\nstatic const int64_t rk_en_%s = %lld;\n",
               d->name, d->name, n ? n : 1, n ? b.s : "0", n ? "\n" : "", d->name, n);
}

const char *embed_view(RkNode *name)
{
    return capture(type_of(name), fmt("(%s){(uint8_t *)rk_e_%s, rk_en_%s}", view_struct(RK_E_U8),
                                      name->name, name->name));
}

/* cvalue.c: the slow tier's C interop, in Rake's executable semantics.
 *
 * A record is a value (V_RECORD): its fields live in one heap array, so a
 * Val that names a record shares its storage the way a V_ARRAY shares its
 * buffer.  Binding, assigning and returning copy (value_copy); passing one
 * to a slow function's parameter does not, which is how a record (like an
 * array) is passed by reference, and how a `mut` parameter writes the
 * caller's record.  Assigning into an existing record or array writes its
 * storage in place (value_assign), so pointers into it stay valid.
 *
 * A pointer (V_PTR) is either a position in a buffer (view.buf, view.off:
 * an element of an array, a view, a stack column or an embedded file) or
 * a whole value (cell: a variable, a field, a record).  `p[unchecked i]`
 * moves within the buffer; moving off the storage, or off a single cell,
 * traps as outside Rake's defined semantics rather than reading memory the
 * program never had.  The interpreter holds memory element by element, so
 * reading storage through a pointer of another element width (a ptr u8
 * into f32s) is refused the same way: C would read bytes, and pretending
 * otherwise would be silently wrong.
 *
 * A function pointer (V_FN) names a slow function or an extern (NULL is
 * null).  Calling a null one traps with `call through a null function
 * pointer`, and calling an extern, directly or through a pointer, traps
 * with `extern f has no implementation in this interpreter`, after its
 * arguments are evaluated (10-gap-notes.md, section 6).  Unions have C's
 * layout, which the interpreter doesn't model: a program that declares
 * one is refused before it starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"

static RkNode *decl_named(const char *name, RkKind k)
{
    RkList d = I->module->decls;
    for (int i = 0; i < d.len; i++)
        if (d.items[i]->kind == k && !strcmp(d.items[i]->name, name))
            return d.items[i];
    return NULL;
}

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        rk_diag_internal("out of memory");
    return p;
}

void refuse_unions(void)
{
    RkList d = I->module->decls;
    for (int i = 0; i < d.len; i++)
        if (d.items[i]->kind == RK_UNION)
            rk_diag_fatal(d.items[i]->loc, "the interpreter refuses unions: union %s has "
                                           "C's layout from its header; compile the "
                                           "program instead (rakec --run)",
                          d.items[i]->name);
}

/* --- values ---------------------------------------------------------------------- */

Buffer *buffer_cells(int64_t n)
{
    Buffer *b = RK_NEW(Buffer);
    b->elem = RK_E_NONE;
    b->n = n;
    b->cells = zalloc((size_t)n, sizeof(Val));
    return b;
}

Val zero_of(const RkType *t)
{
    Val v = v_unit();
    switch (t->kind) {
    case RK_T_SCALAR:
        return v_scalar(t->elem, 0);
    case RK_T_ARRAY:
        v.kind = V_ARRAY;
        if (t->inner->kind == RK_T_SCALAR) {
            v.elem = t->inner->elem;
            v.arr = buffer_new(v.elem, t->len);
        } else {
            v.arr = buffer_cells(t->len);
            for (int i = 0; i < t->len; i++)
                v.arr->cells[i] = zero_of(t->inner);
        }
        return v;
    case RK_T_RECORD: {
        RkNode *r = decl_named(t->name, RK_RECORD);
        v.kind = V_RECORD;
        v.decl = r;
        v.nfields = r->fields.len;
        v.fields = zalloc((size_t)v.nfields, sizeof(Val));
        for (int i = 0; i < v.nfields; i++)
            v.fields[i] = zero_of(ty_of(r->fields.items[i]));
        return v;
    }
    case RK_T_PTR:
        v.kind = V_PTR;
        return v;
    case RK_T_FN:
        v.kind = V_FN;
        return v;
    default:
        return v;
    }
}

Val value_copy(Val v)
{
    if (v.kind == V_ARRAY && v.arr->cells) {
        Buffer *b = buffer_cells(v.arr->n);
        for (int64_t i = 0; i < v.arr->n; i++)
            b->cells[i] = value_copy(v.arr->cells[i]);
        v.arr = b;
        return v;
    }
    if (v.kind == V_ARRAY)
        return array_copy(v);
    if (v.kind == V_RECORD) {
        Val *f = zalloc((size_t)v.nfields, sizeof(Val));
        for (int i = 0; i < v.nfields; i++)
            f[i] = value_copy(v.fields[i]);
        v.fields = f;
    }
    return v;
}

void value_assign(Val *dst, Val v)
{
    if (dst->kind == V_ARRAY && v.kind == V_ARRAY && dst->arr->n == v.arr->n) {
        Val c = value_copy(v); /* the source may overlap the destination */
        if (c.arr->cells)
            for (int64_t i = 0; i < c.arr->n; i++)
                value_assign(&dst->arr->cells[i], c.arr->cells[i]);
        else
            memcpy(dst->arr->data, c.arr->data, sizeof(uint64_t) * (size_t)c.arr->n);
        return;
    }
    if (dst->kind == V_RECORD && v.kind == V_RECORD && dst->decl == v.decl) {
        Val c = value_copy(v);
        for (int i = 0; i < c.nfields; i++)
            value_assign(&dst->fields[i], c.fields[i]);
        return;
    }
    *dst = value_copy(v);
}

Val record_literal(RkNode *e)
{
    const RkType *t = ty_of(e);
    Val v = zero_of(t);
    RkNode *r = v.decl;
    for (int i = 0; i < r->fields.len; i++)
        for (int j = 0; j < e->fields.len; j++)
            if (!strcmp(e->fields.items[j]->name, r->fields.items[i]->name))
                v.fields[i] = value_copy(eval_slow(e->fields.items[j]->value));
    return v;
}

/* --- places ------------------------------------------------------------------------ */

/* Where a value lives: a whole cell, or an element of a buffer. */
typedef struct Ref {
    Val *cell;
    Buffer *buf;
    int64_t off;
} Ref;

static int64_t index_of(Val i)
{
    return rk_elem_is_signed(i.elem) || (int64_t)i.v[0] >= 0 ? (int64_t)i.v[0] : INT64_MAX;
}

static _Noreturn void outside(RkNode *at, int64_t i)
{
    TRAP(at->loc, "unchecked index %lld outside its storage: outside Rake's defined "
                  "semantics",
         (long long)i);
}

static Ref buffer_ref(Buffer *b, int64_t at)
{
    if (b->cells)
        return (Ref){&b->cells[at], NULL, 0};
    return (Ref){NULL, b, at};
}

/* The element k past pointer p. */
static Ref pointer_ref(RkNode *at, Val p, int64_t k)
{
    if (!p.cell && !p.view.buf)
        TRAP(at->loc, "access through a null pointer");
    if (p.cell) {
        if (k != 0)
            outside(at, k);
        return (Ref){p.cell, NULL, 0};
    }
    int64_t abs = p.view.off + k;
    if (abs < 0 || abs >= p.view.buf->n)
        outside(at, k);
    return buffer_ref(p.view.buf, abs);
}

static Ref element_ref(RkNode *e)
{
    Val o = eval_slow(e->object);
    int64_t k = index_of(eval_slow(e->index));
    if (e->note && !strcmp(e->note, "pointer"))
        return pointer_ref(e, o, k);
    Buffer *b = o.kind == V_ARRAY ? o.arr : o.view.buf;
    int64_t off = o.kind == V_ARRAY ? 0 : o.view.off;
    int64_t count = o.kind == V_ARRAY ? o.arr->n : o.view.count;
    if (!e->unchecked && (k < 0 || k >= count))
        TRAP(e->loc, "index %lld outside %lld elements", (long long)k, (long long)count);
    if (k < 0 || off + k >= b->n)
        outside(e, k);
    return buffer_ref(b, off + k);
}

static Ref field_ref(RkNode *e)
{
    Val o = eval_slow(e->object);
    Val *rec = &o;
    if (e->note && !strcmp(e->note, "pointer_field")) {
        Ref r = pointer_ref(e, o, 0);
        rec = r.cell;
        if (!rec || rec->kind != V_RECORD)
            TRAP(e->loc, "reading %s storage as %s: the pointer doesn't point at a "
                         "record, which is outside Rake's defined semantics",
                 r.buf ? rk_elem_name(r.buf->elem) : "non-record",
                 rk_ty_str(ty_of(e->object)->inner));
    }
    if (rec->kind != V_RECORD)
        rk_diag_internal("rake-interp: a field of a non-record at %d:%d", e->loc.line,
                         e->loc.col);
    for (int i = 0; i < rec->nfields; i++)
        if (!strcmp(rec->decl->fields.items[i]->name, e->name))
            return (Ref){&rec->fields[i], NULL, 0};
    rk_diag_internal("rake-interp: record %s has no field %s", rec->decl->name, e->name);
}

static Ref place_ref(RkNode *e)
{
    if (e->kind == RK_INDEX)
        return element_ref(e);
    if (e->kind == RK_FIELD)
        return field_ref(e);
    if (e->kind == RK_NAME && e->ref && !strcmp(e->ref, "state"))
        return (Ref){global_value(e), NULL, 0};
    if (e->kind == RK_NAME) {
        I->frame->escaped = true; /* a pointer may outlive the call */
        return (Ref){&I->frame->slots[e->slot], NULL, 0};
    }
    rk_diag_internal("rake-interp: %s is not a place", rk_kind_name(e->kind));
}

/* Element-by-element memory: a pointer of another width can't read it. */
static void same_width(RkNode *at, Buffer *b, const RkType *t)
{
    if (t->kind != RK_T_SCALAR || elem_size(t->elem) != elem_size(b->elem))
        TRAP(at->loc, "reading %s storage as %s: the interpreter holds memory element by "
                      "element, so this is outside what it can run",
             rk_elem_name(b->elem), rk_ty_str(t));
}

static Val ref_read(RkNode *at, Ref r, const RkType *t)
{
    if (r.cell)
        return *r.cell;
    same_width(at, r.buf, t);
    return v_scalar(t->elem, norm(t->elem, r.buf->data[r.off]));
}

Val field_value(RkNode *e)
{
    return ref_read(e, field_ref(e), ty_of(e));
}

Val read_element(RkNode *e)
{
    return ref_read(e, element_ref(e), ty_of(e));
}

void write_place(RkNode *target, Val v)
{
    Ref r = place_ref(target);
    if (r.cell) {
        value_assign(r.cell, v);
        return;
    }
    same_width(target, r.buf, ty_of(target));
    r.buf->data[r.off] = norm(r.buf->elem, v.v[0]);
}

/* --- built-ins ----------------------------------------------------------------------- */

static Val addr_of(RkNode *a)
{
    Val p = v_unit();
    if (a->ref && !strcmp(a->ref, "function")) {
        p.kind = V_FN;
        p.decl = find_fn(a->name);
        if (!p.decl)
            p.decl = decl_named(a->name, RK_EXTERN);
        return p;
    }
    Ref r = place_ref(a);
    p.kind = V_PTR;
    p.cell = r.cell;
    p.view.buf = r.buf;
    p.view.off = r.off;
    return p;
}

static Val view_from(RkNode *call, Val p, int64_t n)
{
    if (!p.cell && !p.view.buf)
        TRAP(call->loc, "unchecked_view of a null pointer");
    if (p.cell)
        TRAP(call->loc, "unchecked_view of a pointer to a single variable: the "
                        "interpreter views arrays, views and embedded files only");
    if (n < 0 || p.view.off + n > p.view.buf->n)
        TRAP(call->loc, "unchecked_view of %lld elements outside its storage: outside "
                        "Rake's defined semantics",
             (long long)n);
    Val v = v_unit();
    v.kind = V_VIEW;
    v.elem = p.view.buf->elem;
    v.view = (View){p.view.buf, p.view.off, n};
    return v;
}

Val pointer_builtin(RkNode *call)
{
    RkNode *a = call->args.items[0];
    if (!strcmp(call->name, "addr"))
        return addr_of(a);
    Val p = eval_slow(a);
    if (!strcmp(call->name, "is_null"))
        return v_scalar(RK_E_BOOL, p.kind == V_FN ? !p.decl : !p.cell && !p.view.buf);
    return view_from(call, p, (int64_t)eval_slow(call->args.items[1]).v[0]);
}

/* --- calls --------------------------------------------------------------------------- */

static Val *call_args(RkNode *call)
{
    int n = call->args.len;
    Val *args = zalloc((size_t)n, sizeof(Val));
    for (int i = 0; i < n; i++)
        if (call->args.items[i]->kind != RK_STRING)
            args[i] = value_copy(eval_slow(call->args.items[i]));
    return args;
}

Val call_extern_trap(RkNode *call)
{
    free(call_args(call));
    TRAP(call->loc, "extern %s has no implementation in this interpreter", call->name);
}

Val call_indirect(RkNode *call)
{
    Val f = call->ref && !strcmp(call->ref, "state") ? *global_value(call)
                                                     : I->frame->slots[call->slot];
    Val *args = call_args(call);
    if (!f.decl)
        TRAP(call->loc, "call through a null function pointer");
    if (f.decl->kind == RK_EXTERN)
        TRAP(call->loc, "extern %s has no implementation in this interpreter",
             f.decl->name);
    if (I->depth >= MAX_DEPTH)
        TRAP(call->loc, "calls nest more than %d deep", MAX_DEPTH);
    Val r = call_slow(f.decl, args, call->args.len);
    free(args);
    return r;
}

/* --- module values --------------------------------------------------------------------- */

static Buffer *bytes_buffer(const unsigned char *s, int64_t n, bool nul)
{
    Buffer *b = buffer_new(RK_E_U8, n + nul);
    for (int64_t i = 0; i < n; i++)
        b->data[i] = s[i];
    return b;
}

Val embed_value(RkNode *d)
{
    const char *src = I->module->source ? I->module->source : "";
    const char *slash = strrchr(src, '/');
    const char *path = d->text[0] == '/' || !slash
                           ? d->text
                           : rk_arena_printf(&rk_heap, "%.*s/%s", (int)(slash - src), src,
                                             d->text);
    FILE *f = fopen(path, "rb");
    if (!f)
        rk_diag_fatal(d->loc, "can't open the embedded file '%s' (%s)", d->text, path);
    size_t cap = 4096, n = 0;
    unsigned char *data = zalloc(cap, 1);
    size_t got;
    while ((got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            data = realloc(data, cap *= 2);
            if (!data)
                rk_diag_internal("out of memory");
        }
    }
    fclose(f);
    Val v = v_unit();
    v.kind = V_VIEW;
    v.elem = RK_E_U8;
    v.view = (View){bytes_buffer(data, (int64_t)n, false), 0, (int64_t)n};
    free(data);
    return v;
}

/* argv for slow main(argc: i32, argv: ptr ptr u8): argc C strings, then null. */
Val main_argv(int argc, char **argv)
{
    Buffer *b = buffer_cells(argc + 1);
    for (int i = 0; i < argc; i++) {
        Val s = v_unit();
        s.kind = V_PTR;
        s.view.buf = bytes_buffer((const unsigned char *)argv[i], (int64_t)strlen(argv[i]),
                                  true);
        b->cells[i] = s;
    }
    b->cells[argc].kind = V_PTR;
    Val p = v_unit();
    p.kind = V_PTR;
    p.view.buf = b;
    return p;
}

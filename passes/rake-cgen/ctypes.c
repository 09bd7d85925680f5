/* ctypes.c: the C types of records, unions, pointers and function pointers.
 *
 * A record with Rake layout is a C struct of its declared fields in order,
 *
 *     struct rk_rec_Point { float x; float y; int32_t tag; };
 *
 * whose members keep the field names, except a name C or the C library
 * the unit includes could mean otherwise (a keyword, `stdout`, a name
 * starting rk_), which becomes rk_m_<name>.  Every Rake-layout record is
 * declared (`struct rk_rec_R;`) before any type is defined, so pointers
 * and function-pointer types may name it in any order, and a record is
 * defined after the types of its fields (records, arrays, function-pointer
 * typedefs), the first time anything names it.
 *
 * A record or union `from "h.h"` is the header's: the unit includes the
 * header (by its absolute path, resolved relative to the source file's
 * directory as rake-check resolved it) and names the type by its C
 * typedef, R.  Each declared field gets a _Static_assert that the
 * header's member has the size of the declared type, so a declaration
 * that disagrees with its header is a C compile error, never a silent
 * misread.  An array field of a header record is read through a pointer
 * to the unit's array struct of the same size, and a pointer field through
 * a pointer to the unit's pointer type, which the asserts make layout
 * compatible.  An empty header-backed record is opaque: only its pointer
 * type is ever spelled.
 *
 * A function-pointer type is a typedef, rk_fnt<N>, numbered in the order
 * types are first named; arrays of non-scalar elements are struct
 * rk_arr_rec_R_<len> for records and rk_arr_t<N>_<len> otherwise. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cgen.h"
#include "cnames.h"

/* --- names defined once ------------------------------------------------------- */

/* The index of key in the unit's list of named types, or -1. */
static int named(const char *key) { return nameset_find(&G->typenames, key); }

/* key's index, naming it first if it is new. */
static int name_type(const char *key)
{
    int i = named(key);
    if (i >= 0)
        return i;
    nameset_add(&G->typenames, key);
    return G->typenames.n - 1;
}

/* --- records ------------------------------------------------------------------------- */

RkNode *record_decl(const char *name)
{
    RkNode *d = find_decl(name, RK_RECORD, RK_UNION);
    if (!d)
        rk_diag_internal("rake-cgen: no record or union %s", name);
    return d;
}

bool header_backed(const RkNode *rec) { return rec->text != NULL; }

static const char *const macros[] = {"errno", "assert", "NULL", "EOF", "offsetof",
                                     "main", "I", "complex", "imaginary", NULL};

/* The C member of field f of rec. */
const char *member(const RkNode *rec, const char *f)
{
    if (header_backed(rec))
        return f;
    bool plain = !rk_cnames_reserved(f) && !rk_cnames_libc(f) && strncmp(f, "rk_", 3) &&
                 strncmp(f, "rake_", 5);
    for (int i = 0; plain && macros[i]; i++)
        plain = strcmp(macros[i], f) != 0;
    return plain ? f : fmt("rk_m_%s", f);
}

/* The C type name of a record or union, without defining it. */
static const char *record_name(const RkType *t)
{
    RkNode *d = record_decl(t->name);
    return header_backed(d) ? t->name : fmt("struct rk_rec_%s", t->name);
}

static void static_asserts(RkNode *d)
{
    for (int i = 0; i < d->fields.len; i++) {
        RkNode *f = d->fields.items[i];
        buf_printf(&G->types,
                   "_Static_assert(sizeof(((%s *)0)->%s) == sizeof(%s), \"%s.%s: the "
                   "header's member is not the size of %s\");\n",
                   d->name, f->name, ctype(type_of(f)), d->name, f->name, f->ty);
    }
}

/* The C type of a record or union value, defined before it is returned. */
static const char *record_ctype(const RkType *t)
{
    const char *name = record_name(t);
    RkNode *d = record_decl(t->name);
    if (named(fmt("record %s", t->name)) >= 0)
        return name;
    name_type(fmt("record %s", t->name));
    if (header_backed(d)) {
        if (!d->fields.len)
            refuse(d->loc, "rake-cgen: the opaque record %s has no C value", d->name);
        static_asserts(d);
        return name;
    }
    Buf b = {0};
    buf_printf(&b, "%s {\n", name);
    for (int i = 0; i < d->fields.len; i++) {
        RkNode *f = d->fields.items[i];
        buf_printf(&b, "    %s %s;\n", ctype(type_of(f)), member(d, f->name));
    }
    buf_add(&b, "};\n");
    buf_add(&G->types, b.s);
    return name;
}

/* `struct rk_rec_R;` for every Rake-layout record, before any type. */
void declare_records(void)
{
    RkList ds = G->m->decls;
    for (int i = 0; i < ds.len; i++)
        if (ds.items[i]->kind == RK_RECORD && !header_backed(ds.items[i]))
            buf_printf(&G->types, "struct rk_rec_%s;\n", ds.items[i]->name);
}

/* --- pointers, function pointers, arrays ---------------------------------------- */

static const char *pointee(const RkType *t)
{
    if (t->kind == RK_T_UNIT)
        return "void";
    if (t->kind == RK_T_RECORD || t->kind == RK_T_UNION)
        return record_name(t);
    return ctype(t);
}

static const char *pointer_ctype(const RkType *t)
{
    const char *in = pointee(t->inner);
    if (!in)
        return NULL;
    return fmt("%s%s *", t->is_const ? "const " : "", in);
}

static const char *fn_ctype(const RkType *t)
{
    const char *key = fmt("fn %s", rk_ty_str(t));
    int k = named(key);
    if (k >= 0)
        return fmt("rk_fnt%d", k);
    Buf b = {0};
    buf_add(&b, "");
    for (int i = 0; i < t->nparams; i++) {
        const char *p = ctype(t->params[i]);
        if (!p)
            return NULL;
        buf_printf(&b, "%s%s", i ? ", " : "", p);
    }
    const char *r = t->inner->kind == RK_T_UNIT ? "void" : ctype(t->inner);
    if (!r)
        return NULL;
    k = name_type(key);
    buf_printf(&G->types, "typedef %s (*rk_fnt%d)(%s);\n", r, k, t->nparams ? b.s : "void");
    return fmt("rk_fnt%d", k);
}

/* The part of an array struct's name that names its element type. */
const char *elem_tag(const RkType *t)
{
    if (t->kind == RK_T_SCALAR)
        return rk_elem_name(t->elem);
    if (t->kind == RK_T_RECORD || t->kind == RK_T_UNION)
        return fmt("rec_%s", t->name);
    return fmt("t%d", name_type(fmt("tag %s", rk_ty_str(t))));
}

/* ctype() of the interop kinds, NULL for others. */
const char *interop_ctype(const RkType *t)
{
    switch (t->kind) {
    case RK_T_RECORD:
    case RK_T_UNION: return record_ctype(t);
    case RK_T_PTR: return pointer_ctype(t);
    case RK_T_FN: return fn_ctype(t);
    default: return NULL;
    }
}

bool aggregate(const RkType *t)
{
    return t->kind == RK_T_ARRAY || t->kind == RK_T_RECORD || t->kind == RK_T_UNION;
}

bool pointer_like(const RkType *t) { return t->kind == RK_T_PTR || t->kind == RK_T_FN; }

/* Field f of the record or union value at lvalue o, as an lvalue. */
const char *field_lvalue(const RkType *rt, const char *o, const char *f, const RkType *ft)
{
    RkNode *d = record_decl(rt->name);
    const char *m = fmt("(%s).%s", o, member(d, f));
    bool c_owned = ft->kind == RK_T_SCALAR ||
                   ((ft->kind == RK_T_RECORD || ft->kind == RK_T_UNION) &&
                    header_backed(record_decl(ft->name)));
    if (header_backed(d) && !c_owned)
        return fmt("(*(%s *)(void *)&%s)", ctype(ft), m);
    return m;
}

/* --- headers ---------------------------------------------------------------------- */

/* A header or embedded path as rake-check resolved it: relative to the
 * source file's directory. */
const char *source_path(const char *path)
{
    const char *slash = strrchr(G->source, '/');
    if (path[0] == '/' || !slash)
        return path;
    return fmt("%.*s/%s", (int)(slash - G->source), G->source, path);
}

/* #include of every header a record, union or extern names, once each,
 * in the order of the declarations. */
void gen_includes(Buf *o)
{
    RkList ds = G->m->decls;
    const char **seen = rk_arena_alloc(&rk_heap, sizeof *seen * (size_t)(ds.len + 1));
    int n = 0;
    for (int i = 0; i < ds.len; i++) {
        RkNode *d = ds.items[i];
        if ((d->kind != RK_RECORD && d->kind != RK_UNION && d->kind != RK_EXTERN) || !d->text)
            continue;
        char *abs = realpath(source_path(d->text), NULL);
        if (!abs)
            refuse(d->loc, "rake-cgen: can't find the header '%s' (looked for %s)", d->text,
                   source_path(d->text));
        if (strpbrk(abs, "\"\\\n"))
            refuse(d->loc, "rake-cgen: the header path %s can't be written in #include", abs);
        bool dup = false;
        for (int k = 0; k < n && !dup; k++)
            dup = !strcmp(seen[k], abs);
        if (!dup) {
            seen[n++] = rk_arena_strdup(&rk_heap, abs);
            buf_printf(o, "#include \"%s\"\n", abs);
        }
        free(abs);
    }
    if (n)
        buf_add(o, "\n");
}

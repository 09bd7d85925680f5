/* out.c: text, names and types of the generated C.
 *
 * Every name rake-cgen makes up starts with rk_ (slow functions rk_fn_f,
 * slots rk_v<slot>_<name>, temporaries rk_t<n>, module values rk_g_<name>,
 * array types struct rk_arr_<elem>_<len>, views struct rk_view_<elem>), so
 * none can meet a run's or kernel's source name or the C library.  Stack
 * descriptors keep the C boundary's name, struct rake_stack_<Pack>_v2.
 *
 * A trap site is a (line, column) of the source; each gets one entry of
 * rk_sites with the quoted line and caret that lib/diag.c would print,
 * computed here from the source file the way quote_line reads it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cgen.h"

/* A formatted string on the heap. */
static char *vstr(const char *f, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, f, copy);
    va_end(copy);
    char *s = malloc((size_t)n + 1);
    if (!s)
        rk_diag_internal("out of memory");
    vsnprintf(s, (size_t)n + 1, f, ap);
    return s;
}

void buf_add(Buf *b, const char *s) { buf_addn(b, s, strlen(s)); }

void buf_addn(Buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            rk_diag_internal("out of memory");
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void buf_printf(Buf *b, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vstr(f, ap);
    va_end(ap);
    buf_add(b, s);
    free(s);
}

void buf_cstring(Buf *b, const char *s, size_t n)
{
    buf_add(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t plain = 0; /* a run of characters that stand for themselves */
        while (i + plain < n && s[i + plain] >= 32 && s[i + plain] < 127 &&
               !strchr("\\\"?", s[i + plain]))
            plain++;
        if (plain) {
            buf_addn(b, s + i, plain);
            i += plain - 1;
        } else if (c == '\\' || c == '"' || c == '?')
            buf_printf(b, "\\%c", c);
        else if (c == '\n')
            buf_add(b, i + 1 < n ? "\\n\"\n    \"" : "\\n");
        else if (c == '\t')
            buf_add(b, "\\t");
        else
            buf_printf(b, "\\%03o", c);
    }
    buf_add(b, "\"");
}

void buf_asm(Buf *b, const char *text, size_t n)
{
    buf_add(b, "__asm__(\"\\t.pushsection .text\\n\"\n    ");
    buf_cstring(b, text, n);
    buf_add(b, "\n    \"\\t.popsection\\n\");\n");
}

void emit(const char *f, ...)
{
    for (int i = 0; i < G->indent; i++)
        buf_add(&G->body, "    ");
    va_list ap;
    va_start(ap, f);
    char *s = vstr(f, ap);
    va_end(ap);
    buf_add(&G->body, s);
    buf_add(&G->body, "\n");
    free(s);
}

const char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vstr(f, ap);
    va_end(ap);
    char *r = rk_arena_strdup(&rk_heap, s);
    free(s);
    return r;
}

_Noreturn void refuse(RkLoc loc, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vstr(f, ap);
    va_end(ap);
    rk_diag_fatal(loc, "%s", s);
}

/* --- types ------------------------------------------------------------------- */

const char *elem_ctype(RkElem e)
{
    switch (e) {
    case RK_E_F32: return "float";
    case RK_E_F64: return "double";
    case RK_E_I8: return "int8_t";
    case RK_E_I16: return "int16_t";
    case RK_E_I32: return "int32_t";
    case RK_E_I64: return "int64_t";
    case RK_E_U8: return "uint8_t";
    case RK_E_U16: return "uint16_t";
    case RK_E_U32: return "uint32_t";
    case RK_E_U64: return "uint64_t";
    case RK_E_BOOL: return "bool";
    default: rk_diag_internal("rake-cgen: no C type for element %d", (int)e);
    }
}

const char *view_struct(RkElem e) { return fmt("struct rk_view_%s", rk_elem_name(e)); }

const char *stack_struct(const char *pack) { return fmt("struct rake_stack_%s_v2", pack); }

int nameset_find(const NameSet *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->names[i], name))
            return i;
    return -1;
}

bool nameset_add(NameSet *s, const char *name)
{
    if (nameset_find(s, name) >= 0)
        return false;
    s->names = rk_arena_grow(&rk_heap, s->names, s->n, &s->cap, sizeof *s->names, 8);
    s->names[s->n++] = name;
    return true;
}

/* struct rk_arr_<elem>_<len>, defined the first time it is named. */
const char *array_struct(const RkType *t)
{
    const char *name = fmt("struct rk_arr_%s_%d", elem_tag(t->inner), t->len);
    if (!nameset_add(&G->arrays, name))
        return name;
    const char *et = ctype(t->inner);
    buf_printf(&G->types, "%s {\n    %s e[%d];\n};\n", name, et, t->len > 0 ? t->len : 1);
    return name;
}

const char *ctype(const RkType *t)
{
    switch (t->kind) {
    case RK_T_SCALAR: return elem_ctype(t->elem);
    case RK_T_ARRAY:
        if (t->inner->kind == RK_T_RACK || t->inner->kind == RK_T_ARRAY ||
            !ctype(t->inner))
            break;
        return array_struct(t);
    case RK_T_VIEW: return view_struct(t->inner->elem);
    case RK_T_STACK: return fmt("%s *", stack_struct(t->name));
    case RK_T_UNIT: return "void";
    default: return interop_ctype(t);
    }
    return NULL;
}

const RkType *type_of(RkNode *n)
{
    const RkType *t = n->ty ? rk_type_parse(n->ty) : NULL;
    if (!t)
        rk_diag_internal("rake-cgen: a %s at %d:%d has no type", rk_kind_name(n->kind),
                         n->loc.line, n->loc.col);
    if (t->kind != RK_T_UNIT && !ctype(t))
        refuse(n->loc, "rake-cgen: slow code of type %s is not implemented", n->ty);
    return t;
}

const char *tmp_c(const char *ct, const char *init)
{
    const char *name = fmt("rk_t%d", G->tmp++);
    if (init)
        buf_printf(&G->decls, "    %s %s = %s;\n", ct, name, init);
    else
        buf_printf(&G->decls, "    %s %s;\n", ct, name);
    return name;
}

const char *tmp(const RkType *t)
{
    if (aggregate(t))
        return tmp_c(ctype(t), NULL);
    return tmp_c(ctype(t), zero(t));
}

/* A zero initialiser for a C variable of t. */
const char *zero(const RkType *t)
{
    if (t->kind == RK_T_SCALAR || pointer_like(t))
        return "0";
    return t->kind == RK_T_STACK ? "NULL" : "{0}";
}

/* The value of x (of element e) in the interpreter's canonical form. */
const char *canon(const char *x, RkElem e)
{
    if (rk_elem_is_signed(e))
        return fmt("(uint64_t)(int64_t)%s", x);
    return fmt("(uint64_t)%s", x);
}

/* --- literals ------------------------------------------------------------------ */

/* An integer literal's digits: 0x hex, otherwise decimal (never octal). */
static unsigned long long digits(const char *s)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return strtoull(s + 2, NULL, 16);
    return strtoull(s, NULL, 10);
}

static const char *float_literal(double d, bool f32)
{
    if (!isfinite(d)) {
        uint64_t b;
        if (f32) {
            float f = (float)d;
            uint32_t w;
            memcpy(&w, &f, 4);
            return fmt("rk_f32(0x%08xu)", (unsigned)w);
        }
        memcpy(&b, &d, 8);
        return fmt("rk_f64(0x%016llxull)", (unsigned long long)b);
    }
    return fmt("%a%s", d, f32 ? "f" : "");
}

/* A literal as a C constant of element e, with the interpreter's bits
 * (rake-interp's parse_literal). */
const char *literal(RkNode *lit, RkElem e)
{
    const char *s = lit->text;
    if (lit->kind == RK_BOOL)
        return !strcmp(s, "true") ? "true" : "false";
    bool neg = *s == '-';
    if (rk_elem_is_float(e)) {
        if (lit->kind == RK_INT) {
            unsigned long long u = digits(neg ? s + 1 : s);
            if (e == RK_E_F32)
                return float_literal(neg ? -(float)u : (float)u, true);
            return float_literal(neg ? -(double)u : (double)u, false);
        }
        if (e == RK_E_F32)
            return float_literal(strtof(s, NULL), true);
        return float_literal(strtod(s, NULL), false);
    }
    unsigned long long u = digits(neg ? s + 1 : s);
    uint64_t bits = neg ? 0 - u : u;
    if (e == RK_E_BOOL)
        return bits & 1 ? "true" : "false";
    if (rk_elem_is_signed(e)) {
        int w = rk_elem_bits(e);
        int64_t v = w == 64 ? (int64_t)bits : (int64_t)(bits << (64 - w)) >> (64 - w);
        if (v == INT64_MIN)
            return "(-9223372036854775807LL - 1)";
        return fmt("((%s)%lldLL)", elem_ctype(e), (long long)v);
    }
    int w = rk_elem_bits(e);
    uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
    return fmt("((%s)%lluULL)", elem_ctype(e), (unsigned long long)(bits & m));
}

/* --- trap sites ---------------------------------------------------------------- */

/* Where each line of the source starts (G->line_at[l - 1]), found once:
 * a program's every trap site quotes its line. */
static const char *line_start(int line)
{
    if (!G->line_at) {
        int cap = 0;
        for (const char *p = G->src_text;;) {
            G->line_at = rk_arena_grow(&rk_heap, G->line_at, G->nlines, &cap, sizeof *G->line_at, 64);
            G->line_at[G->nlines++] = p;
            const char *nl = strchr(p, '\n');
            if (!nl)
                break;
            p = nl + 1;
        }
    }
    return line <= G->nlines ? G->line_at[line - 1] : NULL;
}

/* The quoted line and caret lib/diag.c's quote_line prints, or NULL. */
static const char *quote(RkLoc loc)
{
    if (loc.line <= 0 || !G->src_text)
        return NULL;
    const char *p = line_start(loc.line);
    if (!p)
        return NULL;
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len && p[len - 1] == '\r')
        len--;
    Buf b = {0};
    buf_printf(&b, "%.*s\n", (int)len, p);
    int col = loc.col < 1 ? 1 : loc.col;
    if ((size_t)col > len + 1)
        col = (int)len + 1;
    for (int i = 1; i < col; i++)
        buf_add(&b, (size_t)(i - 1) < len && p[i - 1] == '\t' ? "\t" : " ");
    buf_add(&b, "^\n");
    return b.s;
}

/* The index in rk_sites of a trap at loc (0 is unused). */
int site(RkLoc loc)
{
    for (int i = 0; i < G->nsites; i++)
        if (G->site_locs[i].line == loc.line && G->site_locs[i].col == loc.col)
            return i + 1;
    G->site_locs = rk_arena_grow(&rk_heap, G->site_locs, G->nsites, &G->site_cap,
                                 sizeof *G->site_locs, 16);
    G->site_locs[G->nsites++] = loc;
    const char *q = quote(loc);
    buf_printf(&G->sites, "    {%d, %d, ", loc.line, loc.col);
    if (q)
        buf_cstring(&G->sites, q, strlen(q));
    else
        buf_add(&G->sites, "NULL");
    buf_add(&G->sites, "},\n");
    return G->nsites;
}

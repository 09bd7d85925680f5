/* types.c: interned semantic types and their string form. */
#include "types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

const RkType rk_ty_error = {.kind = RK_T_ERROR};
const RkType rk_ty_unit = {.kind = RK_T_UNIT};
const RkType rk_ty_string = {.kind = RK_T_STRING};

static const char *elem_names[] = {"?",   "f32", "f64", "i8",  "i16", "i32",
                                   "i64", "u8",  "u16", "u32", "u64", "bool"};
static const char *rack_names[] = {"?",    "f32s", "f64s", "i8s",  "i16s", "i32s",
                                   "i64s", "u8s",  "u16s", "u32s", "u64s", "bools"};
enum { NELEM = sizeof elem_names / sizeof elem_names[0] };

const char *rk_elem_name(RkElem e) { return elem_names[e]; }
const char *rk_elem_rack_name(RkElem e) { return rack_names[e]; }

RkElem rk_elem_from_name(const char *s)
{
    for (int i = 1; i < NELEM; i++)
        if (!strcmp(elem_names[i], s))
            return (RkElem)i;
    return RK_E_NONE;
}

RkElem rk_elem_from_rack_name(const char *s)
{
    for (int i = 1; i < NELEM; i++)
        if (!strcmp(rack_names[i], s))
            return (RkElem)i;
    return RK_E_NONE;
}

int rk_elem_bits(RkElem e)
{
    switch (e) {
    case RK_E_I8: case RK_E_U8: return 8;
    case RK_E_I16: case RK_E_U16: return 16;
    case RK_E_F64: case RK_E_I64: case RK_E_U64: return 64;
    case RK_E_BOOL: return 1;
    default: return 32;
    }
}

bool rk_elem_is_float(RkElem e) { return e == RK_E_F32 || e == RK_E_F64; }
bool rk_elem_is_int(RkElem e) { return e >= RK_E_I8 && e <= RK_E_U64; }
bool rk_elem_is_signed(RkElem e) { return e >= RK_E_I8 && e <= RK_E_I64; }

int rk_lanes_of(RkElem e, int f32_lanes) { return f32_lanes * 32 / rk_elem_bits(e); }

static const char *fn_str(const RkType *t);

static RkType *make(RkTypeKind k)
{
    RkType *t = RK_NEW(RkType);
    t->kind = k;
    return t;
}

const RkType *rk_ty_scalar(RkElem e)
{
    static RkType cache[NELEM];
    cache[e].kind = RK_T_SCALAR;
    cache[e].elem = e;
    return &cache[e];
}

const RkType *rk_ty_rack(RkElem e)
{
    static RkType cache[NELEM];
    cache[e].kind = RK_T_RACK;
    cache[e].elem = e;
    return &cache[e];
}

const RkType *rk_ty_column(RkElem e)
{
    static RkType cache[NELEM];
    cache[e].kind = RK_T_COLUMN;
    cache[e].elem = e;
    return &cache[e];
}

const RkType *rk_ty_mask(int bits)
{
    static RkType m[4];
    RkElem e = bits == 8 ? RK_E_U8 : bits == 16 ? RK_E_I16 : bits == 64 ? RK_E_I64 : RK_E_I32;
    int i = bits == 8 ? 0 : bits == 16 ? 1 : bits == 64 ? 3 : 2;
    m[i].kind = RK_T_MASK;
    m[i].elem = e;
    return &m[i];
}

const RkType *rk_ty_array(const RkType *elem, int len)
{
    RkType *t = make(RK_T_ARRAY);
    t->inner = elem;
    t->len = len;
    return t;
}

const RkType *rk_ty_view(const RkType *elem, bool mut)
{
    RkType *t = make(RK_T_VIEW);
    t->inner = elem;
    t->mut = mut;
    return t;
}

const RkType *rk_ty_stack(const char *pack)
{
    RkType *t = make(RK_T_STACK);
    t->name = pack;
    return t;
}

const RkType *rk_ty_pack(const char *pack)
{
    RkType *t = make(RK_T_PACK);
    t->name = pack;
    return t;
}

const RkType *rk_ty_record(const char *name, bool is_union)
{
    RkType *t = make(is_union ? RK_T_UNION : RK_T_RECORD);
    t->name = name;
    return t;
}

const RkType *rk_ty_pointer(const RkType *inner, bool is_const)
{
    RkType *t = make(RK_T_PTR);
    t->inner = inner;
    t->is_const = is_const;
    t->elem = inner->kind == RK_T_SCALAR ? inner->elem : RK_E_NONE;
    return t;
}

const RkType *rk_ty_fn(const RkType **params, int nparams, const RkType *ret)
{
    RkType *t = make(RK_T_FN);
    t->params = params;
    t->nparams = nparams;
    t->inner = ret;
    return t;
}

static bool ptr_equal(const RkType *a, const RkType *b)
{
    if (!a->inner || !b->inner) /* native IR's element pointers */
        return a->elem == b->elem;
    return a->is_const == b->is_const && rk_ty_equal(a->inner, b->inner);
}

static bool fn_equal(const RkType *a, const RkType *b)
{
    if (a->nparams != b->nparams || !rk_ty_equal(a->inner, b->inner))
        return false;
    for (int i = 0; i < a->nparams; i++)
        if (!rk_ty_equal(a->params[i], b->params[i]))
            return false;
    return true;
}

bool rk_ty_equal(const RkType *a, const RkType *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case RK_T_SCALAR: case RK_T_RACK: case RK_T_COLUMN:
        return a->elem == b->elem;
    case RK_T_PTR:
        return ptr_equal(a, b);
    case RK_T_FN:
        return fn_equal(a, b);
    case RK_T_RECORD: case RK_T_UNION:
        return !strcmp(a->name, b->name);
    case RK_T_MASK:
        return rk_elem_bits(a->elem) == rk_elem_bits(b->elem);
    case RK_T_ARRAY:
        return a->len == b->len && rk_ty_equal(a->inner, b->inner);
    case RK_T_VIEW:
        return a->mut == b->mut && rk_ty_equal(a->inner, b->inner);
    case RK_T_STACK: case RK_T_PACK:
        return !strcmp(a->name, b->name);
    default:
        return true;
    }
}

const char *rk_ty_str(const RkType *t)
{
    switch (t->kind) {
    case RK_T_ERROR: return "<error>";
    case RK_T_UNIT: return "()";
    case RK_T_STRING: return "string";
    case RK_T_SCALAR: return elem_names[t->elem];
    case RK_T_RACK: return rack_names[t->elem];
    case RK_T_COLUMN: return rk_arena_printf(&rk_heap, "column %s", elem_names[t->elem]);
    case RK_T_MASK: return rk_arena_printf(&rk_heap, "mask%d", rk_elem_bits(t->elem));
    case RK_T_ARRAY:
        return rk_arena_printf(&rk_heap, "[%d]%s", t->len, rk_ty_str(t->inner));
    case RK_T_VIEW:
        return rk_arena_printf(&rk_heap, "%s[]%s", t->mut ? "mut " : "", rk_ty_str(t->inner));
    case RK_T_STACK: return rk_arena_printf(&rk_heap, "stack %s", t->name);
    case RK_T_PACK: return rk_arena_printf(&rk_heap, "pack %s", t->name);
    case RK_T_PTR:
        if (!t->inner)
            return rk_arena_printf(&rk_heap, "ptr %s", elem_names[t->elem]);
        return rk_arena_printf(&rk_heap, "ptr %s%s", t->is_const ? "const " : "",
                               rk_ty_str(t->inner));
    case RK_T_RECORD: return rk_arena_printf(&rk_heap, "record %s", t->name);
    case RK_T_UNION: return rk_arena_printf(&rk_heap, "union %s", t->name);
    case RK_T_FN: return fn_str(t);
    }
    return "?";
}

/* "slow(i32, ptr u8) -> ()" */
static const char *fn_str(const RkType *t)
{
    const char *s = "slow(";
    for (int i = 0; i < t->nparams; i++)
        s = rk_arena_printf(&rk_heap, "%s%s%s", s, i ? ", " : "", rk_ty_str(t->params[i]));
    return rk_arena_printf(&rk_heap, "%s) -> %s", s, rk_ty_str(t->inner));
}

/* The function pointer type string s = "slow(...) -> R"; NULL if malformed. */
static const RkType *parse_fn(const char *s)
{
    const char *p = s + 5; /* after "slow(" */
    int cap = 4, n = 0;
    const RkType **params = rk_arena_alloc(&rk_heap, sizeof *params * (size_t)cap);
    while (*p != ')') {
        int depth = 0;
        const char *q = p;
        for (; *q && (depth || (*q != ',' && *q != ')')); q++)
            depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
        if (!*q)
            return NULL;
        const RkType *t = rk_type_parse(rk_arena_strndup(&rk_heap, p, (size_t)(q - p)));
        if (!t)
            return NULL;
        if (n == cap) {
            const RkType **g = rk_arena_alloc(&rk_heap, sizeof *g * (size_t)(cap *= 2));
            memcpy(g, params, sizeof *g * (size_t)n);
            params = g;
        }
        params[n++] = t;
        p = *q == ',' ? q + 2 : q;
    }
    if (strncmp(p, ") -> ", 5))
        return NULL;
    const RkType *ret = rk_type_parse(p + 5);
    return ret ? rk_ty_fn(params, n, ret) : NULL;
}

const RkType *rk_type_parse(const char *s)
{
    if (!strcmp(s, "()"))
        return &rk_ty_unit;
    if (!strcmp(s, "string"))
        return &rk_ty_string;
    RkElem e;
    if ((e = rk_elem_from_name(s)))
        return rk_ty_scalar(e);
    if ((e = rk_elem_from_rack_name(s)))
        return rk_ty_rack(e);
    if (!strncmp(s, "mask", 4)) {
        int bits = atoi(s + 4);
        if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
            return rk_ty_mask(bits);
        return NULL;
    }
    if (!strncmp(s, "column ", 7))
        return (e = rk_elem_from_name(s + 7)) ? rk_ty_column(e) : NULL;
    if (!strncmp(s, "stack ", 6) && s[6])
        return rk_ty_stack(rk_arena_strdup(&rk_heap, s + 6));
    if (!strncmp(s, "pack ", 5) && s[5])
        return rk_ty_pack(rk_arena_strdup(&rk_heap, s + 5));
    if (!strncmp(s, "record ", 7) && s[7])
        return rk_ty_record(rk_arena_strdup(&rk_heap, s + 7), false);
    if (!strncmp(s, "union ", 6) && s[6])
        return rk_ty_record(rk_arena_strdup(&rk_heap, s + 6), true);
    if (!strncmp(s, "ptr ", 4)) {
        bool c = !strncmp(s + 4, "const ", 6);
        const RkType *inner = rk_type_parse(s + (c ? 10 : 4));
        return inner ? rk_ty_pointer(inner, c) : NULL;
    }
    if (!strncmp(s, "slow(", 5))
        return parse_fn(s);
    bool mut = !strncmp(s, "mut ", 4);
    if (mut)
        s += 4;
    if (s[0] == '[') {
        char *end;
        long n = strtol(s + 1, &end, 10);
        if (*end != ']')
            return NULL;
        const RkType *inner = rk_type_parse(end + 1);
        if (!inner)
            return NULL;
        if (end == s + 1)
            return rk_ty_view(inner, mut);
        if (mut || n <= 0)
            return NULL;
        return rk_ty_array(inner, (int)n);
    }
    return NULL;
}

/* types.c: interned semantic types and their string form. */
#include "types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

const RkType rk_ty_error = {RK_T_ERROR, RK_E_NONE, 0, false, NULL, NULL};
const RkType rk_ty_unit = {RK_T_UNIT, RK_E_NONE, 0, false, NULL, NULL};
const RkType rk_ty_string = {RK_T_STRING, RK_E_NONE, 0, false, NULL, NULL};

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

bool rk_ty_equal(const RkType *a, const RkType *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case RK_T_SCALAR: case RK_T_RACK: case RK_T_COLUMN: case RK_T_PTR:
        return a->elem == b->elem;
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
    case RK_T_PTR: return rk_arena_printf(&rk_heap, "ptr %s", elem_names[t->elem]);
    }
    return "?";
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

/* types.h: semantic types, shared by every pass after rake-check.
 *
 * rake-check writes each expression's type into rake.checked as a string
 * (the "ty" annotation); later passes read it back with rk_type_parse().
 * The string forms:
 *   f32 i32 u32 bool u8 i8 i16 u16 i64 u64 f64     scalars (uniform in vector code)
 *   f32s i32s u32s u8s i16s i64s u64s             racks
 *   mask32 mask8 mask16 mask64                    lane masks by lane width
 *   [8]f32  [4]i32s                               arrays (of scalars or racks)
 *   []f32  mut []f32                              views
 *   stack P  pack P                               stacks and pack records
 *   column u8                                     a compact stack-run column
 *   ()  string                                    no value; a string literal
 *   record R  union U                             C-interop records and unions
 *   ptr T  ptr const T  ptr ()                    C pointers (native IR: ptr f32)
 *   slow(i32, ptr u8) -> ()                       a C function pointer */
#ifndef RK_TYPES_H
#define RK_TYPES_H

#include <stdbool.h>

typedef enum RkElem {
    RK_E_NONE,
    RK_E_F32, RK_E_F64,
    RK_E_I8, RK_E_I16, RK_E_I32, RK_E_I64,
    RK_E_U8, RK_E_U16, RK_E_U32, RK_E_U64,
    RK_E_BOOL,
} RkElem;

typedef enum RkTypeKind {
    RK_T_ERROR,   /* after a reported error; silences follow-on errors */
    RK_T_UNIT,
    RK_T_SCALAR,
    RK_T_RACK,
    RK_T_MASK,
    RK_T_ARRAY,
    RK_T_VIEW,
    RK_T_STACK,
    RK_T_PACK,
    RK_T_COLUMN,
    RK_T_STRING,
    RK_T_PTR,     /* a pointer: inner is the pointee (native IR: elem only) */
    RK_T_RECORD,  /* record R: name */
    RK_T_UNION,   /* union U: name */
    RK_T_FN,      /* slow(params) -> inner: a C function pointer */
} RkTypeKind;

typedef struct RkType RkType;
struct RkType {
    RkTypeKind kind;
    RkElem elem;          /* scalar, rack, column element; mask: lane elem */
    int len;              /* array length */
    bool mut;             /* mut view */
    const RkType *inner;  /* array and view element */
    const char *name;     /* pack of a stack or pack type; record; union */
    bool is_const;        /* ptr const T */
    const RkType **params;/* function pointer parameters */
    int nparams;
};

extern const RkType rk_ty_error, rk_ty_unit, rk_ty_string;

const RkType *rk_ty_scalar(RkElem e);
const RkType *rk_ty_rack(RkElem e);
const RkType *rk_ty_mask(int bits);
const RkType *rk_ty_array(const RkType *elem, int len);
const RkType *rk_ty_view(const RkType *elem, bool mut);
const RkType *rk_ty_stack(const char *pack);
const RkType *rk_ty_pack(const char *pack);
const RkType *rk_ty_column(RkElem e);
const RkType *rk_ty_record(const char *name, bool is_union);
/* A pointer to inner (any type; &rk_ty_unit for ptr ()). */
const RkType *rk_ty_pointer(const RkType *inner, bool is_const);
const RkType *rk_ty_fn(const RkType **params, int nparams, const RkType *ret);

bool rk_ty_equal(const RkType *a, const RkType *b);
const char *rk_ty_str(const RkType *t);          /* arena string */
/* NULL if s is not a type string. */
const RkType *rk_type_parse(const char *s);

const char *rk_elem_name(RkElem e);               /* "f32" */
const char *rk_elem_rack_name(RkElem e);          /* "f32s" */
RkElem rk_elem_from_name(const char *s);          /* scalar spelling */
RkElem rk_elem_from_rack_name(const char *s);     /* rack spelling */
int rk_elem_bits(RkElem e);
bool rk_elem_is_float(RkElem e);
bool rk_elem_is_int(RkElem e);
bool rk_elem_is_signed(RkElem e);

static inline bool rk_ty_is(const RkType *t, RkTypeKind k) { return t->kind == k; }
/* Lanes of a rack or mask whose element is e, for an f32 lane count. */
int rk_lanes_of(RkElem e, int f32_lanes);

#endif

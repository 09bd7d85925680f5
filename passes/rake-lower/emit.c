/* emit.c: the builder.
 *
 * Every instruction goes through emit(), which stamps it with the fused
 * region being lowered and the participation mask it runs under.
 * lanewise() adds sanitisation: on a profile with floating-point
 * exceptions, an exception-capable operation under a mask first replaces
 * its float operands' inactive lanes with the operation's benign value
 * (`mask.select %k, x, benign`, marked benign), and is marked sanitized.
 * Constants are materialised where they are used, once per block. */
#include <string.h>

#include "arena.h"
#include "lower.h"

Lower *L;

typedef struct ConstEntry {
    int block;
    char kind;           /* 'u' uniform, 'r' rack, 'm' mask */
    RkElem elem;
    int bits_width;
    uint64_t bits;
    int id;
    struct ConstEntry *next;
} ConstEntry;

static ConstEntry *consts;
static const RkFunc *consts_of;

void set_block(RkBlock *b) { L->b = b; }

RkInstr *emit(RkOp op, const RkType *t, const int *args, int nargs, RkLoc loc)
{
    RkInstr *in = rk_nir_emit(L->f, L->b, op, t, args, nargs, loc);
    in->fused = L->region;
    in->through = L->ctx;
    return in;
}

int emit1(RkOp op, const RkType *t, int a, RkLoc loc)
{
    return emit(op, t, &a, 1, loc)->id;
}

int emit2(RkOp op, const RkType *t, int a, int b, RkLoc loc)
{
    int args[2] = {a, b};
    return emit(op, t, args, 2, loc)->id;
}

int emit3(RkOp op, const RkType *t, int a, int b, int c, RkLoc loc)
{
    int args[3] = {a, b, c};
    return emit(op, t, args, 3, loc)->id;
}

static int constant(char kind, const RkType *t, uint64_t bits)
{
    if (consts_of != L->f) {
        consts = NULL;
        consts_of = L->f;
    }
    RkElem e = t->elem;
    for (ConstEntry *c = consts; c; c = c->next)
        if (c->block == L->b->id && c->kind == kind && c->elem == e && c->bits == bits)
            return c->id;
    RkOp op = kind == 'u' ? RK_OP_CONST : kind == 'r' ? RK_OP_RACK_SPLAT : RK_OP_MASK_CONST;
    RkInstr *in = rk_nir_emit(L->f, L->b, op, t, NULL, 0, (RkLoc){0, 0});
    in->bits = bits;
    ConstEntry *c = RK_NEW(ConstEntry);
    *c = (ConstEntry){L->b->id, kind, e, 0, bits, in->id, consts};
    consts = c;
    return in->id;
}

int const_uniform(RkElem e, uint64_t bits) { return constant('u', rk_ty_scalar(e), bits); }
int const_rack(RkElem e, uint64_t bits) { return constant('r', rk_ty_rack(e), bits); }

int const_mask(int bits, bool value)
{
    return constant('m', rk_ty_mask(bits), value ? 1 : 0);
}

LVal lval(int id, const RkType *t)
{
    LVal v = {id, t, false, 0};
    return v;
}

LVal lconst(const RkType *t, uint64_t bits)
{
    LVal v = {-1, t, true, bits};
    return v;
}

/* The instruction defining value id, or NULL (a parameter). */
static RkInstr *value_def(int id)
{
    RkFunc *f = L->f;
    for (int i = 0; i < f->nblocks; i++)
        for (int j = 0; j < f->blocks[i]->ninstrs; j++)
            if (f->blocks[i]->instrs[j]->id == id)
                return f->blocks[i]->instrs[j];
    return NULL;
}

const RkType *value_type(int id)
{
    RkFunc *f = L->f;
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i] == id)
            return f->ptypes[i];
    for (int i = 0; i < f->nblocks; i++)
        for (int j = 0; j < f->blocks[i]->nparams; j++)
            if (f->blocks[i]->params[j] == id)
                return f->blocks[i]->ptypes[j];
    RkInstr *d = value_def(id);
    if (!d)
        rk_diag_internal("rake-lower: no value %%%d", id);
    return d->type;
}

/* Whether value id is a splatted constant, and its bits. */
static bool splat_bits(int id, uint32_t *bits)
{
    RkInstr *d = value_def(id);
    if (!d || d->opc != RK_OP_RACK_SPLAT || d->nargs)
        return false;
    *bits = (uint32_t)d->bits;
    return true;
}

int as_uniform(LVal v)
{
    if (v.is_const)
        return const_uniform(v.ty->elem, v.bits);
    return v.id;
}

int as_rack(LVal v, RkElem e)
{
    if (v.is_const)
        return const_rack(e, v.bits);
    if (v.ty->kind == RK_T_SCALAR)
        return emit1(RK_OP_RACK_SPLAT, rk_ty_rack(e), v.id, (RkLoc){0, 0});
    return v.id;
}

int materialize(LVal v, const RkType *want)
{
    if (want && want->kind == RK_T_RACK)
        return as_rack(v, want->elem);
    if (v.is_const) {
        if (v.ty->kind == RK_T_MASK)
            return const_mask(rk_elem_bits(v.ty->elem), v.bits);
        return as_uniform(v);
    }
    return v.id;
}

int mask_and(int a, int b, RkLoc loc)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return emit2(RK_OP_MASK_AND, value_type(a), a, b, loc);
}

int mask_not(int a, RkLoc loc) { return emit1(RK_OP_MASK_NOT, value_type(a), a, loc); }

/* A lane-wise operation, sanitised under the participation mask. */
int lanewise(RkOp op, const RkType *t, const int *args, int nargs, RkLoc loc)
{
    const RkOpInfo *info = rk_nir_op_info(op);
    int use[3]; /* a lane-wise operation takes one to three operands */
    if (nargs < 1 || nargs > 3)
        rk_diag_internal("rake-lower: %s with %d operands", info ? info->name : "?", nargs);
    memcpy(use, args, sizeof(int) * (size_t)nargs);
    bool sanitize = L->ctx >= 0 && L->profile->fp_exceptions && info &&
                    (info->flags & RK_OPF_RAISES);
    bool any = false, kept = false;
    for (int i = 0; sanitize && i < nargs; i++) {
        const RkType *at = value_type(args[i]);
        if (at->kind != RK_T_RACK || at->elem != RK_E_F32 ||
            rk_elem_bits(value_type(L->ctx)->elem) != 32)
            continue;
        /* one constant the operation can't raise on may stay (nirops.c) */
        uint32_t bits;
        if (!kept && splat_bits(args[i], &bits) && rk_nir_op_const_benign(info, i, bits)) {
            kept = any = true;
            continue;
        }
        int c = const_rack(RK_E_F32, rk_nir_op_benign(info, i));
        RkInstr *sel = emit(RK_OP_MASK_SELECT, at, (int[]){L->ctx, args[i], c}, 3, loc);
        sel->benign = true;
        use[i] = sel->id;
        any = true;
    }
    RkInstr *in = emit(op, t, use, nargs, loc);
    in->sanitized = any;
    return in->id;
}

Env *env_new(RkNode *fn)
{
    Env *e = RK_NEW(Env);
    int n = fn->slot > 0 ? fn->slot : 1;
    e->nslots = n;
    e->slots = rk_arena_alloc(&rk_heap, sizeof(LVal) * (size_t)n);
    e->elems = rk_arena_alloc(&rk_heap, sizeof(LVal *) * (size_t)n);
    e->nelems = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n);
    e->preds = rk_arena_alloc(&rk_heap, sizeof(RkNode *) * (size_t)n);
    e->pred_mask = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n);
    e->pred_ctx = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n);
    e->pred_block = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        e->slots[i].id = -1;
        e->pred_mask[i] = -1;
    }
    e->fn = fn;
    return e;
}

RkElem domain_elem(int bits, bool sign)
{
    switch (bits) {
    case 8: return sign ? RK_E_I8 : RK_E_U8;
    case 16: return sign ? RK_E_I16 : RK_E_U16;
    case 64: return sign ? RK_E_I64 : RK_E_U64;
    default: return sign ? RK_E_I32 : RK_E_U32;
    }
}

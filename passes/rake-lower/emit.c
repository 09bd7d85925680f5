/* emit.c: the builder.
 *
 * Every instruction goes through emit(), which stamps it with the fused
 * region being lowered and the participation mask it runs under.
 * lanewise() adds sanitisation: on a profile with floating-point
 * exceptions, an exception-capable operation under a mask first replaces
 * its float operands' inactive lanes with the operation's benign value
 * (`mask.select %k, x, benign`, marked benign), and is marked sanitized.
 * Constants are materialised where they are used, once per block.
 *
 * Functions are lowered one at a time, so the function's constants (a
 * hash table by block, kind, element type and bits) and its instructions
 * by value id are kept here for the function being lowered, and start
 * over with the next: a scan of the whole function per constant or per
 * look-up made a run of thousands of statements quadratic. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "lower.h"

Lower *L;

typedef struct ConstEntry {
    int block;
    char kind;           /* 'u' uniform, 'r' rack, 'm' mask */
    RkElem elem;
    uint64_t bits;
    int id;              /* -1: an empty slot */
} ConstEntry;

static const RkFunc *lowering; /* the function the two tables below are of */
static ConstEntry *consts;     /* open addressing, a power of two in size */
static int nconsts, capconsts;
static RkInstr **defs;         /* by value id */
static int capdefs, useddefs;  /* useddefs: the ids below it may be set */

static void start_function(void)
{
    if (lowering == L->f)
        return;
    lowering = L->f;
    free(consts);
    capconsts = 64;
    nconsts = 0;
    consts = malloc(sizeof *consts * (size_t)capconsts);
    if (!consts)
        rk_diag_internal("out of memory for %d constants", capconsts);
    for (int i = 0; i < capconsts; i++)
        consts[i].id = -1;
    for (int i = 0; i < useddefs; i++) /* not all of capdefs: one large function
                                           mustn't cost every later one */
        defs[i] = NULL;
    useddefs = 0;
}

static void note_def(RkInstr *in)
{
    start_function();
    if (in->id < 0)
        return;
    if (in->id >= capdefs) {
        int cap = capdefs ? capdefs : 256;
        while (cap <= in->id)
            cap *= 2;
        defs = realloc(defs, sizeof *defs * (size_t)cap);
        if (!defs)
            rk_diag_internal("out of memory for %d values", cap);
        memset(defs + capdefs, 0, sizeof *defs * (size_t)(cap - capdefs));
        capdefs = cap;
    }
    defs[in->id] = in;
    if (in->id >= useddefs)
        useddefs = in->id + 1;
}

static unsigned const_hash(int block, char kind, RkElem e, uint64_t bits)
{
    uint64_t h = bits * 0x9e3779b97f4a7c15ull ^ (uint64_t)(unsigned)block * 0xff51afd7ed558ccdull ^
                 (uint64_t)(unsigned char)kind << 8 ^ (uint64_t)e;
    return (unsigned)(h ^ h >> 29);
}

static ConstEntry *const_slot(int block, char kind, RkElem e, uint64_t bits)
{
    unsigned i = const_hash(block, kind, e, bits) & (unsigned)(capconsts - 1);
    while (consts[i].id >= 0 && !(consts[i].block == block && consts[i].kind == kind &&
                                  consts[i].elem == e && consts[i].bits == bits))
        i = (i + 1) & (unsigned)(capconsts - 1);
    return &consts[i];
}

static void grow_consts(void)
{
    ConstEntry *old = consts;
    int n = capconsts;
    capconsts *= 2;
    consts = malloc(sizeof *consts * (size_t)capconsts);
    if (!consts)
        rk_diag_internal("out of memory for %d constants", capconsts);
    for (int i = 0; i < capconsts; i++)
        consts[i].id = -1;
    for (int i = 0; i < n; i++)
        if (old[i].id >= 0)
            *const_slot(old[i].block, old[i].kind, old[i].elem, old[i].bits) = old[i];
    free(old);
}

void set_block(RkBlock *b) { L->b = b; }

RkInstr *emit(RkOp op, const RkType *t, const int *args, int nargs, RkLoc loc)
{
    RkInstr *in = rk_nir_emit(L->f, L->b, op, t, args, nargs, loc);
    in->fused = L->region;
    in->through = L->ctx;
    note_def(in);
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
    start_function();
    RkElem e = t->elem;
    ConstEntry *c = const_slot(L->b->id, kind, e, bits);
    if (c->id >= 0)
        return c->id;
    RkOp op = kind == 'u' ? RK_OP_CONST : kind == 'r' ? RK_OP_RACK_SPLAT : RK_OP_MASK_CONST;
    RkInstr *in = rk_nir_emit(L->f, L->b, op, t, NULL, 0, (RkLoc){0, 0});
    in->bits = bits;
    note_def(in);
    *c = (ConstEntry){L->b->id, kind, e, bits, in->id};
    if (2 * ++nconsts > capconsts)
        grow_consts();
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
    start_function();
    return id >= 0 && id < capdefs ? defs[id] : NULL;
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

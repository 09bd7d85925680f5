/* nirverify.c: the native-IR verifier.
 *
 * rake-lower runs it on its output, rake-opt on its input and its output,
 * and `rake-verify --ir` alone.  Each violation is reported with the
 * function, the instruction (its value, or for one without a value its
 * source location) and the rule:
 *   rake-opt: @advance %4 (rack.fma): operand-type: operand 3 is mask<32>, ...
 *   rake-verify: @f (rack.store at 2:3): arity: rack.store takes 2 operands, ...
 * The rules, by name (docs/nir.md describes each):
 *   defined-once, undefined-value, use-before-def, not-dominated,
 *   unknown-op, arity, operand-type, result-type, constant-bits,
 *   lane-index, shuffle-lanes, missing-terminator, branch-target,
 *   branch-args, branch-arg-type, cbr-condition, return-type,
 *   entry-params, duplicate-block, fused-region, fused-contiguous,
 *   fused-pure, through-mask, unsanitized, benign-value. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "dom.h"
#include "ir.h"
#include "nir.h"
#include "nirops.h"
#include "nirproof.h"

typedef struct Def {
    const RkType *type;
    int block;       /* defining block index, -1 for function params */
    int pos;         /* position in the block; -1 for block params */
    RkInstr *instr;
    bool defined;
} Def;

typedef struct V {
    const RkFunc *f;
    Def *defs;
    int ndefs;
    int errors;
    bool fpx;
    int lanes;
    RkDom dom;       /* over block indices; roots: the entry and blocks nothing jumps to */
    int (*ids)[2];   /* (block id, index) of every block, sorted: block_index */
    FILE *out;
    int first_fn;    /* index of the first function with a violation */
    int fn_index;
    int *region_first; /* per fused region: the first block index holding it (made once) */
} V;

static void fail(V *v, const RkInstr *in, const char *rule, const char *fmt, ...)
    RK_PRINTF(4, 5);

static void fail(V *v, const RkInstr *in, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FILE *o = v->out ? v->out : stderr;
    fprintf(o, "%s: @%s", rk_diag_program_name(), v->f->name);
    if (in && in->id >= 0)
        fprintf(o, " %%%d (%s)", in->id, in->op);
    else if (in) /* a store or a void slow.call: its place in the source */
        fprintf(o, " (%s at %d:%d)", in->op, in->loc.line, in->loc.col);
    fprintf(o, ": %s: ", rule);
    vfprintf(o, fmt, ap);
    fputc('\n', o);
    va_end(ap);
    if (v->first_fn < 0)
        v->first_fn = v->fn_index;
    v->errors++;
}

int rk_nir_lanes(const RkType *t, int f32_lanes)
{
    return rk_lanes_of(t->elem, f32_lanes);
}

static const char *tn(const RkType *t) { return rk_nir_type_str(t); }

static bool same(const RkType *a, const RkType *b)
{
    if (!a || !b)
        return a == b;
    return rk_ty_equal(a, b);
}

/* --- definitions ---------------------------------------------------------------- */

static void define(V *v, int id, const RkType *t, int block, int pos, RkInstr *in)
{
    if (id < 0 || id >= v->ndefs) {
        fail(v, in, "defined-once", "value %%%d is outside the function's %d values",
             id, v->ndefs);
        return;
    }
    if (v->defs[id].defined) {
        fail(v, in, "defined-once", "value %%%d is defined more than once", id);
        return;
    }
    v->defs[id] = (Def){t, block, pos, in, true};
}

static int by_id(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void index_ids(V *v)
{
    int nb = v->f->nblocks;
    v->ids = calloc((size_t)nb + 1, sizeof *v->ids);
    if (!v->ids)
        rk_diag_internal("out of memory for the block index");
    for (int i = 0; i < nb; i++)
        v->ids[i][0] = v->f->blocks[i]->id, v->ids[i][1] = i;
    qsort(v->ids, (size_t)nb, sizeof *v->ids, by_id);
}

/* The place in ids of the first block called id, or -1. */
static int id_slot(const V *v, int id)
{
    int lo = 0, hi = v->f->nblocks;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v->ids[mid][0] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->f->nblocks && v->ids[lo][0] == id ? lo : -1;
}

/* The index of the first block called id, or -1. */
static int block_index(const V *v, int id)
{
    int k = id_slot(v, id);
    return k < 0 ? -1 : v->ids[k][1];
}

/* How many blocks before index i have its id. */
static int earlier_twins(const V *v, int i)
{
    int k = id_slot(v, v->f->blocks[i]->id), n = 0;
    while (v->ids[k + n][1] != i)
        n++;
    return n;
}

/* A block no path from a root reaches (in a cycle of blocks that only
 * jump to each other) is dominated by every block, as the meet over no
 * path says; a block nothing jumps to is dominated by itself alone. */
static bool dominates(const V *v, int a, int b)
{
    if (v->dom.order[b] < 0)
        return true;
    return rk_dom_dominates(&v->dom, a, b);
}

/* The edges between blocks by index (a target that doesn't exist is -1)
 * and the roots: the entry and every block no edge reaches. */
static void dominators(V *v)
{
    const RkFunc *f = v->f;
    int nb = f->nblocks, ns = 0, nroots = 0;
    int *sfirst = calloc((size_t)nb + 2, sizeof(int)), *succ = calloc(2 * (size_t)nb + 1, sizeof(int));
    int *roots = calloc((size_t)nb + 1, sizeof(int));
    char *entered = calloc((size_t)nb + 1, 1);
    if (!sfirst || !succ || !roots || !entered)
        rk_diag_internal("out of memory for dominators");
    for (int b = 0; b < nb; b++) {
        int s[2], n = rk_nir_successors(f->blocks[b], s);
        sfirst[b] = ns;
        for (int k = 0; k < n; k++) {
            int t = block_index(v, s[k]);
            succ[ns++] = t;
            if (t >= 0)
                entered[t] = 1;
        }
    }
    sfirst[nb] = ns;
    for (int b = 0; b < nb; b++)
        if (b == 0 || !entered[b])
            roots[nroots++] = b;
    rk_dom_build(&v->dom, nb, sfirst, succ, roots, nroots);
    free(sfirst), free(succ), free(roots), free(entered);
}

static const RkType *use(V *v, const RkInstr *in, int id, int block, int pos)
{
    if (id < 0 || id >= v->ndefs || !v->defs[id].defined) {
        fail(v, in, "undefined-value", "%%%d is never defined", id);
        return NULL;
    }
    Def *d = &v->defs[id];
    if (d->block < 0)
        return d->type;
    if (d->block == block) {
        if (d->pos >= pos)
            fail(v, in, "use-before-def", "%%%d is used before its definition", id);
    } else if (!dominates(v, d->block, block)) {
        fail(v, in, "not-dominated", "%%%d is defined in b%d, which doesn't dominate "
                                     "this use in b%d",
             id, v->f->blocks[d->block]->id, v->f->blocks[block]->id);
    }
    return d->type;
}

/* --- signatures ------------------------------------------------------------------- */

static bool is(const RkType *t, RkTypeKind k) { return t && t->kind == k; }

static bool float_elem(const RkType *t) { return t && t->elem == RK_E_F32; }

static void expect_arity(V *v, const RkInstr *in, int lo, int hi)
{
    if (in->nargs < lo || in->nargs > hi)
        fail(v, in, "arity", "%s takes %d%s operand%s, found %d", in->op, lo,
             hi > lo ? " or more" : "", lo == 1 && hi == 1 ? "" : "s", in->nargs);
}

/* The operand count of the operation's row: false when it is wrong. */
static bool arity(V *v, const RkInstr *in, const RkOpInfo *op)
{
    int hi = op->max_args == RK_VARIADIC ? INT_MAX : op->max_args;
    expect_arity(v, in, op->min_args, hi);
    return in->nargs >= op->min_args && in->nargs <= hi;
}

static void operand(V *v, const RkInstr *in, int i, const RkType *got, bool ok,
                    const char *want)
{
    if (got && !ok)
        fail(v, in, "operand-type", "operand %d is %s, expected %s", i + 1, tn(got), want);
}

static void result(V *v, const RkInstr *in, bool ok, const char *want)
{
    if (!ok)
        fail(v, in, "result-type", "the result is %s, expected %s", tn(in->type), want);
}

static void check_const(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    if (in->opc == RK_OP_RACK_SPLAT && in->nargs == 1) {
        operand(v, in, 0, a[0], is(a[0], RK_T_SCALAR) && is(in->type, RK_T_RACK) &&
                                    a[0]->elem == in->type->elem,
                "a uniform of the rack's element");
        result(v, in, is(in->type, RK_T_RACK), "a rack");
        return;
    }
    expect_arity(v, in, 0, 0); /* the constant form (a broadcast is above) */
    const RkType *t = in->type;
    RkTypeKind k = op->result == RK_RES_UNIFORM ? RK_T_SCALAR
                   : op->result == RK_RES_RACK  ? RK_T_RACK
                                                : RK_T_MASK;
    bool ok = is(t, k);
    result(v, in, ok, k == RK_T_SCALAR ? "a uniform" : k == RK_T_RACK ? "a rack" : "a mask");
    if (!ok || !t)
        return;
    int bits = is(t, RK_T_MASK) ? 1 : rk_elem_bits(t->elem);
    if (bits < 64 && (in->bits >> bits))
        fail(v, in, "constant-bits", "0x%" PRIx64 " doesn't fit %s", in->bits, tn(t));
}

static void check_lanewise(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    arity(v, in, op);
    result(v, in, is(in->type, RK_T_RACK), "a rack");
    for (int i = 0; i < in->nargs && i < op->max_args; i++)
        operand(v, in, i, a[i], same(a[i], in->type), tn(in->type));
    if (is(in->type, RK_T_RACK) && (op->flags & RK_OPF_FLOAT))
        result(v, in, float_elem(in->type), "a float rack");
    if (is(in->type, RK_T_RACK) && (op->flags & RK_OPF_INT))
        result(v, in, rk_elem_is_int(in->type->elem), "an integer rack");
}

/* The element pair a conversion takes: from `from` to `to`. */
static bool converts(RkOp op, RkElem from, RkElem to)
{
    switch (op) {
    case RK_OP_RACK_TO_I32: return from == RK_E_F32 && to == RK_E_I32;
    case RK_OP_RACK_TO_U32: return from == RK_E_F32 && to == RK_E_U32;
    case RK_OP_RACK_TO_F32: return (from == RK_E_I32 || from == RK_E_U32) && to == RK_E_F32;
    case RK_OP_RACK_BITCAST: return rk_elem_bits(from) == rk_elem_bits(to);
    case RK_OP_RACK_WIDEN_LOW:
    case RK_OP_RACK_WIDEN_HIGH: return from == RK_E_U8 && to == RK_E_I16;
    case RK_OP_RACK_NARROW: return from == RK_E_I32 && to == RK_E_I16;
    default: return from == RK_E_I16 && to == RK_E_I32; /* rack.dot */
    }
}

static void check_convert(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    bool two = op->min_args == 2;
    arity(v, in, op);
    if (!in->nargs || !a[0] || !in->type)
        return;
    bool ok = is(a[0], RK_T_RACK) && is(in->type, RK_T_RACK) &&
              converts(in->opc, a[0]->elem, in->type->elem);
    if (!ok)
        fail(v, in, "operand-type", "%s doesn't convert %s to %s", in->op, tn(a[0]), tn(in->type));
    if (two && in->nargs == 2)
        operand(v, in, 1, a[1], same(a[0], a[1]), tn(a[0]));
}

static void check_cross(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    if (op->shape == SH_SHUFFLE) {
        arity(v, in, op);
        result(v, in, is(in->type, RK_T_RACK), "a rack");
        for (int i = 0; i < in->nargs; i++)
            operand(v, in, i, a[i], same(a[i], in->type), tn(in->type));
        if (!is(in->type, RK_T_RACK))
            return;
        int lanes = rk_nir_lanes(in->type, v->lanes);
        if (in->nlanes != lanes)
            fail(v, in, "shuffle-lanes", "%d indices for %d lanes", in->nlanes, lanes);
        for (int i = 0; i < in->nlanes; i++)
            if (in->lanes[i] < 0 || in->lanes[i] >= lanes * in->nargs)
                fail(v, in, "shuffle-lanes", "index %d is outside 0..%d", in->lanes[i],
                     lanes * in->nargs - 1);
        return;
    }
    arity(v, in, op);
    if (!in->nargs || !a[0])
        return;
    if (op->shape == SH_MREDUCE) {
        operand(v, in, 0, a[0], is(a[0], RK_T_MASK), "a mask");
        bool bm = in->opc == RK_OP_MASK_BITMASK;
        result(v, in, is(in->type, RK_T_SCALAR) &&
                          in->type->elem == (bm ? RK_E_U32 : RK_E_BOOL),
               bm ? "u32" : "bool");
        return;
    }
    operand(v, in, 0, a[0], is(a[0], RK_T_RACK), "a rack");
    if (!is(a[0], RK_T_RACK))
        return;
    if (op->shape == SH_REDUCE || op->shape == SH_EXTRACT)
        result(v, in, is(in->type, RK_T_SCALAR) && in->type->elem == a[0]->elem,
               rk_elem_name(a[0]->elem));
    else
        result(v, in, same(in->type, a[0]), tn(a[0]));
    if (op->shape == SH_INSERT && in->nargs == 2)
        operand(v, in, 1, a[1], is(a[1], RK_T_SCALAR) && a[1]->elem == a[0]->elem,
                rk_elem_name(a[0]->elem));
    int lanes = rk_nir_lanes(a[0], v->lanes);
    if ((op->shape == SH_EXTRACT || op->shape == SH_INSERT) &&
        (in->imm < 0 || in->imm >= lanes))
        fail(v, in, "lane-index", "lane %" PRId64 " of a rack of %d lanes", in->imm, lanes);
}

static void check_uniform(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    arity(v, in, op);
    for (int i = 0; i < in->nargs; i++)
        operand(v, in, i, a[i], is(a[i], RK_T_SCALAR), "a uniform");
    if (op->shape == SH_UCMP) {
        result(v, in, is(in->type, RK_T_SCALAR) && in->type->elem == RK_E_BOOL, "bool");
        if (in->nargs == 2)
            operand(v, in, 1, a[1], same(a[0], a[1]), tn(a[0]));
    } else if (op->shape == SH_USELECT) {
        if (in->nargs == 3) {
            operand(v, in, 0, a[0], is(a[0], RK_T_SCALAR) && a[0]->elem == RK_E_BOOL, "bool");
            operand(v, in, 1, a[1], same(a[1], in->type), tn(in->type));
            operand(v, in, 2, a[2], same(a[2], in->type), tn(in->type));
        }
    } else if (op->shape == SH_UCVT) {
        result(v, in, is(in->type, RK_T_SCALAR), "a uniform");
    } else {
        result(v, in, is(in->type, RK_T_SCALAR), "a uniform");
        for (int i = 0; i < in->nargs; i++)
            operand(v, in, i, a[i], same(a[i], in->type), tn(in->type));
    }
}

/* A rack of element `r` moves to or from memory of element `m`: the same
 * element, or a compact integer column widened on load (narrowed on
 * store) to the run's domain, keeping its signedness. */
static bool memory_elem(RkElem m, RkElem r)
{
    if (m == r)
        return true;
    return rk_elem_is_int(m) && rk_elem_is_int(r) &&
           rk_elem_is_signed(m) == rk_elem_is_signed(r) && rk_elem_bits(r) > rk_elem_bits(m);
}

static bool scalar_of(const RkType *t, RkElem e) { return is(t, RK_T_SCALAR) && t->elem == e; }

/* A mask operand that selects the lanes of a rack of element `e`. */
static void mask_operand(V *v, const RkInstr *in, int i, const RkType *m, const RkType *r)
{
    operand(v, in, i, m, is(m, RK_T_MASK), "a mask");
    if (is(m, RK_T_MASK) && is(r, RK_T_RACK) && rk_elem_bits(m->elem) != rk_elem_bits(r->elem))
        fail(v, in, "operand-type", "operand %d is %s, which doesn't select the lanes of %s",
             i + 1, tn(m), tn(r));
}

static void check_slow(V *v, const RkInstr *in, const RkType **a)
{
    for (int i = 0; i < in->nargs; i++)
        operand(v, in, i, a[i], is(a[i], RK_T_SCALAR) || is(a[i], RK_T_VIEW) ||
                                    is(a[i], RK_T_STACK),
                "a uniform, a view or a stack (never a rack or a mask)");
    result(v, in, !in->type || is(in->type, RK_T_SCALAR), "a uniform or nothing");
}

static void check_stack(V *v, const RkInstr *in, const RkType **a)
{
    const RkType *I64 = rk_ty_scalar(RK_E_I64);
    operand(v, in, 0, a[0], is(a[0], RK_T_STACK), "a stack");
    if (in->opc == RK_OP_STACK_COUNT)
        result(v, in, same(in->type, I64), "i64");
    else if (in->opc == RK_OP_STACK_COLUMN)
        result(v, in, is(in->type, RK_T_PTR), "a pointer");
    else
        operand(v, in, 1, a[1], same(a[1], I64), "i64");
    if (in->opc == RK_OP_STACK_COLUMN && in->imm < 0)
        fail(v, in, "operand-type", "field %" PRId64 " of a stack", in->imm);
}

static void check_view(V *v, const RkInstr *in, const RkType **a)
{
    const RkType *p = a[0];
    operand(v, in, 0, p, is(p, RK_T_VIEW), "a view");
    if (in->opc == RK_OP_VIEW_COUNT)
        result(v, in, scalar_of(in->type, RK_E_I32), "i32");
    else if (is(p, RK_T_VIEW))
        result(v, in, same(in->type, rk_ty_ptr(p->inner->elem)), tn(rk_ty_ptr(p->inner->elem)));
}

/* Racks to and from memory: loads, stores and gathers. */
static void check_rack_memory(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    const RkType *p = a[0], *t = in->type;
    bool store = op->result == RK_RES_NONE;
    bool gather = in->opc == RK_OP_RACK_GATHER;
    const RkType *r = store ? a[in->nargs - 1] : t;
    if (store) {
        result(v, in, !t, "nothing");
        operand(v, in, in->nargs - 1, r, is(r, RK_T_RACK), "a rack");
    } else {
        result(v, in, is(t, RK_T_RACK), "a rack");
    }
    if (in->nargs == 3 || in->opc == RK_OP_RACK_LOAD_MASKED)
        mask_operand(v, in, gather ? 2 : 1, a[store ? 1 : in->nargs - 1], r);
    if (gather) {
        operand(v, in, 1, a[1], is(a[1], RK_T_RACK) &&
                                    (a[1]->elem == RK_E_I32 || a[1]->elem == RK_E_U32),
                "an i32 or u32 rack of indices");
        if (is(p, RK_T_PTR) && is(t, RK_T_RACK))
            result(v, in, t->elem == p->elem && rk_elem_bits(t->elem) == 32,
                   "a rack of the pointer's 32-bit element");
        return;
    }
    if (is(p, RK_T_PTR) && is(r, RK_T_RACK) && !memory_elem(p->elem, r->elem)) {
        if (store)
            fail(v, in, "operand-type", "%s can't be stored to %s", tn(r), tn(p));
        else
            result(v, in, false, rk_arena_printf(&rk_heap, "a rack of %s (or widened)",
                                                  rk_elem_name(p->elem)));
    }
}

/* Memory, descriptors and the slow tier: each operation's own signature. */
static void check_mem(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    const RkType *t = in->type, *p = a[0];
    const RkType *I64 = rk_ty_scalar(RK_E_I64);
    if (in->opc == RK_OP_SLOW_CALL) {
        check_slow(v, in, a);
        return;
    }
    if (!arity(v, in, op))
        return;
    switch (in->opc) {
    case RK_OP_STACK_COUNT: case RK_OP_STACK_COLUMN: case RK_OP_STACK_SET_COUNT:
        check_stack(v, in, a);
        return;
    case RK_OP_VIEW_PTR: case RK_OP_VIEW_COUNT:
        check_view(v, in, a);
        return;
    case RK_OP_MASK_POPCOUNT:
        operand(v, in, 0, p, is(p, RK_T_MASK), "a mask");
        result(v, in, same(t, I64), "i64");
        return;
    case RK_OP_MASK_LANES_BELOW:
        operand(v, in, 0, p, same(p, I64), "i64");
        result(v, in, is(t, RK_T_MASK), "a mask");
        return;
    default:
        break;
    }
    /* the rest address memory through a pointer */
    operand(v, in, 0, p, is(p, RK_T_PTR), "a pointer");
    switch (in->opc) {
    case RK_OP_PTR_ADD:
        operand(v, in, 1, a[1], same(a[1], I64), "i64");
        if (p)
            result(v, in, same(t, p), tn(p));
        return;
    case RK_OP_ELEM_LOAD:
        operand(v, in, 1, a[1], same(a[1], I64), "i64");
        if (is(p, RK_T_PTR))
            result(v, in, scalar_of(t, p->elem), rk_elem_name(p->elem));
        return;
    default:
        check_rack_memory(v, in, op, a);
    }
}

static void check_sig(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    switch (op->shape) {
    case SH_CONST:
        check_const(v, in, op, a);
        return;
    case SH_SPLAT:
        arity(v, in, op);
        operand(v, in, 0, a[0], is(a[0], RK_T_SCALAR) && a[0]->elem == RK_E_BOOL, "bool");
        result(v, in, is(in->type, RK_T_MASK), "a mask");
        return;
    case SH_COPY:
        arity(v, in, op);
        if (in->nargs == 1)
            result(v, in, same(in->type, a[0]), tn(a[0]));
        return;
    case SH_BIN:
    case SH_UN:
    case SH_TER:
        check_lanewise(v, in, op, a);
        return;
    case SH_SHIFT:
        arity(v, in, op);
        result(v, in, is(in->type, RK_T_RACK) && rk_elem_is_int(in->type->elem),
               "an integer rack");
        if (in->nargs >= 1)
            operand(v, in, 0, a[0], same(a[0], in->type), tn(in->type));
        if (in->nargs == 2)
            operand(v, in, 1, a[1], is(a[1], RK_T_SCALAR) && a[1]->elem == RK_E_U32, "u32");
        return;
    case SH_CMP:
        arity(v, in, op);
        if (in->nargs == 2 && a[0]) {
            operand(v, in, 0, a[0], is(a[0], RK_T_RACK), "a rack");
            operand(v, in, 1, a[1], same(a[0], a[1]), tn(a[0]));
            if (is(a[0], RK_T_RACK))
                result(v, in, same(in->type, rk_ty_mask(rk_elem_bits(a[0]->elem))),
                       tn(rk_ty_mask(rk_elem_bits(a[0]->elem))));
        }
        return;
    case SH_MBIN:
    case SH_MUN:
        arity(v, in, op);
        result(v, in, is(in->type, RK_T_MASK), "a mask");
        for (int i = 0; i < in->nargs; i++)
            operand(v, in, i, a[i], same(a[i], in->type), tn(in->type));
        return;
    case SH_SELECT:
        arity(v, in, op);
        /* a mask selects lanes: a uniform choice is u.select */
        result(v, in, is(in->type, RK_T_RACK) || is(in->type, RK_T_MASK), "a rack or a mask");
        if (in->nargs == 3) {
            operand(v, in, 0, a[0], is(a[0], RK_T_MASK), "a mask");
            operand(v, in, 1, a[1], same(a[1], in->type), tn(in->type));
            operand(v, in, 2, a[2], same(a[2], in->type), tn(in->type));
            if (is(a[0], RK_T_MASK) && (is(in->type, RK_T_RACK) || is(in->type, RK_T_MASK)) &&
                rk_elem_bits(a[0]->elem) != rk_elem_bits(in->type->elem))
                fail(v, in, "operand-type", "a %s can't select %s", tn(a[0]), tn(in->type));
        }
        return;
    case SH_CONVERT:
        check_convert(v, in, op, a);
        return;
    case SH_REDUCE: case SH_SCAN: case SH_EXTRACT: case SH_INSERT:
    case SH_SHUFFLE: case SH_MREDUCE:
        check_cross(v, in, op, a);
        return;
    case SH_UBIN: case SH_UUN: case SH_UCMP: case SH_USELECT: case SH_UCVT:
        check_uniform(v, in, op, a);
        return;
    case SH_MEM:
        check_mem(v, in, op, a);
        return;
    }
}

/* --- masks and sanitisation ---------------------------------------------------------- */

static bool constant_bits(V *v, int id, uint32_t *bits)
{
    if (id < 0 || id >= v->ndefs || !v->defs[id].instr)
        return false;
    RkInstr *d = v->defs[id].instr;
    if (d->opc != RK_OP_RACK_SPLAT || d->nargs)
        return false;
    *bits = (uint32_t)d->bits;
    return true;
}

static RkInstr *def_of(const void *ctx, int id)
{
    const V *v = ctx;
    return id >= 0 && id < v->ndefs ? v->defs[id].instr : NULL;
}

static void check_sanitized(V *v, const RkInstr *in, const RkOpInfo *op, const RkType **a)
{
    if (!(op->flags & RK_OPF_RAISES) || in->through < 0 || !v->fpx)
        return;
    bool floats = false;
    for (int i = 0; i < in->nargs; i++)
        floats |= a[i] && float_elem(a[i]);
    if (!floats)
        return;
    if (!in->sanitized)
        fail(v, in, "unsanitized", "an exception-capable operation under %%%d isn't "
                                   "marked sanitized",
             in->through);
    bool kept = false; /* one constant that can't raise may stay */
    for (int i = 0; i < in->nargs; i++) {
        uint32_t want = rk_nir_op_benign(op, i), got;
        int id = in->args[i];
        if (constant_bits(v, id, &got) && got == want)
            continue;
        if (!kept && constant_bits(v, id, &got) && rk_nir_op_const_benign(op, i, got)) {
            kept = true;
            continue;
        }
        /* a comparison's operand that every lane outside the mask
         * holds normal (lib/nirproof.h): nothing there to raise */
        if (rk_nir_op_quiet_on_normal(in->opc) && a[i] && float_elem(a[i]) &&
            rk_nir_normal_outside(def_of, v, in->through, id))
            continue;
        RkInstr *d = id >= 0 && id < v->ndefs ? v->defs[id].instr : NULL;
        if (!d || d->opc != RK_OP_MASK_SELECT || !d->benign || d->nargs != 3) {
            fail(v, in, "unsanitized", "operand %d (%%%d) isn't replaced by a benign "
                                       "value in the lanes outside %%%d",
                 i + 1, id, in->through);
            continue;
        }
        if (d->args[0] != in->through)
            fail(v, in, "benign-value", "operand %d is sanitized under %%%d, not under "
                                        "the operation's mask %%%d",
                 i + 1, d->args[0], in->through);
        if (!constant_bits(v, d->args[2], &got) || got != want)
            fail(v, in, "benign-value", "operand %d's inactive lanes get %%%d, not the "
                                        "benign 0x%08x",
                 i + 1, d->args[2], want);
    }
}

/* --- regions ------------------------------------------------------------------------- */

/* Whether some instruction of block bi is in a region an earlier block
 * holds: the quadratic search for the exact messages below runs only
 * then (a valid function has none), not for every block. */
static bool region_from_earlier(V *v, const RkBlock *b, int bi)
{
    const RkFunc *f = v->f;
    if (!v->region_first) {
        v->region_first = malloc(sizeof(int) * (size_t)(f->nregions + 1));
        if (!v->region_first)
            rk_diag_internal("out of memory for %d fused regions", f->nregions);
        for (int r = 0; r < f->nregions; r++)
            v->region_first[r] = INT_MAX;
        for (int i = f->nblocks - 1; i >= 0; i--)
            for (int j = 0; j < f->blocks[i]->ninstrs; j++) {
                int r = f->blocks[i]->instrs[j]->fused;
                if (r >= 0 && r < f->nregions)
                    v->region_first[r] = i;
            }
    }
    for (int j = 0; j < b->ninstrs; j++) {
        int r = b->instrs[j]->fused;
        if (r >= f->nregions || (r >= 0 && v->region_first[r] < bi))
            return true; /* (a region out of range: let the search decide) */
    }
    return false;
}

static void check_regions(V *v, const RkBlock *b, int bi)
{
    const RkFunc *f = v->f;
    for (int i = 0; i < b->ninstrs; i++) {
        const RkInstr *in = b->instrs[i];
        if (in->fused < 0)
            continue;
        if (in->fused >= f->nregions)
            fail(v, in, "fused-region", "region %d, but the function declares %d region%s",
                 in->fused, f->nregions, f->nregions == 1 ? "" : "s");
        const RkOpInfo *op = rk_nir_op_info(in->opc);
        if (op && !(op->flags & RK_OPF_FUSABLE))
            fail(v, in, "fused-pure", "%s can't be in a fused region: it is %s", in->op,
                 !(op->flags & RK_OPF_PURE)  ? "a memory access or an effect"
                 : (op->flags & RK_OPF_CROSS) ? "a cross-lane reduction or extraction"
                                             : "not a fusable lane-wise operation");
        /* everything between this and the region's next instruction */
        for (int j = i + 1; j < b->ninstrs; j++) {
            const RkInstr *n = b->instrs[j];
            if (n->fused == in->fused)
                break;
            if (n->fused < 0 && rk_nir_is_constant(n))
                continue;
            bool later = false;
            for (int k = j + 1; k < b->ninstrs; k++)
                later |= b->instrs[k]->fused == in->fused;
            if (later)
                fail(v, n, "fused-contiguous", "this instruction interrupts fused "
                                               "region %d",
                     in->fused);
            break;
        }
    }
    for (int i = 0; region_from_earlier(v, b, bi) && i < f->nblocks; i++) {
        if (f->blocks[i] == b)
            continue;
        for (int j = 0; j < b->ninstrs; j++) {
            if (b->instrs[j]->fused < 0)
                continue;
            for (int k = 0; k < f->blocks[i]->ninstrs; k++)
                if (f->blocks[i]->instrs[k]->fused == b->instrs[j]->fused &&
                    i < block_index(v, b->id))
                    fail(v, b->instrs[j], "fused-contiguous", "region %d spans blocks",
                         b->instrs[j]->fused);
        }
    }
}

/* --- terminators ----------------------------------------------------------------------- */

static void check_edge(V *v, const RkEdge *e, int block, int pos)
{
    int bi = block_index(v, e->block);
    if (bi < 0) {
        fail(v, NULL, "branch-target", "b%d branches to b%d, which doesn't exist",
             v->f->blocks[block]->id, e->block);
        return;
    }
    const RkBlock *t = v->f->blocks[bi];
    if (bi == 0)
        fail(v, NULL, "branch-target", "b%d branches to the entry block", v->f->blocks[block]->id);
    if (e->nargs != t->nparams) {
        fail(v, NULL, "branch-args", "b%d passes %d arguments to b%d, which takes %d",
             v->f->blocks[block]->id, e->nargs, e->block, t->nparams);
        return;
    }
    for (int i = 0; i < e->nargs; i++) {
        const RkType *ty = use(v, NULL, e->args[i], block, pos);
        if (ty && !same(ty, t->ptypes[i]))
            fail(v, NULL, "branch-arg-type", "b%d passes %s as b%d's parameter %d (%s)",
                 v->f->blocks[block]->id, tn(ty), e->block, i + 1, tn(t->ptypes[i]));
    }
}

static void check_term(V *v, const RkBlock *b, int bi)
{
    if (!b->terminated) {
        fail(v, NULL, "missing-terminator", "b%d has no terminator", b->id);
        return;
    }
    const RkTerm *t = &b->term;
    int pos = b->ninstrs;
    switch (t->kind) {
    case RK_TERM_RET: {
        const RkType *ty = t->value >= 0 ? use(v, NULL, t->value, bi, pos) : NULL;
        if ((t->value >= 0 && ty && !same(ty, v->f->result)) ||
            (t->value < 0 && v->f->result))
            fail(v, NULL, "return-type", "b%d returns %s from a function of %s", b->id,
                 t->value < 0 ? "nothing" : tn(ty), tn(v->f->result));
        break;
    }
    case RK_TERM_BR:
        check_edge(v, &t->to, bi, pos);
        break;
    case RK_TERM_CBR: {
        const RkType *ty = use(v, NULL, t->value, bi, pos);
        if (ty && !(is(ty, RK_T_SCALAR) && ty->elem == RK_E_BOOL))
            fail(v, NULL, "cbr-condition", "b%d branches on %s, not bool", b->id, tn(ty));
        check_edge(v, &t->to, bi, pos);
        check_edge(v, &t->alt, bi, pos);
        break;
    }
    case RK_TERM_TRAP:
        for (int i = 0; i < t->to.nargs; i++) {
            const RkType *ty = use(v, NULL, t->to.args[i], bi, pos);
            if (ty && !(is(ty, RK_T_SCALAR) && rk_elem_is_int(ty->elem)))
                fail(v, NULL, "trap-arg-type", "b%d's trap shows %s, not an integer", b->id,
                     tn(ty));
        }
        break;
    }
}

/* --- the function ---------------------------------------------------------------------- */

static void verify_func(V *v)
{
    const RkFunc *f = v->f;
    v->ndefs = f->nvalues;
    v->defs = calloc((size_t)(v->ndefs + 1), sizeof(Def));
    for (int i = 0; i < f->nparams; i++)
        define(v, f->params[i], f->ptypes[i], -1, -1, NULL);
    if (f->nblocks == 0) {
        fail(v, NULL, "missing-terminator", "the function has no blocks");
        free(v->defs);
        return;
    }
    index_ids(v);
    for (int i = 0; i < f->nblocks; i++) {
        const RkBlock *b = f->blocks[i];
        for (int j = earlier_twins(v, i); j > 0; j--)
            fail(v, NULL, "duplicate-block", "two blocks are b%d", b->id);
        if (i == 0 && b->nparams)
            fail(v, NULL, "entry-params", "the entry block b%d takes parameters", b->id);
        for (int p = 0; p < b->nparams; p++)
            define(v, b->params[p], b->ptypes[p], i, -1, NULL);
        for (int j = 0; j < b->ninstrs; j++)
            if (b->instrs[j]->id >= 0)
                define(v, b->instrs[j]->id, b->instrs[j]->type, i, j, b->instrs[j]);
    }
    dominators(v);
    for (int i = 0; i < f->nblocks; i++) {
        const RkBlock *b = f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            const RkInstr *in = b->instrs[j];
            const RkOpInfo *op = rk_nir_op_info(in->opc);
            if (!op) {
                fail(v, in, "unknown-op", "no operation is called %s", in->op);
                continue;
            }
            /* every operand's type, however many (a slow.call's captures);
             * at least 16, NULL past the operands, for the signature checks */
            const RkType **a = calloc((size_t)(in->nargs > 16 ? in->nargs : 16), sizeof *a);
            for (int k = 0; k < in->nargs; k++)
                a[k] = use(v, in, in->args[k], i, j);
            if (in->through >= 0) {
                const RkType *t = use(v, in, in->through, i, j);
                if (t && !is(t, RK_T_MASK))
                    fail(v, in, "through-mask", "through=%%%d is %s, not a mask",
                         in->through, tn(t));
            }
            if (in->type && in->id < 0)
                fail(v, in, "result-type", "the result is %s, but the instruction has no "
                                           "value id",
                     tn(in->type));
            else if (!in->type && in->id >= 0)
                fail(v, in, "result-type", "%%%d is defined with no type (void)", in->id);
            check_sig(v, in, op, a);
            check_sanitized(v, in, op, a);
            free(a);
        }
        check_regions(v, b, i);
        check_term(v, b, i);
    }
    free(v->defs);
    rk_dom_free(&v->dom);
    free(v->ids);
    free(v->region_first);
}

static int verify_to(const RkNirModule *m, bool fpx, int lanes, FILE *out, int *first_fn)
{
    int errors = 0;
    *first_fn = -1;
    for (int i = 0; i < m->nfuncs; i++) {
        V v = {m->funcs[i], NULL, 0, 0, fpx, lanes, {0}, NULL, out, -1, i, NULL};
        verify_func(&v);
        errors += v.errors;
        if (*first_fn < 0)
            *first_fn = v.first_fn;
    }
    return errors;
}

int rk_nir_verify(const RkNirModule *m, bool fp_exceptions, int f32_lanes)
{
    int first;
    return verify_to(m, fp_exceptions, f32_lanes, stderr, &first);
}

void rk_nir_verify_input(const RkNirModule *m, bool fp_exceptions, int f32_lanes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int first;
    int errors = verify_to(m, fp_exceptions, f32_lanes, mem, &first);
    fclose(mem);
    if (!errors) {
        free(buf);
        return;
    }
    int line = 1, col = 1;
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/functions/%d", first < 0 ? 0 : first);
    rk_ir_locate(ptr, &line, &col);
    fprintf(stderr, "%s: <stdin>:%d:%d: the rake.nir input fails IR verification (%d "
                    "violation%s):\n%s",
            rk_diag_program_name(), line, col, errors, errors == 1 ? "" : "s", buf);
    free(buf);
    exit(RK_EXIT_INPUT);
}

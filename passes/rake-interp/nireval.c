/* nireval.c: the native-IR evaluator.
 *
 * `rake-interp --nir F.nir` runs main as usual, but every call from slow
 * code to a run, scratch or rake executes that function's optimised
 * rake.nir instead of the source tree.  It shares no code with the tree
 * evaluator except the lane semantics of lib/lanes.c and lib/lanewise.c,
 * so a difference between the two modes is a difference made by lowering
 * or optimisation: the test of rake-lower and rake-opt before any machine
 * code exists.  A contracted rack.fma rounds once, as the hardware will. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "strbuf.h"
#include "interp.h"
#include "ir.h"
#include "lanes.h"
#include "lanewise.h"
#include "nir.h"

static RkNirModule *nir;

/* The evaluator indexes values, blocks and slots by the document's ids,
 * so it runs only a document that passes the verifier for the profile. */
void nir_load(const char *path, const RkProfile *p)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        rk_diag_input("cannot open %s", path);
    RkIrDoc d = rk_ir_read(f, "rake.nir", 1);
    fclose(f);
    nir = rk_nir_decode(d.root);
    const RkProfile *own = nir->target ? rk_profile_find(nir->target) : NULL;
    if (own)
        p = own;
    rk_nir_verify_input(nir, p->fp_exceptions, p->lanes);
}

bool nir_has(const char *name) { return nir && rk_nir_find(nir, name); }

typedef struct Ev {
    RkFunc *f;
    RkNode *src; /* the source function, for slow blocks */
    Val *v;
} Ev;

static Val *val(Ev *e, int id) { return &e->v[id]; }

static int lanes_for(const RkType *t) { return lanes_of(t->elem); }

static Val rack_like(const RkType *t)
{
    return t->kind == RK_T_MASK ? v_mask(t->elem, lanes_for(t)) : v_rack(t->elem, lanes_for(t));
}

/* --- lanewise ------------------------------------------------------------------- */

/* The lane vocabulary of lib/lanewise.c for a comparison, a fold or an
 * f32 unary operation. */
static const char *lane_name(RkOp op)
{
    switch (op) {
    case RK_OP_RACK_CMP_EQ: case RK_OP_U_CMP_EQ: return "eq";
    case RK_OP_RACK_CMP_NE: case RK_OP_U_CMP_NE: return "ne";
    case RK_OP_RACK_CMP_LT: case RK_OP_U_CMP_LT: return "lt";
    case RK_OP_RACK_CMP_LE: case RK_OP_U_CMP_LE: return "le";
    case RK_OP_RACK_CMP_GT: case RK_OP_U_CMP_GT: return "gt";
    case RK_OP_RACK_CMP_GE: case RK_OP_U_CMP_GE: return "ge";
    case RK_OP_RACK_SUM: case RK_OP_RACK_SCAN_SUM: return "sum";
    case RK_OP_RACK_PRODUCT: case RK_OP_RACK_SCAN_PRODUCT: return "product";
    case RK_OP_RACK_MINIMUM: case RK_OP_RACK_SCAN_MINIMUM: return "minimum";
    case RK_OP_RACK_MAXIMUM: case RK_OP_RACK_SCAN_MAXIMUM: return "maximum";
    case RK_OP_RACK_SQRT: return "sqrt";
    case RK_OP_RACK_FLOOR: return "floor";
    case RK_OP_RACK_CEIL: return "ceil";
    case RK_OP_RACK_TRUNC: return "trunc";
    case RK_OP_RACK_NEAREST: return "nearest";
    case RK_OP_RACK_EXP: return "exp";
    case RK_OP_RACK_LOG: return "log";
    case RK_OP_RACK_LOG2: return "log2";
    case RK_OP_RACK_TANH: return "tanh";
    default: rk_diag_internal("rake-interp: %s has no lane name", rk_nir_op_name(op));
    }
}

/* One lane of a lane-wise operation on x, y, z (count: a shift's). */
static uint64_t lane(RkOp op, RkElem el, RkElem to, uint64_t x, uint64_t y, uint64_t z,
                     uint64_t count)
{
    switch (op) {
    case RK_OP_RACK_ADD: return rk_lane_arith('+', el, x, y);
    case RK_OP_RACK_SUB: return rk_lane_arith('-', el, x, y);
    case RK_OP_RACK_MUL: return rk_lane_arith('*', el, x, y);
    case RK_OP_RACK_DIV: return rk_lane_arith('/', el, x, y);
    case RK_OP_RACK_MIN: case RK_OP_RACK_RELAXED_MIN: return rk_lane_minmax(false, el, x, y);
    case RK_OP_RACK_MAX: case RK_OP_RACK_RELAXED_MAX: return rk_lane_minmax(true, el, x, y);
    case RK_OP_RACK_AND: return x & y;
    case RK_OP_RACK_OR: return x | y;
    case RK_OP_RACK_XOR: return rk_lane_norm(el, x ^ y);
    case RK_OP_RACK_ANDNOT: return rk_lane_norm(el, x & ~y);
    case RK_OP_RACK_NEG: return rk_lane_neg(el, x);
    case RK_OP_RACK_ABS: return rk_lane_abs(el, x);
    case RK_OP_RACK_FMA: return rk_f32_fma((uint32_t)x, (uint32_t)y, (uint32_t)z);
    case RK_OP_RACK_RELAXED_MADD: return rk_lane_arith('+', el, rk_lane_arith('*', el, x, y), z);
    case RK_OP_RACK_RELAXED_NMADD:
        return rk_lane_arith('+', el, rk_lane_neg(el, rk_lane_arith('*', el, x, y)), z);
    case RK_OP_RACK_SHL: return rk_lane_shift('l', el, x, count);
    case RK_OP_RACK_SHR: return rk_lane_shift('r', el, x, count);
    case RK_OP_RACK_SAR: return rk_lane_shift('s', el, x, count);
    case RK_OP_RACK_CMP_EQ: case RK_OP_RACK_CMP_NE: case RK_OP_RACK_CMP_LT:
    case RK_OP_RACK_CMP_LE: case RK_OP_RACK_CMP_GT: case RK_OP_RACK_CMP_GE:
        return rk_lane_compare(lane_name(op), el, x, y);
    case RK_OP_RACK_TO_I32:
        return rk_lane_norm(RK_E_I32, (uint64_t)(int64_t)rk_f32_to_i32((uint32_t)x));
    case RK_OP_RACK_TO_U32: return rk_f32_to_u32((uint32_t)x);
    case RK_OP_RACK_TO_F32:
        return el == RK_E_I32 ? rk_i32_to_f32((int32_t)x) : rk_u32_to_f32((uint32_t)x);
    case RK_OP_RACK_BITCAST: return rk_lane_norm(to, x);
    default: return rk_lane_f32_unary(lane_name(op), x);
    }
}

static Val lanewise(Ev *e, RkInstr *in)
{
    Val r = rack_like(in->type);
    Val *a = in->nargs > 0 ? val(e, in->args[0]) : NULL;
    Val *b = in->nargs > 1 ? val(e, in->args[1]) : NULL;
    Val *c = in->nargs > 2 ? val(e, in->args[2]) : NULL;
    RkElem el = a ? a->elem : r.elem;
    uint64_t count = b ? b->v[0] : (uint64_t)in->imm;
    for (int l = 0; l < r.lanes; l++)
        r.v[l] = lane(in->opc, el, r.elem, a ? a->v[l] : 0, b ? b->v[l] : 0, c ? c->v[l] : 0,
                      count);
    return r;
}

static Val packed(Ev *e, RkInstr *in)
{
    Val r = rack_like(in->type);
    Val *a = val(e, in->args[0]);
    if (in->opc == RK_OP_RACK_WIDEN_LOW || in->opc == RK_OP_RACK_WIDEN_HIGH) {
        int base = in->opc == RK_OP_RACK_WIDEN_HIGH ? r.lanes : 0;
        for (int i = 0; i < r.lanes; i++)
            r.v[i] = a->v[base + i];
        return r;
    }
    Val *b = val(e, in->args[1]);
    for (int i = 0; i < r.lanes; i++) {
        if (in->opc == RK_OP_RACK_NARROW) {
            int64_t x = (int64_t)(i < a->lanes ? a->v[i] : b->v[i - a->lanes]);
            x = x > 32767 ? 32767 : x < -32768 ? -32768 : x;
            r.v[i] = rk_lane_norm(RK_E_I16, (uint64_t)x);
        } else {
            int64_t s = (int64_t)a->v[2 * i] * (int64_t)b->v[2 * i] +
                        (int64_t)a->v[2 * i + 1] * (int64_t)b->v[2 * i + 1];
            r.v[i] = rk_lane_norm(RK_E_I32, (uint64_t)s);
        }
    }
    return r;
}

static Val cross(Ev *e, RkInstr *in)
{
    Val *a = val(e, in->args[0]);
    switch (in->opc) {
    case RK_OP_RACK_EXTRACT:
        return v_scalar(a->elem, a->v[in->imm]);
    case RK_OP_RACK_INSERT: {
        Val r = *a;
        r.v[in->imm] = val(e, in->args[1])->v[0];
        return r;
    }
    case RK_OP_RACK_SHUFFLE: {
        Val *b = in->nargs > 1 ? val(e, in->args[1]) : a;
        Val r = *a;
        for (int i = 0; i < in->nlanes; i++) {
            int k = in->lanes[i];
            r.v[i] = k < a->lanes ? a->v[k] : b->v[k - a->lanes];
        }
        return r;
    }
    case RK_OP_MASK_BITMASK: return v_scalar(RK_E_U32, mask_bits(*a));
    case RK_OP_MASK_POPCOUNT:
        return v_scalar(RK_E_I64, (uint64_t)__builtin_popcountll(mask_bits(*a)));
    case RK_OP_MASK_ALL: return v_scalar(RK_E_BOOL, mask_bits(*a) == all_lanes(a->lanes));
    case RK_OP_MASK_ANY: return v_scalar(RK_E_BOOL, mask_bits(*a) != 0);
    default:
        break;
    }
    /* reductions and scans: a left fold */
    const char *step = lane_name(in->opc);
    Val r = *a;
    uint64_t acc = a->v[0];
    for (int i = 1; i < a->lanes; i++) {
        acc = rk_lane_reduce_step(step, a->elem, acc, a->v[i]);
        r.v[i] = acc;
    }
    return rk_nir_op_info(in->opc)->shape == SH_SCAN ? r : v_scalar(a->elem, acc);
}

/* --- uniforms ------------------------------------------------------------------------ */

static Val uniform(Ev *e, RkInstr *in)
{
    Val *a = val(e, in->args[0]);
    RkElem t = in->type->elem;
    switch (in->opc) {
    case RK_OP_U_CVT:
        if (rk_elem_is_float(t) || rk_elem_is_float(a->elem))
            rk_diag_internal("rake-interp: u.cvt between floats and integers");
        return v_scalar(t, rk_lane_norm(t, a->v[0]));
    case RK_OP_U_NEG: return v_scalar(t, rk_lane_neg(t, a->v[0]));
    case RK_OP_U_NOT: return v_scalar(t, !a->v[0]);
    default:
        break;
    }
    Val *b = val(e, in->args[1]);
    switch (in->opc) {
    case RK_OP_U_SELECT: return a->v[0] ? *b : *val(e, in->args[2]);
    case RK_OP_U_AND: return v_scalar(t, a->v[0] & b->v[0]);
    case RK_OP_U_OR: return v_scalar(t, a->v[0] | b->v[0]);
    case RK_OP_U_ADD: return v_scalar(t, rk_lane_arith('+', t, a->v[0], b->v[0]));
    case RK_OP_U_SUB: return v_scalar(t, rk_lane_arith('-', t, a->v[0], b->v[0]));
    case RK_OP_U_MUL: return v_scalar(t, rk_lane_arith('*', t, a->v[0], b->v[0]));
    case RK_OP_U_DIV: return v_scalar(t, rk_lane_arith('/', t, a->v[0], b->v[0]));
    default: /* the comparisons */
        return v_scalar(RK_E_BOOL, rk_lane_compare(lane_name(in->opc), a->elem, a->v[0], b->v[0]));
    }
}

/* --- memory ---------------------------------------------------------------------------- */

static Val ptr_val(Buffer *buf, int64_t off)
{
    Val p = v_unit();
    p.kind = V_VIEW;
    p.view.buf = buf;
    p.view.off = off;
    return p;
}

static uint64_t active_of(Ev *e, RkInstr *in, int k)
{
    if (k >= in->nargs)
        return ~0ull;
    Val *m = val(e, in->args[k]);
    uint64_t bits = 0;
    for (int i = 0; i < m->lanes; i++)
        bits |= (m->v[i] & 1) << i;
    return bits;
}

/* Racks to and from memory at buf + base. */
static Val rack_memory(Ev *e, RkInstr *in, Buffer *buf, int64_t base)
{
    switch (in->opc) {
    case RK_OP_RACK_LOAD: case RK_OP_RACK_LOAD_MASKED: {
        Val r = rack_like(in->type);
        uint64_t act = in->opc == RK_OP_RACK_LOAD ? ~0ull : active_of(e, in, 1);
        for (int l = 0; l < r.lanes; l++)
            if ((act >> l) & 1)
                r.v[l] = rk_lane_norm(r.elem, buf->data[base + l]);
        return r;
    }
    case RK_OP_RACK_GATHER: {
        Val r = rack_like(in->type);
        Val *idx = val(e, in->args[1]);
        uint64_t act = active_of(e, in, 2);
        for (int l = 0; l < r.lanes; l++)
            if ((act >> l) & 1)
                r.v[l] = buf->data[base + (int64_t)idx->v[l]];
        return r;
    }
    case RK_OP_RACK_STORE: case RK_OP_RACK_STORE_MASKED: {
        bool masked = in->opc == RK_OP_RACK_STORE_MASKED;
        Val *v = val(e, in->args[masked ? 2 : 1]);
        uint64_t act = masked ? active_of(e, in, 1) : ~0ull;
        for (int l = 0; l < v->lanes; l++)
            if ((act >> l) & 1)
                buf->data[base + l] = rk_lane_norm(buf->elem, v->v[l]);
        return v_unit();
    }
    case RK_OP_RACK_COMPRESS_STORE: {
        Val *v = val(e, in->args[2]);
        uint64_t act = active_of(e, in, 1);
        int64_t k = 0;
        for (int l = 0; l < v->lanes; l++)
            if ((act >> l) & 1)
                buf->data[base + k++] = rk_lane_norm(buf->elem, v->v[l]);
        return v_unit();
    }
    default:
        rk_diag_internal("rake-interp: no native-IR operation %s", in->op);
    }
}

static Val memory(Ev *e, RkInstr *in)
{
    Val *a = in->nargs ? val(e, in->args[0]) : NULL;
    switch (in->opc) {
    case RK_OP_STACK_COUNT: return v_scalar(RK_E_I64, (uint64_t)a->stack->count);
    case RK_OP_STACK_COLUMN:
        return ptr_val(a->stack->cols[in->imm].buf, a->stack->cols[in->imm].off);
    case RK_OP_STACK_SET_COUNT:
        a->stack->count = (int64_t)val(e, in->args[1])->v[0];
        return v_unit();
    case RK_OP_VIEW_PTR: return ptr_val(a->view.buf, a->view.off);
    case RK_OP_VIEW_COUNT: return v_scalar(RK_E_I32, (uint64_t)a->view.count);
    case RK_OP_PTR_ADD:
        return ptr_val(a->view.buf, a->view.off + (int64_t)val(e, in->args[1])->v[0]);
    case RK_OP_MASK_LANES_BELOW: {
        Val m = rack_like(in->type);
        for (int l = 0; l < m.lanes; l++)
            m.v[l] = (int64_t)l < (int64_t)a->v[0];
        return m;
    }
    case RK_OP_ELEM_LOAD:
        return v_scalar(a->view.buf->elem, a->view.buf->data[a->view.off + in->imm +
                                                             (int64_t)val(e, in->args[1])->v[0]]);
    default:
        return rack_memory(e, in, a->view.buf, a->view.off + in->imm);
    }
}

/* --- slow blocks ------------------------------------------------------------------------ */

/* The slow block at loc ("L:C") in a kernel, at any depth. */
typedef struct FindBlock {
    const char *loc;
    RkNode *found;
} FindBlock;

static bool find_block(RkNode *n, void *ctx)
{
    FindBlock *f = ctx;
    if (n->kind == RK_SLOW_BLOCK) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d:%d", n->loc.line, n->loc.col);
        if (!strcmp(buf, f->loc)) {
            f->found = n;
            return true;
        }
    }
    return rk_ast_any_child(n, find_block, f);
}

static Val slow_call(Ev *e, RkInstr *in)
{
    FindBlock fb = {in->text, NULL};
    find_block(e->src, &fb);
    RkNode *blk = fb.found;
    if (!blk)
        rk_diag_internal("rake-interp: no slow block at %s", in->text);
    Frame *f = push_frame(e->src);
    for (int i = 0; i < in->nargs; i++) {
        if (i >= in->nlanes || in->lanes[i] < 0 || in->lanes[i] >= f->nslots)
            rk_diag_input("slow.call at %s: operand %d names no slot of %s", in->text, i + 1,
                          e->src->name);
        f->slots[in->lanes[i]] = *val(e, in->args[i]);
    }
    Val r = eval_slow_block(blk);
    pop_frame(f);
    return r;
}

/* --- execution ----------------------------------------------------------------------------- */

static Val fill(const RkType *t, uint64_t x)
{
    Val r = rack_like(t);
    for (int l = 0; l < r.lanes; l++)
        r.v[l] = x;
    return r;
}

static Val mask_op(Ev *e, RkInstr *in)
{
    Val r = *val(e, in->args[0]);
    for (int l = 0; l < r.lanes; l++)
        r.v[l] = in->opc == RK_OP_MASK_NOT   ? !r.v[l]
                 : in->opc == RK_OP_MASK_AND ? r.v[l] & val(e, in->args[1])->v[l]
                                             : r.v[l] | val(e, in->args[1])->v[l];
    return r;
}

static Val select_lanes(Ev *e, RkInstr *in)
{
    Val *m = val(e, in->args[0]), *a = val(e, in->args[1]), *b = val(e, in->args[2]);
    Val r = *a;
    for (int l = 0; l < r.lanes; l++)
        r.v[l] = m->v[l] ? a->v[l] : b->v[l];
    return r;
}

static Val exec(Ev *e, RkInstr *in)
{
    const RkOpInfo *op = rk_nir_op_info(in->opc);
    if (!op)
        rk_diag_internal("rake-interp: no native-IR operation %s", in->op);
    switch (in->opc) {
    case RK_OP_CONST: return v_scalar(in->type->elem, in->bits);
    case RK_OP_RACK_SPLAT:
        return fill(in->type, in->nargs ? val(e, in->args[0])->v[0]
                                        : rk_lane_norm(in->type->elem, in->bits));
    case RK_OP_MASK_CONST: case RK_OP_MASK_SPLAT:
        return fill(in->type, in->nargs ? val(e, in->args[0])->v[0] & 1 : in->bits & 1);
    case RK_OP_COPY: return *val(e, in->args[0]);
    case RK_OP_MASK_AND: case RK_OP_MASK_OR: case RK_OP_MASK_NOT: return mask_op(e, in);
    case RK_OP_MASK_SELECT: return select_lanes(e, in);
    case RK_OP_RACK_WIDEN_LOW: case RK_OP_RACK_WIDEN_HIGH:
    case RK_OP_RACK_NARROW: case RK_OP_RACK_DOT:
        return packed(e, in);
    case RK_OP_MASK_POPCOUNT: return cross(e, in);
    case RK_OP_SLOW_CALL: return slow_call(e, in);
    default:
        break;
    }
    switch (op->shape) {
    case SH_UBIN: case SH_UUN: case SH_UCMP: case SH_USELECT: case SH_UCVT:
        return uniform(e, in);
    case SH_REDUCE: case SH_SCAN: case SH_EXTRACT: case SH_INSERT: case SH_SHUFFLE:
    case SH_MREDUCE:
        return cross(e, in);
    case SH_MEM: return memory(e, in);
    default: return lanewise(e, in);
    }
}

/* A trap's message: its text with each "{k}" replaced by the k-th value
 * it shows, a signed integer (rake-lower's bounds checks show the range
 * and the view's count, as the tree interpreter's messages do). */
static const char *trap_text(Ev *e, const RkTerm *t)
{
    const char *s = t->text ? t->text : "trap";
    RkBuf b = {0};
    char piece[32];
    for (; *s; s++) {
        int k, used = 0;
        if (*s == '{' && sscanf(s, "{%d}%n", &k, &used) == 1 && used && k >= 0 &&
            k < t->to.nargs) {
            snprintf(piece, sizeof piece, "%lld", (long long)(int64_t)e->v[t->to.args[k]].v[0]);
            s += used - 1;
        } else {
            piece[0] = *s, piece[1] = 0;
        }
        rk_buf_put(&b, piece);
    }
    return b.s;
}

static void pass_args(Ev *e, RkBlock *to, RkEdge *edge)
{
    int n = edge->nargs;
    Val *tmp = calloc((size_t)(n ? n : 1), sizeof(Val));
    for (int i = 0; i < n; i++)
        tmp[i] = *val(e, edge->args[i]);
    for (int i = 0; i < n; i++)
        e->v[to->params[i]] = tmp[i];
    free(tmp);
}

Val nir_call(const char *name, RkNode *src, Val *args, int nargs)
{
    RkFunc *f = rk_nir_find(nir, name);
    Ev e = {f, src, calloc((size_t)f->nvalues + 1, sizeof(Val))};
    for (int i = 0; i < nargs && i < f->nparams; i++)
        e.v[f->params[i]] = args[i];
    RkBlock *b = f->blocks[0];
    for (;;) {
        for (int i = 0; i < b->ninstrs; i++) {
            RkInstr *in = b->instrs[i];
            Val r = exec(&e, in);
            if (in->id >= 0)
                e.v[in->id] = r;
        }
        RkTerm *t = &b->term;
        if (t->kind == RK_TERM_RET) {
            Val r = t->value >= 0 ? e.v[t->value] : v_unit();
            free(e.v);
            return r;
        }
        if (t->kind == RK_TERM_TRAP)
            rk_diag_trap(t->loc, "%s", trap_text(&e, t));
        RkEdge *edge = &t->to;
        if (t->kind == RK_TERM_CBR && !(e.v[t->value].v[0] & 1))
            edge = &t->alt;
        RkBlock *to = rk_nir_block_by_id(f, edge->block);
        pass_args(&e, to, edge);
        b = to;
    }
}

/* nireval.c: the native-IR evaluator.
 *
 * `rake-interp --nir F.nir` runs main as usual, but every call from slow
 * code to a run, scratch or rake executes that function's optimised
 * rake.nir instead of the source tree.  It shares no code with the tree
 * evaluator except the lane semantics of lib/lanes.c and lib/lanewise.c,
 * so a difference between the two modes is a difference made by lowering
 * or optimisation: the test of rake-lower and rake-opt before any machine
 * code exists.  A contracted rack.fma rounds once, as the hardware will. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"
#include "ir.h"
#include "lanes.h"
#include "lanewise.h"
#include "nir.h"

static RkNirModule *nir;

void nir_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        rk_diag_input("cannot open %s", path);
    RkIrDoc d = rk_ir_read(f, "rake.nir", 1);
    fclose(f);
    nir = rk_nir_decode(d.root);
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

static Val lanewise(Ev *e, RkInstr *in)
{
    const char *op = in->op + 5; /* after "rack." */
    Val r = rack_like(in->type);
    Val *a = in->nargs > 0 ? val(e, in->args[0]) : NULL;
    Val *b = in->nargs > 1 ? val(e, in->args[1]) : NULL;
    Val *c = in->nargs > 2 ? val(e, in->args[2]) : NULL;
    RkElem el = a ? a->elem : r.elem;
    for (int l = 0; l < r.lanes; l++) {
        uint64_t x = a ? a->v[l] : 0, y = b ? b->v[l] : 0, z = c ? c->v[l] : 0;
        uint64_t o;
        if (!strcmp(op, "add")) o = rk_lane_arith('+', el, x, y);
        else if (!strcmp(op, "sub")) o = rk_lane_arith('-', el, x, y);
        else if (!strcmp(op, "mul")) o = rk_lane_arith('*', el, x, y);
        else if (!strcmp(op, "div")) o = rk_lane_arith('/', el, x, y);
        else if (!strcmp(op, "min") || !strcmp(op, "relaxed_min")) o = rk_lane_minmax(false, el, x, y);
        else if (!strcmp(op, "max") || !strcmp(op, "relaxed_max")) o = rk_lane_minmax(true, el, x, y);
        else if (!strcmp(op, "and")) o = x & y;
        else if (!strcmp(op, "or")) o = x | y;
        else if (!strcmp(op, "xor")) o = rk_lane_norm(el, x ^ y);
        else if (!strcmp(op, "andnot")) o = rk_lane_norm(el, x & ~y);
        else if (!strcmp(op, "neg")) o = rk_lane_neg(el, x);
        else if (!strcmp(op, "abs")) o = rk_lane_abs(el, x);
        else if (!strcmp(op, "fma")) o = rk_f32_fma((uint32_t)x, (uint32_t)y, (uint32_t)z);
        else if (!strcmp(op, "relaxed_madd"))
            o = rk_lane_arith('+', el, rk_lane_arith('*', el, x, y), z);
        else if (!strcmp(op, "relaxed_nmadd"))
            o = rk_lane_arith('+', el, rk_lane_neg(el, rk_lane_arith('*', el, x, y)), z);
        else if (!strcmp(op, "shl") || !strcmp(op, "shr") || !strcmp(op, "sar"))
            o = rk_lane_shift(op[1] == 'h' && op[2] == 'l' ? 'l' : op[1] == 'h' ? 'r' : 's', el, x,
                              b ? b->v[0] : (uint64_t)in->imm);
        else if (!strncmp(op, "cmp.", 4)) o = rk_lane_compare(op + 4, el, x, y);
        else if (!strcmp(op, "to_i32"))
            o = rk_lane_norm(RK_E_I32, (uint64_t)(int64_t)rk_f32_to_i32((uint32_t)x));
        else if (!strcmp(op, "to_u32")) o = rk_f32_to_u32((uint32_t)x);
        else if (!strcmp(op, "to_f32"))
            o = el == RK_E_I32 ? rk_i32_to_f32((int32_t)x) : rk_u32_to_f32((uint32_t)x);
        else if (!strcmp(op, "bitcast")) o = rk_lane_norm(r.elem, x);
        else o = rk_lane_f32_unary(op, x);
        r.v[l] = o;
    }
    return r;
}

static Val packed(Ev *e, RkInstr *in)
{
    Val r = rack_like(in->type);
    Val *a = val(e, in->args[0]);
    const char *op = in->op + 5;
    if (!strncmp(op, "widen_", 6)) {
        int base = op[6] == 'h' ? r.lanes : 0;
        for (int i = 0; i < r.lanes; i++)
            r.v[i] = a->v[base + i];
        return r;
    }
    Val *b = val(e, in->args[1]);
    for (int i = 0; i < r.lanes; i++) {
        if (op[0] == 'n') {
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
    const char *op = in->op;
    Val *a = val(e, in->args[0]);
    if (!strcmp(op, "rack.extract"))
        return v_scalar(a->elem, a->v[in->imm]);
    if (!strcmp(op, "rack.insert")) {
        Val r = *a;
        r.v[in->imm] = val(e, in->args[1])->v[0];
        return r;
    }
    if (!strcmp(op, "rack.shuffle")) {
        Val *b = in->nargs > 1 ? val(e, in->args[1]) : a;
        Val r = *a;
        for (int i = 0; i < in->nlanes; i++) {
            int k = in->lanes[i];
            r.v[i] = k < a->lanes ? a->v[k] : b->v[k - a->lanes];
        }
        return r;
    }
    if (!strncmp(op, "mask.", 5)) {
        uint64_t bits = 0;
        for (int i = 0; i < a->lanes; i++)
            bits |= (a->v[i] & 1) << i;
        if (!strcmp(op, "mask.bitmask"))
            return v_scalar(RK_E_U32, bits);
        if (!strcmp(op, "mask.popcount"))
            return v_scalar(RK_E_I64, (uint64_t)__builtin_popcountll(bits));
        return v_scalar(RK_E_BOOL, op[6] == 'l' ? bits == all_lanes(a->lanes) : bits != 0);
    }
    bool scan = !strncmp(op, "rack.scan_", 10);
    const char *step = scan ? op + 10 : op + 5;
    Val r = *a;
    uint64_t acc = a->v[0];
    for (int i = 1; i < a->lanes; i++) {
        acc = rk_lane_reduce_step(step, a->elem, acc, a->v[i]);
        r.v[i] = acc;
    }
    return scan ? r : v_scalar(a->elem, acc);
}

/* --- uniforms ------------------------------------------------------------------------ */

static Val uniform(Ev *e, RkInstr *in)
{
    const char *op = in->op + 2;
    Val *a = val(e, in->args[0]);
    RkElem t = in->type->elem;
    if (!strcmp(op, "cvt")) {
        RkElem f = a->elem;
        if (rk_elem_is_float(t) || rk_elem_is_float(f))
            rk_diag_internal("rake-interp: u.cvt between floats and integers");
        return v_scalar(t, rk_lane_norm(t, a->v[0]));
    }
    if (!strcmp(op, "neg"))
        return v_scalar(t, rk_lane_neg(t, a->v[0]));
    if (!strcmp(op, "not"))
        return v_scalar(t, !a->v[0]);
    Val *b = val(e, in->args[1]);
    if (!strcmp(op, "select"))
        return a->v[0] ? *b : *val(e, in->args[2]);
    if (!strncmp(op, "cmp.", 4))
        return v_scalar(RK_E_BOOL, rk_lane_compare(op + 4, a->elem, a->v[0], b->v[0]));
    if (!strcmp(op, "and"))
        return v_scalar(t, a->v[0] & b->v[0]);
    if (!strcmp(op, "or"))
        return v_scalar(t, a->v[0] | b->v[0]);
    return v_scalar(t, rk_lane_arith(op[0] == 'a' ? '+' : op[0] == 's' ? '-' : op[0] == 'm' ? '*' : '/',
                                     t, a->v[0], b->v[0]));
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

static Val memory(Ev *e, RkInstr *in)
{
    const char *op = in->op;
    Val *a = in->nargs ? val(e, in->args[0]) : NULL;
    if (!strcmp(op, "stack.count"))
        return v_scalar(RK_E_I64, (uint64_t)a->stack->count);
    if (!strcmp(op, "stack.column"))
        return ptr_val(a->stack->cols[in->imm].buf, a->stack->cols[in->imm].off);
    if (!strcmp(op, "stack.set_count")) {
        a->stack->count = (int64_t)val(e, in->args[1])->v[0];
        return v_unit();
    }
    if (!strcmp(op, "view.ptr"))
        return ptr_val(a->view.buf, a->view.off);
    if (!strcmp(op, "view.count"))
        return v_scalar(RK_E_I32, (uint64_t)a->view.count);
    if (!strcmp(op, "ptr.add"))
        return ptr_val(a->view.buf, a->view.off + (int64_t)val(e, in->args[1])->v[0]);
    if (!strcmp(op, "mask.lanes_below")) {
        Val m = rack_like(in->type);
        for (int l = 0; l < m.lanes; l++)
            m.v[l] = (int64_t)l < (int64_t)a->v[0];
        return m;
    }
    Buffer *buf = a->view.buf;
    int64_t base = a->view.off + in->imm;
    if (!strcmp(op, "elem.load"))
        return v_scalar(buf->elem, buf->data[base + (int64_t)val(e, in->args[1])->v[0]]);
    if (!strcmp(op, "rack.load") || !strcmp(op, "rack.load.masked")) {
        Val r = rack_like(in->type);
        uint64_t act = !strcmp(op, "rack.load") ? ~0ull : active_of(e, in, 1);
        for (int l = 0; l < r.lanes; l++)
            if ((act >> l) & 1)
                r.v[l] = rk_lane_norm(r.elem, buf->data[base + l]);
        return r;
    }
    if (!strcmp(op, "rack.gather")) {
        Val r = rack_like(in->type);
        Val *idx = val(e, in->args[1]);
        uint64_t act = active_of(e, in, 2);
        for (int l = 0; l < r.lanes; l++)
            if ((act >> l) & 1)
                r.v[l] = buf->data[base + (int64_t)idx->v[l]];
        return r;
    }
    if (!strcmp(op, "rack.store") || !strcmp(op, "rack.store.masked")) {
        bool masked = op[10] == '.';
        Val *v = val(e, in->args[masked ? 2 : 1]);
        uint64_t act = masked ? active_of(e, in, 1) : ~0ull;
        for (int l = 0; l < v->lanes; l++)
            if ((act >> l) & 1)
                buf->data[base + l] = rk_lane_norm(buf->elem, v->v[l]);
        return v_unit();
    }
    if (!strcmp(op, "rack.compress_store")) {
        Val *v = val(e, in->args[2]);
        uint64_t act = active_of(e, in, 1);
        int64_t k = 0;
        for (int l = 0; l < v->lanes; l++)
            if ((act >> l) & 1)
                buf->data[base + k++] = rk_lane_norm(buf->elem, v->v[l]);
        return v_unit();
    }
    rk_diag_internal("rake-interp: no native-IR operation %s", op);
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
    for (int i = 0; i < in->nargs; i++)
        f->slots[in->lanes[i]] = *val(e, in->args[i]);
    Val r = eval_slow_block(blk);
    pop_frame(f);
    return r;
}

/* --- execution ----------------------------------------------------------------------------- */

static Val exec(Ev *e, RkInstr *in)
{
    const char *op = in->op;
    if (!strcmp(op, "const"))
        return v_scalar(in->type->elem, in->bits);
    if (!strcmp(op, "rack.splat")) {
        Val r = rack_like(in->type);
        uint64_t x = in->nargs ? val(e, in->args[0])->v[0] : rk_lane_norm(r.elem, in->bits);
        for (int l = 0; l < r.lanes; l++)
            r.v[l] = x;
        return r;
    }
    if (!strcmp(op, "mask.const") || !strcmp(op, "mask.splat")) {
        Val r = rack_like(in->type);
        uint64_t x = in->nargs ? val(e, in->args[0])->v[0] & 1 : in->bits & 1;
        for (int l = 0; l < r.lanes; l++)
            r.v[l] = x;
        return r;
    }
    if (!strcmp(op, "copy"))
        return *val(e, in->args[0]);
    if (!strcmp(op, "mask.and") || !strcmp(op, "mask.or") || !strcmp(op, "mask.not")) {
        Val r = *val(e, in->args[0]);
        for (int l = 0; l < r.lanes; l++)
            r.v[l] = op[5] == 'n' ? !r.v[l]
                     : op[5] == 'a' ? r.v[l] & val(e, in->args[1])->v[l]
                                    : r.v[l] | val(e, in->args[1])->v[l];
        return r;
    }
    if (!strcmp(op, "mask.select")) {
        Val *m = val(e, in->args[0]), *a = val(e, in->args[1]), *b = val(e, in->args[2]);
        Val r = *a;
        for (int l = 0; l < r.lanes; l++)
            r.v[l] = m->v[l] ? a->v[l] : b->v[l];
        return r;
    }
    if (!strncmp(op, "u.", 2))
        return uniform(e, in);
    if (!strcmp(op, "rack.widen_low") || !strcmp(op, "rack.widen_high") ||
        !strcmp(op, "rack.narrow") || !strcmp(op, "rack.dot"))
        return packed(e, in);
    if (!strcmp(op, "rack.extract") || !strcmp(op, "rack.insert") || !strcmp(op, "rack.shuffle") ||
        !strcmp(op, "mask.all") || !strcmp(op, "mask.any") || !strcmp(op, "mask.bitmask") ||
        !strcmp(op, "mask.popcount") || !strcmp(op, "rack.sum") || !strcmp(op, "rack.product") ||
        !strcmp(op, "rack.minimum") || !strcmp(op, "rack.maximum") || !strncmp(op, "rack.scan_", 10))
        return cross(e, in);
    if (!strcmp(op, "slow.call"))
        return slow_call(e, in);
    if (!strncmp(op, "stack.", 6) || !strncmp(op, "view.", 5) || !strcmp(op, "ptr.add") ||
        !strcmp(op, "mask.lanes_below") || !strcmp(op, "elem.load") ||
        !strncmp(op, "rack.load", 9) || !strncmp(op, "rack.store", 10) ||
        !strcmp(op, "rack.compress_store") || !strcmp(op, "rack.gather"))
        return memory(e, in);
    return lanewise(e, in);
}

static void pass_args(Ev *e, RkBlock *to, RkEdge *edge)
{
    Val tmp[64];
    for (int i = 0; i < edge->nargs && i < 64; i++)
        tmp[i] = *val(e, edge->args[i]);
    for (int i = 0; i < edge->nargs && i < 64; i++)
        e->v[to->params[i]] = tmp[i];
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
            rk_diag_trap(t->loc, "%s", t->text ? t->text : "trap");
        RkEdge *edge = &t->to;
        if (t->kind == RK_TERM_CBR && !(e.v[t->value].v[0] & 1))
            edge = &t->alt;
        RkBlock *to = rk_nir_block_by_id(f, edge->block);
        pass_args(&e, to, edge);
        b = to;
    }
}

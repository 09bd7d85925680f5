/* rake-opt: rake.nir -> rake.nir
 *
 * Input:  a rake.nir document on stdin (verified first: an invalid one is
 *         refused with exit 2).
 * Output: the optimised rake.nir document (verified again), or with
 *         --text its text form, as `rakec --emit-native-ir` prints it.
 * Rewrites, in order, each to a fixed point (so running rake-opt twice
 * changes nothing):
 *   1. identifier substitution: uses of `copy %x` become %x, and equal
 *      constants in a block become one;
 *   2. multiply-add contraction, only on x86-avx2, x86-avx512 and
 *      aarch64-neon and only inside one fused region: an f32 `rack.add`
 *      whose left operand (else its right) is an f32 `rack.mul` of the
 *      same region becomes `rack.fma` of the multiply's operands and the
 *      add's other operand (10-gap-notes.md, section 2);
 *   3. common-subexpression elimination of pure instructions in a block;
 *   4. collapsing nested selections on the same mask;
 *   5. signed conversion of small unsigned lanes: `rack.to_f32` of a
 *      u32 rack loaded (zero-extended) from a u8 or u16 column reads it
 *      through `rack.bitcast` as i32, since every lane is below 2^16 and
 *      both conversions give the same floats; most profiles convert
 *      signed lanes in one instruction and unsigned ones in several;
 *   6. a compaction's stored rack that its own selection compares equal
 *      to a splat, on integer lanes (equality of bits), holds the splat
 *      in every lane the compaction keeps: the compress_store stores the
 *      splat (`compact s where k = <0>` writes the kept records' k as
 *      zeros, and no backend permutes them); also through mask.and (a
 *      tail's selection: the comparison and the tail's lanes);
 *   7. a comparison under a mask (a sweep's later tine) reads an operand
 *      raw, not its benign select, where the lanes outside the mask are
 *      proven to hold normal numbers or infinities (lib/nirproof.h: an
 *      earlier tine's `x >= <90.0>` took them), which no comparison
 *      raises on; the verifier accepts the operand by the same proof;
 *   8. dead-code removal of pure instructions nothing uses;
 *   9. folding, with 3 and 1: a uniform integer or Boolean operation
 *      (u.cvt, u.add, u.sub, u.mul, u.and, u.or, u.not, u.neg and the
 *      comparisons) on constants becomes a constant, computed by
 *      lib/lanewise as the evaluators compute it; u.and and u.or with a
 *      constant Boolean operand become the other operand or the constant;
 *      u.select on a constant is the arm it picks.  The bounds checks of
 *      a general run's constant indices (`out[<0>]`: 0 >= 0) go;
 *  10. known masks (masks.c), in the same fixed point: an integer
 *      comparison of a value with itself or of two splats is a constant
 *      mask, and what reads a constant mask folds;
 *  11. branch facts (facts.c), in the fixed point of 3, 4 and 9: a
 *      Boolean instruction that the branches dominating it decide becomes
 *      a constant, a cbr they decide (or on a constant) a br, and the
 *      blocks no longer reached go, and a u.and with a known-true operand
 *      (u.or: known false) becomes its other operand;
 *  12. dominator CSE (domcse.c), in that fixed point too: uniform integer
 *      arithmetic equal to an instruction of a dominating block in the
 *      same loops is replaced by it;
 *  13. sinking (sink.c), after that fixed point and dead-code removal
 *      (a dead reader would hold a value back): a uniform integer or
 *      Boolean instruction moves to the later block that dominates all
 *      its readers (past a loop it takes no part in, or into the arm of
 *      a branch that reads it), never into a deeper loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "lanewise.h"
#include "nir.h"
#include "nirops.h"
#include "nirproof.h"
#include "opt.h"
#include "profile.h"
#include "types.h"

void opt_each_use(RkFunc *f, void (*visit)(int *value, int block, void *ctx), void *ctx)
{
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            for (int k = 0; k < b->instrs[j]->nargs; k++)
                visit(&b->instrs[j]->args[k], i, ctx);
            if (b->instrs[j]->through >= 0)
                visit(&b->instrs[j]->through, i, ctx);
        }
        RkTerm *t = &b->term;
        if (t->kind == RK_TERM_RET || t->kind == RK_TERM_CBR)
            visit(&t->value, i, ctx);
        for (int k = 0; k < t->to.nargs; k++)
            visit(&t->to.args[k], i, ctx);
        for (int k = 0; k < t->alt.nargs; k++)
            visit(&t->alt.args[k], i, ctx);
    }
}

static void count_use(int *v, int block, void *ctx)
{
    Fn *x = ctx;
    (void)block;
    if (*v >= 0 && *v < x->f->nvalues)
        x->uses[*v]++;
}

static void index_defs(Fn *x)
{
    RkFunc *f = x->f;
    x->def = calloc((size_t)f->nvalues + 1, sizeof *x->def);
    x->uses = calloc((size_t)f->nvalues + 1, sizeof *x->uses);
    x->type = calloc((size_t)f->nvalues + 1, sizeof *x->type);
    x->repl = malloc(sizeof *x->repl * ((size_t)f->nvalues + 1));
    if (!x->def || !x->uses || !x->type || !x->repl)
        rk_diag_internal("out of memory indexing a function");
    for (int v = 0; v < f->nvalues; v++)
        x->repl[v] = -1;
    x->pending = false;
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i] >= 0 && f->params[i] < f->nvalues)
            x->type[f->params[i]] = f->ptypes[i];
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        for (int k = 0; k < b->nparams; k++)
            if (b->params[k] >= 0 && b->params[k] < f->nvalues)
                x->type[b->params[k]] = b->ptypes[k];
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *in = b->instrs[j];
            if (in->id >= 0 && in->id < f->nvalues) {
                x->def[in->id] = in;
                x->type[in->id] = in->type;
            }
        }
    }
    opt_each_use(f, count_use, x);
}

static int resolve(const Fn *x, int v)
{
    while (v >= 0 && v < x->f->nvalues && x->repl[v] >= 0)
        v = x->repl[v];
    return v;
}

static void rename_value(const Fn *x, int *v) { *v = resolve(x, *v); }

void opt_rename_operands(Fn *x, RkInstr *in)
{
    if (!x->pending)
        return;
    for (int k = 0; k < in->nargs; k++)
        rename_value(x, &in->args[k]);
    rename_value(x, &in->through);
}

static void rename_use(int *v, int block, void *ctx)
{
    (void)block;
    rename_value(ctx, v);
}

/* The recorded replacements, everywhere, in one pass. */
static void apply_replacements(Fn *x)
{
    if (x->pending)
        opt_each_use(x->f, rename_use, x);
    x->pending = false;
}

static void reindex(Fn *x)
{
    apply_replacements(x);
    free(x->def);
    free(x->uses);
    free(x->type);
    free(x->repl);
    index_defs(x);
}

void opt_replace_uses(Fn *x, int from, int to)
{
    if (from < 0 || from >= x->f->nvalues || resolve(x, to) == from)
        return;
    x->repl[from] = resolve(x, to);
    x->pending = true;
}

void opt_seen_init(OptSeen *s, size_t entries)
{
    s->cap = 16;
    while (s->cap < 2 * entries + 2)
        s->cap *= 2;
    s->slot = calloc(s->cap, sizeof *s->slot);
    if (!s->slot)
        rk_diag_internal("out of memory for a table of %zu instructions", entries);
}

void opt_seen_free(OptSeen *s)
{
    free(s->slot);
    *s = (OptSeen){0};
}

size_t opt_instr_hash(const RkInstr *in, const int *args)
{
    size_t h = (size_t)in->opc * 1000003u ^ (size_t)in->nargs;
    for (int k = 0; k < in->nargs; k++)
        h = (h ^ (size_t)(unsigned)args[k]) * 0x100000001b3u;
    return h ^ (size_t)in->bits ^ (size_t)in->imm;
}

RkInstr *opt_seen_find(const OptSeen *s, size_t h, bool (*ok)(const struct OptSeenSlot *, void *),
                       void *ctx)
{
    for (size_t i = h & (s->cap - 1); s->slot[i].in; i = (i + 1) & (s->cap - 1))
        if (ok(&s->slot[i], ctx))
            return s->slot[i].in;
    return NULL;
}

void opt_seen_add(OptSeen *s, size_t h, RkInstr *in, int block)
{
    size_t i = h & (s->cap - 1);
    while (s->slot[i].in)
        i = (i + 1) & (s->cap - 1);
    s->slot[i] = (struct OptSeenSlot){in, block};
}

static bool same_constant(const struct OptSeenSlot *e, void *ctx)
{
    return rk_nir_same_constant(e->in, ctx);
}

/* 1. copies and duplicate constants */
static bool substitute(Fn *x)
{
    RkFunc *f = x->f;
    bool changed = false;
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        OptSeen seen;
        opt_seen_init(&seen, (size_t)b->ninstrs);
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *in = b->instrs[j];
            opt_rename_operands(x, in);
            if (in->opc == RK_OP_COPY && in->nargs == 1 && in->id >= 0 &&
                x->uses[in->id]) {
                /* reindexed by the caller, so each copy changes things once */
                opt_replace_uses(x, in->id, in->args[0]);
                x->uses[in->id] = 0;
                changed = true;
            }
            if (!rk_nir_is_constant(in))
                continue;
            size_t h = opt_instr_hash(in, in->args);
            RkInstr *o = opt_seen_find(&seen, h, same_constant, in);
            if (o && x->uses[in->id]) {
                opt_replace_uses(x, in->id, o->id);
                changed = true;
            }
            if (!o)
                opt_seen_add(&seen, h, in, i);
        }
        opt_seen_free(&seen);
    }
    return changed;
}

/* 2. contraction */
static RkInstr *insert_before(RkBlock *b, RkInstr *at, RkFunc *f, RkOp op,
                             const RkType *t, const int *args, int nargs)
{
    RkInstr *in = rk_nir_emit(f, b, op, t, args, nargs, at->loc);
    b->ninstrs--; /* rk_nir_emit appended it; move it before `at` */
    int pos = 0;
    while (b->instrs[pos] != at)
        pos++;
    memmove(&b->instrs[pos + 1], &b->instrs[pos], sizeof(RkInstr *) * (size_t)(b->ninstrs - pos));
    b->instrs[pos] = in;
    b->ninstrs++;
    in->fused = at->fused;
    in->through = at->through;
    return in;
}

static int benign_zero(Fn *x, RkBlock *b, RkInstr *at, int operand)
{
    RkInstr *d = operand >= 0 ? x->def[operand] : NULL;
    if (d && d->benign && d->opc == RK_OP_MASK_SELECT)
        operand = d->args[1];
    RkInstr *z = insert_before(b, at, x->f, RK_OP_RACK_SPLAT, rk_ty_rack(RK_E_F32), NULL, 0);
    z->bits = 0;
    z->fused = -1;
    z->through = -1;
    RkInstr *s = insert_before(b, at, x->f, RK_OP_MASK_SELECT, rk_ty_rack(RK_E_F32),
                               (int[]){at->through, operand, z->id}, 3);
    s->benign = true;
    return s->id;
}

static RkInstr *mul_of(Fn *x, int id, int region)
{
    RkInstr *m = id >= 0 ? x->def[id] : NULL;
    /* under a mask, the add reads the product through its benign select */
    if (m && m->benign && m->opc == RK_OP_MASK_SELECT && m->nargs == 3)
        m = m->args[1] >= 0 ? x->def[m->args[1]] : NULL;
    if (!m || m->opc != RK_OP_RACK_MUL || m->fused != region || m->fused < 0)
        return NULL;
    if (!m->type || m->type->kind != RK_T_RACK || m->type->elem != RK_E_F32)
        return NULL;
    return m;
}

static bool contract(Fn *x)
{
    RkFunc *f = x->f;
    bool changed = false;
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *add = b->instrs[j];
            if (add->opc != RK_OP_RACK_ADD || add->fused < 0 || !add->type ||
                add->type->elem != RK_E_F32 || add->nargs != 2)
                continue;
            int other;
            RkInstr *m = mul_of(x, add->args[0], add->fused);
            if (m) {
                other = add->args[1];
            } else if ((m = mul_of(x, add->args[1], add->fused))) {
                other = add->args[0];
            } else {
                continue;
            }
            int ops[3] = {m->args[0], m->args[1], other};
            if (add->sanitized)
                for (int k = 0; k < 3; k++)
                    ops[k] = benign_zero(x, b, add, ops[k]);
            rk_nir_set_op(add, RK_OP_RACK_FMA);
            add->args = rk_arena_alloc(&rk_heap, sizeof(int) * 3);
            memcpy(add->args, ops, sizeof ops);
            add->nargs = 3;
            changed = true;
            reindex(x);
            j = -1; /* positions moved; rescan this block */
        }
    }
    return changed;
}

static bool integral(const RkType *t)
{
    return t && t->kind != RK_T_RACK && t->kind != RK_T_MASK &&
           (t->kind == RK_T_PTR || rk_elem_is_int(t->elem) || t->elem == RK_E_BOOL);
}

bool opt_uniform_arith(const Fn *x, const RkInstr *in)
{
    static const RkOp ops[] = {RK_OP_U_ADD, RK_OP_U_SUB, RK_OP_U_MUL, RK_OP_U_AND, RK_OP_U_OR,
                               RK_OP_U_NEG, RK_OP_U_NOT, RK_OP_U_SELECT, RK_OP_U_CVT};
    bool ok = rk_nir_op_info(in->opc) && rk_nir_op_info(in->opc)->shape == SH_UCMP;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        ok |= in->opc == ops[i];
    if (!ok || in->id < 0 || !x->uses[in->id] || in->fused >= 0 || in->through >= 0 ||
        !integral(in->type))
        return false;
    for (int a = 0; a < in->nargs; a++)
        if (in->args[a] < 0 || in->args[a] >= x->f->nvalues || !integral(x->type[in->args[a]]))
            return false; /* a float operand (u.cvt of an f32, a float comparison) */
    return true;
}

/* 3. common subexpressions: a pure instruction equal to an earlier one in
 * its block (same operation, type, operands and attributes, and the same
 * through mask) is replaced by it, whatever fused region each is in (a
 * region only chose which adds contract, before this).  Rake kernels
 * compute a tine's mask once in its through block and again in the
 * sweep, and a scratch inlined twice in one expression computes
 * everything twice, in two regions.  A benign select stays with its own
 * region's reader: the sanitizing of one operation's operand, which a
 * backend that masks that operation reads past (AVX-512 maskfuse, when
 * the select has that one reader). */
static bool equal_instr(const struct OptSeenSlot *e, void *ctx)
{
    return rk_nir_instr_merges(e->in, ctx);
}

static bool cse(Fn *x)
{
    RkFunc *f = x->f;
    bool changed = false;
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        OptSeen seen;
        opt_seen_init(&seen, (size_t)b->ninstrs);
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *in = b->instrs[j];
            opt_rename_operands(x, in);
            const RkOpInfo *op = rk_nir_op_info(in->opc);
            if (in->id < 0 || !op || !(op->flags & RK_OPF_PURE))
                continue;
            size_t h = opt_instr_hash(in, in->args);
            RkInstr *o = x->uses[in->id] ? opt_seen_find(&seen, h, equal_instr, in) : NULL;
            if (o) {
                opt_replace_uses(x, in->id, o->id);
                x->uses[in->id] = 0;
                changed = true;
            } else {
                opt_seen_add(&seen, h, in, i);
            }
        }
        opt_seen_free(&seen);
    }
    return changed;
}

/* 4. select(m, select(m, a, b), c) = select(m, a, c), and the mirror */
static bool collapse(Fn *x)
{
    RkFunc *f = x->f;
    bool changed = false;
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *s = b->instrs[j];
            if (s->opc != RK_OP_MASK_SELECT || s->nargs != 3 || s->benign)
                continue;
            for (int side = 1; side <= 2; side++) {
                RkInstr *in = s->args[side] >= 0 ? x->def[s->args[side]] : NULL;
                if (in && in->opc == RK_OP_MASK_SELECT && in->nargs == 3 &&
                    in->args[0] == s->args[0] && !in->benign) {
                    s->args[side] = in->args[side];
                    changed = true;
                }
            }
        }
    }
    return changed;
}

/* 8. dead code */
static bool removable(const RkInstr *in)
{
    const RkOpInfo *op = rk_nir_op_info(in->opc);
    return in->id >= 0 && op && !(op->flags & RK_OPF_EFFECT);
}

static bool dce(Fn *x)
{
    RkFunc *f = x->f;
    bool changed = false;
    for (int i = 0; i < f->nblocks; i++) {
        RkBlock *b = f->blocks[i];
        int k = 0;
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *in = b->instrs[j];
            if (removable(in) && x->uses[in->id] == 0) {
                changed = true;
                continue;
            }
            b->instrs[k++] = in;
        }
        b->ninstrs = k;
    }
    return changed;
}

/* Whether value id is a u32 rack zero-extended from u8 or u16 lanes. */
/* (n: the value count x->def was indexed with; new values are past it) */
static bool small_unsigned(Fn *x, int id, int n)
{
    RkInstr *d = id >= 0 && id < n ? x->def[id] : NULL;
    if (!d || (d->opc != RK_OP_RACK_LOAD && d->opc != RK_OP_RACK_LOAD_MASKED) ||
        d->type->kind != RK_T_RACK || d->type->elem != RK_E_U32)
        return false;
    RkInstr *p = d->args[0] >= 0 && d->args[0] < n ? x->def[d->args[0]] : NULL;
    const RkType *pt = p ? p->type : NULL;
    for (int i = 0; !pt && i < x->f->nparams; i++)
        if (x->f->params[i] == d->args[0])
            pt = x->f->ptypes[i];
    return pt && pt->kind == RK_T_PTR && (pt->elem == RK_E_U8 || pt->elem == RK_E_U16);
}

static bool signed_convert(Fn *x)
{
    bool changed = false;
    int n = x->f->nvalues;
    for (int i = 0; i < x->f->nblocks; i++) {
        RkBlock *b = x->f->blocks[i];
        for (int j = 0; j < b->ninstrs; j++) {
            RkInstr *in = b->instrs[j];
            if (in->opc != RK_OP_RACK_TO_F32 || !small_unsigned(x, in->args[0], n))
                continue;
            /* a bitcast is no fusable operation: it goes before the
             * conversion's fused region (whose instructions are
             * contiguous), not into it; the load it reads is before too */
            RkInstr *at = in;
            for (int k = j - 1; in->fused >= 0 && k >= 0; k--) {
                const RkInstr *p = b->instrs[k];
                if (p->fused == in->fused)
                    at = b->instrs[k];
                else if (!(p->fused < 0 && rk_nir_is_constant(p)))
                    break; /* constants may sit inside a region */
            }
            RkInstr *c = insert_before(b, at, x->f, RK_OP_RACK_BITCAST, rk_ty_rack(RK_E_I32),
                                       &in->args[0], 1);
            c->fused = -1;
            j++; /* in moved one down */
            in->args[0] = c->id;
            changed = true;
        }
    }
    return changed;
}

/* 6. the splat a compaction's selection compares its stored rack with */

/* The splat that every true lane of mask m compares rack v equal to: m is
 * rack.cmp.eq of v and a splat, or a mask.and one of whose sides is (a
 * tail's selection is the comparison and the tail's lanes); -1 if none. */
static int equal_splat(Fn *x, int m, const RkInstr *v, int depth)
{
    RkInstr *d = m >= 0 ? x->def[m] : NULL;
    if (!d || d->nargs != 2 || depth > 8)
        return -1;
    for (int side = 0; side < 2; side++) {
        int s = -1;
        if (d->opc == RK_OP_MASK_AND) {
            s = equal_splat(x, d->args[side], v, depth + 1);
        } else if (d->opc == RK_OP_RACK_CMP_EQ && d->args[side] == v->id) {
            RkInstr *o = d->args[1 - side] >= 0 ? x->def[d->args[1 - side]] : NULL;
            if (o && o->opc == RK_OP_RACK_SPLAT && rk_ty_equal(o->type, v->type))
                s = o->id;
        }
        if (s >= 0)
            return s;
    }
    return -1;
}

static bool kept_splat(Fn *x, RkInstr *in)
{
    if (in->opc != RK_OP_RACK_COMPRESS_STORE || in->nargs < 3)
        return false;
    RkInstr *v = in->args[2] >= 0 ? x->def[in->args[2]] : NULL;
    if (!v || !v->type || v->type->kind != RK_T_RACK || v->type->elem == RK_E_F32)
        return false;
    int s = equal_splat(x, in->args[1], v, 0);
    if (s < 0)
        return false;
    in->args[2] = s;
    return true;
}

/* 7. A comparison under a mask reads its operand raw where the lanes
 * outside the mask are proven to hold a normal number or an infinity
 * (lib/nirproof.h: a sweep's later tine, after `x >= <90.0>` took them):
 * a comparison of those raises nothing, so the benign replacement there
 * changes nothing.  The verifier accepts the operand by the same proof. */
static RkInstr *def_of(const void *ctx, int id)
{
    const Fn *x = ctx;
    return id >= 0 && id < x->f->nvalues ? x->def[id] : NULL;
}

static bool proven_operands(Fn *x, RkInstr *in)
{
    bool changed = false;
    if (!in->sanitized || in->through < 0 || !rk_nir_op_quiet_on_normal(in->opc))
        return false;
    for (int k = 0; k < in->nargs; k++) {
        RkInstr *d = def_of(x, in->args[k]);
        if (d && d->opc == RK_OP_MASK_SELECT && d->benign && d->nargs == 3 &&
            d->args[0] == in->through && d->type && d->type->elem == RK_E_F32 &&
            rk_nir_normal_outside(def_of, x, in->through, d->args[1])) {
            in->args[k] = d->args[1];
            changed = true;
        }
    }
    return changed;
}

/* 9. folding */
RkInstr *opt_const_def(Fn *x, int id)
{
    RkInstr *d = id >= 0 && id < x->f->nvalues ? x->def[id] : NULL;
    return d && d->opc == RK_OP_CONST && d->nargs == 0 && d->type && d->type->kind == RK_T_SCALAR
               ? d : NULL;
}

static bool foldable_type(const RkType *t)
{
    return t && t->kind == RK_T_SCALAR && (rk_elem_is_int(t->elem) || t->elem == RK_E_BOOL);
}

/* The value of a uniform operation on constant operands, in canonical
 * form (lib/lanewise.h); false if it isn't one this pass computes. */
static bool evaluate(Fn *x, RkInstr *in, uint64_t *r)
{
    RkInstr *a = in->nargs > 0 ? opt_const_def(x, in->args[0]) : NULL;
    RkInstr *b = in->nargs > 1 ? opt_const_def(x, in->args[1]) : NULL;
    if (!a || (in->nargs > 1 && !b) || !foldable_type(a->type) || !foldable_type(in->type))
        return false;
    RkElem t = in->type->elem, ea = a->type->elem;
    uint64_t va = rk_lane_norm(ea, a->bits), vb = b ? rk_lane_norm(b->type->elem, b->bits) : 0;
    const RkOpInfo *info = rk_nir_op_info(in->opc);
    if (info->shape == SH_UCMP) { /* u.cmp.eq ... u.cmp.ge: lanewise's "eq" ... "ge" */
        *r = rk_lane_compare(strrchr(info->name, '.') + 1, ea, va, vb);
        return true;
    }
    switch (in->opc) {
    case RK_OP_U_CVT: *r = rk_lane_norm(t, va); return true;
    case RK_OP_U_NOT: *r = !va; return t == RK_E_BOOL;
    case RK_OP_U_NEG: *r = rk_lane_neg(t, va); return true;
    case RK_OP_U_ADD: *r = rk_lane_arith('+', t, va, vb); return true;
    case RK_OP_U_SUB: *r = rk_lane_arith('-', t, va, vb); return true;
    case RK_OP_U_MUL: *r = rk_lane_arith('*', t, va, vb); return true;
    case RK_OP_U_AND: *r = rk_lane_norm(t, va & vb); return true;
    case RK_OP_U_OR: *r = rk_lane_norm(t, va | vb); return true;
    default: return false;
    }
}

void opt_make_constant(RkInstr *in, uint64_t canonical)
{
    int bits = rk_elem_bits(in->type->elem);
    in->opc = RK_OP_CONST;
    in->op = rk_nir_op_info(RK_OP_CONST)->name;
    in->nargs = 0;
    in->bits = bits >= 64 ? canonical : canonical & ((1ull << bits) - 1);
    in->through = -1;
    in->fused = -1;
}

/* u.and / u.or with one constant Boolean operand, u.select on a
 * constant: the value it reduces to (-1: none) */
static int reduces_to(Fn *x, RkInstr *in, bool *constant, uint64_t *r)
{
    *constant = false;
    if (in->opc == RK_OP_U_SELECT) {
        RkInstr *c = opt_const_def(x, in->args[0]);
        return c ? in->args[(c->bits & 1) ? 1 : 2] : -1;
    }
    if ((in->opc != RK_OP_U_AND && in->opc != RK_OP_U_OR) || in->type->elem != RK_E_BOOL)
        return -1;
    for (int k = 0; k < 2; k++) {
        RkInstr *c = opt_const_def(x, in->args[k]);
        if (!c)
            continue;
        bool one = c->bits & 1;
        if (one == (in->opc == RK_OP_U_AND))
            return in->args[1 - k]; /* true and y, false or y: y */
        *constant = true;
        *r = one;
        return -1;
    }
    return -1;
}

static bool fold(Fn *x, RkInstr *in)
{
    uint64_t r;
    bool constant;
    if (in->id < 0 || !x->uses[in->id] || !in->type || in->type->kind != RK_T_SCALAR)
        return false;
    if (evaluate(x, in, &r)) {
        opt_make_constant(in, r);
        return true;
    }
    int to = reduces_to(x, in, &constant, &r);
    if (to >= 0) {
        opt_replace_uses(x, in->id, to);
        x->uses[in->id] = 0;
        return true;
    }
    if (constant)
        opt_make_constant(in, r);
    return constant;
}

/* A rewrite of one instruction in place (kept_splat, proven_operands,
 * fold), applied to every instruction in order: whether any changed. */
static bool each_instr(Fn *x, bool (*one)(Fn *, RkInstr *))
{
    bool changed = false;
    for (int i = 0; i < x->f->nblocks; i++)
        for (int j = 0; j < x->f->blocks[i]->ninstrs; j++)
            changed |= one(x, x->f->blocks[i]->instrs[j]);
    return changed;
}

static void optimise(RkFunc *f, const RkProfile *p)
{
    Fn x = {f, NULL, NULL, NULL, NULL, false};
    index_defs(&x);
    while (substitute(&x))
        reindex(&x);
    if (p->contracts && contract(&x)) {
        /* contraction under a mask adds zero constants: merge them */
        reindex(&x);
        while (substitute(&x))
            reindex(&x);
    }
    /* collapsing can make selections equal, and merging them can make
     * more collapse: iterate both to one fixed point */
    bool changed = true;
    while (changed) {
        changed = false;
        reindex(&x);
        while (cse(&x) || substitute(&x) || each_instr(&x, fold) || opt_known_masks(&x)) {
            reindex(&x);
            changed = true;
        }
        while (collapse(&x)) {
            reindex(&x);
            changed = true;
        }
        if (opt_branch_facts(&x)) {
            reindex(&x);
            changed = true;
        }
        if (opt_dom_cse(&x)) {
            reindex(&x);
            changed = true;
        }
    }
    /* sinking follows readers, so the dead ones go first (a dead reader
     * in the entry kept a value there, and a second rake-opt moved it) */
    while (dce(&x))
        reindex(&x);
    while (opt_sink(&x))
        reindex(&x);
    if (signed_convert(&x))
        reindex(&x);
    if (each_instr(&x, kept_splat))
        reindex(&x);
    while (each_instr(&x, proven_operands))
        reindex(&x);
    while (dce(&x))
        reindex(&x);
    apply_replacements(&x);
    free(x.def);
    free(x.uses);
    free(x.type);
    free(x.repl);
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-opt");
    bool text = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--text"))
            text = true;
        else
            rk_diag_input("unknown option '%s' (usage: rake-opt [--text] < rake.nir)", argv[i]);
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.nir", 1);
    RkNirModule *m = rk_nir_decode(doc.root);
    const RkProfile *p = rk_profile_find(m->target);
    if (!p)
        rk_ir_fail_at("/target", "the document's target '%s' is not a profile", m->target);
    rk_nir_verify_input(m, p->fp_exceptions, p->lanes);
    for (int i = 0; i < m->nfuncs; i++)
        optimise(m->funcs[i], p);
    if (rk_nir_verify(m, p->fp_exceptions, p->lanes))
        rk_diag_internal("the optimised IR fails verification (see above)");
    if (text)
        rk_nir_print(m, stdout);
    else
        rk_ir_write(rk_nir_encode(m), stdout);
    return 0;
}

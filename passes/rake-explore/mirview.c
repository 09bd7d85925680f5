/* mirview.c: a rake.mir document as a listing, with the registers live
 * at each instruction.
 *
 * The rows follow the listing of `rakec --emit-mir` (lib/mir.c): the
 * function's signature, the callee-saved registers it saves, each block
 * with its parameters, its instructions (mnemonic and operands in Intel
 * order: =v3 written, +v3 read and written) and its terminator, then the
 * constant pool.  An instruction row keeps its `origin` (the native-IR
 * operation it was selected for), that operation's value id and its
 * source location, which is how the page ties it to the source and to
 * the native IR.  A row that serves its location's operation rather than
 * computing it is marked `aux` (ex_aux) and highlighted more faintly.
 *
 * Liveness is the usual backward data flow over the blocks: an operand
 * marked written defines its register, one marked read uses it (a memory
 * operand's base and index, a write mask, and the destination of a
 * merging write mask are read); block parameters are defined on entry,
 * jump arguments and a branch's register are read by the terminator, and
 * a return reads the function's result register.  Before rake-ra the
 * registers are mostly virtual, after it physical; both count, and a
 * reserved register (the stack pointer) never does.  An instruction's
 * count, per register class, is what it needs at once: the larger of the
 * registers live entering it and those live leaving it together with
 * any it writes.  The limit the page draws is rk_target_allocatable(),
 * the registers the allocator may hand out, from the target table. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "explore.h"

typedef struct Live {
    const RkNirModule *opt; /* what the machine IR was selected from, or NULL */
    const RkMFunc *f;
    const RkTarget *t;
    int keys, words;       /* registers: virtual ones, then class * 64 + number */
    uint64_t **in, **out;  /* per block */
} Live;

/* --- register sets ------------------------------------------------------------ */

static int key_of(const Live *l, RkMReg r)
{
    if (r.num < 0)
        return -1;
    if (r.virt)
        return r.num < l->f->nvregs ? r.num : -1;
    if (l->t->regs[r.cls].reserved >> r.num & 1u)
        return -1;
    return l->f->nvregs + r.cls * RK_REG_MAX + r.num;
}

static int class_of(const Live *l, int k)
{
    return k < l->f->nvregs ? l->f->vclass[k] : (k - l->f->nvregs) / RK_REG_MAX;
}

static uint64_t *set_new(const Live *l)
{
    return rk_arena_alloc(&rk_heap, sizeof(uint64_t) * (size_t)l->words);
}

static void set_add(uint64_t *s, int k)
{
    if (k >= 0)
        s[k / 64] |= 1ull << (k % 64);
}

static void set_copy(const Live *l, uint64_t *d, const uint64_t *s)
{
    memcpy(d, s, sizeof(uint64_t) * (size_t)l->words);
}

/* d = (d - def) | use */
static void set_step(const Live *l, uint64_t *d, const uint64_t *def, const uint64_t *use)
{
    for (int w = 0; w < l->words; w++)
        d[w] = (d[w] & ~def[w]) | use[w];
}

static void counts(const Live *l, const uint64_t *s, int c[RK_RC_COUNT])
{
    for (int k = 0; k < l->keys; k++)
        if (s[k / 64] >> (k % 64) & 1u)
            c[class_of(l, k)]++;
}

/* --- what an instruction and a terminator read and write -------------------- */

static void operand_regs(const Live *l, const RkMOp *o, uint64_t *def, uint64_t *use)
{
    if (o->kind == RK_MO_REG) {
        if (o->def)
            set_add(def, key_of(l, o->reg));
        if (o->use || (o->def && o->mask.num >= 0 && !o->zero))
            set_add(use, key_of(l, o->reg));
    } else if (o->kind == RK_MO_MEM) {
        set_add(use, key_of(l, o->reg));
        set_add(use, key_of(l, o->index));
    }
    if (o->kind == RK_MO_REG || o->kind == RK_MO_MEM)
        set_add(use, key_of(l, o->mask));
}

static void instr_regs(const Live *l, const RkMInstr *in, uint64_t *def, uint64_t *use)
{
    memset(def, 0, sizeof(uint64_t) * (size_t)l->words);
    memset(use, 0, sizeof(uint64_t) * (size_t)l->words);
    for (int k = 0; k < in->nops; k++)
        operand_regs(l, &in->ops[k], def, use);
}

static void term_uses(const Live *l, const RkMTerm *t, uint64_t *use)
{
    memset(use, 0, sizeof(uint64_t) * (size_t)l->words);
    if (t->kind == RK_MT_RET)
        set_add(use, key_of(l, l->f->result));
    if (t->kind == RK_MT_BRANCH && t->on_reg)
        set_add(use, key_of(l, t->reg.reg));
    for (int k = 0; t->kind == RK_MT_JUMP && k < t->nargs; k++)
        set_add(use, key_of(l, t->args[k]));
}

/* --- the data flow ------------------------------------------------------------ */

/* live-in of block b from its live-out */
static void block_in(const Live *l, int b, uint64_t *s)
{
    const RkMBlock *blk = l->f->blocks[b];
    uint64_t *def = set_new(l), *use = set_new(l);
    set_copy(l, s, l->out[b]);
    term_uses(l, &blk->term, use);
    memset(def, 0, sizeof(uint64_t) * (size_t)l->words);
    set_step(l, s, def, use);
    for (int i = blk->ninstrs - 1; i >= 0; i--) {
        instr_regs(l, &blk->instrs[i], def, use);
        set_step(l, s, def, use);
    }
    memset(use, 0, sizeof(uint64_t) * (size_t)l->words);
    for (int p = 0; p < blk->nparams; p++)
        set_add(def, key_of(l, blk->params[p]));
    set_step(l, s, def, use);
}

static bool merge(const Live *l, uint64_t *d, const uint64_t *s)
{
    bool changed = false;
    for (int w = 0; w < l->words; w++) {
        changed |= (d[w] | s[w]) != d[w];
        d[w] |= s[w];
    }
    return changed;
}

static void solve(Live *l)
{
    int nb = l->f->nblocks;
    l->in = rk_arena_alloc(&rk_heap, sizeof(uint64_t *) * (size_t)nb);
    l->out = rk_arena_alloc(&rk_heap, sizeof(uint64_t *) * (size_t)nb);
    for (int b = 0; b < nb; b++)
        l->in[b] = set_new(l), l->out[b] = set_new(l);
    for (bool changed = true; changed;) {
        changed = false;
        for (int b = nb - 1; b >= 0; b--) {
            const RkMTerm *t = &l->f->blocks[b]->term;
            for (int k = 0; k < rk_mir_nsuccs(t); k++)
                changed |= merge(l, l->out[b], l->in[rk_mir_succ(t, k)]);
            block_in(l, b, l->in[b]);
        }
    }
}

/* --- rows ---------------------------------------------------------------------- */

static json_t *live_json(const Live *l, const uint64_t *before, const uint64_t *after,
                         const uint64_t *def)
{
    int a[RK_RC_COUNT] = {0}, b[RK_RC_COUNT] = {0};
    uint64_t *ad = set_new(l);
    set_copy(l, ad, after);
    if (def)
        merge(l, ad, def);
    counts(l, before, a);
    counts(l, ad, b);
    json_t *j = json_array();
    for (int c = 0; c < RK_RC_COUNT; c++)
        json_array_append_new(j, json_integer(a[c] > b[c] ? a[c] : b[c]));
    return j;
}

static json_t *row(const char *what, const char *text, RkLoc loc)
{
    json_t *r = json_object();
    json_object_set_new(r, "k", json_string(what));
    json_object_set_new(r, "t", ex_str(text));
    if (ex_loc_str(loc))
        json_object_set_new(r, "loc", json_string(ex_loc_str(loc)));
    return r;
}

static const char *reg_text(const RkMModule *m, RkMReg r, int bits)
{
    RkMOp o = rk_mo_reg(r, bits, false, false);
    return rk_mir_operand_str(m, &o);
}

static const char *regs_text(const RkMModule *m, const RkMReg *r, int n)
{
    const char *s = "";
    for (int k = 0; k < n; k++)
        s = rk_arena_printf(&rk_heap, "%s%s%s", s, k ? ", " : "", reg_text(m, r[k], 0));
    return s;
}

static const char *instr_text(const RkMModule *m, const RkMInstr *in)
{
    const char *s = in->op;
    for (int k = 0; k < in->nops; k++)
        s = rk_arena_printf(&rk_heap, "%s%s%s", s, k ? ", " : " ", rk_mir_operand_str(m, &in->ops[k]));
    return s;
}

static const char *term_text(const RkMModule *m, const RkMFunc *f, const RkMTerm *t)
{
    switch (t->kind) {
    case RK_MT_RET:
        return "ret";
    case RK_MT_TRAP:
        return "trap";
    case RK_MT_JUMP:
        return rk_arena_printf(&rk_heap, "jump B%d (%s)%s%s", t->then, f->blocks[t->then]->label,
                               t->nargs ? " with " : "", regs_text(m, t->args, t->nargs));
    case RK_MT_BRANCH:
        return rk_arena_printf(&rk_heap, "branch %s%s%s, B%d (%s), B%d (%s)", t->cond,
                               t->on_reg ? " " : "", t->on_reg ? rk_mir_operand_str(m, &t->reg) : "",
                               t->then, f->blocks[t->then]->label, t->els, f->blocks[t->els]->label);
    }
    return "?";
}

static const char *signature(const RkMModule *m, const RkMFunc *f)
{
    const char *s = rk_arena_printf(&rk_heap, "%s %s(", f->kind, f->name);
    for (int k = 0; k < f->nargs; k++)
        s = rk_arena_printf(&rk_heap, "%s%s%s %s in %s%s", s, k ? ", " : "", f->args[k].type,
                            f->args[k].name,
                            f->args[k].reg.num >= 0 ? reg_text(m, f->args[k].reg, f->args[k].bits)
                                                    : "a register",
                            f->args[k].stack >= 0
                                ? rk_arena_printf(&rk_heap, " from stack slot %d", f->args[k].stack)
                                : "");
    s = rk_arena_printf(&rk_heap, "%s) -> %s", s, f->result_type);
    if (f->result.num >= 0)
        s = rk_arena_printf(&rk_heap, "%s in %s", s, reg_text(m, f->result, f->result_bits));
    return rk_arena_printf(&rk_heap, "%s:", s);
}

static void instr_row(const Live *l, const RkMModule *m, json_t *rows, const RkMInstr *in,
                      uint64_t *live)
{
    uint64_t *def = set_new(l), *use = set_new(l), *after = set_new(l);
    instr_regs(l, in, def, use);
    set_copy(l, after, live);
    set_step(l, live, def, use);
    const char *text = instr_text(m, in);
    if (in->again) /* as rake-ra --text marks it */
        text = rk_arena_printf(&rk_heap, "%s    (again)", text);
    json_t *r = row("instr", text, in->loc);
    json_object_set_new(r, "origin", json_string(in->origin));
    if (in->nir >= 0)
        json_object_set_new(r, "nir", json_integer(in->nir));
    if (ex_aux(m, l->opt, l->f->name, in))
        json_object_set_new(r, "aux", json_true());
    if (in->again)
        json_object_set_new(r, "again", json_true());
    json_object_set_new(r, "live", live_json(l, live, after, def));
    json_array_append_new(rows, r);
}

/* A block's rows: computed backwards from its live-out, then put in order. */
static void block_rows(const Live *l, const RkMModule *m, int b, json_t *rows)
{
    const RkMBlock *blk = l->f->blocks[b];
    json_t *mine = json_array();
    uint64_t *live = set_new(l), *use = set_new(l), *after = set_new(l);
    set_copy(l, live, l->out[b]);
    set_copy(l, after, live);
    term_uses(l, &blk->term, use);
    merge(l, live, use);
    json_t *t = row("term", term_text(m, l->f, &blk->term), blk->term.loc);
    json_object_set_new(t, "origin", json_string(blk->term.origin ? blk->term.origin : "branch"));
    json_object_set_new(t, "live", live_json(l, live, after, NULL));
    json_array_append_new(mine, t);
    for (int i = blk->ninstrs - 1; i >= 0; i--)
        instr_row(l, m, mine, &blk->instrs[i], live);
    const char *params = blk->nparams
        ? rk_arena_printf(&rk_heap, "(%s)", regs_text(m, blk->params, blk->nparams)) : "";
    json_array_append_new(rows, row("block", rk_arena_printf(&rk_heap, "B%d %s%s:", b, blk->label,
                                                              params), (RkLoc){0, 0}));
    for (size_t i = json_array_size(mine); i-- > 0;)
        json_array_append(rows, json_array_get(mine, i));
    json_decref(mine);
}

static const char *const_text(const RkMConst *c, int k)
{
    const char *s = rk_arena_printf(&rk_heap, "C%d: %d bytes", k, c->size);
    int nw = c->size < 4 ? 1 : c->size / 4, shown = nw > 16 ? 16 : nw;
    for (int w = 0; w < shown; w++)
        s = rk_arena_printf(&rk_heap, "%s %08x", s, c->words[w]);
    if (shown < nw)
        s = rk_arena_printf(&rk_heap, "%s … (%d words in all)", s, nw);
    return s;
}

static json_t *func_view(const RkMModule *m, const RkMFunc *f, const RkNirModule *opt)
{
    Live l = {opt, f, m->t, 0, 0, NULL, NULL};
    l.keys = f->nvregs + RK_RC_COUNT * RK_REG_MAX;
    l.words = (l.keys + 63) / 64;
    solve(&l);
    json_t *rows = json_array();
    json_array_append_new(rows, row("func", signature(m, f), f->loc));
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (int r = 0; r < RK_REG_MAX; r++)
            if (f->saved[c] >> r & 1u)
                json_array_append_new(rows, row("saves", rk_arena_printf(&rk_heap, "saves %s",
                                          reg_text(m, rk_mreg((RkRegClass)c, false, r), 0)),
                                                 (RkLoc){0, 0}));
    for (int b = 0; b < f->nblocks; b++)
        block_rows(&l, m, b, rows);
    for (int k = 0; k < f->nconsts; k++)
        json_array_append_new(rows, row("const", const_text(&f->consts[k], k), (RkLoc){0, 0}));
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(f->name));
    json_object_set_new(j, "kind", json_string(f->kind));
    json_object_set_new(j, "fmas", json_integer(f->fmas));
    json_object_set_new(j, "rows", rows);
    return j;
}

/* Whether a machine instruction serves its location's operation rather
 * than computing it: the calling convention's and the allocator's moves
 * (origin entry, result, move, remat, uniform, and the prologue and epilogue
 * rk_mir_flatten adds), an instruction rake-ra added where registers ran
 * out (a value computed again keeps its op's origin), a register-to-register copy the
 * selector made for a two-operand form (an RK_I_COPY mnemonic of the
 * target table with two register operands: vmovups from memory is a
 * load, not a copy), or the selection of a benign select of the native
 * IR. */
bool ex_aux(const RkMModule *m, const RkNirModule *opt, const char *fn, const RkMInstr *in)
{
    bool reg_copy = rk_target_insn_is(m->t, in->op, RK_I_COPY) && in->nops == 2 &&
                    in->ops[0].kind == RK_MO_REG && in->ops[1].kind == RK_MO_REG;
    static const char *const support[] = {"entry",  "result",   "move",    "remat",
                                          "uniform", "prologue", "epilogue"};
    if (in->again)
        return true;
    for (size_t k = 0; k < sizeof support / sizeof *support; k++)
        if (!strcmp(in->origin, support[k]))
            return true;
    if (reg_copy)
        return true;
    for (int i = 0; opt && in->nir >= 0 && i < opt->nfuncs; i++) {
        const RkFunc *f = opt->funcs[i];
        for (int b = 0; !strcmp(f->name, fn) && b < f->nblocks; b++)
            for (int k = 0; k < f->blocks[b]->ninstrs; k++)
                if (f->blocks[b]->instrs[k]->id == in->nir)
                    return f->blocks[b]->instrs[k]->benign;
    }
    return false;
}

json_t *ex_mir_listing(json_t *doc, const RkNirModule *opt)
{
    RkMModule *m = rk_mir_decode(doc);
    json_t *funcs = json_array();
    for (int i = 0; i < m->nfuncs; i++)
        json_array_append_new(funcs, func_view(m, m->funcs[i], opt));
    json_t *v = json_object();
    json_object_set_new(v, "allocated", json_boolean(m->allocated));
    json_object_set_new(v, "functions", funcs);
    return v;
}

/* Per class the target has: its name, its registers and how many the
 * allocator may use. */
json_t *ex_reg_limits(const char *target)
{
    const RkTarget *t = target ? rk_target_find(target) : NULL;
    json_t *a = json_array();
    for (int c = 0; t && c < RK_RC_COUNT; c++)
        json_array_append_new(a, json_pack("{s:s, s:i, s:i}", "class",
                                           rk_reg_class_name((RkRegClass)c), "registers",
                                           t->regs[c].count, "allocatable",
                                           rk_target_allocatable(t, (RkRegClass)c)));
    return a;
}

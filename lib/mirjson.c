/* mirjson.c: the JSON form of rake.mir version 2.
 *
 * {"ir": "rake.mir", "version": 2, "source", "target", "allocated",
 *  "functions": [{"name", "kind", "loc", "args": [{"name", "type", "reg",
 *  "vreg"}], "result": {"type", "reg"}, "vregs", "fmas", "saved",
 *  "consts": [{"size", "words"}], "blocks": [{"label", "params",
 *  "code": [{"op", "args", "origin", "nir", "loc", "again"}], "term": {...}}]}]}
 *
 * Operands are objects:
 *   {"v": 3, "class": "vec"}                 virtual register 3, read
 *   {"reg": "ymm3", "class": "vec"}          a physical register
 *     + "bits": 128      (virtual only) a narrower view; a physical
 *                        register's name says its view (xmm3, eax)
 *     + "access": "w" | "rw"                 written, read and written
 *     + "mask": {register}, "zeroing": true  an AVX-512 write mask
 *   {"imm": 31}  {"const": 2}  {"label": "loop"}
 *   {"mem": {"base": {register}, "index": {register}, "scale": 4,
 *            "disp": 16}, "bits": 256, "access": "w"}
 * A terminator is {"kind": "ret"}, {"kind": "trap"}, {"kind": "jump",
 * "to": LABEL, "args": [registers]}, {"kind": "branch", "cond": COND,
 * "then": LABEL, "else": LABEL} (on the flags) or the same with "cond":
 * "nz" or "z" and "reg": {register}; each may carry origin, nir and loc.
 * An instruction rake-ra added where registers ran out (a load repeated,
 * a value computed again) carries "again": true.
 *
 * The decoder checks everything a later pass would trust: every register
 * name is one of the document's target's, of the class it claims, and not
 * reserved; a virtual register is below `vregs` and keeps one class;
 * every mnemonic is in the target's instruction table, usable on the
 * profile, with operands that fit one of its forms; labels name blocks,
 * nothing jumps to the entry, jump arguments match the parameters; an
 * allocated document has no virtual register and no parameters.  Each
 * refusal is located (exit 2). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "mir.h"

/* --- encoding ----------------------------------------------------------------------- */

static const char *access_str(bool def, bool use) { return def ? (use ? "rw" : "w") : NULL; }

static json_t *enc_reg(const RkMModule *m, RkMReg r, int bits)
{
    json_t *o = json_object();
    if (r.virt) {
        json_object_set_new(o, "v", json_integer(r.num));
        if (bits)
            json_object_set_new(o, "bits", json_integer(bits));
    } else {
        const char *n = rk_target_reg_name(m->t, (RkRegClass)r.cls, r.num, bits);
        if (!n)
            rk_diag_internal("no %d-bit name for %s register %d on %s", bits,
                             rk_reg_class_name((RkRegClass)r.cls), r.num, m->target);
        json_object_set_new(o, "reg", json_string(n));
    }
    json_object_set_new(o, "class", json_string(rk_reg_class_name((RkRegClass)r.cls)));
    return o;
}

static json_t *enc_op(const RkMModule *m, const RkMFunc *f, const RkMOp *op)
{
    json_t *o;
    switch (op->kind) {
    case RK_MO_REG:
        o = enc_reg(m, op->reg, op->bits);
        break;
    case RK_MO_IMM:
        return json_pack("{s:I}", "imm", (json_int_t)op->imm);
    case RK_MO_CONST:
        return json_pack("{s:I}", "const", (json_int_t)op->imm);
    case RK_MO_LABEL:
        return json_pack("{s:s}", "label", f->blocks[op->imm]->label);
    default: {
        json_t *a = json_object();
        if (op->reg.num >= 0)
            json_object_set_new(a, "base", enc_reg(m, op->reg, 64));
        if (op->index.num >= 0) {
            json_object_set_new(a, "index", enc_reg(m, op->index, 64));
            json_object_set_new(a, "scale", json_integer(op->scale));
        }
        if (op->disp)
            json_object_set_new(a, "disp", json_integer(op->disp));
        o = json_pack("{s:o,s:i}", "mem", a, "bits", op->bits);
    }
    }
    const char *acc = access_str(op->def, op->use);
    if (acc)
        json_object_set_new(o, "access", json_string(acc));
    if ((op->kind == RK_MO_REG || op->kind == RK_MO_MEM) && op->mask.num >= 0) {
        json_object_set_new(o, "mask", enc_reg(m, op->mask, 0));
        if (op->zero)
            json_object_set_new(o, "zeroing", json_true());
    }
    return o;
}

static void enc_origin(json_t *o, const char *origin, int nir, RkLoc loc)
{
    json_object_set_new(o, "origin", json_string(origin));
    if (nir >= 0)
        json_object_set_new(o, "nir", json_integer(nir));
    if (loc.line > 0)
        json_object_set_new(o, "loc", rk_ir_loc(loc));
}

static json_t *enc_term(const RkMModule *m, const RkMFunc *f, const RkMTerm *t)
{
    static const char *kinds[] = {"ret", "jump", "branch", "trap"};
    json_t *o = json_pack("{s:s}", "kind", kinds[t->kind]);
    if (t->kind == RK_MT_JUMP) {
        json_object_set_new(o, "to", json_string(f->blocks[t->then]->label));
        if (t->nargs) {
            json_t *a = json_array();
            for (int k = 0; k < t->nargs; k++)
                json_array_append_new(a, enc_reg(m, t->args[k], 0));
            json_object_set_new(o, "args", a);
        }
    } else if (t->kind == RK_MT_BRANCH) {
        json_object_set_new(o, "cond", json_string(t->cond));
        if (t->on_reg)
            json_object_set_new(o, "reg", enc_op(m, f, &t->reg));
        json_object_set_new(o, "then", json_string(f->blocks[t->then]->label));
        json_object_set_new(o, "else", json_string(f->blocks[t->els]->label));
    }
    enc_origin(o, t->origin, t->nir, t->loc);
    return o;
}

static json_t *enc_block(const RkMModule *m, const RkMFunc *f, const RkMBlock *b)
{
    json_t *o = json_pack("{s:s}", "label", b->label);
    if (b->nparams) {
        json_t *p = json_array();
        for (int k = 0; k < b->nparams; k++)
            json_array_append_new(p, enc_reg(m, b->params[k], 0));
        json_object_set_new(o, "params", p);
    }
    json_t *code = json_array();
    for (int i = 0; i < b->ninstrs; i++) {
        const RkMInstr *in = &b->instrs[i];
        json_t *args = json_array();
        for (int k = 0; k < in->nops; k++)
            json_array_append_new(args, enc_op(m, f, &in->ops[k]));
        json_t *x = json_pack("{s:s,s:o}", "op", in->op, "args", args);
        enc_origin(x, in->origin, in->nir, in->loc);
        if (in->again)
            json_object_set_new(x, "again", json_true());
        json_array_append_new(code, x);
    }
    json_object_set_new(o, "code", code);
    json_object_set_new(o, "term", enc_term(m, f, &b->term));
    return o;
}

/* [{"v": N, "regs": [names]}]: the limited virtual registers. */
static json_t *enc_allow(const RkMModule *m, const RkMFunc *f)
{
    json_t *a = json_array();
    for (int i = 0; i < f->nallow; i++) {
        const RkMAllow *x = &f->allow[i];
        json_t *regs = json_array();
        for (int n = 0; n < RK_REG_MAX; n++)
            if (x->regs >> n & 1u)
                json_array_append_new(regs, json_string(rk_target_reg_name(
                                                m->t, (RkRegClass)f->vclass[x->vreg], n, 0)));
        json_array_append_new(a, json_pack("{s:i,s:o}", "v", x->vreg, "regs", regs));
    }
    return a;
}

static json_t *enc_consts(const RkMFunc *f)
{
    json_t *cs = json_array();
    for (int i = 0; i < f->nconsts; i++) {
        const RkMConst *k = &f->consts[i];
        json_t *w = json_array();
        int nw = k->size == 2 ? 1 : k->size / 4;
        for (int j = 0; j < nw; j++)
            json_array_append_new(w, json_string(rk_arena_printf(
                                         &rk_heap, k->size == 2 ? "0x%04x" : "0x%08x",
                                         k->size == 2 ? k->words[j] & 0xffff : k->words[j])));
        json_array_append_new(cs, json_pack("{s:i,s:o}", "size", k->size, "words", w));
    }
    return cs;
}

static json_t *enc_func(const RkMModule *m, const RkMFunc *f)
{
    json_t *o = json_pack("{s:s,s:s}", "name", f->name, "kind", f->kind);
    if (f->loc.line > 0)
        json_object_set_new(o, "loc", rk_ir_loc(f->loc));
    json_t *args = json_array();
    for (int i = 0; i < f->nargs; i++) {
        const RkMArg *a = &f->args[i];
        json_t *x = json_pack("{s:s,s:s}", "name", a->name, "type", a->type);
        if (a->reg.num >= 0)
            json_object_set_new(x, "reg", json_string(rk_target_reg_name(
                                              m->t, (RkRegClass)a->reg.cls, a->reg.num, a->bits)));
        json_object_set_new(x, "vreg", json_integer(a->vreg));
        if (a->stack >= 0)
            json_object_set_new(x, "stack", json_integer(a->stack));
        json_array_append_new(args, x);
    }
    json_object_set_new(o, "args", args);
    json_t *r = json_pack("{s:s}", "type", f->result_type);
    json_object_set_new(r, "reg", f->result.num < 0 ? json_null()
                                                    : json_string(rk_target_reg_name(
                                                          m->t, (RkRegClass)f->result.cls,
                                                          f->result.num, f->result_bits)));
    json_object_set_new(o, "result", r);
    json_object_set_new(o, "vregs", json_integer(f->nvregs));
    if (f->nallow)
        json_object_set_new(o, "allow", enc_allow(m, f));
    json_object_set_new(o, "fmas", json_integer(f->fmas));
    json_t *saved = json_array();
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (int n = 0; n < RK_REG_MAX; n++)
            if (f->saved[c] >> n & 1u)
                json_array_append_new(saved, json_string(rk_target_reg_name(m->t, (RkRegClass)c, n, 0)));
    json_object_set_new(o, "saved", saved);
    json_object_set_new(o, "consts", enc_consts(f));
    json_t *blocks = json_array();
    for (int b = 0; b < f->nblocks; b++)
        json_array_append_new(blocks, enc_block(m, f, f->blocks[b]));
    json_object_set_new(o, "blocks", blocks);
    return o;
}

json_t *rk_mir_encode(const RkMModule *m)
{
    json_t *doc = rk_ir_new_doc("rake.mir", 2, m->source, m->target);
    json_object_set_new(doc, "allocated", json_boolean(m->allocated));
    json_t *fs = json_array();
    for (int i = 0; i < m->nfuncs; i++)
        json_array_append_new(fs, enc_func(m, m->funcs[i]));
    json_object_set_new(doc, "functions", fs);
    return doc;
}

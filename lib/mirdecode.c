/* mirdecode.c: reading rake.mir version 2 (the format is described in
 * mirjson.c), refusing with a located message (exit 2) anything a later
 * pass would otherwise trust: unknown keys, registers that are not the
 * target's or not of the class they claim, reserved registers, virtual
 * registers out of range or of two classes, mnemonics outside the
 * target's table or profile, operands that fit none of the mnemonic's
 * forms, labels that name no block, jumps to the entry, jump arguments
 * that don't match the parameters, and virtual registers or parameters
 * in an allocated document. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"
#include "mir.h"
#include "strmap.h"

typedef struct Dec {
    RkMModule *m;
    const RkTarget *t;
    RkMFunc *f;
    json_t *blocks;
    RkStrMap labels; /* the function's block labels: index + 1 */
    bool stack_arg;  /* decoding a reload of a stack argument (RK_MIR_STACK_ARG):
                        its memory operand is the stack pointer and a slot */
} Dec;

static void only_keys(json_t *o, ...)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        va_list ap;
        va_start(ap, o);
        bool known = false;
        for (const char *k = va_arg(ap, const char *); k && !known; k = va_arg(ap, const char *))
            known = !strcmp(k, key);
        va_end(ap);
        if (!known) {
            rk_ir_push_key(key);
            rk_ir_fail("unknown key \"%s\"", key);
        }
    }
}

static const char *dup_str(json_t *o, const char *key, bool required)
{
    const char *s = rk_ir_get_str(o, key, required);
    return s ? rk_arena_strdup(&rk_heap, s) : NULL;
}

/* Names that reach the assembly text: letters, digits and underscores. */
static bool symbol_name(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static RkLoc opt_loc(json_t *o)
{
    RkLoc l = {0, 0};
    if (json_object_get(o, "loc")) {
        l = rk_ir_get_loc(o);
        if (l.line < 1 || l.col < 1) {
            rk_ir_push_key("loc");
            rk_ir_fail("bad location: expected \"LINE:COL\", both from 1");
        }
    }
    return l;
}

/* --- registers ------------------------------------------------------------------------ */

static void vclass_set(Dec *d, int v, int cls)
{
    if (d->f->vclass[v] >= 0 && d->f->vclass[v] != cls)
        rk_ir_fail("v%d is a %s register here and a %s register elsewhere", v,
                   rk_reg_class_name((RkRegClass)cls),
                   rk_reg_class_name((RkRegClass)d->f->vclass[v]));
    d->f->vclass[v] = (int8_t)cls;
}

static bool has_view(const RkTarget *t, int cls, int bits)
{
    return bits == 0 || rk_target_reg_name(t, (RkRegClass)cls, 0, bits) != NULL;
}

/* A register object; *bits gets its view.  want_cls -1: any class. */
static RkMReg dec_reg(Dec *d, json_t *o, int *bits, int want_cls, bool in_code)
{
    rk_ir_expect_object(o);
    const char *cname = rk_ir_get_str(o, "class", true);
    int cls = rk_reg_class_find(cname);
    if (cls < 0 || d->t->regs[cls].count == 0) {
        rk_ir_push_key("class");
        rk_ir_fail("%s has no register class \"%s\"", d->t->profile, cname);
    }
    if (want_cls >= 0 && cls != want_cls)
        rk_ir_fail("expected a %s register, not %s", rk_reg_class_name((RkRegClass)want_cls),
                   cname);
    json_t *v = json_object_get(o, "v");
    if (v) {
        int64_t n = rk_ir_get_int(o, "v", true, 0);
        if (n < 0 || n >= d->f->nvregs) {
            rk_ir_push_key("v");
            rk_ir_fail("the function has virtual registers v0 to v%d", d->f->nvregs - 1);
        }
        if (d->m->allocated)
            rk_ir_fail("an allocated document has no virtual registers (v%d)", (int)n);
        *bits = (int)rk_ir_get_int(o, "bits", false, 0);
        if (!has_view(d->t, cls, *bits)) {
            rk_ir_push_key("bits");
            rk_ir_fail("a %s register has no %d-bit view on %s", cname, *bits, d->t->profile);
        }
        if (*bits == d->t->regs[cls].full_bits)
            *bits = 0; /* the whole register */
        vclass_set(d, (int)n, cls);
        return rk_mreg((RkRegClass)cls, true, (int)n);
    }
    const char *name = rk_ir_get_str(o, "reg", true);
    RkMReg r;
    RkRegRef ref;
    if (json_object_get(o, "bits"))
        rk_ir_fail("a physical register's name says its view: no \"bits\"");
    if (!rk_target_reg_parse(d->t, name, &ref, bits)) {
        rk_ir_push_key("reg");
        rk_ir_fail("\"%s\" is not a register of %s", name, d->t->profile);
    }
    if ((int)ref.cls != cls) {
        rk_ir_push_key("reg");
        rk_ir_fail("%s is a %s register, not %s", name, rk_reg_class_name(ref.cls), cname);
    }
    if (in_code && (d->t->regs[cls].reserved >> ref.num & 1u)) {
        rk_ir_push_key("reg");
        rk_ir_fail("%s is reserved on %s", name, d->t->profile);
    }
    r = rk_mreg(ref.cls, false, ref.num);
    return r;
}

static void access(json_t *o, bool *def, bool *use)
{
    const char *a = rk_ir_get_str(o, "access", false);
    *def = false;
    *use = true;
    if (!a || !strcmp(a, "r"))
        return;
    if (!strcmp(a, "w") || !strcmp(a, "rw")) {
        *def = true;
        *use = a[0] == 'r';
        return;
    }
    rk_ir_push_key("access");
    rk_ir_fail("access is \"r\", \"w\" or \"rw\", not \"%s\"", a);
}

static int label_index(Dec *d, const char *label)
{
    void *b = rk_strmap_get(&d->labels, label);
    if (b)
        return (int)((intptr_t)b - 1);
    rk_ir_fail("no block is labelled \"%s\"", label);
}

static RkMOp dec_mem(Dec *d, json_t *o)
{
    only_keys(o, "mem", "bits", "access", "mask", NULL);
    json_t *a = rk_ir_expect_object(rk_ir_get(o, "mem", true));
    rk_ir_push_key("mem");
    only_keys(a, "base", "index", "scale", "disp", NULL);
    int bits;
    RkMReg none = rk_mreg(RK_RC_GPR, false, -1);
    RkMReg base = none, index = none;
    if (json_object_get(a, "base")) {
        rk_ir_push_key("base");
        base = dec_reg(d, json_object_get(a, "base"), &bits, RK_RC_GPR, !d->stack_arg);
        rk_ir_pop();
    }
    if (d->stack_arg && (base.virt || base.num != d->t->stack_pointer))
        rk_ir_fail("a %s instruction reads its slot from the stack pointer", RK_MIR_STACK_ARG);
    if (d->stack_arg && json_object_get(a, "index"))
        rk_ir_fail("a %s instruction's slot has no index", RK_MIR_STACK_ARG);
    if (json_object_get(a, "index")) {
        rk_ir_push_key("index");
        index = dec_reg(d, json_object_get(a, "index"), &bits, RK_RC_GPR, true);
        rk_ir_pop();
    }
    int scale = (int)rk_ir_get_int(a, "scale", false, 1);
    if (scale != 1 && scale != 2 && scale != 4 && scale != 8) {
        rk_ir_push_key("scale");
        rk_ir_fail("a scale is 1, 2, 4 or 8");
    }
    int64_t disp = rk_ir_get_int(a, "disp", false, 0);
    if (disp < INT32_MIN || disp > INT32_MAX) {
        rk_ir_push_key("disp");
        rk_ir_fail("a displacement fits in 32 bits");
    }
    rk_ir_pop();
    int64_t width = rk_ir_get_int(o, "bits", true, 0);
    if (width <= 0 || width > 512 || width % 8) {
        rk_ir_push_key("bits");
        rk_ir_fail("a memory access is 8 to 512 bits, whole bytes");
    }
    bool def, use;
    access(o, &def, &use);
    if (def && use)
        rk_ir_fail("a memory operand is read or written, not both");
    RkMOp op = rk_mmem(base, index, scale, disp, (int)width, def);
    if (json_object_get(o, "mask")) { /* a masked store: merging, never zeroing */
        int mb;
        rk_ir_push_key("mask");
        RkMReg k = dec_reg(d, json_object_get(o, "mask"), &mb, RK_RC_MASK, true);
        rk_ir_pop();
        if (!def)
            rk_ir_fail("only a destination has a write mask");
        op = rk_mmask(op, k, false);
    }
    return op;
}

static RkMOp dec_op(Dec *d, json_t *o)
{
    rk_ir_expect_object(o);
    if (json_object_get(o, "imm")) {
        only_keys(o, "imm", NULL);
        return rk_mi(rk_ir_get_int(o, "imm", true, 0));
    }
    if (json_object_get(o, "const")) {
        only_keys(o, "const", NULL);
        int64_t c = rk_ir_get_int(o, "const", true, 0);
        if (c < 0 || c >= d->f->nconsts)
            rk_ir_fail("the function has %d constants", d->f->nconsts);
        return rk_mc((int)c);
    }
    if (json_object_get(o, "label")) {
        only_keys(o, "label", NULL);
        return rk_ml(label_index(d, rk_ir_get_str(o, "label", true)));
    }
    if (json_object_get(o, "mem"))
        return dec_mem(d, o);
    only_keys(o, "v", "reg", "class", "bits", "access", "mask", "zeroing", NULL);
    int bits;
    RkMReg r = dec_reg(d, o, &bits, -1, true);
    bool def, use;
    access(o, &def, &use);
    RkMOp op = rk_mo_reg(r, bits, def, use);
    if (json_object_get(o, "mask")) {
        int mb;
        rk_ir_push_key("mask");
        RkMReg k = dec_reg(d, json_object_get(o, "mask"), &mb, RK_RC_MASK, true);
        rk_ir_pop();
        if (!def)
            rk_ir_fail("only a destination has a write mask");
        op = rk_mmask(op, k, rk_ir_get_bool(o, "zeroing"));
    } else if (json_object_get(o, "zeroing")) {
        rk_ir_fail("zeroing needs a mask");
    }
    return op;
}

/* --- instructions ------------------------------------------------------------------------ */

/* Whether the operands fit one form of the roles string. */
static bool fits_form(const RkMInstr *in, const char *form, size_t len)
{
    int k = 0;
    for (size_t i = 0; i < len; i++) {
        char role = form[i];
        if (role == ' ')
            continue;
        if (role == '*') { /* any number of registers read, to the end */
            for (; k < in->nops; k++)
                if (in->ops[k].kind != RK_MO_REG || in->ops[k].def)
                    return false;
            return true;
        }
        if (k >= in->nops)
            return false;
        const RkMOp *o = &in->ops[k++];
        bool merge = o->kind == RK_MO_REG && o->mask.num >= 0 && !o->zero;
        switch (role) {
        case 'w':
            if (!((o->kind == RK_MO_REG || o->kind == RK_MO_MEM) && o->def && (!o->use || merge)))
                return false;
            break;
        case 'x':
            if (!((o->kind == RK_MO_REG || o->kind == RK_MO_MEM) && o->def && o->use))
                return false;
            break;
        case 'r':
            if (o->kind == RK_MO_LABEL || o->def)
                return false;
            break;
        case 'i':
            if (o->kind != RK_MO_IMM)
                return false;
            break;
        case 'l':
            if (o->kind != RK_MO_LABEL)
                return false;
            break;
        default:
            return false;
        }
    }
    return k == in->nops;
}

static bool fits(const RkMInstr *in, const char *roles)
{
    for (;;) {
        const char *bar = strchr(roles, '|');
        size_t len = bar ? (size_t)(bar - roles) : strlen(roles);
        if (fits_form(in, roles, len))
            return true;
        if (!bar)
            return false;
        roles = bar + 1;
    }
}

static void dec_instr(Dec *d, RkMBlock *b, json_t *x)
{
    rk_ir_expect_object(x);
    only_keys(x, "op", "args", "origin", "nir", "loc", "again", NULL);
    const char *op = rk_ir_get_str(x, "op", true);
    const RkInsnDesc *desc = rk_target_insn(d->t, op);
    rk_ir_push_key("op");
    for (const char *c = op; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.'))
            rk_ir_fail("bad opcode: an opcode is lower-case letters, digits and dots");
    if (!desc)
        rk_ir_fail("\"%s\" is not an instruction of %s", op, d->t->profile);
    if (!rk_target_has(d->t, desc))
        rk_ir_fail("%s (%s) is not available on %s", op, desc->isa, d->t->profile);
    if (desc->flags & (RK_I_BRANCH | RK_I_RET | RK_I_TRAP | RK_I_STACK | RK_I_CALL))
        rk_ir_fail("%s is control flow or stack traffic: a block's terminator and rake-emit's "
                   "prologue and epilogue say that, not an instruction",
                   op);
    rk_ir_pop();
    RkMInstr *in = &b->instrs[b->ninstrs];
    b->ninstrs++;
    memset(in, 0, sizeof *in);
    in->op = desc->mnem;
    const char *origin = rk_ir_get_str(x, "origin", false);
    d->stack_arg = origin && !strcmp(origin, RK_MIR_STACK_ARG);
    if (d->stack_arg && !rk_mir_is_run(d->f)) {
        rk_ir_push_key("origin");
        rk_ir_fail("only a run has stack arguments to load again");
    }
    json_t *args = rk_ir_get_array(x, "args", true);
    rk_ir_push_key("args");
    for (size_t k = 0; k < json_array_size(args); k++) {
        rk_ir_push_index(k);
        rk_mir_operand(in, dec_op(d, json_array_get(args, k)));
        rk_ir_pop();
    }
    if (!fits(in, desc->roles))
        rk_ir_fail("the operands of %s don't fit its forms (%s: w written, r read, x both, "
                   "i immediate, l label, * registers read)",
                   op, desc->roles);
    rk_ir_pop();
    d->stack_arg = false;
    in->origin = dup_str(x, "origin", true);
    in->nir = (int)rk_ir_get_int(x, "nir", false, -1);
    in->loc = opt_loc(x);
    in->again = rk_ir_get_bool(x, "again");
}

static void dec_term(Dec *d, RkMTerm *t, json_t *o, int self)
{
    rk_ir_expect_object(o);
    only_keys(o, "kind", "to", "args", "cond", "reg", "then", "else", "origin", "nir", "loc",
              NULL);
    const char *k = rk_ir_get_str(o, "kind", true);
    memset(t, 0, sizeof *t);
    t->then = t->els = -1;
    t->origin = dup_str(o, "origin", false);
    if (!t->origin)
        t->origin = "term";
    t->nir = (int)rk_ir_get_int(o, "nir", false, -1);
    t->loc = opt_loc(o);
    if (!strcmp(k, "ret") || !strcmp(k, "trap")) {
        t->kind = k[0] == 'r' ? RK_MT_RET : RK_MT_TRAP;
        return;
    }
    if (!strcmp(k, "jump")) {
        t->kind = RK_MT_JUMP;
        rk_ir_push_key("to");
        t->then = label_index(d, rk_ir_get_str(o, "to", true));
        if (t->then == 0)
            rk_ir_fail("nothing jumps to the entry block");
        rk_ir_pop();
        json_t *args = json_object_get(o, "args");
        rk_ir_push_key("args");
        for (size_t i = 0; args && i < json_array_size(args); i++) {
            int bits;
            rk_ir_push_index(i);
            rk_mir_jump_arg(t, dec_reg(d, json_array_get(args, i), &bits, -1, true));
            rk_ir_pop();
        }
        rk_ir_pop();
        return;
    }
    if (strcmp(k, "branch")) {
        rk_ir_push_key("kind");
        rk_ir_fail("a terminator is ret, jump, branch or trap, not \"%s\"", k);
    }
    t->kind = RK_MT_BRANCH;
    t->cond = dup_str(o, "cond", true);
    t->on_reg = json_object_get(o, "reg") != NULL;
    if (t->on_reg) {
        rk_ir_push_key("reg");
        t->reg = dec_op(d, json_object_get(o, "reg"));
        if (t->reg.kind != RK_MO_REG || t->reg.reg.cls != RK_RC_GPR || t->reg.def)
            rk_ir_fail("a branch tests a general register it reads");
        rk_ir_pop();
        if (strcmp(t->cond, "nz") && strcmp(t->cond, "z")) {
            rk_ir_push_key("cond");
            rk_ir_fail("a branch on a register tests \"nz\" or \"z\"");
        }
    } else if (!rk_target_cond(d->t, t->cond)) {
        rk_ir_push_key("cond");
        rk_ir_fail("\"%s\" is not a condition of %s", t->cond, d->t->profile);
    }
    rk_ir_push_key("then");
    t->then = label_index(d, rk_ir_get_str(o, "then", true));
    rk_ir_pop();
    rk_ir_push_key("else");
    t->els = label_index(d, rk_ir_get_str(o, "else", true));
    rk_ir_pop();
    if (t->then == 0 || t->els == 0)
        rk_ir_fail("nothing branches to the entry block");
    (void)self;
}

/* Jumps pass one argument per parameter, of its class; branches reach
 * only blocks without parameters (a selector splits such edges). */
static void check_edges(Dec *d)
{
    RkMFunc *f = d->f;
    for (int b = 0; b < f->nblocks; b++) {
        RkMTerm *t = &f->blocks[b]->term;
        rk_ir_push_index((size_t)b);
        rk_ir_push_key("term");
        if (t->kind == RK_MT_JUMP) {
            RkMBlock *to = f->blocks[t->then];
            if (t->nargs != to->nparams)
                rk_ir_fail("the jump gives %d arguments, and %s has %d parameters", t->nargs,
                           to->label, to->nparams);
            for (int k = 0; k < t->nargs; k++)
                if (t->args[k].cls != to->params[k].cls)
                    rk_ir_fail("argument %d is a %s register, parameter %d of %s a %s one", k,
                               rk_reg_class_name((RkRegClass)t->args[k].cls), k, to->label,
                               rk_reg_class_name((RkRegClass)to->params[k].cls));
        }
        if (t->kind == RK_MT_BRANCH &&
            (f->blocks[t->then]->nparams || f->blocks[t->els]->nparams))
            rk_ir_fail("a branch reaches a block with parameters: split the edge with a jump");
        rk_ir_pop();
        rk_ir_pop();
    }
}

static void dec_block_head(Dec *d, json_t *o, int b)
{
    rk_ir_push_index((size_t)b);
    rk_ir_expect_object(o);
    only_keys(o, "label", "params", "code", "term", NULL);
    const char *label = dup_str(o, "label", true);
    if (!symbol_name(label)) {
        rk_ir_push_key("label");
        rk_ir_fail("bad label: a label is letters, digits and underscores");
    }
    if (rk_strmap_add(&d->labels, label, (void *)(intptr_t)(b + 1)) != (void *)(intptr_t)(b + 1)) {
        rk_ir_push_key("label");
        rk_ir_fail("two blocks are labelled \"%s\"", label);
    }
    rk_mir_block(d->f, label);
    rk_ir_pop();
}

static void dec_block_body(Dec *d, json_t *o, int bi)
{
    RkMBlock *b = d->f->blocks[bi];
    rk_ir_push_index((size_t)bi);
    json_t *params = json_object_get(o, "params");
    rk_ir_push_key("params");
    if (params && json_array_size(params) && (bi == 0 || d->m->allocated))
        rk_ir_fail(bi == 0 ? "the entry block has no parameters"
                           : "an allocated document has no block parameters");
    for (size_t k = 0; params && k < json_array_size(params); k++) {
        int bits;
        rk_ir_push_index(k);
        rk_mir_param(b, dec_reg(d, json_array_get(params, k), &bits, -1, true));
        if (bits)
            rk_ir_fail("a parameter is a whole register");
        rk_ir_pop();
    }
    rk_ir_pop();
    json_t *code = rk_ir_get_array(o, "code", true);
    b->cap = (int)json_array_size(code) + 1;
    b->instrs = rk_arena_alloc(&rk_heap, sizeof *b->instrs * (size_t)b->cap);
    rk_ir_push_key("code");
    for (size_t i = 0; i < json_array_size(code); i++) {
        rk_ir_push_index(i);
        dec_instr(d, b, json_array_get(code, i));
        rk_ir_pop();
    }
    rk_ir_pop();
    rk_ir_push_key("term");
    dec_term(d, &b->term, rk_ir_get(o, "term", true), bi);
    if (d->m->allocated && b->term.nargs)
        rk_ir_fail("an allocated document's jumps carry no arguments");
    rk_ir_pop();
    rk_ir_pop();
}

/* --- functions -------------------------------------------------------------------------- */

static void dec_consts(RkMFunc *f, json_t *cs)
{
    for (size_t i = 0; i < json_array_size(cs); i++) {
        json_t *c = json_array_get(cs, i);
        rk_ir_push_index(i);
        rk_ir_expect_object(c);
        only_keys(c, "size", "words", NULL);
        int size = (int)rk_ir_get_int(c, "size", true, 0);
        json_t *w = rk_ir_get_array(c, "words", true);
        if (size != 2 && size != 4 && size != 16 && size != 32 &&
            !(size >= 64 && size <= RK_MIR_CONST_MAX && size % 64 == 0))
            rk_ir_fail("a constant is 2, 4, 16 or 32 bytes, or a multiple of 64 bytes up to %d",
                       RK_MIR_CONST_MAX);
        size_t nw = size == 2 ? 1 : (size_t)size / 4;
        uint32_t *words = rk_arena_alloc(&rk_heap, sizeof *words * nw);
        if (json_array_size(w) != nw)
            rk_ir_fail("a %d-byte constant has %zu words", size, nw);
        rk_ir_push_key("words");
        for (size_t k = 0; k < nw; k++) {
            json_t *x = json_array_get(w, k);
            const char *s = json_is_string(x) ? json_string_value(x) : "";
            char *end;
            rk_ir_push_index(k);
            if (strncmp(s, "0x", 2) || strlen(s) != (size == 2 ? 6u : 10u))
                rk_ir_fail("expected a word as \"0x\" and %d hex digits", size == 2 ? 4 : 8);
            words[k] = (uint32_t)strtoul(s + 2, &end, 16);
            if (*end)
                rk_ir_fail("expected hex digits");
            rk_ir_pop();
        }
        rk_ir_pop();
        if (rk_mir_const(f, size, words) != (int)i)
            rk_ir_fail("constant %zu repeats an earlier one", i);
        rk_ir_pop();
    }
}

static void dec_args(Dec *d, json_t *args)
{
    RkMFunc *f = d->f;
    f->nargs = (int)json_array_size(args);
    f->args = rk_arena_alloc(&rk_heap, sizeof(RkMArg) * (size_t)(f->nargs + 1));
    rk_ir_push_key("args");
    for (int k = 0; k < f->nargs; k++) {
        json_t *a = json_array_get(args, (size_t)k);
        RkMArg *x = &f->args[k];
        rk_ir_push_index((size_t)k);
        rk_ir_expect_object(a);
        only_keys(a, "name", "type", "reg", "vreg", "stack", NULL);
        x->name = dup_str(a, "name", true);
        x->type = dup_str(a, "type", true);
        x->stack = (int)rk_ir_get_int(a, "stack", false, -1);
        if (x->stack < -1 || (json_object_get(a, "stack") && x->stack < 0)) {
            rk_ir_push_key("stack");
            rk_ir_fail("a stack slot is 0 or more");
        }
        /* a stack argument's register is the allocator's choice: none
         * before rake-ra, a general one after */
        const char *reg = rk_ir_get_str(a, "reg", x->stack < 0);
        RkRegRef ref = {RK_RC_GPR, -1};
        x->bits = 0;
        if (reg && !rk_target_reg_parse(d->t, reg, &ref, &x->bits)) {
            rk_ir_push_key("reg");
            rk_ir_fail("\"%s\" is not a register of %s", reg, d->t->profile);
        }
        if (x->stack >= 0 && ref.cls != RK_RC_GPR) {
            rk_ir_push_key("reg");
            rk_ir_fail("a stack argument is loaded into a general register");
        }
        if (x->stack >= 0 && !reg) /* its width: the type's */
            x->bits = rk_mir_int_arg_bits(x->type);
        x->reg = rk_mreg(ref.cls, false, ref.num);
        x->vreg = (int)rk_ir_get_int(a, "vreg", true, 0);
        rk_ir_push_key("vreg");
        if (x->vreg < 0 || x->vreg >= f->nvregs)
            rk_ir_fail("the function has virtual registers v0 to v%d", f->nvregs - 1);
        vclass_set(d, x->vreg, ref.cls);
        rk_ir_pop();
        rk_ir_pop();
    }
    rk_ir_pop();
}

static void dec_result(Dec *d, json_t *r)
{
    RkMFunc *f = d->f;
    rk_ir_push_key("result");
    rk_ir_expect_object(r);
    only_keys(r, "type", "reg", NULL);
    f->result_type = dup_str(r, "type", true);
    const char *reg = rk_ir_get_str(r, "reg", false);
    if (reg) {
        RkRegRef ref;
        if (!rk_target_reg_parse(d->t, reg, &ref, &f->result_bits)) {
            rk_ir_push_key("reg");
            rk_ir_fail("\"%s\" is not a register of %s", reg, d->t->profile);
        }
        f->result = rk_mreg(ref.cls, false, ref.num);
    }
    rk_ir_pop();
}

/* A register of the target named by a JSON string (any view). */
static RkRegRef reg_named(Dec *d, json_t *x)
{
    RkRegRef ref;
    int bits;
    if (!json_is_string(x) || !rk_target_reg_parse(d->t, json_string_value(x), &ref, &bits))
        rk_ir_fail("expected a register name of %s", d->t->profile);
    return ref;
}

static void dec_saved(Dec *d, json_t *saved)
{
    rk_ir_push_key("saved");
    for (size_t i = 0; saved && i < json_array_size(saved); i++) {
        json_t *x = json_array_get(saved, i);
        rk_ir_push_index(i);
        RkRegRef ref = reg_named(d, x);
        if (!(d->t->regs[ref.cls].callee_saved >> ref.num & 1u))
            rk_ir_fail("%s is not callee-saved on %s", json_string_value(x), d->t->profile);
        d->f->saved[ref.cls] |= 1ull << ref.num;
        rk_ir_pop();
    }
    rk_ir_pop();
}

/* One limit: {"v": N, "regs": [names of N's class]}. */
static void dec_allow_one(Dec *d, json_t *x)
{
    rk_ir_expect_object(x);
    only_keys(x, "v", "regs", NULL);
    int64_t v = rk_ir_get_int(x, "v", true, 0);
    if (v < 0 || v >= d->f->nvregs) {
        rk_ir_push_key("v");
        rk_ir_fail("the function has virtual registers v0 to v%d", d->f->nvregs - 1);
    }
    json_t *regs = rk_ir_get_array(x, "regs", true);
    rk_ir_push_key("regs");
    if (json_array_size(regs) == 0)
        rk_ir_fail("a limited virtual register needs at least one register");
    uint64_t set = 0;
    for (size_t i = 0; i < json_array_size(regs); i++) {
        json_t *r = json_array_get(regs, i);
        rk_ir_push_index(i);
        RkRegRef ref = reg_named(d, r);
        if ((int)ref.cls != d->f->vclass[v])
            rk_ir_fail("%s is not a %s register, the class of v%d", json_string_value(r),
                       rk_reg_class_name((RkRegClass)d->f->vclass[v]), (int)v);
        set |= 1ull << ref.num;
        rk_ir_pop();
    }
    rk_ir_pop();
    rk_mir_vreg_allow(d->f, (int)v, set);
}

static void dec_allow(Dec *d, json_t *allow)
{
    if (!allow)
        return;
    rk_ir_push_key("allow");
    if (!json_is_array(allow))
        rk_ir_fail("expected an array");
    for (size_t i = 0; i < json_array_size(allow); i++) {
        rk_ir_push_index(i);
        dec_allow_one(d, json_array_get(allow, i));
        rk_ir_pop();
    }
    rk_ir_pop();
}

static void dec_func(Dec *d, json_t *o)
{
    rk_ir_expect_object(o);
    only_keys(o, "name", "kind", "loc", "args", "result", "vregs", "allow", "fmas", "saved",
              "consts", "blocks", NULL);
    RkMFunc *f = rk_mir_func(d->m, dup_str(o, "name", true), dup_str(o, "kind", true));
    d->f = f;
    if (!symbol_name(f->name)) {
        rk_ir_push_key("name");
        rk_ir_fail("\"%s\" is not a symbol name", f->name);
    }
    f->loc = opt_loc(o);
    int64_t nv = rk_ir_get_int(o, "vregs", true, 0);
    if (nv < 0 || nv > 1000000) {
        rk_ir_push_key("vregs");
        rk_ir_fail("expected 0 to a million virtual registers");
    }
    for (int v = 0; v < nv; v++)
        rk_mir_vreg(f, RK_RC_VEC);
    memset(f->vclass, -1, (size_t)nv);
    dec_args(d, rk_ir_get_array(o, "args", true));
    dec_result(d, rk_ir_get(o, "result", true));
    f->fmas = (int)rk_ir_get_int(o, "fmas", false, 0);
    dec_saved(d, json_object_get(o, "saved"));
    rk_ir_push_key("consts");
    dec_consts(f, rk_ir_get_array(o, "consts", true));
    rk_ir_pop();
    json_t *blocks = rk_ir_get_array(o, "blocks", true);
    rk_ir_push_key("blocks");
    if (json_array_size(blocks) == 0)
        rk_ir_fail("a function has at least one block");
    for (size_t b = 0; b < json_array_size(blocks); b++)
        dec_block_head(d, json_array_get(blocks, b), (int)b);
    for (size_t b = 0; b < json_array_size(blocks); b++)
        dec_block_body(d, json_array_get(blocks, b), (int)b);
    check_edges(d);
    rk_ir_pop();
    rk_strmap_free(&d->labels);
    d->labels = (RkStrMap){0};
    /* a register never used keeps the class it was created with */
    for (int v = 0; v < f->nvregs; v++)
        if (f->vclass[v] < 0)
            f->vclass[v] = RK_RC_VEC;
    dec_allow(d, json_object_get(o, "allow"));
}

RkMModule *rk_mir_decode(json_t *root)
{
    RkMModule *m = RK_NEW(RkMModule);
    only_keys(root, "ir", "version", "source", "target", "allocated", "functions", NULL);
    m->source = rk_ir_get_str(root, "source", true);
    m->target = rk_ir_get_str(root, "target", true);
    m->t = rk_target_find(m->target);
    if (!m->t)
        rk_ir_fail_at("/target", "'%s' has no native backend target table", m->target);
    m->allocated = rk_ir_get_bool(root, "allocated");
    json_t *fs = rk_ir_get_array(root, "functions", true);
    Dec d = {m, m->t, NULL, NULL, {0}, false};
    rk_ir_push_key("functions");
    for (size_t i = 0; i < json_array_size(fs); i++) {
        rk_ir_push_index(i);
        dec_func(&d, json_array_get(fs, i));
        rk_ir_pop();
    }
    rk_ir_pop();
    return m;
}

/* mir.c: building rake.mir and its JSON form.
 *
 * {"ir": "rake.mir", "version": 1, "source", "target", "allocated",
 *  "functions": [{"name", "kind", "args": [{"name", "type", "reg",
 *  "vreg"}], "result": {"type", "reg"}, "vregs", "fmas",
 *  "consts": [["0x3f000000", ...], ...],
 *  "loc": "L:C", "code": [["vaddps", "=v3", "v1", "v2", "@rack.add", "#5",
 *  "3:9"], ...]}]}
 * Each instruction is an array: the opcode, its operands, then "@origin",
 * "#nir" (the native-IR value id) and "L:C" (the source location of that
 * native-IR op), the last two absent when there is none. */
#include "mir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"

RkMFunc *rk_mir_func(RkMModule *m, const char *name, const char *kind)
{
    RkMFunc *f = RK_NEW(RkMFunc);
    f->name = name;
    f->kind = kind;
    if (m->nfuncs == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 8;
        RkMFunc **n = rk_arena_alloc(&rk_heap, sizeof *n * (size_t)m->cap);
        if (m->nfuncs)
            memcpy(n, m->funcs, sizeof *n * (size_t)m->nfuncs);
        m->funcs = n;
    }
    m->funcs[m->nfuncs++] = f;
    return f;
}

RkMInstr *rk_mir_add(RkMFunc *f, const char *op, const char *origin, int nir)
{
    if (f->ninstrs == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 32;
        RkMInstr *n = rk_arena_alloc(&rk_heap, sizeof *n * (size_t)f->cap);
        if (f->ninstrs)
            memcpy(n, f->instrs, sizeof *n * (size_t)f->ninstrs);
        f->instrs = n;
    }
    RkMInstr *in = &f->instrs[f->ninstrs++];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->origin = origin;
    in->nir = nir;
    return in;
}

void rk_mir_operand(RkMInstr *in, RkMOp op)
{
    RkMOp *n = rk_arena_alloc(&rk_heap, sizeof *n * (size_t)(in->nops + 1));
    if (in->nops)
        memcpy(n, in->ops, sizeof *n * (size_t)in->nops);
    n[in->nops++] = op;
    in->ops = n;
}

int rk_mir_const(RkMFunc *f, int size, const uint32_t *words)
{
    int nw = size < 4 ? 1 : size / 4;
    for (int i = 0; i < f->nconsts; i++)
        if (f->consts[i].size == size &&
            !memcmp(f->consts[i].words, words, sizeof(uint32_t) * (size_t)nw))
            return i;
    if (f->nconsts == f->ccap) {
        f->ccap = f->ccap ? 2 * f->ccap : 8;
        RkMConst *n = rk_arena_alloc(&rk_heap, sizeof *n * (size_t)f->ccap);
        if (f->nconsts)
            memcpy(n, f->consts, sizeof *n * (size_t)f->nconsts);
        f->consts = n;
    }
    RkMConst *c = &f->consts[f->nconsts];
    memset(c, 0, sizeof *c);
    c->size = size;
    memcpy(c->words, words, sizeof(uint32_t) * (size_t)nw);
    return f->nconsts++;
}

int rk_mir_vreg(RkMFunc *f) { return f->nvregs++; }

static RkMOp base(char kind)
{
    RkMOp o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    return o;
}

RkMOp rk_mv(int v)
{
    RkMOp o = base('v');
    o.vreg = v;
    o.use = true;
    return o;
}

RkMOp rk_mvd(int v)
{
    RkMOp o = base('v');
    o.vreg = v;
    o.def = true;
    return o;
}

RkMOp rk_mvu(int v)
{
    RkMOp o = rk_mv(v);
    o.def = true;
    return o;
}

RkMOp rk_mvx(RkMOp o)
{
    o.width = 'x';
    return o;
}

RkMOp rk_mp(const char *reg, bool def)
{
    RkMOp o = base('p');
    o.phys = reg;
    o.def = def;
    o.use = !def;
    return o;
}

RkMOp rk_mi(int64_t imm)
{
    RkMOp o = base('i');
    o.imm = imm;
    return o;
}

RkMOp rk_mc(int cidx)
{
    RkMOp o = base('c');
    o.cidx = cidx;
    return o;
}

RkMOp rk_mmask(RkMOp o, bool zero)
{
    o.mask = zero ? "{%k1}{z}" : "{%k1}";
    return o;
}

const char *rk_mir_operand_str(const RkMOp *o)
{
    const char *mark = o->def && o->use ? "+" : o->def ? "=" : "";
    const char *mask = o->mask ? o->mask : "";
    switch (o->kind) {
    case 'v':
        return rk_arena_printf(&rk_heap, "%sv%d%s%s", mark, o->vreg, o->width ? ".x" : "", mask);
    case 'p':
        return rk_arena_printf(&rk_heap, "%s%%%s%s", mark, o->phys, mask);
    case 'i':
        return rk_arena_printf(&rk_heap, "$%" PRId64, o->imm);
    default:
        return rk_arena_printf(&rk_heap, "C%d", o->cidx);
    }
}

bool rk_mir_operand_parse(const char *s, RkMOp *o)
{
    memset(o, 0, sizeof *o);
    bool def = false, use = true;
    if (*s == '=') {
        def = true;
        use = false;
        s++;
    } else if (*s == '+') {
        def = true;
        s++;
    }
    const char *brace = strchr(s, '{');
    size_t n = brace ? (size_t)(brace - s) : strlen(s);
    if (brace) {
        if (!strcmp(brace, "{%k1}"))
            o->mask = "{%k1}";
        else if (!strcmp(brace, "{%k1}{z}"))
            o->mask = "{%k1}{z}";
        else
            return false;
    }
    char *body = rk_arena_strndup(&rk_heap, s, n);
    o->def = def;
    o->use = use;
    if (body[0] == 'v' && body[1] >= '0' && body[1] <= '9') {
        char *end;
        o->kind = 'v';
        o->vreg = (int)strtol(body + 1, &end, 10);
        if (!strcmp(end, ".x"))
            o->width = 'x';
        else if (*end)
            return false;
        return true;
    }
    if (body[0] == '%' && body[1]) {
        o->kind = 'p';
        o->phys = body + 1;
        return true;
    }
    if (body[0] == '$') {
        char *end;
        o->kind = 'i';
        o->imm = strtoll(body + 1, &end, 10);
        return *end == 0 && !def;
    }
    if (body[0] == 'C') {
        char *end;
        o->kind = 'c';
        o->cidx = (int)strtol(body + 1, &end, 10);
        return *end == 0 && !def;
    }
    return false;
}

/* --- JSON ------------------------------------------------------------------------ */

static json_t *encode_func(const RkMFunc *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "kind", json_string(f->kind));
    if (f->loc.line > 0)
        json_object_set_new(o, "loc", rk_ir_loc(f->loc));
    json_t *args = json_array();
    for (int i = 0; i < f->nargs; i++) {
        json_t *a = json_object();
        json_object_set_new(a, "name", json_string(f->args[i].name));
        json_object_set_new(a, "type", json_string(f->args[i].type));
        json_object_set_new(a, "reg", json_string(f->args[i].reg));
        json_object_set_new(a, "vreg", json_integer(f->args[i].vreg));
        json_array_append_new(args, a);
    }
    json_object_set_new(o, "args", args);
    json_t *r = json_object();
    json_object_set_new(r, "type", json_string(f->result_type));
    json_object_set_new(r, "reg", f->result_reg ? json_string(f->result_reg) : json_null());
    json_object_set_new(o, "result", r);
    json_object_set_new(o, "vregs", json_integer(f->nvregs));
    json_object_set_new(o, "fmas", json_integer(f->fmas));
    json_t *cs = json_array();
    for (int i = 0; i < f->nconsts; i++) {
        json_t *c = json_array();
        const RkMConst *k = &f->consts[i];
        if (k->size == 2) {
            char buf[16];
            snprintf(buf, sizeof buf, "0x%04x", k->words[0] & 0xffff);
            json_array_append_new(c, json_string(buf));
            json_array_append_new(cs, json_pack("{s:i,s:o}", "size", 2, "words", c));
            continue;
        }
        for (int w = 0; w < k->size / 4; w++) {
            char buf[16];
            snprintf(buf, sizeof buf, "0x%08x", k->words[w]);
            json_array_append_new(c, json_string(buf));
        }
        json_array_append_new(cs, json_pack("{s:i,s:o}", "size", k->size, "words", c));
    }
    json_object_set_new(o, "consts", cs);
    json_t *code = json_array();
    for (int i = 0; i < f->ninstrs; i++) {
        const RkMInstr *in = &f->instrs[i];
        json_t *a = json_array();
        json_array_append_new(a, json_string(in->op));
        for (int k = 0; k < in->nops; k++)
            json_array_append_new(a, json_string(rk_mir_operand_str(&in->ops[k])));
        json_array_append_new(a, json_string(rk_arena_printf(&rk_heap, "@%s", in->origin)));
        if (in->nir >= 0)
            json_array_append_new(a, json_string(rk_arena_printf(&rk_heap, "#%d", in->nir)));
        if (in->loc.line > 0)
            json_array_append_new(a, rk_ir_loc(in->loc));
        json_array_append_new(code, a);
    }
    json_object_set_new(o, "code", code);
    return o;
}

json_t *rk_mir_encode(const RkMModule *m)
{
    json_t *doc = rk_ir_new_doc("rake.mir", 1, m->source, m->target);
    json_object_set_new(doc, "allocated", json_boolean(m->allocated));
    json_t *fs = json_array();
    for (int i = 0; i < m->nfuncs; i++)
        json_array_append_new(fs, encode_func(m->funcs[i]));
    json_object_set_new(doc, "functions", fs);
    return doc;
}

static const char *dup_str(json_t *o, const char *key, bool required)
{
    const char *s = rk_ir_get_str(o, key, required);
    return s ? rk_arena_strdup(&rk_heap, s) : NULL;
}

/* Names that reach the assembly text: lower-case letters and digits. */
static bool plain_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

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

static void check_operand(const RkMFunc *f, const RkMOp *o, const char *text)
{
    if (o->kind == 'v' && (o->vreg < 0 || o->vreg >= f->nvregs))
        rk_ir_fail("operand \"%s\": the function has virtual registers v0 to v%d", text,
                   f->nvregs - 1);
    if (o->kind == 'c' && (o->cidx < 0 || o->cidx >= f->nconsts))
        rk_ir_fail("operand \"%s\": the function has %d constants", text, f->nconsts);
    if (o->kind == 'p' && !plain_name(o->phys))
        rk_ir_fail("operand \"%s\": a register name is letters and digits", text);
}

static void decode_code(RkMFunc *f, json_t *code)
{
    for (size_t i = 0; i < json_array_size(code); i++) {
        json_t *a = json_array_get(code, i);
        rk_ir_push_index(i);
        if (!json_is_array(a) || json_array_size(a) < 2 || !json_is_string(json_array_get(a, 0)))
            rk_ir_fail("expected [opcode, operands..., \"@origin\"]");
        const char *op = json_string_value(json_array_get(a, 0));
        if (!plain_name(op)) {
            rk_ir_push_index(0);
            rk_ir_fail("bad opcode \"%s\": an opcode is lower-case letters and digits", op);
        }
        RkMInstr *in = rk_mir_add(f, rk_arena_strdup(&rk_heap, op), "?", -1);
        for (size_t k = 1; k < json_array_size(a); k++) {
            json_t *x = json_array_get(a, k);
            rk_ir_push_index(k);
            if (!json_is_string(x))
                rk_ir_fail("expected an operand string");
            const char *s = json_string_value(x);
            if (s[0] == '@') {
                in->origin = rk_arena_strdup(&rk_heap, s + 1);
            } else if (s[0] == '#') {
                in->nir = atoi(s + 1);
            } else if (s[0] >= '0' && s[0] <= '9') {
                if (!rk_ir_parse_loc(s, &in->loc) || in->loc.line < 1 || in->loc.col < 1)
                    rk_ir_fail("bad location \"%s\": expected \"LINE:COL\"", s);
            } else {
                RkMOp o;
                if (!rk_mir_operand_parse(s, &o))
                    rk_ir_fail("bad operand \"%s\"", s);
                check_operand(f, &o, s);
                rk_mir_operand(in, o);
            }
            rk_ir_pop();
        }
        rk_ir_pop();
    }
}

static void decode_consts(RkMFunc *f, json_t *cs)
{
    for (size_t i = 0; i < json_array_size(cs); i++) {
        json_t *c = json_array_get(cs, i);
        rk_ir_push_index(i);
        rk_ir_expect_object(c);
        int size = (int)rk_ir_get_int(c, "size", true, 0);
        json_t *w = rk_ir_get_array(c, "words", true);
        uint32_t words[16] = {0};
        if (size != 2 && size != 4 && size != 16 && size != 32 && size != 64)
            rk_ir_fail("a constant is 2, 4, 16, 32 or 64 bytes");
        for (size_t k = 0; k < json_array_size(w) && k < 16; k++) {
            json_t *x = json_array_get(w, k);
            words[k] = json_is_string(x) ? (uint32_t)strtoul(json_string_value(x), NULL, 16) : 0;
        }
        rk_mir_const(f, size, words);
        rk_ir_pop();
    }
}

RkMModule *rk_mir_decode(json_t *root)
{
    RkMModule *m = RK_NEW(RkMModule);
    m->source = rk_ir_get_str(root, "source", true);
    m->target = rk_ir_get_str(root, "target", true);
    m->allocated = rk_ir_get_bool(root, "allocated");
    json_t *fs = rk_ir_get_array(root, "functions", true);
    rk_ir_push_key("functions");
    for (size_t i = 0; i < json_array_size(fs); i++) {
        json_t *o = json_array_get(fs, i);
        rk_ir_push_index(i);
        rk_ir_expect_object(o);
        RkMFunc *f = rk_mir_func(m, dup_str(o, "name", true), dup_str(o, "kind", true));
        if (!symbol_name(f->name)) {
            rk_ir_push_key("name");
            rk_ir_fail("\"%s\" is not a symbol name", f->name);
        }
        if (json_object_get(o, "loc"))
            f->loc = rk_ir_get_loc(o);
        json_t *args = rk_ir_get_array(o, "args", true);
        f->nargs = (int)json_array_size(args);
        f->args = rk_arena_alloc(&rk_heap, sizeof(RkMArg) * (size_t)(f->nargs + 1));
        rk_ir_push_key("args");
        for (int k = 0; k < f->nargs; k++) {
            json_t *a = json_array_get(args, (size_t)k);
            rk_ir_push_index((size_t)k);
            rk_ir_expect_object(a);
            f->args[k] = (RkMArg){dup_str(a, "name", true), dup_str(a, "type", true),
                                  dup_str(a, "reg", true), (int)rk_ir_get_int(a, "vreg", true, 0)};
            if (!plain_name(f->args[k].reg)) {
                rk_ir_push_key("reg");
                rk_ir_fail("a register name is letters and digits");
            }
            rk_ir_pop();
        }
        rk_ir_pop();
        json_t *r = rk_ir_get(o, "result", true);
        rk_ir_push_key("result");
        rk_ir_expect_object(r);
        f->result_type = dup_str(r, "type", true);
        f->result_reg = dup_str(r, "reg", false);
        if (f->result_reg && !plain_name(f->result_reg)) {
            rk_ir_push_key("reg");
            rk_ir_fail("a register name is letters and digits");
        }
        rk_ir_pop();
        f->nvregs = (int)rk_ir_get_int(o, "vregs", true, 0);
        if (f->nvregs < 0 || f->nvregs > 1000000) {
            rk_ir_push_key("vregs");
            rk_ir_fail("expected 0 to a million virtual registers");
        }
        for (int k = 0; k < f->nargs; k++)
            if (f->args[k].vreg < 0 || f->args[k].vreg >= f->nvregs) {
                rk_ir_push_key("args");
                rk_ir_push_index((size_t)k);
                rk_ir_push_key("vreg");
                rk_ir_fail("the function has virtual registers v0 to v%d", f->nvregs - 1);
            }
        f->fmas = (int)rk_ir_get_int(o, "fmas", false, 0);
        rk_ir_push_key("consts");
        decode_consts(f, rk_ir_get_array(o, "consts", true));
        rk_ir_pop();
        rk_ir_push_key("code");
        decode_code(f, rk_ir_get_array(o, "code", true));
        rk_ir_pop();
        rk_ir_pop();
    }
    rk_ir_pop();
    return m;
}

void rk_mir_print(const RkMModule *m, FILE *out)
{
    for (int i = 0; i < m->nfuncs; i++) {
        const RkMFunc *f = m->funcs[i];
        fprintf(out, "%s%s %s(", i ? "\n" : "", f->kind, f->name);
        for (int k = 0; k < f->nargs; k++)
            fprintf(out, "%s%s %s in %%%s", k ? ", " : "", f->args[k].type, f->args[k].name,
                    f->args[k].reg);
        fprintf(out, ") -> %s", f->result_type);
        if (f->result_reg)
            fprintf(out, " in %%%s", f->result_reg);
        fputs(":\n", out);
        for (int k = 0; k < f->ninstrs; k++) {
            const RkMInstr *in = &f->instrs[k];
            fprintf(out, "  %-14s", in->op);
            for (int j = 0; j < in->nops; j++)
                fprintf(out, "%s%s", j ? ", " : " ", rk_mir_operand_str(&in->ops[j]));
            fprintf(out, "    ; %s", in->origin);
            if (in->nir >= 0)
                fprintf(out, " %%%d", in->nir);
            fputc('\n', out);
        }
        for (int k = 0; k < f->nconsts; k++) {
            fprintf(out, "  C%d: %d bytes", k, f->consts[k].size);
            int nw = f->consts[k].size < 4 ? 1 : f->consts[k].size / 4;
            for (int w = 0; w < nw; w++)
                fprintf(out, " %08x", f->consts[k].words[w]);
            fputc('\n', out);
        }
    }
}

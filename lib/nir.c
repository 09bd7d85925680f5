/* nir.c: building rake.nir, its JSON form and its text form.
 *
 * JSON: {"ir": "rake.nir", "version": 1, "source", "target",
 *        "functions": [{"name", "kind", "loc", "params": [{"id", "type",
 *        "name"}], "result", "values", "regions", "blocks": [{"id",
 *        "params": [{"id", "type"}], "instrs": [...], "term": {...}}]}]}
 * An instruction: {"id", "op", "type", "args", "loc", and only when set:
 * "bits" (hex string), "imm", "lanes", "text", "fused", "through",
 * "benign", "sanitized"}. */
#include "nir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ir.h"

/* --- types -------------------------------------------------------------------- */

const RkType *rk_ty_ptr(RkElem e)
{
    RkType *t = RK_NEW(RkType);
    t->kind = RK_T_PTR;
    t->elem = e;
    return t;
}

const char *rk_nir_type_str(const RkType *t)
{
    if (!t)
        return "void";
    switch (t->kind) {
    case RK_T_RACK: return rk_arena_printf(&rk_heap, "rack<%s>", rk_elem_name(t->elem));
    case RK_T_MASK: return rk_arena_printf(&rk_heap, "mask<%d>", rk_elem_bits(t->elem));
    case RK_T_SCALAR: return rk_elem_name(t->elem);
    case RK_T_PTR: return rk_arena_printf(&rk_heap, "ptr<%s>", rk_elem_name(t->elem));
    case RK_T_VIEW: return rk_arena_printf(&rk_heap, "view<%s>", rk_elem_name(t->inner->elem));
    case RK_T_STACK: return rk_arena_printf(&rk_heap, "stack<%s>", t->name);
    default: return "?";
    }
}

static RkElem inner_elem(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    size_t len = strlen(s);
    if (strncmp(s, prefix, n) || s[len - 1] != '>')
        return RK_E_NONE;
    char buf[16];
    if (len - n - 1 >= sizeof buf)
        return RK_E_NONE;
    memcpy(buf, s + n, len - n - 1);
    buf[len - n - 1] = 0;
    return rk_elem_from_name(buf);
}

const RkType *rk_nir_type_parse(const char *s)
{
    RkElem e;
    if (!strcmp(s, "void"))
        return NULL;
    if ((e = rk_elem_from_name(s)))
        return rk_ty_scalar(e);
    if ((e = inner_elem(s, "rack<")))
        return rk_ty_rack(e);
    if ((e = inner_elem(s, "ptr<")))
        return rk_ty_ptr(e);
    if ((e = inner_elem(s, "view<")))
        return rk_ty_view(rk_ty_scalar(e), true);
    if (!strncmp(s, "mask<", 5)) {
        int bits = atoi(s + 5);
        if (bits == 8 || bits == 16 || bits == 32 || bits == 64)
            return rk_ty_mask(bits);
    }
    if (!strncmp(s, "stack<", 6) && s[strlen(s) - 1] == '>' && strlen(s) > 7)
        return rk_ty_stack(rk_arena_strndup(&rk_heap, s + 6, strlen(s) - 7));
    return &rk_ty_error;
}

/* --- building ------------------------------------------------------------------- */

RkFunc *rk_nir_func(RkNirModule *m, const char *name, const char *kind, RkLoc loc)
{
    RkFunc *f = RK_NEW(RkFunc);
    f->name = name;
    f->kind = kind;
    f->loc = loc;
    if (m->nfuncs == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 8;
        RkFunc **n = rk_arena_alloc(&rk_heap, sizeof *n * (size_t)m->cap);
        if (m->nfuncs)
            memcpy(n, m->funcs, sizeof *n * (size_t)m->nfuncs);
        m->funcs = n;
    }
    m->funcs[m->nfuncs++] = f;
    return f;
}

static void *grow(void *old, int n, int *cap, size_t size)
{
    return rk_arena_grow(&rk_heap, old, n, cap, size, 8);
}

int rk_nir_param(RkFunc *f, const RkType *t, const char *name)
{
    int cap = f->nparams;
    int id = f->nvalues++;
    int *p = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(cap + 1));
    const RkType **pt = rk_arena_alloc(&rk_heap, sizeof *pt * (size_t)(cap + 1));
    const char **pn = rk_arena_alloc(&rk_heap, sizeof *pn * (size_t)(cap + 1));
    if (cap) {
        memcpy(p, f->params, sizeof(int) * (size_t)cap);
        memcpy(pt, f->ptypes, sizeof *pt * (size_t)cap);
        memcpy(pn, f->pnames, sizeof *pn * (size_t)cap);
    }
    p[cap] = id;
    pt[cap] = t;
    pn[cap] = name;
    f->params = p;
    f->ptypes = pt;
    f->pnames = pn;
    f->nparams++;
    return id;
}

RkBlock *rk_nir_block(RkFunc *f)
{
    RkBlock *b = RK_NEW(RkBlock);
    b->id = f->nblocks;
    f->blocks = grow(f->blocks, f->nblocks, &f->bcap, sizeof *f->blocks);
    f->blocks[f->nblocks++] = b;
    return b;
}

int rk_nir_block_param(RkFunc *f, RkBlock *b, const RkType *t)
{
    int n = b->nparams;
    int *p = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
    const RkType **pt = rk_arena_alloc(&rk_heap, sizeof *pt * (size_t)(n + 1));
    if (n) {
        memcpy(p, b->params, sizeof(int) * (size_t)n);
        memcpy(pt, b->ptypes, sizeof *pt * (size_t)n);
    }
    p[n] = f->nvalues++;
    pt[n] = t;
    b->params = p;
    b->ptypes = pt;
    b->nparams++;
    return p[n];
}

void rk_nir_set_op(RkInstr *in, RkOp op)
{
    in->opc = op;
    in->op = rk_nir_op_name(op);
}

bool rk_nir_is_constant(const RkInstr *in)
{
    const RkOpInfo *info = rk_nir_op_info(in->opc);
    return info && info->shape == SH_CONST && in->nargs == 0;
}

bool rk_nir_same_constant(const RkInstr *a, const RkInstr *b)
{
    return rk_nir_is_constant(a) && rk_nir_is_constant(b) && a->opc == b->opc &&
           a->bits == b->bits && rk_ty_equal(a->type, b->type);
}

int rk_nir_successors(const RkBlock *b, int s[2])
{
    if (!b->terminated)
        return 0;
    if (b->term.kind == RK_TERM_BR) {
        s[0] = b->term.to.block;
        return 1;
    }
    if (b->term.kind == RK_TERM_CBR) {
        s[0] = b->term.to.block;
        s[1] = b->term.alt.block;
        return 2;
    }
    return 0;
}

static bool same(const RkInstr *a, const RkInstr *b, bool fused)
{
    if (a->opc != b->opc || a->nargs != b->nargs || a->bits != b->bits ||
        a->imm != b->imm || a->nlanes != b->nlanes || (fused && a->fused != b->fused) ||
        a->through != b->through || a->benign != b->benign || a->sanitized != b->sanitized ||
        !a->type != !b->type || (a->type && !rk_ty_equal(a->type, b->type)))
        return false;
    if ((a->text || b->text) && (!a->text || !b->text || strcmp(a->text, b->text)))
        return false;
    for (int k = 0; k < a->nargs; k++)
        if (a->args[k] != b->args[k])
            return false;
    for (int k = 0; k < a->nlanes; k++)
        if (a->lanes[k] != b->lanes[k])
            return false;
    return true;
}

bool rk_nir_instr_same(const RkInstr *a, const RkInstr *b)
{
    return same(a, b, true);
}

bool rk_nir_instr_same_value(const RkInstr *a, const RkInstr *b)
{
    return same(a, b, false);
}

bool rk_nir_instr_merges(const RkInstr *earlier, const RkInstr *in)
{
    return same(earlier, in, in->benign);
}

RkInstr *rk_nir_emit(RkFunc *f, RkBlock *b, RkOp op, const RkType *t,
                     const int *args, int nargs, RkLoc loc)
{
    RkInstr *in = RK_NEW(RkInstr);
    rk_nir_set_op(in, op);
    in->type = t;
    in->id = t ? f->nvalues++ : -1;
    in->args = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nargs + 1));
    if (nargs)
        memcpy(in->args, args, sizeof(int) * (size_t)nargs);
    in->nargs = nargs;
    in->loc = loc;
    in->fused = -1;
    in->through = -1;
    b->instrs = grow(b->instrs, b->ninstrs, &b->cap, sizeof *b->instrs);
    b->instrs[b->ninstrs++] = in;
    return in;
}

void rk_nir_insert(RkBlock *b, int pos, RkInstr *in)
{
    b->instrs = grow(b->instrs, b->ninstrs, &b->cap, sizeof *b->instrs);
    memmove(&b->instrs[pos + 1], &b->instrs[pos], sizeof *b->instrs * (size_t)(b->ninstrs - pos));
    b->instrs[pos] = in;
    b->ninstrs++;
}

RkFunc *rk_nir_find(RkNirModule *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name))
            return m->funcs[i];
    return NULL;
}

RkBlock *rk_nir_block_by_id(RkFunc *f, int id)
{
    for (int i = 0; i < f->nblocks; i++)
        if (f->blocks[i]->id == id)
            return f->blocks[i];
    return NULL;
}

/* --- JSON ------------------------------------------------------------------------- */

static json_t *int_array(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *encode_instr(const RkInstr *in)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(in->id));
    json_object_set_new(o, "op", json_string(in->opc != RK_OP_NONE ? rk_nir_op_name(in->opc) : in->op));
    json_object_set_new(o, "type", json_string(rk_nir_type_str(in->type)));
    json_object_set_new(o, "args", int_array(in->args, in->nargs));
    json_object_set_new(o, "loc", rk_ir_loc(in->loc));
    if (in->bits) {
        char buf[32];
        snprintf(buf, sizeof buf, "0x%" PRIx64, in->bits);
        json_object_set_new(o, "bits", json_string(buf));
    }
    if (in->imm)
        json_object_set_new(o, "imm", json_integer(in->imm));
    if (in->nlanes)
        json_object_set_new(o, "lanes", int_array(in->lanes, in->nlanes));
    if (in->text)
        json_object_set_new(o, "text", json_string(in->text));
    if (in->fused >= 0)
        json_object_set_new(o, "fused", json_integer(in->fused));
    if (in->through >= 0)
        json_object_set_new(o, "through", json_integer(in->through));
    if (in->benign)
        json_object_set_new(o, "benign", json_true());
    if (in->sanitized)
        json_object_set_new(o, "sanitized", json_true());
    return o;
}

static json_t *encode_edge(const RkEdge *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "block", json_integer(e->block));
    json_object_set_new(o, "args", int_array(e->args, e->nargs));
    return o;
}

static const char *term_names[] = {"return", "br", "cbr", "trap"};

static json_t *encode_term(const RkTerm *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(term_names[t->kind]));
    json_object_set_new(o, "loc", rk_ir_loc(t->loc));
    if (t->kind == RK_TERM_RET || t->kind == RK_TERM_CBR)
        json_object_set_new(o, "value", json_integer(t->value));
    if (t->kind == RK_TERM_BR || t->kind == RK_TERM_CBR)
        json_object_set_new(o, "to", encode_edge(&t->to));
    if (t->kind == RK_TERM_CBR)
        json_object_set_new(o, "else", encode_edge(&t->alt));
    if (t->kind == RK_TERM_TRAP) {
        json_object_set_new(o, "text", json_string(t->text ? t->text : ""));
        if (t->to.nargs)
            json_object_set_new(o, "args", int_array(t->to.args, t->to.nargs));
    }
    return o;
}

static json_t *encode_block(const RkBlock *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(b->id));
    json_t *ps = json_array();
    for (int i = 0; i < b->nparams; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "id", json_integer(b->params[i]));
        json_object_set_new(p, "type", json_string(rk_nir_type_str(b->ptypes[i])));
        json_array_append_new(ps, p);
    }
    json_object_set_new(o, "params", ps);
    json_t *is = json_array();
    for (int i = 0; i < b->ninstrs; i++)
        json_array_append_new(is, encode_instr(b->instrs[i]));
    json_object_set_new(o, "instrs", is);
    if (b->terminated)
        json_object_set_new(o, "term", encode_term(&b->term));
    return o;
}

static json_t *encode_func(const RkFunc *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "kind", json_string(f->kind));
    json_object_set_new(o, "loc", rk_ir_loc(f->loc));
    json_t *ps = json_array();
    for (int i = 0; i < f->nparams; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "id", json_integer(f->params[i]));
        json_object_set_new(p, "type", json_string(rk_nir_type_str(f->ptypes[i])));
        json_object_set_new(p, "name", json_string(f->pnames[i]));
        json_array_append_new(ps, p);
    }
    json_object_set_new(o, "params", ps);
    json_object_set_new(o, "result", json_string(rk_nir_type_str(f->result)));
    json_object_set_new(o, "values", json_integer(f->nvalues));
    json_object_set_new(o, "regions", json_integer(f->nregions));
    json_t *bs = json_array();
    for (int i = 0; i < f->nblocks; i++)
        json_array_append_new(bs, encode_block(f->blocks[i]));
    json_object_set_new(o, "blocks", bs);
    return o;
}

json_t *rk_nir_encode(const RkNirModule *m)
{
    json_t *doc = rk_ir_new_doc("rake.nir", 1, m->source, m->target);
    json_t *fs = json_array();
    for (int i = 0; i < m->nfuncs; i++)
        json_array_append_new(fs, encode_func(m->funcs[i]));
    json_object_set_new(doc, "functions", fs);
    return doc;
}

/* decoding */

static int *decode_ints(json_t *a, int *n)
{
    *n = (int)json_array_size(a);
    int *v = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(*n + 1));
    for (int i = 0; i < *n; i++) {
        json_t *x = json_array_get(a, (size_t)i);
        rk_ir_push_index((size_t)i);
        if (!json_is_integer(x))
            rk_ir_fail("expected a value id");
        v[i] = (int)json_integer_value(x);
        rk_ir_pop();
    }
    return v;
}

static const RkType *decode_type(json_t *o, const char *key)
{
    const char *s = rk_ir_get_str(o, key, true);
    const RkType *t = rk_nir_type_parse(s);
    if (t == &rk_ty_error) {
        rk_ir_push_key(key);
        rk_ir_fail("unknown type \"%s\"", s);
    }
    return t;
}

static RkInstr *decode_instr(json_t *o)
{
    rk_ir_expect_object(o);
    RkInstr *in = RK_NEW(RkInstr);
    in->id = (int)rk_ir_get_int(o, "id", true, -1);
    in->op = rk_arena_strdup(&rk_heap, rk_ir_get_str(o, "op", true));
    /* an unknown name stays RK_OP_NONE: the verifier reports it
     * (unknown-op), as it reports every other broken instruction */
    in->opc = rk_nir_op_lookup(in->op);
    in->type = decode_type(o, "type");
    rk_ir_push_key("args");
    in->args = decode_ints(rk_ir_get_array(o, "args", true), &in->nargs);
    rk_ir_pop();
    in->loc = rk_ir_get_loc(o);
    const char *bits = rk_ir_get_str(o, "bits", false);
    if (bits) {
        char *end;
        in->bits = strtoull(bits, &end, 16);
        if (strncmp(bits, "0x", 2) || !bits[2] || *end || strlen(bits) > 18) {
            rk_ir_push_key("bits");
            rk_ir_fail("expected hexadecimal bits \"0x...\"");
        }
    }
    in->imm = rk_ir_get_int(o, "imm", false, 0);
    json_t *lanes = rk_ir_get_array(o, "lanes", false);
    if (lanes) {
        rk_ir_push_key("lanes");
        in->lanes = decode_ints(lanes, &in->nlanes);
        rk_ir_pop();
    }
    const char *text = rk_ir_get_str(o, "text", false);
    in->text = text ? rk_arena_strdup(&rk_heap, text) : NULL;
    in->fused = (int)rk_ir_get_int(o, "fused", false, -1);
    in->through = (int)rk_ir_get_int(o, "through", false, -1);
    if (in->fused < -1 || in->through < -1) {
        rk_ir_push_key(in->fused < -1 ? "fused" : "through");
        rk_ir_fail("expected a region number or a value id");
    }
    in->benign = rk_ir_get_bool(o, "benign");
    in->sanitized = rk_ir_get_bool(o, "sanitized");
    return in;
}

static RkEdge decode_edge(json_t *o, const char *key)
{
    RkEdge e = {0, NULL, 0};
    json_t *x = rk_ir_get(o, key, true);
    rk_ir_push_key(key);
    rk_ir_expect_object(x);
    e.block = (int)rk_ir_get_int(x, "block", true, 0);
    rk_ir_push_key("args");
    e.args = decode_ints(rk_ir_get_array(x, "args", true), &e.nargs);
    rk_ir_pop();
    rk_ir_pop();
    return e;
}

static RkTerm decode_term(json_t *o)
{
    RkTerm t;
    memset(&t, 0, sizeof t);
    rk_ir_expect_object(o);
    const char *k = rk_ir_get_str(o, "kind", true);
    int kind = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(term_names[i], k))
            kind = i;
    if (kind < 0) {
        rk_ir_push_key("kind");
        rk_ir_fail("unknown terminator \"%s\"", k);
    }
    t.kind = (RkTermKind)kind;
    t.loc = rk_ir_get_loc(o);
    t.value = (int)rk_ir_get_int(o, "value", t.kind == RK_TERM_CBR, -1);
    if (t.kind == RK_TERM_BR || t.kind == RK_TERM_CBR)
        t.to = decode_edge(o, "to");
    if (t.kind == RK_TERM_CBR)
        t.alt = decode_edge(o, "else");
    const char *text = rk_ir_get_str(o, "text", false);
    t.text = text ? rk_arena_strdup(&rk_heap, text) : NULL;
    json_t *args = t.kind == RK_TERM_TRAP ? rk_ir_get(o, "args", false) : NULL;
    if (args) {
        rk_ir_push_key("args");
        t.to.args = decode_ints(rk_ir_get_array(o, "args", true), &t.to.nargs);
        rk_ir_pop();
    }
    return t;
}

static RkBlock *decode_block(RkFunc *f, json_t *o)
{
    rk_ir_expect_object(o);
    RkBlock *b = RK_NEW(RkBlock);
    b->id = (int)rk_ir_get_int(o, "id", true, 0);
    json_t *ps = rk_ir_get_array(o, "params", true);
    rk_ir_push_key("params");
    b->nparams = (int)json_array_size(ps);
    b->params = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(b->nparams + 1));
    b->ptypes = rk_arena_alloc(&rk_heap, sizeof(RkType *) * (size_t)(b->nparams + 1));
    for (int i = 0; i < b->nparams; i++) {
        json_t *p = json_array_get(ps, (size_t)i);
        rk_ir_push_index((size_t)i);
        rk_ir_expect_object(p);
        b->params[i] = (int)rk_ir_get_int(p, "id", true, 0);
        b->ptypes[i] = decode_type(p, "type");
        rk_ir_pop();
    }
    rk_ir_pop();
    json_t *is = rk_ir_get_array(o, "instrs", true);
    rk_ir_push_key("instrs");
    for (size_t i = 0; i < json_array_size(is); i++) {
        rk_ir_push_index(i);
        RkInstr *in = decode_instr(json_array_get(is, i));
        b->instrs = grow(b->instrs, b->ninstrs, &b->cap, sizeof *b->instrs);
        b->instrs[b->ninstrs++] = in;
        rk_ir_pop();
    }
    rk_ir_pop();
    json_t *t = rk_ir_get(o, "term", false);
    if (t) {
        rk_ir_push_key("term");
        b->term = decode_term(t);
        b->terminated = true;
        rk_ir_pop();
    }
    (void)f;
    return b;
}

static RkFunc *decode_func(RkNirModule *m, json_t *o)
{
    rk_ir_expect_object(o);
    RkFunc *f = rk_nir_func(m, rk_arena_strdup(&rk_heap, rk_ir_get_str(o, "name", true)),
                            rk_arena_strdup(&rk_heap, rk_ir_get_str(o, "kind", true)),
                            rk_ir_get_loc(o));
    json_t *ps = rk_ir_get_array(o, "params", true);
    rk_ir_push_key("params");
    for (size_t i = 0; i < json_array_size(ps); i++) {
        json_t *p = json_array_get(ps, i);
        rk_ir_push_index(i);
        rk_ir_expect_object(p);
        int id = rk_nir_param(f, decode_type(p, "type"),
                              rk_arena_strdup(&rk_heap, rk_ir_get_str(p, "name", true)));
        f->params[f->nparams - 1] = (int)rk_ir_get_int(p, "id", true, id);
        rk_ir_pop();
    }
    rk_ir_pop();
    f->result = decode_type(o, "result");
    int64_t values = rk_ir_get_int(o, "values", true, 0);
    if (values < 0 || values > 1 << 24) {
        rk_ir_push_key("values");
        rk_ir_fail("expected a value count from 0 to 16777216");
    }
    f->nvalues = (int)values;
    f->nregions = (int)rk_ir_get_int(o, "regions", false, 0);
    json_t *bs = rk_ir_get_array(o, "blocks", true);
    rk_ir_push_key("blocks");
    for (size_t i = 0; i < json_array_size(bs); i++) {
        rk_ir_push_index(i);
        RkBlock *b = decode_block(f, json_array_get(bs, i));
        f->blocks = grow(f->blocks, f->nblocks, &f->bcap, sizeof *f->blocks);
        f->blocks[f->nblocks++] = b;
        rk_ir_pop();
    }
    rk_ir_pop();
    return f;
}

RkNirModule *rk_nir_decode(json_t *root)
{
    RkNirModule *m = RK_NEW(RkNirModule);
    m->source = rk_ir_get_str(root, "source", true);
    m->target = rk_ir_get_str(root, "target", true);
    json_t *fs = rk_ir_get_array(root, "functions", true);
    rk_ir_push_key("functions");
    for (size_t i = 0; i < json_array_size(fs); i++) {
        rk_ir_push_index(i);
        decode_func(m, json_array_get(fs, i));
        rk_ir_pop();
    }
    rk_ir_pop();
    return m;
}

/* --- text ------------------------------------------------------------------------- */

static void print_args(FILE *out, const int *a, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%%%d", i ? ", " : "", a[i]);
}

static void print_edge(FILE *out, const RkEdge *e)
{
    fprintf(out, "b%d", e->block);
    if (e->nargs) {
        fputc('(', out);
        print_args(out, e->args, e->nargs);
        fputc(')', out);
    }
}

static void print_instr(const RkInstr *in, FILE *out)
{
    fputs("  ", out);
    if (in->type)
        fprintf(out, "%%%d : %s = ", in->id, rk_nir_type_str(in->type));
    fputs(in->op, out);
    bool any = false;
    if (rk_nir_is_constant(in)) {
        const RkType *t = in->type;
        const char *e = t->kind == RK_T_MASK ? "bool" : rk_elem_name(t->elem);
        int digits = t->kind == RK_T_MASK ? 1 : rk_elem_bits(t->elem) / 4;
        fprintf(out, " %s:0x%0*" PRIx64, e, digits < 1 ? 1 : digits, in->bits);
        any = true;
    }
    if (in->nargs) {
        fputc(' ', out);
        print_args(out, in->args, in->nargs);
        any = true;
    }
    if (in->nlanes) {
        fputs(any ? ", [" : " [", out);
        for (int i = 0; i < in->nlanes; i++)
            fprintf(out, "%s%d", i ? ", " : "", in->lanes[i]);
        fputc(']', out);
        any = true;
    }
    if (in->imm || in->opc == RK_OP_RACK_EXTRACT || in->opc == RK_OP_RACK_INSERT)
        fprintf(out, "%s%" PRId64, any ? ", " : " ", in->imm);
    if (in->text)
        fprintf(out, " \"%s\"", in->text);
    bool open = false;
#define ATTR(...)                                                              \
    do {                                                                       \
        fputs(open ? ", " : " {", out);                                        \
        fprintf(out, __VA_ARGS__);                                             \
        open = true;                                                           \
    } while (0)
    if (in->fused >= 0)
        ATTR("fused=%d", in->fused);
    if (in->through >= 0)
        ATTR("through=%%%d", in->through);
    if (in->benign)
        ATTR("benign");
    if (in->sanitized)
        ATTR("sanitized");
#undef ATTR
    if (open)
        fputc('}', out);
    fputc('\n', out);
}

static void print_term(const RkTerm *t, FILE *out)
{
    switch (t->kind) {
    case RK_TERM_RET:
        if (t->value >= 0)
            fprintf(out, "  return %%%d\n", t->value);
        else
            fputs("  return\n", out);
        break;
    case RK_TERM_BR:
        fputs("  br ", out);
        print_edge(out, &t->to);
        fputc('\n', out);
        break;
    case RK_TERM_CBR:
        fprintf(out, "  cbr %%%d, ", t->value);
        print_edge(out, &t->to);
        fputs(", ", out);
        print_edge(out, &t->alt);
        fputc('\n', out);
        break;
    case RK_TERM_TRAP:
        fprintf(out, "  trap \"%s\"", t->text ? t->text : "");
        if (t->to.nargs) {
            fputs(" (", out);
            print_args(out, t->to.args, t->to.nargs);
            fputc(')', out);
        }
        fputc('\n', out);
        break;
    }
}

void rk_nir_print_func(const RkFunc *f, FILE *out)
{
    fprintf(out, "func @%s(", f->name);
    for (int i = 0; i < f->nparams; i++)
        fprintf(out, "%s%%%d : %s %s", i ? ", " : "", f->params[i],
                rk_nir_type_str(f->ptypes[i]), f->pnames[i]);
    fprintf(out, ") -> %s {\n", rk_nir_type_str(f->result));
    for (int i = 0; i < f->nblocks; i++) {
        const RkBlock *b = f->blocks[i];
        if (f->nblocks > 1 || b->nparams) {
            fprintf(out, "b%d", b->id);
            if (b->nparams) {
                fputc('(', out);
                for (int j = 0; j < b->nparams; j++)
                    fprintf(out, "%s%%%d : %s", j ? ", " : "", b->params[j],
                            rk_nir_type_str(b->ptypes[j]));
                fputc(')', out);
            }
            fputs(":\n", out);
        }
        for (int j = 0; j < b->ninstrs; j++)
            print_instr(b->instrs[j], out);
        if (b->terminated)
            print_term(&b->term, out);
    }
    fputs("}\n", out);
}

void rk_nir_print(const RkNirModule *m, FILE *out)
{
    for (int i = 0; i < m->nfuncs; i++) {
        if (i)
            fputc('\n', out);
        rk_nir_print_func(m->funcs[i], out);
    }
}

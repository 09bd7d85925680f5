/* value.c: values and the module's definitions.
 *
 * A scalar, and each lane of a rack, is held as a uint64_t in canonical
 * form: a float as its bit pattern, a signed integer sign-extended, an
 * unsigned one zero-extended, a bool as 0 or 1 (norm()).  Arrays are
 * values: binding or assigning one copies its buffer; views and stack
 * columns alias a buffer. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"
#include "lanewise.h"

Interp *I;

uint64_t norm(RkElem e, uint64_t x) { return rk_lane_norm(e, x); }

uint64_t elem_size(RkElem e)
{
    int b = rk_elem_bits(e);
    return b < 8 ? 1 : (uint64_t)b / 8;
}

/* A value holds at most MAXL lanes: 16 f32 lanes on x86-avx512, and
 * rake-check allows 8- and 16-bit racks only on the 128-bit profiles (16
 * u8 lanes).  A document that breaks that was not written by rake-check. */
int checked_lanes(int n)
{
    if (n > MAXL)
        rk_diag_input("a rack of %d lanes: rake-interp holds at most %d (rake-check "
                      "allows no wider rack on any profile)",
                      n, MAXL);
    return n;
}

int lanes_of(RkElem e) { return checked_lanes(rk_lanes_of(e, I->f32_lanes)); }

uint64_t all_lanes(int n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

Val v_unit(void)
{
    Val v;
    memset(&v, 0, sizeof v);
    v.kind = V_UNIT;
    return v;
}

Val v_scalar(RkElem e, uint64_t bits)
{
    Val v = v_unit();
    v.kind = V_SCALAR;
    v.elem = e;
    v.v[0] = norm(e, bits);
    return v;
}

Val v_rack(RkElem e, int lanes)
{
    Val v = v_unit();
    v.kind = V_RACK;
    v.elem = e;
    v.lanes = lanes;
    return v;
}

Val v_splat(RkElem e, uint64_t bits)
{
    Val v = v_rack(e, lanes_of(e));
    for (int i = 0; i < v.lanes; i++)
        v.v[i] = norm(e, bits);
    return v;
}

Val v_mask(RkElem lane_elem, int lanes)
{
    Val v = v_rack(lane_elem, lanes);
    v.kind = V_MASK;
    return v;
}

/* A node's type: a document's node without a readable "ty" is refused
 * at the node (exit 2), as rake-lower refuses it. */
const RkType *ty_of(RkNode *n)
{
    return rk_ast_type(I ? I->module : NULL, n, "rake-interp");
}

/* A value where type t is expected: broadcast a scalar into a rack. */
Val to_type(Val v, const RkType *t)
{
    if (t->kind == RK_T_RACK && v.kind == V_SCALAR)
        return v_splat(t->elem, v.v[0]);
    return v;
}

Buffer *buffer_new(RkElem e, int64_t n)
{
    Buffer *b = RK_NEW(Buffer);
    b->elem = e;
    b->n = n;
    b->data = calloc((size_t)(n ? n : 1), sizeof(uint64_t));
    if (!b->data)
        rk_diag_internal("out of memory for an array of %lld elements", (long long)n);
    return b;
}

Val array_copy(Val a)
{
    if (a.kind != V_ARRAY)
        return a;
    Buffer *b = buffer_new(a.arr->elem, a.arr->n);
    memcpy(b->data, a.arr->data, sizeof(uint64_t) * (size_t)a.arr->n);
    a.arr = b;
    return a;
}

static RkNode *find(const char *name, RkKind k1, RkKind k2)
{
    RkList d = I->module->decls;
    for (int i = 0; i < d.len; i++)
        if ((d.items[i]->kind == k1 || d.items[i]->kind == k2) &&
            !strcmp(d.items[i]->name, name))
            return d.items[i];
    return NULL;
}

RkNode *find_fn(const char *name)
{
    RkNode *n = find(name, RK_SCRATCH, RK_RAKE);
    if (!n)
        n = find(name, RK_RUN, RK_SLOW);
    return n;
}

RkNode *find_tine(const char *name) { return find(name, RK_TINE, RK_TINE); }
RkNode *find_pack_decl(const char *name) { return find(name, RK_PACK, RK_PACK); }

/* Module constants and state, by name. */
typedef struct Global {
    const char *name;
    Val v;
    struct Global *next;
} Global;
static Global *globals;

Val *global_value(RkNode *name)
{
    for (Global *g = globals; g; g = g->next)
        if (!strcmp(g->name, name->name))
            return &g->v;
    RkNode *d = find(name->name, RK_CONST, RK_STATE);
    if (!d)
        d = find(name->name, RK_EMBED, RK_EMBED);
    if (!d)
        rk_diag_internal("rake-interp: unknown global '%s'", name->name);
    Global *g = RK_NEW(Global);
    g->name = d->name;
    const RkType *t = ty_of(d);
    if (d->kind == RK_EMBED) {
        g->v = embed_value(d);
    } else if (d->value) {
        Frame *f = push_frame(d);
        g->v = to_type(eval_slow(d->value), t);
        pop_frame(f);
    } else {
        g->v = zero_of(t);
    }
    g->next = globals;
    globals = g;
    return &g->v;
}

/* An integer literal's digits: 0x hex, otherwise decimal even with leading
 * zeros (010 is ten, never octal). */
static unsigned long long literal_digits(const char *s)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return strtoull(s + 2, NULL, 16);
    return strtoull(s, NULL, 10);
}

/* A literal's bits in element e. */
uint64_t parse_literal(RkNode *lit, RkElem e)
{
    const char *s = lit->text;
    if (lit->kind == RK_BOOL)
        return !strcmp(s, "true");
    if (rk_elem_is_float(e)) {
        double d = strtod(s, NULL);
        if (lit->kind == RK_INT) {
            bool neg = *s == '-';
            unsigned long long u = literal_digits(neg ? s + 1 : s);
            if (e == RK_E_F32) {
                float f = neg ? -(float)u : (float)u;
                uint32_t b;
                memcpy(&b, &f, 4);
                return b;
            }
            d = neg ? -(double)u : (double)u;
        }
        if (e == RK_E_F32) {
            float f = strtof(s, NULL);
            uint32_t b;
            memcpy(&b, &f, 4);
            return b;
        }
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    bool neg = *s == '-';
    unsigned long long u = literal_digits(neg ? s + 1 : s);
    return norm(e, neg ? 0 - u : u);
}

int64_t as_i64(Val v) { return (int64_t)v.v[0]; }

double as_f64(Val v)
{
    if (v.elem == RK_E_F32) {
        float f;
        uint32_t b = (uint32_t)v.v[0];
        memcpy(&f, &b, 4);
        return f;
    }
    if (v.elem == RK_E_F64) {
        double d;
        memcpy(&d, &v.v[0], 8);
        return d;
    }
    if (rk_elem_is_signed(v.elem))
        return (double)(int64_t)v.v[0];
    return (double)v.v[0];
}

Frame *push_frame(RkNode *fn)
{
    if (++I->depth > MAX_DEPTH)
        rk_diag_trap(fn->loc, "calls nest more than %d deep", MAX_DEPTH);
    Frame *f = calloc(1, sizeof *f);
    f->fn = fn;
    f->nslots = fn->slot > 0 ? fn->slot : 0;
    f->slots = calloc((size_t)(f->nslots ? f->nslots : 1), sizeof(Val));
    f->fused = calloc((size_t)(f->nslots ? f->nslots : 1), sizeof(RkNode *));
    f->region = calloc((size_t)(f->nslots ? f->nslots : 1), sizeof(int));
    if (!f->slots || !f->fused || !f->region)
        rk_diag_internal("out of memory");
    f->caller = I->frame;
    I->frame = f;
    return f;
}

void pop_frame(Frame *f)
{
    I->frame = f->caller;
    I->depth--;
    if (!f->escaped) /* else a pointer may still reach a slot */
        free(f->slots);
    free(f->fused);
    free(f->region);
    free(f);
}

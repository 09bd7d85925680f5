/* target.c: finding targets, registers and instructions in the tables of
 * target_x86.c and target_arm64.c.  Nothing here knows a register name or
 * a mnemonic: it only searches the rows. */
#include "target.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"

static const char *const class_names[RK_RC_COUNT] = {"vec", "gpr", "mask"};

/* --- name indexes -------------------------------------------------------------------
 * Decoders look up every register name and mnemonic of a document, so
 * each target gets, on first use, two open-addressed hash tables over its
 * rows (sized to a power of two above twice the rows; they grow with the
 * table, nothing is dropped). */

typedef struct Slot {
    const char *key;
    int a, b, c; /* register: class, number, bits; mnemonic: row */
} Slot;

typedef struct Index {
    const RkTarget *t;
    Slot *regs, *insns;
    unsigned nregs, ninsns; /* capacities (powers of two) */
} Index;

static Index indexes[8];

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static Slot *table(unsigned n)
{
    Slot *t = calloc(n, sizeof *t);
    if (!t)
        rk_diag_internal("out of memory for the target's name index");
    return t;
}

static void put(Slot *t, unsigned cap, const char *key, int a, int b, int c)
{
    unsigned i = hash(key) & (cap - 1);
    while (t[i].key && strcmp(t[i].key, key))
        i = (i + 1) & (cap - 1);
    if (!t[i].key)
        t[i] = (Slot){key, a, b, c};
}

static const Slot *get(const Slot *t, unsigned cap, const char *key)
{
    for (unsigned i = hash(key) & (cap - 1); t[i].key; i = (i + 1) & (cap - 1))
        if (!strcmp(t[i].key, key))
            return &t[i];
    return NULL;
}

static unsigned capacity(unsigned rows)
{
    unsigned n = 16;
    while (n < 2 * rows + 1)
        n *= 2;
    return n;
}

static void index_regs(Index *x, const RkTarget *t)
{
    unsigned rows = 0;
    for (int c = 0; c < RK_RC_COUNT; c++)
        for (const RkRegView *v = t->regs[c].views; v && v->names; v++)
            rows += (unsigned)t->regs[c].count;
    x->nregs = capacity(rows);
    x->regs = table(x->nregs);
    for (int c = 0; c < RK_RC_COUNT; c++) {
        const RkRegFile *f = &t->regs[c];
        for (const RkRegView *v = f->views; v && v->names; v++)
            for (int n = 0; n < f->count && v->bits <= f->full_bits; n++)
                put(x->regs, x->nregs, v->names[n], c, n, v->bits == f->full_bits ? 0 : v->bits);
    }
}

static const Index *index_of(const RkTarget *t)
{
    int i = 0;
    while (i < 8 && indexes[i].t && indexes[i].t != t)
        i++;
    if (i == 8)
        rk_diag_internal("more than 8 targets indexed");
    Index *x = &indexes[i];
    if (x->t)
        return x;
    x->t = t;
    index_regs(x, t);
    unsigned rows = 0;
    while (t->insns[rows].mnem)
        rows++;
    x->ninsns = capacity(rows);
    x->insns = table(x->ninsns);
    for (unsigned r = 0; r < rows; r++)
        put(x->insns, x->ninsns, t->insns[r].mnem, (int)r, 0, 0);
    return x;
}

const RkTarget *rk_target_find(const char *profile)
{
    if (!profile)
        return NULL;
    for (int i = 0; i < 3; i++)
        if (!strcmp(rk_target_x86[i].profile, profile))
            return &rk_target_x86[i];
    if (!strcmp(rk_target_arm64.profile, profile))
        return &rk_target_arm64;
    return NULL;
}

const char *rk_reg_class_name(RkRegClass c) { return class_names[c]; }

int rk_reg_class_find(const char *name)
{
    for (int c = 0; c < RK_RC_COUNT; c++)
        if (!strcmp(class_names[c], name))
            return c;
    return -1;
}

const char *rk_target_reg_name(const RkTarget *t, RkRegClass c, int num, int bits)
{
    const RkRegFile *f = &t->regs[c];
    if (num < 0 || num >= f->count || !f->views)
        return NULL;
    if (bits == 0)
        bits = f->full_bits;
    if (bits > f->full_bits)
        return NULL;
    for (const RkRegView *v = f->views; v->names; v++)
        if (v->bits == bits)
            return v->names[num];
    return NULL;
}

bool rk_target_reg_parse(const RkTarget *t, const char *name, RkRegRef *r, int *bits)
{
    const Index *x = index_of(t);
    const Slot *s = get(x->regs, x->nregs, name);
    if (!s)
        return false;
    r->cls = (RkRegClass)s->a;
    r->num = s->b;
    *bits = s->c;
    return true;
}

const RkInsnDesc *rk_target_insn(const RkTarget *t, const char *mnem)
{
    const Index *x = index_of(t);
    const Slot *s = get(x->insns, x->ninsns, mnem);
    return s ? &t->insns[s->a] : NULL;
}

bool rk_target_insn_is(const RkTarget *t, const char *mnem, unsigned flags)
{
    const RkInsnDesc *d = mnem ? rk_target_insn(t, mnem) : NULL;
    return d && (d->flags & flags) == flags;
}

bool rk_target_has(const RkTarget *t, const RkInsnDesc *d)
{
    return d && (d->profiles >> t->index & 1u);
}

int rk_target_allocatable(const RkTarget *t, RkRegClass c)
{
    const RkRegFile *f = &t->regs[c];
    int n = 0;
    for (const int8_t *o = f->order; o && *o >= 0; o++)
        n += *o < f->count && !(f->reserved >> *o & 1u);
    return n;
}

bool rk_target_cond(const RkTarget *t, const char *cond)
{
    for (const char *const *c = t->conds; *c; c++)
        if (!strcmp(*c, cond))
            return true;
    return false;
}

const char *rk_target_cond_inverse(const RkTarget *t, const char *cond)
{
    for (int i = 0; t->conds[i]; i++)
        if (!strcmp(t->conds[i], cond))
            return t->inverse[i];
    return NULL;
}

bool rk_target_slow_saved(const RkTarget *t, RkRegClass c, int r)
{
    const RkRegFile *rf = &t->regs[c];
    if (!t->slow || r < 0 || r >= rf->count || !t->slow->save[c])
        return false;
    if (c == RK_RC_VEC)
        return true;
    return !(c == RK_RC_GPR && r == t->stack_pointer) && !(rf->reserved & (1ull << r));
}

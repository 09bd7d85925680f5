/* target.c: finding targets, registers and instructions in the tables of
 * target_x86.c and target_arm64.c.  Nothing here knows a register name or
 * a mnemonic: it only searches the rows. */
#include "target.h"

#include <string.h>

static const char *const class_names[RK_RC_COUNT] = {"vec", "gpr", "mask"};

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
    for (int c = 0; c < RK_RC_COUNT; c++) {
        const RkRegFile *f = &t->regs[c];
        if (!f->views)
            continue;
        for (const RkRegView *v = f->views; v->names; v++)
            for (int n = 0; n < f->count && v->bits <= f->full_bits; n++)
                if (!strcmp(v->names[n], name)) {
                    r->cls = (RkRegClass)c;
                    r->num = n;
                    *bits = v->bits == f->full_bits ? 0 : v->bits;
                    return true;
                }
    }
    return false;
}

const RkInsnDesc *rk_target_insn(const RkTarget *t, const char *mnem)
{
    for (const RkInsnDesc *d = t->insns; d->mnem; d++)
        if (!strcmp(d->mnem, mnem))
            return d;
    return NULL;
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

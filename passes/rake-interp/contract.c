/* contract.c: `--contract`, multiply-add contraction as x86-avx2,
 * x86-avx512 and aarch64-neon compile it.
 *
 * Rake's semantics never contract; this mode exists so that the code of
 * the contracting profiles can be compared with an independent reference.
 * It applies the original compiler's rule (10-gap-notes.md, section 2) to
 * the source: a fused region is a maximal run of consecutive fused
 * bindings in one statement list (none directly in a run's body, none for
 * a scratch's final expression); inside one, an f32-rack `+` whose left
 * operand (else its right) is an f32-rack `*` of the same region, directly
 * or through the names of the region's fused bindings, is computed as
 * fma(mul.lhs, mul.rhs, other) with one rounding. */
#include <string.h>

#include "interp.h"
#include "lanes.h"

static bool is_f32_rack(RkNode *n)
{
    return n->ty && !strcmp(n->ty, "f32s");
}

/* The multiply this operand is, in the current region, or NULL.  A chain
 * of fused names ends: each binding's value names only earlier ones. */
static RkNode *mul_of(RkNode *n)
{
    if (n->kind == RK_BINARY && !strcmp(n->op, "*") && is_f32_rack(n))
        return n;
    if (n->kind == RK_NAME && n->slot >= 0 && n->slot < I->frame->nslots && n->ref &&
        strcmp(n->ref, "const") && strcmp(n->ref, "state")) {
        RkNode *b = I->frame->fused[n->slot];
        if (b && I->frame->region[n->slot] == I->region)
            return mul_of(b->value);
    }
    return NULL;
}

static Val as_rack(Val v)
{
    return v.kind == V_SCALAR ? v_splat(RK_E_F32, v.v[0]) : v;
}

bool contract_add(RkNode *e, Val *out)
{
    if (!I->contract || I->region < 0 || strcmp(e->op, "+") || !is_f32_rack(e))
        return false;
    RkNode *m = mul_of(e->lhs), *other = e->rhs;
    if (!m) {
        m = mul_of(e->rhs);
        other = e->lhs;
    }
    if (!m)
        return false;
    Val a = as_rack(eval(m->lhs)), b = as_rack(eval(m->rhs)), c = as_rack(eval(other));
    for (int l = 0; l < a.lanes; l++)
        a.v[l] = rk_f32_fma((uint32_t)a.v[l], (uint32_t)b.v[l], (uint32_t)c.v[l]);
    *out = a;
    return true;
}

/* Statements with their fused regions. */
void exec_statements(RkList body, int upto)
{
    int saved = I->region;
    bool in_region = false;
    for (int i = 0; i < upto; i++) {
        RkNode *s = body.items[i];
        bool fused = s->kind == RK_FUSED && I->regions_on;
        if (fused && !in_region)
            I->region = I->regions++;
        else if (!fused)
            I->region = saved;
        in_region = fused;
        exec_vector(s);
        if (fused && s->slot >= 0 && s->slot < I->frame->nslots) {
            I->frame->fused[s->slot] = s;
            I->frame->region[s->slot] = I->region;
        }
    }
    I->region = saved;
}

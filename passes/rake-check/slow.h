/* slow.h: what slow.c and slowcall.c share. */
#ifndef RAKE_CHECK_SLOW_H
#define RAKE_CHECK_SLOW_H

#include "check.h"

static inline Info err(void) { return info_of(&rk_ty_error); }

static inline bool is_scalar(const RkType *t, RkElem e)
{
    return t->kind == RK_T_SCALAR && (e == RK_E_NONE || t->elem == e);
}

static inline bool is_int(const RkType *t)
{
    return t->kind == RK_T_SCALAR && rk_elem_is_int(t->elem);
}

static inline bool is_num(const RkType *t)
{
    return t->kind == RK_T_SCALAR && t->elem != RK_E_BOOL;
}

/* slow.c */
void slow_operands(RkNode *l, RkNode *r, const RkType *expect, Info *li, Info *ri);

/* slowcall.c: writable storage (docs/checker-decisions.md) */
bool slow_writable(RkNode *a);
const char *slow_readonly_reason(RkNode *a);
bool slow_stack_ro(RkNode *e);

#endif

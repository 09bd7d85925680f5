/* run.c: stack runs and general runs.
 *
 * A stack run works a rack of records at a time.  Its domain is the widest
 * element among its stacks' columns; a column that wide is a rack directly,
 * a narrower one has no rack value until widen(...).  The last statement
 * names the result stack (`s with {...} [where p]`, `compact s ...`), whose
 * pack is the declared result; replacements take the field's working rack
 * type.  A general run indexes views with counted loops; it compiles only
 * where the profile table says so. */
#include <string.h>

#include "arena.h"
#include "check.h"

static int domain_of(RkNode *fn)
{
    int bits = 0;
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        if (p->type->kind != RK_TYPE_STACK)
            continue;
        RkNode *pack = find_pack(p->type->name);
        for (int j = 0; pack && j < pack->fields.len; j++) {
            RkNode *f = pack->fields.items[j];
            if (!f->ty)
                continue;
            int b = rk_elem_bits(rk_type_parse(f->ty)->elem);
            bits = b > bits ? b : bits;
        }
    }
    return bits;
}

Info check_column(RkNode *e, RkNode *param)
{
    RkNode *pack = find_pack(param->type->name);
    RkNode *f = pack ? pack_field(pack, e->name) : NULL;
    if (!f) {
        ERROR(e->loc, "pack %s has no field '%s'", param->type->name, e->name);
        return info_of(&rk_ty_error);
    }
    if (!f->ty)
        return info_of(&rk_ty_error);
    RkElem el = rk_type_parse(f->ty)->elem;
    const RkType *t;
    if (rk_elem_bits(el) == C->domain_bits) {
        t = rk_ty_rack(el);
        if (el == RK_E_I8 || el == RK_E_U16) {
            ERROR(e->loc, "%s racks have no implementation", rk_elem_rack_name(el));
            return info_of(&rk_ty_error);
        }
    } else {
        t = rk_ty_column(el);
    }
    e->note = "column";
    set_ty(e, t);
    return info_of(t);
}

static void run_params(RkNode *fn, bool stack_run)
{
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = resolve_type(p->type, true);
        if (!is_error(t)) {
            bool ok;
            if (p->uniform)
                ok = t->kind == RK_T_SCALAR;
            else
                ok = t->kind == RK_T_STACK || t->kind == RK_T_VIEW ||
                     t->kind == RK_T_RACK || t->kind == RK_T_MASK;
            if (!ok) {
                ERROR(p->loc, p->uniform ? "a uniform parameter <%s> has a scalar "
                                           "type, not %s"
                                         : "a run's parameter '%s' is a stack, a "
                                           "view, a rack or a <uniform>, not %s",
                      p->name, ty_name(t));
                t = &rk_ty_error;
            } else if (t->kind == RK_T_STACK && !stack_run) {
                ERROR(p->loc, "a general run takes views, not stacks; a run over "
                              "stacks declares its result, -> stack P");
                t = &rk_ty_error;
            } else if (t->kind == RK_T_VIEW && stack_run) {
                require_cap(RK_FEAT_STACK_RUN_VIEWS, p->loc, "views in stack runs");
            } else if (t->kind == RK_T_RACK) {
                rack_elem_ok(t->elem, p->type->loc);
            }
        }
        Binding *b = bind(p, p->name, B_PARAM, t);
        b->uniform = p->uniform;
        p->ty = is_error(t) ? NULL : rk_ty_str(t);
    }
}

static void run_stmt(RkNode *s);

static void run_block(RkList body)
{
    scope_push(false);
    for (int i = 0; i < body.len; i++)
        run_stmt(body.items[i]);
    scope_pop();
}

static void for_stmt(RkNode *s)
{
    const RkType *it = s->type ? resolve_type(s->type, true) : rk_ty_scalar(RK_E_I32);
    if (!s->uniform)
        ERROR(s->loc, "a run's loop index is uniform: for <%s: i32> from <a> up to "
                      "<b>",
              s->name);
    if (!is_error(it) && (it->kind != RK_T_SCALAR || !rk_elem_is_int(it->elem))) {
        ERROR(s->type->loc, "a loop index is an integer, not %s", ty_name(it));
        it = &rk_ty_error;
    }
    RkNode *bounds[] = {s->from, s->to, s->step};
    for (int i = 0; i < 3; i++) {
        if (!bounds[i])
            continue;
        Info b = check_vexpr(bounds[i], it);
        if (!is_error(b.ty) && !is_error(it) && !rk_ty_equal(b.ty, it))
            ERROR(bounds[i]->loc, "the loop's %s is %s, but its index is %s",
                  i == 0 ? "start" : i == 1 ? "bound" : "step", ty_name(b.ty),
                  rk_ty_str(it));
    }
    C->vector_loop++;
    scope_push(false);
    Binding *b = bind(s, s->name, B_INDEX, it);
    b->uniform = true;
    run_block(s->body);
    scope_pop();
    C->vector_loop--;
}

static void if_stmt(RkNode *s)
{
    Info c = check_vexpr(s->cond, NULL);
    if (!is_error(c.ty) && !(c.ty->kind == RK_T_SCALAR && c.ty->elem == RK_E_BOOL))
        ERROR(s->cond->loc, "a statement if in a run takes a uniform condition, not "
                            "%s; select lanes with if m then a else b",
              ty_name(c.ty));
    require_cap(RK_FEAT_UNIFORM_IF, s->loc, "if on a uniform condition");
    run_block(s->body);
    if (s->else_body.len)
        run_block(s->else_body);
}

static void run_stmt(RkNode *s)
{
    switch (s->kind) {
    case RK_FOR:
        for_stmt(s);
        return;
    case RK_IF:
        if_stmt(s);
        return;
    case RK_EXPR:
        if (s->value->kind == RK_SLOW_BLOCK) {
            check_slow_block(s->value, NULL);
            return;
        }
        ERROR(s->loc, "this expression's value is unused; a run's statements bind, "
                      "assign or store values");
        check_vexpr(s->value, NULL);
        return;
    case RK_WITH:
    case RK_COMPACT:
        ERROR(s->loc, "%s belongs at the end of a stack run",
              s->kind == RK_WITH ? "'s with { ... }'" : "'compact'");
        return;
    case RK_THROUGH:
    case RK_SWEEP:
        ERROR(s->loc, "through blocks and sweeps belong to rakes; call the rake "
                      "from the run");
        return;
    default:
        check_vector_stmt(s);
    }
}

static void replacements(RkNode *s, RkNode *pack)
{
    for (int i = 0; i < s->fields.len; i++) {
        RkNode *fi = s->fields.items[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(s->fields.items[j]->name, fi->name))
                ERROR(fi->loc, "field '%s' is replaced twice", fi->name);
        RkNode *f = pack_field(pack, fi->name);
        if (!f) {
            ERROR(fi->loc, "pack %s has no field '%s'", pack->name, fi->name);
            check_vexpr(fi->value, NULL);
            continue;
        }
        if (!f->ty) {
            check_vexpr(fi->value, NULL);
            continue;
        }
        RkElem el = rk_type_parse(f->ty)->elem;
        if (rk_elem_bits(el) != C->domain_bits) {
            require_cap(RK_FEAT_NARROW_REPLACE, fi->loc,
                        rk_arena_printf(&rk_heap, "replacing the %s field '%s'",
                                        rk_elem_name(el), f->name));
            check_vexpr(fi->value, NULL);
            continue;
        }
        const RkType *want = rk_ty_rack(el);
        Info v = check_vexpr(fi->value, want);
        coerce(fi->value, v, want, rk_arena_printf(&rk_heap, "the new %s", fi->name));
        fi->ty = rk_ty_str(want);
    }
}

static void result_stmt(RkNode *s, const RkType *ret)
{
    RkNode *st = s->stack;
    Binding *b = st->kind == RK_NAME ? lookup(st->name) : NULL;
    if (!b || b->type->kind != RK_T_STACK || b->kind != B_PARAM) {
        ERROR(st->loc, "%s is not a stack parameter of %s: the run's result "
                       "names one of its stack parameters, as in s with { ... }",
              st->kind == RK_NAME ? rk_arena_printf(&rk_heap, "'%s'", st->name)
                                  : "this",
              C->fn->name);
        return;
    }
    annotate_slot(st, b);
    set_ty(st, b->type);
    if (!is_error(ret) && strcmp(b->type->name, ret->name)) {
        ERROR(st->loc, "'%s' is a stack %s, but the run returns stack %s", st->name,
              b->type->name, ret->name);
        return;
    }
    RkNode *pack = find_pack(b->type->name);
    if (s->kind == RK_COMPACT && C->domain_bits == 8)
        require_cap(RK_FEAT_COMPACT_BYTES, s->loc, "compacting a run whose widest "
                                                   "column has 8 bits");
    if (s->pred) {
        Info p = check_vexpr(s->pred, NULL);
        if (!is_error(p.ty) && p.ty->kind != RK_T_MASK)
            ERROR(s->pred->loc, "'where' selects records with a mask, not %s",
                  ty_name(p.ty));
        else if (!is_error(p.ty) && rk_elem_bits(p.ty->elem) != C->domain_bits)
            ERROR(s->pred->loc, "this mask has %d-bit lanes, but the run's domain "
                                "is %d-bit",
                  rk_elem_bits(p.ty->elem), C->domain_bits);
    }
    replacements(s, pack);
    s->ty = rk_ty_str(b->type);
}

static void stack_run(RkNode *fn)
{
    require_cap(RK_FEAT_STACK_RUN, fn->loc, "stack runs");
    run_params(fn, true);
    const RkType *ret = resolve_type(fn->ret, true);
    if (!is_error(ret) && ret->kind != RK_T_STACK) {
        ERROR(fn->ret->loc, "a run returns a stack (-> stack P) or nothing, not %s",
              ty_name(ret));
        ret = &rk_ty_error;
    }
    C->domain_bits = domain_of(fn);
    if (C->domain_bits == 0)
        ERROR(fn->loc, "a stack run takes at least one stack parameter");
    else if (C->domain_bits != 32)
        require_cap(RK_FEAT_DOMAIN_64, fn->loc,
                    rk_arena_printf(&rk_heap, "a stack run in a%s %d-bit domain",
                                    C->domain_bits == 8 ? "n" : "", C->domain_bits));
    fn->ty = is_error(ret) ? NULL : rk_ty_str(ret);
    RkList body = fn->body;
    RkNode *last = body.items[body.len - 1];
    for (int i = 0; i < body.len - 1; i++)
        run_stmt(body.items[i]);
    if (last->kind != RK_WITH && last->kind != RK_COMPACT) {
        ERROR(last->loc, "a stack run ends with its result: s with { ... }, or "
                         "compact s where p");
        run_stmt(last);
    } else if (!is_error(ret)) {
        result_stmt(last, ret);
    }
    fn->note = rk_arena_printf(&rk_heap, "domain %d", C->domain_bits);
}

void check_run(RkNode *fn)
{
    bool stack = fn->ret != NULL;
    fn_begin(fn, stack ? FN_STACK_RUN : FN_GENERAL_RUN);
    if (stack) {
        stack_run(fn);
    } else {
        require_cap(RK_FEAT_GENERAL_RUN, fn->loc, "general runs");
        run_params(fn, false);
        for (int i = 0; i < fn->body.len; i++)
            run_stmt(fn->body.items[i]);
    }
    fn_end(fn);
}

/* call.c: calls from slow code.
 *
 * Every call first checks the depth (rk_enter: `calls nest more than
 * 10000 deep` at the call, as the interpreter checks before it evaluates
 * the arguments), then evaluates the arguments left to right.
 *
 *   slow function   rk_fn_<name>(...): scalars and views by value, arrays
 *                   by pointer (an array parameter is the caller's array).
 *   stack run       the C boundary of spec page 03: each stack by its
 *                   descriptor, the result's mutable, uniforms by value.
 *                   Before the call, the interpreter's checks (run.c):
 *                   the stacks' counts, the result's columns against every
 *                   other argument, and against each other.  The run
 *                   writes the result's count itself.
 *   general run     a statement, on a physical profile: each view as
 *                   its pointer and i32 count (an array as a view of all
 *                   its elements), uniforms by value.  No check before the
 *                   call: the run checks each access itself, and its
 *                   failing checks reach the unit's rk_trap_LINE_COL
 *                   helpers (traps.c).
 *   kernel          a scratch or rake whose parameters are uniform f32,
 *                   i32, u32 or bool, returning one of those (System V).
 *
 * Runs and kernels keep their source names as symbols (declared once, in
 * the order they are first called, by C names of their own bound to the
 * symbol with an asm label).  Names of the C library the unit links
 * (rk_cnames_libc) are refused: in the one assembly file, the unit's own
 * calls of that function would reach the kernel.  A run parameter that is
 * neither a stack, a view nor a uniform (a rack, which only C callers can
 * pass) is a located error. */
#include <string.h>

#include "arena.h"
#include "cgen.h"
#include "cnames.h"
#include "profile.h"

RkNode *find_decl(const char *name, RkKind k1, RkKind k2)
{
    RkList d = G->m->decls;
    for (int i = 0; i < d.len; i++)
        if ((d.items[i]->kind == k1 || d.items[i]->kind == k2) && d.items[i]->name &&
            !strcmp(d.items[i]->name, name))
            return d.items[i];
    return NULL;
}

/* Native functions are called in the unit by C names of their own,
 * rk_native_<name>, bound to the symbol by an asm label: a kernel may be
 * named after a C keyword.  Only rk_ and rake_ names would collide with the
 * unit's own symbols in the one assembly file. */
static const char *native_cname(const char *name) { return fmt("rk_native_%s", name); }

/* Whether the unit's profile has native code for general runs. */
bool physical_target(void)
{
    const RkProfile *p = rk_profile_find(G->target);
    return p && (p->arch == RK_ARCH_X86 || p->arch == RK_ARCH_AARCH64);
}

static void declare_native(RkNode *c, const char *name, const char *proto)
{
    if (!strncmp(name, "rk_", 3) || !strncmp(name, "rake_", 5))
        refuse(c->loc, "rake-cgen: '%s' can't be the C name of a native function: rk_ and "
                       "rake_ are the generated unit's own",
               name);
    if (rk_cnames_libc(name))
        refuse(c->loc, "rake-cgen: '%s' can't be a native function of a whole program: the C "
                       "library the program links defines that name",
               name);
    if (!nameset_add(&G->native_names, name))
        return;
    buf_printf(&G->natives, "%s __asm__(\"%s\");\n", proto, name);
}

/* An argument: the operand of a <...> mark, or the value (arrays as
 * lvalues); as a view when the parameter is one. */
static const char *argument(RkNode *a, RkNode *param)
{
    if (a->kind == RK_UNIFORM)
        return ex(a->operand);
    const RkType *at = type_of(a), *pt = type_of(param);
    const char *v = ex(a);
    if (pt->kind == RK_T_VIEW)
        return view_of(a, v, at);
    if (aggregate(pt))
        return fmt("&%s", v);
    return v;
}

static const char *args_list(RkNode *c, RkNode *fn)
{
    if (c->args.len != fn->params.len)
        refuse(c->loc, "rake-cgen: '%s' takes %d arguments, not %d", fn->name, fn->params.len,
               c->args.len);
    const char **v = rk_arena_alloc(&rk_heap, sizeof *v * (size_t)(c->args.len + 1));
    for (int i = 0; i < c->args.len; i++)
        v[i] = argument(c->args.items[i], fn->params.items[i]);
    Buf b = {0};
    buf_add(&b, "");
    for (int i = 0; i < c->args.len; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", v[i]);
    return b.s;
}

/* Emits a call's text as a statement, or into a temporary it returns
 * when the call (c, typed by rake-check) has a value. */
const char *finish_call(RkNode *c, const char *call_text)
{
    const RkType *rt = type_of(c);
    if (rt->kind == RK_T_UNIT) {
        emit("%s;", call_text);
        return NULL;
    }
    const char *r = tmp(rt);
    emit("%s = %s;", r, call_text);
    return r;
}

static const char *slow_call(RkNode *c, RkNode *fn)
{
    return finish_call(c, fmt("rk_fn_%s(%s)", fn->name, args_list(c, fn)));
}

/* --- stack runs ----------------------------------------------------------------------- */


static int result_param(RkNode *run)
{
    RkNode *last = run->body.len ? run->body.items[run->body.len - 1] : NULL;
    if (last && (last->kind == RK_WITH || last->kind == RK_COMPACT) && last->stack)
        for (int i = 0; i < run->params.len; i++)
            if (run->params.items[i]->slot == last->stack->slot)
                return i;
    return -1;
}

/* Does the run's result statement store into this field? */
static bool writes(RkNode *last, const char *field)
{
    if (last->kind == RK_COMPACT)
        return true;
    for (int i = 0; i < last->fields.len; i++)
        if (!strcmp(last->fields.items[i]->name, field))
            return true;
    return false;
}

static const char *field_ctype(RkNode *field) { return elem_ctype(type_of(field)->elem); }

static void check_aliasing(RkNode *c, RkNode *run, const char **v, int res)
{
    RkNode *rp = find_decl(type_of(run->params.items[res])->name, RK_PACK, RK_PACK);
    int s = site(c->loc);
    for (int i = 0; i < run->params.len; i++) {
        const RkType *pt = type_of(run->params.items[i]);
        if (i == res || pt->kind != RK_T_STACK)
            continue;
        RkNode *ap = find_decl(pt->name, RK_PACK, RK_PACK);
        for (int f = 0; f < rp->fields.len; f++)
            for (int d = 0; d < ap->fields.len; d++) {
                RkNode *x = rp->fields.items[f], *y = ap->fields.items[d];
                emit("rk_run_shares(%s->%s, %s->%s, %s->count, %s->count, sizeof(%s), "
                     "sizeof(%s), \"%s\", %d);",
                     v[res], x->name, v[i], y->name, v[res], v[i], field_ctype(x),
                     field_ctype(y), run->name, s);
            }
    }
    RkNode *last = run->body.items[run->body.len - 1];
    for (int f = 0; f < rp->fields.len; f++)
        for (int d = f + 1; d < rp->fields.len; d++) {
            RkNode *x = rp->fields.items[f], *y = rp->fields.items[d];
            emit("rk_run_columns(%s->%s, %s->%s, %s->count, sizeof(%s), sizeof(%s), %s, "
                 "\"%s\", \"%s\", \"%s\", %d);",
                 v[res], x->name, v[res], y->name, v[res], field_ctype(x), field_ctype(y),
                 writes(last, x->name) && writes(last, y->name) ? "true" : "false",
                 run->name, x->name, y->name, s);
        }
}

/* A C parameter name a header declares: none of C's, and not twice
 * (a view `x` also names p_x and p_x_count). */
static const char *header_name(RkNode *p, NameSet *seen, const char *name)
{
    if (rk_cnames_reserved(name))
        refuse(p->loc, "rake-cgen: the parameter '%s' can't be declared in a C header: C "
                       "reserves the name",
               name);
    if (!nameset_add(seen, name))
        refuse(p->loc, "rake-cgen: the parameter '%s' can't be declared in a C header: "
                       "another parameter's C name is '%s'",
               p->name, name);
    return name;
}

/* A view's C parameters: its first element and its count. */
static const char *view_params(RkNode *p, const RkType *t, NameSet *seen)
{
    const RkType *e = t->inner;
    const char *ptr = fmt("%s%s *", t->mut ? "" : "const ", elem_ctype(e->elem));
    if (!seen)
        return fmt("%s, int32_t", ptr);
    const char *pn = header_name(p, seen, fmt("p_%s", p->name));
    return fmt("%s%s, int32_t %s", ptr, pn, header_name(p, seen, fmt("p_%s_count", p->name)));
}

/* One Rake parameter's C parameters (spec page 03's table), named when
 * `seen` collects a header's names; errors at c. */
static const char *run_param(RkNode *c, RkNode *run, int i, int res, NameSet *seen)
{
    RkNode *p = run->params.items[i];
    const RkType *t = p->ty ? rk_type_parse(p->ty) : NULL; /* racks have no slow type */
    if (!t)
        refuse(p->loc, "rake-cgen: the parameter '%s' has no type", p->name);
    if (t->kind == RK_T_VIEW && run->ret)
        refuse(c->loc, "rake-cgen: the stack run '%s' takes the view '%s': views in stack "
                       "runs are work in progress natively",
               run->name, p->name);
    if (t->kind == RK_T_VIEW && t->inner && t->inner->kind == RK_T_SCALAR)
        return view_params(p, t, seen);
    const char *ct = NULL;
    if (t->kind == RK_T_STACK)
        ct = fmt("%s%s *", i == res ? "" : "const ", stack_struct(t->name));
    else if (t->kind == RK_T_SCALAR && p->uniform)
        ct = elem_ctype(t->elem);
    else
        refuse(c->loc, "rake-cgen: the run '%s' takes '%s' (%s) across the C boundary: only "
                       "stacks, views and <uniforms> are implemented (racks come only from "
                       "C callers, and their C type is work in progress)",
               run->name, p->name, p->ty);
    if (!seen)
        return ct;
    return fmt("%s%s%s", ct, t->kind == RK_T_STACK ? "" : " ", header_name(p, seen, p->name));
}

/* The C boundary's prototype of a run (spec page 03): for --emit-header
 * (`named`) under the run's name with its parameters' names, which must
 * not be names C reserves; for the unit, under its C name without
 * parameter names (no `;`: declare_native adds the asm label).  Errors
 * at c. */
const char *run_prototype(RkNode *c, RkNode *run, bool named)
{
    int res = result_param(run);
    NameSet seen = {0};
    Buf proto = {0};
    if (named && rk_cnames_reserved(run->name))
        refuse(run->loc, "rake-cgen: the run '%s' can't be declared in a C header: C reserves "
                         "the name",
               run->name);
    buf_printf(&proto, "void %s(", named ? run->name : native_cname(run->name));
    for (int i = 0; i < run->params.len; i++)
        buf_printf(&proto, "%s%s", i ? ", " : "",
                   run_param(named ? run->params.items[i] : c, run, i, res,
                             named ? &seen : NULL));
    buf_add(&proto, run->params.len ? ")" : "void)");
    if (named)
        buf_add(&proto, ";");
    return proto.s;
}

/* Whether slow code could call the run natively (a stack run). */
bool native_run(RkNode *run) { return run->ret && result_param(run) >= 0; }

static const char *stack_run_call(RkNode *c, RkNode *run)
{
    int res = result_param(run);
    if (res < 0)
        refuse(c->loc, "rake-cgen: the run '%s' names no result stack", run->name);
    Buf proto = {0};
    buf_add(&proto, run_prototype(c, run, false));
    const char **v = rk_arena_alloc(&rk_heap, sizeof *v * (size_t)(c->args.len + 1));
    for (int i = 0; i < c->args.len; i++)
        v[i] = argument(c->args.items[i], run->params.items[i]);
    const char *first = tmp_c("int64_t", "-1");
    emit("%s = -1;", first);
    for (int i = 0; i < run->params.len; i++)
        if (type_of(run->params.items[i])->kind == RK_T_STACK)
            emit("rk_run_counts(&%s, %s->count, \"%s\", %d);", first, v[i], run->name,
                 site(c->loc));
    check_aliasing(c, run, v, res);
    declare_native(c, run->name, proto.s);
    Buf b = {0};
    buf_add(&b, "");
    for (int i = 0; i < c->args.len; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", v[i]);
    emit("%s(%s);", native_cname(run->name), b.s);
    return v[res];
}

/* A general run, as a statement: each view argument as its pointer and
 * count (view_of makes an array a view of all its elements), uniforms as
 * they are.  Nothing is checked before the call: the run checks each
 * access itself. */
static const char *general_run_call(RkNode *c, RkNode *run)
{
    if (!physical_target())
        refuse(c->loc, "rake-cgen: calling general run '%s' on %s: slow code calls general "
                       "runs natively on x86 and aarch64 profiles only",
               run->name, G->target);
    const char *proto = run_prototype(c, run, false);
    Buf b = {0};
    buf_add(&b, "");
    for (int i = 0; i < c->args.len; i++) {
        RkNode *p = run->params.items[i];
        const char *v = argument(c->args.items[i], p);
        if (type_of(p)->kind == RK_T_VIEW)
            v = fmt("%s.p, (int32_t)%s.n", v, v);
        buf_printf(&b, "%s%s", i ? ", " : "", v);
    }
    declare_native(c, run->name, proto);
    emit("%s(%s);", native_cname(run->name), b.s);
    return NULL;
}

static const char *run_call(RkNode *c, RkNode *run)
{
    if (c->args.len != run->params.len)
        refuse(c->loc, "rake-cgen: '%s' takes %d arguments", run->name, run->params.len);
    return run->ret ? stack_run_call(c, run) : general_run_call(c, run);
}

/* --- kernels ---------------------------------------------------------------------------- */

static const char *kernel_ctype(RkNode *c, RkNode *fn, RkNode *p, const RkType *t)
{
    if (t->kind == RK_T_SCALAR && (t->elem == RK_E_F32 || t->elem == RK_E_I32 ||
                                   t->elem == RK_E_U32 || t->elem == RK_E_BOOL))
        return elem_ctype(t->elem);
    refuse(c->loc, "rake-cgen: calling kernel '%s' from slow code with %s %s: only uniform "
                   "f32, i32, u32 and bool are implemented",
           fn->name, p ? "a parameter of type" : "a result of type", p ? p->ty : fn->ty);
}

static const char *kernel_call(RkNode *c, RkNode *fn)
{
    const RkType *rt = fn->ty ? type_of(fn) : &rk_ty_unit;
    Buf proto = {0};
    buf_printf(&proto, "%s %s(", kernel_ctype(c, fn, NULL, rt), native_cname(fn->name));
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        if (!p->uniform)
            refuse(c->loc, "rake-cgen: calling kernel '%s' from slow code with the rack "
                           "parameter '%s' is not implemented",
                   fn->name, p->name);
        buf_printf(&proto, "%s%s", i ? ", " : "", kernel_ctype(c, fn, p, type_of(p)));
    }
    buf_add(&proto, fn->params.len ? ")" : "void)");
    const char *args = args_list(c, fn);
    declare_native(c, fn->name, proto.s);
    const char *r = tmp(rt);
    emit("%s = %s(%s);", r, native_cname(fn->name), args);
    return r;
}

const char *call(RkNode *c)
{
    if (c->note && !strcmp(c->note, "extern"))
        return extern_call(c);
    if (c->note && !strcmp(c->note, "fnptr")) {
        emit("rk_enter(%d);", site(c->loc));
        return fnptr_call(c);
    }
    RkNode *fn = find_decl(c->name, RK_SCRATCH, RK_RAKE);
    if (!fn)
        fn = find_decl(c->name, RK_RUN, RK_SLOW);
    if (!fn)
        refuse(c->loc, "rake-cgen: calling '%s' (%s) is not implemented", c->name,
               c->note ? c->note : "unknown");
    emit("rk_enter(%d);", site(c->loc));
    switch (fn->kind) {
    case RK_SLOW: return slow_call(c, fn);
    case RK_RUN: return run_call(c, fn);
    default: return kernel_call(c, fn);
    }
}

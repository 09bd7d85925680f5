/* module.c: the module's definitions.
 *
 * First every definition's name goes into one table (functions, packs,
 * states and constants share it; tines have their own), so a definition can
 * refer to a later one.  Then packs are checked, global tines are checked
 * once with their parameters bound and searched for recursion, and each
 * function is checked by the checker of its kind.  Calls between scratches
 * and rakes are inlined later, so a cycle among them, or nesting deeper
 * than 32, is an error here. */
#include <string.h>

#include "arena.h"
#include "check.h"

static RkNode **decls;
static int ndecls;

static const char *decl_what(RkNode *d)
{
    switch (d->kind) {
    case RK_TINE: return "tine";
    case RK_PACK: return "pack";
    default: return rk_kind_name(d->kind);
    }
}

RkNode *find_decl(const char *name)
{
    return rk_ast_find_decl(C->module, name, false);
}

RkNode *find_global_tine(const char *name)
{
    return rk_ast_find_decl(C->module, name, true);
}

RkNode *find_pack(const char *name)
{
    RkNode *d = find_decl(name);
    return d && d->kind == RK_PACK ? d : NULL;
}

RkNode *pack_field(RkNode *pack, const char *field)
{
    for (int i = 0; i < pack->fields.len; i++)
        if (!strcmp(pack->fields.items[i]->name, field))
            return pack->fields.items[i];
    return NULL;
}

bool is_whole_program(void)
{
    for (int i = 0; i < ndecls; i++) {
        RkKind k = decls[i]->kind;
        if (k != RK_SCRATCH && k != RK_RAKE && k != RK_TINE && k != RK_PACK)
            return true;
    }
    return false;
}

/* --- types ---------------------------------------------------------------- */

/* Resolving a pointer's pointee: an opaque record is allowed there. */
static int behind_pointer;

static const RkType *type_name(RkNode *t)
{
    const char *s = t->name;
    RkElem e = rk_elem_from_name(s);
    if (e)
        return rk_ty_scalar(e);
    e = rk_elem_from_rack_name(s);
    if (e) {
        if (e == RK_E_I8 || e == RK_E_U16 || e == RK_E_F64 || e == RK_E_BOOL) {
            ERROR(t->loc, "%s racks parse but have no implementation", s);
            return &rk_ty_error;
        }
        if (!rack_elem_ok(e, t->loc)) /* 8-, 16- and 64-bit racks: the profile's */
            return &rk_ty_error;
        return rk_ty_rack(e);
    }
    if (!strcmp(s, "mask"))
        return rk_ty_mask(32);
    if (find_pack(s))
        return rk_ty_pack(s);
    RkNode *d = find_record(s);
    if (d) {
        if (!d->fields.len && !behind_pointer) {
            ERROR(t->loc, "record %s is opaque (declared without fields from its "
                          "header); use it through a pointer (ptr %s)",
                  s, s);
            return &rk_ty_error;
        }
        return rk_ty_record(d->name, d->kind == RK_UNION);
    }
    ERROR(t->loc, "unknown type '%s'", s);
    return &rk_ty_error;
}

/* A slow function's parameter: `mut [N]T` is an array passed by reference
 * that the function may write (page 10: "With mut it is writable, and the
 * argument must be a writable location").  Records would go here too. */
const RkType *resolve_slow_param_type(RkNode *t)
{
    if (t->kind != RK_TYPE_MUT)
        return resolve_type(t, false);
    const RkType *e = resolve_type(t->elem, false);
    if (is_error(e))
        return e;
    if (e->kind != RK_T_ARRAY && e->kind != RK_T_RECORD && e->kind != RK_T_UNION) {
        ERROR(t->loc, "'mut' goes with array and record parameters (mut [N]T, mut R) "
                      "and views (mut []T); %s is passed by value",
              ty_name(e));
        return &rk_ty_error;
    }
    RkType *m = rk_arena_alloc(&rk_heap, sizeof *m);
    *m = *e;
    m->mut = true;
    return m;
}

static bool pointee_ok(const RkType *e)
{
    return e->kind == RK_T_UNIT || e->kind == RK_T_SCALAR || e->kind == RK_T_ARRAY ||
           e->kind == RK_T_RECORD || e->kind == RK_T_UNION || e->kind == RK_T_PTR ||
           e->kind == RK_T_FN;
}

static const RkType *pointer_type(RkNode *t)
{
    behind_pointer++;
    const RkType *e = resolve_type(t->elem, false);
    behind_pointer--;
    if (is_error(e))
        return e;
    if (!pointee_ok(e) || (e->kind == RK_T_ARRAY && e->inner->kind == RK_T_RACK)) {
        ERROR(t->elem->loc, "a pointer points at C data (scalars, arrays, records, "
                            "pointers, functions), not %s",
              ty_name(e));
        return &rk_ty_error;
    }
    return rk_ty_pointer(e, t->is_const);
}

/* slow(T, ...) -> U: scalars, pointers, records and function pointers, by value. */
static const RkType *function_type(RkNode *t)
{
    int n = t->params.len;
    const RkType **ps = rk_arena_alloc(&rk_heap, sizeof *ps * (size_t)(n + 1));
    bool bad = false;
    for (int i = 0; i <= n; i++) {
        RkNode *pt = i < n ? t->params.items[i] : t->ret;
        const RkType *e = resolve_type(pt, false);
        bool ok = e->kind == RK_T_SCALAR || e->kind == RK_T_PTR || e->kind == RK_T_FN ||
                  e->kind == RK_T_RECORD || e->kind == RK_T_UNION ||
                  (i == n && e->kind == RK_T_UNIT);
        if (!is_error(e) && !ok)
            ERROR(pt->loc, "a function pointer passes scalars, pointers, records and "
                           "function pointers, not %s",
                  ty_name(e));
        bad |= !ok;
        if (i < n)
            ps[i] = e;
        else if (!bad)
            return rk_ty_fn(ps, n, e);
    }
    return &rk_ty_error;
}

const RkType *resolve_type(RkNode *t, bool vector)
{
    (void)vector;
    switch (t->kind) {
    case RK_TYPE_NAME:
        return type_name(t);
    case RK_TYPE_ARRAY: {
        long long n;
        if (!int_literal_value(t->len, &n) || n < 1 || n > (1 << 24)) {
            ERROR(t->len->loc, "an array's length is an integer from 1 to %d",
                  1 << 24);
            return &rk_ty_error;
        }
        const RkType *e = resolve_type(t->elem, vector);
        if (is_error(e))
            return e;
        if (e->kind != RK_T_SCALAR && e->kind != RK_T_RACK && e->kind != RK_T_RECORD &&
            e->kind != RK_T_UNION && e->kind != RK_T_PTR && e->kind != RK_T_FN) {
            ERROR(t->elem->loc, "an array holds scalars, racks, records, pointers or "
                                "function pointers, not %s",
                  ty_name(e));
            return &rk_ty_error;
        }
        return rk_ty_array(e, (int)n);
    }
    case RK_TYPE_VIEW: {
        const RkType *e = resolve_type(t->elem, vector);
        if (is_error(e))
            return e;
        if (e->kind != RK_T_SCALAR || e->elem == RK_E_BOOL) {
            ERROR(t->elem->loc, "a view's elements are numeric scalars, not %s",
                  ty_name(e));
            return &rk_ty_error;
        }
        return rk_ty_view(e, t->is_mut);
    }
    case RK_TYPE_STACK:
    case RK_TYPE_PACK:
        if (!find_pack(t->name)) {
            ERROR(t->loc, "unknown pack '%s'", t->name);
            return &rk_ty_error;
        }
        return t->kind == RK_TYPE_STACK ? rk_ty_stack(t->name) : rk_ty_pack(t->name);
    case RK_TYPE_PTR:
        return pointer_type(t);
    case RK_TYPE_FN:
        return function_type(t);
    case RK_TYPE_MUT:
        ERROR(t->loc, "'mut' marks a slow function's array parameter (mut [N]T) or a "
                      "view (mut []T), not this");
        return &rk_ty_error;
    case RK_TYPE_UNIT:
        return &rk_ty_unit;
    default:
        rk_diag_internal("resolve_type: not a type node");
    }
}

/* --- packs ---------------------------------------------------------------- */

static void check_pack(RkNode *p)
{
    for (int i = 0; i < p->fields.len; i++) {
        RkNode *f = p->fields.items[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(p->fields.items[j]->name, f->name))
                ERROR(f->loc, "pack %s already has a field '%s'", p->name, f->name);
        const RkType *t = resolve_type(f->type, false);
        if (is_error(t))
            continue;
        if (t->kind != RK_T_SCALAR || t->elem == RK_E_BOOL || t->elem == RK_E_F64) {
            ERROR(f->type->loc, "a pack's fields are f32 or integer scalars, "
                                "not %s",
                  ty_name(t));
            continue;
        }
        f->ty = rk_ty_str(t);
    }
    if (p->fields.len == 0)
        ERROR(p->loc, "pack %s has no fields", p->name);
}

/* --- tines: recursion ------------------------------------------------------ */

/* A set of tines, as many as the module has. */
typedef struct TineSet {
    RkNode **items;
    int n, cap;
} TineSet;

static bool set_has(const TineSet *s, const RkNode *t)
{
    for (int i = 0; i < s->n; i++)
        if (s->items[i] == t)
            return true;
    return false;
}

static RkNode **grow(RkNode **a, int n, int cap)
{
    RkNode **g = rk_arena_alloc(&rk_heap, sizeof(RkNode *) * (size_t)cap);
    if (n)
        memcpy(g, a, sizeof(RkNode *) * (size_t)n);
    return g;
}

static void set_add(TineSet *s, RkNode *t)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->items = grow(s->items, s->n, s->cap);
    }
    s->items[s->n++] = t;
}

/* Tines from which no cycle can be reached, found by any walk so far. */
static TineSet acyclic;

typedef struct TineWalk {
    RkNode **stack;
    RkNode **refs;   /* refs[i]: the application that entered stack[i] */
    int depth, cap;  /* the path grows as deep as the tines nest */
    TineSet done;    /* tines whose references were all followed */
    RkNode *ref;     /* the application being followed */
    bool cyclic;     /* the tine being walked reaches a tine on the path */
    bool failed;
} TineWalk;

/* Follows each tine application in n, at any depth. */
static void tine_refs(RkNode *n, void *arg);

/* A cycle through the tine the walk starts at is reported at the
 * application in its own predicate that enters the cycle.  The path
 * grows as deep as the tines refer to each other.  A tine already walked
 * from is not walked again: a cycle through the start from it was found
 * then (the start stays on the path); nor is one that reaches no cycle at
 * all (none can pass through it), which a walk finds out on the way.  So
 * chains of thousands of tines take one walk each of a step or two. */
static void walk_tine(RkNode *t, TineWalk *w)
{
    for (int i = 0; i < w->depth; i++) {
        if (w->stack[i] != t)
            continue;
        if (i == 0 && !w->failed) {
            if (w->depth == 1)
                ERROR(w->ref->loc, "tine #%s refers to itself; tines can't be "
                                   "recursive",
                      t->name);
            else
                ERROR(w->refs[1]->loc, "tine #%s is recursive: it refers to #%s, "
                                       "which refers back to #%s; tines can't be "
                                       "recursive",
                      t->name, w->stack[1]->name, t->name);
            w->failed = true;
        }
        w->cyclic = true;
        return;
    }
    if (w->failed || set_has(&acyclic, t))
        return;
    if (set_has(&w->done, t)) {
        w->cyclic = true; /* done but not acyclic: it reaches a cycle */
        return;
    }
    if (w->depth == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->stack = grow(w->stack, w->depth, w->cap);
        w->refs = grow(w->refs, w->depth, w->cap);
    }
    bool outer = w->cyclic;
    w->cyclic = false;
    w->refs[w->depth] = w->ref;
    w->stack[w->depth++] = t;
    tine_refs(t->pred, w);
    w->depth--;
    if (!w->cyclic && !w->failed)
        set_add(&acyclic, t);
    else
        set_add(&w->done, t);
    w->cyclic |= outer;
}

static void tine_refs(RkNode *n, void *arg)
{
    TineWalk *w = arg;
    RkNode *t = n->kind == RK_TINE_REF ? find_global_tine(n->name) : NULL;
    if (t) {
        w->ref = n;
        walk_tine(t, w);
    }
    rk_ast_each_child(n, tine_refs, w);
}

static bool tine_is_recursive(RkNode *t)
{
    TineWalk w = {0};
    walk_tine(t, &w);
    return w.failed;
}

static void check_global_tine(RkNode *t)
{
    if (t->slot >= 0)
        return;
    t->slot = 0;
    if (tine_is_recursive(t))
        return;
    C->fn = t;
    C->kind = FN_TINE;
    C->nslots = 0;
    C->ctx = RK_BDD_TRUE;
    scope_push(false);
    for (int i = 0; i < t->params.len; i++) {
        RkNode *p = t->params.items[i];
        const RkType *ty = resolve_type(p->type, true);
        if (!is_error(ty) && p->uniform != (ty->kind == RK_T_SCALAR))
            ERROR(p->loc, p->uniform ? "a uniform parameter has a scalar type, "
                                       "not %s"
                                     : "a scalar parameter is uniform: write "
                                       "<%s: %s>",
                  p->uniform ? ty_name(ty) : p->name, ty_name(ty));
        Binding *b = bind(p, p->name, B_PARAM, ty);
        b->uniform = p->uniform;
        p->ty = rk_ty_str(ty);
    }
    Info in = check_vexpr(t->pred, NULL);
    if (!is_error(in.ty) && in.ty->kind != RK_T_MASK)
        ERROR(t->pred->loc, "a tine means a lane mask, but this predicate is %s",
              ty_name(in.ty));
    scope_pop();
    t->slot = C->nslots;
    C->fn = NULL;
}

/* --- kernel call graph ------------------------------------------------------ */

static RkNode *cg_stack[40];
static RkLoc cg_loc[40]; /* cg_loc[i]: the call that entered cg_stack[i] */
static int cg_depth;
static bool cg_failed;

static void calls_in(RkNode *n, void *unused);

static void calls_in_list(RkList l)
{
    for (int i = 0; i < l.len; i++)
        calls_in(l.items[i], NULL);
}

/* The walk starts at one function (cg_stack[0]); a cycle through it is
 * reported at its own call that enters the cycle.  A cycle among its
 * callees only stops the walk: it is reported when that callee is checked
 * itself. */
static void follow(RkNode *callee, RkLoc at)
{
    for (int i = 0; i < cg_depth; i++) {
        if (cg_stack[i] != callee)
            continue;
        if (!cg_failed && i == 0 && cg_depth == 1)
            ERROR(at, "%s %s calls itself; calls between scratches and rakes "
                      "are inlined, so recursion is rejected",
                  rk_kind_name(callee->kind), callee->name);
        else if (!cg_failed && i == 0)
            ERROR(cg_loc[1], "%s %s calls itself through %s; calls between "
                             "scratches and rakes are inlined, so recursion is "
                             "rejected",
                  rk_kind_name(callee->kind), callee->name, cg_stack[1]->name);
        cg_failed = true;
        return;
    }
    if (cg_depth == 33) {
        if (!cg_failed)
            ERROR(cg_loc[1], "%s %s's calls nest more than 32 deep (through %s); "
                             "calls between scratches and rakes are inlined",
                  rk_kind_name(cg_stack[0]->kind), cg_stack[0]->name,
                  cg_stack[1]->name);
        cg_failed = true;
        return;
    }
    cg_loc[cg_depth] = at;
    cg_stack[cg_depth++] = callee;
    calls_in_list(callee->body);
    cg_depth--;
}

static void calls_in(RkNode *n, void *unused)
{
    if (cg_failed)
        return;
    if (n->kind == RK_CALL) {
        RkNode *d = find_decl(n->name);
        if (d && (d->kind == RK_SCRATCH || d->kind == RK_RAKE))
            follow(d, n->loc);
    }
    rk_ast_each_child(n, calls_in, unused);
}

static bool kernel_recursive(RkNode *fn)
{
    cg_depth = 0;
    cg_failed = false;
    cg_stack[cg_depth++] = fn;
    calls_in_list(fn->body);
    return cg_failed;
}

/* --- the module ------------------------------------------------------------- */

static void collect(void)
{
    RkList l = C->module->decls;
    decls = l.items;
    ndecls = l.len;
    for (int i = 0; i < ndecls; i++) {
        RkNode *d = decls[i];
        RkNode *o = rk_ast_find_decl(C->module, d->name, d->kind == RK_TINE);
        if (o != d)
            ERROR(d->loc, "%s%s is already defined as a %s at line %d",
                  d->kind == RK_TINE ? "#" : "", d->name, decl_what(o), o->loc.line);
    }
}

static bool main_params(RkNode *m)
{
    if (m->params.len != 2)
        return false;
    const char *want[] = {"i32", "ptr ptr u8"};
    for (int i = 0; i < 2; i++) {
        const char *ty = m->params.items[i]->ty;
        if (!ty || strcmp(ty, want[i]))
            return false;
    }
    return true;
}

static void check_main(RkNode *m)
{
    if (m->kind != RK_SLOW) {
        ERROR(m->loc, "main is a slow function: slow main() -> i32");
        return;
    }
    if (m->params.len && !main_params(m))
        ERROR(m->loc, "main takes no parameters or (argc: i32, argv: ptr ptr u8)");
    const RkType *r = m->ret ? resolve_type(m->ret, false) : &rk_ty_unit;
    if (!is_error(r) && !(r->kind == RK_T_SCALAR && r->elem == RK_E_I32))
        ERROR(m->ret ? m->ret->loc : m->loc, "main returns i32, not %s", ty_name(r));
}

void check_module(void)
{
    collect();
    for (int i = 0; i < ndecls; i++)
        if (decls[i]->kind == RK_PACK)
            check_pack(decls[i]);
    for (int i = 0; i < ndecls; i++)
        if (decls[i]->kind == RK_RECORD || decls[i]->kind == RK_UNION)
            check_record_decl(decls[i]);
    for (int i = 0; i < ndecls; i++)
        if (decls[i]->kind == RK_RECORD || decls[i]->kind == RK_UNION)
            check_record_cycles(decls[i]);
    for (int i = 0; i < ndecls; i++) {
        RkNode *d = decls[i];
        switch (d->kind) {
        case RK_TINE:
            check_global_tine(d);
            break;
        case RK_SCRATCH:
        case RK_RAKE:
            if (kernel_recursive(d))
                break;
            if (d->kind == RK_SCRATCH)
                check_scratch(d);
            else
                check_rake(d);
            break;
        case RK_RUN:
            check_run(d);
            break;
        case RK_SLOW:
            check_slow_fn(d);
            break;
        case RK_STATE:
        case RK_CONST:
            check_slow_fn(d);
            break;
        case RK_EXTERN:
            check_extern_decl(d);
            break;
        case RK_EMBED:
            check_embed_decl(d);
            break;
        default:
            break;
        }
    }
    RkNode *m = find_decl("main");
    if (m)
        check_main(m);
}

/* A tine used before its definition is checked on demand. */
void ensure_tine_checked(RkNode *t)
{
    if (t->slot >= 0)
        return;
    Check saved = *C;
    C->scope = NULL;
    check_global_tine(t);
    *C = saved;
}

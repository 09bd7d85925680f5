/* func.c: slow functions, their statements, and module values.
 *
 * A slow function becomes
 *
 *     static T rk_fn_f(params)
 *     {
 *         slots and temporaries (each slot of the checked tree is one C
 *         variable, rk_v<slot>_<name>; an array parameter is a pointer)
 *         rk_depth++;
 *         body
 *     rk_out:                     a return stores rk_ret and jumps here,
 *         rk_release(&rk_fr);     also from inside a slow block
 *         rk_depth--;
 *         return rk_ret;
 *     }
 *
 * rk_fr is the function's frame: copy(s) counts its bytes against
 * RAKE_FRAME_BYTES there, and every block it allocated (descriptors,
 * copies, arrays a view keeps) goes when the function returns; views and
 * stacks can't outlive their function (rake-check refuses returning or
 * storing them).  An array binding is a C struct, one storage per call as
 * in the interpreter, except when it is bound inside a loop and a slice or
 * stack literal keeps a view of it: then each binding gets new storage,
 * so a view kept from an earlier iteration still sees its own array.
 *
 * `for` runs as sfor does: from, to and step in that order, a step that
 * isn't positive traps at the `for`, and the last step clamps to the bound
 * (the increment jumps to the bound, ending the loop) so it never
 * overflows.
 *
 * Module state and constants with an initial value are initialised when
 * first read, as the interpreter does (including its frame for the
 * initialiser); the rest are zeroed statics. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cgen.h"

const char *slot_name(int slot, const char *name) { return fmt("rk_v%d_%s", slot, name); }

/* --- slots ---------------------------------------------------------------------------- */

typedef struct Walk {
    bool *viewed;
    int loops;
} Walk;

static bool viewed_name(RkNode *n)
{
    return n->kind == RK_NAME && n->ref && !strcmp(n->ref, "local") && n->slot >= 0 &&
           n->slot < G->nslots;
}

static void mark_viewed(RkNode *n, void *ctx)
{
    Walk *w = ctx;
    if (n->kind == RK_CALL && n->note && !strcmp(n->note, "builtin") && n->name &&
        !strcmp(n->name, "slice") && n->args.len > 0 && viewed_name(n->args.items[0]))
        w->viewed[n->args.items[0]->slot] = true;
    if (n->kind == RK_STACK_LIT)
        for (int i = 0; i < n->fields.len; i++)
            if (n->fields.items[i]->value && viewed_name(n->fields.items[i]->value))
                w->viewed[n->fields.items[i]->value->slot] = true;
    rk_ast_each_child(n, mark_viewed, ctx);
}

static void add_slot(RkNode *n, const RkType *t, bool in_loop, Walk *w)
{
    if (n->slot < 0 || n->slot >= G->nslots)
        refuse(n->loc, "rake-cgen: the binding '%s' has no slot", n->name);
    Slot *s = &G->slots[n->slot];
    s->name = n->name;
    s->ty = t;
    s->fresh = t->kind == RK_T_ARRAY && in_loop && w->viewed[n->slot];
}

static void find_slots(RkNode *n, void *ctx)
{
    Walk *w = ctx;
    if (n->kind == RK_LET || n->kind == RK_VAR)
        add_slot(n, type_of(n), w->loops > 0, w);
    if (n->kind == RK_FOR)
        add_slot(n, type_of(n->from), w->loops > 0, w);
    bool loop = n->kind == RK_FOR || n->kind == RK_WHILE;
    w->loops += loop;
    rk_ast_each_child(n, find_slots, ctx);
    w->loops -= loop;
}

static void collect_slots(RkNode *fn)
{
    G->nslots = fn->slot > 0 ? fn->slot : 0;
    G->slots = rk_arena_alloc(&rk_heap, sizeof(Slot) * (size_t)(G->nslots + 1));
    Walk w = {rk_arena_alloc(&rk_heap, (size_t)G->nslots + 1), 0};
    for (int i = 0; i < fn->body.len; i++)
        mark_viewed(fn->body.items[i], &w);
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        add_slot(p, type_of(p), false, &w);
        G->slots[p->slot].param = true;
    }
    for (int i = 0; i < fn->body.len; i++)
        find_slots(fn->body.items[i], &w);
}

/* --- statements ---------------------------------------------------------------------------- */

static const char *slot_of(RkNode *n) { return slot_name(n->slot, n->name); }

static void bind(RkNode *s)
{
    const RkType *t = type_of(s), *vt = type_of(s->value);
    const char *v = ex(s->value);
    const char *var = slot_of(s);
    if (t->kind == RK_T_VIEW && vt->kind == RK_T_ARRAY) {
        /* the interpreter copies the array, then views the copy */
        const char *p = tmp_c(fmt("%s *", ctype(vt)), "NULL");
        G->uses_frame = true;
        emit("%s = rk_alloc(&rk_fr, sizeof *%s);", p, p);
        emit("*%s = %s;", p, v);
        emit("%s = %s;", var, view_of(s->value, fmt("(*%s)", p), vt));
        return;
    }
    if (G->slots[s->slot].fresh) {
        G->uses_frame = true;
        emit("%s = rk_alloc(&rk_fr, sizeof *%s);", var, var);
        emit("*%s = %s;", var, v);
        return;
    }
    emit("%s = %s;", var, v);
}

static void assign(RkNode *s)
{
    RkNode *t = s->target;
    const char *v = ex(s->value);
    if (t->kind == RK_INDEX || t->kind == RK_FIELD) {
        emit("%s = %s;", place(t), v);
        return;
    }
    if (t->kind != RK_NAME)
        refuse(t->loc, "rake-cgen: assigning to a %s is not implemented", rk_kind_name(t->kind));
    if (t->ref && !strcmp(t->ref, "state")) {
        emit("*%s = %s;", global_ref(t), v);
        return;
    }
    Slot *sl = t->slot >= 0 && t->slot < G->nslots ? &G->slots[t->slot] : NULL;
    if (!sl || !sl->name)
        refuse(t->loc, "rake-cgen: assigning to '%s' is not implemented", t->name);
    bool by_pointer = aggregate(sl->ty) && (sl->param || sl->fresh);
    emit(by_pointer ? "*%s = %s;" : "%s = %s;", slot_of(t), v);
}

static void for_loop(RkNode *s)
{
    const RkType *t = type_of(s->from);
    RkElem e = t->elem;
    if (t->kind != RK_T_SCALAR || !rk_elem_is_int(e))
        refuse(s->loc, "rake-cgen: a for loop over %s is not implemented", s->from->ty);
    const char *a = ex(s->from), *b = ex(s->to);
    const char *st = s->step ? ex(s->step) : fmt("((%s)1)", elem_ctype(e));
    const char *i = tmp_c("uint64_t", "0"), *end = tmp_c("uint64_t", "0"),
               *step = tmp_c("uint64_t", "0");
    emit("%s = %s;", i, canon(a, e));
    emit("%s = %s;", end, canon(b, e));
    emit("%s = %s;", step, canon(st, e));
    bool sg = rk_elem_is_signed(e);
    emit(sg ? "if ((int64_t)%s <= 0)" : "if (%s == 0)", step);
    emit("    rk_trap(%d, \"a loop steps forward\");", site(s->loc));
    emit(sg ? "for (; (int64_t)%s < (int64_t)%s; %s = %s - %s <= %s ? %s : %s + %s) {"
            : "for (; %s < %s; %s = %s - %s <= %s ? %s : %s + %s) {",
         i, end, i, end, i, step, end, i, step);
    G->indent++;
    emit("%s = (%s)%s;", slot_of(s), elem_ctype(e), i);
    G->loop_depth++;
    gen_list(s->body);
    G->loop_depth--;
    G->indent--;
    emit("}");
}

static void while_loop(RkNode *s)
{
    emit("for (;;) {");
    G->indent++;
    const char *c = ex(s->cond);
    emit("if (!%s)", c);
    emit("    break;");
    G->loop_depth++;
    gen_list(s->body);
    G->loop_depth--;
    G->indent--;
    emit("}");
}

static void if_stmt(RkNode *s)
{
    const char *c = ex(s->cond);
    emit("if (%s) {", c);
    G->indent++;
    gen_list(s->body);
    G->indent--;
    if (s->else_body.len) {
        emit("} else {");
        G->indent++;
        gen_list(s->else_body);
        G->indent--;
    }
    emit("}");
}

static void stmt(RkNode *s)
{
    switch (s->kind) {
    case RK_LET:
    case RK_VAR: bind(s); return;
    case RK_ASSIGN: assign(s); return;
    case RK_IF: if_stmt(s); return;
    case RK_WHILE: while_loop(s); return;
    case RK_FOR: for_loop(s); return;
    case RK_BREAK:
    case RK_CONTINUE:
        if (!G->loop_depth)
            refuse(s->loc, "rake-cgen: '%s' outside a loop of its slow block is not implemented",
                   rk_kind_name(s->kind));
        emit(s->kind == RK_BREAK ? "break;" : "continue;");
        return;
    case RK_RETURN:
        if (s->value) {
            const char *v = ex(s->value);
            if (v)
                emit("rk_ret = %s;", v);
        }
        G->uses_out = true;
        emit("goto rk_out;");
        return;
    case RK_EXPR: {
        const char *v = ex(s->value);
        if (v)
            emit("(void)%s;", v);
        return;
    }
    default:
        refuse(s->loc, "rake-cgen: a %s statement in slow code is not implemented",
               rk_kind_name(s->kind));
    }
}

void gen_list(RkList body)
{
    for (int i = 0; i < body.len; i++)
        stmt(body.items[i]);
}

/* --- functions ------------------------------------------------------------------------------- */

static void begin(RkNode *fn)
{
    G->fn = fn;
    G->decls = (Buf){0};
    G->body = (Buf){0};
    buf_add(&G->decls, "");
    buf_add(&G->body, "");
    G->tmp = 0;
    G->indent = 1;
    G->loop_depth = 0;
    G->uses_frame = G->uses_out = false;
}

static void declare_slots(Buf *out)
{
    for (int i = 0; i < G->nslots; i++) {
        Slot *s = &G->slots[i];
        if (!s->name || s->param)
            continue;
        const char *v = slot_name(i, s->name);
        if (s->fresh)
            buf_printf(out, "    %s *%s = NULL;\n", ctype(s->ty), v);
        else if (aggregate(s->ty))
            buf_printf(out, "    __attribute__((unused)) %s %s;\n", ctype(s->ty), v);
        else
            buf_printf(out, "    __attribute__((unused)) %s %s = %s;\n", ctype(s->ty), v,
                       zero(s->ty));
    }
}

static const char *signature(RkNode *fn, const RkType *rt)
{
    Buf b = {0};
    buf_printf(&b, "static %s rk_fn_%s(", rt->kind == RK_T_UNIT ? "void" : ctype(rt), fn->name);
    for (int i = 0; i < fn->params.len; i++) {
        RkNode *p = fn->params.items[i];
        const RkType *t = type_of(p);
        buf_printf(&b, "%s__attribute__((unused)) %s%s%s", i ? ", " : "", ctype(t),
                   aggregate(t) ? " *" : " ", slot_name(p->slot, p->name));
    }
    buf_add(&b, fn->params.len ? ")" : "void)");
    return b.s;
}

void gen_function(RkNode *fn)
{
    begin(fn);
    collect_slots(fn);
    const RkType *rt = fn->ty ? type_of(fn) : &rk_ty_unit;
    if (rt->kind == RK_T_VIEW || rt->kind == RK_T_STACK)
        refuse(fn->loc, "rake-cgen: a slow function returning %s is not implemented", fn->ty);
    gen_list(fn->body);
    const char *sig = signature(fn, rt);
    buf_printf(&G->protos, "%s;\n", sig);
    Buf *o = &G->funcs;
    buf_printf(o, "\n%s\n{\n", sig);
    if (rt->kind != RK_T_UNIT)
        buf_printf(o, "    %s rk_ret = %s;\n", ctype(rt), zero(rt));
    if (G->uses_frame)
        buf_add(o, "    struct rk_frame rk_fr = {0, NULL};\n");
    declare_slots(o);
    buf_add(o, G->decls.s);
    buf_add(o, "    rk_depth++;\n");
    buf_add(o, G->body.s);
    if (G->uses_out)
        buf_add(o, "rk_out:\n");
    if (G->uses_frame)
        buf_add(o, "    rk_release(&rk_fr);\n");
    buf_add(o, "    rk_depth--;\n");
    buf_add(o, rt->kind == RK_T_UNIT ? "    return;\n}\n" : "    return rk_ret;\n}\n");
}

/* --- slow blocks of runs ------------------------------------------------------------------
 *
 * A `slow { }` block in a run becomes a never-inlined helper, called by
 * the run's native code through a trampoline that keeps every register
 * (rake-emit, docs/runs.md):
 *
 *     __attribute__((noinline, used)) void rk_slow_<line>_<col>(unsigned char *rk_io)
 *
 * rk_io holds an 8-byte slot per value of the run the block reads, in
 * the order rake-lower captures them (the operands of its slow.call: each
 * name's first appearance, depth first), and the helper writes the
 * block's value, zero-extended, into slot 0. */

typedef struct Captures {
    RkNode **names;
    int n, cap;
    bool *inner; /* slots bound inside the block */
} Captures;

static void inner_slots(RkNode *n, void *ctx)
{
    Captures *c = ctx;
    if ((n->kind == RK_LET || n->kind == RK_VAR || n->kind == RK_FOR) && n->slot >= 0 &&
        n->slot < G->nslots)
        c->inner[n->slot] = true;
    rk_ast_each_child(n, inner_slots, ctx);
}

static void capture_names(RkNode *n, void *ctx)
{
    Captures *c = ctx;
    if (n->kind == RK_NAME && n->ref && (!strcmp(n->ref, "param") || !strcmp(n->ref, "local")) &&
        n->slot >= 0 && n->slot < G->nslots && !c->inner[n->slot]) {
        bool seen = false;
        for (int i = 0; i < c->n && !seen; i++)
            seen = c->names[i]->slot == n->slot;
        if (!seen) {
            c->names = rk_arena_grow(&rk_heap, c->names, c->n, &c->cap, sizeof *c->names, 8);
            c->names[c->n++] = n;
        }
    }
    rk_ast_each_child(n, capture_names, ctx);
}

static void gen_run_block(RkNode *run, RkNode *blk)
{
    begin(run);
    G->nslots = run->slot > 0 ? run->slot : 0;
    G->slots = rk_arena_alloc(&rk_heap, sizeof(Slot) * (size_t)(G->nslots + 1));
    Captures c = {NULL, 0, 0, rk_arena_alloc(&rk_heap, (size_t)G->nslots + 1)};
    rk_ast_each_child(blk, inner_slots, &c);
    rk_ast_each_child(blk, capture_names, &c);
    Walk w = {rk_arena_alloc(&rk_heap, (size_t)G->nslots + 1), 0};
    rk_ast_each_child(blk, mark_viewed, &w);
    for (int i = 0; i < c.n; i++) {
        const RkType *t = type_of(c.names[i]);
        if (t->kind != RK_T_SCALAR)
            refuse(c.names[i]->loc, "rake-cgen: a slow block in run '%s' reading '%s' (%s): "
                                    "native slow blocks read only scalar values",
                   run->name, c.names[i]->name, c.names[i]->ty);
        add_slot(c.names[i], t, false, &w);
        G->slots[c.names[i]->slot].param = true;
    }
    rk_ast_each_child(blk, find_slots, &w);
    const RkType *t = type_of(blk);
    const char *v = ex(blk);
    if (t->kind != RK_T_UNIT && t->kind != RK_T_SCALAR)
        refuse(blk->loc, "rake-cgen: a slow block in a run giving %s is not implemented",
               blk->ty);
    if (v) {
        emit("memset(rk_io, 0, 8);");
        emit("{ %s rk_r = %s; memcpy(rk_io, &rk_r, sizeof rk_r); }", ctype(t), v);
    }
    Buf *o = &G->funcs;
    const char *name = fmt("rk_slow_%d_%d", blk->loc.line, blk->loc.col);
    buf_printf(&G->protos, "void %s(unsigned char *rk_io);\n", name);
    buf_printf(o, "\n/* the slow block at %d:%d in run %s */\n__attribute__((noinline, used)) "
                  "void %s(unsigned char *rk_io)\n{\n    (void)rk_io;\n",
               blk->loc.line, blk->loc.col, run->name, name);
    if (G->uses_frame)
        buf_add(o, "    struct rk_frame rk_fr = {0, NULL};\n");
    for (int i = 0; i < c.n; i++) {
        RkNode *n = c.names[i];
        const char *var = slot_name(n->slot, n->name);
        buf_printf(o, "    %s %s;\n    memcpy(&%s, rk_io + %d, sizeof %s);\n",
                   ctype(type_of(n)), var, var, 8 * i, var);
    }
    declare_slots(o);
    buf_add(o, G->decls.s);
    buf_add(o, G->body.s);
    if (G->uses_frame)
        buf_add(o, "    rk_release(&rk_fr);\n");
    buf_add(o, "}\n");
}

static void outer_blocks(RkNode *n, void *ctx)
{
    if (n->kind == RK_SLOW_BLOCK)
        gen_run_block(ctx, n);
    else
        rk_ast_each_child(n, outer_blocks, ctx);
}

/* The helpers of every slow block in a run. */
void gen_run_blocks(RkNode *run)
{
    for (int i = 0; i < run->body.len; i++)
        outer_blocks(run->body.items[i], run);
}

/* --- module values ---------------------------------------------------------------------------- */

const char *global_ref(RkNode *name)
{
    RkNode *d = find_decl(name->name, RK_CONST, RK_STATE);
    if (!d)
        refuse(name->loc, "rake-cgen: no module value '%s'", name->name);
    if (!d->value)
        return fmt("(&rk_g_%s)", d->name);
    const char *p = tmp_c(fmt("%s *", ctype(type_of(d))), "NULL");
    emit("%s = rk_get_%s();", p, d->name);
    return p;
}

void gen_global(RkNode *d)
{
    const RkType *t = type_of(d);
    if (t->kind == RK_T_VIEW || t->kind == RK_T_STACK)
        refuse(d->loc, "rake-cgen: module %s of type %s is not implemented",
               d->kind == RK_STATE ? "state" : "constants", d->ty);
    buf_printf(&G->state, "static __attribute__((unused)) %s rk_g_%s;\n", ctype(t), d->name);
    if (!d->value)
        return;
    Cg saved = *G;
    begin(d);
    G->nslots = 0;
    G->indent = 2;
    const char *v = ex(d->value);
    if (G->uses_frame || G->uses_out)
        refuse(d->value->loc, "rake-cgen: this initial value is not implemented");
    Buf *o = &saved.state;
    buf_printf(&saved.protos, "static %s *rk_get_%s(void);\n", ctype(t), d->name);
    buf_printf(o, "static %s *rk_get_%s(void)\n{\n    static bool ready;\n", ctype(t), d->name);
    buf_add(o, G->decls.s);
    buf_printf(o, "    if (!ready) {\n        if (++rk_depth > RK_MAX_DEPTH)\n"
                  "            rk_trap(%d, \"calls nest more than %%d deep\", RK_MAX_DEPTH);\n",
               site(d->loc));
    buf_add(o, G->body.s);
    buf_printf(o, "        rk_g_%s = %s;\n        rk_depth--;\n        ready = true;\n    }\n"
                  "    return &rk_g_%s;\n}\n",
               d->name, v, d->name);
    /* keep what the initialiser added to the unit, drop its function state */
    saved.sites = G->sites;
    saved.nsites = G->nsites;
    saved.site_locs = G->site_locs;
    saved.site_cap = G->site_cap;
    saved.types = G->types;
    saved.arrays = G->arrays;
    saved.typenames = G->typenames;
    saved.natives = G->natives;
    saved.native_names = G->native_names;
    *G = saved;
}

/* asmview.c: the assembly rake-emit wrote, each instruction line tied to
 * the machine instruction it prints.
 *
 * rake-emit prints, for each function of the allocated rake.mir, exactly
 * rk_mir_flatten's list (lib/mir.c: the prologue, the blocks' code, the
 * terminators in the target's instructions, the epilogues), one line per
 * instruction, between the function's label and its `.size`; a run's
 * call of a slow block becomes a call of a trampoline, printed after the
 * function.  So the n-th instruction line after `NAME:` is the n-th entry
 * of NAME's flattened list, and carries that entry's origin, native-IR
 * value and source location; a trampoline's lines carry the location of
 * the slow block they call.  Each line's mnemonic is compared with the
 * entry's (and marked `aux` as the machine IR's row is, mirview.c): if
 * one differs (an emitter that is not rake-emit, through
 * RAKE_PASS_EMIT), the rest of that function is shown unlinked and the
 * view names it in `unlinked`, rather than tying lines to the wrong
 * instructions. */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "explore.h"

typedef struct Cursor {
    const RkMModule *m;
    const RkNirModule *opt;
    const RkMFunc *f;    /* the function whose lines these are, or NULL */
    RkMFlat flat;
    int next;            /* the flattened entry the next line prints */
    bool broken;         /* a mnemonic differed: stop linking */
    const RkMInstr *tramp; /* inside a trampoline: the slow call it serves */
    json_t *unlinked;
} Cursor;

static const RkMFunc *func_named(const RkMModule *m, const char *name, size_t n)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (strlen(m->funcs[i]->name) == n && !strncmp(m->funcs[i]->name, name, n))
            return m->funcs[i];
    return NULL;
}

static bool slow_call(const RkMModule *m, const RkMInstr *in)
{
    const RkInsnDesc *d = rk_target_insn(m->t, in->op);
    return d && (d->flags & RK_I_SLOW);
}

/* The k-th slow call of f. */
static const RkMInstr *nth_slow_call(const RkMModule *m, const RkMFunc *f, int k)
{
    RkMFlat fl = rk_mir_flatten(f, m->t);
    for (int i = 0; i < fl.n; i++)
        if (slow_call(m, &fl.ins[i]) && k-- == 0)
            return &fl.ins[i];
    return NULL;
}

static void tie(const Cursor *c, json_t *j, const RkMInstr *in, const char *fn)
{
    const char *loc = ex_loc_str(in->loc);
    if (loc)
        json_object_set_new(j, "loc", json_string(loc));
    json_object_set_new(j, "origin", json_string(in->origin));
    if (in->nir >= 0)
        json_object_set_new(j, "nir", json_integer(in->nir));
    json_object_set_new(j, "fn", json_string(fn));
    if (!c->tramp && ex_aux(c->m, c->opt, fn, in))
        json_object_set_new(j, "aux", json_true());
}

/* A label line `NAME:`: a function's or a trampoline's start. */
static void label(Cursor *c, const char *line, size_t n)
{
    int k;
    static const char tramp[] = "rk_tramp_";
    c->f = func_named(c->m, line, n);
    c->tramp = NULL;
    if (c->f) {
        c->flat = rk_mir_flatten(c->f, c->m->t);
        c->next = 0;
        c->broken = false;
        return;
    }
    /* rk_tramp_RUN_K: (any length) the K-th slow call of RUN */
    if (n > sizeof tramp - 1 && !strncmp(line, tramp, sizeof tramp - 1)) {
        char *fname = rk_arena_printf(&rk_heap, "%.*s", (int)(n - (sizeof tramp - 1)),
                                      line + sizeof tramp - 1);
        char *u = strrchr(fname, '_');
        if (u && sscanf(u + 1, "%d", &k) == 1) {
            const RkMFunc *f = func_named(c->m, fname, (size_t)(u - fname));
            c->tramp = f ? nth_slow_call(c->m, f, k) : NULL;
        }
    }
}

static void instruction(Cursor *c, const char *line, json_t *j)
{
    if (c->tramp) {
        tie(c, j, c->tramp, "trampoline");
        return;
    }
    if (!c->f || c->broken)
        return;
    const char *mn = line + 1;
    size_t n = strcspn(mn, "\t ");
    const RkMInstr *in = c->next < c->flat.n ? &c->flat.ins[c->next] : NULL;
    const char *want = !in ? "" : slow_call(c->m, in) && c->m->t->slow ? c->m->t->slow->call : in->op;
    if (!in || strlen(want) != n || strncmp(mn, want, n)) {
        c->broken = true;
        json_array_append_new(c->unlinked, json_string(c->f->name));
        return;
    }
    tie(c, j, in, c->f->name);
    c->next++;
}

static json_t *line_view(Cursor *c, const char *line)
{
    json_t *j = json_object();
    json_object_set_new(j, "t", ex_str(line));
    size_t n = strlen(line);
    if (line[0] == '\t' && line[1] == '.') {
        if (!strncmp(line, "\t.size", 6))
            c->f = NULL, c->tramp = NULL;
    } else if (line[0] == '\t') {
        instruction(c, line, j);
    } else if (n > 1 && line[n - 1] == ':' && line[0] != '.') {
        label(c, line, n - 1);
    }
    return j;
}

json_t *ex_asm_view(const char *text, json_t *mir_doc, const RkNirModule *opt)
{
    Cursor c = {NULL, opt, NULL, {NULL, 0, NULL, NULL}, 0, false, NULL, json_array()};
    c.m = mir_doc ? rk_mir_decode(mir_doc) : NULL;
    json_t *lines = ex_lines(text), *out = json_array(), *v;
    size_t i;
    json_array_foreach(lines, i, v) {
        const char *line = json_string_value(v);
        if (c.m)
            json_array_append_new(out, line_view(&c, line));
        else
            json_array_append_new(out, json_pack("{s:O}", "t", v));
    }
    json_decref(lines);
    json_t *a = json_object();
    json_object_set_new(a, "lines", out);
    json_object_set_new(a, "unlinked", c.unlinked);
    return a;
}

/* traps.c: the trap helpers of native general runs.
 *
 * A general run checks every view access itself.  Its native code has no
 * way to print: when a check fails, it calls (through a trampoline that
 * rake-emit writes, saving every register as a slow block's does) a C
 * function of the unit named after the source location of the check,
 *
 *     __attribute__((noinline, used, noreturn)) void rk_trap_LINE_COL(unsigned char *rk_io)
 *
 * rk_io points at 8-byte slots, each holding one int64_t, and the helper
 * prints through rk_trap exactly what the interpreter prints at that
 * location, then exits with status 1; it never returns.  The sites and
 * their slots:
 *
 *   view[<i>]  (note "load")     [start, end, count]
 *              rack load [start, end) outside count elements
 *   view[<i>] <- e  ("store")    [start, end, count]
 *              rack store [start, end) outside count elements
 *   <view[i]>  ("element")       [index, count]
 *              index I outside N elements
 *   for <i> ... by <s>           no slots, at the `for`
 *              a loop steps forward
 *
 * The messages are rake-interp's (vector.c rack_load and element,
 * kernel.c rack_store and counted).  An unchecked access and a gather
 * have no helper (gathers are not native yet), and neither has a loop
 * whose step is an integer literal from 1 to 2^31 - 1 (`by 4`, `by <4>`,
 * or none: 1), which rake-lower doesn't check; anything else a step
 * could be gets one, so the run's code finds a helper wherever it might
 * check.  A slow block's accesses are C already (func.c).
 *
 * Every general run of the program gets its helpers, whether slow code
 * calls it or not, in every unit for a physical profile (where the unit
 * embeds the runs' native code), one per source location, in the order
 * of a depth-first walk of each run's body.  External linkage, like the
 * slow blocks' helpers: the run's assembly calls them by name. */
#include <string.h>

#include "cgen.h"

typedef struct Site {
    RkLoc loc;
    const char *what;   /* for the comment: "rack load", ... */
    int slots;
    const char *message;
} Site;

static void helper(RkNode *run, const Site *s)
{
    const char *name = fmt("rk_trap_%d_%d", s->loc.line, s->loc.col);
    if (!nameset_add(&G->trap_names, name))
        return;
    const char *attrs = "__attribute__((noinline, used, noreturn))";
    buf_printf(&G->protos, "%s void %s(unsigned char *rk_io);\n", attrs, name);
    Buf *o = &G->funcs;
    buf_printf(o, "\n/* %s in run %s, at %d:%d */\n%s void %s(unsigned char *rk_io)\n{\n",
               s->what, run->name, s->loc.line, s->loc.col, attrs, name);
    if (!s->slots) {
        buf_printf(o, "    (void)rk_io;\n    rk_trap(%d, \"%s\");\n}\n", site(s->loc), s->message);
        return;
    }
    buf_printf(o, "    int64_t rk_s[%d];\n    memcpy(rk_s, rk_io, sizeof rk_s);\n"
                  "    rk_trap(%d, \"%s\"",
               s->slots, site(s->loc), s->message);
    for (int i = 0; i < s->slots; i++)
        buf_printf(o, ", (long long)rk_s[%d]", i);
    buf_add(o, ");\n}\n");
}

static bool view_name(RkNode *n)
{
    const RkType *t = n && n->kind == RK_NAME && n->ty ? rk_type_parse(n->ty) : NULL;
    return t && t->kind == RK_T_VIEW;
}

/* A checked access of a view: its site, or false. */
static bool access_site(RkNode *n, Site *s)
{
    if (n->kind != RK_INDEX || n->unchecked || !n->note || !view_name(n->object))
        return false;
    if (!strcmp(n->note, "load"))
        *s = (Site){n->loc, "rack load", 3, "rack load [%lld, %lld) outside %lld elements"};
    else if (!strcmp(n->note, "store"))
        *s = (Site){n->loc, "rack store", 3, "rack store [%lld, %lld) outside %lld elements"};
    else if (!strcmp(n->note, "element"))
        *s = (Site){n->loc, "element read", 2, "index %lld outside %lld elements"};
    else
        return false;
    return true;
}

static void visit(RkNode *n, void *run)
{
    Site s;
    if (n->kind == RK_SLOW_BLOCK)
        return;
    if (access_site(n, &s))
        helper(run, &s);
    if (n->kind == RK_FOR && !rk_ast_literal_step(n->step))
        helper(run, &(Site){n->loc, "loop step", 0, "a loop steps forward"});
    rk_ast_each_child(n, visit, run);
}

/* The helpers of a general run's sites, on a physical profile. */
void gen_run_traps(RkNode *run)
{
    if (run->ret || !physical_target())
        return;
    for (int i = 0; i < run->body.len; i++)
        visit(run->body.items[i], run);
}

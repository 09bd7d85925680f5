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
 * location, then exits with status 1; it never returns.  The sites, their
 * slots and the runtime function (runtime.c) each helper's one call
 * reaches with the site's number:
 *
 *   view[<i>]  (note "load")     [start, end, count]     rk_trap_rack
 *              rack load [start, end) outside count elements
 *   view[<i>] <- e  ("store")    [start, end, count]     rk_trap_rack
 *              rack store [start, end) outside count elements
 *   <view[i]>  ("element")       [index, count]          rk_trap_element
 *              index I outside N elements
 *   for <i> ... by <s>           no slots, at the `for`  rk_trap
 *              a loop steps forward
 *
 * A helper is one call because the C compiler's cost is per function,
 * whatever its size: a run of 3,000 checked accesses has 3,000 helpers,
 * which took gcc -O2 3.7 s when each read its slots and called rk_trap
 * itself and 2.2 s as one call each.
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
    const char *call;   /* the helper's body: a printf format of the site */
} Site;

static void helper(RkNode *run, const Site *s)
{
    const char *name = fmt("rk_trap_%d_%d", s->loc.line, s->loc.col);
    if (!nameset_add(&G->trap_names, name))
        return;
    const char *attrs = "__attribute__((noinline, used, noreturn))";
    buf_printf(&G->protos, "%s void %s(unsigned char *rk_io);\n", attrs, name);
    Buf *o = &G->funcs;
    buf_printf(o, "\n/* %s in run %s, at %d:%d */\n%s void %s(unsigned char *rk_io)\n{\n    ",
               s->what, run->name, s->loc.line, s->loc.col, attrs, name);
    buf_printf(o, s->call, site(s->loc));
    buf_add(o, ";\n}\n");
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
        *s = (Site){n->loc, "rack load", "rk_trap_rack(%d, \"rack load\", rk_io)"};
    else if (!strcmp(n->note, "store"))
        *s = (Site){n->loc, "rack store", "rk_trap_rack(%d, \"rack store\", rk_io)"};
    else if (!strcmp(n->note, "element"))
        *s = (Site){n->loc, "element read", "rk_trap_element(%d, rk_io)"};
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
        helper(run, &(Site){n->loc, "loop step", "(void)rk_io;\n    rk_trap(%d, \"a loop steps forward\")"});
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

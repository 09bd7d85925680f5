/* traps.c: the trap helpers of native general runs.
 *
 * A general run checks every view access itself.  Its native code has no
 * way to print: when a check fails, it calls (through a trampoline that
 * rake-emit writes, saving every register as a slow block's does) a
 * helper of the unit named after the source location of the check,
 * rk_trap_LINE_COL, with rk_io (the first argument register) pointing at
 * 8-byte slots, each holding one int64_t.  The helper prints through
 * rk_trap exactly what the interpreter prints at that location, then
 * exits with status 1; it never returns.  The sites, their slots and
 * what is printed:
 *
 *   view[<i>]  (note "load")     [start, end, count]     kind 0, rk_trap_rack
 *              rack load [start, end) outside count elements
 *   view[<i>] <- e  ("store")    [start, end, count]     kind 1, rk_trap_rack
 *              rack store [start, end) outside count elements
 *   <view[i]>  ("element")       [index, count]          kind 2, rk_trap_element
 *              index I outside N elements
 *   for <i> ... by <s>           no slots, at the `for`  kind 3, rk_trap
 *              a loop steps forward
 *
 * Each helper is a stub in assembly, in a top-level __asm__ of the unit
 * (the target table's trap_stub, lib/target_x86.c): it loads the site's
 * number (rk_sites) and its kind into the second and third argument
 * registers and jumps to the one reporter, rk_trap_stub, which calls the
 * runtime function (runtime.c) the kind names.  The C compiler's cost is
 * per function, whatever its size: a run of 3,000 checked accesses has
 * 3,000 helpers, which took gcc -O2 3.7 s as C functions that each read
 * their slots and called rk_trap, 2.2 s as C functions of one call each,
 * and takes next to nothing as stubs it passes to the assembler.
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
 * calls it or not, in every unit for a profile whose target table has a
 * trap stub (the x86 profiles, where the unit embeds the runs' native
 * code; aarch64-neon's runs aren't native yet), one per source location, in the order
 * of a depth-first walk of each run's body.  Global symbols, like the
 * slow blocks' helpers: the run's assembly calls them by name, through a
 * relocation rake-verify checks. */
#include <string.h>

#include "cgen.h"
#include "target.h"

/* The kinds of site, as rk_trap_stub's `kind` argument. */
enum { TRAP_LOAD, TRAP_STORE, TRAP_ELEMENT, TRAP_STEP };

typedef struct Site {
    RkLoc loc;
    const char *what;   /* for the comment: "rack load", ... */
    int kind;           /* TRAP_... */
} Site;

/* The reporter every stub jumps to: the runtime function of each kind. */
static void reporter(Buf *o)
{
    buf_printf(o,
               "\n/* A failed check's stub (below) jumps here with its site and kind. */\n"
               "__attribute__((noreturn, cold, noinline, used))\n"
               "static void rk_trap_stub(unsigned char *rk_io, int site, int kind)\n{\n"
               "    if (kind == %d)\n        rk_trap_rack(site, \"rack load\", rk_io);\n"
               "    if (kind == %d)\n        rk_trap_rack(site, \"rack store\", rk_io);\n"
               "    if (kind == %d)\n        rk_trap_element(site, rk_io);\n"
               "    rk_trap(site, \"a loop steps forward\");\n}\n",
               TRAP_LOAD, TRAP_STORE, TRAP_ELEMENT);
}

/* The target table's stub (a printf format), or NULL where the target
 * has no native runs yet: nothing there calls a helper. */
static const char *stub_format(void)
{
    const RkTarget *t = rk_target_find(G->target);
    return t && t->slow ? t->slow->trap_stub : NULL;
}

static void helper(RkNode *run, const Site *s)
{
    const char *name = fmt("rk_trap_%d_%d", s->loc.line, s->loc.col);
    if (!nameset_add(&G->trap_names, name))
        return;
    Buf *o = &G->funcs;
    if (G->trap_names.n == 1)
        reporter(o);
    Buf code = {0};
    buf_add(&code, "");
    buf_printf(&code, "\t.globl\t%s\n\t.type\t%s, @function\n%s:\n", name, name, name);
    buf_printf(&code, stub_format(), site(s->loc), s->kind, "rk_trap_stub");
    buf_printf(&code, "\t.size\t%s, .-%s\n", name, name);
    buf_printf(o, "\n/* %s in run %s, at %d:%d */\n", s->what, run->name, s->loc.line, s->loc.col);
    buf_asm(o, code.s, code.len);
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
        *s = (Site){n->loc, "rack load", TRAP_LOAD};
    else if (!strcmp(n->note, "store"))
        *s = (Site){n->loc, "rack store", TRAP_STORE};
    else if (!strcmp(n->note, "element"))
        *s = (Site){n->loc, "element read", TRAP_ELEMENT};
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
        helper(run, &(Site){n->loc, "loop step", TRAP_STEP});
    rk_ast_each_child(n, visit, run);
}

/* The helpers of a general run's sites, where the target has a stub. */
void gen_run_traps(RkNode *run)
{
    if (run->ret || !stub_format())
        return;
    for (int i = 0; i < run->body.len; i++)
        visit(run->body.items[i], run);
}

/* rake-check: rake.ast -> rake.checked
 *
 * Input:  a rake.ast document on stdin.
 * Output: a rake.checked document on stdout: the same tree, with "target"
 *         in the header, every expression's type in "ty", every name's
 *         resolution in "ref" and "slot", each call's callee kind in
 *         "note", and each function's number of local slots in "slot".
 * Adds:   types, name resolution, capability checks against the selected
 *         profile, the lane-coverage proofs of rakes, the moves of stacks.
 * Removes: nothing; a program with any error produces no output.
 *
 *   rake-check [--target PROFILE] [--width N]
 *   rake-check --print-targets | --print-capabilities [--json]
 *   rake-check --describe < rake.checked
 *
 * --describe reads a rake.checked document instead and prints the facts
 * the driver decides by, one `KEY VALUE` line each, in this order:
 *
 *   target PROFILE          the resolved profile (never `native`)
 *   whole-program yes|no    whether it has runs, slow functions or state
 *   part runs               one line for each of those it has, in this
 *   part slow functions     order (module constants are folded into the
 *   part module state       kernels that read them, so they are no part)
 *   part slow blocks        a run holds `slow { }` blocks (they become C)
 *   part general runs       a run over views (a failed check inside one is
 *                           reported by the slow tier's C)
 *
 * so that rakec reads them with `read`, never by the JSON's layout.
 *
 * Errors are `f.rk:L:C: error: ...` and exit 1; a malformed input document
 * exits 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check.h"
#include "ir.h"

static void usage(void)
{
    fputs("usage: rake-check [--target PROFILE] [--width N] < rake.ast > rake.checked\n"
          "       rake-check --print-targets\n"
          "       rake-check --print-capabilities [--json]\n"
          "       rake-check --describe < rake.checked\n",
          stderr);
    exit(RK_EXIT_INPUT);
}

static bool has_slow_block(RkNode *n, void *ctx)
{
    (void)ctx;
    return n->kind == RK_SLOW_BLOCK || rk_ast_any_child(n, has_slow_block, NULL);
}

/* --describe: the facts of a checked program (see the top). */
static int describe(void)
{
    RkIrDoc doc = rk_ir_read(stdin, "rake.checked", 1);
    RkModule *m = rk_ast_decode(doc.root);
    const RkProfile *p = doc.target ? rk_profile_find(doc.target) : NULL;
    if (!p || !strcmp(doc.target, "native"))
        rk_ir_fail_at("/target", "the document's target '%s' is not a resolved profile",
                      doc.target ? doc.target : "(none)");
    static const struct {
        RkKind kind;
        const char *part;
    } parts[] = {{RK_RUN, "runs"}, {RK_SLOW, "slow functions"}, {RK_STATE, "module state"}};
    bool has[3] = {false, false, false};
    for (int i = 0; i < m->decls.len; i++)
        for (int k = 0; k < 3; k++)
            has[k] |= m->decls.items[i]->kind == parts[k].kind;
    printf("target %s\nwhole-program %s\n", p->name, has[0] || has[1] || has[2] ? "yes" : "no");
    for (int k = 0; k < 3; k++)
        if (has[k])
            printf("part %s\n", parts[k].part);
    bool blocks = false, general = false;
    for (int i = 0; i < m->decls.len; i++) {
        RkNode *d = m->decls.items[i];
        blocks |= d->kind == RK_RUN && has_slow_block(d, NULL);
        general |= d->kind == RK_RUN && !d->ret;
    }
    if (blocks)
        printf("part slow blocks\n");
    if (general)
        printf("part general runs\n");
    return 0;
}

static const RkProfile *select_profile(const char *target, const char *width)
{
    const RkProfile *p = rk_profile_find(target ? target : "native");
    if (!p)
        rk_diag_input("unknown target '%s' (the targets: %s)", target,
                      rk_profile_names());
    if (!p->usable)
        rk_diag_fatal((RkLoc){0, 0}, "the %s profile is work in progress and "
                                     "the compiler rejects it",
                      p->name);
    if (width) {
        char *end;
        long w = strtol(width, &end, 10);
        if (*end || w <= 0)
            rk_diag_input("--width takes a positive integer, got '%s'", width);
        if (w != p->lanes)
            rk_diag_fatal((RkLoc){0, 0}, "--width %ld doesn't match %s, which has "
                                         "%d f32 lanes; the compiler never splits "
                                         "or narrows a rack",
                          w, p->name, p->lanes);
    }
    return p;
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-check");
    const char *target = NULL, *width = NULL;
    bool targets = false, caps = false, json = false, facts = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--target") && i + 1 < argc)
            target = argv[++i];
        else if (!strcmp(argv[i], "--width") && i + 1 < argc)
            width = argv[++i];
        else if (!strcmp(argv[i], "--print-targets"))
            targets = true;
        else if (!strcmp(argv[i], "--print-capabilities"))
            caps = true;
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--describe"))
            facts = true;
        else
            usage();
    }
    if (targets) {
        print_targets();
        return 0;
    }
    if (caps) {
        print_capabilities(json);
        return 0;
    }
    if (facts)
        return describe();
    RkIrDoc doc = rk_ir_read(stdin, "rake.ast", 1);
    RkModule *m = rk_ast_decode(doc.root);
    Check check = {0};
    C = &check;
    C->profile = select_profile(target, width);
    C->module = m;
    C->ctx = RK_BDD_TRUE;
    m->target = C->profile->name;
    check_module();
    rk_diag_exit_on_errors();
    rk_ir_write(rk_ast_encode(m, "rake.checked"), stdout);
    return 0;
}

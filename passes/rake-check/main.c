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
          "       rake-check --print-capabilities [--json]\n",
          stderr);
    exit(RK_EXIT_INPUT);
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
    bool targets = false, caps = false, json = false;
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

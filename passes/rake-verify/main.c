/* rake-verify: checks, not transformations.
 *
 *   rake-verify --ir < rake.nir
 *       Runs the native-IR verifier (lib/nirverify.c) on a rake.nir
 *       document and reports every violation with its function,
 *       instruction and rule.  Exit 0 when the IR is valid, 1 when it
 *       violates a rule, 2 when the input isn't a rake.nir document.
 *
 * Output: nothing on stdout; the verdict is the exit status, the reasons
 * are on stderr. */
#include <stdio.h>
#include <string.h>

#include "ir.h"
#include "nir.h"
#include "profile.h"

static void usage(void)
{
    rk_diag_input("usage: rake-verify --ir < rake.nir");
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-verify");
    if (argc != 2 || strcmp(argv[1], "--ir"))
        usage();
    RkIrDoc doc = rk_ir_read(stdin, "rake.nir", 1);
    RkNirModule *m = rk_nir_decode(doc.root);
    const RkProfile *p = rk_profile_find(m->target);
    if (!p)
        rk_diag_input("the document's target '%s' is not a profile", m->target);
    int n = rk_nir_verify(m, p->fp_exceptions, p->lanes);
    if (n) {
        fprintf(stderr, "rake-verify: %d violation%s\n", n, n == 1 ? "" : "s");
        return RK_EXIT_USER;
    }
    return 0;
}

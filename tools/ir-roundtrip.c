/* ir-roundtrip: read a rake.ast or rake.checked document on stdin with
 * librake (rk_ir_read_any, rk_ast_decode) and write it back on stdout
 * (rk_ast_encode, rk_ir_write).
 *
 * A test harness, not a pass: tests/05-ir-contract.bats and
 * tests/90-fuzz-parse.bats build it against the sanitizer librake so that
 * the JSON boundary in lib/ir.c and the tree decoder in lib/ast.c are held
 * to the IR contract (docs/ir-contract.md) even before any pass reads IR.
 *
 *   cc -Ilib -fsanitize=address,undefined tools/ir-roundtrip.c \
 *      build-asan/lib/librake.a -ljansson -lm -o ir-roundtrip */
#include <stdio.h>

#include "ast.h"
#include "diag.h"
#include "ir.h"

int main(int argc, char **argv)
{
    (void)argv;
    rk_diag_program("ir-roundtrip");
    if (argc != 1)
        rk_diag_input("usage: ir-roundtrip < DOC.json");
    static const char *const kinds[] = {"rake.ast", "rake.checked", NULL};
    RkIrDoc d = rk_ir_read_any(stdin, kinds, 1);
    RkModule *m = rk_ast_decode(d.root);
    rk_ir_write(rk_ast_encode(m, d.kind), stdout);
    return 0;
}

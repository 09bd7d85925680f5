/* rake-verify: checks, not transformations.
 *
 *   rake-verify --ir < rake.nir
 *       Runs the native-IR verifier (lib/nirverify.c) on a rake.nir
 *       document and reports every violation with its function,
 *       instruction and rule.
 *   rake-verify --object F.o [--name SHOWN] < rake.mir
 *       Disassembles the object with Capstone and checks every register
 *       kernel against its profile's rules and against the allocated
 *       rake.mir selection it was assembled from (x86.c lists the rules).
 *       --whole-program: the object is a whole program's C unit compiled
 *       by the platform C compiler; its own functions and their
 *       relocations are not judged, the selected ones are, byte for byte.
 *
 * Output: nothing on stdout; the verdict is the exit status (0 valid, 1 a
 * violation, 2 an input that isn't the expected document), the reasons are
 * on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "mir.h"
#include "nir.h"
#include "profile.h"
#include "verify.h"

static void usage(void)
{
    rk_diag_input("usage: rake-verify --ir < rake.nir\n"
                  "       rake-verify --object F.o [--name SHOWN] [--whole-program] < rake.mir");
}

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        rk_diag_input("cannot open %s", path);
    size_t cap = 1 << 16;
    uint8_t *b = malloc(cap);
    *n = 0;
    size_t got;
    while ((got = fread(b + *n, 1, cap - *n, f)) > 0) {
        *n += got;
        if (*n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    return b;
}

/* path is read; name is what messages call it (rakec verifies a
 * temporary that becomes the output). */
static int object(const char *path, const char *name, bool whole)
{
    RkIrDoc doc = rk_ir_read(stdin, "rake.mir", 2);
    RkMModule *m = rk_mir_decode(doc.root);
    if (!m->allocated)
        rk_ir_fail_at("/allocated", "the rake.mir document still has virtual registers: give rake-ra's "
                      "output");
    const RkProfile *p = rk_profile_find(m->target);
    if (!p || p->arch != RK_ARCH_X86)
        rk_ir_fail_at("/target", "rake-verify checks x86 objects (x86-sse2, x86-avx2, x86-avx512), not "
                      "'%s'",
                      m->target);
    size_t n;
    uint8_t *bytes = read_all(path, &n);
    const char *why;
    ElfObject *obj = elf_read(bytes, n, &why);
    if (!obj) {
        fprintf(stderr, "rake-verify: elf: %s: %s\n", name, why);
        return RK_EXIT_USER;
    }
    int bad = verify_x86(obj, m, p, whole);
    if (bad) {
        fprintf(stderr, "rake-verify: %s fails verification\n", name);
        return RK_EXIT_USER;
    }
    return 0;
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-verify");
    bool whole = argc > 3 && !strcmp(argv[argc - 1], "--whole-program");
    if (whole)
        argc--;
    if (argc == 3 && !strcmp(argv[1], "--object"))
        return object(argv[2], argv[2], whole);
    if (argc == 5 && !strcmp(argv[1], "--object") && !strcmp(argv[3], "--name"))
        return object(argv[2], argv[4], whole);
    if (argc != 2 || strcmp(argv[1], "--ir"))
        usage();
    RkIrDoc doc = rk_ir_read(stdin, "rake.nir", 1);
    RkNirModule *m = rk_nir_decode(doc.root);
    const RkProfile *p = rk_profile_find(m->target);
    if (!p)
        rk_ir_fail_at("/target", "the document's target '%s' is not a profile", m->target);
    int n = rk_nir_verify(m, p->fp_exceptions, p->lanes);
    if (n) {
        fprintf(stderr, "rake-verify: %d violation%s\n", n, n == 1 ? "" : "s");
        return RK_EXIT_USER;
    }
    return 0;
}

/* kernels.c: calling kernels directly, for differential tests.
 *
 *   rake-interp [--nir F.nir] [--contract] --kernels CALLS < rake.checked
 *
 * CALLS has one call per line: a scratch or rake name and one argument per
 * parameter, each a rack as comma-separated hex lane bits or a uniform as
 * one hex value:
 *     clamp 3f800000,bf800000,7fc00000,00000000 0 40000000
 * The output has one line per call: the name and the result in the same
 * form.  With --nir the native-IR evaluator runs the call instead of the
 * tree evaluator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"

static Val parse_arg(char *tok, const RkType *t, int line)
{
    Val v;
    if (t->kind == RK_T_SCALAR) {
        v = v_scalar(t->elem, strtoull(tok, NULL, 16));
        return v;
    }
    v = t->kind == RK_T_MASK ? v_mask(t->elem, lanes_of(t->elem))
                             : v_rack(t->elem, lanes_of(t->elem));
    char *save = NULL;
    int l = 0;
    for (char *p = strtok_r(tok, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (l >= v.lanes)
            rk_diag_input("calls line %d: more lanes than a %s rack has", line,
                          rk_ty_str(t));
        v.v[l++] = norm(t->elem, strtoull(p, NULL, 16));
    }
    if (l != v.lanes)
        rk_diag_input("calls line %d: %d lanes for a %d-lane %s", line, l, v.lanes,
                      rk_ty_str(t));
    return v;
}

static void print_val(Val v)
{
    int bits = rk_elem_bits(v.elem);
    uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    if (v.kind == V_SCALAR) {
        printf("%llx", (unsigned long long)(v.v[0] & m));
        return;
    }
    if (v.kind == V_MASK)
        m = 1;
    for (int l = 0; l < v.lanes; l++)
        printf("%s%llx", l ? "," : "", (unsigned long long)(v.v[l] & m));
}

void run_kernel_calls(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        rk_diag_input("cannot open %s", path);
    char *buf = NULL;
    size_t cap = 0;
    int line = 0;
    while (getline(&buf, &cap, f) >= 0) {
        line++;
        char *save = NULL;
        char *name = strtok_r(buf, " \t\n", &save);
        if (!name || name[0] == '#')
            continue;
        RkNode *fn = find_fn(name);
        if (!fn || (fn->kind != RK_SCRATCH && fn->kind != RK_RAKE))
            rk_diag_input("calls line %d: no scratch or rake '%s'", line, name);
        int n = fn->params.len;
        Val *args = calloc((size_t)(n ? n : 1), sizeof(Val));
        for (int i = 0; i < n; i++) {
            char *tok = strtok_r(NULL, " \t\n", &save);
            if (!tok)
                rk_diag_input("calls line %d: %s takes %d arguments", line, name, n);
            args[i] = parse_arg(tok, ty_of(fn->params.items[i]), line);
        }
        I->active = ~0ull;
        Val r = nir_has(name) ? nir_call(name, fn, args, n) : run_kernel(fn, args, n);
        printf("%s ", name);
        print_val(r);
        putchar('\n');
        free(args);
    }
    free(buf);
    fclose(f);
}

/* rake-interp: rake.checked -> the result of main
 *
 * Input:  a rake.checked document on stdin; its "target" gives the lane
 *         count (4 on wasm-simd128, 8 on x86-avx2, ...).
 * Output: main's i32 result in decimal and a newline on stdout, exit 0.
 *         A trap prints `f.rk:L:C: trap: message` on stderr and exits 1,
 *         with nothing on stdout.
 * Options: --nir F.nir   calls to runs and kernels execute the optimised
 *                        native IR instead (the IR evaluator, nireval.c);
 *          --kernels F   call kernels directly (kernels.c) instead of main;
 *          --contract    contract multiply-adds in fused regions as the
 *                        x86-avx2, x86-avx512 and aarch64-neon profiles
 *                        do (for comparing with their code); never the
 *                        default.
 * This is Rake's executable semantics, the oracle every backend is tested
 * against; it shares no code with any backend, only the lane semantics of
 * lib/lanes.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "interp.h"
#include "ir.h"
#include "profile.h"

/* Slow code may recurse, and the tree walker takes several KB of C stack
 * per slow call (more under the sanitizers), so main runs on a thread
 * whose stack (reserved, and touched only as used) holds the deepest
 * nesting push_frame allows: past that the call traps, never overflows. */
enum { MAIN_STACK_BYTES = 1 << 30 };

typedef struct MainRun {
    RkNode *fn;
    Val *args;
    int nargs;
    Val result;
} MainRun;

static void *main_thread(void *arg)
{
    MainRun *m = arg;
    m->result = call_slow(m->fn, m->args, m->nargs);
    return NULL;
}

static Val run_on_big_stack(RkNode *fn, Val *args, int nargs)
{
    MainRun m = {fn, args, nargs, v_unit()};
    pthread_attr_t attr;
    pthread_t t;
    if (pthread_attr_init(&attr) == 0 &&
        pthread_attr_setstacksize(&attr, MAIN_STACK_BYTES) == 0 &&
        pthread_create(&t, &attr, main_thread, &m) == 0) {
        pthread_join(t, NULL);
        return m.result;
    }
    return call_slow(fn, args, nargs); /* no thread: the process stack */
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-interp");
    bool contract = false;
    const char *nir_path = NULL, *calls = NULL;
    int first_arg = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            first_arg = i + 1;
            break;
        }
        if (!strcmp(argv[i], "--nir") && i + 1 < argc) {
            nir_path = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--kernels") && i + 1 < argc) {
            calls = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--contract")) {
            contract = true;
            continue;
        }
        rk_diag_input("unknown option '%s' (usage: rake-interp [--nir F.nir] < "
                      "rake.checked [-- ARGS])",
                      argv[i]);
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.checked", 1);
    RkModule *m = rk_ast_decode(doc.root);
    const RkProfile *p = doc.target ? rk_profile_find(doc.target) : NULL;
    if (!p)
        rk_ir_fail_at("/target", "the document's target '%s' is not a profile",
                      doc.target ? doc.target : "(none)");
    if (nir_path)
        nir_load(nir_path, p);
    Interp interp = {0};
    I = &interp;
    I->f32_lanes = p->lanes;
    I->profile = p->name;
    I->module = m;
    I->active = ~0ull;
    const char *fb = getenv("RAKE_FRAME_BYTES");
    I->frame_bytes = fb && *fb ? strtoll(fb, NULL, 0) : 4 << 20;
    I->contract = contract;
    I->region = -1;
    I->regions_on = true;
    if (calls) {
        run_kernel_calls(calls);
        return 0;
    }
    RkNode *main_fn = find_fn("main");
    if (!main_fn || main_fn->kind != RK_SLOW)
        rk_diag_fatal((RkLoc){0, 0}, "the program has no slow main to run");
    refuse_unions();
    /* main(argc, argv): argv[0] is the program's source, then the
     * arguments after -- */
    int nargs = main_fn->params.len ? 2 : 0;
    Val args[2];
    if (nargs) {
        char **av = calloc((size_t)(argc - first_arg + 2), sizeof *av);
        int ac = 0;
        av[ac++] = (char *)(m->source ? m->source : "");
        for (int i = first_arg; i < argc; i++)
            av[ac++] = argv[i];
        args[0] = v_scalar(RK_E_I32, (uint64_t)ac);
        args[1] = main_argv(ac, av);
    }
    Val r = run_on_big_stack(main_fn, args, nargs);
    printf("%d\n", (int)(int32_t)r.v[0]);
    return 0;
}

/* rake-cgen: rake.checked -> the slow tier of a whole program as one C unit
 *
 * Usage:  rake-cgen [--asm FILE.s] < rake.checked > unit.c
 * Input:  a rake.checked document on stdin (any target).
 * Output: one self-contained C11 translation unit for gcc or clang on
 *         x86-64 Linux: every slow function, module state and constants,
 *         and, when the program has `slow main() -> i32`, a C main that
 *         runs it (docs/slow-tier.md).  The unit behaves exactly as
 *         `rakec --interpret` does: the same checked arithmetic, the same
 *         traps, printed byte for byte as lib/diag.c prints them (the
 *         source lines the trap sites quote are embedded), and, compiled
 *         with -DRAKE_PRINT_RESULT, main's result printed as rake-interp
 *         prints it.
 * Options: --asm FILE.s  the kernels' and runs' assembly (rake-emit's), put
 *                        verbatim in one top-level __asm__ statement.
 *          --header-runs print only the C boundary of the runs (the stack
 *                        runs' packs' descriptors, every run's prototype),
 *                        which rakec --emit-header puts in rake-emit's
 *                        header.
 * Runs and kernels that slow code calls are declared with their C boundary
 * prototypes (spec page 03) and called by their source names; their code
 * comes from the assembly.  On an x86 profile every general run's checks
 * get the helpers that print their traps (traps.c: assembly stubs into
 * one C reporter).  A form
 * rake-cgen doesn't implement is a located error (exit 1), never wrong
 * C.  The same input gives the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cgen.h"
#include "cnames.h"
#include "ir.h"
#include "profile.h"

Cg *G;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    Buf b = {0};
    buf_add(&b, "");
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        size_t old = b.len;
        for (size_t i = 0; i < n; i++)
            buf_add(&b, " ");
        memcpy(b.s + old, chunk, n);
    }
    fclose(f);
    if (len)
        *len = b.len;
    return b.s;
}

/* --- the unit's parts ----------------------------------------------------------- */

static void check_field_name(RkNode *f)
{
    if (rk_cnames_reserved(f->name))
        refuse(f->loc, "rake-cgen: the column '%s' can't be a C struct member (spec page "
                           "03 names descriptor fields after the pack's)",
                   f->name);
}

/* The C boundary's descriptor, and copy(s) for stacks of this pack. */
static void gen_pack(Buf *o, RkNode *p)
{
    const char *st = stack_struct(p->name);
    buf_printf(o, "%s {\n    int64_t count;\n", st);
    for (int i = 0; i < p->fields.len; i++) {
        RkNode *f = p->fields.items[i];
        check_field_name(f);
        buf_printf(o, "    %s *%s;\n", elem_ctype(type_of(f)->elem), f->name);
    }
    buf_printf(o, "};\n\nRK_RT %s *rk_copy_%s(struct rk_frame *f, const %s *s, int site)\n{\n",
               st, p->name, st);
    buf_add(o, "    int64_t n = s->count > 0 ? s->count : 0;\n    long long bytes = 0;\n");
    for (int i = 0; i < p->fields.len; i++)
        buf_printf(o, "    bytes += rk_round16((long long)sizeof *s->%s * n);\n",
                   p->fields.items[i]->name);
    buf_printf(o, "    char *mem = rk_arena_take(f, bytes, site);\n    %s *d = rk_alloc(f, "
                  "sizeof *d);\n    *d = *s;\n",
               st);
    for (int i = 0; i < p->fields.len; i++) {
        const char *c = p->fields.items[i]->name;
        buf_printf(o, "    d->%s = (void *)mem;\n    if (n)\n        memcpy(d->%s, s->%s, "
                      "sizeof *s->%s * (size_t)n);\n    mem += rk_round16((long long)sizeof "
                      "*s->%s * n);\n",
                   c, c, c, c, c);
    }
    buf_add(o, "    (void)mem;\n    return d;\n}\n\n");
}

/* A record's or union's type, defined (with its header's asserts) even
 * when no code names it; an opaque record has only a pointer type. */
static void gen_record(RkNode *d)
{
    if (d->kind == RK_UNION && !header_backed(d))
        refuse(d->loc, "rake-cgen: a union needs a header (`from \"h.h\"`)");
    if (header_backed(d) && !d->fields.len)
        return;
    (void)ctype(rk_ty_record(d->name, d->kind == RK_UNION));
}

static void gen_decls(Buf *packs)
{
    RkList d = G->m->decls;
    declare_records();
    for (int i = 0; i < d.len; i++) {
        RkNode *n = d.items[i];
        switch (n->kind) {
        case RK_PACK: gen_pack(packs, n); break;
        case RK_RECORD:
        case RK_UNION: gen_record(n); break;
        case RK_EMBED: gen_embed(n); break;
        case RK_EXTERN: break; /* its header declares it */
        case RK_STATE:
        case RK_CONST: gen_global(n); break;
        case RK_SLOW: gen_function(n); break;
        case RK_RUN: /* its slow blocks' helpers, a general run's trap helpers */
            gen_run_blocks(n);
            gen_run_traps(n);
            break;
        case RK_SCRATCH:
        case RK_RAKE:
        case RK_TINE: break; /* native code, declared where slow code calls it */
        default:
            refuse(n->loc, "rake-cgen: a %s definition is not implemented",
                   rk_kind_name(n->kind));
        }
    }
}

static const char *const includes =
    "#define _POSIX_C_SOURCE 200809L\n"
    "#include <math.h>\n#include <pthread.h>\n#include <stdarg.h>\n#include <stdbool.h>\n"
    "#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "#include <string.h>\n\n"
    "/* binary32 and binary64 arithmetic as written: no contraction */\n"
    "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n"
    "#elif defined(__GNUC__)\n#pragma GCC optimize(\"fp-contract=off\")\n#endif\n\n";

/* main(argc, argv) gets C's; compiled with -DRAKE_ARGV0_SOURCE (rakec
 * --run), argv[0] is the source path, as rakec --interpret gives it. */
static const char *const c_main_args =
    "\n/* ---- main: Rake's main on a thread whose stack holds 10000 calls ---- */\n"
    "static int32_t rk_main_result;\nstatic int rk_argc;\nstatic char **rk_argv;\n\n"
    "static void *rk_main_thread(void *arg)\n{\n    (void)arg;\n"
    "    rk_main_result = rk_fn_main((int32_t)rk_argc, (uint8_t **)rk_argv);\n"
    "    return NULL;\n}\n\n"
    "int main(int argc, char **argv)\n{\n"
    "#ifdef RAKE_ARGV0_SOURCE\n    if (argc > 0)\n        argv[0] = (char *)rk_source;\n#endif\n"
    "    rk_argc = argc;\n    rk_argv = argv;\n";

static const char *const c_main_plain =
    "\n/* ---- main: Rake's main on a thread whose stack holds 10000 calls ---- */\n"
    "static int32_t rk_main_result;\n\n"
    "static void *rk_main_thread(void *arg)\n{\n    (void)arg;\n"
    "    rk_main_result = rk_fn_main();\n    return NULL;\n}\n\n"
    "int main(int argc, char **argv)\n{\n    (void)argc;\n    (void)argv;\n";

static const char *const c_main =
    "    const char *fb = getenv(\"RAKE_FRAME_BYTES\");\n"
    "    if (fb && *fb)\n        rk_frame_bytes = strtoll(fb, NULL, 0);\n"
    "    pthread_attr_t attr;\n    pthread_t t;\n"
    "    if (pthread_attr_init(&attr) == 0 &&\n"
    "        pthread_attr_setstacksize(&attr, (size_t)1 << 30) == 0 &&\n"
    "        pthread_create(&t, &attr, rk_main_thread, NULL) == 0)\n"
    "        pthread_join(t, NULL);\n    else\n        rk_main_thread(NULL);\n"
    "#ifdef RAKE_PRINT_RESULT\n    printf(\"%d\\n\", (int)rk_main_result);\n    return 0;\n"
    "#else\n    return (int)rk_main_result;\n#endif\n}\n";

static void write_asm(FILE *out, const char *text, size_t n)
{
    Buf b = {0};
    buf_add(&b, "");
    buf_asm(&b, text, n);
    fprintf(out, "\n/* ---- the native code (rake-emit's), opaque to the C compiler ---- */\n%s", b.s);
}

/* --header-runs: the descriptor of every pack a stack run takes, then
 * every run's prototype (stack runs and general runs, in source order),
 * for rake-emit --header's C header. */
static void header_runs(RkModule *m)
{
    for (int i = 0; i < m->decls.len; i++) {
        RkNode *p = m->decls.items[i];
        if (p->kind != RK_PACK)
            continue;
        bool used = false;
        for (int k = 0; k < m->decls.len; k++) {
            RkNode *r = m->decls.items[k];
            for (int j = 0; r->kind == RK_RUN && native_run(r) && j < r->params.len; j++) {
                const RkType *t = type_of(r->params.items[j]);
                used |= t->kind == RK_T_STACK && !strcmp(t->name, p->name);
            }
        }
        if (!used)
            continue;
        printf("%s {\n    int64_t count;\n", stack_struct(p->name));
        for (int f = 0; f < p->fields.len; f++) {
            check_field_name(p->fields.items[f]);
            printf("    %s *%s;\n", elem_ctype(type_of(p->fields.items[f])->elem),
                   p->fields.items[f]->name);
        }
        printf("};\n");
    }
    for (int i = 0; i < m->decls.len; i++) {
        RkNode *r = m->decls.items[i];
        if (r->kind == RK_RUN && (native_run(r) || !r->ret))
            printf("%s\n", run_prototype(r, r, true));
    }
}

typedef struct Asm {
    const char *path, *text;
    size_t len;
} Asm;

static void write_unit(FILE *out, RkNode *main_fn, const Asm *as, Buf *packs)
{
    fprintf(out, "/* Generated by rake-cgen from %s (target %s): the slow tier of the\n"
                 " * program as one C unit.  Do not edit; docs/slow-tier.md describes it. */\n",
            G->source, G->target);
    fputs(includes, out);
    Buf inc = {0};
    buf_add(&inc, "");
    gen_includes(&inc);
    fputs(inc.s, out);
    Buf src = {0};
    buf_add(&src, "");
    buf_cstring(&src, G->source, strlen(G->source));
    fprintf(out, "struct rk_site {\n    int line, col;\n    const char *quote;\n};\n\n"
                 "static const char rk_source[] = %s;\n\n"
                 "static const struct rk_site rk_sites[] = {\n    {0, 0, NULL},\n%s};\n\n",
            src.s, G->sites.s);
    for (int i = 0; cg_runtime[i]; i++)
        fprintf(out, "%s\n", cg_runtime[i]);
    fputs("\n/* ---- views, stacks and arrays ---- */\n", out);
    for (RkElem e = RK_E_F32; e <= RK_E_BOOL; e++)
        fprintf(out, "%s {\n    %s *p;\n    int64_t n;\n};\n", view_struct(e), elem_ctype(e));
    fprintf(out, "\n%s%s", packs->s, G->types.s);
    if (G->native_names.n)
        fprintf(out, "\n/* ---- runs and kernels (native code) ---- */\n%s", G->natives.s);
    fprintf(out, "\n/* ---- slow functions and module values ---- */\n%s\n%s%s", G->protos.s,
            G->state.s, G->funcs.s);
    if (main_fn) {
        fputs(main_fn->params.len ? c_main_args : c_main_plain, out);
        fputs(c_main, out);
    }
    if (as->path)
        write_asm(out, as->text, as->len);
}

static bool main_args(RkNode *fn)
{
    return fn->params.len == 2 && fn->params.items[0]->ty &&
           !strcmp(fn->params.items[0]->ty, "i32") && fn->params.items[1]->ty &&
           !strcmp(fn->params.items[1]->ty, "ptr ptr u8");
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-cgen");
    Asm as = {0};
    bool runs_header = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--header-runs")) {
            runs_header = true;
            continue;
        }
        if (!strcmp(argv[i], "--asm") && i + 1 < argc) {
            as.path = argv[++i];
            as.text = read_file(as.path, &as.len);
            if (!as.text)
                rk_diag_input("can't read the assembly '%s'", as.path);
            continue;
        }
        rk_diag_input("unknown option '%s' (usage: rake-cgen [--asm FILE.s | --header-runs] < "
                      "rake.checked > unit.c)",
                      argv[i]);
    }
    RkIrDoc doc = rk_ir_read(stdin, "rake.checked", 1);
    RkModule *m = rk_ast_decode(doc.root);
    if (!doc.target || !rk_profile_find(doc.target))
        rk_ir_fail_at("/target", "the document's target '%s' is not a profile",
                      doc.target ? doc.target : "(none)");
    Cg cg = {0};
    G = &cg;
    G->m = m;
    G->source = doc.source;
    G->target = doc.target;
    G->src_text = read_file(doc.source, NULL);
    Buf *bufs[] = {&G->sites, &G->types, &G->natives, &G->state, &G->protos, &G->funcs};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        buf_add(bufs[i], "");
    if (runs_header) {
        header_runs(m);
        return fflush(stdout) ? RK_EXIT_INTERNAL : 0;
    }
    Buf packs = {0};
    buf_add(&packs, "");
    gen_decls(&packs);
    RkNode *main_fn = find_decl("main", RK_SLOW, RK_SLOW);
    if (main_fn && (!main_fn->ty || strcmp(main_fn->ty, "i32") ||
                    (main_fn->params.len && !main_args(main_fn))))
        refuse(main_fn->loc, "rake-cgen: main is `slow main() -> i32` or `slow main(argc: i32, "
                             "argv: ptr ptr u8) -> i32`");
    write_unit(stdout, main_fn, &as, &packs);
    return fflush(stdout) ? RK_EXIT_INTERNAL : 0;
}

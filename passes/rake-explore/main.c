/* rake-explore: the documents of one compile -> one self-contained HTML page
 *
 *   rake-explore --source F.rk [--name SHOWN] [--target P]
 *                [--tokens T] [--ast A] [--checked C] [--nir0 N] [--nir N]
 *                [--mir0 M] [--mir M] [--asm S] [--report R]
 *                [--verify-ir FILE STATUS] [--verify FILE STATUS]
 *                [--interp FILE STATUS] [--failed STAGE FILE STATUS]
 *                [--stopped FILE]  > page.html
 *
 * Input: the files a compile wrote, each optional but the source, each
 * named by the stage that wrote it (`rakec --explore` runs the pipeline and
 * passes whatever exists):
 *   --tokens   `rake-parse --tokens` (LINE:COL KIND TEXT per line)
 *   --ast      rake.ast (rake-parse)       --checked  rake.checked (rake-check)
 *   --nir0     rake.nir from rake-lower     --nir      rake.nir from rake-opt
 *   --mir0     rake.mir from rake-isel-*    --mir      rake.mir from rake-ra
 *   --asm      rake-emit's assembly         --report   rake-report's kernel report
 *   --verify-ir, --verify   the native-IR verifier's and the object
 *              verifier's messages and exit status (0: passed)
 *   --interp   what `rake-interp` printed (stdout, then stderr) and its status
 *   --failed   the stage that stopped the pipeline, what it printed on
 *              standard error (the diagnostic), and its exit status
 *   --stopped  why the pipeline ended early without rejecting the program
 *              (no native backend for the profile)
 * Output: on stdout, one HTML file with everything inline (page.c): no
 * network, no fonts, no other file.  The page shows the source with line
 * numbers and one tab per stage: the tokens, the AST as a collapsible
 * tree, the checked program with each expression's type, lanes and tier
 * and its masks and sweeps in words (checked.c), the native IR before and
 * after rake-opt as a diff (nirview.c), the machine IR before and after
 * rake-ra with the registers live at each instruction against the
 * target's limit (mirview.c), the assembly (asmview.c), the verifiers'
 * verdicts, the kernel report and the interpreter's result.  Every row of
 * every stage keeps the source location its document gave it (`loc` on
 * AST nodes and native-IR instructions, `loc` with `origin` on machine
 * instructions, and through rk_mir_flatten on assembly lines), and the
 * page's script highlights by location: a source line selects everything
 * derived from it, an instruction selects its source and its relatives.
 *
 * The page is built from the documents, never by recompiling: a stage
 * replaced through RAKE_PASS_<NAME> shows its own output.  Same files, same
 * bytes: no time, no path but the ones given, keys in a fixed order.
 * Exit status 0 with the page written; 2 for a bad invocation or a file
 * that is not the document it should be (nothing is written). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "explore.h"
#include "ir.h"
#include "target.h"

typedef struct Text {
    const char *path;
    int status;
} Text;

typedef struct Opts {
    const char *source, *name, *target;
    const char *tokens, *ast, *checked, *nir0, *nir, *mir0, *mir, *asm_, *report, *stopped;
    Text verify_ir, verify, interp, failed;
    const char *failed_stage;
} Opts;

static void usage(void)
{
    rk_diag_input("usage: rake-explore --source F.rk [--name SHOWN] [--target P] [--tokens T] "
                  "[--ast A] [--checked C] [--nir0 N] [--nir N] [--mir0 M] [--mir M] [--asm S] "
                  "[--report R] [--verify-ir F STATUS] [--verify F STATUS] [--interp F STATUS] "
                  "[--failed STAGE F STATUS] [--stopped F] > page.html");
}

static int status_arg(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 255)
        usage();
    return (int)v;
}

static bool one(const char *flag, const char *want, const char **slot, char **argv, int *i, int argc)
{
    if (strcmp(flag, want))
        return false;
    if (*i + 1 >= argc)
        usage();
    *slot = argv[++*i];
    return true;
}

static bool two(const char *flag, const char *want, Text *slot, char **argv, int *i, int argc)
{
    if (strcmp(flag, want))
        return false;
    if (*i + 2 >= argc)
        usage();
    slot->path = argv[++*i];
    slot->status = status_arg(argv[++*i]);
    return true;
}

static Opts options(int argc, char **argv)
{
    Opts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (one(a, "--source", &o.source, argv, &i, argc) || one(a, "--name", &o.name, argv, &i, argc) ||
            one(a, "--target", &o.target, argv, &i, argc) || one(a, "--tokens", &o.tokens, argv, &i, argc) ||
            one(a, "--ast", &o.ast, argv, &i, argc) || one(a, "--checked", &o.checked, argv, &i, argc) ||
            one(a, "--nir0", &o.nir0, argv, &i, argc) || one(a, "--nir", &o.nir, argv, &i, argc) ||
            one(a, "--mir0", &o.mir0, argv, &i, argc) || one(a, "--mir", &o.mir, argv, &i, argc) ||
            one(a, "--asm", &o.asm_, argv, &i, argc) || one(a, "--report", &o.report, argv, &i, argc) ||
            one(a, "--stopped", &o.stopped, argv, &i, argc) ||
            two(a, "--verify-ir", &o.verify_ir, argv, &i, argc) ||
            two(a, "--verify", &o.verify, argv, &i, argc) || two(a, "--interp", &o.interp, argv, &i, argc))
            continue;
        if (!strcmp(a, "--failed") && i + 3 < argc) {
            o.failed_stage = argv[++i];
            two("--failed", "--failed", &o.failed, argv, &i, argc);
            continue;
        }
        usage();
    }
    if (!o.source)
        usage();
    if (!o.name)
        o.name = o.source;
    return o;
}

/* --- the documents -------------------------------------------------------------- */

static json_t *doc(const char *path, const char *kind, int version)
{
    if (!path)
        return NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        rk_diag_input("cannot open %s", path);
    RkIrDoc d = rk_ir_read(f, kind, version);
    fclose(f);
    return d.root;
}

static json_t *text_result(const Text *t)
{
    if (!t->path)
        return json_null();
    return json_pack("{s:i, s:o}", "status", t->status, "text", ex_str(ex_read_file(t->path, true)));
}

static bool is(json_t *obj, const char *key, const char *want)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s && !strcmp(s, want);
}

static bool has_main(json_t *checked)
{
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(checked, "decls"), i, d) {
        if (is(d, "k", "slow") && is(d, "name", "main"))
            return true;
    }
    return false;
}

static const char *target_of(const Opts *o, json_t *checked, json_t *nir)
{
    json_t *from = checked ? checked : nir;
    const char *t = from ? json_string_value(json_object_get(from, "target")) : NULL;
    return t ? t : o->target ? o->target : "native";
}

/* --- what happened ------------------------------------------------------------------ */

/* compiled: every stage that applies ran; rejected: a stage refused the
 * program (status 1); internal: a stage failed on a document (status 2 or
 * more); stopped: the profile has no native backend past the native IR. */
static json_t *outcome(const Opts *o)
{
    json_t *j = json_object();
    const char *kind = o->failed_stage ? (o->failed.status == 1 ? "rejected" : "internal")
                       : o->stopped   ? "stopped" : "compiled";
    json_object_set_new(j, "kind", json_string(kind));
    if (o->failed_stage) {
        json_object_set_new(j, "stage", json_string(o->failed_stage));
        json_object_set_new(j, "status", json_integer(o->failed.status));
    }
    if (o->stopped)
        json_object_set_new(j, "text", ex_str(ex_read_file(o->stopped, true)));
    return j;
}

static json_t *interp_view(const Opts *o, json_t *checked)
{
    if (!checked)
        return json_null();
    json_t *j = text_result(&o->interp);
    if (json_is_null(j))
        j = json_object();
    json_object_set_new(j, "main", json_boolean(has_main(checked)));
    return j;
}

static json_t *verify_view(const Opts *o)
{
    return json_pack("{s:o, s:o}", "ir", text_result(&o->verify_ir), "object", text_result(&o->verify));
}

static json_t *or_null(json_t *v)
{
    return v ? v : json_null();
}

static json_t *data(const Opts *o)
{
    json_t *ast = doc(o->ast, "rake.ast", 1), *checked = doc(o->checked, "rake.checked", 1);
    json_t *nir0 = doc(o->nir0, "rake.nir", 1), *nir = doc(o->nir, "rake.nir", 1);
    json_t *mir0 = doc(o->mir0, "rake.mir", 2), *mir = doc(o->mir, "rake.mir", 2);
    const char *target = target_of(o, checked, nir);
    const RkNirModule *opt = nir ? rk_nir_decode(nir) : NULL;
    json_t *d = json_object();
    json_object_set_new(d, "file", ex_str(o->name));
    json_object_set_new(d, "target", ex_str(target));
    json_object_set_new(d, "outcome", outcome(o));
    json_object_set_new(d, "source", ex_lines(ex_read_file(o->source, true)));
    json_object_set_new(d, "diag", o->failed_stage ? ex_diag(ex_read_file(o->failed.path, true),
                                                             o->failed_stage) : json_null());
    json_object_set_new(d, "limits", ex_reg_limits(target));
    json_object_set_new(d, "tokens", o->tokens ? ex_tokens(ex_read_file(o->tokens, true)) : json_null());
    json_object_set_new(d, "ast", ast ? json_incref(json_object_get(ast, "decls")) : json_null());
    json_object_set_new(d, "checked", checked ? ex_checked_view(checked) : json_null());
    json_object_set_new(d, "nir", nir0 || nir ? ex_nir_view(nir0, nir) : json_null());
    json_object_set_new(d, "mir0", or_null(mir0 ? ex_mir_listing(mir0, opt) : NULL));
    json_object_set_new(d, "mir", or_null(mir ? ex_mir_listing(mir, opt) : NULL));
    json_object_set_new(d, "asm", or_null(o->asm_ ? ex_asm_view(ex_read_file(o->asm_, true), mir, opt) : NULL));
    json_object_set_new(d, "verify", verify_view(o));
    json_object_set_new(d, "report", o->report ? ex_str(ex_read_file(o->report, true)) : json_null());
    json_object_set_new(d, "interp", interp_view(o, checked));
    return d;
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-explore");
    Opts o = options(argc, argv);
    json_t *d = data(&o);
    const char *title = rk_arena_printf(&rk_heap, "%s on %s — rakec --explore", o.name,
                                        json_string_value(json_object_get(d, "target")));
    ex_page_write(d, title);
    return 0;
}

/* diag.c: located messages with the quoted source line and a caret. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program = "rake";
static const char *src_path = "<input>";
static char *src_text;
static bool src_loaded;
static int errors;
static int limit = 20;

void rk_diag_program(const char *name) { program = name; }
const char *rk_diag_program_name(void) { return program; }
const char *rk_diag_source_path(void) { return src_path; }
int rk_diag_error_count(void) { return errors; }
void rk_diag_set_limit(int n) { limit = n; }

void rk_diag_source(const char *path, const char *text)
{
    src_path = path ? path : "<input>";
    free(src_text);
    src_text = text ? strdup(text) : NULL;
    src_loaded = text != NULL;
}

static void load_source(void)
{
    if (src_loaded)
        return;
    src_loaded = true;
    FILE *f = fopen(src_path, "rb");
    if (!f)
        return;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (buf)
        buf[len] = 0;
    src_text = buf;
}

static void quote_line(RkLoc loc)
{
    if (loc.line <= 0)
        return;
    load_source();
    if (!src_text)
        return;
    const char *p = src_text;
    for (int l = 1; l < loc.line && *p; l++) {
        p = strchr(p, '\n');
        if (!p)
            return;
        p++;
    }
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len && p[len - 1] == '\r')
        len--;
    fprintf(stderr, "%.*s\n", (int)len, p);
    int col = loc.col < 1 ? 1 : loc.col;
    if ((size_t)col > len + 1) /* a column past the line: the caret goes at its end */
        col = (int)len + 1;
    for (int i = 1; i < col; i++)
        fputc((size_t)(i - 1) < len && p[i - 1] == '\t' ? '\t' : ' ', stderr);
    fputs("^\n", stderr);
}

static void report(RkLoc loc, const char *kind, const char *fmt, va_list ap)
{
    if (loc.line > 0)
        fprintf(stderr, "%s:%d:%d: %s: ", src_path, loc.line, loc.col, kind);
    else
        fprintf(stderr, "%s: %s: ", src_path, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    quote_line(loc);
}

void rk_diag_verror(RkLoc loc, const char *fmt, va_list ap)
{
    report(loc, "error", fmt, ap);
    if (++errors >= limit) {
        fprintf(stderr, "%s: too many errors, stopping\n", program);
        exit(RK_EXIT_USER);
    }
}

void rk_diag_error(RkLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rk_diag_verror(loc, fmt, ap);
    va_end(ap);
}

void rk_diag_warning(RkLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(loc, "warning", fmt, ap);
    va_end(ap);
}

void rk_diag_note(RkLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(loc, "note", fmt, ap);
    va_end(ap);
}

void rk_diag_fatal(RkLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(loc, "error", fmt, ap);
    va_end(ap);
    exit(RK_EXIT_USER);
}

void rk_diag_trap(RkLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(loc, "trap", fmt, ap);
    va_end(ap);
    fflush(stdout);
    exit(RK_EXIT_USER);
}

void rk_diag_input(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(RK_EXIT_INPUT);
}

void rk_diag_internal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: internal error: ", program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(RK_EXIT_INTERNAL);
}

void rk_diag_exit_on_errors(void)
{
    if (errors)
        exit(RK_EXIT_USER);
}

/* Passes allocate from arenas for the life of the process and exit without
 * freeing, by design; in the sanitizer build, LeakSanitizer would report
 * every such exit.  The ASan runtime looks this function up by name; other
 * builds never call it. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }

/* rake-parse: Rake source text -> rake.ast
 *
 * Input:  a .rk source file (the path is the first argument).
 * Output: on stdout, a rake.ast document: {"ir": "rake.ast", "version": 1,
 *         "source": PATH, "decls": [...]}, every node with its "loc".
 *         With --tokens, the laid-out token stream instead, one token a
 *         line: LINE:COL KIND TEXT.
 * Adds:   structure: layout is resolved, comments are gone, precedence is
 *         explicit in the tree; nothing is typed or resolved yet.
 *
 * Errors are `f.rk:L:C: error: ...` with the source line and a caret, and
 * exit 1; the parser stops at the first one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "ir.h"
#include "parse.h"

static void usage(void)
{
    fputs("usage: rake-parse [--tokens] FILE.rk\n"
          "  Parses a Rake source file and writes rake.ast JSON on stdout.\n"
          "  --tokens  write the laid-out token stream instead\n",
          stderr);
    exit(RK_EXIT_INPUT);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "rake-parse: cannot open %s: ", path);
        perror(NULL);
        exit(RK_EXIT_USER);
    }
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static void reject_nul(const char *text, size_t len)
{
    const char *z = memchr(text, 0, len);
    if (!z)
        return;
    RkLoc at = {1, 1};
    for (const char *q = text; q < z; q++) {
        if (*q == '\n') {
            at.line++;
            at.col = 1;
        } else {
            at.col++;
        }
    }
    rk_diag_fatal(at, "the file contains a NUL byte");
}

static void print_tokens(const char *text)
{
    TokArray toks = lex_source(text);
    for (int i = 0; i < toks.len; i++) {
        Tok *t = &toks.items[i];
        printf("%d:%d %s", t->loc.line, t->loc.col, tok_kind_name(t->kind));
        if (*t->text)
            printf(" %s", t->text);
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-parse");
    bool tokens = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tokens"))
            tokens = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            usage();
        else if (argv[i][0] == '-' && argv[i][1])
            rk_diag_input("unknown option '%s'", argv[i]);
        else if (path)
            rk_diag_input("only one source file can be parsed at a time");
        else
            path = argv[i];
    }
    if (!path)
        usage();
    size_t len;
    char *text = read_file(path, &len);
    rk_diag_source(path, text);
    reject_nul(text, len);
    if (tokens) {
        print_tokens(text);
        return 0;
    }
    RkModule *m = parse_module(path, text);
    json_t *doc = rk_ast_encode(m, "rake.ast");
    rk_ir_write(doc, stdout);
    return 0;
}

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
#include <stddef.h>
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

/* Every IR reader parses with Jansson, which refuses arrays and objects
 * values nested more than 2048 deep (JSON_PARSER_MAX_DEPTH; it counts
 * every value, so a node's own "k" and "loc" are one level below it).  A
 * tree deeper than that (a sum of thousands of terms is one) is refused
 * here, before the recursive encoder could overflow the stack on it, rather
 * than written as a document that no later pass can read.  The depth
 * counted is the JSON one: a child node is one level down, an element of a
 * list two.  The walk stops at the limit, so its own recursion is bounded;
 * it reaches the children the encoder writes through rk_ast_any_child_at. */
enum { MAX_IR_DEPTH = 2048 };

typedef struct Deep {
    int depth;          /* of the node whose children are walked */
    RkNode *found;      /* the first node past the limit */
} Deep;

static bool too_deep(RkNode *n, const char *key, int index, void *ctx)
{
    (void)key;
    Deep *d = ctx;
    Deep in = {d->depth + (index < 0 ? 1 : 2), NULL};
    if (in.depth + 1 > MAX_IR_DEPTH) /* its "k" is a level below it */
        in.found = n;
    else
        rk_ast_any_child_at(n, too_deep, &in);
    d->found = in.found;
    return in.found != NULL;
}

static void reject_deep(const RkModule *m)
{
    for (int i = 0; i < m->decls.len; i++) {
        /* the document and "decls" are the first two levels; a decl is
         * one more, as a list's element */
        Deep d = {1, NULL};
        too_deep(m->decls.items[i], "decls", i, &d);
        const RkNode *deep = d.found;
        if (deep)
            rk_diag_fatal(deep->loc, "the program nests too deeply here: its "
                                     "rake.ast tree would be more than %d "
                                     "levels deep (the limit of every IR "
                                     "reader); split long expressions with let",
                          MAX_IR_DEPTH);
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
    reject_deep(m);
    json_t *doc = rk_ast_encode(m, "rake.ast");
    rk_ir_write(doc, stdout);
    return 0;
}

/* lex.c: characters to tokens, then tokens to layout tokens.
 *
 * The raw lexer reads `~~` line comments, nested `(* *)` comments, names,
 * reserved words, numbers, strings, `#tine` names, uniform literal marks
 * (`<1.5>`, `<-1>`, `<true>` are single tokens, as in the original
 * compiler) and punctuation, and marks the first token of each physical line.
 *
 * The layout pass then turns indentation into NEWLINE, INDENT and DEDENT
 * tokens, Python-style, with three kinds of context:
 *   - layout contexts (the file, and each `slow { ... }` block) compare each
 *     line's indentation with a stack of open block depths;
 *   - bracket contexts (`( )`, `[ ]` and data braces `{ }`) ignore line
 *     ends, so long argument lists and `with { ... }` continue;
 *   - inside a slow block `;` separates statements and the closing `}`
 *     returns to the enclosing context.
 * A tab in indentation, and a line that dedents to a depth no enclosing
 * block has, are errors at their place. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "parse.h"

static const char *reserved[] = {
    "and", "bool", "bools", "break", "by", "compact", "const", "continue",
    "scratch", "else", "embed", "extern", "f32", "f32s", "f64", "f64s",
    "false", "fma", "for", "from", "gaps", "i16", "i16s", "i32", "i32s",
    "i64", "i64s", "i8", "i8s", "if", "into", "lanes", "let", "mask",
    "means", "mut", "not", "or", "pack", "ptr", "rake", "record", "repeat",
    "return", "rotate_left", "rotate_right", "run", "shift_left",
    "shift_right", "shuffle", "slow", "stack", "state", "sweep", "then",
    "through", "tine", "to", "true", "u16", "u16s", "u32", "u32s", "u64",
    "u64s", "u8", "u8s", "unchecked", "union", "up", "where", "while",
    "with", NULL};

static const char *puncts[] = {"<|", "=>", "->", "<-", ":=", "<=", ">=", "!=",
                               "(",  ")",  "[",  "]",  "{",  "}",  ",",  ";",
                               ":",  ".",  "+",  "-",  "*",  "/",  "%",  "=",
                               "<",  ">",  "|",  "@",  NULL};

const char *tok_kind_name(TokKind k)
{
    static const char *n[] = {"eof",   "newline", "indent",   "dedent",
                              "ident", "typename", "tine",    "int",
                              "float", "string",  "marklit",  "keyword",
                              "punct", "underscore"};
    return n[k];
}

typedef struct Lexer {
    const char *src, *p;
    int line;
    const char *line_start;
    bool bol;         /* no token yet on this line */
    int indent;       /* the line's indentation, or -1 before its first
                         non-blank character */
    const char *tab;  /* first tab in this line's indentation, if any */
    TokArray out;
} Lexer;

static RkLoc here(Lexer *lx, const char *at)
{
    RkLoc l = {lx->line, (int)(at - lx->line_start) + 1};
    return l;
}

static void push(TokArray *a, Tok t)
{
    if (a->len == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->items = realloc(a->items, sizeof(Tok) * (size_t)a->cap);
        if (!a->items)
            rk_diag_internal("out of memory");
    }
    a->items[a->len++] = t;
}

/* The line's indentation is measured at its first non-blank character,
 * which may open a comment: `(* note *) x := 1` is indented as its `(*`. */
static void mark_indent(Lexer *lx, const char *at)
{
    if (lx->indent < 0)
        lx->indent = (int)(at - lx->line_start);
}

/* A token of kind k whose lexeme starts at `at`, with text [text, text+n). */
static void emit_at(Lexer *lx, TokKind k, const char *at, const char *text,
                    size_t n)
{
    if (lx->bol && lx->tab) {
        RkLoc where = here(lx, lx->tab);
        rk_diag_fatal(where, "a tab in indentation: indent with spaces only");
    }
    mark_indent(lx, at);
    Tok t = {k, rk_arena_strndup(&rk_heap, text, n), here(lx, at),
             here(lx, at), lx->bol, lx->bol ? lx->indent : 0};
    lx->bol = false;
    push(&lx->out, t);
}

static void emit(Lexer *lx, TokKind k, const char *start, size_t n)
{
    emit_at(lx, k, start, start, n);
}

/* Step over a line end (also inside a block comment). */
static void next_line(Lexer *lx)
{
    lx->line++;
    lx->line_start = lx->p;
}

/* A line end outside comments: a new line for layout starts. */
static void newline(Lexer *lx)
{
    next_line(lx);
    lx->bol = true;
    lx->indent = -1;
    lx->tab = NULL;
}

/* A block comment is blank space, even over several lines: the token after
 * its `*)` continues the line the comment started on. */
static void skip_block_comment(Lexer *lx)
{
    const char *open = lx->p;
    RkLoc at = here(lx, open);
    int depth = 0;
    while (*lx->p) {
        if (lx->p[0] == '(' && lx->p[1] == '*') {
            depth++;
            lx->p += 2;
        } else if (lx->p[0] == '*' && lx->p[1] == ')') {
            lx->p += 2;
            if (--depth == 0)
                return;
        } else if (*lx->p == '\n') {
            lx->p++;
            next_line(lx);
        } else {
            lx->p++;
        }
    }
    rk_diag_fatal(at, "unterminated comment: this '(*' has no matching '*)'");
}

/* Skip spaces, tabs, comments and line ends. */
static void skip_space(Lexer *lx)
{
    for (;;) {
        char c = *lx->p;
        if (c == ' ' || c == '\r') {
            lx->p++;
        } else if (c == '\t') {
            if (lx->indent < 0 && !lx->tab)
                lx->tab = lx->p;
            lx->p++;
        } else if (c == '\n') {
            lx->p++;
            newline(lx);
        } else if (c == '~' && lx->p[1] == '~') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else if (c == '(' && lx->p[1] == '*') {
            mark_indent(lx, lx->p);
            skip_block_comment(lx);
        } else {
            return;
        }
    }
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* An exponent `e5`, `E-3`, `e+10` at p. */
static bool is_exponent(const char *p)
{
    return (*p == 'e' || *p == 'E') &&
           (isdigit((unsigned char)p[1]) ||
            ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])));
}

/* Length of a number lexeme at s (0 if none); *is_float tells its kind. */
static size_t number_len(const char *s, bool *is_float)
{
    const char *p = s;
    *is_float = false;
    if (!isdigit((unsigned char)*p))
        return 0;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        p += 2;
        while (isxdigit((unsigned char)*p))
            p++;
        return (size_t)(p - s);
    }
    while (isdigit((unsigned char)*p))
        p++;
    /* digits '.' digits? exponent?; a '.' before a letter other than an
     * exponent's is left alone (`2.e5` is a float, `2.x` is not). */
    if (*p == '.' && (!(isalpha((unsigned char)p[1]) || p[1] == '_') ||
                      is_exponent(p + 1))) {
        *is_float = true;
        p++;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (is_exponent(p)) {
        *is_float = true;
        p += 2;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return (size_t)(p - s);
}

static void lex_number(Lexer *lx)
{
    bool is_float;
    size_t n = number_len(lx->p, &is_float);
    if (is_ident_char(lx->p[n])) {
        size_t m = n;
        while (is_ident_char(lx->p[m]))
            m++;
        rk_diag_fatal(here(lx, lx->p), "invalid numeric literal '%.*s'",
                      (int)m, lx->p);
    }
    emit(lx, is_float ? T_FLOAT : T_INT, lx->p, n);
    lx->p += n;
}

/* `<1.5>`, `<-1>`, `<true>`, `<false>` are one token. */
static bool lex_mark_literal(Lexer *lx)
{
    const char *s = lx->p + 1;
    size_t n;
    bool is_float;
    if (!strncmp(s, "true>", 5))
        n = 4;
    else if (!strncmp(s, "false>", 6))
        n = 5;
    else {
        const char *d = *s == '-' ? s + 1 : s;
        size_t m = number_len(d, &is_float);
        if (!m || d[m] != '>')
            return false;
        n = (size_t)(d - s) + m;
    }
    emit_at(lx, T_MARKLIT, lx->p, s, n);
    lx->p = s + n + 1;
    return true;
}

static void lex_word(Lexer *lx)
{
    const char *s = lx->p;
    while (is_ident_char(*lx->p))
        lx->p++;
    size_t n = (size_t)(lx->p - s);
    if (isupper((unsigned char)*s)) {
        emit(lx, T_TYPENAME, s, n);
        return;
    }
    if (n == 1 && *s == '_') {
        emit(lx, T_UNDERSCORE, s, n);
        return;
    }
    for (const char **r = reserved; *r; r++) {
        if (strlen(*r) == n && !strncmp(*r, s, n)) {
            emit(lx, T_KW, s, n);
            return;
        }
    }
    emit(lx, T_IDENT, s, n);
}

/* Length of the UTF-8 sequence at s (of at most n bytes), or 0 when it is
 * not one that Jansson accepts (no overlong forms, no surrogates, nothing
 * past U+10FFFF): a string's text goes into the JSON document as it is. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], v;
    size_t len;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, v = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, v = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, v = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
        v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    return len;
}

static void lex_string(Lexer *lx)
{
    const char *s = lx->p++;
    while (*lx->p && *lx->p != '"' && *lx->p != '\n')
        lx->p += (*lx->p == '\\' && lx->p[1] && lx->p[1] != '\n') ? 2 : 1;
    if (*lx->p != '"')
        rk_diag_fatal(here(lx, s), "unterminated string: the closing '\"' "
                                   "is missing (a string may not span "
                                   "lines)");
    for (const char *q = s + 1; q < lx->p;) {
        size_t k = utf8_len((const unsigned char *)q, (size_t)(lx->p - q));
        if (!k)
            rk_diag_fatal(here(lx, q), "a string must be UTF-8: byte 0x%02x "
                                       "here is not",
                          (unsigned char)*q);
        q += k;
    }
    emit_at(lx, T_STRING, s, s + 1, (size_t)(lx->p - s - 1));
    lx->p++;
}

static void lex_tine(Lexer *lx)
{
    const char *s = lx->p;
    if (!isalpha((unsigned char)s[1]) && s[1] != '_')
        rk_diag_fatal(here(lx, s), "expected a tine name right after '#' "
                                   "(write #name, with no space)");
    lx->p++;
    while (is_ident_char(*lx->p))
        lx->p++;
    emit_at(lx, T_TINE, s, s + 1, (size_t)(lx->p - s - 1));
}

/* Characters and spellings from other languages get a specific message. */
static void reject_foreign(Lexer *lx)
{
    const char *p = lx->p;
    char prev = p > lx->src ? p[-1] : ' ';
    if (p[0] == '.' && isdigit((unsigned char)p[1]) && !is_ident_char(prev) &&
        prev != ')' && prev != ']') {
        bool is_float;
        size_t n = 1 + number_len(p + 1, &is_float);
        rk_diag_fatal(here(lx, p), "invalid numeric literal '%.*s': a number "
                                   "starts with a digit (write 0%.*s)",
                      (int)n, p, (int)n, p);
    }
    if (p[0] == '=' && p[1] == '=')
        rk_diag_fatal(here(lx, p), "unexpected '==': equality is a single '='");
    if (p[0] == '!' && p[1] != '=')
        rk_diag_fatal(here(lx, p), "unexpected character '!': negation is "
                                   "'not' and inequality is '!='");
    if (p[0] == '&')
        rk_diag_fatal(here(lx, p), "unexpected character '&': conjunction is "
                                   "'and' (bit_and(a, b) for bits)");
}

static void lex_punct(Lexer *lx)
{
    if (*lx->p == '<' && lex_mark_literal(lx))
        return;
    reject_foreign(lx);
    for (const char **q = puncts; *q; q++) {
        size_t n = strlen(*q);
        if (!strncmp(lx->p, *q, n)) {
            emit(lx, T_PUNCT, lx->p, n);
            lx->p += n;
            return;
        }
    }
    unsigned char c = (unsigned char)*lx->p;
    if (isprint(c))
        rk_diag_fatal(here(lx, lx->p), "unexpected character '%c'", c);
    rk_diag_fatal(here(lx, lx->p), "unexpected character (byte 0x%02x): "
                                   "outside strings and comments, Rake "
                                   "source is ASCII",
                  c);
}

static TokArray raw_tokens(const char *text)
{
    Lexer lx = {text, text, 1, text, true, -1, NULL, {0}};
    for (;;) {
        skip_space(&lx);
        char c = *lx.p;
        if (!c)
            break;
        if (isdigit((unsigned char)c))
            lex_number(&lx);
        else if (isalpha((unsigned char)c) || c == '_')
            lex_word(&lx);
        else if (c == '"')
            lex_string(&lx);
        else if (c == '#')
            lex_tine(&lx);
        else
            lex_punct(&lx);
        /* Every lexeme lies on one line and lx.p is just past it. */
        lx.out.items[lx.out.len - 1].end = here(&lx, lx.p);
    }
    Tok eof = {T_EOF, "", here(&lx, lx.p), here(&lx, lx.p), true, 0};
    push(&lx.out, eof);
    return lx.out;
}

/* --- layout --------------------------------------------------------------- */

enum { MAX_NEST = 256, MAX_INDENTS = 256 };

typedef enum { CTX_LAYOUT, CTX_BRACKET } CtxKind;

typedef struct Ctx {
    CtxKind kind;
    char close;              /* ')' ']' '}' for brackets and slow blocks */
    int indents[MAX_INDENTS];
    int depth;               /* entries in indents */
    bool started;            /* a token has been laid out in this context */
    RkLoc open;
} Ctx;

typedef struct Layout {
    TokArray out;
    Ctx *ctx[MAX_NEST];
    int n;
    int line_indent;         /* indentation of the current physical line */
} Layout;

static void put(Layout *lo, TokKind k, const char *text, RkLoc loc)
{
    Tok t = {k, text, loc, loc, false, 0};
    push(&lo->out, t);
}

static Tok *last(Layout *lo)
{
    return lo->out.len ? &lo->out.items[lo->out.len - 1] : NULL;
}

static Ctx *open_ctx(Layout *lo, CtxKind kind, char close, int base, RkLoc at)
{
    if (lo->n == MAX_NEST)
        rk_diag_fatal(at, "brackets and blocks nest more than %d deep (the limit)", MAX_NEST);
    Ctx *c = calloc(1, sizeof *c);
    c->kind = kind;
    c->close = close;
    c->indents[0] = base;
    c->depth = 1;
    c->open = at;
    lo->ctx[lo->n++] = c;
    return c;
}

/* End the logical line: a NEWLINE just after its last token, unless the
 * line is already ended or nothing has begun since a slow block's '{'. */
static void end_line(Layout *lo)
{
    Tok *t = last(lo);
    if (t && t->kind != T_NEWLINE && t->kind != T_INDENT &&
        !(t->kind == T_PUNCT && !strcmp(t->text, "{")))
        put(lo, T_NEWLINE, "", t->end);
}

/* "0, 4 and 8" for the open block depths of a layout context. */
static const char *depth_list(Ctx *c)
{
    const char *s = "";
    for (int i = 0; i < c->depth; i++)
        s = rk_arena_printf(&rk_heap, "%s%s%d", s,
                            i == 0 ? "" : i == c->depth - 1 ? " or " : ", ",
                            c->indents[i]);
    return s;
}

/* Close every block of a layout context deeper than `col`; with `exact`,
 * `col` must then be the depth of an open block. */
static void dedent_to(Layout *lo, Ctx *c, int col, RkLoc loc, bool exact)
{
    if (exact) {
        bool found = false;
        for (int i = 0; i < c->depth; i++)
            found |= c->indents[i] == col;
        if (!found)
            rk_diag_fatal(loc, "inconsistent dedent: this line is indented %d "
                               "spaces, which matches none of the enclosing "
                               "blocks (indented %s spaces)",
                          col, depth_list(c));
    }
    while (c->depth > 1 && c->indents[c->depth - 1] > col) {
        c->depth--;
        put(lo, T_DEDENT, "", loc);
    }
}

static void layout_line_start(Layout *lo, Ctx *c, Tok *t)
{
    int col = t->indent;
    if (lo->n > 1 && col <= c->indents[0])
        rk_diag_fatal(t->loc, "this line is indented %d spaces, no deeper "
                              "than line %d (%d spaces), which opened a slow "
                              "block: its statements are indented deeper, "
                              "and '}' ends it",
                      col, c->open.line, c->indents[0]);
    if (!c->started) {
        c->started = true;
        if (col > c->indents[0]) {
            c->indents[c->depth++] = col;
            put(lo, T_INDENT, "", t->loc);
        }
        return;
    }
    int top = c->indents[c->depth - 1];
    if (col > top) {
        end_line(lo);
        if (c->depth == MAX_INDENTS)
            rk_diag_fatal(t->loc, "blocks nest more than %d deep (the limit)", MAX_INDENTS);
        c->indents[c->depth++] = col;
        put(lo, T_INDENT, "", t->loc);
    } else {
        end_line(lo);
        dedent_to(lo, c, col, t->loc, true);
    }
}

static void close_slow_block(Layout *lo, Ctx *c, Tok *t)
{
    if (t->bol && t->indent != c->indents[0])
        rk_diag_fatal(t->loc, "this '}' closes the slow block opened at line "
                              "%d, column %d, so it goes at that line's "
                              "indentation (%d spaces), not %d",
                      c->open.line, c->open.col, c->indents[0], t->indent);
    end_line(lo);
    dedent_to(lo, c, c->indents[0], t->loc, false);
    lo->n--;
    free(c);
    push(&lo->out, *t);
}

static char closer_of(const char *s)
{
    return *s == '(' ? ')' : *s == '[' ? ']' : '}';
}

static void bracket(Layout *lo, Tok *t, Tok *prev)
{
    const char *s = t->text;
    if (!strcmp(s, "(") || !strcmp(s, "[") || !strcmp(s, "{")) {
        push(&lo->out, *t);
        bool slow = *s == '{' && prev && prev->kind == T_KW &&
                    !strcmp(prev->text, "slow");
        Ctx *c = open_ctx(lo, slow ? CTX_LAYOUT : CTX_BRACKET, closer_of(s),
                          lo->line_indent, t->loc);
        c->started = !slow;
        return;
    }
    Ctx *c = lo->n > 1 ? lo->ctx[lo->n - 1] : NULL;
    if (!c || c->close != *s) {
        if (c)
            rk_diag_fatal(t->loc, "unexpected '%s': the '%c' opened at "
                                  "line %d, column %d is still open",
                          s, c->close == ')' ? '(' : c->close == ']' ? '[' : '{',
                          c->open.line, c->open.col);
        rk_diag_fatal(t->loc, "unexpected '%s' with nothing open", s);
    }
    if (c->kind == CTX_LAYOUT) {
        close_slow_block(lo, c, t);
        return;
    }
    lo->n--;
    free(c);
    push(&lo->out, *t);
}

static bool is_bracket(Tok *t)
{
    return t->kind == T_PUNCT && strchr("()[]{}", t->text[0]) && !t->text[1];
}

TokArray lex_source(const char *text)
{
    TokArray raw = raw_tokens(text);
    Layout lo = {{0}, {0}, 0, 0};
    open_ctx(&lo, CTX_LAYOUT, 0, 0, raw.items[0].loc);
    Tok *prev = NULL;
    for (int i = 0; i < raw.len; i++) {
        Tok *t = &raw.items[i];
        Ctx *c = lo.ctx[lo.n - 1];
        if (t->kind == T_EOF) {
            if (lo.n > 1)
                rk_diag_fatal(c->open, "this '%s' is never closed",
                              c->close == ')' ? "(" : c->close == ']' ? "[" : "{");
            end_line(&lo);
            dedent_to(&lo, c, 0, t->loc, false);
            push(&lo.out, *t);
            break;
        }
        if (t->bol)
            lo.line_indent = t->indent;
        if (c->kind == CTX_LAYOUT && t->bol &&
            !(lo.n > 1 && is_bracket(t) && t->text[0] == '}'))
            layout_line_start(&lo, c, t);
        else if (c->kind == CTX_LAYOUT)
            c->started = true;
        if (is_bracket(t))
            bracket(&lo, t, prev);
        else if (c->kind == CTX_LAYOUT && lo.n > 1 && t->kind == T_PUNCT &&
                 !strcmp(t->text, ";"))
            put(&lo, T_NEWLINE, ";", t->loc);
        else
            push(&lo.out, *t);
        prev = t;
    }
    free(raw.items);
    return lo.out;
}

/* parse.h: the lexer's tokens and the parser's state, shared by lex.c,
 * expr.c and parse.c in rake-parse. */
#ifndef RAKE_PARSE_H
#define RAKE_PARSE_H

#include "ast.h"
#include "diag.h"

typedef enum TokKind {
    T_EOF,
    T_NEWLINE, /* end of a logical line ("" or ";" from a slow block) */
    T_INDENT,
    T_DEDENT,
    T_IDENT,    /* lower-case name */
    T_TYPENAME, /* upper-case name */
    T_TINE,     /* #name; text is the name without '#' */
    T_INT,
    T_FLOAT,
    T_STRING,   /* text keeps the quotes out and escapes verbatim */
    T_MARKLIT,  /* <1.5>, <-1>, <true>: text is the literal inside */
    T_KW,       /* reserved word */
    T_PUNCT,    /* operator or delimiter */
    T_UNDERSCORE,
} TokKind;

typedef struct Tok {
    TokKind kind;
    const char *text;
    RkLoc loc;
    RkLoc end; /* just after the token's last character in the source */
    bool bol;  /* first token of its line (a block comment spanning lines
                  does not end one) */
    int indent; /* with bol: the line's indentation in columns */
} Tok;

typedef struct TokArray {
    Tok *items;
    int len, cap;
} TokArray;

/* Lex and lay out a whole source text; stops at the first error. */
TokArray lex_source(const char *text);
const char *tok_kind_name(TokKind k);

typedef struct Parser {
    Tok *toks;
    int pos;
    int depth; /* nesting of recursive rules, bounded by MAX_DEPTH */
} Parser;

enum { MAX_DEPTH = 1000 };
/* Count one level of nesting at t; a syntax error past MAX_DEPTH. */
void nest(Parser *p, Tok *t);

/* parse.c helpers used by expr.c */
Tok *peek(Parser *p);
Tok *peek_at(Parser *p, int k);
Tok *advance(Parser *p);
bool is(Parser *p, const char *s);
bool is_at(Parser *p, int k, const char *s);
bool accept(Parser *p, const char *s);
Tok *expect(Parser *p, const char *s, const char *context);
_Noreturn void syntax_error(Tok *t, const char *fmt, ...) RK_PRINTF(2, 3);
const char *describe(Tok *t);
bool is_scalar_type_kw(Tok *t);
bool is_type_kw(Tok *t);
const char *field_name(Parser *p, const char *context);
RkList parse_block(Parser *p, Tok *opener);
RkNode *parse_stmt(Parser *p);

/* expr.c */
RkNode *parse_expr(Parser *p);
RkNode *parse_unary(Parser *p);
RkNode *parse_postfix(Parser *p);
RkNode *parse_pred(Parser *p);
RkNode *parse_type(Parser *p);
RkList parse_params(Parser *p);
RkList parse_field_inits(Parser *p, const char *context);

/* parse.c */
RkModule *parse_module(const char *path, const char *text);

#endif

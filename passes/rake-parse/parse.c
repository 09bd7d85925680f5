/* parse.c: statements, definitions and the module.
 *
 * The parser is recursive descent over the laid-out token array (lex.c),
 * so it can look ahead freely.  A body is ':' NEWLINE INDENT statement+
 * DEDENT; a simple statement ends with NEWLINE.  It parses every form of the
 * language wherever the grammar allows it and leaves the question of
 * whether a form belongs in a scratch, a rake, a run or slow code to
 * rake-check, so that a misplaced statement gets a precise type error
 * instead of a vague syntax error.  It stops at the first error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "parse.h"

/* --- token helpers ------------------------------------------------------- */

Tok *peek(Parser *p) { return &p->toks[p->pos]; }

Tok *peek_at(Parser *p, int k)
{
    Tok *t = &p->toks[p->pos];
    for (int i = 0; i < k && t->kind != T_EOF; i++)
        t++;
    return t;
}

Tok *advance(Parser *p)
{
    Tok *t = &p->toks[p->pos];
    if (t->kind != T_EOF)
        p->pos++;
    return t;
}

static bool tok_is(Tok *t, const char *s)
{
    return (t->kind == T_PUNCT || t->kind == T_KW) && !strcmp(t->text, s);
}

bool is(Parser *p, const char *s) { return tok_is(peek(p), s); }
bool is_at(Parser *p, int k, const char *s) { return tok_is(peek_at(p, k), s); }

bool accept(Parser *p, const char *s)
{
    if (!is(p, s))
        return false;
    advance(p);
    return true;
}

const char *describe(Tok *t)
{
    switch (t->kind) {
    case T_EOF:
        return "the end of the file";
    case T_NEWLINE:
        return *t->text == ';' ? "';'" : "the end of the line";
    case T_INDENT:
        return "an indented line";
    case T_DEDENT:
        return "the end of the block";
    case T_STRING:
        return rk_arena_printf(&rk_heap, "the string \"%s\"", t->text);
    case T_TINE:
        return rk_arena_printf(&rk_heap, "'#%s'", t->text);
    case T_MARKLIT:
        return rk_arena_printf(&rk_heap, "'<%s>'", t->text);
    default:
        return rk_arena_printf(&rk_heap, "'%s'", t->text);
    }
}

void nest(Parser *p, Tok *t)
{
    if (++p->depth > MAX_DEPTH)
        syntax_error(t, "the program nests too deeply here: more than %d levels (the "
                        "limit) of expressions, types or else-ifs; split them with let",
                     MAX_DEPTH);
}

void syntax_error(Tok *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rk_diag_verror(t->loc, fmt, ap);
    va_end(ap);
    exit(RK_EXIT_USER);
}

/* A hint for a token that often stands where something else was meant. */
static const char *hint(Tok *t)
{
    if (tok_is(t, "<-"))
        return " ('<-' assigns: to compare with a negative number, write "
               "'< -1' with a space)";
    if (tok_is(t, ";"))
        return " (';' separates statements only inside slow { ... })";
    return "";
}

Tok *expect(Parser *p, const char *s, const char *context)
{
    Tok *t = peek(p);
    if (!tok_is(t, s)) {
        if (t->kind == T_INDENT)
            syntax_error(t, "unexpected indentation: expected '%s' %s", s,
                         context);
        syntax_error(t, "expected '%s' %s, found %s%s", s, context,
                     describe(t), hint(t));
    }
    return advance(p);
}

static Tok *expect_ident(Parser *p, const char *context)
{
    Tok *t = peek(p);
    if (t->kind != T_IDENT)
        syntax_error(t, "expected a name %s, found %s", context, describe(t));
    return advance(p);
}

/* Field names may also be primitive spellings such as `f32`. */
const char *field_name(Parser *p, const char *context)
{
    Tok *t = peek(p);
    if (t->kind == T_IDENT || is_scalar_type_kw(t))
        return advance(p)->text;
    syntax_error(t, "expected a field name %s, found %s", context, describe(t));
}

static void end_of_statement(Parser *p)
{
    Tok *t = peek(p);
    if (t->kind == T_NEWLINE) {
        advance(p);
        return;
    }
    if (t->kind == T_INDENT)
        syntax_error(t, "unexpected indentation: only a line ending in ':' "
                        "opens an indented block");
    syntax_error(t, "expected the end of the statement, found %s%s",
                 describe(t), hint(t));
}

RkList parse_block(Parser *p, Tok *opener)
{
    expect(p, ":", rk_arena_printf(&rk_heap, "to open the body of '%s'",
                                   opener->text));
    Tok *t = peek(p);
    if (t->kind != T_NEWLINE)
        syntax_error(t, "expected the end of the line after ':' (a body "
                        "starts on the next line, indented), found %s",
                     describe(t));
    advance(p);
    t = peek(p);
    if (t->kind != T_INDENT)
        syntax_error(t, "expected an indented block after '%s' on line %d, "
                        "found %s",
                     opener->text, opener->loc.line, describe(t));
    advance(p);
    RkListBuilder b = {0};
    while (peek(p)->kind != T_DEDENT && peek(p)->kind != T_EOF)
        rk_list_push(&b, parse_stmt(p));
    advance(p);
    return rk_list_finish(&b);
}

/* --- statements ------------------------------------------------------------ */

static RkNode *stmt_node(RkKind k, Tok *t) { return rk_node_new(k, t->loc); }

static RkNode *let_stmt(Parser *p, Tok *t)
{
    RkNode *n = stmt_node(RK_LET, t);
    if (accept(p, "<")) {
        n->uniform = true;
        n->name = expect_ident(p, "in 'let <name: T>'")->text;
        expect(p, ":", "after the uniform's name (let <x: T> = e)");
        n->type = parse_type(p);
        expect(p, ">", "to close the uniform binding");
    } else {
        n->name = expect_ident(p, "after 'let'")->text;
        if (accept(p, ":"))
            n->type = parse_type(p);
    }
    expect(p, "=", "in the let binding");
    n->value = parse_expr(p);
    end_of_statement(p);
    return n;
}

static RkNode *fused_stmt(Parser *p, Tok *t)
{
    RkNode *n = stmt_node(RK_FUSED, t);
    n->name = expect_ident(p, "after '|' in a fused binding")->text;
    if (accept(p, ":"))
        n->type = parse_type(p);
    expect(p, "<|", "in the fused binding (| name <| expression)");
    n->value = parse_expr(p);
    end_of_statement(p);
    return n;
}

/* The index of a for or repeat loop: `i`, `i: T`, `<i: T>` or `<i>`. */
static void loop_index(Parser *p, RkNode *n)
{
    n->uniform = accept(p, "<");
    n->name = expect_ident(p, "as the loop index")->text;
    if (accept(p, ":"))
        n->type = parse_type(p);
    if (n->uniform)
        expect(p, ">", "to close the uniform loop index");
}

static RkNode *for_stmt(Parser *p, Tok *t, bool repeat)
{
    RkNode *n = stmt_node(repeat ? RK_REPEAT : RK_FOR, t);
    loop_index(p, n);
    expect(p, "from", "after the loop index");
    n->from = parse_expr(p);
    expect(p, "up", "after the loop's start (from a up to b)");
    expect(p, "to", "after 'up'");
    n->to = parse_expr(p);
    if (!repeat && accept(p, "by"))
        n->step = parse_expr(p);
    n->body = parse_block(p, t);
    return n;
}

static RkNode *if_stmt(Parser *p, Tok *t, RkNode *cond)
{
    nest(p, t);
    RkNode *n = stmt_node(RK_IF, t);
    n->cond = cond;
    n->body = parse_block(p, t);
    Tok *e = peek(p);
    if (accept(p, "else")) {
        RkListBuilder b = {0};
        if (is(p, "if")) {
            Tok *t2 = advance(p);
            rk_list_push(&b, if_stmt(p, t2, parse_expr(p)));
            n->else_body = rk_list_finish(&b);
        } else {
            n->else_body = parse_block(p, e);
        }
    }
    p->depth--;
    return n;
}

static RkNode *if_or_expr(Parser *p, Tok *t)
{
    RkNode *cond = parse_expr(p);
    if (is(p, ":"))
        return if_stmt(p, t, cond);
    RkNode *e = rk_node_new(RK_IF_EXPR, t->loc);
    e->cond = cond;
    if (!is(p, "then"))
        syntax_error(peek(p), "expected ':' after the if statement's "
                              "condition (or 'then' in an if expression), "
                              "found %s%s",
                     describe(peek(p)), hint(peek(p)));
    advance(p);
    e->then_e = parse_expr(p);
    expect(p, "else", "in an if expression (it needs both branches)");
    e->else_e = parse_expr(p);
    RkNode *s = stmt_node(RK_EXPR, t);
    s->value = e;
    end_of_statement(p);
    return s;
}

static RkNode *through_stmt(Parser *p, Tok *t)
{
    RkNode *n = stmt_node(RK_THROUGH, t);
    n->pred = parse_pred(p);
    if (accept(p, "else"))
        n->value = parse_unary(p);
    expect(p, "into", "after the through block's predicate");
    n->name = expect_ident(p, "after 'into'")->text;
    n->body = parse_block(p, t);
    return n;
}

static RkNode *arm(Parser *p)
{
    Tok *bar = expect(p, "|", "to start a sweep arm (| predicate => value)");
    RkNode *n = stmt_node(RK_ARM, bar);
    Tok *t = peek(p);
    if (t->kind == T_UNDERSCORE) {
        advance(p);
        n->pred = rk_node_new(RK_WILDCARD, t->loc);
    } else {
        n->pred = parse_pred(p);
    }
    expect(p, "=>", "after the arm's predicate");
    n->value = parse_expr(p);
    end_of_statement(p);
    return n;
}

static RkNode *sweep_stmt(Parser *p, Tok *t)
{
    RkNode *n = stmt_node(RK_SWEEP, t);
    expect(p, ":", "after 'sweep'");
    if (peek(p)->kind != T_NEWLINE)
        syntax_error(peek(p), "expected the end of the line after 'sweep:', "
                              "found %s",
                     describe(peek(p)));
    advance(p);
    if (peek(p)->kind != T_INDENT)
        syntax_error(peek(p), "expected the sweep's arms, indented, found %s",
                     describe(peek(p)));
    advance(p);
    RkListBuilder b = {0};
    while (peek(p)->kind != T_DEDENT && peek(p)->kind != T_EOF)
        rk_list_push(&b, arm(p));
    advance(p);
    n->arms = rk_list_finish(&b);
    return n;
}

static RkNode *compact_stmt(Parser *p, Tok *t)
{
    RkNode *n = stmt_node(RK_COMPACT, t);
    n->stack = parse_postfix(p);
    if (accept(p, "with"))
        n->fields = parse_field_inits(p, "after 'with'");
    expect(p, "where", "in 'compact s where p'");
    n->pred = parse_pred(p);
    end_of_statement(p);
    return n;
}

static RkNode *tine_stmt(Parser *p, Tok *t)
{
    RkNode *n = stmt_node(RK_TINE, t);
    Tok *name = peek(p);
    if (name->kind != T_TINE)
        syntax_error(name, "expected a tine name such as #valid after 'tine', "
                           "found %s",
                     describe(name));
    advance(p);
    n->name = name->text;
    if (is(p, "("))
        n->params = parse_params(p);
    expect(p, "means", "after the tine's name");
    n->pred = parse_pred(p);
    return n;
}

static RkNode *var_stmt(Parser *p, Tok *t, bool paren)
{
    RkNode *n = stmt_node(RK_VAR, t);
    if (paren)
        advance(p);
    n->name = advance(p)->text;
    if (accept(p, ":"))
        n->type = parse_type(p);
    if (paren)
        expect(p, ")", "after the typed name in (x: T) := e");
    expect(p, ":=", "to create a location (x := e)");
    n->value = parse_expr(p);
    end_of_statement(p);
    return n;
}

static RkNode *expr_stmt(Parser *p, Tok *t)
{
    RkNode *e = parse_expr(p);
    RkNode *n;
    if (accept(p, "<-")) {
        n = stmt_node(RK_ASSIGN, t);
        n->target = e;
        n->value = parse_expr(p);
    } else if (accept(p, "with")) {
        n = stmt_node(RK_WITH, t);
        n->stack = e;
        n->fields = parse_field_inits(p, "after 'with'");
        if (accept(p, "where"))
            n->pred = parse_pred(p);
    } else {
        n = stmt_node(RK_EXPR, t);
        n->value = e;
    }
    end_of_statement(p);
    return n;
}

/* Keywords that start a definition and never a statement ('tine' starts
 * both; 'slow' starts a slow block when '{' follows). */
static bool is_definition_start(Parser *p)
{
    static const char *const kws[] = {"scratch", "rake", "run", "pack",
                                      "record", "union", "state", "const",
                                      "embed", "extern", NULL};
    Tok *t = peek(p);
    if (t->kind != T_KW)
        return false;
    if (!strcmp(t->text, "slow"))
        return peek_at(p, 1)->kind == T_IDENT;
    for (const char *const *k = kws; *k; k++)
        if (!strcmp(*k, t->text))
            return true;
    return false;
}

RkNode *parse_stmt(Parser *p)
{
    Tok *t = peek(p);
    if (t->kind == T_INDENT)
        syntax_error(t, "unexpected indentation: only a line ending in ':' "
                        "opens an indented block");
    if (is_definition_start(p))
        syntax_error(t, "a '%s' definition starts in the first column, not "
                        "inside a body",
                     t->text);
    if (is(p, "else"))
        syntax_error(t, "'else' without an 'if': it goes right after the if's "
                        "body, at the indentation of its 'if'");
    if (t->kind == T_IDENT && (is_at(p, 1, ":=") || is_at(p, 1, ":")))
        return var_stmt(p, t, false);
    if (is(p, "(") && peek_at(p, 1)->kind == T_IDENT && is_at(p, 2, ":"))
        return var_stmt(p, t, true);
    if (t->kind != T_KW && !is(p, "|"))
        return expr_stmt(p, t);
    advance(p);
    const char *s = t->text;
    if (!strcmp(s, "let"))
        return let_stmt(p, t);
    if (!strcmp(s, "|"))
        return fused_stmt(p, t);
    if (!strcmp(s, "if"))
        return if_or_expr(p, t);
    if (!strcmp(s, "for") || !strcmp(s, "repeat"))
        return for_stmt(p, t, s[0] == 'r');
    if (!strcmp(s, "while")) {
        RkNode *n = stmt_node(RK_WHILE, t);
        n->cond = parse_expr(p);
        n->body = parse_block(p, t);
        return n;
    }
    if (!strcmp(s, "return")) {
        RkNode *n = stmt_node(RK_RETURN, t);
        if (peek(p)->kind != T_NEWLINE)
            n->value = parse_expr(p);
        end_of_statement(p);
        return n;
    }
    if (!strcmp(s, "break") || !strcmp(s, "continue")) {
        RkNode *n = stmt_node(s[0] == 'b' ? RK_BREAK : RK_CONTINUE, t);
        end_of_statement(p);
        return n;
    }
    if (!strcmp(s, "tine")) {
        RkNode *n = tine_stmt(p, t);
        end_of_statement(p);
        return n;
    }
    if (!strcmp(s, "through"))
        return through_stmt(p, t);
    if (!strcmp(s, "sweep"))
        return sweep_stmt(p, t);
    if (!strcmp(s, "compact"))
        return compact_stmt(p, t);
    p->pos--;
    return expr_stmt(p, t);
}

/* --- definitions ----------------------------------------------------------- */

static RkList field_groups(Parser *p, const char *what)
{
    RkListBuilder b = {0};
    expect(p, "{", rk_arena_printf(&rk_heap, "to open the %s's fields", what));
    while (!is(p, "}")) {
        RkNode *type = parse_type(p);
        expect(p, ":", "after the field type (T: a, b;)");
        do {
            Tok *t = peek(p);
            RkNode *f = rk_node_new(RK_FIELD_DECL, t->loc);
            f->name = field_name(p, "in the field list");
            f->type = type;
            rk_list_push(&b, f);
        } while (accept(p, ","));
        if (!accept(p, ";"))
            syntax_error(peek(p), "expected ';' to end the field group "
                                  "(T: a, b;), found %s",
                         describe(peek(p)));
    }
    expect(p, "}", "to close the fields");
    return rk_list_finish(&b);
}

static const char *header_path(Parser *p, const char *what)
{
    expect(p, "from", what);
    Tok *s = peek(p);
    if (s->kind != T_STRING)
        syntax_error(s, "expected a quoted file name after 'from', found %s",
                     describe(s));
    return advance(p)->text;
}

static RkNode *function_decl(Parser *p, Tok *t, RkKind k)
{
    RkNode *n = rk_node_new(k, t->loc);
    n->name = expect_ident(p, rk_arena_printf(&rk_heap, "after '%s'", t->text))->text;
    n->params = parse_params(p);
    bool needs_ret = k == RK_SCRATCH || k == RK_RAKE;
    if (accept(p, "->"))
        n->ret = parse_type(p);
    else if (needs_ret)
        syntax_error(peek(p), "expected '->' and the result type of the %s, "
                              "found %s",
                     t->text, describe(peek(p)));
    if (k == RK_EXTERN) {
        n->text = header_path(p, "after the extern function's signature");
        return n;
    }
    n->body = parse_block(p, t);
    return n;
}

static RkNode *named_decl(Parser *p, Tok *t, RkKind k)
{
    RkNode *n = rk_node_new(k, t->loc);
    Tok *name = peek(p);
    bool type_like = k == RK_PACK || k == RK_RECORD || k == RK_UNION;
    if (!(name->kind == T_IDENT || (type_like && name->kind == T_TYPENAME)))
        syntax_error(name, "expected a name after '%s', found %s", t->text,
                     describe(name));
    if (k == RK_PACK && name->kind != T_TYPENAME)
        syntax_error(name, "a pack's name starts with an upper-case letter, "
                           "found '%s'",
                     name->text);
    advance(p);
    n->name = name->text;
    return n;
}

static RkNode *simple_decl(Parser *p, Tok *t)
{
    const char *s = t->text;
    RkNode *n;
    if (!strcmp(s, "pack")) {
        n = named_decl(p, t, RK_PACK);
        n->fields = field_groups(p, "pack");
    } else if (!strcmp(s, "record") || !strcmp(s, "union")) {
        n = named_decl(p, t, s[0] == 'r' ? RK_RECORD : RK_UNION);
        if (s[0] == 'u' || is(p, "from"))
            n->text = header_path(p, "after the name (a union is declared "
                                     "from a C header)");
        n->fields = field_groups(p, s);
    } else if (!strcmp(s, "state") || !strcmp(s, "const")) {
        n = named_decl(p, t, s[0] == 's' ? RK_STATE : RK_CONST);
        expect(p, ":", "after the name");
        n->type = parse_type(p);
        if (s[0] == 's' ? accept(p, ":=") : !!expect(p, "=", "in the constant"))
            n->value = parse_expr(p);
    } else if (!strcmp(s, "embed")) {
        n = named_decl(p, t, RK_EMBED);
        n->text = header_path(p, "after the embedded name");
    } else {
        n = tine_stmt(p, t);
    }
    end_of_statement(p);
    return n;
}

static RkNode *decl(Parser *p)
{
    Tok *t = peek(p);
    if (t->kind == T_INDENT)
        syntax_error(t, "unexpected indentation: a definition starts in the "
                        "first column");
    if (t->kind != T_KW)
        syntax_error(t, "expected a definition such as scratch, rake, run, "
                        "slow, tine or pack, found %s",
                     describe(t));
    const char *s = t->text;
    advance(p);
    if (!strcmp(s, "scratch"))
        return function_decl(p, t, RK_SCRATCH);
    if (!strcmp(s, "rake"))
        return function_decl(p, t, RK_RAKE);
    if (!strcmp(s, "run"))
        return function_decl(p, t, RK_RUN);
    if (!strcmp(s, "slow"))
        return function_decl(p, t, RK_SLOW);
    if (!strcmp(s, "extern")) {
        Tok *slow = expect(p, "slow", "after 'extern'");
        RkNode *n = function_decl(p, slow, RK_EXTERN);
        n->loc = t->loc;
        end_of_statement(p);
        return n;
    }
    if (!strcmp(s, "pack") || !strcmp(s, "record") || !strcmp(s, "union") ||
        !strcmp(s, "state") || !strcmp(s, "const") || !strcmp(s, "embed") ||
        !strcmp(s, "tine"))
        return simple_decl(p, t);
    p->pos--;
    syntax_error(t, "expected a definition such as scratch, rake, run, slow, "
                    "tine or pack, found %s",
                 describe(t));
}

RkModule *parse_module(const char *path, const char *text)
{
    TokArray toks = lex_source(text);
    Parser p = {toks.items, 0, 0};
    RkModule *m = RK_NEW(RkModule);
    m->source = path;
    RkListBuilder b = {0};
    while (peek(&p)->kind != T_EOF)
        rk_list_push(&b, decl(&p));
    if (b.len == 0)
        rk_diag_fatal(peek(&p)->loc, "the file has no definitions");
    m->decls = rk_list_finish(&b);
    return m;
}

/* expr.c: expressions, predicates, types and parameter lists.
 *
 * Expression precedence, lowest first (10-gap-notes.md, section 1):
 *   if c then a else b      (the else branch extends as far as possible)
 *   or
 *   and
 *   = != < <= > >=          (left-associative)
 *   + -
 *   * / %
 *   prefix - and not        (a minus before a number folds into the literal)
 *   postfix .field [i] [unchecked i], and `gaps` after a tine or (...)
 *   primaries
 *
 * Predicates (tine bodies, through headers, sweep arms, `where`) have their
 * own grammar, in which `not` covers a whole comparison, comparison operands
 * are arithmetic on names, fields, marks and literals with no calls, and
 * `gaps` follows only a tine or a parenthesised predicate.
 *
 * A `<` where an operand is expected opens a uniform mark: `<x>`, `<3>`,
 * `<-1.0>`, `<true>`, `<cfg.limit>`, `<w[i]>`. */
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "parse.h"

static RkNode *arith(Parser *p);

static RkNode *node(RkKind k, Tok *t) { return rk_node_new(k, t->loc); }

static RkNode *binary(Tok *op, RkNode *l, RkNode *r)
{
    RkNode *n = rk_node_new(RK_BINARY, op->loc);
    n->op = op->text;
    n->lhs = l;
    n->rhs = r;
    return n;
}

/* --- types ---------------------------------------------------------------- */

bool is_scalar_type_kw(Tok *t)
{
    static const char *s[] = {"f32", "f64", "i8", "i16", "i32", "i64", "u8",
                              "u16", "u32", "u64", "bool", NULL};
    if (t->kind != T_KW)
        return false;
    for (const char **q = s; *q; q++)
        if (!strcmp(*q, t->text))
            return true;
    return false;
}

bool is_type_kw(Tok *t)
{
    static const char *s[] = {"f32s", "f64s", "i8s", "i16s", "i32s", "i64s",
                              "u8s", "u16s", "u32s", "u64s", "bools", "mask",
                              NULL};
    if (is_scalar_type_kw(t))
        return true;
    if (t->kind != T_KW)
        return false;
    for (const char **q = s; *q; q++)
        if (!strcmp(*q, t->text))
            return true;
    return false;
}

static RkNode *int_literal(Parser *p, const char *context)
{
    Tok *t = peek(p);
    if (t->kind != T_INT)
        syntax_error(t, "expected an integer literal %s, found %s", context,
                     describe(t));
    advance(p);
    RkNode *n = node(RK_INT, t);
    n->text = t->text;
    return n;
}

static RkNode *type_name(Tok *t)
{
    RkNode *n = node(RK_TYPE_NAME, t);
    n->name = t->text;
    return n;
}

static RkNode *ptr_type(Parser *p, Tok *t)
{
    RkNode *n = node(RK_TYPE_PTR, t);
    n->is_const = accept(p, "const");
    if (is(p, "(") && is_at(p, 1, ")")) {
        n->elem = node(RK_TYPE_UNIT, peek(p));
        p->pos += 2;
    } else {
        n->elem = parse_type(p);
    }
    return n;
}

static RkNode *fn_type(Parser *p, Tok *t)
{
    RkNode *n = node(RK_TYPE_FN, t);
    expect(p, "(", "after 'slow' in a function pointer type");
    RkListBuilder b = {0};
    if (!is(p, ")")) {
        do
            rk_list_push(&b, parse_type(p));
        while (accept(p, ","));
    }
    expect(p, ")", "after the parameter types");
    n->params = rk_list_finish(&b);
    expect(p, "->", "in a function pointer type");
    if (is(p, "(") && is_at(p, 1, ")")) {
        n->ret = node(RK_TYPE_UNIT, peek(p));
        p->pos += 2;
    } else {
        n->ret = parse_type(p);
    }
    return n;
}

static RkNode *type_inner(Parser *p)
{
    Tok *t = peek(p);
    if (is_type_kw(t) || t->kind == T_TYPENAME || t->kind == T_IDENT) {
        advance(p);
        return type_name(t);
    }
    if (accept(p, "mut")) {
        if (is(p, "[") && is_at(p, 1, "]")) {
            RkNode *v = parse_type(p);
            v->is_mut = true;
            v->loc = t->loc;
            return v;
        }
        RkNode *n = node(RK_TYPE_MUT, t);
        n->elem = parse_type(p);
        return n;
    }
    if (accept(p, "[")) {
        RkNode *n;
        if (accept(p, "]")) {
            n = node(RK_TYPE_VIEW, t);
        } else {
            n = node(RK_TYPE_ARRAY, t);
            n->len = int_literal(p, "as the array length");
            expect(p, "]", "after the array length");
        }
        n->elem = parse_type(p);
        return n;
    }
    if (accept(p, "stack") || accept(p, "pack")) {
        RkNode *n = node(t->text[0] == 's' ? RK_TYPE_STACK : RK_TYPE_PACK, t);
        Tok *name = peek(p);
        if (name->kind != T_TYPENAME)
            syntax_error(name, "expected a pack name after '%s', found %s",
                         t->text, describe(name));
        advance(p);
        n->name = name->text;
        return n;
    }
    if (accept(p, "ptr"))
        return ptr_type(p, t);
    if (accept(p, "slow"))
        return fn_type(p, t);
    syntax_error(t, "expected a type, found %s", describe(t));
}

RkNode *parse_type(Parser *p)
{
    nest(p, peek(p));
    RkNode *n = type_inner(p);
    p->depth--;
    return n;
}

/* --- parameters and field initialisers ------------------------------------ */

static RkNode *param(Parser *p)
{
    Tok *t = peek(p);
    bool uniform = accept(p, "<");
    Tok *name = peek(p);
    if (name->kind != T_IDENT)
        syntax_error(name, "expected a parameter name, found %s", describe(name));
    advance(p);
    RkNode *n = node(RK_PARAM, uniform ? t : name);
    n->name = name->text;
    n->uniform = uniform;
    expect(p, ":", "after the parameter name");
    n->type = parse_type(p);
    if (uniform)
        expect(p, ">", "to close the uniform parameter");
    return n;
}

RkList parse_params(Parser *p)
{
    RkListBuilder b = {0};
    expect(p, "(", "to open the parameter list");
    if (!is(p, ")")) {
        do
            rk_list_push(&b, param(p));
        while (accept(p, ","));
    }
    expect(p, ")", "to close the parameter list");
    return rk_list_finish(&b);
}

RkList parse_field_inits(Parser *p, const char *context)
{
    RkListBuilder b = {0};
    expect(p, "{", context);
    while (!is(p, "}")) {
        Tok *t = peek(p);
        RkNode *f = node(RK_FIELD_INIT, t);
        f->name = field_name(p, "as a field name");
        expect(p, ":", "after the field name");
        f->value = parse_expr(p);
        rk_list_push(&b, f);
        if (!accept(p, ","))
            break;
    }
    expect(p, "}", "to close the fields");
    return rk_list_finish(&b);
}

/* --- primaries ------------------------------------------------------------ */

static RkNode *literal(Tok *t, const char *neg)
{
    RkKind k = t->kind == T_INT     ? RK_INT
               : t->kind == T_FLOAT ? RK_FLOAT
                                    : RK_BOOL;
    RkNode *n = node(k, t);
    n->text = neg ? rk_arena_printf(&rk_heap, "-%s", t->text) : t->text;
    return n;
}

static RkNode *mark_literal(Tok *t)
{
    RkNode *u = node(RK_UNIFORM, t);
    const char *s = t->text;
    RkKind k = !strcmp(s, "true") || !strcmp(s, "false") ? RK_BOOL
               : strpbrk(s, ".eE") && strncasecmp(s, "0x", 2) && strncasecmp(s, "-0x", 3)
                   ? RK_FLOAT
                   : RK_INT;
    RkNode *lit = rk_node_new(k, (RkLoc){t->loc.line, t->loc.col + 1});
    lit->text = s;
    u->operand = lit;
    return u;
}

static RkNode *postfix_ops(Parser *p, RkNode *e, bool gaps_ok);

/* Close a mark; a `>=` right after the operand is split into '>' '='. */
static void close_mark(Parser *p)
{
    Tok *t = peek(p);
    if (t->kind == T_PUNCT && !strcmp(t->text, ">=")) {
        t->text = "=";
        t->loc.col++;
        return;
    }
    if (t->kind == T_PUNCT && strchr("+-*/%", t->text[0]) && !t->text[1])
        syntax_error(t, "a mark holds a name or a literal, with fields and "
                        "indexing, but no arithmetic: found '%s' (bind the "
                        "value first, as in let <x: T> = ...)",
                     t->text);
    if (t->kind == T_PUNCT && !strcmp(t->text, "("))
        syntax_error(t, "a mark holds a name or a literal, with fields and "
                        "indexing, but no call: found '(' (bind the value "
                        "first, as in let <x: T> = ...)");
    expect(p, ">", "to close the uniform mark");
}

static RkNode *mark(Parser *p, Tok *open)
{
    RkNode *u = node(RK_UNIFORM, open);
    Tok *t = peek(p);
    RkNode *inner;
    if (is(p, "-") && (peek_at(p, 1)->kind == T_INT || peek_at(p, 1)->kind == T_FLOAT)) {
        advance(p);
        inner = literal(advance(p), "-");
        inner->loc = t->loc;
    } else if (t->kind == T_INT || t->kind == T_FLOAT) {
        inner = literal(advance(p), NULL);
    } else if (is(p, "true") || is(p, "false")) {
        inner = literal(advance(p), NULL);
    } else if (t->kind == T_IDENT) {
        advance(p);
        inner = node(RK_NAME, t);
        inner->name = t->text;
        inner = postfix_ops(p, inner, false);
    } else {
        syntax_error(t, "expected a name or a literal inside '<...>', found %s "
                        "(a mark holds a name, a literal, fields and indexing; "
                        "bind arithmetic with let first)",
                     describe(t));
    }
    u->operand = inner;
    close_mark(p);
    return u;
}

/* `( e, ... )`; *close receives the ')' when close is not NULL. */
static RkList call_args(Parser *p, const char *what, Tok **close)
{
    RkListBuilder b = {0};
    expect(p, "(", what);
    if (!is(p, ")")) {
        do
            rk_list_push(&b, parse_expr(p));
        while (accept(p, ","));
    }
    Tok *c = expect(p, ")", "to close the arguments");
    if (close)
        *close = c;
    return rk_list_finish(&b);
}

static RkNode *shuffle(Parser *p, Tok *t)
{
    RkNode *n = node(RK_SHUFFLE, t);
    Tok *close = NULL;
    RkList args = call_args(p, "after 'shuffle'", &close);
    RkNode *list = args.len ? args.items[args.len - 1] : NULL;
    if (args.len < 2 || list->kind != RK_ARRAY_LIT) {
        if (list && list->kind != RK_ARRAY_LIT && args.len >= 2)
            rk_diag_fatal(list->loc, "a shuffle's last argument is its list "
                                     "of lane indices in brackets, as in "
                                     "shuffle(a, [3, 2, 1, 0])");
        rk_diag_fatal(close->loc, "expected a list of lane indices in "
                                  "brackets before ')', as in shuffle(a, "
                                  "[3, 2, 1, 0]) or shuffle(a, b, [0, 4, 1, "
                                  "5])");
    }
    if (args.len > 3)
        rk_diag_fatal(args.items[2]->loc, "a shuffle takes one or two racks "
                                          "before its lane indices, not %d",
                      args.len - 1);
    for (int i = 0; i < list->elems.len; i++)
        if (list->elems.items[i]->kind != RK_INT)
            rk_diag_fatal(list->elems.items[i]->loc,
                          "a shuffle's lane index must be an integer literal");
    n->args.items = args.items;
    n->args.len = args.len - 1;
    n->elems = list->elems;
    return n;
}

static RkNode *conversion(Parser *p, Tok *t, RkKind k)
{
    RkNode *n = node(k, t);
    expect(p, "(", "after the conversion name");
    n->type = parse_type(p);
    expect(p, ",", k == RK_WRAP ? "after the type in wrap(T, x)"
                                : "after the type in bitcast(T, x)");
    n->operand = parse_expr(p);
    expect(p, ")", "to close the conversion");
    return n;
}

static RkNode *array_literal(Parser *p, Tok *t)
{
    if (accept(p, "]"))
        syntax_error(t, "an array literal needs at least one element");
    RkNode *first = parse_expr(p);
    if (accept(p, ";")) {
        RkNode *n = node(RK_ARRAY_FILL, t);
        n->value = first;
        n->len = int_literal(p, "as the repeat count of [e; n]");
        expect(p, "]", "to close the array literal");
        return n;
    }
    RkNode *n = node(RK_ARRAY_LIT, t);
    RkListBuilder b = {0};
    rk_list_push(&b, first);
    while (accept(p, ",")) {
        if (is(p, "]"))
            break;
        rk_list_push(&b, parse_expr(p));
    }
    expect(p, "]", "to close the array literal");
    n->elems = rk_list_finish(&b);
    return n;
}

static RkNode *slow_block(Parser *p, Tok *t)
{
    RkNode *n = node(RK_SLOW_BLOCK, t);
    expect(p, "{", "after 'slow' in an expression");
    RkListBuilder b = {0};
    bool indented = peek(p)->kind == T_INDENT;
    if (indented)
        advance(p);
    Tok *sep = NULL;
    while (!is(p, "}") && peek(p)->kind != T_DEDENT && peek(p)->kind != T_EOF) {
        rk_list_push(&b, parse_stmt(p));
        sep = p->toks + p->pos - 1;
    }
    n->discard = sep && sep->kind == T_NEWLINE && !strcmp(sep->text, ";");
    if (indented) {
        if (peek(p)->kind != T_DEDENT)
            syntax_error(peek(p), "expected the end of the slow block, found %s",
                         describe(peek(p)));
        advance(p);
    }
    expect(p, "}", "to close the slow block");
    n->body = rk_list_finish(&b);
    return n;
}

static RkNode *name_or_call(Parser *p, Tok *t)
{
    bool conv = (!strcmp(t->text, "wrap") || !strcmp(t->text, "bitcast")) &&
                is(p, "(") && peek(p)->loc.line == t->loc.line;
    if (conv)
        return conversion(p, t, t->text[0] == 'w' ? RK_WRAP : RK_BITCAST);
    if (is(p, "(")) {
        RkNode *n = node(RK_CALL, t);
        n->name = t->text;
        n->args = call_args(p, "to open the arguments", NULL);
        return n;
    }
    if (is(p, "{") && peek(p)->loc.line == t->loc.line) {
        /* a record or union with a C typedef's lower-case name */
        RkNode *n = node(RK_RECORD_LIT, t);
        n->name = t->text;
        n->fields = parse_field_inits(p, "to open the record's fields");
        return n;
    }
    RkNode *n = node(RK_NAME, t);
    n->name = t->text;
    return n;
}

static RkNode *tine_ref(Parser *p, Tok *t, bool arith_args)
{
    RkNode *n = node(RK_TINE_REF, t);
    n->name = t->text;
    if (is(p, "(")) {
        n->applied = true;
        RkListBuilder b = {0};
        advance(p);
        if (!is(p, ")")) {
            do
                rk_list_push(&b, arith_args ? arith(p) : parse_expr(p));
            while (accept(p, ","));
        }
        expect(p, ")", "to close the tine's arguments");
        n->args = rk_list_finish(&b);
    }
    return n;
}

static RkNode *keyword_primary(Parser *p, Tok *t)
{
    const char *s = t->text;
    if (!strcmp(s, "true") || !strcmp(s, "false"))
        return literal(t, NULL);
    if (!strcmp(s, "shuffle"))
        return shuffle(p, t);
    if (!strcmp(s, "fma") || !strcmp(s, "shift_left") ||
        !strcmp(s, "shift_right") || !strcmp(s, "rotate_left") ||
        !strcmp(s, "rotate_right")) {
        RkNode *n = node(RK_CALL, t);
        n->name = s;
        n->args = call_args(p, "after the operation name", NULL);
        return n;
    }
    if (!strcmp(s, "lanes"))
        return node(RK_LANES, t);
    if (!strcmp(s, "slow"))
        return slow_block(p, t);
    if (!strcmp(s, "stack")) {
        RkNode *n = node(RK_STACK_LIT, t);
        Tok *name = peek(p);
        if (name->kind != T_TYPENAME)
            syntax_error(name, "expected a pack name after 'stack', found %s",
                         describe(name));
        advance(p);
        n->name = name->text;
        n->fields = parse_field_inits(p, "to open the stack's columns");
        return n;
    }
    if (is_scalar_type_kw(t) && is(p, "(")) {
        RkNode *n = node(RK_CONVERT, t);
        n->type = type_name(t);
        advance(p);
        n->operand = parse_expr(p);
        expect(p, ")", "to close the conversion");
        return n;
    }
    if (!strcmp(s, "if"))
        syntax_error(t, "an if expression here needs parentheses: "
                        "(if c then a else b)");
    syntax_error(t, "expected an expression, found %s", describe(t));
}

static RkNode *primary(Parser *p)
{
    Tok *t = advance(p);
    switch (t->kind) {
    case T_INT:
    case T_FLOAT:
        return literal(t, NULL);
    case T_STRING: {
        RkNode *n = node(RK_STRING, t);
        n->text = t->text;
        return n;
    }
    case T_MARKLIT:
        return mark_literal(t);
    case T_IDENT:
        return name_or_call(p, t);
    case T_TINE:
        return tine_ref(p, t, false);
    case T_TYPENAME: {
        if (!is(p, "{"))
            syntax_error(peek(p), "expected '{' after the record name '%s', "
                                  "found %s",
                         t->text, describe(peek(p)));
        RkNode *n = node(RK_RECORD_LIT, t);
        n->name = t->text;
        n->fields = parse_field_inits(p, "to open the record's fields");
        return n;
    }
    case T_KW:
        return keyword_primary(p, t);
    case T_UNDERSCORE:
        return node(RK_WILDCARD, t);
    case T_PUNCT:
        if (!strcmp(t->text, "(")) {
            RkNode *e = parse_expr(p);
            expect(p, ")", "to close the parenthesis");
            if (is(p, "gaps")) {
                RkNode *g = node(RK_GAPS, advance(p));
                g->operand = e;
                return g;
            }
            return e;
        }
        if (!strcmp(t->text, "<"))
            return mark(p, t);
        if (!strcmp(t->text, "["))
            return array_literal(p, t);
        if (!strcmp(t->text, "@"))
            return node(RK_LANE_INDEX, t);
        break;
    default:
        break;
    }
    p->pos--;
    syntax_error(t, "expected an expression, found %s", describe(t));
}

/* --- operators ------------------------------------------------------------ */

static RkNode *postfix_ops(Parser *p, RkNode *e, bool gaps_ok)
{
    for (;;) {
        Tok *t = peek(p);
        if (accept(p, ".")) {
            RkNode *f = node(RK_FIELD, t);
            f->object = e;
            f->name = field_name(p, "after '.'");
            e = f;
        } else if (accept(p, "[")) {
            RkNode *x = node(RK_INDEX, t);
            x->object = e;
            x->unchecked = accept(p, "unchecked");
            x->index = parse_expr(p);
            expect(p, "]", "to close the index");
            e = x;
        } else if (gaps_ok && e->kind == RK_TINE_REF && is(p, "gaps")) {
            RkNode *g = node(RK_GAPS, advance(p));
            g->operand = e;
            e = g;
        } else {
            return e;
        }
    }
}

RkNode *parse_postfix(Parser *p) { return postfix_ops(p, primary(p), true); }

static RkNode *unary_inner(Parser *p)
{
    Tok *t = peek(p);
    if (is(p, "-")) {
        advance(p);
        Tok *num = peek(p);
        if (num->kind == T_INT || num->kind == T_FLOAT) {
            advance(p);
            RkNode *lit = literal(num, "-");
            lit->loc = t->loc;
            return postfix_ops(p, lit, true);
        }
        RkNode *n = node(RK_UNARY, t);
        n->op = "-";
        n->operand = parse_unary(p);
        return n;
    }
    if (accept(p, "not")) {
        RkNode *n = node(RK_UNARY, t);
        n->op = "not";
        n->operand = parse_unary(p);
        return n;
    }
    return parse_postfix(p);
}

RkNode *parse_unary(Parser *p)
{
    nest(p, peek(p));
    RkNode *n = unary_inner(p);
    p->depth--;
    return n;
}

static bool is_any(Parser *p, const char *const *ops)
{
    for (; *ops; ops++)
        if (is(p, *ops))
            return true;
    return false;
}

static const char *const mul_ops[] = {"*", "/", "%", NULL};
static const char *const add_ops[] = {"+", "-", NULL};
static const char *const cmp_ops[] = {"=", "!=", "<", "<=", ">", ">=", NULL};

/* operand (op operand)*, grouped to the left; *count says how many ops */
static RkNode *left_assoc(Parser *p, const char *const *ops, RkNode *(*operand)(Parser *),
                          int *count)
{
    RkNode *e = operand(p);
    while (is_any(p, ops)) {
        Tok *op = advance(p);
        e = binary(op, e, operand(p));
        if (count)
            ++*count;
    }
    return e;
}

static RkNode *mul_expr(Parser *p) { return left_assoc(p, mul_ops, parse_unary, NULL); }
static RkNode *add_expr(Parser *p) { return left_assoc(p, add_ops, mul_expr, NULL); }

static RkNode *cmp_expr(Parser *p)
{
    int compared = 0;
    RkNode *e = left_assoc(p, cmp_ops, add_expr, &compared);
    if (compared && is(p, "gaps"))
        syntax_error(peek(p), "'gaps' follows a tine or a parenthesised "
                              "predicate: write (comparison) gaps");
    return e;
}

static RkNode *and_expr(Parser *p)
{
    RkNode *e = cmp_expr(p);
    while (is(p, "and")) {
        Tok *op = advance(p);
        e = binary(op, e, cmp_expr(p));
    }
    return e;
}

static RkNode *or_expr(Parser *p)
{
    RkNode *e = and_expr(p);
    while (is(p, "or")) {
        Tok *op = advance(p);
        e = binary(op, e, and_expr(p));
    }
    return e;
}

static RkNode *expr_inner(Parser *p)
{
    Tok *t = peek(p);
    if (!accept(p, "if"))
        return or_expr(p);
    RkNode *n = node(RK_IF_EXPR, t);
    n->cond = parse_expr(p);
    expect(p, "then", "after the condition of an if expression");
    n->then_e = parse_expr(p);
    expect(p, "else", "in an if expression (it needs both branches)");
    n->else_e = parse_expr(p);
    return n;
}

RkNode *parse_expr(Parser *p)
{
    nest(p, peek(p));
    RkNode *n = expr_inner(p);
    p->depth--;
    return n;
}

/* --- predicates ----------------------------------------------------------- */

static RkNode *arith_primary(Parser *p)
{
    Tok *t = peek(p);
    if (t->kind == T_IDENT && is_at(p, 1, "("))
        syntax_error(t, "a predicate cannot call '%s': compare names, fields, "
                        "marks and literals, and bind other values with let "
                        "first",
                     t->text);
    if (is(p, "(")) {
        advance(p);
        RkNode *e = arith(p);
        expect(p, ")", "to close the parenthesis");
        return postfix_ops(p, e, false);
    }
    if (t->kind == T_IDENT || t->kind == T_INT || t->kind == T_FLOAT ||
        t->kind == T_MARKLIT || is(p, "<"))
        return postfix_ops(p, primary(p), false);
    syntax_error(t, "expected an operand of a comparison, found %s", describe(t));
}

static RkNode *arith_unary(Parser *p);

static RkNode *arith_unary_inner(Parser *p)
{
    Tok *t = peek(p);
    if (!is(p, "-"))
        return arith_primary(p);
    advance(p);
    Tok *num = peek(p);
    if (num->kind == T_INT || num->kind == T_FLOAT) {
        advance(p);
        RkNode *lit = literal(num, "-");
        lit->loc = t->loc;
        return lit;
    }
    RkNode *n = node(RK_UNARY, t);
    n->op = "-";
    n->operand = arith_unary(p);
    return n;
}

static RkNode *arith_unary(Parser *p)
{
    nest(p, peek(p));
    RkNode *n = arith_unary_inner(p);
    p->depth--;
    return n;
}

static RkNode *arith_mul(Parser *p) { return left_assoc(p, mul_ops, arith_unary, NULL); }
static RkNode *arith(Parser *p) { return left_assoc(p, add_ops, arith_mul, NULL); }

/* After a '(' at position `open`, does the matching ')' close arithmetic
 * (it is followed by an operator) rather than a predicate? */
static bool paren_is_arith(Parser *p)
{
    int depth = 0;
    for (int i = p->pos;; i++) {
        Tok *t = &p->toks[i];
        if (t->kind == T_EOF)
            return false;
        if (t->kind != T_PUNCT)
            continue;
        if (!strcmp(t->text, "(") || !strcmp(t->text, "["))
            depth++;
        else if (!strcmp(t->text, ")") || !strcmp(t->text, "]")) {
            if (--depth == 0) {
                Tok *n = &p->toks[i + 1];
                if (n->kind != T_PUNCT)
                    return false;
                for (const char *const *o = cmp_ops; *o; o++)
                    if (!strcmp(n->text, *o))
                        return true;
                return strchr("+-*/%.[", n->text[0]) && !n->text[1];
            }
        }
    }
}

static RkNode *comparison(Parser *p)
{
    RkNode *e = arith(p);
    if (!is_any(p, cmp_ops))
        syntax_error(peek(p), "expected a comparison operator in the predicate, "
                              "found %s",
                     describe(peek(p)));
    while (is_any(p, cmp_ops)) {
        Tok *op = advance(p);
        e = binary(op, e, arith(p));
    }
    if (is(p, "gaps"))
        syntax_error(peek(p), "'gaps' follows a tine or a parenthesised "
                              "predicate: write (comparison) gaps");
    return e;
}

static RkNode *maybe_gaps(Parser *p, RkNode *e)
{
    if (!is(p, "gaps"))
        return e;
    RkNode *g = node(RK_GAPS, advance(p));
    g->operand = e;
    return g;
}

static RkNode *pred_atom(Parser *p)
{
    Tok *t = peek(p);
    if (t->kind == T_TINE) {
        advance(p);
        return maybe_gaps(p, tine_ref(p, t, true));
    }
    if (is(p, "(") && !paren_is_arith(p)) {
        advance(p);
        RkNode *e = parse_pred(p);
        expect(p, ")", "to close the predicate");
        return maybe_gaps(p, e);
    }
    if (t->kind == T_UNDERSCORE)
        syntax_error(t, "'_' stands alone as a sweep's last arm");
    return comparison(p);
}

static RkNode *pred_not(Parser *p);

static RkNode *pred_not_inner(Parser *p)
{
    Tok *t = peek(p);
    if (!accept(p, "not"))
        return pred_atom(p);
    RkNode *n = node(RK_UNARY, t);
    n->op = "not";
    n->operand = pred_not(p);
    return n;
}

static RkNode *pred_not(Parser *p)
{
    nest(p, peek(p));
    RkNode *n = pred_not_inner(p);
    p->depth--;
    return n;
}

static RkNode *pred_and(Parser *p)
{
    RkNode *e = pred_not(p);
    while (is(p, "and")) {
        Tok *op = advance(p);
        e = binary(op, e, pred_not(p));
    }
    return e;
}

RkNode *parse_pred(Parser *p)
{
    RkNode *e = pred_and(p);
    while (is(p, "or")) {
        Tok *op = advance(p);
        e = binary(op, e, pred_and(p));
    }
    return e;
}

/* pred.c: predicates as Boolean functions of comparison atoms.
 *
 * Every comparison that decides lanes is one BDD variable, named by a
 * canonical key of the comparison: its operator and operands, with names
 * replaced by the binding they denote and literals by their value.  So the
 * same comparison written twice (or reached through the same tine applied
 * to the same arguments) is one atom, while `x >= 0` and `x < 0` are two
 * unrelated atoms, and no NaN is ever assumed away.
 *
 * A global tine is instantiated at each application: its predicate is
 * walked with its parameters standing for the caller's arguments, both for
 * the atoms' keys and for their printed form in messages. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "strbuf.h"
#include "check.h"

typedef struct Frame Frame;
struct Frame {
    RkNode *tine;
    RkNode *ref; /* the application, whose args stand for the params */
    Frame *caller;
};

static Frame *frame;

/* The atoms of the function being checked, as many as it has. */
typedef struct Atom {
    const char *key, *text;
    bool cmp; /* a comparison, not an opaque mask */
} Atom;
static Atom *atoms;
static int natoms, atoms_cap;

/* --- canonical keys ------------------------------------------------------- */

static RkNode *param_arg(const char *name, Frame **where)
{
    if (!frame)
        return NULL;
    RkNode *t = frame->tine;
    for (int i = 0; i < t->params.len; i++)
        if (!strcmp(t->params.items[i]->name, name)) {
            *where = frame->caller;
            return frame->ref->args.items[i];
        }
    return NULL;
}

static void key(RkBuf *b, RkNode *n);
static void child_key(RkNode *n, void *b);

static void literal_key(RkBuf *b, RkNode *n)
{
    const char *t = n->text;
    double v = strtod(t, NULL);
    long long iv;
    if (n->kind == RK_INT && !(int_literal_value(n, &iv) && iv < (1ll << 53) &&
                               iv > -(1ll << 53)))
        rk_buf_put(b, rk_arena_printf(&rk_heap, "i:%s", t));
    else
        rk_buf_put(b, rk_arena_printf(&rk_heap, "n:%a", v));
}

static void name_key(RkBuf *b, RkNode *n)
{
    Frame *caller;
    RkNode *arg = param_arg(n->name, &caller);
    if (arg) {
        Frame *saved = frame;
        frame = caller;
        key(b, arg);
        frame = saved;
        return;
    }
    Binding *bd = frame ? NULL : lookup(n->name);
    if (bd)
        rk_buf_put(b, rk_arena_printf(&rk_heap, "$%d", bd->slot));
    else
        rk_buf_put(b, rk_arena_printf(&rk_heap, "@%s", n->name));
}

static void key(RkBuf *b, RkNode *n)
{
    switch (n->kind) {
    case RK_INT:
    case RK_FLOAT:
        literal_key(b, n);
        return;
    case RK_NAME:
        name_key(b, n);
        return;
    case RK_UNIFORM:
        key(b, n->operand);
        return;
    default:
        break;
    }
    rk_buf_put(b, "(");
    rk_buf_put(b, rk_kind_name(n->kind));
    if (n->op) {
        rk_buf_put(b, " ");
        rk_buf_put(b, n->op);
    }
    if (n->name) {
        rk_buf_put(b, " ");
        rk_buf_put(b, n->name);
    }
    if (n->text) {
        rk_buf_put(b, " ");
        rk_buf_put(b, n->text);
    }
    rk_ast_each_child(n, child_key, b);
    rk_buf_put(b, ")");
}

static void child_key(RkNode *n, void *b)
{
    rk_buf_put(b, " ");
    key(b, n);
}

/* --- printing ---------------------------------------------------------------- */

static void text(RkBuf *b, RkNode *n, int prec);

static int prec_of(RkNode *n)
{
    if (n->kind != RK_BINARY)
        return n->kind == RK_IF_EXPR ? 0 : 9;
    const char *o = n->op;
    if (!strcmp(o, "or")) return 1;
    if (!strcmp(o, "and")) return 2;
    if (strchr("+-", o[0]) && !o[1]) return 4;
    if (strchr("*/%", o[0]) && !o[1]) return 5;
    return 3;
}

static void text_list(RkBuf *b, RkList l)
{
    for (int i = 0; i < l.len; i++) {
        if (i)
            rk_buf_put(b, ", ");
        text(b, l.items[i], 0);
    }
}

static void text(RkBuf *b, RkNode *n, int prec)
{
    int p = prec_of(n);
    bool paren = p < prec;
    if (paren)
        rk_buf_put(b, "(");
    switch (n->kind) {
    case RK_INT: case RK_FLOAT: case RK_BOOL:
        rk_buf_put(b, n->text);
        break;
    case RK_NAME: {
        Frame *caller;
        RkNode *arg = param_arg(n->name, &caller);
        if (arg) {
            Frame *saved = frame;
            frame = caller;
            text(b, arg, prec);
            frame = saved;
        } else {
            rk_buf_put(b, n->name);
        }
        break;
    }
    case RK_UNIFORM:
        rk_buf_put(b, "<");
        text(b, n->operand, 0);
        rk_buf_put(b, ">");
        break;
    case RK_BINARY:
        text(b, n->lhs, p);
        rk_buf_put(b, " ");
        rk_buf_put(b, n->op);
        rk_buf_put(b, " ");
        text(b, n->rhs, p + 1);
        break;
    case RK_UNARY:
        rk_buf_put(b, n->op);
        if (n->op[0] == 'n')
            rk_buf_put(b, " ");
        text(b, n->operand, 6);
        break;
    case RK_GAPS:
        text(b, n->operand, 9);
        rk_buf_put(b, " gaps");
        break;
    case RK_TINE_REF:
        rk_buf_put(b, "#");
        rk_buf_put(b, n->name);
        if (n->applied) {
            rk_buf_put(b, "(");
            text_list(b, n->args);
            rk_buf_put(b, ")");
        }
        break;
    case RK_FIELD:
        text(b, n->object, 9);
        rk_buf_put(b, ".");
        rk_buf_put(b, n->name);
        break;
    case RK_INDEX:
        text(b, n->object, 9);
        rk_buf_put(b, n->unchecked ? "[unchecked " : "[");
        text(b, n->index, 0);
        rk_buf_put(b, "]");
        break;
    case RK_CALL:
        rk_buf_put(b, n->name);
        rk_buf_put(b, "(");
        text_list(b, n->args);
        rk_buf_put(b, ")");
        break;
    case RK_IF_EXPR:
        rk_buf_put(b, "if ");
        text(b, n->cond, 0);
        rk_buf_put(b, " then ");
        text(b, n->then_e, 0);
        rk_buf_put(b, " else ");
        text(b, n->else_e, 0);
        break;
    case RK_WILDCARD:
        rk_buf_put(b, "_");
        break;
    default:
        rk_buf_put(b, "...");
        break;
    }
    if (paren)
        rk_buf_put(b, ")");
}

const char *expr_text(RkNode *e)
{
    RkBuf b = {0};
    rk_buf_put(&b, "");
    text(&b, e, 0);
    return b.s;
}

const char *pred_text(RkNode *p) { return expr_text(p); }

/* --- atoms and tines -------------------------------------------------------- */

void pred_reset(void) { natoms = 0; }

RkBdd atom_for(RkNode *cmp)
{
    RkBuf b = {0};
    rk_buf_put(&b, "");
    key(&b, cmp);
    for (int i = 0; i < natoms; i++)
        if (!strcmp(atoms[i].key, b.s))
            return rk_bdd_var(i);
    if (natoms == atoms_cap) {
        atoms_cap = atoms_cap ? 2 * atoms_cap : 64;
        Atom *grown = rk_arena_alloc(&rk_heap, sizeof(Atom) * (size_t)atoms_cap);
        if (natoms)
            memcpy(grown, atoms, sizeof(Atom) * (size_t)natoms);
        atoms = grown;
    }
    atoms[natoms] = (Atom){b.s, expr_text(cmp), cmp->kind == RK_BINARY};
    return rk_bdd_var(natoms++);
}

static RkBdd walk(RkNode *p)
{
    switch (p->kind) {
    case RK_BINARY:
        if (!strcmp(p->op, "and"))
            return rk_bdd_and(walk(p->lhs), walk(p->rhs));
        if (!strcmp(p->op, "or"))
            return rk_bdd_or(walk(p->lhs), walk(p->rhs));
        return atom_for(p);
    case RK_UNARY:
        return rk_bdd_not(walk(p->operand));
    case RK_GAPS:
        return rk_bdd_not(walk(p->operand));
    case RK_TINE_REF: {
        RkNode *t = find_global_tine(p->name);
        if (!t || !t->pred->ty)
            return atom_for(p);
        return tine_mask(t, p);
    }
    default:
        return atom_for(p);
    }
}

RkBdd tine_mask(RkNode *tine, RkNode *ref)
{
    Frame f = {tine, ref, frame};
    frame = &f;
    RkBdd r = walk(tine->pred);
    frame = f.caller;
    return r;
}

/* Does the witness describe_witness() prints make two or more comparisons
 * fail, and nothing else?  Then the arms likely meant them to be
 * complementary, and a NaN is such a lane. */
bool witness_all_fail(RkBdd uncovered)
{
    int *assign = malloc(sizeof(int) * (size_t)(natoms ? natoms : 1));
    rk_bdd_witness(uncovered, assign, natoms);
    int n = 0;
    bool all = true;
    for (int i = 0; i < natoms; i++) {
        if (assign[i] < 0)
            continue;
        n++;
        all &= assign[i] == 0 && atoms[i].cmp;
    }
    free(assign);
    return n >= 2 && all;
}

const char *describe_witness(RkBdd uncovered)
{
    int *assign = malloc(sizeof(int) * (size_t)(natoms ? natoms : 1));
    rk_bdd_witness(uncovered, assign, natoms);
    RkBuf b = {0};
    rk_buf_put(&b, "");
    int n = 0;
    for (int i = 0; i < natoms; i++) {
        if (assign[i] < 0)
            continue;
        rk_buf_put(&b, n++ ? ", " : "");
        rk_buf_put(&b, atoms[i].text);
        rk_buf_put(&b, assign[i] ? " holds" : " fails");
    }
    free(assign);
    if (!n)
        rk_buf_put(&b, "every lane");
    return b.s;
}

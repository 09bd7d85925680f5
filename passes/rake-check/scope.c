/* scope.c: bindings and scopes.
 *
 * Every binding a function introduces (parameters, lets, fused bindings,
 * locations, loop indices, through results, local tines) gets a slot number
 * unique within the function; rake.checked records it on the declaring node
 * and on every name that refers to it, so later passes need no scope logic.
 * A name is bound once per scope and can't shadow an enclosing binding or a
 * module-level name (10-gap-notes.md, section 1).  Sibling scopes may reuse
 * a name. */
#include <string.h>

#include "arena.h"
#include "check.h"

void scope_push(bool barrier)
{
    Scope *s = RK_NEW(Scope);
    s->parent = C->scope;
    s->barrier = barrier;
    C->scope = s;
}

void scope_pop(void) { C->scope = C->scope->parent; }

Binding *lookup_any(const char *name, bool *behind_barrier)
{
    bool barrier = false;
    for (Scope *s = C->scope; s; s = s->parent) {
        Binding *b = rk_strmap_get(&s->names, name);
        if (b) {
            if (behind_barrier)
                *behind_barrier = barrier;
            return b;
        }
        barrier |= s->barrier;
    }
    return NULL;
}

Binding *lookup(const char *name) { return lookup_any(name, NULL); }

Binding *bind(RkNode *decl, const char *name, BindKind kind, const RkType *ty)
{
    Binding *old = lookup(name);
    if (old) {
        ERROR(decl->loc, "'%s' is already bound (at line %d); a name can't be "
                         "bound twice or shadow an enclosing binding",
              name, old->decl->loc.line);
    } else if (find_decl(name)) {
        RkNode *d = find_decl(name);
        ERROR(decl->loc, "'%s' is already defined at line %d; a local name "
                         "can't shadow a module-level name",
              name, d->loc.line);
    }
    Binding *b = RK_NEW(Binding);
    b->name = name;
    b->decl = decl;
    b->kind = kind;
    b->type = ty;
    b->slot = C->nslots++;
    b->def = RK_BDD_TRUE;
    b->mask = RK_BDD_TRUE;
    b->mask_def = RK_BDD_TRUE;
    b->next = C->scope->head;
    C->scope->head = b;
    rk_strmap_set(&C->scope->names, name, b);
    decl->slot = b->slot;
    return b;
}

void annotate_slot(RkNode *n, Binding *b)
{
    n->slot = b->slot;
    n->ref = b->kind == B_PARAM ? "param" : b->kind == B_TINE ? "tine" : "local";
}

/* optable: checks that the native-IR operation table (lib/nirops.h) is
 * consistent, for tests/35-nir.bats.
 *
 * Every row must have a name no other row has, round-trip through
 * rk_nir_op_lookup and rk_nir_op_name, take a sensible operand count, be
 * available on some architecture, and have flags that agree with each
 * other (an effect isn't pure; a fusable operation is pure; a raising one
 * has a float operand; an operation with no value is an effect).  Then a
 * rake.nir document with one instruction of every operation, and one of
 * an unknown name, goes through rk_nir_decode and rk_nir_encode: each
 * instruction must decode to its RkOp (the unknown one to RK_OP_NONE) and
 * encode to the name it had.  With a SCHEMA argument (the rake.nir JSON
 * Schema), the schema must list the same operations, give each the same
 * operand counts and let exactly the raising ones be `sanitized`.  Finally
 * each line of stdin, an operation name found in a document, must be in
 * the table.
 *
 *   cc -std=c11 -Ilib tests/nir/optable.c build/lib/librake.a -ljansson -lm
 *   optable [SCHEMA] < NAMES
 *
 * Prints one line per problem and exits 1 if there is any. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "nir.h"
#include "nirops.h"

static int problems;

static void bad(const char *what, const char *name)
{
    printf("optable: %s: %s\n", name ? name : "(null)", what);
    problems++;
}

static void check_row(RkOp op)
{
    const RkOpInfo *o = rk_nir_op_info(op);
    if (!o || o->op != op || !o->name || !*o->name) {
        printf("optable: row %d is missing or misplaced\n", (int)op);
        problems++;
        return;
    }
    if (rk_nir_op_lookup(o->name) != op)
        bad("doesn't look up to its own row (a duplicate name?)", o->name);
    if (strcmp(rk_nir_op_name(op), o->name) || rk_nir_op(o->name) != o)
        bad("rk_nir_op_name or rk_nir_op disagree with the row", o->name);
    for (int j = RK_OP_NONE + 1; j < (int)op; j++)
        if (!strcmp(rk_nir_op_info((RkOp)j)->name, o->name))
            bad("is the name of two rows", o->name);
    if (o->min_args < 0 || (o->max_args != RK_VARIADIC && o->max_args < o->min_args))
        bad("has an impossible operand count", o->name);
    if (!o->archs || (o->archs & ~(unsigned)RK_ON_ALL))
        bad("is on no architecture, or on an unknown one", o->name);
    for (int a = 0; a < RK_ARCH_NONE; a++)
        if (rk_nir_op_on_arch(op, (RkArch)a) != !!(o->archs & (1u << a)))
            bad("rk_nir_op_on_arch disagrees with the archs column", o->name);
    if (rk_nir_op_on_arch(op, RK_ARCH_NONE))
        bad("is on RK_ARCH_NONE", o->name);
    int f = o->flags;
    if ((f & RK_OPF_EFFECT) && (f & RK_OPF_PURE))
        bad("is both an effect and pure", o->name);
    if ((f & RK_OPF_FUSABLE) && !(f & RK_OPF_PURE))
        bad("is fusable but not pure", o->name);
    if ((f & RK_OPF_FLOAT) && (f & RK_OPF_INT))
        bad("is both float-only and integer-only", o->name);
    if ((f & RK_OPF_RAISES) && (f & RK_OPF_INT))
        bad("raises but takes only integers", o->name);
    if (!(f & RK_OPF_RAISES) && (o->benign || o->benign2))
        bad("has a benign operand but doesn't raise", o->name);
    if (o->result == RK_RES_NONE && !(f & RK_OPF_EFFECT))
        bad("has no value and no effect", o->name);
    if (o->shape == SH_CONST && o->min_args != 0)
        bad("is a constant with operands", o->name);
}

static json_t *instr(int id, const char *op)
{
    return json_pack("{s:i, s:s, s:s, s:[], s:s}", "id", id, "op", op, "type", "void",
                     "args", "loc", "0:0");
}

/* One function holding an instruction of every operation, then one of
 * an unknown name; decoded and encoded again. */
static void check_boundary(void)
{
    json_t *is = json_array();
    for (int i = RK_OP_NONE + 1; i < RK_OP_COUNT; i++)
        json_array_append_new(is, instr(i, rk_nir_op_name((RkOp)i)));
    json_array_append_new(is, instr(RK_OP_COUNT, "rack.no_such_op"));
    json_t *term = json_pack("{s:s, s:s, s:i}", "kind", "return", "loc", "1:1", "value", -1);
    json_t *block = json_pack("{s:i, s:[], s:o, s:o}", "id", 0, "params", "instrs", is,
                              "term", term);
    json_t *fn = json_pack("{s:s, s:s, s:s, s:[], s:s, s:i, s:[o]}", "name", "f", "kind",
                           "scratch", "loc", "1:1", "params", "result", "void", "values",
                           RK_OP_COUNT + 1, "blocks", block);
    json_t *doc = rk_ir_new_doc("rake.nir", 1, "optable", "x86-avx2");
    json_object_set_new(doc, "functions", json_pack("[o]", fn));
    RkNirModule *m = rk_nir_decode(doc);
    RkBlock *b = m->funcs[0]->blocks[0];
    for (int i = 0; i < b->ninstrs; i++) {
        RkOp want = i + 1 < RK_OP_COUNT ? (RkOp)(i + 1) : RK_OP_NONE;
        if (b->instrs[i]->opc != want)
            bad("doesn't decode to its RkOp", b->instrs[i]->op);
    }
    json_t *out = rk_nir_encode(m);
    json_t *f0 = json_array_get(json_object_get(out, "functions"), 0);
    json_t *b0 = json_array_get(json_object_get(f0, "blocks"), 0);
    json_t *enc = json_object_get(b0, "instrs");
    for (size_t i = 0; i < json_array_size(is); i++) {
        const char *a = json_string_value(json_object_get(json_array_get(is, i), "op"));
        const char *e = json_string_value(json_object_get(json_array_get(enc, i), "op"));
        if (!e || strcmp(a, e))
            bad("isn't encoded with the name it was decoded from", a);
    }
}

/* --- the schema --------------------------------------------------------------- */

static bool listed(json_t *cond, const char *name)
{
    json_t *c = json_object_get(cond, "const"), *e = json_object_get(cond, "enum"), *x;
    size_t i;
    if (c)
        return !strcmp(json_string_value(c), name);
    json_array_foreach(e, i, x)
        if (!strcmp(json_string_value(x), name))
            return true;
    return false;
}

/* The operand counts the schema's `if op ... then args` rules give `o`:
 * every operation but a variadic one must be under exactly one, with its
 * row's counts. */
static void check_schema_arity(json_t *rules, const RkOpInfo *o)
{
    size_t i;
    json_t *r;
    int found = 0;
    json_array_foreach(rules, i, r) {
        json_t *cond = json_object_get(json_object_get(json_object_get(r, "if"), "properties"), "op");
        json_t *args = json_object_get(json_object_get(json_object_get(r, "then"), "properties"),
                                       "args");
        if (!cond || !args || !listed(cond, o->name))
            continue;
        found++;
        json_t *lo = json_object_get(args, "minItems"), *hi = json_object_get(args, "maxItems");
        if ((lo ? json_integer_value(lo) : 0) != o->min_args || !hi ||
            json_integer_value(hi) != o->max_args)
            bad("has other operand counts in the schema", o->name);
    }
    if (found != (o->max_args != RK_VARIADIC))
        bad("isn't under exactly one operand-count rule of the schema", o->name);
}

/* The schema's rule that only raising operations may be `sanitized`. */
static json_t *sanitized_rule(json_t *rules)
{
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r) {
        json_t *then = json_object_get(json_object_get(r, "then"), "properties");
        json_t *unless = json_object_get(json_object_get(r, "if"), "not");
        if (unless && json_is_false(json_object_get(then, "sanitized")))
            return json_object_get(json_object_get(unless, "properties"), "op");
    }
    return NULL;
}

/* ir-schema/rake.nir.schema.json names the same operations, with the same
 * operand counts, and lets the same ones be sanitized. */
static void check_schema(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    json_t *defs = json_object_get(root, "$defs");
    json_t *names = json_object_get(json_object_get(defs, "op"), "enum");
    json_t *rules = json_object_get(json_object_get(defs, "instr"), "allOf");
    json_t *sane = sanitized_rule(rules);
    if (!names || !rules || !sane) {
        bad("has no $defs/op enum, instr rules or sanitized rule", path);
        return;
    }
    size_t i;
    json_t *x;
    json_array_foreach(names, i, x)
        if (rk_nir_op_lookup(json_string_value(x)) == RK_OP_NONE)
            bad("is in the schema but not in the table", json_string_value(x));
    for (int k = RK_OP_NONE + 1; k < RK_OP_COUNT; k++) {
        const RkOpInfo *o = rk_nir_op_info((RkOp)k);
        json_t *cond = json_pack("{s:O}", "enum", names);
        if (!listed(cond, o->name))
            bad("is in the table but not in the schema", o->name);
        json_decref(cond);
        check_schema_arity(rules, o);
        if (listed(sane, o->name) != !!(o->flags & RK_OPF_RAISES))
            bad("may be sanitized in the schema but doesn't raise, or the reverse", o->name);
    }
    json_decref(root);
}

int main(int argc, char **argv)
{
    rk_diag_program("optable");
    if (rk_nir_op_info(RK_OP_NONE) || rk_nir_op_info(RK_OP_COUNT) ||
        rk_nir_op_lookup("rack.no_such_op") != RK_OP_NONE || rk_nir_op_lookup("") != RK_OP_NONE ||
        strcmp(rk_nir_op_name(RK_OP_NONE), "?") || rk_nir_op("rack.no_such_op"))
        bad("RK_OP_NONE isn't the sentinel of unknown names", "RK_OP_NONE");
    for (int i = RK_OP_NONE + 1; i < RK_OP_COUNT; i++)
        check_row((RkOp)i);
    check_boundary();
    if (argc > 1)
        check_schema(argv[1]);
    char line[256];
    int names = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line)
            continue;
        names++;
        if (rk_nir_op_lookup(line) == RK_OP_NONE)
            bad("is used in a document but isn't in the table", line);
    }
    printf("optable: %d operations, %d names from documents, %d problem%s\n",
           RK_OP_COUNT - 1, names, problems, problems == 1 ? "" : "s");
    return problems ? 1 : 0;
}

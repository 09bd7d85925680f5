/* rake-report: rake.checked + allocated rake.mir -> the kernel report
 *
 *   rake-report [--counts] --mir F.json < rake.checked
 *
 * With --counts the report is one line per kernel and run instead, for
 * tools: `KIND NAME INSTRUCTIONS`, and for a run ` loop N` after it (the
 * full-rack loop's instructions), in declaration order.
 *
 * Input:  the rake.checked document of a build on stdin, and the
 *         allocated rake.mir document rake-ra wrote for it.
 * Output: the kernel report of spec page 03 on stdout (rakec copies it to
 *         standard error unless --no-report): for each stack run its
 *         domain and lanes, the columns it reads and the ones it replaces
 *         (in place: a run writes its result stack's own columns), the
 *         selection (every record, masked by a predicate, or compacted by
 *         one, with the profile's compaction method), the tail's transfers
 *         per kind of column, and for every kernel and run its instruction
 *         count; a run also gets its full-rack loop's instruction count and
 *         vector operations per byte the loop moves.  Where registers ran
 *         out, a line says how many instructions rake-ra added (each
 *         marked "again": a load repeated or a value computed again).
 * The source decides the words (column names, the predicate as written);
 * the selected machine code decides the numbers.  Adds and removes
 * nothing: a report is read, not compiled.  Deterministic. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ast.h"
#include "ir.h"
#include "mir.h"
#include "profile.h"
#include "types.h"

/* --- the source's words ------------------------------------------------------- */

typedef struct Names {
    const char **v;
    int n, cap;
} Names;

static void add_name(Names *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], name))
            return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->v = realloc(s->v, sizeof *s->v * (size_t)s->cap);
        if (!s->v)
            rk_diag_internal("out of memory");
    }
    s->v[s->n++] = name;
}

static void print_names(const Names *s)
{
    for (int i = 0; i < s->n; i++)
        printf("%s%s", i ? ", " : "", s->v[i]);
}

typedef struct Run {
    RkNode *decl, *result;   /* the last statement: with or compact */
    int nstacks;
    Names reads, replaces;
    Names compact_cols;      /* 8- and 16-bit columns the run transfers */
    int bytes;               /* per record, read and written */
} Run;

/* A column read: `s.f` whose object is a stack parameter. */
static const char *column_name(const Run *r, RkNode *n)
{
    const char *stack = n->object && n->object->name ? n->object->name : "?";
    return r->nstacks > 1 ? rk_arena_printf(&rk_heap, "%s.%s", stack, n->name) : n->name;
}

static void collect_reads(Run *r, RkNode *n)
{
    if (!n)
        return;
    if (n->kind == RK_FIELD && n->note && !strcmp(n->note, "column"))
        add_name(&r->reads, column_name(r, n));
    RkNode *kids[] = {n->lhs, n->rhs, n->operand, n->cond, n->then_e, n->else_e, n->value,
                      n->target, n->object, n->index, n->pred, n->from, n->to, n->step};
    for (size_t k = 0; k < sizeof kids / sizeof *kids; k++)
        collect_reads(r, kids[k]);
    RkList *lists[] = {&n->body, &n->else_body, &n->args, &n->arms, &n->fields, &n->elems};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
        for (int i = 0; i < lists[k]->len; i++)
            collect_reads(r, lists[k]->items[i]);
}

/* The predicate as the source writes it (simple expressions), or where
 * it is. */
static const char *expr_text(RkNode *e)
{
    switch (e->kind) {
    case RK_NAME: return e->name;
    case RK_INT: case RK_FLOAT: case RK_BOOL: return e->text ? e->text : "?";
    case RK_FIELD:
        return e->object ? rk_arena_printf(&rk_heap, "%s.%s", expr_text(e->object), e->name) : NULL;
    case RK_UNIFORM: {
        const char *in = e->operand ? expr_text(e->operand) : NULL;
        return in ? rk_arena_printf(&rk_heap, "<%s>", in) : NULL;
    }
    case RK_TINE_REF:
        return rk_arena_printf(&rk_heap, "#%s%s", e->name, e->applied ? "(...)" : "");
    case RK_GAPS: {
        const char *in = expr_text(e->operand);
        return in ? rk_arena_printf(&rk_heap, "(%s) gaps", in) : NULL;
    }
    case RK_UNARY: {
        const char *in = expr_text(e->operand);
        return in ? rk_arena_printf(&rk_heap, "%s %s", e->op, in) : NULL;
    }
    case RK_BINARY: {
        const char *l = expr_text(e->lhs), *r = expr_text(e->rhs);
        bool logic = !strcmp(e->op, "and") || !strcmp(e->op, "or");
        return l && r ? rk_arena_printf(&rk_heap, logic ? "(%s %s %s)" : "%s %s %s", l, e->op, r)
                      : NULL;
    }
    default: return NULL;
    }
}

static const char *pred_text(RkNode *p)
{
    const char *t = expr_text(p);
    return t ? t : rk_arena_printf(&rk_heap, "the predicate at %d:%d", p->loc.line, p->loc.col);
}

static RkNode *find_pack(RkModule *m, const char *name)
{
    RkNode *d = rk_ast_find_decl(m, name, false);
    return d && d->kind == RK_PACK ? d : NULL;
}

static int elem_bytes(RkNode *field)
{
    const char *t = field->type && field->type->name ? field->type->name : "f32";
    return rk_elem_bits(rk_elem_from_name(t)) / 8;
}

/* Bytes per record and the compact columns of every stack parameter the
 * run touches (a compaction moves all of the result's columns). */
static void measure(Run *r, RkModule *m)
{
    RkNode *res = r->result;
    bool compacting = res->kind == RK_COMPACT;
    for (int i = 0; i < r->decl->params.len; i++) {
        RkNode *p = r->decl->params.items[i];
        if (!p->type || p->type->kind != RK_TYPE_STACK)
            continue;
        RkNode *pack = find_pack(m, p->type->name);
        for (int f = 0; pack && f < pack->fields.len; f++) {
            RkNode *fd = pack->fields.items[f];
            const char *col = r->nstacks > 1 ? rk_arena_printf(&rk_heap, "%s.%s", p->name, fd->name)
                                             : fd->name;
            bool is_result = res->stack && res->stack->name && !strcmp(res->stack->name, p->name);
            int n = 0;
            for (int k = 0; k < r->reads.n; k++)
                n += !strcmp(r->reads.v[k], col);
            if (compacting && is_result)
                n = 2;
            for (int k = 0; !compacting && k < r->replaces.n; k++)
                n += !strcmp(r->replaces.v[k], col);
            r->bytes += n * elem_bytes(fd);
            if (n && elem_bytes(fd) < 4)
                add_name(&r->compact_cols, col);
        }
    }
}

/* --- the machine code's numbers ----------------------------------------------- */

static const RkMFunc *mir_func(const RkMModule *mm, const char *name)
{
    for (int i = 0; i < mm->nfuncs; i++)
        if (!strcmp(mm->funcs[i]->name, name))
            return mm->funcs[i];
    rk_diag_internal("rake-report: %s is not in the rake.mir document", name);
}

static bool vector_instr(const RkMInstr *in)
{
    for (int k = 0; k < in->nops; k++)
        if (in->ops[k].kind == RK_MO_REG && in->ops[k].reg.cls == RK_RC_VEC)
            return true;
    return false;
}

/* A return, or a trap (a general run's failed check ends in one). */
static bool is_exit(const RkTarget *t, const RkMInstr *in)
{
    return !strcmp(in->op, t->ret) || !strcmp(in->op, t->trap);
}

/* An instruction branching to a failed check's report (a general run's
 * trap block: call.slow of origin trap, then the trap). */
static bool to_trap(const RkMFlat *fl, const RkMInstr *in)
{
    for (int k = 0; k < in->nops; k++) {
        if (in->ops[k].kind != RK_MO_LABEL)
            continue;
        int at = fl->block_at[in->ops[k].imm];
        if (at >= 0 && at < fl->n && !strcmp(fl->ins[at].origin, "trap"))
            return true;
    }
    return false;
}

/* The full-rack loop: the longest stretch of the emitted code from a
 * backward branch's target to that branch (the loop is rotated, so the
 * stretch is its body and its test) that holds no return and no trap and
 * branches to no trap (in a general run, the loop whose checks passed
 * before it, not the checked copy, whatever the layout); an unrolled
 * loop's stretch holds both of its racks. */
static void loop_counts(const RkMFunc *f, const RkTarget *t, int *all, int *vec)
{
    RkMFlat fl = rk_mir_flatten(f, t);
    int from = -1, to = -1;
    for (int p = 0; p < fl.n; p++) {
        const RkMInstr *in = &fl.ins[p];
        for (int k = 0; k < in->nops; k++) {
            if (in->ops[k].kind != RK_MO_LABEL)
                continue;
            int at = fl.block_at[in->ops[k].imm];
            bool clean = at >= 0 && at <= p;
            for (int q = at; clean && q <= p; q++)
                clean = !is_exit(t, &fl.ins[q]) && !to_trap(&fl, &fl.ins[q]);
            if (clean && p - at > to - from) {
                from = at;
                to = p;
            }
        }
    }
    *all = *vec = 0;
    for (int i = from; from >= 0 && i <= to; i++) {
        (*all)++;
        *vec += vector_instr(&fl.ins[i]);
    }
}

/* --- the report ---------------------------------------------------------------- */

static const char *compaction_method(const RkProfile *p)
{
    if (!strcmp(p->name, "x86-avx512"))
        return "vcompressps under a k mask (compact columns narrowed by vpmovdb/vpmovdw under "
               "a prefix mask)";
    if (!strcmp(p->name, "x86-avx2"))
        return "vmovmskps bits, vpermps by a 256-entry table of lane orders (compact columns "
               "narrowed by vpshufb and vpermd)";
    return "movmskps bits, each column selected against itself rotated by pshufd, twice, "
           "under masks from a 16-entry table (compact columns narrowed by sign-extending "
           "shifts and saturating packs)";
}

static void tail_line(const RkProfile *p, const Run *r)
{
    bool compact = r->compact_cols.n > 0;
    printf("    tail: ");
    if (!strcmp(p->name, "x86-avx512"))
        printf("masked moves under a k register for every column\n");
    else if (!strcmp(p->name, "x86-sse2"))
        printf("guarded lane transfers for every column\n");
    else if (compact)
        printf("vmaskmovps for 32-bit columns, guarded lane transfers for compact columns\n");
    else
        printf("vmaskmovps for 32-bit columns\n");
}

/* The instructions rake-ra added to f where registers ran out (loads
 * repeated, values computed again), in a line of their own, if any. */
static void pressure_line(const RkMFunc *f)
{
    int added = 0;
    for (int b = 0; b < f->nblocks; b++)
        for (int i = 0; i < f->blocks[b]->ninstrs; i++)
            added += f->blocks[b]->instrs[i].again;
    if (added)
        printf("    registers ran out: %d instruction%s repeat%s a load or a computation "
               "(docs/x86.md)\n",
               added, added == 1 ? "" : "s", added == 1 ? "s" : "");
}

/* A run's slow blocks: how many calls each rack makes, through
 * trampolines that keep every register (docs/runs.md). */
static void slow_line(const RkMFunc *f, const RkTarget *t)
{
    Names blocks = {0};
    for (int b = 0; b < f->nblocks; b++)
        for (int i = 0; i < f->blocks[b]->ninstrs; i++) {
            const RkMInstr *in = &f->blocks[b]->instrs[i];
            const RkInsnDesc *d = rk_target_insn(t, in->op);
            if (!d || !(d->flags & RK_I_SLOW))
                continue;
            int at = in->ops[0].kind == RK_MO_REG;
            add_name(&blocks, rk_arena_printf(&rk_heap, "%" PRId64 ":%" PRId64,
                                              in->ops[at].imm, in->ops[at + 1].imm));
        }
    if (!blocks.n)
        return;
    printf("    slow blocks: ");
    print_names(&blocks);
    printf(" (C), once per rack each, through trampolines that save and restore every "
           "register\n");
    free(blocks.v);
}

static void report_run(RkModule *m, const RkMModule *mm, const RkProfile *p, RkNode *d)
{
    Run r = {d, NULL, 0, {0}, {0}, {0}, 0};
    for (int i = 0; i < d->params.len; i++)
        r.nstacks += d->params.items[i]->type && d->params.items[i]->type->kind == RK_TYPE_STACK;
    r.result = d->body.len ? d->body.items[d->body.len - 1] : NULL;
    if (!r.result || (r.result->kind != RK_WITH && r.result->kind != RK_COMPACT))
        return;
    for (int i = 0; i < d->body.len; i++)
        collect_reads(&r, d->body.items[i]);
    for (int i = 0; i < r.result->fields.len; i++) {
        RkNode *fi = r.result->fields.items[i];
        add_name(&r.replaces, r.nstacks > 1 ? rk_arena_printf(&rk_heap, "%s.%s",
                                                             r.result->stack->name, fi->name)
                                            : fi->name);
    }
    measure(&r, m);
    int domain = 32;
    if (d->note && !strncmp(d->note, "domain ", 7))
        domain = atoi(d->note + 7);
    printf("  run %s: %d-bit domain, %d lanes\n", d->name, domain, p->lanes * 32 / domain);
    printf("    reads ");
    print_names(&r.reads);
    if (!r.reads.n)
        printf("no column");
    bool compacting = r.result->kind == RK_COMPACT;
    if (r.replaces.n) {
        printf("; replaces ");
        print_names(&r.replaces);
    }
    printf("%s in place\n", compacting ? "; compacts every column" : r.replaces.n ? "" : "; writes nothing");
    if (!r.result->pred)
        printf("    selection: every record\n");
    else if (compacting)
        printf("    selection: compacted by %s: %s\n", pred_text(r.result->pred),
               compaction_method(p));
    else
        printf("    selection: masked by %s\n", pred_text(r.result->pred));
    tail_line(p, &r);
    const RkMFunc *f = mir_func(mm, d->name);
    slow_line(f, mm->t);
    int all, vec;
    loop_counts(f, mm->t, &all, &vec);
    int rack_bytes = r.bytes * p->lanes * 32 / domain;
    printf("    code: %d instructions; a full rack: %d instructions, %d vector operations for "
           "%d bytes moved (%.2f per byte)\n",
           rk_mir_flatten(f, mm->t).n, all, vec, rack_bytes,
           rack_bytes ? (double)vec / rack_bytes : 0.0);
    pressure_line(f);
    free(r.reads.v);
    free(r.replaces.v);
    free(r.compact_cols.v);
}

/* --counts: `KIND NAME INSTRUCTIONS [loop N]`, one line per kernel and run. */
static void print_counts(const RkModule *m, const RkMModule *mm)
{
    for (int i = 0; i < m->decls.len; i++) {
        const RkNode *d = m->decls.items[i];
        if (d->kind != RK_RUN && d->kind != RK_SCRATCH && d->kind != RK_RAKE)
            continue;
        const RkMFunc *f = mir_func(mm, d->name);
        const char *kind = d->kind == RK_RUN ? "run" : d->kind == RK_RAKE ? "rake" : "scratch";
        printf("%s %s %d", kind, d->name, rk_mir_flatten(f, mm->t).n);
        if (d->kind == RK_RUN) {
            int all, vec;
            loop_counts(f, mm->t, &all, &vec);
            printf(" loop %d", all);
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    rk_diag_program("rake-report");
    bool counts = argc == 4 && !strcmp(argv[1], "--counts");
    if (counts) {
        argv++;
        argc--;
    }
    if (argc != 3 || strcmp(argv[1], "--mir"))
        rk_diag_input("usage: rake-report [--counts] --mir F.json < rake.checked");
    RkIrDoc doc = rk_ir_read(stdin, "rake.checked", 1);
    RkModule *m = rk_ast_decode(doc.root);
    FILE *mf = fopen(argv[2], "r");
    if (!mf)
        rk_diag_input("cannot open %s", argv[2]);
    RkIrDoc mdoc = rk_ir_read(mf, "rake.mir", 2);
    fclose(mf);
    RkMModule *mm = rk_mir_decode(mdoc.root);
    if (!mm->allocated)
        rk_ir_fail_at("/allocated", "the kernel report reads rake-ra's output");
    const RkProfile *p = rk_profile_find(mm->target);
    if (!p)
        rk_ir_fail_at("/target", "'%s' is not a profile", mm->target);
    if (counts) {
        print_counts(m, mm);
        return 0;
    }
    printf("rakec: kernel report for %s\n", p->name);
    for (int i = 0; i < m->decls.len; i++) {
        RkNode *d = m->decls.items[i];
        if (d->kind == RK_RUN)
            report_run(m, mm, p, d);
        else if (d->kind == RK_SCRATCH || d->kind == RK_RAKE) {
            const RkMFunc *f = mir_func(mm, d->name);
            printf("  %s %s: %d instructions\n", d->kind == RK_RAKE ? "rake" : "scratch", d->name,
                   rk_mir_flatten(f, mm->t).n);
            pressure_line(f);
        }
    }
    return 0;
}

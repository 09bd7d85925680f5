/* compact.c: a stack run's compaction, from rack.compress_store.
 *
 * AVX-512 compresses under a k mask into a register; AVX2 looks the selection bits up in
 * a 256-entry table of lane orders and permutes with vpermps; SSE2
 * selects each column against itself rotated, twice, under masks looked
 * up for the four bits.  A
 * full rack stores whole racks at the cursor, which never passes the
 * records already read; the tail stores only its selected lanes.  On
 * SSE2, and for AVX2's compact columns, a tail's column that the
 * compaction keeps as it is moves record by record, memory to memory
 * through a general register (copy_kept), instead of being loaded lane
 * by lane, permuted and stored lane by lane.  run.c selects everything
 * else of the run (run.h). */
#include <string.h>

#include "arena.h"
#include "run.h"

/* The splat defining a stored rack, or NULL: a rack with one value in
 * every lane (rake-opt stores the splat its selection compares a column
 * with: `compact s where k = <0>`) is its own permutation, so none is
 * selected. */
static RkInstr *splat_def(int id)
{
    RkInstr *d = nir_def(id);
    return d && d->opc == RK_OP_RACK_SPLAT ? d : NULL;
}

static bool kept_as_is(const RkInstr *c);

/* A constant splat's lanes narrowed to `bytes` each, packed from the
 * register's first byte: a constant (loaded before the loop, hoist.c)
 * where narrowing the splat would take instructions every rack. */
static int packed_splat(uint64_t bits, int bytes)
{
    uint32_t w[16];
    uint32_t one = bytes == 1 ? (uint32_t)(bits & 0xff) * 0x01010101u
                              : (uint32_t)(bits & 0xffff) * 0x00010001u;
    for (int k = 0; k < lanes(); k++)
        w[k] = one;
    return konst_vector(w);
}

/* AVX2: the lane order selecting the set bits of each 8-bit pattern, as
 * bytes (vpmovzxbd widens one entry to vpermps's indices). */
static int order_table(void)
{
    uint32_t w[512];
    for (int p = 0; p < 256; p++) {
        uint8_t idx[8] = {0};
        int n = 0;
        for (int k = 0; k < 8; k++)
            if (p >> k & 1)
                idx[n++] = (uint8_t)k;
        w[2 * p] = (uint32_t)idx[0] | (uint32_t)idx[1] << 8 | (uint32_t)idx[2] << 16 |
                   (uint32_t)idx[3] << 24;
        w[2 * p + 1] = (uint32_t)idx[4] | (uint32_t)idx[5] << 8 | (uint32_t)idx[6] << 16 |
                       (uint32_t)idx[7] << 24;
    }
    return rk_mir_const(S->mf, (int)sizeof w, w);
}

static int avx2_order(int mask_id)
{
    Memo *mm = memo(mask_id);
    if (mm->table >= 0)
        return mm->table;
    int bits = mask_bits(mask_id, S->vreg[mask_id]);
    int tbl = gnew(), idx = fresh();
    ins("leaq", 2, gw(tbl, 64), rk_mc(order_table()));
    Addr a = {tbl, bits, 8, 0};
    ins("vpmovzxbd", 2, rk_mvd(idx), mem(a, 0, 64, false));
    return mm->table = idx;
}

/* SSE2: compaction without branches or a byte shuffle (pshufb is
 * SSSE3).  A kept lane k moves down by z, the lanes dropped below it;
 * z is at most 3, so two steps move every kept lane: by one lane where
 * z is odd, then by two where z has its 2 bit.  Each step is a select
 * between the column and the column rotated down (pshufd), under a mask
 * looked up for the four selection bits:
 *     t = pshufd(v, rot);  t ^= v;  t &= mask;  t ^= v
 * (v where the mask is clear, the rotated lane where it is set).  No
 * kept lane is overwritten by another: two kept lanes never want the
 * same place.  A table of 16 entries of 64 bytes holds, per pattern, the
 * two masks, the count of kept lanes and the bits of the lanes below it
 * (the tail's guarded stores); a dropped lane's value is whatever lands
 * there, stored past the new cursor and overwritten or ignored. */
static int step_mask(int pat, int step, int lane)
{
    int z[4], kept = 0, at[4];
    for (int k = 0; k < 4; k++) {
        z[k] = k - kept;
        kept += pat >> k & 1;
        at[k] = k - (pat >> k & 1 ? z[k] & 1 : 0); /* after the first step */
    }
    for (int k = 0; k < 4; k++) {
        if (!(pat >> k & 1))
            continue;
        int from = step == 1 ? k : at[k], by = step == 1 ? z[k] & 1 : z[k] & 2;
        if (by && from - by == lane)
            return -1;
    }
    return 0;
}

static int shift_table(void)
{
    uint32_t w[16 * 16];
    for (int p = 0; p < 16; p++) {
        uint32_t *e = &w[16 * p];
        memset(e, 0, 64);
        for (int l = 0; l < 4; l++) {
            e[l] = (uint32_t)step_mask(p, 1, l);
            e[4 + l] = (uint32_t)step_mask(p, 2, l);
        }
        int n = __builtin_popcount((unsigned)p);
        e[8] = (uint32_t)n;
        e[9] = (1u << n) - 1;
    }
    return rk_mir_const(S->mf, (int)sizeof w, w);
}

/* t = the select of v and v rotated by imm under the mask at disp of the
 * table entry (base + index). */
static int shift_step(int v, int imm, int base, int idx, int disp)
{
    int t = shufd(v, imm);
    Addr a = {base, idx, 1, disp};
    ins("xorps", 2, rk_mvu(t), rk_mv(v));
    ins("andps", 2, rk_mvu(t), mem(a, 0, 128, false));
    ins("xorps", 2, rk_mvu(t), rk_mv(v));
    return t;
}

/* The table's entry for the selection bits (mm->tbase + mm->table), and
 * the count of kept lanes read from it: before a full rack's empty test
 * (open_stores), so the count is there on both of its paths. */
static void sse2_entry(int mask_id)
{
    Memo *mm = memo(mask_id);
    if (mm->tbase >= 0)
        return;
    int bits = mask_bits(mask_id, S->vreg[mask_id]);
    mm->tbase = gnew();
    mm->table = gnew();
    ins("leaq", 2, gw(mm->tbase, 64), rk_mc(shift_table()));
    ins("movl", 2, gw(mm->table, 32), gr(bits, 32));
    ins("shll", 2, gx(mm->table, 32), rk_mi(6));
    if (mm->count < 0) {
        mm->count = gnew();
        ins("movl", 2, gw(mm->count, 32), mem((Addr){mm->tbase, mm->table, 1, 32}, 0, 32, false));
    }
}

/* A rack that keeps every lane (bits 15) needs no permutation: it
 * branches past the selects to where they join, with its columns as
 * they are.  Where most records survive that is almost every rack, and
 * the loop costs what a plain copy does; at 50 % one rack in 16 takes
 * it. */
static void sse2_compact(int mask_id, bool tail)
{
    Memo *mm = memo(mask_id);
    RkBlock *nb = R.nb;
    sse2_entry(mask_id);
    int base = mm->tbase, idx = mm->table, n = 0;
    int *vals = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nb->ninstrs + 1));
    int *which = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nb->ninstrs + 1));
    mm->perm = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(nb->ninstrs + 1));
    for (int i = 0; i < nb->ninstrs; i++) {
        RkInstr *c = nb->instrs[i];
        mm->perm[i] = -1;
        if (c->opc != RK_OP_RACK_COMPRESS_STORE || c->args[1] != mask_id || kept_as_is(c))
            continue;
        int v = S->vreg[c->args[2]];
        if (v < 0)
            rk_diag_internal("%s: a compacted column is computed after the compaction starts",
                             S->nf->name);
        if (splat_def(c->args[2])) {
            mm->perm[i] = v;
            continue;
        }
        which[n] = i;
        vals[n++] = v;
    }
    int here = S->mf->cur, bits = mask_bits(mask_id, S->vreg[mask_id]);
    ins("cmpl", 2, gr(bits, 32), rk_mi(15));
    int all = block("kept");
    for (int k = 0; k < n; k++)
        rk_mir_jump_arg(term_of(all), rk_mreg(RK_RC_VEC, true, vals[k]));
    int some = block("select");
    set_branch(here, "e", all, some);
    for (int k = 0; k < n; k++) {
        int t = shift_step(shift_step(vals[k], 0x39, base, idx, 0), 0x4e, base, idx, 16);
        rk_mir_jump_arg(term_of(S->mf->cur), rk_mreg(RK_RC_VEC, true, t));
    }
    int from = S->mf->cur, join = block("compacted");
    for (int k = 0; k < n; k++)
        mm->perm[which[k]] = vparam(join);
    set_jump(all, join);
    set_jump(from, join);
    if (tail && mm->prefix_bits < 0) {
        mm->prefix_bits = gnew();
        ins("movl", 2, gw(mm->prefix_bits, 32), mem((Addr){base, idx, 1, 36}, 0, 32, false));
    }
}

static int instr_index(RkInstr *in)
{
    for (int i = 0; i < R.nb->ninstrs; i++)
        if (R.nb->instrs[i] == in)
            return i;
    rk_diag_internal("an instruction outside its block");
}

/* A full rack with no selected record stores nothing: on AVX2 and
 * AVX-512 the selection is tested before the first column's permutation,
 * and an empty one branches past every column's compress and store to
 * where the cursor adds the popcount (0).  Where most racks keep nothing
 * (1 % survival) the loop is then a load, a compare and the test;
 * elsewhere the branch is never taken.  The test adds no general
 * register to what the stores keep live: AVX2 tests the selection bits
 * the table lookup reads anyway, AVX-512 the k register (kortestw), and
 * the popcount is taken after the join, as before; SSE2 reads the count
 * from its table before the test. */
static void open_stores(int mask_id)
{
    Memo *mm = memo(mask_id);
    int m = S->vreg[mask_id], k = -1;
    if (S->level == AVX512) {
        RkMReg kr = kreg(m);
        k = kr.num;
        ins("kortestw", 2, rk_mo_reg(kr, 0, false, true), rk_mo_reg(kr, 0, false, true));
    } else {
        int bits = mask_bits(mask_id, m);
        if (S->level == SSE2)
            sse2_entry(mask_id);
        ins("testl", 2, gr(bits, 32), gr(bits, 32));
    }
    mm->skip_from = S->mf->cur;
    mm->skip_stores = block("stores");
    if (k >= 0) /* the test's block dominates the stores' and the join */
        k_note(m, k);
    mm->last = -1;
    for (int i = 0; i < R.nb->ninstrs; i++)
        if (R.nb->instrs[i]->opc == RK_OP_RACK_COMPRESS_STORE && R.nb->instrs[i]->args[1] == mask_id)
            mm->last = i;
    mm->skip = 1;
}

static void close_stores(int mask_id, RkInstr *in)
{
    Memo *mm = memo(mask_id);
    if (mm->skip != 1 || instr_index(in) != mm->last)
        return;
    int m = S->vreg[mask_id], k = S->level == AVX512 ? k_in_block(m) : -1;
    int end = S->mf->cur, join = block("stored");
    set_jump(end, join);
    set_branch(mm->skip_from, "e", join, mm->skip_stores);
    if (k >= 0)
        k_note(m, k);
    mm->skip = 2;
}

/* A tail's column the compaction keeps as it is: the value stored is the
 * column's own load under the tail mask, at the tail's record index.
 * Such columns are copied record by record (copy_kept): 3 + 2C
 * instructions a record for C columns.  On SSE2 always: loaded lane by
 * lane, permuted (eight instructions a column) and stored lane by lane,
 * the vector way costs more and holds a register per column through the
 * tail.  On AVX2 only compact columns that nothing else reads (its
 * 32-bit columns take one vmaskmovps each way; a compact column the
 * selection reads is loaded anyway, and vpermps and one vpextrw a lane
 * store it in fewer instructions than the copy).  AVX-512 compresses
 * them like the others. */
static bool kept_as_is(const RkInstr *c)
{
    if (c->opc != RK_OP_RACK_COMPRESS_STORE || c->through < 0 || S->level == AVX512)
        return false;
    RkInstr *ld = nir_def(c->args[2]);
    if (!ld || ld->opc != RK_OP_RACK_LOAD_MASKED || ld->imm || ld->args[1] != c->through)
        return false;
    RkInstr *from = nir_def(ld->args[0]), *to = nir_def(c->args[0]);
    return from && to && from->opc == RK_OP_PTR_ADD && to->opc == RK_OP_PTR_ADD &&
           from->args[0] == to->args[0] &&
           (S->level == SSE2 || (elem_bytes(to->type) < 4 && nir_reads(ld->id) == 1));
}

/* Record k of the tail, if the selection keeps it, to the next slot at the
 * cursor, for every column kept as it is (at the last such column's
 * store): one test of the selection's bit
 * per record, then a load into a general register and a store per
 * column.  A kept record is never after the one read (the cursor is at or
 * before the tail's index, and counts only kept records), and the
 * columns of a compaction are disjoint, so each load reads what the
 * tail's masked load would have.  The destination index is the cursor
 * plus the records copied so far. */
static void copy_kept(RkInstr *in)
{
    int mask_id = in->args[1], last = -1;
    for (int i = 0; i < R.nb->ninstrs; i++)
        if (kept_as_is(R.nb->instrs[i]) && R.nb->instrs[i]->args[1] == mask_id)
            last = i;
    if (instr_index(in) != last) /* at the last: every column's address is known */
        return;
    int bits = mask_bits(mask_id, S->vreg[mask_id]), n = active_lanes(mask_id), d = gnew();
    ins("movq", 2, gw(d, 64), gr(addr_of(in->args[0]).index, 64));
    for (int k = 0; k < n; k++) {
        int here = test_bit(bits, k), lane = block("lane");
        for (int i = 0; i < R.nb->ninstrs; i++) {
            RkInstr *c = R.nb->instrs[i];
            if (!kept_as_is(c) || c->args[1] != mask_id)
                continue;
            Addr src = addr_of(nir_def(c->args[2])->args[0]), dst = addr_of(c->args[0]);
            int w = dst.scale * 8, t = gnew();
            dst.index = d;
            ins(w == 32 ? "movl" : w == 16 ? "movzwl" : "movzbl", 2, gw(t, 32), mem(src, k, w, false));
            ins(w == 32 ? "movl" : w == 16 ? "movw" : "movb", 2, mem(dst, 0, w, true), gr(t, w));
        }
        if (k < n - 1)
            ins("addq", 2, gx(d, 64), rk_mi(1));
        int end = S->mf->cur, next = block("copied");
        set_branch(here, "e", next, lane);
        set_jump(end, next);
    }
}

/* A full rack's column that a compaction keeps as it is (rack.load of
 * the column, read by nothing but the compress_store into the same
 * column) is loaded where that store needs it, after the empty-rack test:
 * a rack that keeps nothing doesn't read it, and on AVX2 the load
 * becomes vpermps's memory operand (fold.c).  Moving the load past the
 * other columns' stores is safe: a compaction's columns are disjoint (a
 * run call traps otherwise, docs/interp-decisions.md), and this load
 * reads the column that only its own store writes.  SSE2 permutes every
 * column at its first store, so it loads them all before. */
bool deferred_load(RkInstr *in)
{
    if (in->opc == RK_OP_RACK_LOAD_MASKED && nir_reads(in->id) == 1) {
        for (int i = 0; i < R.nb->ninstrs; i++)
            if (R.nb->instrs[i]->opc == RK_OP_RACK_COMPRESS_STORE &&
                R.nb->instrs[i]->args[2] == in->id)
                return kept_as_is(R.nb->instrs[i]); /* copied, never loaded */
        return false;
    }
    if (S->level == SSE2 || in->opc != RK_OP_RACK_LOAD || in->through >= 0 || in->imm ||
        nir_reads(in->id) != 1)
        return false;
    for (int i = 0; i < R.nb->ninstrs; i++) {
        RkInstr *c = R.nb->instrs[i];
        if (c->opc != RK_OP_RACK_COMPRESS_STORE || c->args[2] != in->id)
            continue;
        RkInstr *from = nir_def(in->args[0]), *to = nir_def(c->args[0]);
        return c->through < 0 && from && to && from->opc == RK_OP_PTR_ADD &&
               to->opc == RK_OP_PTR_ADD && from->args[0] == to->args[0];
    }
    return false;
}

static void compress_one(RkInstr *in);

void compress_store(RkInstr *in)
{
    int mask_id = in->args[1];
    bool skips = in->through < 0;
    if (skips && memo(mask_id)->skip == 0)
        open_stores(mask_id);
    if (kept_as_is(in)) {
        copy_kept(in);
        return;
    }
    if (S->vreg[in->args[2]] < 0) { /* a deferred load */
        RkInstr *ld = nir_def(in->args[2]);
        if (!ld || !deferred_load(ld))
            rk_diag_internal("%s: a compacted column has no value", S->nf->name);
        S->vreg[ld->id] = run_load(ld);
    }
    compress_one(in);
    if (skips)
        close_stores(mask_id, in);
}

/* A tail's store mask, the lanes below the kept count, as a vector: made
 * once for every column (AVX2, AVX-512). */
static int kept_prefix(int mask_id)
{
    Memo *mm = memo(mask_id);
    if (mm->prefix < 0)
        mm->prefix = lanes_below(popcount(mask_id));
    return mm->prefix;
}

static void compress_one(RkInstr *in)
{
    const RkType *pt = type_of(in->args[0]);
    Addr a = addr_of(in->args[0]);
    int mask_id = in->args[1], m = S->vreg[mask_id], v = S->vreg[in->args[2]], n = lanes();
    RkInstr *splat = splat_def(in->args[2]);
    bool tail = in->through >= 0, same = splat != NULL;
    if (S->level == AVX512) {
        /* compress into a register, then store: vcompressps to memory is
         * microcoded on AMD Zen 4 (about 40x slower here, bench/) */
        int t = v;
        if (!same) {
            t = fresh();
            ins("vcompressps", 2, rk_mmask(rk_mvd(t), kreg(m), true), rk_mv(v));
        }
        if (!tail) {
            store_full(a, 0, t);
            return;
        }
        RkMReg kp = kreg(kept_prefix(mask_id));
        const char *op = a.scale == 4 ? "vmovups" : a.scale == 1 ? "vpmovdb" : "vpmovdw";
        ins(op, 2, rk_mmask(mem(a, 0, n * a.scale * 8, true), kp, false), rk_mv(t));
        return;
    }
    int t;
    Memo *mm = memo(mask_id);
    if (same) {
        t = v;
    } else if (S->level == AVX2) {
        t = fresh();
        ins("vpermps", 3, rk_mvd(t), rk_mv(avx2_order(mask_id)), rk_mv(v));
    } else {
        if (!mm->perm)
            sse2_compact(mask_id, tail);
        t = mm->perm[instr_index(in)];
    }
    if (!tail) {
        if (same && splat->nargs == 0 && a.scale < 4)
            store_packed(a, 0, packed_splat(splat->bits, a.scale));
        else
            store_full(a, 0, t);
        return;
    }
    if (S->level == AVX2 && a.scale == 4) {
        ins(float_elem(pt) ? "vmaskmovps" : "vpmaskmovd", 3, mem(a, 0, n * 32, true),
            rk_mv(kept_prefix(mask_id)), rk_mv(t));
        return;
    }
    if (mm->prefix_bits < 0)
        mm->prefix_bits = mask_bits(-1, kept_prefix(mask_id));
    guarded_store(a, mm->prefix_bits, active_lanes(mask_id), 0, t); /* popcount lanes at most */
}

/* run.c: runs on x86, from rake.nir's loop to rake.mir's blocks.
 *
 * rake-lower already wrote the run as a loop (docs/nir.md, "Stack runs"):
 * an entry that reads the descriptors, a head testing the record index
 * against the last full rack, a body over full racks, a tail under the
 * mask `lane < count mod lanes`, and an exit that writes a compaction's
 * count.  Every native-IR block becomes a machine block with the same
 * parameters; this file adds what the kernels never needed:
 *
 *   - general registers.  Descriptors, column pointers, the count, the
 *     record index and the compaction cursor are 64-bit integers in
 *     general registers; `i64` arithmetic is addq/subq/andq, a comparison
 *     stays pending until a branch or a select reads it (cmpq, then jcc or
 *     cmov), a constant operand that fits is the immediate, and `ptr.add`
 *     is not an instruction at all but the address (column, index, element
 *     size) of the loads and stores that use it (on AVX-512 the index is
 *     limited to the registers the target's evex_index allows).
 *   - transfers.  Full racks move with unaligned vector loads and stores;
 *     compact columns (u8 i8 u16 i16) widen with packed extension and
 *     narrow with the spec's truncations.  In the tail, AVX-512 masks
 *     every transfer with a k register and AVX2 moves 32-bit columns with
 *     vmaskmovps/vpmaskmovd; everything else is a count-guarded lane
 *     transfer: a test of the mask's bit, then one lane-sized load or
 *     store, so no byte past the last record is touched.
 *   - compaction (compact.c): a k mask's compress on AVX-512, a table of
 *     lane orders on AVX2, a branch tree of permutations on SSE2.
 * A `slow { }` block is call.slow, a call of a trampoline that keeps
 * every register (slow.c).
 * The broadcast uniforms stay in vector registers across the loop;
 * constants load in each block that uses them (from L1, and they don't
 * take registers the columns need).  General runs add views, traps and
 * integers in general registers (general.c).  What a native stack run
 * can't do yet (views, reductions, scans, lane extraction and insertion,
 * shuffles) is a located error naming the operation. */
#include <string.h>

#include "arena.h"
#include "nirops.h"
#include "run.h"

int select_instr(RkInstr *in);

Run R;

/* --- operands ------------------------------------------------------------------ */


static RkMOp addr_op(Addr a, int64_t elems, int bits, bool def)
{
    RkMReg none = rk_mreg(RK_RC_GPR, false, -1);
    return rk_mmem(greg(a.base), a.index >= 0 ? greg(a.index) : none, a.scale,
                   a.disp + elems * a.scale, bits, def);
}

/* A memory operand.  Capstone 4 decodes no EVEX instruction whose base
 * and index are both r8-r15, and the verifier must read every byte, so on
 * AVX-512 the index is limited to the registers the target table allows
 * (rake-ra keeps those free for it; the base may be any). */
RkMOp mem(Addr a, int64_t elems, int bits, bool def)
{
    if (S->target->evex_index && a.index >= 0)
        rk_mir_vreg_allow(S->mf, a.index, S->target->evex_index);
    return addr_op(a, elems, bits, def);
}

/* --- blocks -------------------------------------------------------------------- */

/* Constants load where they are first used in a native-IR block; a new
 * machine block forgets them (a load inside a guarded lane's block doesn't
 * dominate what follows the guard). */
static void forget_constants(void)
{
    for (int i = 0; i < S->nk; i++)
        S->kvreg[i] = -1;
}

int block(const char *tag)
{
    forget_constants();
    return rk_mir_block(S->mf, rk_arena_printf(&rk_heap, "%s%d", tag, R.nlabels++));
}

RkMTerm *term_of(int b) { return &S->mf->blocks[b]->term; }

void set_jump(int from, int to)
{
    RkMTerm *t = term_of(from);
    t->kind = RK_MT_JUMP;
    t->then = to;
    t->origin = S->origin;
    t->nir = S->nir;
    t->loc = S->loc;
}

void set_branch(int from, const char *cc, int then, int els)
{
    RkMTerm *t = term_of(from);
    t->kind = RK_MT_BRANCH;
    t->cond = cc;
    t->then = then;
    t->els = els;
    t->origin = S->origin;
    t->nir = S->nir;
    t->loc = S->loc;
}

int vparam(int b)
{
    int v = fresh();
    rk_mir_param(S->mf->blocks[b], rk_mreg(RK_RC_VEC, true, v));
    return v;
}

int gparam(int b)
{
    int v = gnew();
    rk_mir_param(S->mf->blocks[b], greg(v));
    return v;
}

/* `testl $bit, bits`; then a block for the lanes whose bit is set. */
int test_bit(int bits, int k)
{
    ins("testl", 2, gr(bits, 32), rk_mi(1ll << k));
    return S->mf->cur;
}

/* --- general-register values ---------------------------------------------------- */

/* An i64 constant: a register for whoever needs one (the dead-instruction
 * sweep drops it when every reader took the immediate instead). */
static int gconst(int id, uint64_t bits)
{
    int64_t v = (int64_t)bits;
    R.is_imm[id] = v >= INT32_MIN && v <= INT32_MAX;
    R.imm[id] = v;
    if (v < INT32_MIN || v > INT32_MAX)
        rk_diag_fatal(S->loc, "native stack run %s: the 64-bit constant %lld doesn't fit a "
                              "sign-extended 32-bit immediate",
                      S->nf->name, (long long)v);
    int d = gnew();
    ins("movq", 2, gw(d, 64), rk_mi(v));
    return d;
}

/* a op b for the values a and b; a constant b is the immediate where op
 * takes one. */
static int gbin(const char *op, int a, int b, bool imm_ok)
{
    bool zero = imm_ok && R.is_imm[b] && !R.imm[b];
    if (zero && (!strcmp(op, "addq") || !strcmp(op, "subq") || !strcmp(op, "orq")))
        return S->vreg[a]; /* a + 0, a - 0, a | 0 */
    if (imm_ok && R.is_imm[a] && !R.imm[a] && (!strcmp(op, "addq") || !strcmp(op, "orq")))
        return S->vreg[b]; /* 0 + b, 0 | b */
    int d = gnew();
    ins("movq", 2, gw(d, 64), gr(S->vreg[a], 64));
    ins(op, 2, gx(d, 64), imm_ok && R.is_imm[b] ? rk_mi(R.imm[b]) : gr(S->vreg[b], 64));
    return d;
}

const char *int_cc(RkOp op, bool sign)
{
    switch (op) {
    case RK_OP_U_CMP_EQ: return "e";
    case RK_OP_U_CMP_NE: return "ne";
    case RK_OP_U_CMP_LT: return sign ? "l" : "b";
    case RK_OP_U_CMP_LE: return sign ? "le" : "be";
    case RK_OP_U_CMP_GT: return sign ? "g" : "a";
    default: return sign ? "ge" : "ae";
    }
}

/* The comparison that holds for b, a when op holds for a, b. */
RkOp swapped_cmp(RkOp op)
{
    switch (op) {
    case RK_OP_U_CMP_LT: return RK_OP_U_CMP_GT;
    case RK_OP_U_CMP_LE: return RK_OP_U_CMP_GE;
    case RK_OP_U_CMP_GT: return RK_OP_U_CMP_LT;
    case RK_OP_U_CMP_GE: return RK_OP_U_CMP_LE;
    default: return op; /* eq, ne */
    }
}

static Flag flag_of(RkInstr *in, int k)
{
    int id = in->args[k];
    if (!R.is_flag[id])
        rk_diag_fatal(in->loc, "native stack run %s: %s reads a Boolean that isn't a comparison "
                               "of integers; a native run branches only on its loop's counts",
                      S->nf->name, in->op);
    return R.flag[id];
}

void compare(Flag f)
{
    int bits = f.bits == 32 ? 32 : 64;
    ins(bits == 32 ? "cmpl" : "cmpq", 2, gr(f.a, bits), f.b < 0 ? rk_mi(f.bimm) : gr(f.b, bits));
}

static int gselect(RkInstr *in)
{
    Flag f = flag_of(in, 0);
    int d = gnew();
    ins("movq", 2, gw(d, 64), gr(S->vreg[in->args[2]], 64));
    compare(f);
    ins(rk_arena_printf(&rk_heap, "cmov%sq", f.cc), 2, gx(d, 64), gr(S->vreg[in->args[1]], 64));
    return d;
}

Addr addr_of(int id)
{
    if (R.is_addr[id])
        return R.addr[id];
    return (Addr){S->vreg[id], -1, elem_bytes(type_of(id)), 0};
}

static void ptr_add(RkInstr *in)
{
    Addr a = addr_of(in->args[0]);
    int i = S->vreg[in->args[1]];
    if (R.is_imm[in->args[1]]) { /* a constant number of elements: a displacement */
        a.disp += R.imm[in->args[1]] * a.scale;
        R.addr[in->id] = a;
        R.is_addr[in->id] = true;
        return;
    }
    if (a.index >= 0) { /* an address of an address: form the first */
        int d = gnew();
        ins("leaq", 2, gw(d, 64), mem(a, 0, 8, false));
        a = (Addr){d, -1, a.scale, 0};
    }
    a.index = i;
    R.addr[in->id] = a;
    R.is_addr[in->id] = true;
}

/* An address as a pointer in a register of its own (a strength-reduced
 * pointer crossing a loop's back edge). */
static int address_reg(int id)
{
    if (!R.is_addr[id])
        return S->vreg[id];
    Addr a = R.addr[id];
    if (a.index < 0 && !a.disp)
        return a.base;
    int d = gnew();
    ins("leaq", 2, gw(d, 64), mem(a, 0, 8, false));
    return d;
}

/* --- masks --------------------------------------------------------------------- */

/* A mask's memo in the native-IR block being selected: entries of an
 * earlier block are stale (their generation is another), and start over
 * when first asked for, so each block costs what it uses, not the
 * function's value count. */
Memo *memo(int mask_id)
{
    if (R.memo_gen[mask_id] != R.gen) {
        R.memo[mask_id] = (Memo){-1, -1, -1, -1, -1, NULL, -1, 0, -1, -1, -1};
        R.memo_gen[mask_id] = R.gen;
    }
    return &R.memo[mask_id];
}

/* AVX-512: the k register of a mask vector: the one it was made from or
 * last tested into, if that was in this block (mask vregs are written
 * once, and any later write of a k register is a new k vreg), else a
 * vptestmd. */
RkMReg kreg(int m)
{
    int k = k_in_block(m);
    S->k = k >= 0 ? k : k_test(m);
    return rk_mreg(RK_RC_MASK, true, S->k);
}

/* The mask's lanes as the low bits of a general register. */
int mask_bits(int mask_id, int m)
{
    Memo *mm = mask_id >= 0 ? memo(mask_id) : NULL;
    if (mm && mm->bits >= 0)
        return mm->bits;
    int d = gnew();
    if (S->level == AVX512) {
        RkMReg k = kreg(m);
        ins("kmovw", 2, gw(d, 32), rk_mo_reg(k, 0, false, true));
    } else {
        ins(pick("movmskps", "vmovmskps", ""), 2, gw(d, 32), rk_mv(m));
    }
    if (mm)
        mm->bits = d;
    return d;
}

/* The number of set bits of a 4-bit mask without POPCNT (SSE2):
 * x - (x >> 1 & 5), then its two 2-bit fields added. */
static int popcount4(int bits)
{
    int x = gnew(), t = gnew();
    ins("movl", 2, gw(x, 32), gr(bits, 32));
    ins("movl", 2, gw(t, 32), gr(bits, 32));
    ins("shrl", 2, gx(t, 32), rk_mi(1));
    ins("andl", 2, gx(t, 32), rk_mi(5));
    ins("subl", 2, gx(x, 32), gr(t, 32));
    int h = gnew();
    ins("movl", 2, gw(h, 32), gr(x, 32));
    ins("shrl", 2, gx(h, 32), rk_mi(2));
    ins("andl", 2, gx(x, 32), rk_mi(3));
    ins("addl", 2, gx(x, 32), gr(h, 32));
    return x;
}

int popcount(int mask_id)
{
    Memo *mm = memo(mask_id);
    if (mm->count >= 0)
        return mm->count;
    int bits = mask_bits(mask_id, S->vreg[mask_id]);
    int d;
    if (S->level == SSE2) {
        d = popcount4(bits);
    } else {
        d = gnew();
        ins("popcntl", 2, gw(d, 32), gr(bits, 32));
    }
    return mm->count = d;
}

/* lane k < n: n broadcast, compared with 0, 1, 2, ... */
int lanes_below(int n)
{
    int b = fresh();
    ins(pick("movd", "vmovd", "vmovd"), 2, rk_mvx(rk_mvd(b)), gr(n, 32));
    int v = fresh();
    if (S->level == SSE2)
        ins("pshufd", 3, rk_mvd(v), rk_mv(b), rk_mi(0));
    else
        ins("vpbroadcastd", 2, rk_mvd(v), rk_mvx(rk_mv(b)));
    uint32_t iota[16];
    for (int k = 0; k < lanes(); k++)
        iota[k] = (uint32_t)k;
    return icmp("gt", true, v, konst_vector(iota));
}

/* --- lanes --------------------------------------------------------------------- */

/* pshufd's immediate putting lane 0 at lane k and lane 1 (zero after a
 * lane-sized load) everywhere else. */
static int place_imm(int k)
{
    int imm = 0;
    for (int j = 0; j < 4; j++)
        imm |= (j == k ? 0 : 1) << (2 * j);
    return imm;
}

int shufd(int v, int imm)
{
    int d = fresh();
    ins(pick("pshufd", "vpshufd", "vpshufd"), 3, rk_mvd(d), rk_mv(v), rk_mi(imm));
    return d;
}

/* AVX2: the upper 128 bits of v in both halves, or v's lower half in the
 * upper half with zeros below. */
static int halves(int v, int imm)
{
    int d = fresh();
    ins("vperm2f128", 4, rk_mvd(d), rk_mv(v), rk_mv(v), rk_mi(imm));
    return d;
}

static const char *widen_load(int bytes, bool sign)
{
    if (bytes == 1)
        return sign ? "movsbl" : "movzbl";
    return sign ? "movswl" : "movzwl";
}

/* Lane k's record, alone in lane k of a fresh vector (zeros elsewhere). */
static int lane_load(Addr a, int k, bool sign)
{
    int t = fresh();
    if (a.scale == 4 && S->level == SSE2) {
        ins("movss", 2, rk_mvd(t), mem(a, k, 32, false));
    } else {
        int r = gnew();
        ins(a.scale == 4 ? "movl" : widen_load(a.scale, sign), 2, gw(r, 32),
            mem(a, k, a.scale * 8, false));
        ins(pick("movd", "vmovd", "vmovd"), 2, rk_mvx(rk_mvd(t)), gr(r, 32));
    }
    if (k == 0)
        return t;
    if (k >= 4)
        return shufd(halves(t, 0x08), place_imm(k - 4));
    return shufd(t, place_imm(k));
}

/* Lane k of v in lane 0 of a vector. */
static int lane_to_low(int v, int k)
{
    if (k == 0)
        return v;
    if (k >= 4)
        return shufd(halves(v, 0x11), (k - 4) * 0x55);
    return shufd(v, k * 0x55);
}

static void lane_store(Addr a, int v, int k)
{
    int t = lane_to_low(v, k);
    if (a.scale == 4 && S->level == SSE2) {
        ins("movss", 2, mem(a, k, 32, true), rk_mvx(rk_mv(t)));
        return;
    }
    int r = gnew();
    ins(pick("movd", "vmovd", "vmovd"), 2, gw(r, 32), rk_mvx(rk_mv(t)));
    const char *op = a.scale == 1 ? "movb" : a.scale == 2 ? "movw" : "movl";
    ins(op, 2, mem(a, k, a.scale * 8, true), gr(r, a.scale * 8));
}

static int widen_packed(int x, int bytes, bool sign);

/* Element k of a narrow column (8 or 16 bits) inserted at element k of x,
 * whose low elements collect the column's packed elements: AVX2's vpinsrb
 * or vpinsrw from memory; SSE2 has pinsrw only, so a byte goes through a
 * general register (its extension to 16 bits is the word's). */
static int lane_insert(Addr a, int k, bool sign, int x)
{
    if (S->level == SSE2) {
        RkMOp src = mem(a, k, 16, false);
        if (a.scale == 1) {
            int r = gnew();
            ins(widen_load(1, sign), 2, gw(r, 32), mem(a, k, 8, false));
            src = gr(r, 32);
        }
        int d = vmov(x);
        ins("pinsrw", 3, rk_mvu(d), src, rk_mi(k));
        return d;
    }
    int d = fresh();
    ins(a.scale == 1 ? "vpinsrb" : "vpinsrw", 4, rk_mvx(rk_mvd(d)), rk_mvx(rk_mv(x)),
        mem(a, k, a.scale * 8, false), rk_mi(k));
    return d;
}

/* How many low lanes of mask value id may hold (lanes 0 to the result
 * less one; none above): a run's tail mask is lanes_below(a - (a & -2^j)),
 * which is lanes_below(a mod 2^j), so at most 2^j - 1 lanes (rake-lower's
 * tail: fewer than a rack's); a mask.and, the fewer of its two; any other
 * mask, all of them. */
int active_lanes(int id)
{
    int n = lanes();
    RkInstr *lb = nir_def(id);
    if (lb && lb->opc == RK_OP_MASK_AND && lb->nargs == 2) {
        int x = active_lanes(lb->args[0]), y = active_lanes(lb->args[1]);
        return x < y ? x : y;
    }
    RkInstr *sub = lb && lb->opc == RK_OP_MASK_LANES_BELOW ? nir_def(lb->args[0]) : NULL;
    RkInstr *and = sub && sub->opc == RK_OP_U_SUB ? nir_def(sub->args[1]) : NULL;
    if (!and || and->opc != RK_OP_U_AND || and->nargs != 2)
        return n;
    for (int side = 0; side < 2; side++) {
        RkInstr *c = nir_def(and->args[1 - side]);
        uint64_t m = c && c->opc == RK_OP_CONST ? -c->bits : 0; /* -(-2^j) = 2^j */
        if (and->args[side] == sub->args[0] && m && !(m & (m - 1)) && m - 1 < (uint64_t)n)
            return (int)(m - 1);
    }
    return n;
}

/* The block of the function holding instruction in, or NULL. */
static RkBlock *block_of(const RkInstr *in)
{
    for (int b = 0; b < S->nf->nblocks; b++)
        for (int i = 0; i < S->nf->blocks[b]->ninstrs; i++)
            if (S->nf->blocks[b]->instrs[i] == in)
                return S->nf->blocks[b];
    return NULL;
}

/* Whether block b is entered only by the true edge of a cbr whose
 * condition is x > c (c a constant): then *c is c. */
static bool entered_when_above(const RkBlock *b, int x, int64_t *c)
{
    const RkBlock *from = NULL;
    int edges = 0;
    for (int k = 0; k < S->nf->nblocks; k++) {
        const RkBlock *p = S->nf->blocks[k];
        const RkTerm *t = &p->term;
        if (t->kind != RK_TERM_BR && t->kind != RK_TERM_CBR)
            continue;
        edges += t->to.block == b->id;
        edges += t->kind == RK_TERM_CBR && t->alt.block == b->id;
        if (t->kind == RK_TERM_CBR && t->to.block == b->id)
            from = p;
    }
    if (edges != 1 || !from)
        return false;
    RkInstr *cmp = nir_def(from->term.value);
    RkInstr *k = cmp && cmp->opc == RK_OP_U_CMP_GT && cmp->args[0] == x ? nir_def(cmp->args[1])
                                                                       : NULL;
    if (!k || k->opc != RK_OP_CONST)
        return false;
    *c = (int64_t)k->bits;
    return true;
}

/* How many low lanes mask value id surely holds: a run's tail mask is
 * lanes_below(r) in the block rake-lower enters only when r > 0, so lane
 * 0 at least; a mask.and, the fewer of its two; any other mask, none. */
int sure_lanes(int id)
{
    RkInstr *lb = nir_def(id);
    if (lb && lb->opc == RK_OP_MASK_AND && lb->nargs == 2) {
        int x = sure_lanes(lb->args[0]), y = sure_lanes(lb->args[1]);
        return x < y ? x : y;
    }
    const RkBlock *b = lb && lb->opc == RK_OP_MASK_LANES_BELOW ? block_of(lb) : NULL;
    int64_t c;
    if (!b || !entered_when_above(b, lb->args[0], &c) || c < 0 || c >= lanes())
        return 0;
    return (int)c + 1;
}

/* Count-guarded transfers: lane k (below `active`, the lanes the mask
 * may hold) moves only when bit k of `bits` is set; lanes below `sure`
 * (the mask surely holds them) move without a test.  A narrow column's
 * elements are inserted packed and widened once at the end; 32-bit lanes
 * load alone into a zeroed vector and are or-ed in. */
/* x with lane k of the column at a moved in: a narrow element inserted
 * packed, a 32-bit one loaded alone and or-ed in (a lane load zeroes the
 * other lanes: lane 0's is the vector, x being zero then). */
static int lane_into(Addr a, int k, bool sign, int x)
{
    if (a.scale < 4)
        return lane_insert(a, k, sign, x);
    return k ? vlogic('|', x, lane_load(a, k, sign)) : lane_load(a, k, sign);
}

static int guarded_load(Addr a, int bits, int active, int sure, bool sign)
{
    int x = konst_splat(0);
    for (int k = 0; k < active; k++) {
        if (k < sure) {
            x = lane_into(a, k, sign, x);
            continue;
        }
        int here = test_bit(bits, k);
        int skip = block("skip");
        int next_from_skip = S->mf->cur;
        int load = block("lane");
        int y = lane_into(a, k, sign, x);
        int load_end = S->mf->cur;
        int next = block("joined");
        int xn = vparam(next);
        set_branch(here, "ne", load, skip);
        set_jump(next_from_skip, next);
        rk_mir_jump_arg(term_of(next_from_skip), rk_mreg(RK_RC_VEC, true, x));
        set_jump(load_end, next);
        rk_mir_jump_arg(term_of(load_end), rk_mreg(RK_RC_VEC, true, y));
        x = xn;
    }
    return a.scale < 4 ? widen_packed(x, a.scale, sign) : x;
}

/* Lane k's low 8 or 16 bits stored straight from its vector: AVX2's
 * vpextrb/vpextrw to memory (from hi, the upper 128 bits, for lanes 4-7);
 * SSE2's pextrw reaches a general register only.  A broadcast constant's
 * lane is an immediate (`movb $0, 3(%rcx,%r12,1)`). */
static void lane_extract(Addr a, int v, int hi, int k)
{
    int w = a.scale * 8;
    uint32_t c;
    if (splat_bits(v, &c)) { /* a broadcast constant: stored as an immediate */
        int64_t imm = a.scale == 1 ? (uint8_t)c : (uint16_t)c; /* as Capstone shows it */
        ins(a.scale == 1 ? "movb" : "movw", 2, mem(a, k, w, true), rk_mi(imm));
        return;
    }
    if (S->level == SSE2) {
        int r = gnew();
        ins("pextrw", 3, gw(r, 32), rk_mv(v), rk_mi(2 * k));
        ins(a.scale == 1 ? "movb" : "movw", 2, mem(a, k, w, true), gr(r, w));
        return;
    }
    int from = k < 4 ? v : hi, j = (k % 4) * (4 / a.scale);
    ins(a.scale == 1 ? "vpextrb" : "vpextrw", 3, mem(a, k, w, true), rk_mvx(rk_mv(from)),
        rk_mi(j));
}

/* Lane k of v to the column at a (a narrow lane extracted, lanes 4-7
 * from hi: lane_extract). */
static void lane_move(Addr a, int v, int hi, int k)
{
    if (a.scale < 4)
        lane_extract(a, v, hi, k);
    else
        lane_store(a, v, k);
}

void guarded_store(Addr a, int bits, int active, int sure, int v)
{
    /* lanes 4-7 from the upper half (a broadcast's is its lower half) */
    int hi = a.scale < 4 && active > 4 ? is_splat(v) ? v : halves(v, 0x11) : -1;
    for (int k = 0; k < active; k++) {
        if (k < sure) {
            lane_move(a, v, hi, k);
            continue;
        }
        int here = test_bit(bits, k);
        int store = block("lane");
        lane_move(a, v, hi, k);
        int store_end = S->mf->cur;
        int next = block("stored");
        set_branch(here, "e", next, store);
        set_jump(store_end, next);
    }
}

/* --- widening and narrowing ------------------------------------------------------ */

static int widen_sse2(int d, int bytes, bool sign)
{
    if (sign) {
        if (bytes == 1)
            ins("punpcklbw", 2, rk_mvu(d), rk_mv(d));
        ins("punpcklwd", 2, rk_mvu(d), rk_mv(d));
        ins("psrad", 2, rk_mvu(d), rk_mi(bytes == 1 ? 24 : 16));
        return d;
    }
    int z = konst_splat(0);
    if (bytes == 1)
        ins("punpcklbw", 2, rk_mvu(d), rk_mv(z));
    ins("punpcklwd", 2, rk_mvu(d), rk_mv(z));
    return d;
}

static const char *pmovx(int bytes, bool sign)
{
    static const char *ops[2][2] = {{"vpmovzxbd", "vpmovzxwd"}, {"vpmovsxbd", "vpmovsxwd"}};
    return ops[sign][bytes == 2];
}

/* A narrow column's elements packed in x's low end (SSE2: as words, see
 * lane_insert), widened to 32-bit lanes. */
static int widen_packed(int x, int bytes, bool sign)
{
    if (S->level == SSE2)
        return widen_sse2(vmov(x), 2, sign);
    int d = fresh();
    ins(pmovx(bytes, sign), 2, rk_mvd(d), rk_mvx(rk_mv(x)));
    return d;
}

static bool signed_elem(const RkType *ptr) { return rk_elem_is_signed(ptr->elem); }

bool float_elem(const RkType *ptr) { return ptr->elem == RK_E_F32; }

/* A full rack of the column at a (+ imm records), widened to 32 bits. */
static int load_full(Addr a, int64_t imm, bool sign)
{
    int d = fresh(), n = lanes();
    if (a.scale == 4) {
        ins(pick("movups", "vmovups", "vmovups"), 2, rk_mvd(d), mem(a, imm, n * 32, false));
        return d;
    }
    if (S->level == SSE2) {
        ins(a.scale == 1 ? "movd" : "movsd", 2, rk_mvd(d), mem(a, imm, n * a.scale * 8, false));
        return widen_sse2(d, a.scale, sign);
    }
    ins(pmovx(a.scale, sign), 2, rk_mvd(d), mem(a, imm, n * a.scale * 8, false));
    return d;
}

/* The low bytes of each 32-bit lane, packed into the vector's low end. */
static int narrow(int v, int bytes)
{
    int n = lanes();
    if (S->level == SSE2) {
        int t = vmov(v);
        ins("pslld", 2, rk_mvu(t), rk_mi(32 - 8 * bytes));
        ins("psrad", 2, rk_mvu(t), rk_mi(32 - 8 * bytes));
        ins("packssdw", 2, rk_mvu(t), rk_mv(t));
        if (bytes == 1)
            ins("packsswb", 2, rk_mvu(t), rk_mv(t));
        return t;
    }
    uint32_t sel[8], idx[8];
    for (int h = 0; h < 2; h++)
        for (int w = 0; w < 4; w++)
            sel[h * 4 + w] = bytes == 1 ? (w == 0 ? 0x0c080400u : 0x80808080u)
                                        : (w == 0 ? 0x05040100u : w == 1 ? 0x0d0c0908u
                                                                         : 0x80808080u);
    for (int k = 0; k < 8; k++)
        idx[k] = bytes == 1 ? (k == 0 ? 0 : k == 1 ? 4 : 0) : (uint32_t)(k < 4 ? (k % 2) + 4 * (k / 2) : 0);
    (void)n;
    int t = fresh(), u = fresh();
    ins("vpshufb", 3, rk_mvd(t), rk_mv(v), rk_mv(konst_vector(sel)));
    ins("vpermd", 3, rk_mvd(u), rk_mv(konst_vector(idx)), rk_mv(t));
    return u;
}

/* A full rack's store of v (32-bit lanes) into the column at a. */
void store_full(Addr a, int64_t imm, int v)
{
    int n = lanes();
    if (a.scale == 4) {
        ins(pick("movups", "vmovups", "vmovups"), 2, mem(a, imm, n * 32, true), rk_mv(v));
        return;
    }
    if (S->level == AVX512) {
        ins(a.scale == 1 ? "vpmovdb" : "vpmovdw", 2, mem(a, imm, n * a.scale * 8, true), rk_mv(v));
        return;
    }
    store_packed(a, imm, narrow(v, a.scale));
}

/* A compact column's rack already packed into t's low bytes. */
void store_packed(Addr a, int64_t imm, int t)
{
    int bits = lanes() * a.scale * 8;
    const char *op = S->level == SSE2 ? (bits == 32 ? "movd" : "movsd")
                                      : (bits == 64 ? "vmovq" : "vmovups");
    ins(op, 2, mem(a, imm, bits, true), rk_mvx(rk_mv(t)));
}

/* --- loads and stores ------------------------------------------------------------ */

int run_load(RkInstr *in)
{
    const RkType *pt = type_of(in->args[0]);
    view_elements(in, in->args[0], false);
    return load_full(addr_of(in->args[0]), in->imm, signed_elem(pt));
}

static int load_masked(RkInstr *in)
{
    const RkType *pt = type_of(in->args[0]);
    view_elements(in, in->args[0], true);
    Addr a = addr_of(in->args[0]);
    a.disp += in->imm * a.scale;
    int m = S->vreg[in->args[1]], d = fresh(), n = lanes();
    bool sign = signed_elem(pt);
    if (S->level == AVX512) {
        kreg(m);
        const char *op = a.scale == 4 ? "vmovups" : pmovx(a.scale, sign);
        ins(op, 2, kmasked(rk_mvd(d), true), mem(a, 0, n * a.scale * 8, false));
        note_zero_out(d, m);
        return d;
    }
    if (S->level == AVX2 && a.scale == 4) { /* the lanes outside m load as 0 */
        ins(float_elem(pt) ? "vmaskmovps" : "vpmaskmovd", 3, rk_mvd(d), rk_mv(m),
            mem(a, 0, n * 32, false));
        note_zero_out(d, m);
        return d;
    }
    /* lane by lane into zeros: the lanes outside m stay 0 */
    d = guarded_load(a, mask_bits(in->args[1], m), active_lanes(in->args[1]),
                     sure_lanes(in->args[1]), sign);
    note_zero_out(d, m);
    return d;
}

static void store(RkInstr *in)
{
    view_elements(in, in->args[0], false);
    store_full(addr_of(in->args[0]), in->imm, S->vreg[in->args[1]]);
}

static void store_masked(RkInstr *in)
{
    const RkType *pt = type_of(in->args[0]);
    view_elements(in, in->args[0], true);
    Addr a = addr_of(in->args[0]);
    a.disp += in->imm * a.scale;
    int m = S->vreg[in->args[1]], v = S->vreg[in->args[2]], n = lanes();
    if (S->level == AVX512) {
        RkMReg k = kreg(m);
        const char *op = a.scale == 4 ? "vmovups" : a.scale == 1 ? "vpmovdb" : "vpmovdw";
        ins(op, 2, rk_mmask(mem(a, 0, n * a.scale * 8, true), k, false), rk_mv(v));
        return;
    }
    if (S->level == AVX2 && a.scale == 4) {
        ins(float_elem(pt) ? "vmaskmovps" : "vpmaskmovd", 3, mem(a, 0, n * 32, true), rk_mv(m),
            rk_mv(v));
        return;
    }
    guarded_store(a, mask_bits(in->args[1], m), active_lanes(in->args[1]),
                  sure_lanes(in->args[1]), v);
}

/* --- one operation --------------------------------------------------------------- */

static _Noreturn void not_in_runs(RkInstr *in, const char *what)
{
    rk_diag_fatal(in->loc, "native stack run %s: %s is work in progress in native stack runs "
                           "(spec page 03); it compiles for wasm-simd128 or runs with "
                           "--interpret",
                  S->nf->name, what);
}

static bool int_args(RkInstr *in) { return in->nargs && is_int64(type_of(in->args[0])); }

/* A uniform i32 or u32 (broadcast in a vector register) as an i64 in a
 * general register: lane 0 moves over (movd writes the low 32 bits and
 * clears the rest, the u32 extension), then an i32 is sign-extended.
 * Loop bounds and counters of a run's counted loops take this path. */
static int widen_uniform(RkInstr *in)
{
    const RkType *from = type_of(in->args[0]);
    if (from->kind != RK_T_SCALAR || (from->elem != RK_E_I32 && from->elem != RK_E_U32))
        rk_diag_fatal(in->loc, "%s can't compile this yet: native stack run %s converts %s "
                               "to a 64-bit integer",
                      S->profile->name, S->nf->name, rk_ty_str(from));
    int d = gnew();
    ins(pick("movd", "vmovd", "vmovd"), 2, gw(d, 32), rk_mvx(rk_mv(S->vreg[in->args[0]])));
    if (from->elem == RK_E_U32)
        return d;
    int e = gnew();
    ins("movslq", 2, gw(e, 64), gr(d, 32));
    return e;
}

/* An i64 comparison, pending until a branch, select or cmov reads it; a
 * constant operand is the comparison's immediate (on the left, the
 * operands swap and so does the condition). */
static Flag int_flag(RkInstr *in)
{
    int a = in->args[0], b = in->args[1];
    bool sign = type_of(a)->elem == RK_E_I64;
    const char *cc = int_cc(in->opc, sign);
    if (R.is_imm[b])
        return (Flag){cc, S->vreg[a], -1, R.imm[b], 64};
    if (R.is_imm[a])
        return (Flag){int_cc(swapped_cmp(in->opc), sign), S->vreg[b], -1, R.imm[a], 64};
    return (Flag){cc, S->vreg[a], S->vreg[b], 0, 64};
}

static int gpr_op(RkInstr *in)
{
    int a = in->args[0], b = in->nargs > 1 ? in->args[1] : -1;
    switch (in->opc) {
    case RK_OP_U_ADD: return gbin("addq", a, b, true);
    case RK_OP_U_SUB: return gbin("subq", a, b, true);
    case RK_OP_U_AND: return gbin("andq", a, b, true);
    case RK_OP_U_OR: return gbin("orq", a, b, true);
    case RK_OP_U_MUL: return gbin("imulq", a, b, false); /* no imm in the 2-operand form */
    case RK_OP_COPY: return S->vreg[a];
    case RK_OP_U_CMP_EQ: case RK_OP_U_CMP_NE: case RK_OP_U_CMP_LT:
    case RK_OP_U_CMP_LE: case RK_OP_U_CMP_GT: case RK_OP_U_CMP_GE:
        R.flag[in->id] = int_flag(in);
        R.is_flag[in->id] = true;
        return -1;
    default:
        rk_diag_fatal(in->loc, "%s can't compile this yet: native stack run %s needs %s on "
                               "64-bit integers (counted loops and 64-bit index arithmetic "
                               "in runs are work in progress natively)",
                      S->profile->name, S->nf->name, in->op);
    }
}

static int run_instr(RkInstr *in)
{
    S->origin = in->op;
    S->nir = in->id;
    S->loc = in->loc;
    if (in->id >= 0 && R.g32[in->id])
        return g32_instr(in);
    if (in->id >= 0 && R.cond[in->id])
        return -1; /* a branch's cascade tests its parts */
    if (in->id >= 0 && R.flag32[in->id]) {
        R.flag[in->id] = flag32(in);
        R.is_flag[in->id] = true;
        return -1;
    }
    int *saved = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(in->nargs + 1));
    switch (in->opc) {
    case RK_OP_CONST:
        if (is_int64(in->type))
            return gconst(in->id, in->bits);
        if (in->type->kind == RK_T_SCALAR && (in->type->elem == RK_E_I32 ||
                                              in->type->elem == RK_E_U32)) {
            R.is_k32[in->id] = true; /* u.cvt makes it an immediate */
            R.k32[in->id] = in->type->elem == RK_E_I32 ? (int64_t)(int32_t)in->bits
                                                       : (int64_t)(uint32_t)in->bits;
        }
        break;
    case RK_OP_STACK_COUNT: {
        int d = gnew();
        ins("movq", 2, gw(d, 64),
            mem((Addr){S->vreg[in->args[0]], -1, 8, RK_STACK_COUNT_AT}, 0, 64, false));
        return d;
    }
    case RK_OP_STACK_COLUMN: {
        int d = gnew();
        Addr desc = {S->vreg[in->args[0]], -1, RK_STACK_COLUMN_BYTES, RK_STACK_COLUMNS_AT};
        ins("movq", 2, gw(d, 64), mem(desc, in->imm, 64, false));
        return d;
    }
    case RK_OP_STACK_SET_COUNT:
        ins("movq", 2, mem((Addr){S->vreg[in->args[0]], -1, 8, RK_STACK_COUNT_AT}, 0, 64, true),
            gr(S->vreg[in->args[1]], 64));
        return -1;
    case RK_OP_PTR_ADD: ptr_add(in); return -1;
    case RK_OP_RACK_LOAD: return run_load(in);
    case RK_OP_RACK_LOAD_MASKED: return load_masked(in);
    case RK_OP_RACK_STORE: store(in); return -1;
    case RK_OP_RACK_STORE_MASKED: store_masked(in); return -1;
    case RK_OP_RACK_COMPRESS_STORE: compress_store(in); return -1;
    case RK_OP_MASK_POPCOUNT: return popcount(in->args[0]);
    case RK_OP_MASK_LANES_BELOW: return lanes_below(S->vreg[in->args[0]]);
    case RK_OP_U_SELECT:
        if (is_int64(in->type))
            return gselect(in);
        break;
    case RK_OP_SLOW_CALL: {
        vector_args(in, saved);
        int d = select_slow_call(in);
        restore_args(in, saved);
        return d;
    }
    case RK_OP_U_CVT:
        if (is_int64(in->type) && R.is_wide[in->args[0]])
            return S->vreg[in->args[0]];
        if (is_int64(in->type) && R.is_k32[in->args[0]])
            return gconst(in->id, (uint64_t)R.k32[in->args[0]]);
        if (is_int64(in->type) && !int_args(in)) {
            int w = widen32(in);
            if (w >= 0)
                return w;
        }
        if (is_int64(in->type) && !int_args(in))
            return widen_uniform(in);
        break;
    case RK_OP_RACK_GATHER: not_in_runs(in, "a gather");
    case RK_OP_VIEW_PTR:
        return S->vreg[in->args[0]];
    case RK_OP_VIEW_COUNT:
        R.is_wide[in->id] = true;
        return S->view_count[in->args[0]];
    case RK_OP_ELEM_LOAD: return elem_load(in);
    case RK_OP_U_AND: case RK_OP_U_OR: case RK_OP_U_NOT:
        if (gpr_bool(in->args[0]))
            return gbool_op(in);
        /* fall through */ /* integers */
    default:
        if (int_args(in) || is_int64(in->type))
            return gpr_op(in);
        break;
    }
    for (int k = 0; k < in->nargs; k++)
        if (R.is_wide[in->args[k]])
            rk_diag_fatal(in->loc, "%s can't compile this yet: native run %s uses a view's "
                                   "count as a uniform, which is work in progress natively",
                          S->profile->name, S->nf->name);
    const RkOpInfo *info = rk_nir_op_info(in->opc);
    if (info && (info->flags & RK_OPF_CROSS) && !general_run())
        not_in_runs(in, rk_arena_printf(&rk_heap, "%s (a reduction, scan, extraction, "
                                                  "insertion or shuffle)",
                                        in->op));
    vector_args(in, saved);
    int d = select_instr(in);
    restore_args(in, saved);
    return d;
}

/* --- blocks and edges ------------------------------------------------------------ */

RkMReg value_reg(int id)
{
    const RkType *t = type_of(id);
    bool gpr = is_int64(t) || t->kind == RK_T_PTR || t->kind == RK_T_STACK;
    if (R.is_addr[id] || R.is_flag[id])
        rk_diag_internal("%s: an address or a comparison crosses a block edge", S->nf->name);
    return rk_mreg(gpr ? RK_RC_GPR : RK_RC_VEC, true, S->vreg[id]);
}

/* A conditional branch's pointer arguments (a loop's strength-reduced
 * pointers, stepped), formed in their registers before the branch rather
 * than in the edge's own block: that block is then only the allocator's
 * copies, which usually vanish, so the loop's back edge is the branch
 * itself.  Formed once per branching block (edge() looks them up). */
static void form_addresses(int here, RkTerm *t)
{
    RkEdge *edges[2] = {&t->to, &t->alt};
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < edges[e]->nargs; k++) {
            int id = edges[e]->args[k];
            if (R.is_addr[id] && R.formed_in[id] != here) {
                R.formed[id] = address_reg(id);
                R.formed_in[id] = here;
            }
        }
}

/* The machine block an edge reaches: the target's, or (when the edge
 * carries arguments from a branch) a block that jumps there with them. */
static int edge(RkEdge *e, bool from_branch)
{
    int to = R.nir2mir[e->block];
    if (!e->nargs && from_branch)
        return to;
    int from = S->mf->cur;
    int b = from;
    if (from_branch) {
        int cur = S->mf->cur;
        b = block("edge");
        S->mf->cur = cur;
    }
    set_jump(b, to);
    int cur = S->mf->cur;
    S->mf->cur = b;
    for (int k = 0; k < e->nargs; k++) {
        int id = e->args[k]; /* a pointer crossing the edge is formed in its register */
        RkMReg r = R.is_addr[id]               ? R.formed_in[id] == from ? greg(R.formed[id])
                                                                  : greg(address_reg(id))
                   : edge_value(id, e->block, k);
        rk_mir_jump_arg(term_of(b), r);
    }
    S->mf->cur = cur;
    return b;
}

/* A branch on a uniform Boolean (a bool parameter, an i32 or f32
 * comparison): it lives broadcast in a vector register as all-ones or
 * all-zero lanes (select.c), so lane 0 moves to a general register and
 * the branch tests it. */
static void branch_on_bool(int here, RkTerm *t)
{
    const RkType *ty = type_of(t->value);
    if (ty->kind != RK_T_SCALAR || ty->elem != RK_E_BOOL || R.is_addr[t->value])
        rk_diag_internal("%s: a branch on %s", S->nf->name, rk_ty_str(ty));
    int g = gnew();
    ins(pick("movd", "vmovd", "vmovd"), 2, gw(g, 32), rk_mvx(rk_mv(S->vreg[t->value])));
    int then = edge(&t->to, true), els = edge(&t->alt, true);
    set_branch(here, "nz", then, els);
    RkMTerm *m = term_of(here);
    m->on_reg = true;
    m->reg = gr(g, 32);
}

/* Terminators wait until every block exists (a branch may go forward). */
typedef struct Pending {
    int here;
    RkTerm *t;
    int *mids;         /* a cascade's blocks, created in order after here */
} Pending;

static void terminate(Pending p)
{
    RkTerm *t = p.t;
    S->origin = t->kind == RK_TERM_RET ? "result" : "branch";
    S->nir = -1;
    S->loc = t->loc;
    S->mf->cur = p.here;
    switch (t->kind) {
    case RK_TERM_RET:
        if (t->value >= 0)
            rk_diag_internal("%s: a stack run returns nothing", S->nf->name);
        term_of(p.here)->kind = RK_MT_RET;
        term_of(p.here)->loc = t->loc;
        return;
    case RK_TERM_BR:
        edge(&t->to, false);
        return;
    case RK_TERM_CBR: {
        form_addresses(p.here, t);
        if (R.cond[t->value]) {
            int then = edge(&t->to, true), els = edge(&t->alt, true), next = 0;
            cascade(t->value, p.here, then, els, p.mids, &next);
            return;
        }
        if (R.is_gbool[t->value]) {
            int then = edge(&t->to, true), els = edge(&t->alt, true);
            set_branch(p.here, "nz", then, els);
            term_of(p.here)->on_reg = true;
            term_of(p.here)->reg = gr(S->vreg[t->value], 32);
            return;
        }
        Flag f = R.is_flag[t->value] ? R.flag[t->value] : (Flag){NULL, 0, 0, 0, 0};
        if (!f.cc) {
            branch_on_bool(p.here, t);
            return;
        }
        compare(f);
        int then = edge(&t->to, true), els = edge(&t->alt, true);
        set_branch(p.here, f.cc, then, els);
        return;
    }
    case RK_TERM_TRAP:
        trap(p.here, t);
        return;
    }
}

static Pending select_block(RkBlock *nb)
{
    R.nb = nb;
    S->region = S->mf->cur;
    for (int k = 0; k < nb->nparams; k++) {
        int id = nb->params[k];
        S->type[id] = nb->ptypes[k];
        const RkType *t = nb->ptypes[k];
        bool gpr = is_int64(t) || t->kind == RK_T_PTR || R.g32[id];
        S->vreg[id] = gpr ? gparam(S->mf->cur) : vparam(S->mf->cur);
    }
    R.gen++; /* every memo is stale */
    forget_constants();
    for (int i = 0; i < nb->ninstrs; i++) {
        RkInstr *in = nb->instrs[i];
        if (in->id >= 0)
            S->type[in->id] = in->type;
        int v = deferred_load(in) ? -1 : run_instr(in);
        if (in->id >= 0)
            S->vreg[in->id] = v;
    }
    Pending p = {S->mf->cur, &nb->term, NULL};
    if (nb->term.kind == RK_TERM_CBR && R.cond[nb->term.value]) {
        int n = cond_blocks(nb->term.value);
        p.mids = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(n + 1));
        for (int k = 0; k < n; k++)
            p.mids[k] = block("cond");
    }
    return p;
}

/* Selects a stack run; main.c has already written the entry (arguments
 * and uniform broadcasts) into the first block. */
void select_run(RkFunc *nf, RkMFunc *mf)
{
    size_t n = (size_t)nf->nvalues + 1;
    R.addr = rk_arena_alloc(&rk_heap, sizeof *R.addr * n);
    R.is_addr = rk_arena_alloc(&rk_heap, sizeof *R.is_addr * n);
    R.flag = rk_arena_alloc(&rk_heap, sizeof *R.flag * n);
    R.is_flag = rk_arena_alloc(&rk_heap, sizeof *R.is_flag * n);
    R.memo = rk_arena_alloc(&rk_heap, sizeof *R.memo * n);
    R.memo_gen = rk_arena_alloc(&rk_heap, sizeof *R.memo_gen * n);
    memset(R.memo_gen, 0, sizeof *R.memo_gen * n);
    R.gen = 1;
    R.is_imm = rk_arena_alloc(&rk_heap, sizeof *R.is_imm * n);
    R.is_gbool = rk_arena_alloc(&rk_heap, sizeof *R.is_gbool * n);
    memset(R.is_gbool, 0, n);
    R.is_wide = rk_arena_alloc(&rk_heap, sizeof *R.is_wide * n);
    memset(R.is_wide, 0, n);
    R.is_k32 = rk_arena_alloc(&rk_heap, sizeof *R.is_k32 * n);
    memset(R.is_k32, 0, n);
    R.k32 = rk_arena_alloc(&rk_heap, sizeof *R.k32 * n);
    R.formed = rk_arena_alloc(&rk_heap, sizeof *R.formed * n);
    R.formed_in = rk_arena_alloc(&rk_heap, sizeof *R.formed_in * n);
    for (size_t i = 0; i < n; i++)
        R.formed_in[i] = -1;
    R.imm = rk_arena_alloc(&rk_heap, sizeof *R.imm * n);
    memset(R.is_imm, 0, n);
    memset(R.is_addr, 0, n);
    memset(R.is_flag, 0, n);
    plan_gpr32(nf);
    int maxid = 0;
    for (int b = 0; b < nf->nblocks; b++)
        maxid = nf->blocks[b]->id > maxid ? nf->blocks[b]->id : maxid;
    R.nir2mir = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)(maxid + 1));
    R.nlabels = 0;
    Pending *pend = rk_arena_alloc(&rk_heap, sizeof *pend * (size_t)nf->nblocks);
    /* one machine block per native-IR block, in order (the first is the
     * entry main.c wrote), each followed by the blocks its transfers need */
    for (int b = 0; b < nf->nblocks; b++) {
        RkBlock *nb = nf->blocks[b];
        R.nir2mir[nb->id] = b == 0 ? 0 : rk_mir_block(mf, rk_arena_printf(&rk_heap, "b%d", nb->id));
        pend[b] = select_block(nb);
    }
    for (int b = 0; b < nf->nblocks; b++)
        terminate(pend[b]);
}

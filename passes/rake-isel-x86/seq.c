/* seq.c: x86 instruction sequences for rack operations.
 *
 * One shared selector serves x86-sse2 (two-operand SSE2, every value
 * copied before a destructive operation), x86-avx2 (three-operand VEX)
 * and x86-avx512 (EVEX; masks kept as vectors of all-ones lanes and moved
 * through k1 only for an instruction that needs a k register).  Each
 * function here appends the instructions for one operation and returns
 * the virtual register of its result.  The sequences are those of
 * 00-backend.md's table: unsigned comparisons and extrema by XORing bit 31
 * on SSE2, u32 to f32 as two 16-bit halves, to_u32 by splitting the range
 * at 2^31, SSE2 rounding through conversions below 2^23, runtime shift
 * counts reduced modulo 32 by shifting their 64-bit word left and right
 * by 59, float min/max as comparison and selection. */
#include <string.h>

#include "arena.h"
#include "isel.h"

Sel *S;

int fresh(void) { return rk_mir_vreg(S->mf, RK_RC_VEC); }

RkMOp kdef(void)
{
    S->k = rk_mir_vreg(S->mf, RK_RC_MASK);
    return rk_mo_reg(rk_mreg(RK_RC_MASK, true, S->k), 0, true, false);
}

RkMOp kmasked(RkMOp o, bool zero) { return rk_mmask(o, rk_mreg(RK_RC_MASK, true, S->k), zero); }
int lanes(void) { return S->profile->lanes; }

const char *pick(const char *sse2, const char *avx2, const char *avx512)
{
    return S->level == SSE2 ? sse2 : S->level == AVX2 ? avx2 : avx512;
}

void ins(const char *op, int nops, ...)
{
    RkMInstr *in = rk_mir_add(S->mf, op, S->origin, S->nir);
    in->loc = S->loc;
    va_list ap;
    va_start(ap, nops);
    for (int i = 0; i < nops; i++)
        rk_mir_operand(in, va_arg(ap, RkMOp));
    va_end(ap);
}

static const char *MOV(void) { return pick("movaps", "vmovaps", "vmovaps"); }

/* What the sequences know about a vreg of the current function: it holds
 * a broadcast constant, or it is the complement of another vreg.  blend()
 * reads these to pick cheaper forms. */
typedef struct VFact {
    bool splat;
    uint32_t bits;
    int not_of; /* -1: none */
    int from_k; /* AVX-512: the k vreg this vector mask was made from, or -1 */
    int k_block; /* the MIR block from_k was written in */
    int one_of;  /* 1 where vector mask one_of holds, 0 elsewhere, or -1 */
    int flipped; /* this value with bit 31 of each lane flipped, made on entry, or -1 */
    int zero_out; /* 0 in every lane where vector mask zero_out doesn't hold, or -1 */
    /* the last blend of this value, bl_m ? v : bl_b, made in block
     * bl_block into vreg bl_d (-1: none) */
    int bl_m, bl_b, bl_block, bl_d;
} VFact;
static const VFact NO_FACT = {false, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
static VFact *vf;
static int nvf;
static const RkMFunc *vf_func;

static VFact *fact(int v)
{
    if (v < 0)
        rk_diag_internal("rake-isel-x86: a fact asked of no value (vreg %d)", v);
    if (vf_func != S->mf) {
        vf_func = S->mf;
        for (int i = 0; i < nvf; i++)
            vf[i] = NO_FACT;
    }
    if (v >= nvf) {
        int n = v + 64;
        VFact *g = rk_arena_alloc(&rk_heap, sizeof *g * (size_t)n);
        for (int i = 0; i < n; i++)
            g[i] = i < nvf ? vf[i] : NO_FACT;
        vf = g;
        nvf = n;
    }
    return &vf[v];
}

bool is_splat(int v) { return fact(v)->splat; }

bool splat_bits(int v, uint32_t *bits)
{
    *bits = fact(v)->bits;
    return fact(v)->splat;
}

static bool zero_splat(int v) { return fact(v)->splat && fact(v)->bits == 0; }

/* Each constant is loaded once per kernel, where it is first needed, and
 * every later use reads that register (sequences never write a constant's
 * register: their destructive operands are copies).  If registers run out,
 * rake-ra repeats the load instead. */
static int load_const(const char *op, int cidx)
{
    if (cidx >= S->nk) {
        int n = cidx + 16;
        int *k = rk_arena_alloc(&rk_heap, sizeof *k * (size_t)n);
        for (int i = 0; i < n; i++)
            k[i] = i < S->nk ? S->kvreg[i] : -1;
        S->kvreg = k;
        S->nk = n;
    }
    if (S->kvreg[cidx] < 0) {
        int d = fresh();
        ins(op, 2, rk_mvd(d), rk_mc(cidx));
        S->kvreg[cidx] = d;
    }
    return S->kvreg[cidx];
}

int konst_splat(uint32_t bits)
{
    int v;
    if (S->level == SSE2) {
        uint32_t w[4] = {bits, bits, bits, bits};
        v = load_const("movaps", rk_mir_const(S->mf, 16, w));
    } else {
        v = load_const("vbroadcastss", rk_mir_const(S->mf, 4, &bits));
    }
    fact(v)->splat = true;
    fact(v)->bits = bits;
    return v;
}

int konst_vector(const uint32_t *words)
{
    return load_const(pick("movaps", "vmovups", "vmovups"),
                      rk_mir_const(S->mf, lanes() * 4, words));
}

/* The low 32 bits of general vreg g in every lane: movd, then a
 * broadcast (SSE2: pshufd). */
int splat_gpr32(int g)
{
    int x = fresh(), b = fresh();
    ins(pick("movd", "vmovd", "vmovd"), 2, rk_mvx(rk_mvd(x)),
        rk_mo_reg(rk_mreg(RK_RC_GPR, true, g), 32, false, true));
    if (S->level == SSE2)
        ins("pshufd", 3, rk_mvd(b), rk_mv(x), rk_mi(0));
    else
        ins("vpbroadcastd", 2, rk_mvd(b), rk_mvx(rk_mv(x)));
    return b;
}

static void kload(uint32_t bits)
{
    ins("kmovw", 2, kdef(), rk_mc(rk_mir_const(S->mf, 2, &bits)));
}

int vmov(int a)
{
    int d = fresh();
    ins(MOV(), 2, rk_mvd(d), rk_mv(a));
    return d;
}

int vbin(const char *sse, const char *avx, const char *evex, int a, int b)
{
    if (S->level == SSE2) {
        int d = vmov(a);
        ins(sse, 2, rk_mvu(d), rk_mv(b));
        return d;
    }
    int d = fresh();
    ins(S->level == AVX2 ? avx : evex, 3, rk_mvd(d), rk_mv(a), rk_mv(b));
    return d;
}

int vlogic(char op, int a, int b)
{
    switch (op) {
    case '&': return vbin("andps", "vandps", "vpandd", a, b);
    case '|': return vbin("orps", "vorps", "vpord", a, b);
    case '^': return vbin("xorps", "vxorps", "vpxord", a, b);
    default: /* a & ~b: andnps inverts its first (destination) operand */
        return vbin("andnps", "vandnps", "vpandnd", b, a);
    }
}

int vnot(int a)
{
    if (fact(a)->not_of >= 0) /* ~~m is m (an else arm of an integer <=) */
        return fact(a)->not_of;
    int d = vlogic('^', a, konst_splat(0xffffffffu));
    fact(d)->not_of = a;
    return d;
}

/* AVX-512: a k1 mask as a vector of all-ones lanes (zero elsewhere). */
static int mask_from_k(void)
{
    int ones = konst_splat(0xffffffffu), d = fresh();
    ins("vmovaps", 2, kmasked(rk_mvd(d), true), rk_mv(ones));
    fact(d)->from_k = S->k;
    fact(d)->k_block = S->mf->cur;
    return d;
}

/* The k register of a vector mask: the one it was made from, if it was
 * (k vregs are written once), else vptestmd. */
void k_from_mask(int m)
{
    if (fact(m)->from_k >= 0) {
        S->k = fact(m)->from_k;
        return;
    }
    k_test(m);
}

/* vptestmd of vector mask m into a new k vreg (S->k), noted as m's */
int k_test(int m)
{
    ins("vptestmd", 3, kdef(), rk_mv(m), rk_mv(m));
    k_note(m, S->k);
    return S->k;
}

/* AVX-512: `a and b` or `a or b` (op '&' or '|') of two vector masks
 * whose k vregs this block wrote, as kandw or korw of those; the result
 * is made a vector too, which the dead-code sweep removes when only
 * masked instructions read it (through k_from_mask).  A run's tail
 * under a tine stores under `tail & tine`: one kandw where the vectors
 * took two vmovaps, a vpandd and a vptestmd.  -1 where a k vreg is
 * missing (the caller combines the vectors). */
int k_logic(char op, int a, int b)
{
    int ka = S->level == AVX512 ? k_in_block(a) : -1, kb = ka >= 0 ? k_in_block(b) : -1;
    if (kb < 0)
        return -1;
    RkMOp kd = kdef();
    ins(op == '&' ? K_AND : "korw", 3, kd, rk_mo_reg(rk_mreg(RK_RC_MASK, true, ka), 0, false, true),
        rk_mo_reg(rk_mreg(RK_RC_MASK, true, kb), 0, false, true));
    return mask_from_k();
}

/* The k vreg vector mask m was made from or tested into in the current
 * block, or -1: a run keeps k vregs within a block. */
int k_in_block(int m)
{
    return fact(m)->k_block == S->mf->cur ? fact(m)->from_k : -1;
}

/* Vreg v is 0 in every lane where vector mask m doesn't hold (a load
 * under m: vmaskmovps, or EVEX zero-masking), so m ? v : 0 is v. */
void note_zero_out(int v, int m) { fact(v)->zero_out = m; }

int zero_outside(int v) { return fact(v)->zero_out; }

/* d, computed lane by lane by an operation that gives +0 from +0
 * (RK_OPF_ZERO), from the n racks src: 0 where vector mask m doesn't
 * hold if each source is (or is 0 everywhere).  A tail's arithmetic on
 * its masked loads is 0 outside the tail's mask, and needs no sanitising
 * select there. */
void note_zero_through(int d, const int *src, int n)
{
    int m = -1;
    for (int i = 0; i < n; i++) {
        if (src[i] < 0)
            return; /* a benign select read raw (select.c raw_operands): not made */
        if (zero_splat(src[i]))
            continue;
        int z = fact(src[i])->zero_out;
        if (z < 0 || (m >= 0 && z != m))
            return;
        m = z;
    }
    if (m >= 0 && !fact(d)->splat)
        fact(d)->zero_out = m;
}

/* The k vreg vector mask m was last made from or tested into (in any
 * block), or -1: a k vreg is written once, so it holds m's lanes. */
int k_noted(int m) { return m >= 0 ? fact(m)->from_k : -1; }

void k_note(int m, int k)
{
    fact(m)->from_k = k;
    fact(m)->k_block = S->mf->cur;
}

/* The vector mask whose lanes v is 1 in and 0 elsewhere (a blend of 1
 * and 0), or -1: x + v is x - mask, and x - v is x + mask. */
int ones_of_mask(int v) { return fact(v)->one_of; }

/* x + (m ? 1 : 0) and x - (m ? 1 : 0) where m came from a k register:
 * AVX-512 adds or subtracts 1 under the k mask, merging (lanes outside
 * it keep x), so the zero-masked move of the 1s goes. */
int merge_count(char op, int x, int m)
{
    int d = vmov(x);
    S->k = fact(m)->from_k;
    ins(op == '+' ? "vpaddd" : "vpsubd", 3, kmasked(rk_mvu(d), false), rk_mv(d),
        rk_mv(konst_splat(1)));
    return d;
}

static int blend_lanes(int m, int a, int b)
{
    if (zero_splat(b)) {
        int d;
        if (S->level == AVX512 && fact(m)->from_k >= 0) { /* a zero-masking move */
            d = fresh();
            S->k = fact(m)->from_k;
            ins("vmovaps", 2, kmasked(rk_mvd(d), true), rk_mv(a));
        } else {
            d = vlogic('&', m, a);
        }
        if (fact(a)->splat && fact(a)->bits == 1)
            fact(d)->one_of = m;
        return d;
    }
    if (zero_splat(a))
        return vlogic('n', b, m); /* b & ~m */
    if (S->level == SSE2) { /* b ^ ((a ^ b) & m): m and b stay */
        int d = vmov(a);
        ins("xorps", 2, rk_mvu(d), rk_mv(b));
        ins("andps", 2, rk_mvu(d), rk_mv(m));
        ins("xorps", 2, rk_mvu(d), rk_mv(b));
        return d;
    }
    int d = fresh();
    if (S->level == AVX2) {
        ins("vblendvps", 4, rk_mvd(d), rk_mv(b), rk_mv(a), rk_mv(m));
        return d;
    }
    k_from_mask(m);
    ins(BLEND_K, 3, kmasked(rk_mvd(d), false), rk_mv(b), rk_mv(a));
    return d;
}

/* The same vreg, or broadcasts of the same constant (a run loads its
 * constants again in each block). */
static bool same_value(int a, int b)
{
    return a == b || (fact(a)->splat && fact(b)->splat && fact(a)->bits == fact(b)->bits);
}

/* Whether block `to` is reached from the region's first block on the
 * edges made so far without passing block `skip` (-1: none). */
static bool reaches(int to, int skip)
{
    const RkMFunc *f = S->mf;
    bool *seen = rk_arena_alloc(&rk_heap, sizeof(bool) * (size_t)f->nblocks);
    int *todo = rk_arena_alloc(&rk_heap, sizeof(int) * (size_t)f->nblocks);
    memset(seen, 0, sizeof(bool) * (size_t)f->nblocks);
    int n = 0;
    todo[n++] = S->region;
    seen[S->region] = true;
    while (n > 0) {
        int b = todo[--n];
        if (b == to)
            return true;
        const RkMTerm *t = &f->blocks[b]->term;
        for (int k = 0; k < rk_mir_nsuccs(t); k++) {
            int s = rk_mir_succ(t, k);
            if (s > S->region && s < f->nblocks && s != skip && !seen[s]) {
                seen[s] = true;
                todo[n++] = s;
            }
        }
    }
    return false;
}

/* Whether block a, made while selecting the current native-IR block,
 * dominates the current block.  Within a run's native-IR block every
 * machine block made since its first is reached through that first one,
 * by edges among themselves; a branch still to be set (a compaction's
 * empty-rack test) leaves its region unreached, so nothing is shared
 * into it. */
static bool dominates_here(int a)
{
    int b = S->mf->cur;
    if (a == b)
        return true;
    if (S->region < 0 || a < S->region)
        return false;
    return reaches(b, -1) && (a == S->region || !reaches(b, a));
}

int blend(int m, int a, int b)
{
    if (fact(m)->not_of >= 0) { /* ~m ? a : b  is  m ? b : a */
        int t = a;
        m = fact(m)->not_of;
        a = b;
        b = t;
    }
    if (a == b)
        return a;
    /* b is 0 outside m, so the blend is too; if a is as well (a masked
     * load under m, or computed from such), m ? a : b is a */
    bool zero_b = zero_splat(b) || fact(b)->zero_out == m;
    if (zero_b && fact(a)->zero_out == m)
        return a;
    /* the same blend again in a block its first one dominates (a uniform
     * sanitised for each fused region of a tail, SSE2's lane-by-lane
     * loads between them): its earlier result.  Not on AVX-512, where
     * maskfuse.c folds each sanitising blend into the masked operation
     * reading it, one reader each. */
    const VFact *fa = fact(a);
    if (S->level != AVX512 && fa->bl_d >= 0 && fa->bl_m == m && same_value(fa->bl_b, b) &&
        dominates_here(fa->bl_block))
        return fa->bl_d;
    int d = blend_lanes(m, a, b);
    if (zero_b && !fact(d)->splat)
        fact(d)->zero_out = m;
    VFact *f = fact(a);
    f->bl_m = m, f->bl_b = b, f->bl_block = S->mf->cur, f->bl_d = d;
    return d;
}

/* --- comparisons ---------------------------------------------------------------- */

static int sse_cmpps(int imm, int a, int b)
{
    int d = vmov(a);
    ins("cmpps", 3, rk_mvu(d), rk_mv(b), rk_mi(imm));
    return d;
}

/* a broadcast constant that isn't a NaN */
static bool not_nan_splat(int v)
{
    uint32_t x = fact(v)->bits;
    return fact(v)->splat && !((x & 0x7f800000u) == 0x7f800000u && (x & 0x007fffffu));
}

static int vcmpps(int imm, int a, int b)
{
    if (S->level == AVX2) {
        int d = fresh();
        ins("vcmpps", 4, rk_mvd(d), rk_mv(a), rk_mv(b), rk_mi(imm));
        return d;
    }
    ins("vcmpps", 4, kdef(), rk_mv(a), rk_mv(b), rk_mi(imm));
    return mask_from_k();
}

/* The float predicates, and each one's AVX immediate (quiet: OQ, or
 * unordered for ne). */
static const char *FPRED[] = {"eq", "lt", "le", "gt", "ge", "ne", "unord", "ord"};
static const int FPRED_AVX[] = {0x00, 0x11, 0x12, 0x1e, 0x1d, 0x0c, 0x03, 0x07};

static int fpred(const char *pred)
{
    int p = 0;
    while (strcmp(FPRED[p], pred))
        p++;
    return p;
}

int fcmp(const char *pred, int a, int b)
{
    int p = fpred(pred);
    if (S->level == SSE2) {
        if (p >= 1 && p <= 4) {
            /* SSE2's ordered predicates (LT_OS, LE_OS) signal on a quiet
             * NaN; the spec allows invalid-operation only for a signalling
             * one.  Compare ordered first (quiet), zero the unordered lanes
             * of both operands (a constant that isn't NaN stays as it is),
             * compare those, keep the ordered lanes.  A strict comparison
             * (lt, gt) of two zeroed operands is already false where both
             * are +0.0, so it needs no last and. */
            int ord = sse_cmpps(7, a, b);
            bool ka = not_nan_splat(a), kb = not_nan_splat(b);
            int a0 = ka ? a : vlogic('&', a, ord), b0 = kb ? b : vlogic('&', b, ord);
            /* no NaN is left, so a > b is not(a <= b) (NLE) and a >= b
             * is not(a < b) (NLT): the second operand stays the source
             * (a constant as its memory operand) */
            static const int imm[] = {0, 1, 2, 6, 5};
            int r = sse_cmpps(imm[p], a0, b0);
            return (p == 1 || p == 3) && !ka && !kb ? r : vlogic('&', r, ord);
        }
        switch (p) {
        case 0: return sse_cmpps(0, a, b);
        case 5: return vlogic('&', sse_cmpps(4, a, b), sse_cmpps(7, a, b));
        case 6: return sse_cmpps(3, a, b);
        default: return sse_cmpps(7, a, b);
        }
    }
    return vcmpps(FPRED_AVX[p], a, b);
}

/* The complement of fcmp(pred, a, b) in one comparison (AVX2, AVX-512):
 * an AVX predicate with bit 2 flipped is its negation with the same
 * signalling (GT_OQ 0x1e and NGT_UQ 0x1a: true on a NaN). */
int fcmp_not(const char *pred, int a, int b) { return vcmpps(FPRED_AVX[fpred(pred)] ^ 4, a, b); }

/* A comparison whose operands are never NaN (sanitised, or constants):
 * SSE2's signalling predicates can't raise, so the direct form does. */
static int fcmp_num(const char *pred, int a, int b)
{
    if (S->level != SSE2)
        return fcmp(pred, a, b);
    if (!strcmp(pred, "lt"))
        return sse_cmpps(1, a, b);
    if (!strcmp(pred, "le"))
        return sse_cmpps(2, a, b);
    return fcmp(pred, a, b);
}

/* v with bit 31 of each lane flipped: a constant's flipped constant, an
 * unsigned uniform's flipped broadcast (made on entry, outside every
 * loop: note_flipped), else an xor here. */
static int flip_sign(int v)
{
    if (fact(v)->splat)
        return konst_splat(fact(v)->bits ^ 0x80000000u);
    if (fact(v)->flipped >= 0)
        return fact(v)->flipped;
    return vlogic('^', v, konst_splat(0x80000000u));
}

/* A run's u32 uniform's broadcast v, on entry: SSE2 and AVX2 compare
 * unsigned lanes as signed ones with bit 31 flipped, so its flipped
 * broadcast is made once, here, rather than in each iteration of a loop
 * comparing it (unused, it is pruned).  Not for kernels, which have no
 * loop: there it would only live longer. */
void note_flipped(int v)
{
    if (S->level != AVX512)
        fact(v)->flipped = flip_sign(v);
}

/* AVX-512's integer predicates and their vpcmpd/vpcmpud immediates; bit 2
 * flipped is the complement (NE, NLT, NLE). */
static const char *IPRED[] = {"eq", "lt", "le", "ne", "ge", "gt"};
static const int IPRED_IMM[] = {0, 1, 2, 4, 5, 6};

static int vpcmp(const char *pred, int flip, bool sign, int a, int b)
{
    int p = 0;
    while (strcmp(IPRED[p], pred))
        p++;
    ins(sign ? "vpcmpd" : "vpcmpud", 4, kdef(), rk_mv(a), rk_mv(b), rk_mi(IPRED_IMM[p] ^ flip));
    return mask_from_k();
}

/* The complement of icmp(pred, sign, a, b) in one comparison (AVX-512). */
int icmp_not(const char *pred, bool sign, int a, int b) { return vpcmp(pred, 4, sign, a, b); }

int icmp(const char *pred, bool sign, int a, int b)
{
    if (S->level == AVX512)
        return vpcmp(pred, 0, sign, a, b);
    bool eq = !strcmp(pred, "eq") || !strcmp(pred, "ne");
    if (!sign && !eq) { /* unsigned order: flip bit 31 of copies, compare signed */
        a = flip_sign(a);
        b = flip_sign(b);
    }
    if (eq) {
        int d = vbin("pcmpeqd", "vpcmpeqd", "", a, b);
        return pred[0] == 'n' ? vnot(d) : d;
    }
    if (!strcmp(pred, "gt"))
        return vbin("pcmpgtd", "vpcmpgtd", "", a, b);
    if (!strcmp(pred, "lt"))
        return vbin("pcmpgtd", "vpcmpgtd", "", b, a);
    if (!strcmp(pred, "le"))
        return vnot(vbin("pcmpgtd", "vpcmpgtd", "", a, b));
    return vnot(vbin("pcmpgtd", "vpcmpgtd", "", b, a)); /* ge */
}

/* --- arithmetic --------------------------------------------------------------------- */

/* IEEE minimum/maximum: min(a,b) | min(b,a) gives -0 for mixed zeros (for
 * max, & gives +0).  minps and maxps signal on any NaN, so the unordered
 * lanes (found by a quiet compare, which signals only for a signalling
 * NaN) are zeroed first.  Those lanes then become a quiet NaN: the
 * canonical 0x7fc00000 where `canonical` (reductions and scans, 10-gap-
 * notes.md) and on AVX-512 (one move under the comparison's k); else the
 * all-ones quiet NaN the unordered mask is, or-ed in: one instruction and
 * no constant (lane-wise min and max leave the payload unspecified,
 * page 02, docs/x86.md). */
int fminmax(bool max, bool canonical, int a, int b)
{
    const char *s = max ? "maxps" : "minps", *v = max ? "vmaxps" : "vminps";
    int u = fcmp("unord", a, b);
    int a0 = vlogic('n', a, u), b0 = vlogic('n', b, u);
    int t1 = vbin(s, v, v, a0, b0);
    int t2 = vbin(s, v, v, b0, a0);
    int r = vlogic(max ? '&' : '|', t1, t2);
    if (!canonical && S->level != AVX512)
        return vlogic('|', r, u);
    return blend(u, konst_splat(0x7fc00000u), r);
}

int iminmax(bool max, bool sign, int a, int b)
{
    if (S->level != SSE2) {
        const char *op = max ? (sign ? "vpmaxsd" : "vpmaxud") : (sign ? "vpminsd" : "vpminud");
        int d = fresh();
        ins(op, 3, rk_mvd(d), rk_mv(a), rk_mv(b));
        return d;
    }
    int gt = icmp("gt", sign, a, b);
    return max ? blend(gt, a, b) : blend(gt, b, a);
}

/* SSE2: pmuludq on the even lanes and on the odd lanes, then interleave. */
int imul(int a, int b)
{
    if (S->level != SSE2)
        return vbin("", "vpmulld", "vpmulld", a, b);
    int even = vmov(a);
    ins("pmuludq", 2, rk_mvu(even), rk_mv(b));
    int ao = fresh(), bo = fresh();
    ins("pshufd", 3, rk_mvd(ao), rk_mv(a), rk_mi(0xf5));
    ins("pshufd", 3, rk_mvd(bo), rk_mv(b), rk_mi(0xf5));
    ins("pmuludq", 2, rk_mvu(ao), rk_mv(bo));
    int lo = fresh(), hi = fresh();
    ins("pshufd", 3, rk_mvd(lo), rk_mv(even), rk_mi(0x08));
    ins("pshufd", 3, rk_mvd(hi), rk_mv(ao), rk_mi(0x08));
    ins("punpckldq", 2, rk_mvu(lo), rk_mv(hi));
    return lo;
}

int ineg(int a) { return vbin("psubd", "vpsubd", "vpsubd", konst_splat(0), a); }

int iabs(int a)
{
    if (S->level != SSE2) {
        int d = fresh();
        ins("vpabsd", 2, rk_mvd(d), rk_mv(a));
        return d;
    }
    int sign = shift_imm('s', a, 31);
    int x = vlogic('^', a, sign);
    return vbin("psubd", "", "", x, sign);
}

static const char *shift_op(char kind)
{
    if (kind == 'l')
        return pick("pslld", "vpslld", "vpslld");
    if (kind == 'r')
        return pick("psrld", "vpsrld", "vpsrld");
    return pick("psrad", "vpsrad", "vpsrad");
}

int shift_imm(char kind, int a, int count)
{
    int d;
    if (S->level == SSE2) {
        d = vmov(a);
        ins(shift_op(kind), 2, rk_mvu(d), rk_mi(count));
    } else {
        d = fresh();
        ins(shift_op(kind), 3, rk_mvd(d), rk_mv(a), rk_mi(count));
    }
    return d;
}

/* The count, broadcast in every lane, is reduced modulo 32 in its low
 * 64-bit word (left, then right, by 59) and used as the shift count. */
int shift_var(char kind, int a, int count)
{
    int t;
    if (S->level == SSE2) {
        t = vmov(count);
        ins("psllq", 2, rk_mvu(t), rk_mi(59));
        ins("psrlq", 2, rk_mvu(t), rk_mi(59));
        int d = vmov(a);
        ins(shift_op(kind), 2, rk_mvu(d), rk_mv(t));
        return d;
    }
    int t1 = fresh(), t2 = fresh(), d = fresh();
    ins("vpsllq", 3, rk_mvd(t1), rk_mv(count), rk_mi(59));
    ins("vpsrlq", 3, rk_mvd(t2), rk_mv(t1), rk_mi(59));
    ins(shift_op(kind), 3, rk_mvd(d), rk_mv(a), rk_mvx(rk_mv(t2)));
    return d;
}

int fma3(int a, int b, int c)
{
    int d = vmov(c);
    ins("vfmadd231ps", 3, rk_mvu(d), rk_mv(a), rk_mv(b));
    S->mf->fmas++;
    return d;
}

/* --- conversions --------------------------------------------------------------------- */

static int unop(const char *sse, const char *avx, const char *evex, int a)
{
    int d = fresh();
    ins(pick(sse, avx, evex), 2, rk_mvd(d), rk_mv(a));
    return d;
}

/* u32 to f32 without AVX-512: the two 16-bit halves convert exactly;
 * high * 65536 is exact; the final add is the only rounding. */
int cvt_to_f32(bool sign, int a)
{
    if (sign)
        return unop("cvtdq2ps", "vcvtdq2ps", "vcvtdq2ps", a);
    if (S->level == AVX512)
        return unop("", "", "vcvtudq2ps", a);
    int lo = vlogic('&', a, konst_splat(0xffff));
    int hi = shift_imm('r', a, 16);
    int flo = unop("cvtdq2ps", "vcvtdq2ps", "", lo);
    int fhi = unop("cvtdq2ps", "vcvtdq2ps", "", hi);
    int scaled = vbin("mulps", "vmulps", "", fhi, konst_splat(0x47800000u)); /* 65536.0 */
    return vbin("addps", "vaddps", "", scaled, flo);
}

/* to_i32: zero the NaN lanes (found by a quiet compare, so a quiet NaN
 * raises nothing), convert (nearest even), and restore the upper saturated
 * endpoint (the lower one is what the conversion gives). */
int cvt_to_i32(int a)
{
    int two31 = konst_splat(0x4f000000u);
    if (S->level == AVX512) {
        int z = fresh(), d;
        ins("vcmpps", 4, kdef(), rk_mv(a), rk_mv(a), rk_mi(0x07));
        ins("vmovaps", 2, kmasked(rk_mvd(z), true), rk_mv(a));
        int r = unop("", "", "vcvtps2dq", z);
        int top = konst_splat(0x7fffffffu);
        ins("vcmpps", 4, kdef(), rk_mv(a), rk_mv(two31), rk_mi(0x1d));
        d = vmov(r);
        ins("vmovaps", 2, kmasked(rk_mvu(d), false), rk_mv(top));
        return d;
    }
    int ord = fcmp("ord", a, a);
    int num = vlogic('&', a, ord);
    int r = unop("cvtps2dq", "vcvtps2dq", "", num);
    int big = fcmp_num("le", two31, num);
    return blend(big, konst_splat(0x7fffffffu), r);
}

/* to_u32: zero NaNs and values not above 0, subtract 2^31 from the upper
 * half (exact), convert as signed, restore the high bit with an XOR, and
 * saturate values from 2^32 up.  AVX-512 uses the same sequence rather
 * than vcvtps2udq, which Capstone 4.0.2 can't decode for the verifier. */
int cvt_to_u32(int a)
{
    int zero = konst_splat(0);
    int x = vlogic('&', a, fcmp("gt", a, zero));
    int two31 = konst_splat(0x4f000000u);
    int hi = fcmp_num("le", two31, x);
    int x2 = vbin("subps", "vsubps", "vsubps", x, vlogic('&', hi, two31));
    int r = unop("cvtps2dq", "vcvtps2dq", "vcvtps2dq", x2);
    r = vlogic('^', r, vlogic('&', hi, konst_splat(0x80000000u)));
    int sat = fcmp_num("le", konst_splat(0x4f800000u), x);
    return vlogic('|', r, sat);
}

/* SSE2 has no rounding instruction: lanes below 2^23 in magnitude go
 * through a conversion (adjusted for floor and ceil), keep the input's
 * sign, and the others pass through x + 0 (which quiets NaNs).  AVX-512
 * does the same in zmm registers: Capstone 4.0.2, which the object
 * verifier uses, can't decode vrndscaleps. */
int fround(char mode, int a)
{
    int imm = mode == 'n' ? 8 : mode == 'f' ? 9 : mode == 'c' ? 10 : 11;
    if (S->level == AVX2) {
        int d = fresh();
        ins("vroundps", 3, rk_mvd(d), rk_mv(a), rk_mi(imm));
        return d;
    }
    int mag = vlogic('&', a, konst_splat(0x7fffffffu));
    /* |a| < 2^23 as integers: non-negative floats order as their bits, and
     * a NaN's bits are above 2^23's, so no floating-point compare is needed */
    int small = icmp("lt", true, mag, konst_splat(0x4b000000u));
    /* only the small lanes are converted: a NaN or a large value would
     * raise invalid-operation in the conversion */
    int as = vlogic('&', a, small);
    int i = mode == 'n' ? unop("cvtps2dq", "", "vcvtps2dq", as)
                        : unop("cvttps2dq", "", "vcvttps2dq", as);
    int f = unop("cvtdq2ps", "", "vcvtdq2ps", i);
    if (mode == 'f' || mode == 'c') {
        int adj = mode == 'f' ? fcmp_num("lt", as, f) : fcmp_num("lt", f, as);
        int one = vlogic('&', adj, konst_splat(0x3f800000u));
        f = mode == 'f' ? vbin("subps", "", "vsubps", f, one) : vbin("addps", "", "vaddps", f, one);
    }
    f = vlogic('|', f, vlogic('&', a, konst_splat(0x80000000u)));
    int keep = vbin("addps", "", "vaddps", a, konst_splat(0));
    return blend(small, f, keep);
}

/* --- lanes -------------------------------------------------------------------------- */

/* Lane k broadcast, reading a's 128-bit chunks duplicated across the
 * register (chunk[c] >= 0 once made): a reduction visits every lane, so it
 * duplicates each chunk once and then shuffles within it (AVX2: 2 + 8
 * shuffles instead of 16; AVX-512: 4 + 16 instead of 16 index loads and
 * 16 permutes). */
static int lane_from_chunks(int a, int *chunk, int k)
{
    if (S->level == SSE2)
        return bcast_lane(a, k);
    int c = k / 4;
    if (chunk[c] < 0) {
        chunk[c] = fresh();
        if (S->level == AVX2) {
            ins("vperm2f128", 4, rk_mvd(chunk[c]), rk_mv(a), rk_mv(a), rk_mi(c | c << 4));
        } else {
            uint32_t idx[16];
            for (int i = 0; i < 16; i++)
                idx[i] = (uint32_t)(4 * c + i % 4);
            ins("vpermps", 3, rk_mvd(chunk[c]), rk_mv(konst_vector(idx)), rk_mv(a));
        }
    }
    int d = fresh();
    ins("vpermilps", 3, rk_mvd(d), rk_mv(chunk[c]), rk_mi((k % 4) * 0x55));
    return d;
}

int bcast_lane(int a, int k)
{
    if (S->level == AVX2) { /* vperm2f128, then vpermilps within the half */
        int chunk[4] = {-1, -1, -1, -1};
        return lane_from_chunks(a, chunk, k);
    }
    int d = fresh();
    if (S->level == SSE2) {
        ins("pshufd", 3, rk_mvd(d), rk_mv(a), rk_mi(k * 0x55));
        return d;
    }
    /* AVX-512: vshuff32x4 would do, but Capstone 4 can't read it */
    uint32_t idx[16];
    for (int i = 0; i < 16; i++)
        idx[i] = (uint32_t)k;
    ins("vpermps", 3, rk_mvd(d), rk_mv(konst_vector(idx)), rk_mv(a));
    return d;
}

static int lane_mask(uint32_t bits)
{
    uint32_t w[16] = {0};
    for (int i = 0; i < lanes(); i++)
        w[i] = (bits >> i) & 1 ? 0xffffffffu : 0;
    return konst_vector(w);
}

int insert_lane(int a, int k, int u)
{
    if (S->level == SSE2)
        return blend(lane_mask(1u << k), u, a);
    if (S->level == AVX2) {
        int d = fresh();
        ins("vblendps", 4, rk_mvd(d), rk_mv(a), rk_mv(u), rk_mi(1 << k));
        return d;
    }
    kload(1u << k);
    int d = vmov(a);
    ins("vmovaps", 2, kmasked(rk_mvu(d), false), rk_mv(u));
    return d;
}

static int permute(int a, const int *idx)
{
    uint32_t w[16];
    for (int i = 0; i < lanes(); i++)
        w[i] = (uint32_t)idx[i];
    int v = konst_vector(w), d = fresh();
    ins("vpermps", 3, rk_mvd(d), rk_mv(v), rk_mv(a));
    return d;
}

int shuffle(int a, int b, const int *idx, int n)
{
    int ia[16], ib[16];
    uint32_t from_a = 0;
    for (int i = 0; i < n; i++) {
        bool left = idx[i] < n;
        ia[i] = left ? idx[i] : 0;
        ib[i] = left ? 0 : idx[i] - n;
        from_a |= (uint32_t)left << i;
    }
    if (S->level == SSE2) {
        int ima = ia[0] | ia[1] << 2 | ia[2] << 4 | ia[3] << 6;
        int imb = ib[0] | ib[1] << 2 | ib[2] << 4 | ib[3] << 6;
        int pa = fresh();
        ins("pshufd", 3, rk_mvd(pa), rk_mv(a), rk_mi(ima));
        if (b < 0 || from_a == (1u << n) - 1)
            return pa;
        int pb = fresh();
        ins("pshufd", 3, rk_mvd(pb), rk_mv(b), rk_mi(imb));
        return blend(lane_mask(from_a), pa, pb);
    }
    int pa = permute(a, ia);
    if (b < 0 || from_a == (1u << n) - 1)
        return pa;
    int pb = permute(b, ib), d = fresh();
    if (S->level == AVX2) {
        ins("vblendps", 4, rk_mvd(d), rk_mv(pb), rk_mv(pa), rk_mi(from_a));
        return d;
    }
    kload(from_a);
    ins(BLEND_K, 3, kmasked(rk_mvd(d), false), rk_mv(pb), rk_mv(pa));
    return d;
}

/* One step of a fold: acc combined with x as `op` (one of RK_FOLD_*). */
static int step(int op, RkElem e, int acc, int x)
{
    if (e == RK_E_F32) {
        if (op == RK_FOLD_SUM)
            return vbin("addps", "vaddps", "vaddps", acc, x);
        if (op == RK_FOLD_PRODUCT)
            return vbin("mulps", "vmulps", "vmulps", acc, x);
        return fminmax(op == RK_FOLD_MAX, true, acc, x);
    }
    if (op == RK_FOLD_SUM)
        return vbin("paddd", "vpaddd", "vpaddd", acc, x);
    if (op == RK_FOLD_PRODUCT)
        return imul(acc, x);
    return iminmax(op == RK_FOLD_MAX, e == RK_E_I32, acc, x);
}

/* How a tree of lanes combines: a mask's AND or OR, or a fold's step. */
typedef struct Combine {
    char logic;   /* '&' or '|' for a mask, 0 for step(op, e) */
    int op;
    RkElem e;
} Combine;

static int combine(Combine c, int a, int b)
{
    return c.logic ? vlogic(c.logic, a, b) : step(c.op, c.e, a, b);
}

/* Every lane combined into every lane: the halves swapped and combined,
 * then the quarters, ... (vperm2f128 or two vpermps, then two pshufd). */
static int lanes_tree(int m, Combine c)
{
    int t;
    if (S->level == AVX2) {
        t = fresh();
        ins("vperm2f128", 4, rk_mvd(t), rk_mv(m), rk_mv(m), rk_mi(0x01));
        m = combine(c, m, t);
    } else if (S->level == AVX512) { /* swap 256-bit, then 128-bit, halves */
        static const uint32_t swap[2][16] = {
            {8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7},
            {4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11}};
        for (int i = 0; i < 2; i++) {
            t = fresh();
            ins("vpermps", 3, rk_mvd(t), rk_mv(konst_vector(swap[i])), rk_mv(m));
            m = combine(c, m, t);
        }
    }
    static const int lanes_imm[] = {0x4e, 0xb1};
    for (int i = 0; i < 2; i++) {
        t = fresh();
        ins(pick("pshufd", "vpshufd", "vpshufd"), 3, rk_mvd(t), rk_mv(m), rk_mi(lanes_imm[i]));
        m = combine(c, m, t);
    }
    return m;
}

/* AVX-512's f32 fold: lane k of a comes to lane 0 with `valignd $k`
 * (a rotation by k lanes; no index constant, where a chunk duplication
 * takes a vpermps with one), zero-masked so that lanes 1-15 hold 0 and
 * compute 0 op 0, which raises nothing: only lane 0 folds, strictly in
 * lane order as the gap notes require, and is broadcast at the end (a
 * uniform lives in every lane; vpermps with index 0, since the verifier
 * rejects reading a rack's xmm part).  16 + 15 instructions and three for
 * the k mask and the broadcast, against 4 + 16 + 15 and four index loads. */
static int reduce_rotated(int op, RkElem e, int a)
{
    kload(1);
    int k0 = S->k, acc = fresh();
    ins("vmovaps", 2, kmasked(rk_mvd(acc), true), rk_mv(a));
    for (int i = 1; i < lanes(); i++) {
        int t = fresh();
        S->k = k0;
        ins("valignd", 4, kmasked(rk_mvd(t), true), rk_mv(a), rk_mv(a), rk_mi(i));
        acc = step(op, e, acc, t);
    }
    int d = fresh(); /* lane 0 everywhere, reading the whole register */
    ins("vpermps", 3, rk_mvd(d), rk_mv(konst_splat(0)), rk_mv(acc));
    return d;
}

/* A fold.  Integer sums and products wrap, and min and max are exact:
 * all four are associative and commutative, so a tree of lanes gives the
 * left fold's value (in every lane, as a uniform lives) in log2(lanes)
 * steps.  An f32 fold is strictly sequential from lane 0 (gap notes 4),
 * and a scan keeps each prefix. */
int reduce(int op, RkElem e, int a, bool scan)
{
    if (!scan && e != RK_E_F32)
        return lanes_tree(a, (Combine){0, op, e});
    if (!scan && S->level == AVX512)
        return reduce_rotated(op, e, a);
    int chunk[4] = {-1, -1, -1, -1};
    int acc = lane_from_chunks(a, chunk, 0), r = a;
    for (int i = 1; i < lanes(); i++) {
        acc = step(op, e, acc, lane_from_chunks(a, chunk, i));
        if (scan)
            r = insert_lane(r, i, acc);
    }
    return scan ? r : acc;
}

/* Combine every lane into every lane with permutations and AND or OR. */
int mask_fold(bool and, int m)
{
    return lanes_tree(m, (Combine){and ? '&' : '|', 0, RK_E_F32});
}

int bitmask(int m)
{
    uint32_t w[16];
    for (int i = 0; i < lanes(); i++)
        w[i] = 1u << i;
    return mask_fold(false, vlogic('&', m, konst_vector(w)));
}

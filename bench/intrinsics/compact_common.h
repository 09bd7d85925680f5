/* The compaction of records whose u8 kill byte is 0 (examples/particles.rk's
 * `survivors`, bench/kernels/compact.rk's `compact_live`), for any number of
 * f32 columns: a write cursor that never passes the records read; full racks
 * store whole racks at the cursor, the tail only its selected lanes; the new
 * count is the cursor.  The columns come as arrays (`col`, `v`) of a
 * constant length `nf`; everything is always_inline, so clang unrolls the
 * column loops and keeps each column in a register as it would for
 * hand-named variables. */
#ifndef RAKE_COMPACT_COMMON_H
#define RAKE_COMPACT_COMMON_H
#include "rake_intrin.h"

#if defined(__AVX512F__)
/* compress into a register and store: the memory form of vcompressps is
 * microcoded on AMD Zen 4 (bench/: about 40x slower).  A full rack stores
 * whole racks at the cursor, the tail only the first n lanes. */
RK int64_t compact(float *const *col, int nf, uint8_t *kill, int64_t cur, const V *v, VI k, M sel)
{
    int n = __builtin_popcount(sel);
    if (!sel) /* nothing kept: no stores (as Rake) */
        return cur;
    for (int j = 0; j < nf; j++)
        _mm512_storeu_ps(col[j] + cur, _mm512_maskz_compress_ps(sel, v[j]));
    _mm_storeu_si128((__m128i *)(kill + cur), _mm512_cvtepi32_epi8(_mm512_maskz_compress_epi32(sel, k)));
    return cur + n;
}
RK int64_t compact_tail(float *const *col, int nf, uint8_t *kill, int64_t cur, const V *v, VI k,
                        M sel, M t)
{
    sel = (M)(sel & t);
    int n = __builtin_popcount(sel);
    M first = (M)((1u << n) - 1);
    for (int j = 0; j < nf; j++)
        _mm512_mask_storeu_ps(col[j] + cur, first, _mm512_maskz_compress_ps(sel, v[j]));
    _mm512_mask_cvtepi32_storeu_epi8(kill + cur, first, _mm512_maskz_compress_epi32(sel, k));
    return cur + n;
}
#elif defined(__AVX2__)
static const uint64_t LANE_ORDER[256] = {
    0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000001ull, 0x0000000000000100ull,
    0x0000000000000002ull, 0x0000000000000200ull, 0x0000000000000201ull, 0x0000000000020100ull,
    0x0000000000000003ull, 0x0000000000000300ull, 0x0000000000000301ull, 0x0000000000030100ull,
    0x0000000000000302ull, 0x0000000000030200ull, 0x0000000000030201ull, 0x0000000003020100ull,
    0x0000000000000004ull, 0x0000000000000400ull, 0x0000000000000401ull, 0x0000000000040100ull,
    0x0000000000000402ull, 0x0000000000040200ull, 0x0000000000040201ull, 0x0000000004020100ull,
    0x0000000000000403ull, 0x0000000000040300ull, 0x0000000000040301ull, 0x0000000004030100ull,
    0x0000000000040302ull, 0x0000000004030200ull, 0x0000000004030201ull, 0x0000000403020100ull,
    0x0000000000000005ull, 0x0000000000000500ull, 0x0000000000000501ull, 0x0000000000050100ull,
    0x0000000000000502ull, 0x0000000000050200ull, 0x0000000000050201ull, 0x0000000005020100ull,
    0x0000000000000503ull, 0x0000000000050300ull, 0x0000000000050301ull, 0x0000000005030100ull,
    0x0000000000050302ull, 0x0000000005030200ull, 0x0000000005030201ull, 0x0000000503020100ull,
    0x0000000000000504ull, 0x0000000000050400ull, 0x0000000000050401ull, 0x0000000005040100ull,
    0x0000000000050402ull, 0x0000000005040200ull, 0x0000000005040201ull, 0x0000000504020100ull,
    0x0000000000050403ull, 0x0000000005040300ull, 0x0000000005040301ull, 0x0000000504030100ull,
    0x0000000005040302ull, 0x0000000504030200ull, 0x0000000504030201ull, 0x0000050403020100ull,
    0x0000000000000006ull, 0x0000000000000600ull, 0x0000000000000601ull, 0x0000000000060100ull,
    0x0000000000000602ull, 0x0000000000060200ull, 0x0000000000060201ull, 0x0000000006020100ull,
    0x0000000000000603ull, 0x0000000000060300ull, 0x0000000000060301ull, 0x0000000006030100ull,
    0x0000000000060302ull, 0x0000000006030200ull, 0x0000000006030201ull, 0x0000000603020100ull,
    0x0000000000000604ull, 0x0000000000060400ull, 0x0000000000060401ull, 0x0000000006040100ull,
    0x0000000000060402ull, 0x0000000006040200ull, 0x0000000006040201ull, 0x0000000604020100ull,
    0x0000000000060403ull, 0x0000000006040300ull, 0x0000000006040301ull, 0x0000000604030100ull,
    0x0000000006040302ull, 0x0000000604030200ull, 0x0000000604030201ull, 0x0000060403020100ull,
    0x0000000000000605ull, 0x0000000000060500ull, 0x0000000000060501ull, 0x0000000006050100ull,
    0x0000000000060502ull, 0x0000000006050200ull, 0x0000000006050201ull, 0x0000000605020100ull,
    0x0000000000060503ull, 0x0000000006050300ull, 0x0000000006050301ull, 0x0000000605030100ull,
    0x0000000006050302ull, 0x0000000605030200ull, 0x0000000605030201ull, 0x0000060503020100ull,
    0x0000000000060504ull, 0x0000000006050400ull, 0x0000000006050401ull, 0x0000000605040100ull,
    0x0000000006050402ull, 0x0000000605040200ull, 0x0000000605040201ull, 0x0000060504020100ull,
    0x0000000006050403ull, 0x0000000605040300ull, 0x0000000605040301ull, 0x0000060504030100ull,
    0x0000000605040302ull, 0x0000060504030200ull, 0x0000060504030201ull, 0x0006050403020100ull,
    0x0000000000000007ull, 0x0000000000000700ull, 0x0000000000000701ull, 0x0000000000070100ull,
    0x0000000000000702ull, 0x0000000000070200ull, 0x0000000000070201ull, 0x0000000007020100ull,
    0x0000000000000703ull, 0x0000000000070300ull, 0x0000000000070301ull, 0x0000000007030100ull,
    0x0000000000070302ull, 0x0000000007030200ull, 0x0000000007030201ull, 0x0000000703020100ull,
    0x0000000000000704ull, 0x0000000000070400ull, 0x0000000000070401ull, 0x0000000007040100ull,
    0x0000000000070402ull, 0x0000000007040200ull, 0x0000000007040201ull, 0x0000000704020100ull,
    0x0000000000070403ull, 0x0000000007040300ull, 0x0000000007040301ull, 0x0000000704030100ull,
    0x0000000007040302ull, 0x0000000704030200ull, 0x0000000704030201ull, 0x0000070403020100ull,
    0x0000000000000705ull, 0x0000000000070500ull, 0x0000000000070501ull, 0x0000000007050100ull,
    0x0000000000070502ull, 0x0000000007050200ull, 0x0000000007050201ull, 0x0000000705020100ull,
    0x0000000000070503ull, 0x0000000007050300ull, 0x0000000007050301ull, 0x0000000705030100ull,
    0x0000000007050302ull, 0x0000000705030200ull, 0x0000000705030201ull, 0x0000070503020100ull,
    0x0000000000070504ull, 0x0000000007050400ull, 0x0000000007050401ull, 0x0000000705040100ull,
    0x0000000007050402ull, 0x0000000705040200ull, 0x0000000705040201ull, 0x0000070504020100ull,
    0x0000000007050403ull, 0x0000000705040300ull, 0x0000000705040301ull, 0x0000070504030100ull,
    0x0000000705040302ull, 0x0000070504030200ull, 0x0000070504030201ull, 0x0007050403020100ull,
    0x0000000000000706ull, 0x0000000000070600ull, 0x0000000000070601ull, 0x0000000007060100ull,
    0x0000000000070602ull, 0x0000000007060200ull, 0x0000000007060201ull, 0x0000000706020100ull,
    0x0000000000070603ull, 0x0000000007060300ull, 0x0000000007060301ull, 0x0000000706030100ull,
    0x0000000007060302ull, 0x0000000706030200ull, 0x0000000706030201ull, 0x0000070603020100ull,
    0x0000000000070604ull, 0x0000000007060400ull, 0x0000000007060401ull, 0x0000000706040100ull,
    0x0000000007060402ull, 0x0000000706040200ull, 0x0000000706040201ull, 0x0000070604020100ull,
    0x0000000007060403ull, 0x0000000706040300ull, 0x0000000706040301ull, 0x0000070604030100ull,
    0x0000000706040302ull, 0x0000070604030200ull, 0x0000070604030201ull, 0x0007060403020100ull,
    0x0000000000070605ull, 0x0000000007060500ull, 0x0000000007060501ull, 0x0000000706050100ull,
    0x0000000007060502ull, 0x0000000706050200ull, 0x0000000706050201ull, 0x0000070605020100ull,
    0x0000000007060503ull, 0x0000000706050300ull, 0x0000000706050301ull, 0x0000070605030100ull,
    0x0000000706050302ull, 0x0000070605030200ull, 0x0000070605030201ull, 0x0007060503020100ull,
    0x0000000007060504ull, 0x0000000706050400ull, 0x0000000706050401ull, 0x0000070605040100ull,
    0x0000000706050402ull, 0x0000070605040200ull, 0x0000070605040201ull, 0x0007060504020100ull,
    0x0000000706050403ull, 0x0000070605040300ull, 0x0000070605040301ull, 0x0007060504030100ull,
    0x0000070605040302ull, 0x0007060504030200ull, 0x0007060504030201ull, 0x0706050403020100ull
};
RK __m128i narrow8(VI k)
{
    const __m256i bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                           0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(k, bytes),
                                                              _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)));
}
RK __m256i lane_order(int bits)
{
    return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((int64_t)LANE_ORDER[bits]));
}
RK int64_t compact(float *const *col, int nf, uint8_t *kill, int64_t cur, const V *v, VI k, M sel)
{
    int bits = _mm256_movemask_ps(sel);
    if (!bits) /* nothing kept: no stores (as Rake) */
        return cur;
    __m256i perm = lane_order(bits);
    for (int j = 0; j < nf; j++)
        _mm256_storeu_ps(col[j] + cur, _mm256_permutevar8x32_ps(v[j], perm));
    _mm_storel_epi64((__m128i *)(kill + cur), narrow8(_mm256_permutevar8x32_epi32(k, perm)));
    return cur + _mm_popcnt_u32((unsigned)bits);
}
RK int64_t compact_tail(float *const *col, int nf, uint8_t *kill, int64_t cur, const V *v, VI k,
                        M sel, M t)
{
    int bits = _mm256_movemask_ps(_mm256_and_ps(sel, t));
    int n = _mm_popcnt_u32((unsigned)bits);
    __m256i perm = lane_order(bits);
    __m256i m = _mm256_castps_si256(tail_mask(n));
    for (int j = 0; j < nf; j++)
        _mm256_maskstore_ps(col[j] + cur, m, _mm256_permutevar8x32_ps(v[j], perm));
    uint64_t w = (uint64_t)_mm_cvtsi128_si64(narrow8(_mm256_permutevar8x32_epi32(k, perm)));
    uint8_t *p = kill + cur;
    switch (n) {  /* guarded byte stores of the selected records */
    case 7: p[6] = (uint8_t)(w >> 48); /* fall through */
    case 6: p[5] = (uint8_t)(w >> 40); /* fall through */
    case 5: p[4] = (uint8_t)(w >> 32); /* fall through */
    case 4: p[3] = (uint8_t)(w >> 24); /* fall through */
    case 3: p[2] = (uint8_t)(w >> 16); /* fall through */
    case 2: p[1] = (uint8_t)(w >> 8); /* fall through */
    case 1: p[0] = (uint8_t)w; /* fall through */
    default: break;
    }
    return cur + n;
}
#else
/* SSE2: one of 16 fixed pshufd permutations, chosen by the four bits */
#define RK_PERM(imm)                                                                 \
    do {                                                                             \
        for (int j = 0; j < nf; j++)                                                 \
            w[j] = _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(w[j]), imm)); \
        k = _mm_shuffle_epi32(k, imm);                                               \
    } while (0)
#define RK_PERMUTE(bits) switch (bits) { \
    case 0: RK_PERM(0x00); break; \
    case 1: RK_PERM(0x00); break; \
    case 2: RK_PERM(0x01); break; \
    case 3: RK_PERM(0x04); break; \
    case 4: RK_PERM(0x02); break; \
    case 5: RK_PERM(0x08); break; \
    case 6: RK_PERM(0x09); break; \
    case 7: RK_PERM(0x24); break; \
    case 8: RK_PERM(0x03); break; \
    case 9: RK_PERM(0x0c); break; \
    case 10: RK_PERM(0x0d); break; \
    case 11: RK_PERM(0x34); break; \
    case 12: RK_PERM(0x0e); break; \
    case 13: RK_PERM(0x38); break; \
    case 14: RK_PERM(0x39); break; \
    case 15: RK_PERM(0xe4); break; \
    }
RK int64_t compact(float *const *col, int nf, uint8_t *kill, int64_t cur, V *v, VI k, M sel)
{
    V *w = v;
    int bits = _mm_movemask_ps(sel);
    RK_PERMUTE(bits)
    for (int j = 0; j < nf; j++)
        _mm_storeu_ps(col[j] + cur, w[j]);
    __m128i h = _mm_packs_epi32(k, k);
    *(int32_t *)(kill + cur) = _mm_cvtsi128_si32(_mm_packus_epi16(h, h));
    return cur + __builtin_popcount((unsigned)bits);
}
RK int64_t compact_tail(float *const *col, int nf, uint8_t *kill, int64_t cur, V *v, VI k,
                        M sel, M t)
{
    V *w = v;
    int bits = _mm_movemask_ps(_mm_and_ps(sel, t));
    int n = __builtin_popcount((unsigned)bits);
    if (!n)
        return cur;
    RK_PERMUTE(bits)
    for (int j = 0; j < nf; j++)
        store_tail(col[j] + cur, w[j], n, t);
    __m128i h = _mm_packs_epi32(k, k);
    uint32_t b = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(h, h));
    uint8_t *p = kill + cur;
    switch (n) {  /* guarded byte stores of the selected records */
    case 3: p[2] = (uint8_t)(b >> 16); /* fall through */
    case 2: p[1] = (uint8_t)(b >> 8); /* fall through */
    default: p[0] = (uint8_t)b;
    }
    return cur + n;
}
#endif

/* The whole run: `nf` f32 columns and the kill column, compacted in place. */
RK int64_t compact_live(float *const *col, int nf, uint8_t *kill, int64_t count)
{
    int64_t full = RK_FULL(count), rem = RK_REM(count), cur = 0;
    V v[8];
    RK_LOOP for (int64_t i = 0; i < full; i += L) {
        VI k = load_u8(kill + i);
        for (int j = 0; j < nf; j++)
            v[j] = vloadu(col[j] + i);
        cur = compact(col, nf, kill, cur, v, k, vieq0(k));
    }
    if (rem) {
        M t = tail_mask(rem);
        VI k = load_u8_tail(kill + full, rem, t);
        for (int j = 0; j < nf; j++)
            v[j] = load_tail(col[j] + full, rem, t);
        cur = compact_tail(col, nf, kill, cur, v, k, vieq0(k), t);
    }
    return cur;
}
#endif

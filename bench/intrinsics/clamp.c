/* bench/kernels/clamp.rk with x86 intrinsics: an i32 column and a u32
 * column clamped in place to uniform bounds, min(max(x, lo), hi), in
 * signed and unsigned lane order.  SSE2 has no pminsd/pminud (SSE4.1):
 * a comparison and a select, with the sign bit flipped for u32. */
#include "rake_intrin.h"
#include "../c/rake_abi.h" /* the benchmark's descriptors and signatures */

#if defined(__AVX512F__)
RK VI vset1_i(int32_t x) { return _mm512_set1_epi32(x); }
RK VI clamp_i(VI x, VI lo, VI hi) { return _mm512_min_epi32(_mm512_max_epi32(x, lo), hi); }
RK VI clamp_u(VI x, VI lo, VI hi) { return _mm512_min_epu32(_mm512_max_epu32(x, lo), hi); }
RK VI load_tail_i(const int32_t *p, int64_t rem, M m) { (void)rem; return _mm512_maskz_loadu_epi32(m, p); }
#elif defined(__AVX2__)
RK VI vset1_i(int32_t x) { return _mm256_set1_epi32(x); }
RK VI clamp_i(VI x, VI lo, VI hi) { return _mm256_min_epi32(_mm256_max_epi32(x, lo), hi); }
RK VI clamp_u(VI x, VI lo, VI hi) { return _mm256_min_epu32(_mm256_max_epu32(x, lo), hi); }
RK VI load_tail_i(const int32_t *p, int64_t rem, M m) { (void)rem; return _mm256_maskload_epi32(p, _mm256_castps_si256(m)); }
#else
RK VI vset1_i(int32_t x) { return _mm_set1_epi32(x); }
RK VI isel(__m128i m, VI a, VI b) { return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b)); }
RK VI clamp_i(VI x, VI lo, VI hi)
{
    VI y = isel(_mm_cmpgt_epi32(lo, x), lo, x);
    return isel(_mm_cmpgt_epi32(y, hi), hi, y);
}
RK VI clamp_u(VI x, VI lo, VI hi)
{
    const VI s = _mm_set1_epi32(INT32_MIN);
    VI xs = _mm_xor_si128(x, s), ls = _mm_xor_si128(lo, s), hs = _mm_xor_si128(hi, s);
    VI y = isel(_mm_cmpgt_epi32(ls, xs), lo, x);
    return isel(_mm_cmpgt_epi32(_mm_xor_si128(y, s), hs), hi, y);
}
RK VI load_tail_i(const int32_t *p, int64_t rem, M m) { return _mm_castps_si128(load_tail((const float *)p, rem, m)); }
#endif

void clamp__clamp_counts(struct rake_stack_Counts_v2 *values, int32_t lo, int32_t hi,
                         uint32_t ulo, uint32_t uhi)
{
    int64_t full = RK_FULL(values->count), rem = RK_REM(values->count);
    int32_t *s = values->signed_value, *u = (int32_t *)values->unsigned_value;
    VI l = vset1_i(lo), h = vset1_i(hi), ul = vset1_i((int32_t)ulo), uh = vset1_i((int32_t)uhi);
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L) {
        vstoreu_i(s + i, clamp_i(vloadu_i(s + i), l, h));
        vstoreu_i(u + i, clamp_u(vloadu_i(u + i), ul, uh));
    }
    if (rem) { /* integer min and max raise nothing: inactive lanes may read 0 */
        M t = tail_mask(rem);
        store_tail_i(s + full, clamp_i(load_tail_i(s + full, rem, t), l, h), rem, t);
        store_tail_i(u + full, clamp_u(load_tail_i(u + full, rem, t), ul, uh), rem, t);
    }
}

/* the signature bench/run checks Rake's run against */
_Static_assert(_Generic(&clamp__clamp_counts, clamp_counts_fn *: 1, default: 0), "clamp__clamp_counts differs from bench/c/rake_abi.h");

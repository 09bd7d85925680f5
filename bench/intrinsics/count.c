/* bench/kernels/count.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* A general run at spec page 03's C boundary, written as a C programmer
 * would: no bounds checks (Rake's version makes them, rules.txt), the
 * quiet comparison keys > threshold, four racks per step into four
 * accumulators as the Rake program has, each hit counted by subtracting
 * the all-ones lane (AVX-512: a masked add), the u32 lanes summed
 * (wrapping, so in any order) and stored broadcast. */
void count__count_above(const float *keys, int32_t keys_count, uint32_t *out,
                        int32_t out_count, int32_t n, float threshold)
{
    (void)keys_count, (void)out_count;
    V t = vset1(threshold);
#if defined(__AVX512F__)
    __m512i hits = _mm512_setzero_si512(), hits1 = hits, hits2 = hits, hits3 = hits;
    __m512i one = _mm512_set1_epi32(1);
    RK_LOOP for (int64_t i = 0; i < n; i += 4 * L) {
        hits = _mm512_mask_add_epi32(hits, vlt(t, vloadu(keys + i)), hits, one);
        hits1 = _mm512_mask_add_epi32(hits1, vlt(t, vloadu(keys + i + L)), hits1, one);
        hits2 = _mm512_mask_add_epi32(hits2, vlt(t, vloadu(keys + i + 2 * L)), hits2, one);
        hits3 = _mm512_mask_add_epi32(hits3, vlt(t, vloadu(keys + i + 3 * L)), hits3, one);
    }
    hits = _mm512_add_epi32(_mm512_add_epi32(hits, hits1), _mm512_add_epi32(hits2, hits3));
    uint32_t total = (uint32_t)_mm512_reduce_add_epi32(hits);
    _mm512_storeu_si512(out, _mm512_set1_epi32((int)total));
#elif defined(__AVX2__)
    __m256i hits = _mm256_setzero_si256(), hits1 = hits, hits2 = hits, hits3 = hits;
    RK_LOOP for (int64_t i = 0; i < n; i += 4 * L) {
        hits = _mm256_sub_epi32(hits, _mm256_castps_si256(vlt(t, vloadu(keys + i))));
        hits1 = _mm256_sub_epi32(hits1, _mm256_castps_si256(vlt(t, vloadu(keys + i + L))));
        hits2 = _mm256_sub_epi32(hits2, _mm256_castps_si256(vlt(t, vloadu(keys + i + 2 * L))));
        hits3 = _mm256_sub_epi32(hits3, _mm256_castps_si256(vlt(t, vloadu(keys + i + 3 * L))));
    }
    hits = _mm256_add_epi32(_mm256_add_epi32(hits, hits1), _mm256_add_epi32(hits2, hits3));
    __m128i h = _mm_add_epi32(_mm256_castsi256_si128(hits), _mm256_extracti128_si256(hits, 1));
    h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
    h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
    _mm256_storeu_si256((__m256i *)out, _mm256_broadcastd_epi32(h));
#else
    __m128i hits = _mm_setzero_si128(), hits1 = hits, hits2 = hits, hits3 = hits;
    RK_LOOP for (int64_t i = 0; i < n; i += 4 * L) {
        hits = _mm_sub_epi32(hits, _mm_castps_si128(vlt(t, vloadu(keys + i))));
        hits1 = _mm_sub_epi32(hits1, _mm_castps_si128(vlt(t, vloadu(keys + i + L))));
        hits2 = _mm_sub_epi32(hits2, _mm_castps_si128(vlt(t, vloadu(keys + i + 2 * L))));
        hits3 = _mm_sub_epi32(hits3, _mm_castps_si128(vlt(t, vloadu(keys + i + 3 * L))));
    }
    hits = _mm_add_epi32(_mm_add_epi32(hits, hits1), _mm_add_epi32(hits2, hits3));
    hits = _mm_add_epi32(hits, _mm_shuffle_epi32(hits, 0x4e));
    hits = _mm_add_epi32(hits, _mm_shuffle_epi32(hits, 0xb1));
    _mm_storeu_si128((__m128i *)out, hits);
#endif
}

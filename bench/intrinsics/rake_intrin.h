/* bench/intrinsics/rake_intrin.h: the helpers a careful user writes once to
 * get Rake's semantics from x86 intrinsics, for the profile the file is
 * compiled for (clang -O3 -c with -msse2, -mavx2 -mfma or -mavx512f -mfma:
 * the instruction sets of x86-sse2, x86-avx2 and x86-avx512).
 *
 * Semantics kept (spec pages 01-03, 10-gap-notes.md):
 *  - comparisons are quiet: they raise invalid only for a signalling NaN
 *    (SSE2's cmpltps/cmpleps signal on any NaN, so SSE2 compares the
 *    ordered lanes only);
 *  - min/max are IEEE minimum/maximum: a quiet NaN if either lane is NaN,
 *    -0 below +0, and no invalid for a quiet NaN (minps/maxps signal on
 *    any NaN, so they see the ordered lanes only);
 *  - a float sum is the strict left fold from lane 0;
 *  - inactive lanes (through blocks, run tails) raise no FP exception and
 *    tails touch only existing records.
 * Every helper is always inlined, so the code is what direct intrinsics give.
 */
#ifndef RAKE_INTRIN_H
#define RAKE_INTRIN_H
#include <immintrin.h>
#include <stdint.h>

#define RK static inline __attribute__((always_inline))

#if defined(__AVX512F__)
#define L 16
typedef __m512 V;
typedef __m512i VI;
typedef __mmask16 M;
RK V vset1(float x) { return _mm512_set1_ps(x); }
RK V vzero(void) { return _mm512_castsi512_ps(_mm512_setzero_si512()); }
RK V vadd(V a, V b) { return _mm512_add_ps(a, b); }
RK V vmul(V a, V b) { return _mm512_mul_ps(a, b); }
RK V vfma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
RK M vge(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
RK M vlt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
RK M mor(M a, M b) { return a | b; }
RK M mand(M a, M b) { return a & b; }
RK V vsel(M m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }
RK V vand_m(M m, V a) { return _mm512_maskz_mov_ps(m, a); }
/* sqrt where m holds, `other` elsewhere.  clang lowers the masked forms
 * (_mm512_mask_sqrt_ps, _mm512_maskz_max_ps) to the unmasked instruction and
 * a blend, so a masked-off lane could raise: the operands are made benign. */
RK V vsqrt_under(M m, V x, V other) { return _mm512_mask_mov_ps(other, m, _mm512_sqrt_ps(_mm512_mask_mov_ps(vset1(1.0f), m, x))); }
RK V vsqrt_underz(M m, V x) { return _mm512_maskz_mov_ps(m, _mm512_sqrt_ps(_mm512_mask_mov_ps(vset1(1.0f), m, x))); }
RK V vbits_and(V a, V b) { return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b))); }
RK V vmax_ieee(V a, V b) {
    M ord = _mm512_cmp_ps_mask(a, b, _CMP_ORD_Q);
    V x = _mm512_maskz_mov_ps(ord, a), y = _mm512_maskz_mov_ps(ord, b);
    return _mm512_castsi512_ps(_mm512_mask_and_epi32(_mm512_set1_epi32(-1), ord,
        _mm512_castps_si512(_mm512_max_ps(x, y)), _mm512_castps_si512(_mm512_max_ps(y, x))));
}
RK V vmin_ieee(V a, V b) {
    M ord = _mm512_cmp_ps_mask(a, b, _CMP_ORD_Q);
    V x = _mm512_maskz_mov_ps(ord, a), y = _mm512_maskz_mov_ps(ord, b);
    return _mm512_castsi512_ps(_mm512_mask_or_epi32(_mm512_set1_epi32(-1), ord,
        _mm512_castps_si512(_mm512_min_ps(x, y)), _mm512_castps_si512(_mm512_min_ps(y, x))));
}
RK uint32_t vbitmask(M m) { return (uint32_t)_cvtmask16_u32(m); }
RK float vsum_strict(V x) {
    __m128 q0 = _mm512_castps512_ps128(x), q1 = _mm512_extractf32x4_ps(x, 1);
    __m128 q2 = _mm512_extractf32x4_ps(x, 2), q3 = _mm512_extractf32x4_ps(x, 3);
    __m128 t = q0;
#define RK_SUM4(q, first) \
    if (!(first)) t = _mm_add_ss(t, q); \
    t = _mm_add_ss(t, _mm_movehdup_ps(q)); \
    t = _mm_add_ss(t, _mm_movehl_ps(q, q)); \
    t = _mm_add_ss(t, _mm_shuffle_ps(q, q, 3));
    RK_SUM4(q0, 1) RK_SUM4(q1, 0) RK_SUM4(q2, 0) RK_SUM4(q3, 0)
    return _mm_cvtss_f32(t);
}
/* tails */
RK M tail_mask(int64_t rem) { return (M)((1u << rem) - 1); }
RK V load_tail(const float *p, int64_t rem, M m) { (void)rem; return _mm512_maskz_loadu_ps(m, p); }
RK void store_tail(float *p, V v, int64_t rem, M m) { (void)rem; _mm512_mask_storeu_ps(p, m, v); }

#elif defined(__AVX2__)
#define L 8
typedef __m256 V;
typedef __m256i VI;
typedef __m256 M;
RK V vset1(float x) { return _mm256_set1_ps(x); }
RK V vzero(void) { return _mm256_castsi256_ps(_mm256_setzero_si256()); }
RK V vadd(V a, V b) { return _mm256_add_ps(a, b); }
RK V vmul(V a, V b) { return _mm256_mul_ps(a, b); }
RK V vfma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
RK M vge(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
RK M vlt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
RK M mor(M a, M b) { return _mm256_or_ps(a, b); }
RK M mand(M a, M b) { return _mm256_and_ps(a, b); }
RK V vsel(M m, V a, V b) { return _mm256_blendv_ps(b, a, m); }
RK V vand_m(M m, V a) { return _mm256_and_ps(m, a); }
RK V vsqrt_under(M m, V x, V other) { return vsel(m, _mm256_sqrt_ps(vsel(m, x, vset1(1.0f))), other); }
RK V vsqrt_underz(M m, V x) { return vand_m(m, _mm256_sqrt_ps(vsel(m, x, vset1(1.0f)))); }
RK V vbits_and(V a, V b) { return _mm256_and_ps(a, b); }
RK V vmax_ieee(V a, V b) {
    V u = _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
    V x = _mm256_andnot_ps(u, a), y = _mm256_andnot_ps(u, b);
    return _mm256_or_ps(_mm256_and_ps(_mm256_max_ps(x, y), _mm256_max_ps(y, x)), u);
}
RK V vmin_ieee(V a, V b) {
    V u = _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
    V x = _mm256_andnot_ps(u, a), y = _mm256_andnot_ps(u, b);
    return _mm256_or_ps(_mm256_or_ps(_mm256_min_ps(x, y), _mm256_min_ps(y, x)), u);
}
RK uint32_t vbitmask(M m) { return (uint32_t)_mm256_movemask_ps(m); }
RK float vsum_strict(V x) {
    __m128 q0 = _mm256_castps256_ps128(x), q1 = _mm256_extractf128_ps(x, 1);
    __m128 t = q0;
#define RK_SUM4(q, first) \
    if (!(first)) t = _mm_add_ss(t, q); \
    t = _mm_add_ss(t, _mm_movehdup_ps(q)); \
    t = _mm_add_ss(t, _mm_movehl_ps(q, q)); \
    t = _mm_add_ss(t, _mm_shuffle_ps(q, q, 3));
    RK_SUM4(q0, 1) RK_SUM4(q1, 0)
    return _mm_cvtss_f32(t);
}
RK M tail_mask(int64_t rem) {
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem),
                                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}
RK V load_tail(const float *p, int64_t rem, M m) { (void)rem; return _mm256_maskload_ps(p, _mm256_castps_si256(m)); }
RK void store_tail(float *p, V v, int64_t rem, M m) { (void)rem; _mm256_maskstore_ps(p, _mm256_castps_si256(m), v); }

#else /* SSE2 */
#define L 4
typedef __m128 V;
typedef __m128i VI;
typedef __m128 M;
RK V vset1(float x) { return _mm_set1_ps(x); }
RK V vzero(void) { return _mm_castsi128_ps(_mm_setzero_si128()); }
RK V vadd(V a, V b) { return _mm_add_ps(a, b); }
RK V vmul(V a, V b) { return _mm_mul_ps(a, b); }
RK V vfma(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); } /* SSE2 never contracts */
/* quiet a >= b, a < b: the ordered lanes only reach the signalling compare */
RK M vge(V a, V b) {
    V o = _mm_cmpord_ps(a, b);
    return _mm_and_ps(_mm_cmple_ps(_mm_and_ps(b, o), _mm_and_ps(a, o)), o);
}
RK M vlt(V a, V b) {
    V o = _mm_cmpord_ps(a, b);
    return _mm_and_ps(_mm_cmplt_ps(_mm_and_ps(a, o), _mm_and_ps(b, o)), o);
}
RK M mor(M a, M b) { return _mm_or_ps(a, b); }
RK M mand(M a, M b) { return _mm_and_ps(a, b); }
RK V vsel(M m, V a, V b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
RK V vand_m(M m, V a) { return _mm_and_ps(m, a); }
RK V vsqrt_under(M m, V x, V other) { return vsel(m, _mm_sqrt_ps(vsel(m, x, vset1(1.0f))), other); }
RK V vsqrt_underz(M m, V x) { return vand_m(m, _mm_sqrt_ps(vsel(m, x, vset1(1.0f)))); }
RK V vbits_and(V a, V b) { return _mm_and_ps(a, b); }
RK V vmax_ieee(V a, V b) {
    V u = _mm_cmpunord_ps(a, b);
    V x = _mm_andnot_ps(u, a), y = _mm_andnot_ps(u, b);
    return _mm_or_ps(_mm_and_ps(_mm_max_ps(x, y), _mm_max_ps(y, x)), u);
}
RK V vmin_ieee(V a, V b) {
    V u = _mm_cmpunord_ps(a, b);
    V x = _mm_andnot_ps(u, a), y = _mm_andnot_ps(u, b);
    return _mm_or_ps(_mm_or_ps(_mm_min_ps(x, y), _mm_min_ps(y, x)), u);
}
RK uint32_t vbitmask(M m) { return (uint32_t)_mm_movemask_ps(m); }
RK float vsum_strict(V x) {
    __m128 t = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
    t = _mm_add_ss(t, _mm_movehl_ps(x, x));
    t = _mm_add_ss(t, _mm_shuffle_ps(x, x, 3));
    return _mm_cvtss_f32(t);
}
RK M tail_mask(int64_t rem) {
    return _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_set1_epi32((int)rem), _mm_setr_epi32(0, 1, 2, 3)));
}
/* guarded transfers of the first rem (1..3) lanes; the others read 0 */
RK V load_tail(const float *p, int64_t rem, M m) {
    (void)m;
    switch (rem) {
    case 1: return _mm_load_ss(p);
    case 2: return _mm_castpd_ps(_mm_load_sd((const double *)p));
    default: return _mm_movelh_ps(_mm_castpd_ps(_mm_load_sd((const double *)p)), _mm_load_ss(p + 2));
    }
}
RK void store_tail(float *p, V v, int64_t rem, M m) {
    (void)m;
    switch (rem) {
    case 1: _mm_store_ss(p, v); break;
    case 2: _mm_storel_pi((__m64 *)p, v); break;
    default: _mm_storel_pi((__m64 *)p, v); _mm_store_ss(p + 2, _mm_movehl_ps(v, v)); break;
    }
}
#endif


/* --- stack-run transfers ------------------------------------------------------
 * full racks: unaligned loads/stores, compact columns widened from memory;
 * tails (rem = count mod L lanes, 1..L-1): only existing records are touched,
 * inactive lanes read 0. */
#if defined(__AVX512F__)
RK V vloadu(const float *p) { return _mm512_loadu_ps(p); }
RK void vstoreu(float *p, V v) { _mm512_storeu_ps(p, v); }
RK VI vloadu_i(const int32_t *p) { return _mm512_loadu_si512(p); }
RK void vstoreu_i(int32_t *p, VI v) { _mm512_storeu_si512(p, v); }
RK VI load_u8(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
RK VI load_i8(const int8_t *p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)); }
RK VI load_u16(const uint16_t *p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
RK VI load_i16(const int16_t *p) { return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
/* AVX-512F has no intrinsic for a masked widening load from memory (a
 * masked byte load needs AVX512BW), so it is written as the instruction. */
#define RK_MASKZ_WIDEN(insn, T, N)                                                   \
    RK VI insn##_tail(const T *p, M m) {                                             \
        VI r;                                                                        \
        __asm__(#insn " %1, %0%{%2%}%{z%}" : "=v"(r) : "m"(*(const T(*)[N])p), "Yk"(m)); \
        return r;                                                                    \
    }
RK_MASKZ_WIDEN(vpmovzxbd, uint8_t, 16)
RK_MASKZ_WIDEN(vpmovsxbd, int8_t, 16)
RK_MASKZ_WIDEN(vpmovzxwd, uint16_t, 16)
RK_MASKZ_WIDEN(vpmovsxwd, int16_t, 16)
RK VI load_u8_tail(const uint8_t *p, int64_t rem, M m) { (void)rem; return vpmovzxbd_tail(p, m); }
RK VI load_i8_tail(const int8_t *p, int64_t rem, M m) { (void)rem; return vpmovsxbd_tail(p, m); }
RK VI load_u16_tail(const uint16_t *p, int64_t rem, M m) { (void)rem; return vpmovzxwd_tail(p, m); }
RK VI load_i16_tail(const int16_t *p, int64_t rem, M m) { (void)rem; return vpmovsxwd_tail(p, m); }
RK void store_tail_i(int32_t *p, VI v, int64_t rem, M m) { (void)rem; _mm512_mask_storeu_epi32(p, m, v); }
RK M vieq0(VI a) { return _mm512_cmpeq_epi32_mask(a, _mm512_setzero_si512()); }
RK VI viadd(VI a, VI b) { return _mm512_add_epi32(a, b); }
#elif defined(__AVX2__)
RK V vloadu(const float *p) { return _mm256_loadu_ps(p); }
RK void vstoreu(float *p, V v) { _mm256_storeu_ps(p, v); }
RK VI vloadu_i(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
RK void vstoreu_i(int32_t *p, VI v) { _mm256_storeu_si256((__m256i *)p, v); }
RK VI load_u8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
RK VI load_i8(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
RK VI load_u16(const uint16_t *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
RK VI load_i16(const int16_t *p) { return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p)); }
/* guarded lane transfers of the first rem (1..7) elements: one insert
 * per element, falling through from the last */
#define RK_GATHER(name, T, insert)                                    \
    RK __m128i name(const T *p, int64_t rem) {                        \
        __m128i t = _mm_setzero_si128();                              \
        switch (rem) {                                                \
        case 7: t = insert(t, p[6], 6); __attribute__((fallthrough));  \
        case 6: t = insert(t, p[5], 5); __attribute__((fallthrough));  \
        case 5: t = insert(t, p[4], 4); __attribute__((fallthrough));  \
        case 4: t = insert(t, p[3], 3); __attribute__((fallthrough));  \
        case 3: t = insert(t, p[2], 2); __attribute__((fallthrough));  \
        case 2: t = insert(t, p[1], 1); __attribute__((fallthrough));  \
        default: t = insert(t, p[0], 0);                              \
        }                                                             \
        return t;                                                     \
    }
RK_GATHER(gather8, uint8_t, _mm_insert_epi8)
RK_GATHER(gather16, uint16_t, _mm_insert_epi16)
RK VI load_u8_tail(const uint8_t *p, int64_t rem, M m) { (void)m; return _mm256_cvtepu8_epi32(gather8(p, rem)); }
RK VI load_i8_tail(const int8_t *p, int64_t rem, M m) { (void)m; return _mm256_cvtepi8_epi32(gather8((const uint8_t *)p, rem)); }
RK VI load_u16_tail(const uint16_t *p, int64_t rem, M m) { (void)m; return _mm256_cvtepu16_epi32(gather16(p, rem)); }
RK VI load_i16_tail(const int16_t *p, int64_t rem, M m) { (void)m; return _mm256_cvtepi16_epi32(gather16((const uint16_t *)p, rem)); }
RK void store_tail_i(int32_t *p, VI v, int64_t rem, M m) { (void)rem; _mm256_maskstore_epi32(p, _mm256_castps_si256(m), v); }
RK M vieq0(VI a) { return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, _mm256_setzero_si256())); }
RK VI viadd(VI a, VI b) { return _mm256_add_epi32(a, b); }
#else
RK V vloadu(const float *p) { return _mm_loadu_ps(p); }
RK void vstoreu(float *p, V v) { _mm_storeu_ps(p, v); }
RK VI vloadu_i(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
RK void vstoreu_i(int32_t *p, VI v) { _mm_storeu_si128((__m128i *)p, v); }
RK VI widen_u8(__m128i b) { __m128i z = _mm_setzero_si128(); return _mm_unpacklo_epi16(_mm_unpacklo_epi8(b, z), z); }
RK VI widen_i8(__m128i b) { return _mm_srai_epi32(_mm_unpacklo_epi16(_mm_unpacklo_epi8(b, b), _mm_unpacklo_epi8(b, b)), 24); }
RK VI widen_u16(__m128i h) { return _mm_unpacklo_epi16(h, _mm_setzero_si128()); }
RK VI widen_i16(__m128i h) { return _mm_srai_epi32(_mm_unpacklo_epi16(h, h), 16); }
RK VI load_u8(const uint8_t *p) { return widen_u8(_mm_cvtsi32_si128(*(const int32_t *)p)); }
RK VI load_i8(const int8_t *p) { return widen_i8(_mm_cvtsi32_si128(*(const int32_t *)p)); }
RK VI load_u16(const uint16_t *p) { return widen_u16(_mm_loadl_epi64((const __m128i *)p)); }
RK VI load_i16(const int16_t *p) { return widen_i16(_mm_loadl_epi64((const __m128i *)p)); }
/* guarded transfers of the first rem (1..3) elements */
RK __m128i gather8(const uint8_t *p, int64_t rem) {
    uint32_t w = 0;
    switch (rem) {
    case 3: w |= (uint32_t)p[2] << 16; /* fall through */
    case 2: w |= (uint32_t)p[1] << 8; /* fall through */
    default: w |= p[0];
    }
    return _mm_cvtsi32_si128((int)w);
}
RK __m128i gather16(const uint16_t *p, int64_t rem) {
    __m128i t = _mm_setzero_si128();
    switch (rem) {
    case 3: t = _mm_insert_epi16(t, p[2], 2); /* fall through */
    case 2: t = _mm_insert_epi16(t, p[1], 1); /* fall through */
    default: t = _mm_insert_epi16(t, p[0], 0);
    }
    return t;
}
RK VI load_u8_tail(const uint8_t *p, int64_t rem, M m) { (void)m; return widen_u8(gather8(p, rem)); }
RK VI load_i8_tail(const int8_t *p, int64_t rem, M m) { (void)m; return widen_i8(gather8((const uint8_t *)p, rem)); }
RK VI load_u16_tail(const uint16_t *p, int64_t rem, M m) { (void)m; return widen_u16(gather16(p, rem)); }
RK VI load_i16_tail(const int16_t *p, int64_t rem, M m) { (void)m; return widen_i16(gather16((const uint16_t *)p, rem)); }
RK void store_tail_i(int32_t *p, VI v, int64_t rem, M m) { store_tail((float *)p, _mm_castsi128_ps(v), rem, m); }
RK M vieq0(VI a) { return _mm_castsi128_ps(_mm_cmpeq_epi32(a, _mm_setzero_si128())); }
RK VI viadd(VI a, VI b) { return _mm_add_epi32(a, b); }
#endif

/* a stack run's record count, never negative, split into full racks */
#define RK_FULL(count) ((count) > 0 ? (count) - (count) % L : 0)
#define RK_REM(count) ((count) > 0 ? (count) % L : 0)
/* a general run's loop is the program's own: not unrolled (Rake doesn't);
 * a stack run's whole-rack loop is unrolled by two, as Rake's x86
 * profiles do (lib/profile.c, docs/performance.md), except a compaction's
 * (clang 14 unrolls by 4 when vectorize(disable) is added; it vectorizes
 * no intrinsics loop anyway) */
#define RK_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#define RK_STACK_LOOP _Pragma("clang loop unroll_count(2)")

/* store v where `sel` holds in the tail's first rem lanes, keeping the
 * old values elsewhere (where): only existing records are touched */
#if defined(__AVX512F__)
RK void store_where_tail(float *p, V v, V old, int64_t rem, M t, M sel)
{ (void)old; (void)rem; _mm512_mask_storeu_ps(p, t & sel, v); }
#elif defined(__AVX2__)
RK void store_where_tail(float *p, V v, V old, int64_t rem, M t, M sel)
{ (void)old; (void)rem; _mm256_maskstore_ps(p, _mm256_castps_si256(_mm256_and_ps(t, sel)), v); }
#else
RK void store_where_tail(float *p, V v, V old, int64_t rem, M t, M sel)
{ store_tail(p, vsel(sel, v, old), rem, t); }
#endif

#endif

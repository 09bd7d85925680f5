/* bench/kernels/normalise.rk with x86 intrinsics: u8 lanes widened, converted
 * (they are below 2^8, so the signed conversion is exact) and scaled. */
#include "rake_intrin.h"

struct rake_stack_Bytes_v2 {
    int64_t count;
    uint8_t *level;
};
struct rake_stack_Levels_v2 {
    int64_t count;
    float *value;
};

#if defined(__AVX512F__)
RK V vcvt(VI a) { return _mm512_cvtepi32_ps(a); }
#elif defined(__AVX2__)
RK V vcvt(VI a) { return _mm256_cvtepi32_ps(a); }
#else
RK V vcvt(VI a) { return _mm_cvtepi32_ps(a); }
#endif

/* inactive tail lanes read 0: 0 * scale raises nothing for a finite scale,
 * and the masked store drops them */
void normalise__normalise(const struct rake_stack_Bytes_v2 *input,
                          struct rake_stack_Levels_v2 *output, float scale)
{
    int64_t full = RK_FULL(output->count), rem = RK_REM(output->count);
    const uint8_t *b = input->level;
    float *v = output->value;
    V s = vset1(scale);
    RK_LOOP for (int64_t i = 0; i < full; i += L)
        vstoreu(v + i, vmul(vcvt(load_u8(b + i)), s));
    if (rem) {
        M t = tail_mask(rem);
        store_tail(v + full, vmul(vcvt(load_u8_tail(b + full, rem, t)), vand_m(t, s)), rem, t);
    }
}

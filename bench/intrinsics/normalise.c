/* bench/kernels/normalise.rk with x86 intrinsics: u8 lanes widened, converted
 * (they are below 2^8, so the signed conversion is exact) and scaled. */
#include "rake_intrin.h"
#include "../c/rake_abi.h" /* the benchmark's descriptors and signatures */

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
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L)
        vstoreu(v + i, vmul(vcvt(load_u8(b + i)), s));
    if (rem) {
        M t = tail_mask(rem);
        store_tail(v + full, vmul(vcvt(load_u8_tail(b + full, rem, t)), vand_m(t, s)), rem, t);
    }
}

/* the signature bench/run checks Rake's run against */
_Static_assert(_Generic(&normalise__normalise, normalise_fn *: 1, default: 0), "normalise__normalise differs from bench/c/rake_abi.h");

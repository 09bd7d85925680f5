/* bench/kernels/dot.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt).  One rack accumulator (a mul and an
 * add: Rake contracts only inside fused regions), then the strict left
 * fold over its lanes, stored broadcast. */
void dot__dot_product(const float *x, int32_t x_count, const float *y, int32_t y_count,
                      float *out, int32_t out_count, int32_t n)
{
    (void)x_count, (void)y_count, (void)out_count;
    V acc = vzero();
    RK_LOOP for (int64_t i = 0; i < n; i += L)
        acc = vadd(acc, vmul(vloadu(x + i), vloadu(y + i)));
    vstoreu(out, vset1(vsum_strict(acc)));
}

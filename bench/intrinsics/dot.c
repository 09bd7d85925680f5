/* bench/kernels/dot.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt).  Two rack accumulators over two racks
 * per step, as the Rake program has (a mul and an add: Rake contracts
 * only inside fused regions), then the strict left fold over the lanes of
 * their sum, stored broadcast. */
void dot__dot_product(const float *x, int32_t x_count, const float *y, int32_t y_count,
                      float *out, int32_t out_count, int32_t n)
{
    (void)x_count, (void)y_count, (void)out_count;
    V acc0 = vzero(), acc1 = vzero();
    RK_LOOP for (int64_t i = 0; i < n; i += 2 * L) {
        acc0 = vadd(acc0, vmul(vloadu(x + i), vloadu(y + i)));
        acc1 = vadd(acc1, vmul(vloadu(x + i + L), vloadu(y + i + L)));
    }
    vstoreu(out, vset1(vsum_strict(vadd(acc0, acc1))));
}

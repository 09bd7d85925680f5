/* bench/kernels/dot.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt).  Four rack accumulators over four
 * racks per step, as the Rake program has (a mul and an add: Rake
 * contracts only inside fused regions), then the strict left fold over the
 * lanes of (acc0 + acc1) + (acc2 + acc3), stored broadcast. */
void dot__dot_product(const float *x, int32_t x_count, const float *y, int32_t y_count,
                      float *out, int32_t out_count, int32_t n)
{
    (void)x_count, (void)y_count, (void)out_count;
    V acc0 = vzero(), acc1 = vzero(), acc2 = vzero(), acc3 = vzero();
    RK_LOOP for (int64_t i = 0; i < n; i += 4 * L) {
        acc0 = vadd(acc0, vmul(vloadu(x + i), vloadu(y + i)));
        acc1 = vadd(acc1, vmul(vloadu(x + i + L), vloadu(y + i + L)));
        acc2 = vadd(acc2, vmul(vloadu(x + i + 2 * L), vloadu(y + i + 2 * L)));
        acc3 = vadd(acc3, vmul(vloadu(x + i + 3 * L), vloadu(y + i + 3 * L)));
    }
    vstoreu(out, vset1(vsum_strict(vadd(vadd(acc0, acc1), vadd(acc2, acc3)))));
}

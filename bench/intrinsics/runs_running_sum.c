/* tests/shared/conformance/runs_running_sum.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt). */
void runs_running_sum__running_sum(const float *x, int32_t x_count, float *out,
                                   int32_t out_count, int32_t n)
{
    (void)x_count, (void)out_count;
    V total = vzero();
    RK_LOOP for (int64_t i = 0; i < n; i += L) {
        total = vadd(total, vloadu(x + i));
        vstoreu(out + i, total);
    }
}

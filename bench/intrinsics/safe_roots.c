/* examples/safe_roots.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* through #valid: sqrt in the lanes >= 0 only (the others raise nothing); 0 elsewhere */
V safe_roots__safe_root(V values)
{
    return vsqrt_underz(vge(values, vzero()), values);
}

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt). */
void safe_roots__roots(const float *x, int32_t x_count, float *out, int32_t out_count, int32_t n)
{
    (void)x_count, (void)out_count;
    RK_LOOP for (int64_t i = 0; i < n; i += L)
        vstoreu(out + i, safe_roots__safe_root(vloadu(x + i)));
}

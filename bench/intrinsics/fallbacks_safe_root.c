/* tests/shared/conformance/fallbacks_safe_root.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* through #valid else <0.0>: sqrt in the valid lanes only; sweep: rooted
 * where valid, -1 elsewhere (the else value is never selected) */
V fallbacks_safe_root__safe_root(V values)
{
    return vsqrt_under(vge(values, vzero()), values, vset1(-1.0f));
}

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt). */
void fallbacks_safe_root__roots(const float *x, int32_t x_count, float *out, int32_t out_count)
{
    (void)x_count, (void)out_count;
    vstoreu(out, fallbacks_safe_root__safe_root(vloadu(x)));
}

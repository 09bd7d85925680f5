/* tests/shared/conformance/sweeps_grade.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

V sweeps_grade__grade(V scores)
{
    M high = vge(scores, vset1(90.0f));
    M pass = vge(scores, vset1(50.0f));
    return vsel(high, vset1(3.0f), vsel(pass, vset1(2.0f), vset1(1.0f)));
}

/* A general run at spec page 03's C boundary (a view as its pointer and
 * count), written as a C programmer would: no bounds checks, which
 * Rake's version makes (rules.txt). */
void sweeps_grade__grades(const float *x, int32_t x_count, float *out, int32_t out_count)
{
    (void)x_count, (void)out_count;
    vstoreu(out, sweeps_grade__grade(vloadu(x)));
}

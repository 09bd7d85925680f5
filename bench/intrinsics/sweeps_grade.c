/* tests/shared/conformance/sweeps_grade.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

V sweeps_grade__grade(V scores)
{
    M high = vge(scores, vset1(90.0f));
    M pass = vge(scores, vset1(50.0f));
    return vsel(high, vset1(3.0f), vsel(pass, vset1(2.0f), vset1(1.0f)));
}

/* run grades: a general run, work in progress natively in Rake: not compared */

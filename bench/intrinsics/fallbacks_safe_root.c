/* tests/shared/conformance/fallbacks_safe_root.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* through #valid else <0.0>: sqrt in the valid lanes only; sweep: rooted
 * where valid, -1 elsewhere (the else value is never selected) */
V fallbacks_safe_root__safe_root(V values)
{
    return vsqrt_under(vge(values, vzero()), values, vset1(-1.0f));
}

/* run roots: a general run, work in progress natively in Rake: not compared */

/* tests/shared/conformance/tines_safe_root.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* through #valid: sqrt in the lanes >= 0 only (the others raise nothing); 0 elsewhere */
V tines_safe_root__safe_root(V values)
{
    return vsqrt_underz(vge(values, vzero()), values);
}

/* run roots: a general run, work in progress natively in Rake: not compared */

/* tests/shared/conformance/runs_running_sum.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* run running_sum: a general run, work in progress natively in Rake: not compared */
typedef int rk_nothing_to_compare;

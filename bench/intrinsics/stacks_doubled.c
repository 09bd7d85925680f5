/* tests/shared/conformance/stacks_doubled.rk with x86 intrinsics. */
#include "rake_intrin.h"

struct rake_stack_Samples_v2 {
    int64_t count;
    float *value;
};

/* the tail's inactive lanes are 0, and 0 * 2 raises nothing */
void stacks_doubled__doubled(struct rake_stack_Samples_v2 *samples)
{
    int64_t full = RK_FULL(samples->count), rem = RK_REM(samples->count);
    float *v = samples->value;
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L)
        vstoreu(v + i, vmul(vloadu(v + i), vset1(2.0f)));
    if (rem) {
        M t = tail_mask(rem);
        store_tail(v + full, vmul(load_tail(v + full, rem, t), vset1(2.0f)), rem, t);
    }
}

/* bench/kernels/safe_root.rk with x86 intrinsics (the same kernel and run
 * as tests/shared/conformance/stacks_several.rk). */
#include "rake_intrin.h"

struct rake_stack_Samples_v2 {
    int64_t count;
    float *value;
};
struct rake_stack_Roots_v2 {
    int64_t count;
    float *root;
};

V safe_root__safe_root(V values)
{
    return vsqrt_underz(vge(values, vzero()), values);
}

/* the tail's inactive lanes read 0: valid, sqrt(0) raises nothing */
void safe_root__roots(const struct rake_stack_Samples_v2 *input, struct rake_stack_Roots_v2 *output)
{
    int64_t full = RK_FULL(input->count), rem = RK_REM(input->count);
    const float *x = input->value;
    float *r = output->root;
    RK_LOOP for (int64_t i = 0; i < full; i += L)
        vstoreu(r + i, safe_root__safe_root(vloadu(x + i)));
    if (rem) {
        M t = tail_mask(rem);
        store_tail(r + full, safe_root__safe_root(load_tail(x + full, rem, t)), rem, t);
    }
}

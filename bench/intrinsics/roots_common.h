/* The safe-root rake and its run over a Samples stack into a Roots stack,
 * shared by tests/shared/conformance/stacks_several.rk and
 * bench/kernels/safe_root.rk: define PFX (the C prefix) first. */
#include "rake_intrin.h"

#define RK_CAT_(a, b) a##__##b
#define RK_CAT(a, b) RK_CAT_(a, b)

struct rake_stack_Samples_v2 {
    int64_t count;
    float *value;
};
struct rake_stack_Roots_v2 {
    int64_t count;
    float *root;
};

V RK_CAT(PFX, safe_root)(V values)
{
    return vsqrt_underz(vge(values, vzero()), values);
}

/* the tail's inactive lanes read 0: valid, sqrt(0) raises nothing */
void RK_CAT(PFX, roots)(const struct rake_stack_Samples_v2 *input, struct rake_stack_Roots_v2 *output)
{
    int64_t full = RK_FULL(input->count), rem = RK_REM(input->count);
    const float *x = input->value;
    float *r = output->root;
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L)
        vstoreu(r + i, RK_CAT(PFX, safe_root)(vloadu(x + i)));
    if (rem) {
        M t = tail_mask(rem);
        store_tail(r + full, RK_CAT(PFX, safe_root)(load_tail(x + full, rem, t)), rem, t);
    }
}

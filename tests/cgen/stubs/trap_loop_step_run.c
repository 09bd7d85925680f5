/* tests/interp/trap_loop_step_run.rk's run: for <i> from <0> up to <8>
 * by <st>: out[<i>] <- <1.0> */
#include "stub.h"

trap_fn rk_trap_6_3, rk_trap_7_8;

void fill(float *p_out, int32_t p_out_count, int32_t st)
{
    step(rk_trap_6_3, st);
    for (int64_t i = 0; i < 8; i += st) {
        rack(rk_trap_7_8, i, p_out_count);
        for (int l = 0; l < LANES; l++)
            p_out[i + l] = 1.0f;
    }
}

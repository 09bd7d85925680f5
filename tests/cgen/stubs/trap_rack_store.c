/* tests/interp/trap_rack_store.rk's run: out[<k>] <- x[<0>] */
#include "stub.h"

trap_fn rk_trap_6_6, rk_trap_6_16;

void store(const float *p_x, int32_t p_x_count, float *p_out, int32_t p_out_count, int32_t k)
{
    rack(rk_trap_6_16, 0, p_x_count);
    rack(rk_trap_6_6, k, p_out_count);
    memcpy(p_out + k, p_x, LANES * sizeof *p_x);
}

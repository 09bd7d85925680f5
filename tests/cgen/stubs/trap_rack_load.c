/* tests/interp/trap_rack_load.rk's runs: out[<0>] <- x[<k>] */
#include "stub.h"

trap_fn rk_trap_6_6, rk_trap_6_16, rk_trap_9_6, rk_trap_9_16;

void load(const float *p_x, int32_t p_x_count, float *p_out, int32_t p_out_count, int32_t k)
{
    rack(rk_trap_6_16, k, p_x_count);
    rack(rk_trap_6_6, 0, p_out_count);
    memcpy(p_out, p_x + k, LANES * sizeof *p_x);
}

void load_at(const float *p_x, int32_t p_x_count, float *p_out, int32_t p_out_count, int32_t k)
{
    rack(rk_trap_9_16, k, p_x_count);
    rack(rk_trap_9_6, 0, p_out_count);
    memcpy(p_out, p_x + k, LANES * sizeof *p_x);
}

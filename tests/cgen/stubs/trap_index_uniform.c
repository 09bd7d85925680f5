/* tests/interp/trap_index_uniform.rk's run: let <v: f32> = <t[k]>, then
 * out[<0>] <- <v> */
#include "stub.h"

trap_fn rk_trap_6_20, rk_trap_7_6;

void first(const float *p_t, int32_t p_t_count, float *p_out, int32_t p_out_count, int32_t k)
{
    element(rk_trap_6_20, k, p_t_count);
    float v = p_t[k];
    rack(rk_trap_7_6, 0, p_out_count);
    for (int l = 0; l < LANES; l++)
        p_out[l] = v;
}

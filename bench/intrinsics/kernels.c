/* examples/kernels.rk with x86 intrinsics (see rake_intrin.h). */
#include "rake_intrin.h"

/* fused bindings: contracted on AVX2 and AVX-512 (rake-opt), not on SSE2 */
V kernels__advance(V positions, V velocities, float dt)
{
    return vfma(velocities, vset1(dt), positions);
}

/* sqrt only in the lanes >= 0 (the others raise nothing), 0 elsewhere */
V kernels__safe_root(V values)
{
    M valid = vge(values, vzero());
    return vsqrt_underz(valid, values);
}

V kernels__grade(V scores)
{
    M high = vge(scores, vset1(90.0f));
    M pass = vge(scores, vset1(50.0f));
    return vsel(high, vset1(3.0f), vsel(pass, vset1(2.0f), vset1(1.0f)));
}

/* IEEE maximum, then minimum: NaN in, quiet NaN out; -0 < +0 */
V kernels__clamp(V values, float low, float high)
{
    return vmin_ieee(vmax_ieee(values, vset1(low)), vset1(high));
}

uint32_t kernels__negatives(V values)
{
    return vbitmask(vlt(values, vzero()));
}

/* strict left fold from lane 0 */
float kernels__total(V values)
{
    return vsum_strict(values);
}

/* tests/shared/conformance/stacks_particles.rk with x86 intrinsics. */
#define PFX stacks_particles
/* `position + velocity * <dt>` is no fused binding: Rake multiplies and
 * adds (rounding twice) on every profile */
#define STEP(v, dt, p) vadd(p, vmul(v, dt))
#include "particles_common.h"

V stacks_particles__step(V position, V velocity, float dt)
{
    return vadd(position, vmul(velocity, vset1(dt)));
}

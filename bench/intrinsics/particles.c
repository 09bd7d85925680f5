/* examples/particles.rk with x86 intrinsics. */
#define PFX particles
/* `| moved <| position + velocity * <dt>`: a fused binding, contracted on
 * AVX2 and AVX-512 */
#define STEP(v, dt, p) vfma(v, dt, p)
#include "particles_common.h"
#include "compact_common.h"

V particles__step(V position, V velocity, float dt)
{
    return vfma(velocity, vset1(dt), position);
}

void particles__survivors(struct rake_stack_Particle_v2 *particles)
{
    float *const col[4] = {particles->posx, particles->posy, particles->velx, particles->vely};
    particles->count = compact_live(col, 4, particles->kill, particles->count);
}

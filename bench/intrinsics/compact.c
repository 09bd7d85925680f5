/* bench/kernels/compact.rk with x86 intrinsics: keep the particles whose
 * kill byte is 0, in their order, in place; all six columns move
 * (compact_common.h, shared with examples/particles.rk's survivors). */
#include "compact_common.h"

struct rake_stack_Particle_v2 {
    int64_t count;
    float *posx;
    float *posy;
    float *velx;
    float *vely;
    float *age;
    uint8_t *kill;
};

void compact__compact_live(struct rake_stack_Particle_v2 *particles)
{
    float *const col[5] = {particles->posx, particles->posy, particles->velx, particles->vely,
                           particles->age};
    particles->count = compact_live(col, 5, particles->kill, particles->count);
}

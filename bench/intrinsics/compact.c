/* bench/kernels/compact.rk with x86 intrinsics: keep the particles whose
 * kill byte is 0, in their order, in place; all six columns move
 * (compact_common.h, shared with examples/particles.rk's survivors). */
#include "compact_common.h"
#include "../c/rake_abi.h" /* the benchmark's descriptors and signatures */

void compact__compact_live(struct rake_stack_Particle_v2 *particles)
{
    float *const col[5] = {particles->posx, particles->posy, particles->velx, particles->vely,
                           particles->age};
    particles->count = compact_live(col, 5, particles->kill, particles->count);
}

/* the signature bench/run checks Rake's run against */
_Static_assert(_Generic(&compact__compact_live, compact_live_fn *: 1, default: 0), "compact__compact_live differs from bench/c/rake_abi.h");

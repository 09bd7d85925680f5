/* The Particle runs of examples/particles.rk and
 * tests/shared/conformance/stacks_particles.rk: define PFX (the C prefix)
 * and STEP(v, dt, p) (contracted or not, as Rake's source) first. */
#include "rake_intrin.h"

#define RK_CAT_(a, b) a##__##b
#define RK_CAT(a, b) RK_CAT_(a, b)

struct rake_stack_Particle_v2 {
    int64_t count;
    float *posx;
    float *posy;
    float *velx;
    float *vely;
    uint8_t *kill;
};

void RK_CAT(PFX, advance)(struct rake_stack_Particle_v2 *particles, float dt)
{
    int64_t full = RK_FULL(particles->count), rem = RK_REM(particles->count);
    float *px = particles->posx, *py = particles->posy;
    const float *vx = particles->velx, *vy = particles->vely;
    const uint8_t *kill = particles->kill;
    V d = vset1(dt);
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L) {
        M alive = vieq0(load_u8(kill + i));
        V x = vloadu(px + i), y = vloadu(py + i);
        V nx = STEP(vloadu(vx + i), d, x), ny = STEP(vloadu(vy + i), d, y);
        vstoreu(px + i, vsel(alive, nx, x));
        vstoreu(py + i, vsel(alive, ny, y));
    }
    if (rem) {
        M t = tail_mask(rem);
        M alive = vieq0(load_u8_tail(kill + full, rem, t));
        V x = load_tail(px + full, rem, t), y = load_tail(py + full, rem, t);
        /* inactive lanes: positions and velocities read 0, dt is made 0
         * (0 * inf would raise invalid) */
        V db = vand_m(t, d);
        V nx = STEP(load_tail(vx + full, rem, t), db, x);
        V ny = STEP(load_tail(vy + full, rem, t), db, y);
        store_where_tail(px + full, nx, x, rem, t, alive);
        store_where_tail(py + full, ny, y, rem, t, alive);
    }
}

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

/* store v where `sel` holds in the tail's first rem lanes, keeping the
 * old values elsewhere (where): only existing records are touched */
#if defined(__AVX512F__)
RK void store_where_tail(float *p, V v, V old, int64_t rem, M t, M sel)
{ (void)old; (void)rem; _mm512_mask_storeu_ps(p, t & sel, v); }
#elif defined(__AVX2__)
RK void store_where_tail(float *p, V v, V old, int64_t rem, M t, M sel)
{ (void)old; (void)rem; _mm256_maskstore_ps(p, _mm256_castps_si256(_mm256_and_ps(t, sel)), v); }
#else
RK void store_where_tail(float *p, V v, V old, int64_t rem, M t, M sel)
{ store_tail(p, vsel(sel, v, old), rem, t); }
#endif

void RK_CAT(PFX, advance)(struct rake_stack_Particle_v2 *particles, float dt)
{
    int64_t full = RK_FULL(particles->count), rem = RK_REM(particles->count);
    float *px = particles->posx, *py = particles->posy;
    const float *vx = particles->velx, *vy = particles->vely;
    const uint8_t *kill = particles->kill;
    V d = vset1(dt);
    RK_LOOP for (int64_t i = 0; i < full; i += L) {
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

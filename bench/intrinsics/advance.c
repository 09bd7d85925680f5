/* bench/kernels/advance.rk with x86 intrinsics: the live particles
 * (kill = 0) move by velocity * dt and age by dt; the dead keep their
 * values (`where #alive`).  Five f32 columns and a u8 column. */
#include "rake_intrin.h"
#include "../c/rake_abi.h" /* the benchmark's descriptors and signatures */

void advance__advance(struct rake_stack_Particle_v2 *particles, float dt)
{
    int64_t full = RK_FULL(particles->count), rem = RK_REM(particles->count);
    float *px = particles->posx, *py = particles->posy, *age = particles->age;
    const float *vx = particles->velx, *vy = particles->vely;
    const uint8_t *kill = particles->kill;
    V d = vset1(dt);
    RK_STACK_LOOP for (int64_t i = 0; i < full; i += L) {
        M alive = vieq0(load_u8(kill + i));
        V x = vloadu(px + i), y = vloadu(py + i), a = vloadu(age + i);
        /* `| moved <| position + velocity * <dt>`: fused, contracted on
         * AVX2 and AVX-512 (vfma is mul then add on SSE2) */
        V nx = vfma(vloadu(vx + i), d, x), ny = vfma(vloadu(vy + i), d, y);
        vstoreu(px + i, vsel(alive, nx, x));
        vstoreu(py + i, vsel(alive, ny, y));
        vstoreu(age + i, vsel(alive, vadd(a, d), a));
    }
    if (rem) {
        M t = tail_mask(rem);
        M alive = vieq0(load_u8_tail(kill + full, rem, t));
        V x = load_tail(px + full, rem, t), y = load_tail(py + full, rem, t);
        V a = load_tail(age + full, rem, t);
        /* inactive lanes read 0 and see dt as 0 (0 * inf would raise
         * invalid, a signalling NaN dt would raise it in the add) */
        V db = vand_m(t, d);
        V nx = vfma(load_tail(vx + full, rem, t), db, x);
        V ny = vfma(load_tail(vy + full, rem, t), db, y);
        store_where_tail(px + full, nx, x, rem, t, alive);
        store_where_tail(py + full, ny, y, rem, t, alive);
        store_where_tail(age + full, vadd(a, db), a, rem, t, alive);
    }
}

/* the scratch `step` on its own (a register kernel) */
V advance__step(V position, V velocity, float dt)
{
    return vfma(velocity, vset1(dt), position);
}

/* the signature bench/run checks Rake's run against */
_Static_assert(_Generic(&advance__advance, advance_fn *: 1, default: 0), "advance__advance differs from bench/c/rake_abi.h");

/* The benchmark's kernels as plain C, for the auto-vectorisers.
 *
 * bench/run compiles this file twice, with `gcc -O3 -march=native` and
 * with `clang -O3 -march=native` (the flags, nothing else: errno
 * for sqrtf and strict float order stay on), and names the functions
 * gcc_* and clang_* with -DVARIANT=...  The loops are written the way a C
 * programmer who wants vector code writes them: unconditional stores
 * with a select instead of an `if` (so masked updates vectorise),
 * branch-free clamps, and a dot product with sixteen partial sums in
 * fixed order instead of one (a single float accumulator cannot be
 * vectorised without -ffast-math).  Compaction stays a scalar loop: no C
 * compiler vectorises it, which is the point of the comparison.
 *
 * Each function has the Rake run's signature (rake_abi.h) and computes
 * what the run computes: `where` keeps old values, compaction keeps
 * order, the clamps are min(max(v, lo), hi) in the column's signedness,
 * u8 -> f32 is exact.  The compilers contract a*b+c into FMA where the
 * machine has it, as Rake does on AVX2 and AVX-512 (not on SSE2). */
#include "rake_abi.h"

#include <math.h>
#include <stddef.h>

#ifndef VARIANT
#define VARIANT c_
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(k) CAT(VARIANT, k)

void NAME(advance)(struct rake_stack_Particle_v2 *p, float dt)
{
    int64_t n = p->count;
    float *restrict px = p->posx, *restrict py = p->posy;
    const float *restrict vx = p->velx, *restrict vy = p->vely;
    float *restrict age = p->age;
    const uint8_t *restrict kill = p->kill;
    for (int64_t i = 0; i < n; i++) {
        int alive = kill[i] == 0;
        float nx = px[i] + vx[i] * dt;
        float ny = py[i] + vy[i] * dt;
        float na = age[i] + dt;
        px[i] = alive ? nx : px[i];
        py[i] = alive ? ny : py[i];
        age[i] = alive ? na : age[i];
    }
}

void NAME(compact_live)(struct rake_stack_Particle_v2 *p)
{
    int64_t n = p->count, j = 0;
    float *px = p->posx, *py = p->posy, *vx = p->velx, *vy = p->vely;
    float *age = p->age;
    uint8_t *kill = p->kill;
    for (int64_t i = 0; i < n; i++) {
        if (kill[i] == 0) {
            px[j] = px[i];
            py[j] = py[i];
            vx[j] = vx[i];
            vy[j] = vy[i];
            age[j] = age[i];
            kill[j] = kill[i];
            j++;
        }
    }
    p->count = j;
}

void NAME(roots)(const struct rake_stack_Samples_v2 *in,
                 struct rake_stack_Roots_v2 *out)
{
    int64_t n = out->count;
    const float *restrict v = in->value;
    float *restrict r = out->root;
    for (int64_t i = 0; i < n; i++)
        r[i] = v[i] >= 0.0f ? sqrtf(v[i]) : 0.0f;
}

void NAME(clamp_counts)(struct rake_stack_Counts_v2 *c, int32_t lo,
                        int32_t hi, uint32_t ulo, uint32_t uhi)
{
    int64_t n = c->count;
    int32_t *restrict s = c->signed_value;
    uint32_t *restrict u = c->unsigned_value;
    for (int64_t i = 0; i < n; i++) {
        int32_t a = s[i] > lo ? s[i] : lo;
        s[i] = a < hi ? a : hi;
        uint32_t b = u[i] > ulo ? u[i] : ulo;
        u[i] = b < uhi ? b : uhi;
    }
}

void NAME(normalise)(const struct rake_stack_Bytes_v2 *in,
                     struct rake_stack_Levels_v2 *out, float scale)
{
    int64_t n = out->count;
    const uint8_t *restrict b = in->level;
    float *restrict v = out->value;
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)b[i] * scale;
}

void NAME(dot_product)(const float *x, int32_t xn, const float *y,
                       int32_t yn, float *out, int32_t outn, int32_t n)
{
    (void)xn, (void)yn, (void)outn;
    float acc[16] = {0};
    int32_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            acc[k] += x[i + k] * y[i + k];
    for (; i < n; i++)
        acc[0] += x[i] * y[i];
    float total = acc[0];
    for (int k = 1; k < 16; k++)
        total += acc[k];
    out[0] = total;
}

void NAME(count_above)(const float *keys, int32_t kn, uint32_t *out,
                       int32_t outn, int32_t n, float threshold)
{
    (void)kn, (void)outn;
    uint32_t total = 0;
    for (int32_t i = 0; i < n; i++)
        total += keys[i] > threshold;
    out[0] = total;
}

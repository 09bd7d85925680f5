/* The benchmark's kernels as hand-written SIMD with Google Highway.
 *
 * This is what a C++ programmer writes when the auto-vectoriser is not
 * enough: one loop over full vectors with Highway's portable operations,
 * and a scalar loop for the last partial vector.  bench/run compiles the
 * file once per instruction set, with the -m flags that make Highway's
 * static target the one wanted (-mssse3: SSSE3, Highway 1.0.3's lowest x86
 * target, standing in for SSE2; -march=haswell: AVX2; -march=
 * skylake-avx512: AVX3), and names the functions hwy_<isa>_* with
 * -DVARIANT=...  Static dispatch only: no run-time detection, no table.
 * bench/run uses clang++: g++ 12 copies Highway 1.0.3's 1 KiB table of
 * lane orders onto the stack (memcpy) at every Compress on AVX2, which
 * would make the hand-written compaction look ten times slower than it is.
 *
 * The kernels compute what the Rake runs compute (rake_abi.h): `where` is
 * IfThenElse, compaction is CompressStore per 32-bit column and Compress
 * then DemoteTo for the u8 column (the cursor never passes the rack being
 * read, so in-place stores are safe), the clamps are Min(Max()).  Two
 * choices differ from Rake's arithmetic and are checked with a tolerance
 * by the harness: MulAdd (one rounding on AVX2/AVX3, two on SSSE3), and the
 * dot product's four accumulators, reduced with ReduceSum.  The bitmask
 * count is CountTrue of each comparison mask (movemask and popcount). */
#include "rake_abi.h"

#include <hwy/highway.h>

#include <math.h>
#include <stddef.h>

#ifndef VARIANT
#define VARIANT hwy_
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(k) CAT(VARIANT, k)

namespace hn = hwy::HWY_NAMESPACE;

namespace {
using DF = hn::ScalableTag<float>;
using DI = hn::ScalableTag<int32_t>;
using DU = hn::ScalableTag<uint32_t>;
using D8 = hn::Rebind<uint8_t, DI>;

/* the u8 column's rack widened to 32-bit lanes */
HWY_INLINE hn::Vec<DI> load_u8(const uint8_t *p)
{
    return hn::PromoteTo(DI(), hn::LoadU(D8(), p));
}
} // namespace

extern "C" {

void NAME(advance)(struct rake_stack_Particle_v2 *p, float dt)
{
    const DF df;
    const DI di;
    const size_t N = hn::Lanes(df);
    const int64_t n = p->count;
    const auto vdt = hn::Set(df, dt);
    int64_t i = 0;
    for (; i + (int64_t)N <= n; i += N) {
        const auto alive = hn::RebindMask(df, hn::Eq(load_u8(p->kill + i), hn::Zero(di)));
        const auto px = hn::LoadU(df, p->posx + i), py = hn::LoadU(df, p->posy + i);
        const auto age = hn::LoadU(df, p->age + i);
        const auto vx = hn::LoadU(df, p->velx + i), vy = hn::LoadU(df, p->vely + i);
        hn::StoreU(hn::IfThenElse(alive, hn::MulAdd(vx, vdt, px), px), df, p->posx + i);
        hn::StoreU(hn::IfThenElse(alive, hn::MulAdd(vy, vdt, py), py), df, p->posy + i);
        hn::StoreU(hn::IfThenElse(alive, hn::Add(age, vdt), age), df, p->age + i);
    }
    for (; i < n; i++) {
        if (p->kill[i] == 0) {
            p->posx[i] = fmaf(p->velx[i], dt, p->posx[i]);
            p->posy[i] = fmaf(p->vely[i], dt, p->posy[i]);
            p->age[i] += dt;
        }
    }
}

void NAME(compact_live)(struct rake_stack_Particle_v2 *p)
{
    const DF df;
    const DI di;
    const size_t N = hn::Lanes(df);
    const int64_t n = p->count;
    float *cols[5] = {p->posx, p->posy, p->velx, p->vely, p->age};
    int64_t i = 0, j = 0;
    for (; i + (int64_t)N <= n; i += N) {
        const auto kill = load_u8(p->kill + i);
        const auto keep = hn::Eq(kill, hn::Zero(di));
        const auto keepf = hn::RebindMask(df, keep);
        for (int c = 0; c < 5; c++)
            hn::CompressStore(hn::LoadU(df, cols[c] + i), keepf, df, cols[c] + j);
        hn::StoreU(hn::DemoteTo(D8(), hn::Compress(kill, keep)), D8(), p->kill + j);
        j += (int64_t)hn::CountTrue(di, keep);
    }
    for (; i < n; i++) {
        if (p->kill[i] == 0) {
            for (int c = 0; c < 5; c++)
                cols[c][j] = cols[c][i];
            p->kill[j] = p->kill[i];
            j++;
        }
    }
    p->count = j;
}

void NAME(roots)(const struct rake_stack_Samples_v2 *in,
                 struct rake_stack_Roots_v2 *out)
{
    const DF df;
    const size_t N = hn::Lanes(df);
    const int64_t n = out->count;
    int64_t i = 0;
    for (; i + (int64_t)N <= n; i += N) {
        const auto v = hn::LoadU(df, in->value + i);
        const auto ok = hn::Ge(v, hn::Zero(df));
        hn::StoreU(hn::IfThenElseZero(ok, hn::Sqrt(v)), df, out->root + i);
    }
    for (; i < n; i++)
        out->root[i] = in->value[i] >= 0.0f ? sqrtf(in->value[i]) : 0.0f;
}

void NAME(clamp_counts)(struct rake_stack_Counts_v2 *c, int32_t lo,
                        int32_t hi, uint32_t ulo, uint32_t uhi)
{
    const DI di;
    const DU du;
    const size_t N = hn::Lanes(di);
    const int64_t n = c->count;
    const auto vlo = hn::Set(di, lo), vhi = hn::Set(di, hi);
    const auto vulo = hn::Set(du, ulo), vuhi = hn::Set(du, uhi);
    int64_t i = 0;
    for (; i + (int64_t)N <= n; i += N) {
        const auto s = hn::LoadU(di, c->signed_value + i);
        const auto u = hn::LoadU(du, c->unsigned_value + i);
        hn::StoreU(hn::Min(hn::Max(s, vlo), vhi), di, c->signed_value + i);
        hn::StoreU(hn::Min(hn::Max(u, vulo), vuhi), du, c->unsigned_value + i);
    }
    for (; i < n; i++) {
        int32_t s = c->signed_value[i] > lo ? c->signed_value[i] : lo;
        c->signed_value[i] = s < hi ? s : hi;
        uint32_t u = c->unsigned_value[i] > ulo ? c->unsigned_value[i] : ulo;
        c->unsigned_value[i] = u < uhi ? u : uhi;
    }
}

void NAME(normalise)(const struct rake_stack_Bytes_v2 *in,
                     struct rake_stack_Levels_v2 *out, float scale)
{
    const DF df;
    const size_t N = hn::Lanes(df);
    const int64_t n = out->count;
    const auto vs = hn::Set(df, scale);
    int64_t i = 0;
    for (; i + (int64_t)N <= n; i += N) {
        const auto v = hn::ConvertTo(df, load_u8(in->level + i));
        hn::StoreU(hn::Mul(v, vs), df, out->value + i);
    }
    for (; i < n; i++)
        out->value[i] = (float)in->level[i] * scale;
}

void NAME(dot_product)(const float *x, int32_t xn, const float *y,
                       int32_t yn, float *out, int32_t outn, int32_t n)
{
    (void)xn, (void)yn, (void)outn;
    const DF df;
    const int32_t N = (int32_t)hn::Lanes(df);
    auto a0 = hn::Zero(df), a1 = a0, a2 = a0, a3 = a0;
    int32_t i = 0;
    for (; i + 4 * N <= n; i += 4 * N) {
        a0 = hn::MulAdd(hn::LoadU(df, x + i), hn::LoadU(df, y + i), a0);
        a1 = hn::MulAdd(hn::LoadU(df, x + i + N), hn::LoadU(df, y + i + N), a1);
        a2 = hn::MulAdd(hn::LoadU(df, x + i + 2 * N), hn::LoadU(df, y + i + 2 * N), a2);
        a3 = hn::MulAdd(hn::LoadU(df, x + i + 3 * N), hn::LoadU(df, y + i + 3 * N), a3);
    }
    for (; i + N <= n; i += N)
        a0 = hn::MulAdd(hn::LoadU(df, x + i), hn::LoadU(df, y + i), a0);
    float total = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
    for (; i < n; i++)
        total += x[i] * y[i];
    out[0] = total;
}

void NAME(count_above)(const float *keys, int32_t kn, uint32_t *out,
                       int32_t outn, int32_t n, float threshold)
{
    (void)kn, (void)outn;
    const DF df;
    const int32_t N = (int32_t)hn::Lanes(df);
    const auto t = hn::Set(df, threshold);
    size_t total = 0;
    int32_t i = 0;
    for (; i + N <= n; i += N)
        total += hn::CountTrue(df, hn::Gt(hn::LoadU(df, keys + i), t));
    for (; i < n; i++)
        total += keys[i] > threshold;
    out[0] = (uint32_t)total;
}

} // extern "C"

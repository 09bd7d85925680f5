/* demo.c: call the Rake kernels of examples/kernels.rk from C.
 *
 * tools/demo compiles kernels.rk for this machine's profile with
 * `rakec --verify-native`, writes kernels.h with `--emit-header`, and
 * builds this file against them.  RAKE_LANES is the profile's f32 lane
 * count; RAKE_RACK is its vector type (__m128, __m256 or __m512). */
#include <stdio.h>
#include <string.h>

#include "kernels.h"

#define N 32

static RAKE_RACK load(const float *p)
{
    RAKE_RACK r;
    memcpy(&r, p, sizeof r);
    return r;
}

static void store(float *p, RAKE_RACK r) { memcpy(p, &r, sizeof r); }

int main(void)
{
    float pos[N], vel[N], scores[N], out[N];
    for (int i = 0; i < N; i++) {
        pos[i] = (float)i;
        vel[i] = 0.25f * (float)(i % 5) - 0.5f;
        scores[i] = (float)((i * 37) % 101);
    }
    float total_sum = 0;
    unsigned negative = 0;
    for (int i = 0; i < N; i += RAKE_LANES) {
        RAKE_RACK p = advance(load(pos + i), load(vel + i), 4.0f);
        store(out + i, p);
        negative += (unsigned)__builtin_popcount(negatives(p));
        total_sum += total(safe_root(p));
    }
    printf("advance: first positions %.2f %.2f %.2f %.2f\n", out[0], out[1], out[2], out[3]);
    printf("negative positions after one step: %u of %d\n", negative, N);
    printf("sum of safe square roots: %.4f\n", total_sum);
    float grades[N];
    for (int i = 0; i < N; i += RAKE_LANES)
        store(grades + i, clamp(grade(load(scores + i)), 1.0f, 2.5f));
    printf("clamped grades of the first scores:");
    for (int i = 0; i < 8; i++)
        printf(" %.0f->%.1f", scores[i], grades[i]);
    printf("\n");
    return 0;
}

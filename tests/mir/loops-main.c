/* tests/mir/loops-main.c: calls the hand-written loops of loops.mir.json
 * (vsum, scale, swap) from C and checks every lane against a plain C loop. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__m256 vsum(const float *p, int64_t n);
void scale(float *p, int64_t n, float k);
__m256 swap(__m256 x, __m256 y, int64_t n);

int main(void)
{
    static float a[8 * 37] __attribute__((aligned(32)));
    int bad = 0;
    for (int i = 0; i < 8 * 37; i++)
        a[i] = (float)((i * 7919) % 1000) / 8.0f - 60.0f;
    for (int64_t n = 0; n <= 37; n++) {
        float got[8], want[8] = {0};
        _mm256_storeu_ps(got, vsum(a, n));
        for (int64_t i = 0; i < n; i++)
            for (int l = 0; l < 8; l++)
                want[l] += a[8 * i + l];
        if (memcmp(got, want, sizeof got)) {
            printf("vsum n=%lld: lane 0 %g, want %g\n", (long long)n, got[0], want[0]);
            bad++;
        }
    }
    static float b[8 * 5], c[8 * 5];
    for (int i = 0; i < 8 * 5; i++)
        b[i] = c[i] = (float)i - 3.5f;
    scale(b, 4, 2.5f);
    for (int i = 0; i < 8 * 5; i++)
        if (b[i] != (i < 32 ? c[i] * 2.5f : c[i])) {
            printf("scale: b[%d] = %g\n", i, b[i]);
            bad++;
        }
    scale(b, 0, 100.0f);
    if (b[0] != c[0] * 2.5f)
        bad++;
    for (int64_t n = 0; n < 9; n++) {
        float got[8];
        _mm256_storeu_ps(got, swap(_mm256_set1_ps(1.0f), _mm256_set1_ps(2.0f), n));
        if (got[0] != (n % 2 ? 2.0f : 1.0f) || got[7] != got[0]) {
            printf("swap n=%lld: %g\n", (long long)n, got[0]);
            bad++;
        }
    }
    printf("loops: %d failures\n", bad);
    return bad != 0;
}

/* The C boundary of the benchmark's Rake runs, and the one signature every
 * variant of a kernel shares.
 *
 * Spec page 03 fixes how a stack run looks from C: a descriptor per stack
 * (`int64_t count`, then one pointer per column in declaration order), the
 * result's descriptor non-const, uniforms by value; a general run takes a
 * view as a pointer and an `int32_t` count.  `rakec --emit-header` writes
 * exactly these structs; bench/run compares them with this file and checks
 * each run's prototype against the typedef below with `_Generic`, so a
 * change in the compiler's boundary stops the build instead of calling a
 * run with the wrong arguments.
 *
 * Every variant of a kernel (Rake per profile, plain C per compiler,
 * Highway per instruction set) has the same signature, so the harness can
 * hold them in one table and call them alike.  dot_product and count_above
 * are general runs (views); rakec refuses those natively today, but their
 * signature is still the one the spec gives them. */
#ifndef BENCH_RAKE_ABI_H
#define BENCH_RAKE_ABI_H

#include <stdint.h>

/* bench/run includes this file after a generated header, with
 * BENCH_NO_STRUCTS, to check each run's prototype against its typedef */
#ifndef BENCH_NO_STRUCTS
struct rake_stack_Particle_v2 {
    int64_t count;
    float *posx;
    float *posy;
    float *velx;
    float *vely;
    float *age;
    uint8_t *kill;
};
struct rake_stack_Samples_v2 {
    int64_t count;
    float *value;
};
struct rake_stack_Roots_v2 {
    int64_t count;
    float *root;
};
struct rake_stack_Counts_v2 {
    int64_t count;
    int32_t *signed_value;
    uint32_t *unsigned_value;
};
struct rake_stack_Bytes_v2 {
    int64_t count;
    uint8_t *level;
};
struct rake_stack_Levels_v2 {
    int64_t count;
    float *value;
};
#endif

struct rake_stack_Particle_v2;
struct rake_stack_Samples_v2;
struct rake_stack_Roots_v2;
struct rake_stack_Counts_v2;
struct rake_stack_Bytes_v2;
struct rake_stack_Levels_v2;

typedef void advance_fn(struct rake_stack_Particle_v2 *particles, float dt);
typedef void compact_live_fn(struct rake_stack_Particle_v2 *particles);
typedef void roots_fn(const struct rake_stack_Samples_v2 *input,
                      struct rake_stack_Roots_v2 *output);
typedef void clamp_counts_fn(struct rake_stack_Counts_v2 *values, int32_t lo,
                             int32_t hi, uint32_t ulo, uint32_t uhi);
typedef void normalise_fn(const struct rake_stack_Bytes_v2 *input,
                          struct rake_stack_Levels_v2 *output, float scale);
typedef void dot_product_fn(const float *p_x, int32_t p_x_count,
                            const float *p_y, int32_t p_y_count, float *p_out,
                            int32_t p_out_count, int32_t n);
typedef void count_above_fn(const float *p_keys, int32_t p_keys_count,
                            uint32_t *p_out, int32_t p_out_count, int32_t n,
                            float threshold);

#endif

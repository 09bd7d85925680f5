/* tests/c/interop.h: the C side of the C-interop tests (tests/c/interop.c).
 * Rake programs under tests/ declare these with `from "...interop.h"`. */
#ifndef RAKE_TESTS_INTEROP_H
#define RAKE_TESTS_INTEROP_H
#include <stdint.h>

typedef struct Vec2 { float x; float y; } Vec2;
typedef union Bits { float f; uint32_t u; } Bits;
typedef struct Opaque Opaque;
typedef struct Counter { int32_t hits; int32_t last; } Counter;

int32_t add_i32(int32_t a, int32_t b);
int32_t str_len(const uint8_t *s);
float vec_len2(Vec2 v);
Vec2 vec_scale(Vec2 v, float k);
int32_t apply_twice(int32_t (*f)(int32_t), int32_t x);
uint32_t float_bits(Bits b);
Opaque *opaque_new(int32_t v);
int32_t opaque_get(const Opaque *o);
void counter_hit(Counter *c, int32_t v);
int32_t sum_i32(const int32_t *xs, int32_t n);

/* A record holding a callback, and C calling Rake through it. */
typedef struct Handler { int32_t (*fn)(int32_t); int32_t bias; } Handler;
int32_t handler_run(const Handler *h, int32_t x);
/* Rake-layout memory filled by C through a void pointer. */
void fill_i32(void *dst, int32_t n, int32_t v);
/* A record with an array member, by value both ways. */
typedef struct Quad { int32_t v[4]; float w; } Quad;
Quad quad_rev(Quad q);
/* The first byte of a string, and a byte count of embedded data. */
int32_t first_byte(const char *s);
int32_t sum_bytes(const uint8_t *p, int32_t n);
#endif

/* tests/c/interop.c: C functions the C-interop programs call as externs. */
#include "interop.h"

#include <stdlib.h>

int32_t add_i32(int32_t a, int32_t b) { return a + b; }

int32_t str_len(const uint8_t *s)
{
    int32_t n = 0;
    while (s[n])
        n++;
    return n;
}

float vec_len2(Vec2 v) { return v.x * v.x + v.y * v.y; }

Vec2 vec_scale(Vec2 v, float k) { return (Vec2){v.x * k, v.y * k}; }

int32_t apply_twice(int32_t (*f)(int32_t), int32_t x) { return f(f(x)); }

uint32_t float_bits(Bits b) { return b.u; }

struct Opaque { int32_t v; };

Opaque *opaque_new(int32_t v)
{
    Opaque *o = malloc(sizeof *o);
    if (o)
        o->v = v;
    return o;
}

int32_t opaque_get(const Opaque *o) { return o->v; }

void counter_hit(Counter *c, int32_t v)
{
    c->hits++;
    c->last = v;
}

int32_t sum_i32(const int32_t *xs, int32_t n)
{
    int32_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += xs[i];
    return s;
}

int32_t handler_run(const Handler *h, int32_t x) { return h->fn(x) + h->bias; }

void fill_i32(void *dst, int32_t n, int32_t v)
{
    int32_t *d = dst;
    for (int32_t i = 0; i < n; i++)
        d[i] = v + i;
}

Quad quad_rev(Quad q)
{
    Quad r;
    for (int i = 0; i < 4; i++)
        r.v[i] = q.v[3 - i];
    r.w = q.w * 2.0f;
    return r;
}

int32_t first_byte(const char *s) { return (unsigned char)s[0]; }

int32_t sum_bytes(const uint8_t *p, int32_t n)
{
    int32_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s += p[i];
    return s;
}

/* random.c: the random source, strings, fresh names and literal pools.
 *
 * The source is splitmix64 over one 64-bit state, seeded once by main
 * (one stream per seed and profile); rnd(n) is uniform enough in [0, n)
 * and chance(p) is true p times in a hundred.  Strings are never freed
 * (the program runs once and exits).  The literal pools are the literals
 * of vector code: signed zeros, halves, 2^24 + 1, 2^31, f32 extremes, a
 * subnormal, integer extremes and u32 values with bit 31 set. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen-runs.h"

static uint64_t rstate;

void rand_seed(uint64_t s) { rstate = s; }

uint64_t next64(void)
{
    uint64_t z = (rstate += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int rnd(int n) { return n <= 1 ? 0 : (int)(next64() % (uint64_t)n); }
int chance(int pct) { return rnd(100) < pct; }

char *xfmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

void bput(Buf *b, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    if (b->n + (size_t)n + 1 > b->cap) {
        b->cap = (b->n + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    va_start(ap, f);
    vsnprintf(b->s + b->n, (size_t)n + 1, f, ap);
    va_end(ap);
    b->n += (size_t)n;
}

static int name_counter;
char *fresh(const char *p) { return xfmt("%s%d", p, name_counter++); }

static const char *F_LITS[] = {
    "0.0",  "-0.0", "1.0",    "-1.0",  "0.5",        "1.5",          "-2.5",    "2.0",
    "3.0",  "100.0", "1e-3",  "3.4e38", "1e-40",     "16777217.0",   "0.25",    "65536.0",
    "-0.5", "7.0",  "0.333", "1.0e10", "2147483648.0", "-2147483648.0", "12.75", "4294967296.0",
};
static const char *I_LITS[] = {"0",   "1",   "-1",         "2",           "7",
                               "-17", "255", "2147483647", "-2147483648", "1000000",
                               "-5",  "3",   "65535",      "-128"};
static const char *U_LITS[] = {"0",          "1",          "2",          "7",     "255",
                               "2147483648", "4294967295", "0x80000000", "65536", "3",
                               "0x55555555", "128"};

const char *lit_of(int t)
{
    if (t == T_F)
        return F_LITS[rnd(COUNT(F_LITS))];
    if (t == T_I)
        return I_LITS[rnd(COUNT(I_LITS))];
    return U_LITS[rnd(COUNT(U_LITS))];
}

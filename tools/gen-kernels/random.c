/* random.c: the random source, strings, fresh names and literal pools.
 *
 * The source is splitmix64 over one 64-bit state, seeded once by main
 * (one stream per seed, profile and --contract-rich); rnd(n) is uniform
 * enough in [0, n) and chance(p) is true p times in a hundred.  Every
 * random choice of the generator reads this stream, so the order of the
 * reads is the output's identity: the same arguments give the same reads
 * in the same order, hence the same files.
 *
 * Strings are never freed (the program runs once and exits): xfmt formats
 * into a new string, bput appends to a growing buffer.  Fresh names share
 * one counter for the whole run, so a name never repeats across groups.
 *
 * The literal pools hold the text of the literals kernels may contain,
 * by element: signed zeros, halves and ties, the 2^23, 2^31 and 2^32
 * boundaries, f32 extremes and a subnormal, integer extremes, u32 values
 * with bit 31 set, and integer-looking float literals ("2", "7", "-3")
 * that a float context types. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen-kernels.h"

/* --- random --------------------------------------------------------------- */

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

/* --- strings -------------------------------------------------------------- */

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

/* --- names ---------------------------------------------------------------- */

static int name_counter;
char *fresh(const char *p) { return xfmt("%s%d", p, name_counter++); }

/* --- literals ------------------------------------------------------------- */

static const char *F_LITS[] = {
    "0.0",  "-0.0",       "1.0",          "-1.0",          "0.5",          "1.5",
    "2.5",  "-2.5",       "2.0",          "3.0",           "100.0",        "0.1",
    "1e-3", "3.4e38",     "1e-40",        "16777217.0",    "2147483648.0", "-2147483648.0",
    "0.25", "4294967296.0", "8388608.0", "0.333",         "65536.0",      "2",
    "7",    "16777217",   "-3",           "1.0e10",        "-0.5",         "12.75",
};
static const char *I_LITS[] = {"0",  "1",          "-1",          "2",          "7",
                               "-17", "31",        "255",         "65535",      "2147483647",
                               "-2147483648", "0x7fffffff", "1000000", "-5", "3"};
static const char *U_LITS[] = {"0",          "1",          "2",          "7",
                               "255",        "2147483648", "4294967295", "0xffffffff",
                               "0x80000000", "3",          "65536",      "0x55555555"};

const char *lit_of(int elem) /* elem: T_F, T_I or T_U */
{
    if (elem == T_F)
        return F_LITS[rnd(COUNT(F_LITS))];
    if (elem == T_I)
        return I_LITS[rnd(COUNT(I_LITS))];
    return U_LITS[rnd(COUNT(U_LITS))];
}

char *lit_text(const char *l) { return l[0] == '-' ? xfmt("(%s)", l) : xfmt("%s", l); }
char *lit_key(const char *l) { return xfmt("n:%a", strtod(l, NULL)); }

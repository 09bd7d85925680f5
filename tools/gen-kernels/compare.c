/* compare.c: --compare and --show.
 *
 * --compare A.out B.out F.rk F.calls checks two `rake-interp --kernels`
 * outputs for the calls of F.calls line by line: the kernel names must
 * agree and the results be equal bit for bit, except that in the lanes of
 * an _f kernel (an f32 result: NaN payloads are unspecified) any NaN
 * equals any NaN.  It prints the group of each of the first ten
 * mismatching kernels, the call and both results, then a count, and
 * exits 1 on any mismatch or when the outputs and calls differ in length
 * (naming the first call without a result: the kernel it crashed on).
 *
 * --show F.rk NAME|LINE prints a kernel's group, by name or group prefix
 * (kNNNN), or the group holding line LINE of F.rk: a failing test names
 * lines and kernels, and this turns either into the source to read. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "gen-kernels.h"

/* --- comparing outputs ---------------------------------------------------------- */

static char **read_lines(const char *path, int *n, int skip_comments)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gen-kernels: cannot open %s\n", path);
        exit(2);
    }
    char **v = NULL;
    int cap = 0;
    *n = 0;
    char *line = NULL;
    size_t lc = 0;
    ssize_t got;
    while ((got = getline(&line, &lc, f)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
        if (skip_comments) {
            const char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!*p || *p == '#')
                continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            v = realloc(v, sizeof *v * (size_t)cap);
        }
        v[(*n)++] = xfmt("%s", line);
    }
    free(line);
    fclose(f);
    return v;
}

static int is_nan_hex(const char *s, size_t n)
{
    char buf[32];
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    unsigned long long x = strtoull(buf, NULL, 16);
    return (x & 0x7fffffffu) > 0x7f800000u && x <= 0xffffffffull;
}

/* Equal results: bit for bit, except any NaN lane equals any NaN lane in
 * an f32 result. */
static int same(const char *a, const char *b, int fl)
{
    if (!strcmp(a, b))
        return 1;
    if (!fl)
        return 0;
    for (;;) {
        size_t na = strcspn(a, ","), nb = strcspn(b, ",");
        int eq = (na == nb && !strncmp(a, b, na)) || (is_nan_hex(a, na) && is_nan_hex(b, nb));
        if (!eq)
            return 0;
        if (!a[na] || !b[nb])
            return !a[na] && !b[nb];
        a += na + 1;
        b += nb + 1;
    }
}

/* The group of a kernel, by its name or its group's prefix (kNNNN). */
static void print_kernel(char **rk, int nrk, const char *name)
{
    size_t n = strcspn(name, "_");
    int on = 0;
    for (int i = 0; i < nrk; i++) {
        if (!strncmp(rk[i], "~~ begin ", 9) && !strncmp(rk[i] + 9, name, n) &&
            rk[i][9 + n] == '_')
            on = 1;
        if (on)
            printf("    %s\n", rk[i]);
        if (on && !strncmp(rk[i], "~~ end ", 7))
            break;
    }
}

/* --show F.rk NAME|LINE: the group of a kernel, or the one holding a line. */
int show(const char *prk, const char *what)
{
    int nrk;
    char **rk = read_lines(prk, &nrk, 0);
    char *end;
    long line = strtol(what, &end, 10);
    if (*end) {
        print_kernel(rk, nrk, what);
        return 0;
    }
    const char *name = NULL;
    for (int i = 0; i < nrk && i < line; i++)
        if (!strncmp(rk[i], "~~ begin ", 9))
            name = rk[i] + 9;
    if (name)
        print_kernel(rk, nrk, name);
    return 0;
}

int compare(const char *pa, const char *pb, const char *prk, const char *pcalls)
{
    int na, nb, nrk, nc;
    char **a = read_lines(pa, &na, 0), **b = read_lines(pb, &nb, 0);
    char **rk = read_lines(prk, &nrk, 0), **calls = read_lines(pcalls, &nc, 1);
    int bad = 0, shown = 0;
    char *last = NULL;
    int n = na < nb ? na : nb;
    for (int i = 0; i < n; i++) {
        char *sa = strchr(a[i], ' '), *sb = strchr(b[i], ' ');
        size_t la = sa ? (size_t)(sa - a[i]) : strlen(a[i]);
        size_t lb = sb ? (size_t)(sb - b[i]) : strlen(b[i]);
        int fl = la > 2 && a[i][la - 2] == '_' && a[i][la - 1] == 'f';
        if (la != lb || strncmp(a[i], b[i], la) || !sa || !sb || !same(sa + 1, sb + 1, fl)) {
            bad++;
            char *name = xfmt("%.*s", (int)la, a[i]);
            if (shown < 10) {
                printf("MISMATCH in %s (call %d):\n", name, i + 1);
                if (!last || strcmp(last, name))
                    print_kernel(rk, nrk, name);
                printf("  call:  %s\n", i < nc ? calls[i] : "?");
                printf("  first:  %s\n  second: %s\n", a[i], b[i]);
                shown++;
            }
            last = name;
        }
    }
    if (na != nb || na != nc) {
        printf("OUTPUT LENGTHS DIFFER: %d and %d result lines for %d calls\n", na, nb, nc);
        int k = na < nb ? na : nb;
        if (k < nc) {
            char *sp = strchr(calls[k], ' ');
            char *name = xfmt("%.*s", sp ? (int)(sp - calls[k]) : (int)strlen(calls[k]), calls[k]);
            printf("  the first missing result is of %s; call: %s\n", name, calls[k]);
            print_kernel(rk, nrk, name);
        }
        bad++;
    }
    printf("%d calls compared, %d mismatches\n", n, bad);
    return bad ? 1 : 0;
}

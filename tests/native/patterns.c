/* tests/native/patterns.c: the selection patterns and tails of native
 * stack runs (tests/native/patterns.rk), against the semantics of spec
 * page 03 written out in C.
 *
 *   patterns LANES MODE     MODE: select | tails
 *
 * Every column lives at the end of its own pair of pages whose second page
 * is inaccessible, so a run that reads or writes one record past the count
 * faults; records before the count are compared bit for bit.  `select`
 * runs every selection pattern of one rack (LANES <= 8: all 2^LANES; 16: a
 * fixed random 4,096 of the 65,536) through compaction (plain and with a
 * replaced column) and through a masked update; `tails` runs every count
 * from 0 to three racks plus one with random selections.  Prints the
 * number of cases checked and exits 1 at the first difference, naming it. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct rake_stack_Rec_v2 { int64_t count; float *x; uint8_t *tag; int16_t *w; int32_t *sel; };
struct rake_stack_Out_v2 { int64_t count; float *y; };
void keep(struct rake_stack_Rec_v2 *r);
void keep_bumped(struct rake_stack_Rec_v2 *r, float k);
void bump(struct rake_stack_Rec_v2 *r, float k);
void mix(const struct rake_stack_Rec_v2 *r, struct rake_stack_Out_v2 *o);

enum { MAXN = 64 };
static long page;
static size_t short_by; /* PATTERNS_SHORT=1: columns one record short, so the
                           last record's access must fault (the fence works) */

/* n elements of size sz ending at a page that faults */
static void *fenced(size_t n, size_t sz)
{
    char *p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p + page, (size_t)page, PROT_NONE)) {
        perror("mmap");
        exit(2);
    }
    return p + page - (n - (n ? short_by : 0)) * sz;
}

static void unfence(void *q, size_t n, size_t sz)
{
    munmap((char *)q + (n - (n ? short_by : 0)) * sz - page, (size_t)page * 2);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

typedef struct Data {
    int n;
    float x[MAXN], y[MAXN];
    uint8_t tag[MAXN];
    int16_t w[MAXN];
    int32_t sel[MAXN];
} Data;

static void fill(Data *d, int n, uint64_t pattern, int lanes, bool random_sel)
{
    d->n = n;
    for (int i = 0; i < n; i++) {
        d->x[i] = (float)((int)(rnd() % 2001) - 1000) / 8.0f;
        d->y[i] = (float)((int)(rnd() % 201) - 100) / 4.0f;
        d->tag[i] = (uint8_t)rnd();
        d->w[i] = (int16_t)rnd();
        d->sel[i] = random_sel ? (int32_t)(rnd() % 3) - 1 : (int32_t)((pattern >> (i % lanes)) & 1) * (int32_t)(1 + rnd() % 5);
    }
}

static int checked, failures;


static void fail(const char *what, const char *col, int i, int n, uint64_t pattern)
{
    printf("FAIL %s: column %s differs at record %d (count %d, pattern 0x%llx)\n", what, col, i, n,
           (unsigned long long)pattern);
    exit(1);
}

/* runs one case through the native run and the C model */
static void one(const char *what, const Data *in, int mode, uint64_t pattern)
{
    int n = in->n;
    struct rake_stack_Rec_v2 r = {n, fenced(n, 4), fenced(n, 1), fenced(n, 2), fenced(n, 4)};
    struct rake_stack_Out_v2 o = {n, fenced(n, 4)};
    size_t m = (size_t)n - (n ? short_by : 0); /* what the harness itself may touch */
    memcpy(r.x, in->x, 4 * m);
    memcpy(r.tag, in->tag, m);
    memcpy(r.w, in->w, 2 * m);
    memcpy(r.sel, in->sel, 4 * m);
    memcpy(o.y, in->y, 4 * m);
    Data want = *in;
    int kept = n;
    const float k = 1.5f;
    if (mode == 0 || mode == 1) {
        mode == 0 ? keep(&r) : keep_bumped(&r, k);
        kept = 0;
        for (int i = 0; i < n; i++)
            if (in->sel[i] != 0) {
                want.x[kept] = mode == 1 ? in->x[i] * k : in->x[i];
                want.tag[kept] = in->tag[i];
                want.w[kept] = in->w[i];
                want.sel[kept] = in->sel[i];
                kept++;
            }
        if (r.count != kept) {
            printf("FAIL %s: count %lld, want %d (count %d, pattern 0x%llx)\n", what,
                   (long long)r.count, kept, n, (unsigned long long)pattern);
            exit(1);
        }
    } else if (mode == 2) {
        bump(&r, k);
        for (int i = 0; i < n; i++)
            if (in->sel[i] != 0)
                want.x[i] = in->x[i] * k + 1.0f;
        if (r.count != n)
            fail(what, "count", 0, n, pattern);
    } else {
        mix(&r, &o);
        for (int i = 0; i < n; i++) {
            float t = (float)(int32_t)in->tag[i] + (float)in->w[i];
            want.y[i] = in->y[i] + in->x[i] + t;
        }
    }
    for (int i = 0; i < kept; i++) {
        if (memcmp(&r.x[i], &want.x[i], 4)) fail(what, "x", i, n, pattern);
        if (r.tag[i] != want.tag[i]) fail(what, "tag", i, n, pattern);
        if (r.w[i] != want.w[i]) fail(what, "w", i, n, pattern);
        if (r.sel[i] != want.sel[i]) fail(what, "sel", i, n, pattern);
        if (memcmp(&o.y[i], &want.y[i], 4)) fail(what, "y", i, n, pattern);
    }
    unfence(r.x, (size_t)n, 4);
    unfence(r.tag, (size_t)n, 1);
    unfence(r.w, (size_t)n, 2);
    unfence(r.sel, (size_t)n, 4);
    unfence(o.y, (size_t)n, 4);
    checked++;
}

static const char *names[] = {"keep", "keep_bumped", "bump", "mix"};

int main(int argc, char **argv)
{
    page = sysconf(_SC_PAGESIZE);
    short_by = getenv("PATTERNS_SHORT") ? 1 : 0;
    if (argc != 3)
        return 2;
    int lanes = atoi(argv[1]);
    Data d;
    if (!strcmp(argv[2], "select")) {
        int all = lanes <= 8;
        int cases = all ? 1 << lanes : 4096;
        for (int c = 0; c < cases; c++) {
            uint64_t pattern = all ? (uint64_t)c : (c == 0 ? 0 : c == 1 ? 0xffff : rnd() & 0xffff);
            for (int mode = 0; mode < 3; mode++) {
                /* one rack, and one rack after a full one (the loop, then the tail) */
                fill(&d, lanes, pattern, lanes, false);
                one(names[mode], &d, mode, pattern);
                fill(&d, 2 * lanes - 1, pattern, lanes, false);
                one(names[mode], &d, mode, pattern);
            }
        }
    } else {
        for (int n = 0; n <= 3 * lanes + 1; n++)
            for (int rep = 0; rep < 8; rep++)
                for (int mode = 0; mode < 4; mode++) {
                    fill(&d, n, 0, lanes, true);
                    one(names[mode], &d, mode, 0);
                }
    }
    printf("%d cases\n", checked);
    return failures != 0;
}

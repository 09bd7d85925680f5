/* mutate: write deterministic mutations of input files, for fuzzing.
 *
 *   mutate [-n FLIPS] [-m STRUCT] [-t STEP] [-s SEED] OUTDIR FILE...
 *
 * For each FILE (the i-th, from 0) it writes into OUTDIR, with names
 * NNNN-STEM.TAG.EXT (NNNN = i, STEM and EXT from FILE's base name):
 *   tTTTTT  every truncation at byte offsets STEP, 2*STEP, ... below the
 *           file's length (STEP defaults to 7);
 *   fKKK    FLIPS copies (default 16) with 1 to 4 bytes flipped or replaced,
 *           by a bit flip, a random byte, or one of the bytes that matter to
 *           a lexer or a JSON reader: NUL, tab, newline, CR, space, ( ) * <
 *           > # ~ " \ : { } [ ] , - and bytes >= 0x80;
 *   sKKK    STRUCT copies (default 8) with one structural change: duplicate
 *           a line, delete a line, swap two lines, indent a line by random
 *           spaces (or a tab), remove a line's indentation, or splice a
 *           random stretch of the file into another place.
 * It prints the number of files written on stdout.
 *
 * The output depends only on the seed, the file's index, its base name and
 * its contents, so a failing input can be reproduced by rerunning with the
 * same arguments.  Standalone C11; tests/90-fuzz-parse.bats builds it with
 *   cc -O2 -o mutate tools/mutate.c */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

static uint64_t hash(const unsigned char *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u; /* FNV-1a */
    return h;
}

static _Noreturn void die(const char *what, const char *path)
{
    fprintf(stderr, "mutate: %s %s: %s\n", what, path, strerror(errno));
    exit(2);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    size_t cap = 4096, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (!buf) {
        fputs("mutate: out of memory\n", stderr);
        exit(2);
    }
    fclose(f);
    *len = n;
    return buf;
}

static const char *outdir;
static char stem[256], ext[64];
static int file_index;
static long written;

static void emit(const char *tag, const unsigned char *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%04d-%s.%s%s", outdir, file_index, stem,
             tag, ext);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot write", path);
    if (n && fwrite(p, 1, n, f) != n)
        die("cannot write", path);
    if (fclose(f) != 0)
        die("cannot write", path);
    written++;
}

/* --- byte mutations --------------------------------------------------------- */

static const unsigned char special[] = {
    0,   '\t', '\n', '\r', ' ', '(', ')', '*', '<', '>', '#', '~', '"',
    '\\', ':', '{', '}', '[', ']', ',', '-', '.', '_', '|', '0', '9',
    0x80, 0xbf, 0xc3, 0xe2, 0xff};

static unsigned char random_byte(unsigned char old)
{
    switch (below(4)) {
    case 0:
        return (unsigned char)(old ^ (1u << below(8)));
    case 1:
        return (unsigned char)next();
    case 2:
        return (unsigned char)(0x80 + below(0x80));
    default:
        return special[below(sizeof special)];
    }
}

static void flips(const unsigned char *src, size_t n, int copies)
{
    if (n == 0)
        return;
    unsigned char *buf = malloc(n);
    for (int c = 0; c < copies; c++) {
        memcpy(buf, src, n);
        int k = 1 + (int)below(4);
        for (int j = 0; j < k; j++) {
            size_t at = below(n);
            buf[at] = random_byte(buf[at]);
        }
        char tag[32];
        snprintf(tag, sizeof tag, "f%03d", c);
        emit(tag, buf, n);
    }
    free(buf);
}

/* --- structural mutations ----------------------------------------------------- */

typedef struct Line {
    const unsigned char *p;
    size_t n; /* including its '\n', if any */
} Line;

static Line *split_lines(const unsigned char *p, size_t n, size_t *count)
{
    Line *ls = malloc(sizeof *ls * (n + 1));
    size_t c = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            ls[c++] = (Line){p + start, i + 1 - start};
            start = i + 1;
        }
    }
    if (start < n)
        ls[c++] = (Line){p + start, n - start};
    *count = c;
    return ls;
}

typedef struct Buf {
    unsigned char *p;
    size_t n, cap;
} Buf;

static void put(Buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = 2 * (b->n + n) + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            fputs("mutate: out of memory\n", stderr);
            exit(2);
        }
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void structural(const unsigned char *src, size_t n, int copies)
{
    size_t nl;
    Line *ls = split_lines(src, n, &nl);
    if (nl == 0) {
        free(ls);
        return;
    }
    Buf b = {0};
    for (int c = 0; c < copies; c++) {
        b.n = 0;
        int op = (int)below(6);
        size_t a = below(nl), z = below(nl);
        if (op == 5) {
            /* splice: copy a stretch of bytes to another offset */
            size_t from = below(n), len = 1 + below(n - from < 64 ? n - from : 64);
            size_t to = below(n + 1);
            put(&b, src, to);
            put(&b, src + from, len);
            put(&b, src + to, n - to);
        } else {
            for (size_t i = 0; i < nl; i++) {
                Line l = ls[i];
                if (op == 2 && (i == a || i == z))
                    l = ls[i == a ? z : a]; /* swap */
                if (op == 1 && i == a)
                    continue; /* delete */
                if (op == 3 && i == a) {
                    /* indent by 1-9 spaces, or a tab */
                    static const char spaces[] = "         ";
                    if (below(5) == 0)
                        put(&b, "\t", 1);
                    else
                        put(&b, spaces, 1 + below(9));
                }
                if (op == 4 && i == a) {
                    while (l.n && (*l.p == ' ' || *l.p == '\t')) {
                        l.p++;
                        l.n--;
                    }
                }
                put(&b, l.p, l.n);
                if (op == 0 && i == a) {
                    /* duplicate */
                    if (l.n && l.p[l.n - 1] != '\n')
                        put(&b, "\n", 1);
                    put(&b, l.p, l.n);
                }
            }
        }
        char tag[32];
        snprintf(tag, sizeof tag, "s%03d", c);
        emit(tag, b.p, b.n);
    }
    free(b.p);
    free(ls);
}

/* --- main ---------------------------------------------------------------------- */

static void usage(void)
{
    fputs("usage: mutate [-n FLIPS] [-m STRUCT] [-t STEP] [-s SEED] OUTDIR FILE...\n",
          stderr);
    exit(2);
}

static long number(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    int flip_copies = 16, struct_copies = 8;
    long step = 7;
    uint64_t seed = 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i += 2) {
        if (i + 1 >= argc)
            usage();
        long v = number(argv[i + 1]);
        switch (argv[i][1]) {
        case 'n': flip_copies = (int)v; break;
        case 'm': struct_copies = (int)v; break;
        case 't': step = v; break;
        case 's': seed = (uint64_t)v; break;
        default: usage();
        }
    }
    if (argc - i < 2 || step < 1)
        usage();
    outdir = argv[i++];
    for (file_index = 0; i < argc; i++, file_index++) {
        const char *path = argv[i];
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strchr(base, '.');
        size_t sl = dot ? (size_t)(dot - base) : strlen(base);
        if (sl >= sizeof stem)
            sl = sizeof stem - 1;
        memcpy(stem, base, sl);
        stem[sl] = 0;
        snprintf(ext, sizeof ext, "%s", dot ? dot : "");

        size_t n;
        unsigned char *text = slurp(path, &n);
        rng_state = hash(text, n,
                         hash((const unsigned char *)base, strlen(base),
                              0xcbf29ce484222325u ^ seed ^
                                  ((uint64_t)file_index << 32)));
        for (size_t at = (size_t)step; at < n; at += (size_t)step) {
            char tag[32];
            snprintf(tag, sizeof tag, "t%06zu", at);
            emit(tag, text, at);
        }
        flips(text, n, flip_copies);
        structural(text, n, struct_copies);
        free(text);
    }
    printf("%ld\n", written);
    return 0;
}

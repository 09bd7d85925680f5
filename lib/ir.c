/* ir.c: reading, checking and writing IR documents. */
#include "ir.h"

#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

static char *raw_text;
static size_t raw_len;

/* --- reading ------------------------------------------------------------ */

static char *slurp(FILE *in, size_t *len)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, in)) > 0) {
        n += got;
        if (cap - n < 2)
            buf = realloc(buf, cap *= 2);
    }
    if (!buf)
        rk_diag_internal("out of memory reading input");
    buf[n] = 0;
    *len = n;
    return buf;
}

static _Noreturn void fail_at(int line, int col, const char *fmt, ...)
    RK_PRINTF(3, 4);

static void fail_at(int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: <stdin>:%d:%d: ", rk_diag_program_name(), line, col);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(RK_EXIT_INPUT);
}

static void locate_or_origin(const char *ptr, int *line, int *col)
{
    if (!rk_ir_locate(ptr, line, col))
        *line = *col = 1;
}

static const char *header_str(json_t *root, const char *key, bool required)
{
    json_t *v = json_object_get(root, key);
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/%s", key);
    int line, col;
    if (!v) {
        if (!required)
            return NULL;
        fail_at(1, 1, "the document has no \"%s\" key", key);
    }
    if (!json_is_string(v)) {
        locate_or_origin(ptr, &line, &col);
        fail_at(line, col, "\"%s\" must be a string", key);
    }
    return json_string_value(v);
}

RkIrDoc rk_ir_read_any(FILE *in, const char *const *kinds, int version)
{
    raw_text = slurp(in, &raw_len);
    json_error_t err;
    json_t *root = json_loadb(raw_text, raw_len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        int line = err.line > 0 ? err.line : 1;
        int col = err.column > 0 ? err.column : 1;
        fail_at(line, col, "malformed JSON: %s", err.text);
    }
    if (!json_is_object(root))
        fail_at(1, 1, "expected an IR document (a JSON object)");
    RkIrDoc d = {root, NULL, NULL, NULL};
    d.kind = header_str(root, "ir", true);
    bool known = false;
    for (const char *const *k = kinds; *k; k++)
        known |= strcmp(*k, d.kind) == 0;
    int line, col;
    if (!known) {
        locate_or_origin("/ir", &line, &col);
        fail_at(line, col, "expected a %s document, found \"%s\"", kinds[0],
                d.kind);
    }
    json_t *v = json_object_get(root, "version");
    if (!json_is_integer(v) || json_integer_value(v) != version) {
        locate_or_origin(v ? "/version" : "", &line, &col);
        fail_at(line, col, "unsupported %s version (this program reads version %d)",
                d.kind, version);
    }
    d.source = header_str(root, "source", true);
    d.target = header_str(root, "target", false);
    rk_diag_source(d.source, NULL);
    return d;
}

RkIrDoc rk_ir_read(FILE *in, const char *kind, int version)
{
    const char *kinds[] = {kind, NULL};
    return rk_ir_read_any(in, kinds, version);
}

json_t *rk_ir_new_doc(const char *kind, int version, const char *source,
                      const char *target)
{
    json_t *d = json_object();
    json_object_set_new(d, "ir", json_string(kind));
    json_object_set_new(d, "version", json_integer(version));
    json_object_set_new(d, "source", json_string(source));
    if (target)
        json_object_set_new(d, "target", json_string(target));
    return d;
}

/* Pretty (one space per level) for people, compact for pipes: between
 * passes a document is read by a program, and indentation made the largest
 * ones several times their size.  RAKE_IR_PRETTY=1 or 0 decides; without
 * it a terminal gets pretty output and anything else compact.  The driver
 * sets it: 1 for --save-temps and --stop-after, 0 otherwise. */
static bool pretty_output(FILE *out)
{
    const char *e = getenv("RAKE_IR_PRETTY");
    if (e && *e)
        return strcmp(e, "0") != 0;
    return isatty(fileno(out));
}

/* json_dumpf writes token by token through stdio; collecting the text in
 * one growing buffer and writing it once is several times faster. */
typedef struct OutBuf {
    char *p;
    size_t n, cap;
} OutBuf;

static int collect(const char *text, size_t size, void *data)
{
    OutBuf *b = data;
    if (b->n + size > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + size)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, text, size);
    b->n += size;
    return 0;
}

void rk_ir_write(json_t *doc, FILE *out)
{
    size_t flags = JSON_PRESERVE_ORDER | (pretty_output(out) ? JSON_INDENT(1) : JSON_COMPACT);
    OutBuf b = {0};
    if (json_dump_callback(doc, collect, &b, flags) != 0 || collect("\n", 1, &b) != 0 ||
        fwrite(b.p, 1, b.n, out) != b.n)
        rk_diag_internal("cannot write the output document");
    free(b.p);
    if (fflush(out) != 0)
        rk_diag_internal("cannot write the output document");
}

/* --- the decoding path ---------------------------------------------------- */

/* As deep as the document nests (Jansson reads at most 2048 levels). */
typedef struct PathSeg {
    const char *key;
    size_t index;
} PathSeg;
static PathSeg *path;
static int depth, path_cap;

static PathSeg *push(void)
{
    if (depth == path_cap) {
        path_cap = path_cap ? 2 * path_cap : 64;
        path = realloc(path, sizeof *path * (size_t)path_cap);
        if (!path)
            rk_diag_internal("out of memory for the decoding path");
    }
    return &path[depth++];
}

void rk_ir_push_key(const char *key) { *push() = (PathSeg){key, 0}; }

void rk_ir_push_index(size_t i) { *push() = (PathSeg){NULL, i}; }

void rk_ir_pop(void) { depth--; }

static char *path_string(void)
{
    size_t cap = 64, n = 0;
    char *s = malloc(cap);
    s[0] = 0;
    for (int i = 0; i < depth; i++) {
        char num[32];
        snprintf(num, sizeof num, "%zu", path[i].index);
        const char *part = path[i].key ? path[i].key : num;
        size_t m = strlen(part) + 1;
        if (n + m + 1 > cap)
            s = realloc(s, cap = 2 * (n + m + 1));
        s[n] = '/';
        memcpy(s + n + 1, part, m);
        n += m;
    }
    return s;
}

void rk_ir_fail(const char *fmt, ...)
{
    char *p = path_string();
    int line, col;
    locate_or_origin(p, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: <stdin>:%d:%d: %s: ", rk_diag_program_name(), line,
            col, *p ? p : "/");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(RK_EXIT_INPUT);
}

void rk_ir_fail_at(const char *pointer, const char *fmt, ...)
{
    int line, col;
    locate_or_origin(pointer, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: <stdin>:%d:%d: ", rk_diag_program_name(), line, col);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(RK_EXIT_INPUT);
}

json_t *rk_ir_get(json_t *obj, const char *key, bool required)
{
    json_t *v = json_object_get(obj, key);
    if (!v && required)
        rk_ir_fail("missing \"%s\"", key);
    return v;
}

const char *rk_ir_get_str(json_t *obj, const char *key, bool required)
{
    json_t *v = rk_ir_get(obj, key, required);
    if (!v || (json_is_null(v) && !required))
        return NULL;
    if (!json_is_string(v)) {
        rk_ir_push_key(key);
        rk_ir_fail("expected a string");
    }
    return json_string_value(v);
}

bool rk_ir_get_bool(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return false;
    if (!json_is_boolean(v)) {
        rk_ir_push_key(key);
        rk_ir_fail("expected true or false");
    }
    return json_is_true(v);
}

int64_t rk_ir_get_int(json_t *obj, const char *key, bool required, int64_t dflt)
{
    json_t *v = rk_ir_get(obj, key, required);
    if (!v)
        return dflt;
    if (!json_is_integer(v)) {
        rk_ir_push_key(key);
        rk_ir_fail("expected an integer");
    }
    return json_integer_value(v);
}

json_t *rk_ir_get_array(json_t *obj, const char *key, bool required)
{
    json_t *v = rk_ir_get(obj, key, required);
    if (v && !json_is_array(v)) {
        rk_ir_push_key(key);
        rk_ir_fail("expected an array");
    }
    return v;
}

json_t *rk_ir_expect_object(json_t *v)
{
    if (!json_is_object(v))
        rk_ir_fail("expected an object");
    return v;
}

/* strictly digits ':' digits, each 1 to 9 digits */
bool rk_ir_parse_loc(const char *s, RkLoc *out)
{
    const char *p = s;
    long v[2] = {0, 0};
    for (int part = 0; part < 2; part++) {
        int digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 10) {
            v[part] = v[part] * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 9 || (part == 0 && *p++ != ':'))
            return false;
    }
    if (*p)
        return false;
    out->line = (int)v[0];
    out->col = (int)v[1];
    return true;
}

RkLoc rk_ir_get_loc(json_t *obj)
{
    const char *s = rk_ir_get_str(obj, "loc", false);
    RkLoc loc = {0, 0};
    if (s && !rk_ir_parse_loc(s, &loc)) {
        rk_ir_push_key("loc");
        rk_ir_fail("expected a location \"LINE:COL\"");
    }
    return loc;
}

json_t *rk_ir_loc(RkLoc loc)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d:%d", loc.line, loc.col);
    return json_string(buf);
}

/* --- locating a JSON pointer in the raw text ------------------------------ */

typedef struct Cursor {
    const char *p, *end;
} Cursor;

static void skip_ws(Cursor *c)
{
    while (c->p < c->end && strchr(" \t\r\n", *c->p))
        c->p++;
}

static bool skip_string(Cursor *c, const char **start, size_t *len)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    const char *s = ++c->p;
    while (c->p < c->end && *c->p != '"')
        c->p += *c->p == '\\' ? 2 : 1;
    if (c->p >= c->end)
        return false;
    if (start) {
        *start = s;
        *len = (size_t)(c->p - s);
    }
    c->p++;
    return true;
}

static bool skip_value(Cursor *c)
{
    skip_ws(c);
    if (c->p >= c->end)
        return false;
    if (*c->p == '"')
        return skip_string(c, NULL, NULL);
    if (*c->p == '{' || *c->p == '[') {
        int nest = 0;
        while (c->p < c->end) {
            if (*c->p == '"') {
                if (!skip_string(c, NULL, NULL))
                    return false;
                continue;
            }
            if (*c->p == '{' || *c->p == '[')
                nest++;
            else if (*c->p == '}' || *c->p == ']') {
                if (--nest == 0) {
                    c->p++;
                    return true;
                }
            }
            c->p++;
        }
        return false;
    }
    while (c->p < c->end && !strchr(",}] \t\r\n", *c->p))
        c->p++;
    return true;
}

/* Move the cursor to the value of member `key` (length n) of the object at
 * the cursor, or to element `index` of the array at the cursor. */
static bool enter(Cursor *c, const char *key, size_t n, long index)
{
    skip_ws(c);
    char open = index >= 0 ? '[' : '{';
    if (c->p >= c->end || *c->p != open)
        return false;
    c->p++;
    for (long i = 0;; i++) {
        skip_ws(c);
        if (c->p < c->end && (*c->p == ']' || *c->p == '}'))
            return false;
        if (index < 0) {
            const char *k;
            size_t kl;
            if (!skip_string(c, &k, &kl))
                return false;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':')
                return false;
            c->p++;
            skip_ws(c);
            if (kl == n && memcmp(k, key, n) == 0)
                return true;
        } else if (i == index) {
            skip_ws(c);
            return true;
        }
        if (!skip_value(c))
            return false;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
    }
}

bool rk_ir_locate(const char *pointer, int *line, int *col)
{
    if (!raw_text)
        return false;
    Cursor c = {raw_text, raw_text + raw_len};
    const char *s = pointer;
    while (*s == '/') {
        const char *seg = ++s;
        while (*s && *s != '/')
            s++;
        size_t n = (size_t)(s - seg);
        skip_ws(&c);
        bool ok;
        if (c.p < c.end && *c.p == '[')
            ok = enter(&c, NULL, 0, strtol(seg, NULL, 10));
        else
            ok = enter(&c, seg, n, -1);
        if (!ok)
            return false;
    }
    skip_ws(&c);
    *line = 1;
    *col = 1;
    for (const char *q = raw_text; q < c.p; q++) {
        if (*q == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
    return true;
}

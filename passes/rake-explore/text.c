/* text.c: the plain-text inputs of the page: files read whole, repaired
 * into valid UTF-8 (a JSON string must be), the source as lines, the
 * token stream of `rake-parse --tokens`, and a diagnostic with the line
 * and column it points at. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "explore.h"

char *ex_read_file(const char *path, bool required)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (required)
            rk_diag_input("cannot open %s", path);
        return NULL;
    }
    size_t cap = 4096, n = 0, got;
    char *b = malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    if (!b)
        rk_diag_internal("out of memory reading %s", path);
    b[n] = '\0';
    return b;
}

/* The length of the valid UTF-8 sequence at p, or 0. */
static int utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || (n == 3 && p[0] > 0xef))
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

char *ex_utf8(const char *s)
{
    size_t n = strlen(s);
    char *out = rk_arena_alloc(&rk_heap, 3 * n + 1), *o = out;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int k = utf8_len(p);
        if (k == 0) {
            memcpy(o, "\xef\xbf\xbd", 3); /* U+FFFD */
            o += 3;
            p++;
            continue;
        }
        memcpy(o, p, (size_t)k);
        o += k;
        p += k;
    }
    *o = '\0';
    return out;
}

json_t *ex_str(const char *s)
{
    return json_string(ex_utf8(s ? s : ""));
}

json_t *ex_lines(const char *text)
{
    json_t *a = json_array();
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        json_array_append_new(a, ex_str(rk_arena_strndup(&rk_heap, p, n)));
        p += n + (e ? 1 : 0);
    }
    return a;
}

/* `LINE:COL KIND TEXT`, the text possibly holding spaces. */
static json_t *token(const char *line)
{
    int l, c, used = 0;
    if (sscanf(line, "%d:%d %n", &l, &c, &used) != 2 || !used)
        return NULL;
    const char *kind = line + used, *sp = strchr(kind, ' ');
    size_t kn = sp ? (size_t)(sp - kind) : strlen(kind);
    return json_pack("[i, i, o, o]", l, c, ex_str(rk_arena_strndup(&rk_heap, kind, kn)),
                     ex_str(sp ? sp + 1 : ""));
}

json_t *ex_tokens(const char *text)
{
    json_t *lines = ex_lines(text), *out = json_array(), *v;
    size_t i;
    json_array_foreach(lines, i, v) {
        json_t *t = token(json_string_value(v));
        if (t)
            json_array_append_new(out, t);
    }
    json_decref(lines);
    return out;
}

/* In `PATH:L:C: error: message` (or `trap:`), the line and column
 * before the severity and the message after it; false if the line is
 * not located. */
static bool located(const char *line, int *l, int *c, const char **msg)
{
    static const char *const sev[] = {": error: ", ": trap: ", NULL};
    for (int k = 0; sev[k]; k++) {
        const char *s = strstr(line, sev[k]);
        if (!s)
            continue;
        const char *p = s;
        while (p > line && p[-1] >= '0' && p[-1] <= '9')
            p--;
        if (p == s || p == line || p[-1] != ':')
            continue;
        const char *q = p - 1;
        while (q > line && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (q == p - 1 || q == line || q[-1] != ':')
            continue;
        *l = atoi(q);
        *c = atoi(p);
        *msg = s + 2;
        return true;
    }
    return false;
}

json_t *ex_diag(const char *text, const char *stage)
{
    int l = 0, c = 0;
    const char *msg = NULL;
    json_t *lines = ex_lines(text), *v;
    size_t i;
    json_array_foreach(lines, i, v) {
        if (located(json_string_value(v), &l, &c, &msg))
            break;
    }
    json_t *d = json_object();
    json_object_set_new(d, "stage", json_string(stage));
    json_object_set_new(d, "text", ex_str(text));
    json_object_set_new(d, "line", json_integer(l));
    json_object_set_new(d, "col", json_integer(c));
    if (msg)
        json_object_set_new(d, "message", ex_str(msg));
    json_decref(lines);
    return d;
}

const char *ex_loc_str(RkLoc loc)
{
    if (loc.line <= 0)
        return NULL;
    return rk_arena_printf(&rk_heap, "%d:%d", loc.line, loc.col);
}

json_t *ex_read_json(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!j)
        rk_diag_input("%s:%d:%d: %s", path, err.line, err.column, err.text);
    return j;
}

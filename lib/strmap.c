/* strmap.c: open-addressing string map (see strmap.h). */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

static size_t slot(const char **keys, size_t cap, const char *key)
{
    size_t i = hash(key) & (cap - 1);
    while (keys[i] && strcmp(keys[i], key))
        i = (i + 1) & (cap - 1);
    return i;
}

void *rk_strmap_get(const RkStrMap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    size_t i = slot(m->keys, m->cap, key);
    return m->keys[i] ? m->vals[i] : NULL;
}

static void grow(RkStrMap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    const char **keys = calloc(cap, sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (!keys || !vals)
        rk_diag_internal("out of memory growing a name table to %zu entries", cap);
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            size_t j = slot(keys, cap, m->keys[i]);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
}

void *rk_strmap_add(RkStrMap *m, const char *key, void *val)
{
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    size_t i = slot(m->keys, m->cap, key);
    if (m->keys[i])
        return m->vals[i];
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return val;
}

void rk_strmap_set(RkStrMap *m, const char *key, void *val)
{
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    size_t i = slot(m->keys, m->cap, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->n++;
    }
    m->vals[i] = val;
}

void rk_strmap_free(RkStrMap *m)
{
    free(m->keys);
    free(m->vals);
    *m = (RkStrMap){0};
}

/* strmap.h: a map from strings to pointers, for name lookups that must not
 * be linear (a module of 10,000 kernels looks names up millions of times).
 *
 * Open addressing with linear probing; the table doubles when it is half
 * full, so it grows with whatever it holds.  Keys are not copied: they must
 * outlive the map (names in the arena or the decoded document do). */
#ifndef RK_STRMAP_H
#define RK_STRMAP_H

#include <stddef.h>

typedef struct RkStrMap {
    const char **keys;
    void **vals;
    size_t n, cap;
} RkStrMap;

/* The value stored under key, or NULL. */
void *rk_strmap_get(const RkStrMap *m, const char *key);
/* Store val under key unless key is already there; return the value the map
 * holds for key afterwards (the earlier one if there was one). */
void *rk_strmap_add(RkStrMap *m, const char *key, void *val);
/* Store val under key, replacing what the map held for it. */
void rk_strmap_set(RkStrMap *m, const char *key, void *val);
void rk_strmap_free(RkStrMap *m);

#endif

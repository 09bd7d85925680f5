/* arena.c: a list of large blocks carved from the front. */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK_SIZE = 1 << 20 };

struct RkArenaBlock {
    RkArenaBlock *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

RkArena rk_heap;

void rk_arena_init(RkArena *a) { a->head = NULL; }

void rk_arena_release(RkArena *a)
{
    while (a->head) {
        RkArenaBlock *b = a->head;
        a->head = b->next;
        free(b);
    }
}

static RkArenaBlock *new_block(size_t need)
{
    size_t size = need > BLOCK_SIZE ? need : BLOCK_SIZE;
    RkArenaBlock *b = malloc(sizeof *b + size);
    if (!b) {
        fputs("rake: out of memory\n", stderr);
        abort();
    }
    b->next = NULL;
    b->used = 0;
    b->size = size;
    return b;
}

void *rk_arena_alloc(RkArena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (!a->head || a->head->size - a->head->used < size) {
        RkArenaBlock *b = new_block(size);
        b->next = a->head;
        a->head = b;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += size;
    memset(p, 0, size);
    return p;
}

char *rk_arena_strndup(RkArena *a, const char *s, size_t n)
{
    char *p = rk_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *rk_arena_strdup(RkArena *a, const char *s)
{
    return rk_arena_strndup(a, s, strlen(s));
}

char *rk_arena_printf(RkArena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = rk_arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *rk_arena_grow(RkArena *a, void *old, int n, int *cap, size_t size, int first)
{
    if (n < *cap)
        return old;
    *cap = *cap ? 2 * *cap : first;
    void *p = rk_arena_alloc(a, size * (size_t)*cap);
    if (n)
        memcpy(p, old, size * (size_t)n);
    return p;
}

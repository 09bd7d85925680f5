/* arena.h: bump allocation for a pass's lifetime.
 *
 * Every pass decodes its input into structs allocated from one arena, works
 * on them, encodes its output and exits; nothing is freed one by one.  The
 * arena aborts the program when memory runs out, so callers never check for
 * NULL. */
#ifndef RK_ARENA_H
#define RK_ARENA_H

#include <stddef.h>

typedef struct RkArenaBlock RkArenaBlock;

typedef struct RkArena {
    RkArenaBlock *head;
} RkArena;

void rk_arena_init(RkArena *a);
void rk_arena_release(RkArena *a);
void *rk_arena_alloc(RkArena *a, size_t size);       /* zeroed, 16-aligned */
/* An array of n elements of `size` bytes with room for one more: `old`
 * when *cap > n, else a copy in a new array of double the capacity (or
 * `first` elements), *cap updated. */
void *rk_arena_grow(RkArena *a, void *old, int n, int *cap, size_t size, int first);
char *rk_arena_strdup(RkArena *a, const char *s);
char *rk_arena_strndup(RkArena *a, const char *s, size_t n);
char *rk_arena_printf(RkArena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The process-wide arena every pass uses. */
extern RkArena rk_heap;
#define RK_NEW(T) ((T *)rk_arena_alloc(&rk_heap, sizeof(T)))

#endif

/* strbuf.h: a growing string in the arena.
 *
 * Passes that build text a piece at a time (rake-check's predicate keys
 * and texts, rake-explore's descriptions) append to an RkBuf: it grows
 * by doubling in rk_heap, stays NUL-terminated, and is never truncated
 * (grow or die: rk_arena_alloc stops the program if memory runs out).
 * Start from `RkBuf b = {0};`; b.s is NULL until the first append. */
#ifndef RAKE_STRBUF_H
#define RAKE_STRBUF_H

#include <stddef.h>

typedef struct RkBuf {
    char *s;
    size_t len, cap;
} RkBuf;

void rk_buf_put(RkBuf *b, const char *s);

#endif

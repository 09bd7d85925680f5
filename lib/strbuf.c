/* strbuf.c: a growing string in the arena (strbuf.h). */
#include "strbuf.h"

#include <string.h>

#include "arena.h"

void rk_buf_put(RkBuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        char *p = rk_arena_alloc(&rk_heap, b->cap);
        if (b->len)
            memcpy(p, b->s, b->len);
        b->s = p;
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

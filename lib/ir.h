/* ir.h: the JSON boundary every program shares.
 *
 * An IR document is one JSON object:
 *   {"ir": "rake.ast", "version": 1, "source": "f.rk", "target": ..., ...}
 * rk_ir_read() reads one from a stream with Jansson (duplicate keys are an
 * error), checks its kind and version, and remembers the raw text so that a
 * later decoding error can be reported at the line and column of the value
 * that is wrong:
 *   rake-check: <stdin>:14:9: /decls/0/body/2: expected an object
 * Every such error exits 2 with nothing on stdout.
 *
 * Decoding walks the document with the rk_ir_get_* helpers, which keep a
 * path of keys and indices (rk_ir_push_key/rk_ir_push_index/rk_ir_pop) so
 * that errors can name and locate the value.  Encoding builds json_t values
 * with keys in a fixed order; rk_ir_write() prints them deterministically. */
#ifndef RK_IR_H
#define RK_IR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

typedef struct RkIrDoc {
    json_t *root;
    const char *kind;
    const char *source;
    const char *target; /* NULL before rake-check */
} RkIrDoc;

/* Read and check a document of the given kind and version; exits 2 on any
 * failure.  Also points the diagnostics at the document's source file. */
RkIrDoc rk_ir_read(FILE *in, const char *kind, int version);
/* As rk_ir_read, accepting any of the NULL-terminated kinds. */
RkIrDoc rk_ir_read_any(FILE *in, const char *const *kinds, int version);
/* A new document object with the header keys in order. */
json_t *rk_ir_new_doc(const char *kind, int version, const char *source,
                      const char *target);
/* Write with one-space indentation, keys in insertion order, and a final
 * newline. */
void rk_ir_write(json_t *doc, FILE *out);

/* Decoding with located errors. */
void rk_ir_push_key(const char *key);
void rk_ir_push_index(size_t i);
void rk_ir_pop(void);
_Noreturn void rk_ir_fail(const char *fmt, ...) RK_PRINTF(1, 2);
/* As rk_ir_fail, at the value a JSON pointer names ("/target"). */
_Noreturn void rk_ir_fail_at(const char *pointer, const char *fmt, ...) RK_PRINTF(2, 3);

json_t *rk_ir_get(json_t *obj, const char *key, bool required);
const char *rk_ir_get_str(json_t *obj, const char *key, bool required);
bool rk_ir_get_bool(json_t *obj, const char *key);      /* absent = false */
int64_t rk_ir_get_int(json_t *obj, const char *key, bool required, int64_t dflt);
json_t *rk_ir_get_array(json_t *obj, const char *key, bool required);
json_t *rk_ir_expect_object(json_t *v);
bool rk_ir_parse_loc(const char *s, RkLoc *out);     /* "L:C" */
RkLoc rk_ir_get_loc(json_t *obj);                       /* "loc": "L:C" */
json_t *rk_ir_loc(RkLoc loc);

/* Report the 1-based line and column, in the text last read, of the value
 * at a JSON pointer such as "/decls/0/name"; false if not found. */
bool rk_ir_locate(const char *pointer, int *line, int *col);

#endif

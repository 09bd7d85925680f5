/* explore.h: state shared by the files of rake-explore.
 *
 *   main.c       options, reading the stage files, the page's data object
 *   page.c       the HTML: the embedded template, escaping, the data block
 *   text.c       files as text, UTF-8 repair, the source, tokens, diagnostics
 *   checked.c    rake.checked annotated for people: lanes, tier, tines, sweeps
 *   nirview.c    rake.nir listings and the diff rake-opt made
 *   optwhy.c     which of rake-opt's rewrites explains each difference
 *   mirview.c    rake.mir listings and the registers live at each instruction
 *   asmview.c    the assembly, each line tied to the machine instruction it is
 *
 * Every view is a json_t built with keys in a fixed order, so the page is
 * the same bytes for the same stage files. */
#ifndef RAKE_EXPLORE_H
#define RAKE_EXPLORE_H

#include <jansson.h>
#include <stdbool.h>

#include "diag.h"
#include "mir.h"
#include "nir.h"

/* text.c */
char *ex_read_file(const char *path, bool required); /* NULL if absent and not required */
char *ex_utf8(const char *s);                        /* invalid bytes become U+FFFD */
json_t *ex_str(const char *s);                       /* a JSON string of any bytes */
json_t *ex_lines(const char *text);                  /* ["line", ...] without newlines */
json_t *ex_tokens(const char *text);                 /* [[line, col, kind, text], ...] */
json_t *ex_diag(const char *text, const char *stage);
const char *ex_loc_str(RkLoc loc);                   /* "L:C", or NULL for no location */
json_t *ex_read_json(const char *path);              /* any JSON document, or exit 2 */

/* checked.c: the rake.checked document with `lanes`, `tier` and `words`
 * added to its nodes, and a summary of tines, throughs and sweeps. */
json_t *ex_checked_view(json_t *doc);

/* nirview.c: {"before": bool, "after": bool, "functions": [diff, ...]} */
json_t *ex_nir_view(json_t *before, json_t *after);

/* optwhy.c: for one function before and after rake-opt, by value id, the
 * rewrite that removed, rewrote or added each instruction */
typedef struct OptWhy {
    const char **before, **after; /* "category: words", or NULL when unchanged */
    json_t *counts;               /* category -> how many instructions */
} OptWhy;
OptWhy ex_opt_why(const RkFunc *before, const RkFunc *after);
const char *ex_opt_renamed(OptWhy *w, bool after);

/* mirview.c: one listing with live-register counts and the limits; opt is
 * the native IR it was selected from (NULL: unknown) */
json_t *ex_mir_listing(json_t *doc, const RkNirModule *opt);
bool ex_aux(const RkMModule *m, const RkNirModule *opt, const char *fn, const RkMInstr *in);
json_t *ex_reg_limits(const char *target);

/* asmview.c: the assembly's lines, each tied to its machine instruction */
json_t *ex_asm_view(const char *text, json_t *mir_doc, const RkNirModule *opt);

/* page.c: writes the page for the data object on stdout */
void ex_page_write(json_t *data, const char *title);

#endif

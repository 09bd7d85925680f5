/* cnames.h: which identifiers C reserves.
 *
 * Rake names reach C in three places: the header rakec --emit-header
 * writes (kernel and run prototypes, descriptor members), the C unit of a
 * whole program (descriptor members), and parameter names in prototypes.
 * A name C reserves there is a located error; this is the one list. */
#ifndef RAKE_CNAMES_H
#define RAKE_CNAMES_H

#include <stdbool.h>

/* A C11/C23 keyword, or an identifier reserved to the implementation
 * (two underscores, or an underscore and a capital letter). */
bool rk_cnames_reserved(const char *name);

/* An identifier with external linkage in the parts of the C library a
 * whole program's C unit links (stdio.h, stdlib.h, string.h, math.h,
 * stdarg.h, pthread_*): C reserves them at file scope (C11 7.1.3), and a
 * kernel or run of that name in the unit would take the library
 * function's place in the unit's own calls. */
bool rk_cnames_libc(const char *name);

#endif

/* diag.h: diagnostics in the format of gcc and clang.
 *
 *   f.rk:3:9: error: expected ')' after the arguments, found 'x'
 *     let y = f(a x
 *                 ^
 *
 * A pass names itself once (rk_diag_program) and the source it reports on
 * (rk_diag_source); every later message is located by an RkLoc.  The source
 * text is read lazily from the path when the first located message needs its
 * line, so passes after the parser can quote the source too.
 *
 * Exit statuses are shared by every program:
 *   0  success
 *   1  an error in the user's program (or a trap while running it)
 *   2  a malformed input document or a wrong invocation of a pass
 *   3  an internal error: a bug in rake itself */
#ifndef RK_DIAG_H
#define RK_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

enum { RK_EXIT_USER = 1, RK_EXIT_INPUT = 2, RK_EXIT_INTERNAL = 3 };

typedef struct RkLoc {
    int line, col; /* 1-based; line 0 means "no location" */
} RkLoc;

#define RK_PRINTF(f, a) __attribute__((format(printf, f, a)))

void rk_diag_program(const char *name);
const char *rk_diag_program_name(void);
void rk_diag_source(const char *path, const char *text);
const char *rk_diag_source_path(void);

void rk_diag_error(RkLoc loc, const char *fmt, ...) RK_PRINTF(2, 3);
void rk_diag_warning(RkLoc loc, const char *fmt, ...) RK_PRINTF(2, 3);
void rk_diag_note(RkLoc loc, const char *fmt, ...) RK_PRINTF(2, 3);
void rk_diag_verror(RkLoc loc, const char *fmt, va_list ap);
_Noreturn void rk_diag_fatal(RkLoc loc, const char *fmt, ...) RK_PRINTF(2, 3);
/* f.rk:L:C: trap: message, then exit 1 */
_Noreturn void rk_diag_trap(RkLoc loc, const char *fmt, ...) RK_PRINTF(2, 3);
/* program: message, exit 2 (bad input document, bad options) */
_Noreturn void rk_diag_input(const char *fmt, ...) RK_PRINTF(1, 2);
/* program: internal error: message, exit 3 */
_Noreturn void rk_diag_internal(const char *fmt, ...) RK_PRINTF(1, 2);

int rk_diag_error_count(void);
/* Exit 1 when any error was reported. */
void rk_diag_exit_on_errors(void);
/* Limit on errors before a pass gives up (default 20). */
void rk_diag_set_limit(int n);

#endif

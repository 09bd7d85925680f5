/* cnames.c: C's reserved identifiers (see cnames.h). */
#include <string.h>

#include "cnames.h"

static const char *const keywords[] = {
    "alignas", "alignof", "auto", "bool", "break", "case", "char", "const", "constexpr",
    "continue", "default", "do", "double", "else", "enum", "extern", "false", "float", "for",
    "goto", "if", "inline", "int", "long", "nullptr", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "struct", "switch",
    "thread_local", "true", "typedef", "typeof", "typeof_unqual", "union", "unsigned",
    "void", "volatile", "while", "asm", NULL};

bool rk_cnames_reserved(const char *s)
{
    for (const char *const *k = keywords; *k; k++)
        if (!strcmp(*k, s))
            return true;
    return s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'));
}

/* C11's external identifiers of the headers a C unit includes (7.21,
 * 7.22, 7.24, 7.12 with its f and l variants), and POSIX's pthread_. */
static const char *const library[] = {
    /* stdio.h */
    "remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen",
    "setbuf", "setvbuf", "fprintf", "fscanf", "printf", "scanf", "snprintf", "sprintf",
    "sscanf", "vfprintf", "vfscanf", "vprintf", "vscanf", "vsnprintf", "vsprintf",
    "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc", "getchar", "putc", "putchar",
    "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek", "fsetpos", "ftell", "rewind",
    "clearerr", "feof", "ferror", "perror", "stdin", "stdout", "stderr",
    /* stdlib.h */
    "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll",
    "strtoul", "strtoull", "rand", "srand", "aligned_alloc", "calloc", "free", "malloc",
    "realloc", "abort", "atexit", "at_quick_exit", "exit", "_Exit", "getenv", "quick_exit",
    "system", "bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv", "lldiv", "mblen",
    "mbtowc", "wctomb", "mbstowcs", "wcstombs",
    /* string.h */
    "memcpy", "memmove", "strcpy", "strncpy", "strcat", "strncat", "memcmp", "strcmp",
    "strcoll", "strncmp", "strxfrm", "memchr", "strchr", "strcspn", "strpbrk", "strrchr",
    "strspn", "strstr", "strtok", "memset", "strerror", "strlen",
    /* math.h, without the f and l suffixes (checked below) */
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh",
    "sinh", "tanh", "exp", "exp2", "expm1", "frexp", "ilogb", "ldexp", "log", "log10",
    "log1p", "log2", "logb", "modf", "scalbn", "scalbln", "cbrt", "fabs", "hypot", "pow",
    "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor", "nearbyint", "rint",
    "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod", "remainder",
    "remquo", "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma",
    /* the start-up code's and the unit's entry */
    "main", "errno", NULL};

static bool in_library(const char *s, size_t n)
{
    for (const char *const *k = library; *k; k++)
        if (strlen(*k) == n && !strncmp(*k, s, n))
            return true;
    return false;
}

bool rk_cnames_libc(const char *s)
{
    size_t n = strlen(s);
    if (!strncmp(s, "pthread_", 8) || in_library(s, n))
        return true;
    /* sqrtf, sqrtl: the float and long double variants of math.h */
    return n > 1 && (s[n - 1] == 'f' || s[n - 1] == 'l') && in_library(s, n - 1);
}

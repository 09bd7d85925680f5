/* verify.h: the object verifiers of rake-verify. */
#ifndef RAKE_VERIFY_H
#define RAKE_VERIFY_H

#include <stdarg.h>

#include "elf.h"
#include "mir.h"
#include "profile.h"

/* Each returns the number of kernels (or object-wide problems) that fail. */
int verify_x86(ElfObject *obj, const RkMModule *m, const RkProfile *p, bool whole);

#endif

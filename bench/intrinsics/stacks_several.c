/* tests/shared/conformance/stacks_several.rk with x86 intrinsics. */
#define PFX stacks_several
#include "roots_common.h"

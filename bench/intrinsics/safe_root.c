/* bench/kernels/safe_root.rk with x86 intrinsics. */
#define PFX safe_root
#include "roots_common.h"

/* aclsim: CANN's utils/debug/asc_printf.h. A kernel's printf prints at once (kernels run when their stream's
 * work runs, so the lines come out at the synchronize that runs the launch, as the device's buffer would). */
#ifndef ACLSIM_UTILS_DEBUG_ASC_PRINTF_H
#define ACLSIM_UTILS_DEBUG_ASC_PRINTF_H
#include <cstdio>
#include "aclsim/simt.h"
#endif

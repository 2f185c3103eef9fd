/* aclsim: CANN's simt_api/math_constants.h (the SIMT device API), implemented in aclsim/simt.h. */
#ifndef ACLSIM_SIMT_API_MATH_CONSTANTS_H
#define ACLSIM_SIMT_API_MATH_CONSTANTS_H
#include "aclsim/simt.h"
#endif

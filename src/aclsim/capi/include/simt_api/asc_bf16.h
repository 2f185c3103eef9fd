/* aclsim: CANN's simt_api/asc_bf16.h (half and bfloat16 in SIMT kernels), implemented in aclsim/half.h. */
#ifndef ACLSIM_SIMT_API_ASC_BF16_H
#define ACLSIM_SIMT_API_ASC_BF16_H
#include "aclsim/simt.h"
#include "aclsim/half.h"
#endif

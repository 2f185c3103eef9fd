/* aclsim: CANN's simt_api/device_warp_functions.h (the SIMT device API), implemented in aclsim/simt.h. */
#ifndef ACLSIM_SIMT_API_DEVICE_WARP_FUNCTIONS_H
#define ACLSIM_SIMT_API_DEVICE_WARP_FUNCTIONS_H
#include "aclsim/simt.h"
#endif

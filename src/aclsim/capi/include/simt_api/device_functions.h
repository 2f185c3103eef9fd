/* aclsim: CANN's simt_api/device_functions.h (the SIMT device API), implemented in aclsim/simt.h. */
#ifndef ACLSIM_SIMT_API_DEVICE_FUNCTIONS_H
#define ACLSIM_SIMT_API_DEVICE_FUNCTIONS_H
#include "aclsim/simt.h"
#endif

/* aclsim: CANN's simt_api/device_types.h (the SIMT device API), implemented in aclsim/simt.h. */
#ifndef ACLSIM_SIMT_API_DEVICE_TYPES_H
#define ACLSIM_SIMT_API_DEVICE_TYPES_H
#include "aclsim/simt.h"
#endif

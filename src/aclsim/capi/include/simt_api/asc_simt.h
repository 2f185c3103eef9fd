/* aclsim: CANN's simt_api/asc_simt.h (the SIMT device API), implemented in aclsim/simt.h. */
#ifndef ACLSIM_SIMT_API_ASC_SIMT_H
#define ACLSIM_SIMT_API_ASC_SIMT_H
#include "aclsim/simt.h"
#endif

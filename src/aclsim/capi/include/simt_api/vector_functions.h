/* aclsim: CANN's simt_api/vector_functions.h (the SIMT device API), implemented in aclsim/simt.h. */
#ifndef ACLSIM_SIMT_API_VECTOR_FUNCTIONS_H
#define ACLSIM_SIMT_API_VECTOR_FUNCTIONS_H
#include "aclsim/simt.h"
#endif

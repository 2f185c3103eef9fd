/* aclsim: CANN's kernel_operator.h, the Ascend C API for AI Core kernels. Today it holds the core's identity
 * (AscendC::GetBlockIdx, GetBlockNum...), the CPU twin (ICPU_RUN_KF, GmAlloc, GmFree) and, for SIMT work
 * started from a core, asc_vf_call; the SIMD API (tensors, queues, vector and Cube instructions) is not
 * emulated yet: a program that uses it fails to compile here, naming what is missing. */
#ifndef ACLSIM_KERNEL_OPERATOR_H
#define ACLSIM_KERNEL_OPERATOR_H
#include "aclsim/ascendc.h"
#include "aclsim/simt.h"
#endif

/* aclsim: CANN's kernel_operator.h, the Ascend C API (namespace AscendC) for kernels in C++.
 *
 * The classes and functions are thin wrappers over aclsim's Ascend C engine, the instruction table pyasc kernels
 * use too: each call hands its operands to the engine, which checks it, computes it on the running AI Core's
 * memories, reports its accesses to the sanitizer and adds its cost (see docs/c.md, "Ascend C kernels").
 * An API aclsim does not emulate does not compile (a deleted function or a static_assert naming it), or faults at
 * the call saying so: never a silent no-op.
 */
#ifndef ACLSIM_KERNEL_OPERATOR_H
#define ACLSIM_KERNEL_OPERATOR_H

#include "aclsim/ascendc.h" /* the core's identity (GetBlockIdx...), ICPU_RUN_KF, GmAlloc/GmFree */
#include "aclsim/simt.h"    /* asc_vf_call: SIMT functions started from the core over its UB */
#include "ascendc/core.h"
#include "ascendc/tensor.h"
#include "ascendc/tpipe.h"
#include "ascendc/move.h"
#include "ascendc/vector.h"
#include "ascendc/system.h"
#include "ascendc/cube.h"
#include "ascendc/unsupported.h"

#endif

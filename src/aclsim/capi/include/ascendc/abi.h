/* aclsim: the C interface between Ascend C code in C++ (kernel_operator.h) and aclsim's Ascend C engine.
 *
 * Every Ascend C call of a kernel is one call of `aclsim_asc*` in libascendcl: an operation code (ops.def) and
 * up to six 64-bit operand words, plus the return address of the program's call (reports name its file:line).
 * The engine (aclsim.asc, through aclsim.capi.ascendc) runs the instruction on the running AI Core: its checks,
 * its semantics, the sanitizer's access reports and its cost. When the instruction faults, the call does not
 * return: the core stops (the stream reports 507015 with the engine's message at its next synchronize).
 *
 * Operand words (aclsim.capi.ascendc.operands decodes them):
 *   local tensor  window handle (bits 0-15) | buffer generation (16-31) | aclDataType (32-37) | byte offset (38-57)
 *   GM tensor     tensor handle (bits 0-15) | element offset from the address SetGlobalBuffer gave (16-63)
 *   scalars       integers as int64; floating-point values through the `_scalar` entry (a double)
 * This is an internal interface of aclsim (it changes with aclsim's version).
 */
#ifndef ACLSIM_ASCENDC_ABI_H
#define ACLSIM_ASCENDC_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum aclsim_asc_op {
#define ASC(name, kind) ASC_##name,
#include "ascendc/ops.def"
#undef ASC
    ASC_OP_COUNT
};

/* Call forms of the vector instructions (added to the operation code): the count form, the mask/repeat form
 * with a lane count, and the mask/repeat form with lane bits. */
#define ASC_FORM_COUNT 0u
#define ASC_FORM_REPEAT 0x1000u
#define ASC_FORM_BITS 0x2000u

int64_t aclsim_asc(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f, const void *ra);
/* The same with a floating-point scalar (Adds, Duplicate, SetValue of a float tensor...). */
int64_t aclsim_asc_scalar(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, double s,
                          const void *ra);
/* A floating-point result (GetValue of a float tensor...). */
double aclsim_asc_real(uint32_t op, uint64_t a, uint64_t b, const void *ra);

#ifdef __cplusplus
}
#endif
#endif

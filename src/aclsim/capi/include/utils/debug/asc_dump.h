/* aclsim: CANN's utils/debug/asc_dump.h, dumping memory by address (asc_dump_gm, asc_dump_ubuf, asc_dump_l1buf,
 * asc_dump_cbuf, asc_dump). The address is the data's real one (GM, or the running core's UB, L1 or L0C as
 * GetPhyAddr gives it); the engine's DumpTensor prints it. */
#ifndef ACLSIM_ASC_DUMP_H
#define ACLSIM_ASC_DUMP_H

#include "kernel_operator.h"

namespace aclsim {
namespace asc {
template <typename T>
ACLSIM_API void dump_address(const void *ra, const volatile void *input, uint32_t desc, uint32_t dump_size) {
    call(ra, ASC_DumpAddress, (uint64_t)(uintptr_t)input, dtype<T>::code, desc, dump_size);
}
}  // namespace asc
}  // namespace aclsim

template <typename T>
ACLSIM_API void asc_dump_gm(__gm__ T *input, uint32_t desc, uint32_t dump_size) {
    aclsim::asc::dump_address<T>(ACLSIM_RA, input, desc, dump_size);
}
template <typename T>
ACLSIM_API void asc_dump_ubuf(__ubuf__ T *input, uint32_t desc, uint32_t dump_size) {
    aclsim::asc::dump_address<T>(ACLSIM_RA, input, desc, dump_size);
}
template <typename T>
ACLSIM_API void asc_dump_cbuf(T *input, uint32_t desc, uint32_t dump_size) {
    aclsim::asc::dump_address<T>(ACLSIM_RA, input, desc, dump_size);
}
template <typename T>
ACLSIM_API void asc_dump_l1buf(T *input, uint32_t desc, uint32_t dump_size) {
    aclsim::asc::dump_address<T>(ACLSIM_RA, input, desc, dump_size);
}
template <typename T>
ACLSIM_API void asc_dump(T *input, uint32_t desc, uint32_t dump_size) {
    aclsim::asc::dump_address<T>(ACLSIM_RA, input, desc, dump_size);
}

#endif

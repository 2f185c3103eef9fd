/* aclsim: CANN's c_api/asc_simd.h, the C form of the Ascend C SIMD API (asc_copy_gm2ub_align, asc_sync_notify,
 * vector_float registers and asc_loadalign...). */
#error "aclsim: the C SIMD API (c_api/asc_simd.h) is not emulated; write the SIMD part with kernel_operator.h (DataCopyPad, SetFlag/WaitFlag, the vector instructions), which runs on aclsim's Ascend C engine"

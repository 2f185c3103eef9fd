/* aclsim: Ascend C APIs aclsim's engine does not emulate, declared so that a program using them fails to
 * compile with a message naming the API (a static_assert when the template is used), not with "not declared".
 * Each family here is listed in docs/c.md ("What the Ascend C face covers"). */
#ifndef ACLSIM_ASCENDC_UNSUPPORTED_H
#define ACLSIM_ASCENDC_UNSUPPORTED_H


#define ACLSIM_NOT_EMULATED_TYPE(NAME, WHY)                                                                          \
    template <class... A>                                                                                            \
    struct NAME {                                                                                                    \
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::" #NAME " is not emulated: " WHY);               \
    }
#define ACLSIM_NOT_EMULATED_VALUE_TYPE(NAME, WHY)                                                                    \
    template <auto... A>                                                                                             \
    struct NAME {                                                                                                    \
        static_assert(::aclsim::asc::never_value<A...>, "aclsim: AscendC::" #NAME " is not emulated: " WHY);        \
    }

namespace AscendC {

/* Register-level vector programming (Ascend 950: __simd_vf__ functions over RegTensor/MaskReg). */
namespace Reg {
ACLSIM_NOT_EMULATED_TYPE(RegTensor, "register-level vector programming (AscendC::Reg, Ascend 950) has no "
                                    "counterpart in aclsim's instruction table; use the LocalTensor API");
}  // namespace Reg
namespace MicroAPI = Reg;

/* Multi-dimensional DMA (Ascend 950). */
ACLSIM_NOT_EMULATED_VALUE_TYPE(NdDmaLoopInfo, "multi-dimensional DMA (Ascend 950); use DataCopy with SliceInfo or "
                                              "DataCopyPad");
template <class T, auto... A>
struct NdDmaParams {
    static_assert(::aclsim::asc::never<T>, "aclsim: AscendC::NdDmaParams is not emulated: multi-dimensional DMA "
                                           "(Ascend 950); use DataCopy with SliceInfo or DataCopyPad");
};
template <class T, auto... A>
struct MultiCopyParams {
    static_assert(::aclsim::asc::never<T>, "aclsim: AscendC::MultiCopyParams is not emulated: multi-dimensional "
                                           "DMA (Ascend 950)");
};

/* Memory pools inside a TPipe (TBufPool, InitBufPool) and the dynamic input lists of ListTensorDesc. */
ACLSIM_NOT_EMULATED_VALUE_TYPE(TBufPool, "buffer pools carved from a TPipe (use TQue/TBuf with InitBuffer, or "
                                         "LocalMemAllocator)");
struct ListTensorDesc {
    template <class... A>
    ListTensorDesc(A &&...) {
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::ListTensorDesc is not emulated: dynamic input "
                                                  "lists (pass the tensors' addresses as kernel arguments)");
    }
};
/* The group barrier of the matmul client-server framework (core_mng/roc). */
enum class PipeMode : uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };
ACLSIM_NOT_EMULATED_VALUE_TYPE(GroupBarrier, "the GM group barrier of core_mng/roc (use SyncAll or cross-core "
                                             "flags)");

/* Functions, by name (any arguments): the call does not compile. */
#define ACLSIM_NOT_EMULATED_FUNCTION(NAME, WHY)                                                                      \
    template <class... A>                                                                                            \
    void NAME(A &&...) {                                                                                             \
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::" #NAME " is not emulated: " WHY);               \
    }
ACLSIM_NOT_EMULATED_FUNCTION(BroadCastVecToMM, "the UB -> L0C broadcast of the Atlas inference chips");
ACLSIM_NOT_EMULATED_FUNCTION(Interleave, "Ascend 950's Interleave");
ACLSIM_NOT_EMULATED_FUNCTION(DeInterleave, "Ascend 950's DeInterleave")

}  // namespace AscendC

#endif

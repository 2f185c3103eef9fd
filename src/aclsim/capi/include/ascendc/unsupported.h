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
/* A plain struct: constructing one (with any arguments) names it. */
#define ACLSIM_NOT_EMULATED_STRUCT(NAME, WHY)                                                                        \
    struct NAME {                                                                                                    \
        template <class... A>                                                                                        \
        NAME(A &&...) {                                                                                              \
            static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::" #NAME " is not emulated: " WHY);           \
        }                                                                                                            \
    }

namespace AscendC {

/* Register-level vector programming (Ascend 950: __simd_vf__ functions over RegTensor/MaskReg): every name
 * of AscendC::Reg the asc-devkit examples use is declared, so a use names what is not emulated. */
#define ACLSIM_REG_WHY "register-level vector programming (AscendC::Reg, Ascend 950) has no counterpart in " \
                       "aclsim's instruction table; use the LocalTensor API"
namespace Reg {
ACLSIM_NOT_EMULATED_TYPE(RegTensor, ACLSIM_REG_WHY);
ACLSIM_NOT_EMULATED_TYPE(MaskReg, ACLSIM_REG_WHY);
ACLSIM_NOT_EMULATED_TYPE(UnalignRegForStore, ACLSIM_REG_WHY);
ACLSIM_NOT_EMULATED_TYPE(UnalignRegForLoad, ACLSIM_REG_WHY);
ACLSIM_NOT_EMULATED_TYPE(AddrReg, ACLSIM_REG_WHY);
enum class PostLiteral {};  // values: not emulated
enum class MaskPattern {};  // values: not emulated
enum class MemType {};  // values: not emulated
enum class MaskMergeMode {};  // values: not emulated
enum class LoadDist {};  // values: not emulated
enum class StoreDist {};  // values: not emulated
enum class ReduceType {};  // values: not emulated
enum class SatMode {};  // values: not emulated
enum class RegLayout {};  // values: not emulated
enum class DataCopyMode {};  // values: not emulated
enum class HistogramsType {};  // values: not emulated
enum class HistogramsBinType {};  // values: not emulated
enum class DivSpecificMode {};  // values: not emulated
enum class HighLowPart {};  // values: not emulated
enum class GatherMaskMode {};  // values: not emulated
template <class... A>
struct CastTrait {};
template <class... T, class... A>
void LoadAlign(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::LoadAlign is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void StoreAlign(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::StoreAlign is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void CreateMask(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::CreateMask is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void UpdateMask(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::UpdateMask is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Duplicate(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Duplicate is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Add(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Add is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Div(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Div is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void LocalMemBar(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::LocalMemBar is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Muls(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Muls is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Mul(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Mul is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Max(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Max is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Min(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Min is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Adds(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Adds is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Exp(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Exp is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void ReduceMax(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::ReduceMax is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void ReduceMin(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::ReduceMin is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void ReduceSum(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::ReduceSum is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Cast(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Cast is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void ExpSub(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::ExpSub is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Select(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Select is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Reduce(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Reduce is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Sub(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Sub is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void StoreUnAlignPost(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::StoreUnAlignPost is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void StoreUnAlign(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::StoreUnAlign is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void LoadUnAlignPre(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::LoadUnAlignPre is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void LoadUnAlign(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::LoadUnAlign is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void ReduceDataBlock(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::ReduceDataBlock is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void MaskGenWithRegTensor(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::MaskGenWithRegTensor is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Histograms(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Histograms is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Gather(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Gather is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Truncate(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Truncate is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Squeeze(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Squeeze is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Scatter(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Scatter is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void PairReduceElem(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::PairReduceElem is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void PairReduce(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::PairReduce is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Pack(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Pack is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Interleave(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Interleave is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void GatherB(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::GatherB is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void CreateAddrReg(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::CreateAddrReg is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Compares(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Compares is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Compare(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Compare is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void ClearSpr(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::ClearSpr is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Arange(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Arange is not emulated: " ACLSIM_REG_WHY); }
template <class... T, class... A>
void Abs(A &&...) { static_assert(::aclsim::asc::never<T..., A...>, "aclsim: AscendC::Reg::Abs is not emulated: " ACLSIM_REG_WHY); }
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
ACLSIM_NOT_EMULATED_STRUCT(ListTensorDesc, "dynamic input lists (pass the tensors' addresses as kernel arguments)");
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
ACLSIM_NOT_EMULATED_FUNCTION(GetVecLen, "the vector register length of Ascend 950 (register-level programming)");
ACLSIM_NOT_EMULATED_FUNCTION(LoadDataWithStride, "Ascend 950's strided LoadData");
ACLSIM_NOT_EMULATED_FUNCTION(SetLoadDataRepeatWithStride, "Ascend 950's strided LoadData");
ACLSIM_NOT_EMULATED_FUNCTION(MmadWithSparse, "sparse matrices in the Cube");
ACLSIM_NOT_EMULATED_FUNCTION(LoadDataWithSparse, "sparse matrices in the Cube");
ACLSIM_NOT_EMULATED_FUNCTION(SetCtrlSpr, "Ascend 950's CTRL special register");
ACLSIM_NOT_EMULATED_FUNCTION(GetCtrlSpr, "Ascend 950's CTRL special register");
ACLSIM_NOT_EMULATED_FUNCTION(ResetCtrlSpr, "Ascend 950's CTRL special register");
ACLSIM_NOT_EMULATED_FUNCTION(GetUBSizeInBytes, "Ascend 950's compile-time UB size (ask the chip: platform_ascendc)");
ACLSIM_NOT_EMULATED_FUNCTION(GetRuntimeUBSize, "Ascend 950's UB size query (ask the chip: platform_ascendc)");
ACLSIM_NOT_EMULATED_FUNCTION(AllocMutexID, "Ascend 950's pipe mutexes");
ACLSIM_NOT_EMULATED_FUNCTION(ReleaseMutexID, "Ascend 950's pipe mutexes");
ACLSIM_NOT_EMULATED_FUNCTION(InitOutput, "the advanced API's output initialisation (use Duplicate and DataCopy)");
struct Mutex {
    template <class... A>
    static void Lock(A &&...) {
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::Mutex is not emulated: Ascend 950's pipe mutexes");
    }
    template <class... A>
    static void Unlock(A &&...) {
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::Mutex is not emulated: Ascend 950's pipe mutexes");
    }
};
struct LoadDataRepeatParamWithStride {
    template <class... A>
    LoadDataRepeatParamWithStride(A &&...) {
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::LoadDataRepeatParamWithStride is not emulated: "
                                                  "Ascend 950's strided LoadData");
    }
};
ACLSIM_NOT_EMULATED_STRUCT(FixpipeParamsArch3510, "Ascend 950's Fixpipe (use FixpipeParamsV220)");

/* Ascend 950's DataCopyPad padding modes and loop mode. */
enum class PaddingMode : uint8_t { Normal = 0, Compact };
enum class DataCopyMVType : uint8_t { UB_TO_OUT = 0, OUT_TO_UB };
template <class T, PaddingMode mode, class... A>
void DataCopyPad(A &&...) {
    static_assert(::aclsim::asc::never_value<mode>, "aclsim: AscendC::DataCopyPad with a PaddingMode is not emulated: "
                                                    "Ascend 950's compact padding (use DataCopyPad without it)");
}
ACLSIM_NOT_EMULATED_STRUCT(LoopModeParams, "Ascend 950's loop mode of DataCopyPad (SetLoopModePara)");
ACLSIM_NOT_EMULATED_FUNCTION(SetLoopModePara, "Ascend 950's loop mode of DataCopyPad");
ACLSIM_NOT_EMULATED_FUNCTION(ResetLoopModePara, "Ascend 950's loop mode of DataCopyPad");
ACLSIM_NOT_EMULATED_FUNCTION(Interleave, "Ascend 950's Interleave");
ACLSIM_NOT_EMULATED_FUNCTION(DeInterleave, "Ascend 950's DeInterleave")

}  // namespace AscendC

/* Ascend 950's 8-bit and 4-bit floating-point types: a tensor of one names its type as not emulated. */
struct fp8_e4m3fn_t { uint8_t bits; };
struct fp8_e5m2_t { uint8_t bits; };
struct fp8_e8m0_t { uint8_t bits; };
struct hifloat8_t { uint8_t bits; };
struct fp4x2_e1m2_t { uint8_t bits; };
struct fp4x2_e2m1_t { uint8_t bits; };

#endif

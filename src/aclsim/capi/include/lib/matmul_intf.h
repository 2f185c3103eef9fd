/* aclsim: CANN's lib/matmul_intf.h, the high-level Matmul API of kernels (namespace matmul, AscendC::Matmul).
 *
 * A Matmul object stands for the engine's (aclsim.asc.highlevel.matmul, the one pyasc's face uses): the types of
 * A, B, C and the bias come from the MatmulType template arguments, the shapes from the TCubeTiling given to
 * REGIST_MATMUL_OBJ (or Init). On the AIC of a mix kernel, REGIST_MATMUL_OBJ ends the body as CANN's server loop
 * does (the AIVs compute the Matmul themselves in aclsim). The Matmul configuration (CFG_NORM, CFG_MDL, ...)
 * chooses a schedule on the chip, not a result: it is accepted as given.
 */
#ifndef ACLSIM_LIB_MATMUL_INTF_H
#define ACLSIM_LIB_MATMUL_INTF_H

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"

#ifndef __kfc_workspace__
#define __kfc_workspace__
#endif

namespace AscendC {

enum class LayoutMode : uint8_t { NONE = 0, NORMAL, BSNGD, SBNGD, BNGS1S2 };
enum class IterateOrder : uint8_t { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType : uint8_t { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class MatmulVersion : uint8_t { NORMAL = 0, MULTI_DATA_LOAD, BASIC_BLOCK, IBSHARE_NORM };

struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0;
    uint32_t basicN = 0;
    uint32_t basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0;
    uint32_t singleCoreN = 0;
    uint32_t singleCoreK = 0;
    uint32_t stepM = 0;
    uint32_t stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    uint32_t batchMode = 0;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = 0;
    bool enableReuse = true;
    bool enableUBReuse = false;
    bool enableL1CacheUB = false;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableDoubleCache = false;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool isCO1Shared = false;
    uint32_t sharedCO1BufferSize = 0;
};

constexpr MatmulConfig GetNormalConfig() { return MatmulConfig{}; }
constexpr MatmulConfig GetMDLConfig() {
    MatmulConfig c{};
    c.doNorm = false;
    c.doMultiDataLoad = true;
    return c;
}
constexpr MatmulConfig GetSpecialMDLConfig() {
    MatmulConfig c{};
    c.doNorm = false;
    c.doSpecialMDL = true;
    return c;
}
constexpr MatmulConfig GetIBShareNormConfig() {
    MatmulConfig c{};
    c.doNorm = false;
    c.doIBShareNorm = true;
    return c;
}
constexpr MatmulConfig GetBasicConfig(uint32_t basicM, uint32_t basicN, uint32_t basicK) {
    MatmulConfig c{};
    c.doNorm = false;
    c.doBasicBlock = true;
    c.basicM = basicM, c.basicN = basicN, c.basicK = basicK;
    return c;
}
constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();
constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(128, 128, 128);

/* Where A, B, C or the bias is, its format and element type, and whether it is transposed. */
template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

namespace detail {
/* The operations of a Matmul (aclsim.capi.ascendc.matmul names the same list). */
enum MatmulOp : uint64_t {
    MM_REGISTER = 0,
    MM_INIT,
    MM_SET_ORG_SHAPE,
    MM_SET_SINGLE_SHAPE,
    MM_SET_TAIL,
    MM_SET_TENSOR_A,
    MM_SET_TENSOR_B,
    MM_SET_BIAS,
    MM_DISABLE_BIAS,
    MM_SET_QUANT_SCALAR,
    MM_SET_QUANT_VECTOR,
    MM_ITERATE,
    MM_ITERATE_ALL,
    MM_GET_TENSOR_C,
    MM_ITERATE_BATCH,
    MM_END,
    MM_SET_HF32,
    MM_SET_BATCH_NUM,
};
template <class M>
inline uint64_t type_spec(uint64_t given = 1) {
    return (uint64_t)M::pos | (uint64_t)M::format << 8 | aclsim::asc::dtype<typename M::T>::code << 16 |
           (uint64_t)M::isTrans << 24 | (uint64_t)M::layout << 32 | given << 40;
}
inline int64_t mm(const void *ra, uint64_t h, uint64_t op, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0,
                  uint64_t d = 0) {
    return aclsim::asc::call(ra, ASC_MatmulCall, h, op, a, b, c, d);
}
}  // namespace detail

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto &MM_CFG = CFG_NORM,
          class MM_CB = void, class MM_POLICY = void>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;

public:
    uint64_t handle_ = 0;

    __aicore__ Matmul() {}
    ACLSIM_API void Init(const TCubeTiling *__restrict cubeTiling, TPipe *tpipe = nullptr) {
        detail::mm(ACLSIM_RA, made(ACLSIM_RA), detail::MM_INIT, (uint64_t)(uintptr_t)cubeTiling,
                   tpipe ? tpipe->handle_ : 0);
    }
    void Register(const void *ra, TPipe *tpipe, const TCubeTiling *tiling) {
        detail::mm(ra, made(ra), detail::MM_REGISTER, (uint64_t)(uintptr_t)tiling, tpipe ? tpipe->handle_ : 0);
    }
    ACLSIM_API void SetOrgShape(int orgM, int orgN, int orgK) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_ORG_SHAPE, (uint64_t)orgM, (uint64_t)orgN, (uint64_t)orgK,
                   (uint64_t)orgK);
    }
    ACLSIM_API void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        (void)orgKc;
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_ORG_SHAPE, (uint64_t)orgM, (uint64_t)orgN, (uint64_t)orgKa,
                   (uint64_t)orgKb);
    }
    ACLSIM_API void SetSingleShape(int singleM, int singleN, int singleK) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_SINGLE_SHAPE, (uint64_t)singleM, (uint64_t)singleN,
                   (uint64_t)singleK);
    }
    ACLSIM_API void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_TAIL, (uint64_t)(int64_t)tailM, (uint64_t)(int64_t)tailN,
                   (uint64_t)(int64_t)tailK);
    }
    ACLSIM_API void SetTensorA(const GlobalTensor<SrcAT> &gm, bool isTransposeA = false) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_TENSOR_A, gm.word(), isTransposeA);
    }
    ACLSIM_API void SetTensorB(const GlobalTensor<SrcBT> &gm, bool isTransposeB = false) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_TENSOR_B, gm.word(), isTransposeB);
    }
    ACLSIM_API void SetBias(const GlobalTensor<BiasT> &biasGlobal) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_BIAS, biasGlobal.word());
    }
    ACLSIM_API void SetTensorA(const LocalTensor<SrcAT> &, bool = false) {
        aclsim::asc::not_emulated(ACLSIM_RA, "Matmul::SetTensorA", "A in local memory (aclsim emulates GM operands)");
    }
    ACLSIM_API void SetTensorB(const LocalTensor<SrcBT> &, bool = false) {
        aclsim::asc::not_emulated(ACLSIM_RA, "Matmul::SetTensorB", "B in local memory (aclsim emulates GM operands)");
    }
    ACLSIM_API void SetBias(const LocalTensor<BiasT> &) {
        aclsim::asc::not_emulated(ACLSIM_RA, "Matmul::SetBias", "a bias in local memory (aclsim emulates GM operands)");
    }
    ACLSIM_API void DisableBias() { detail::mm(ACLSIM_RA, handle_, detail::MM_DISABLE_BIAS); }
    ACLSIM_API void ClearBias() { detail::mm(ACLSIM_RA, handle_, detail::MM_DISABLE_BIAS); }
    ACLSIM_API void SetQuantScalar(const uint64_t quantScalar) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_QUANT_SCALAR, quantScalar);
    }
    ACLSIM_API void SetQuantVector(const GlobalTensor<uint64_t> &quantTensor) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_QUANT_VECTOR, quantTensor.word());
    }
    ACLSIM_API void SetBatchNum(int32_t batchA, int32_t batchB) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_BATCH_NUM, (uint64_t)batchA, (uint64_t)batchB);
    }
    template <bool sync = true>
    ACLSIM_API bool Iterate(bool enPartialSum = false) {
        return detail::mm(ACLSIM_RA, handle_, detail::MM_ITERATE, enPartialSum) != 0;
    }
    template <bool sync = true>
    ACLSIM_API void IterateAll(const GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                               bool waitIterateAll = false, bool fakeMsg = false) {
        (void)waitIterateAll, (void)fakeMsg;
        detail::mm(ACLSIM_RA, handle_, detail::MM_ITERATE_ALL, gm.word(), 1, enAtomic, enSequentialWrite);
    }
    template <bool sync = true>
    ACLSIM_API void IterateAll(const LocalTensor<DstT> &ubCmatrix, uint8_t enAtomic = 0) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_ITERATE_ALL, ubCmatrix.word_, 0, enAtomic, 0);
    }
    template <bool sync = true>
    ACLSIM_API void GetTensorC(const LocalTensor<DstT> &co2Local, uint8_t enAtomic = 0,
                               bool enSequentialWrite = false) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_GET_TENSOR_C, co2Local.word_, 0, enAtomic, enSequentialWrite);
    }
    template <bool sync = true>
    ACLSIM_API void GetTensorC(const GlobalTensor<DstT> &gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_GET_TENSOR_C, gm.word(), 1, enAtomic, enSequentialWrite);
    }
    /* C[i] = A[i] x B[i] for the batch counts of SetBatchNum. */
    ACLSIM_API void IterateBatch(const GlobalTensor<DstT> &gm, bool enPartialSum, uint8_t enAtomic,
                                 bool enSequentialWrite, const uint32_t matrixStrideA = 0,
                                 const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0) {
        (void)matrixStrideC;
        detail::mm(ACLSIM_RA, handle_, detail::MM_ITERATE_BATCH, gm.word(),
                   (uint64_t)enPartialSum | (uint64_t)enAtomic << 8 | (uint64_t)enSequentialWrite << 16,
                   matrixStrideA, matrixStrideB);
    }
    ACLSIM_API void End() { detail::mm(ACLSIM_RA, handle_, detail::MM_END); }
    ACLSIM_API void SetHF32(bool enableHF32 = false, int32_t transMode = 0) {
        detail::mm(ACLSIM_RA, handle_, detail::MM_SET_HF32, enableHF32, (uint64_t)transMode);
    }
    template <class T>
    __aicore__ void SetWorkspace(__gm__ const T *addr, int size) { (void)addr, (void)size; }
    template <class T>
    __aicore__ void SetWorkspace(GlobalTensor<T> &addr) { (void)addr; }
    __aicore__ void SetLocalWorkspace(const LocalTensor<uint8_t> &tmpBuffer) { (void)tmpBuffer; }
    __aicore__ void SetSubBlockIdx(uint8_t subBlockIdx) { (void)subBlockIdx; }

private:
    uint64_t made(const void *ra) {
        if (!handle_) {
            uint64_t spec[4] = {detail::type_spec<A_TYPE>(), detail::type_spec<B_TYPE>(), detail::type_spec<C_TYPE>(),
                                detail::type_spec<BIAS_TYPE>()};
            handle_ = (uint64_t)aclsim::asc::call(ra, ASC_MatmulNew, (uint64_t)(uintptr_t)spec);
        }
        return handle_;
    }
};

namespace detail {
inline void regist(const void *, TPipe *) {}
template <class M, class... Rest>
inline void regist(const void *ra, TPipe *pipe, M &mm, const TCubeTiling *tiling, Rest &&...rest) {
    mm.Register(ra, pipe, tiling);
    regist(ra, pipe, rest...);
}
template <class M, class... Rest>
inline void regist(const void *ra, TPipe *pipe, M &mm, TCubeTiling *tiling, Rest &&...rest) {
    mm.Register(ra, pipe, tiling);
    regist(ra, pipe, rest...);
}
template <class M, class... Rest>
inline void regist(const void *ra, TPipe *pipe, M &mm, std::nullptr_t, Rest &&...rest) {
    mm.Register(ra, pipe, nullptr);
    regist(ra, pipe, rest...);
}
template <class... Args>
ACLSIM_API void register_matmuls(TPipe *pipe, GM_ADDR workspace, Args &&...args) {
    (void)workspace;
    regist(ACLSIM_RA, pipe, args...);
}
}  // namespace detail

/* The system workspace the framework hands a kernel (the Matmul of the emulator needs none). */
inline GM_ADDR &sys_workspace() {
    static thread_local GM_ADDR ws = nullptr;
    return ws;
}
__aicore__ inline void SetSysWorkspace(GM_ADDR workspace) { sys_workspace() = workspace; }
__aicore__ inline GM_ADDR GetSysWorkSpacePtr() { return sys_workspace(); }
__aicore__ inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }

}  // namespace AscendC

namespace matmul = AscendC;  // as CANN spells it

using AscendC::GetSysWorkSpacePtr;

/* REGIST_MATMUL_OBJ(&pipe, workspace, mm1, &tiling1[, mm2, &tiling2 ...]) */
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) ::AscendC::detail::register_matmuls((tpipe), (workspace), __VA_ARGS__)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ

#endif

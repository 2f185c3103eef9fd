/* aclsim: Ascend C in C++, part 6: system variables, synchronisation, printf/DumpTensor, scalar unit. */
#ifndef ACLSIM_ASCENDC_SYSTEM_H
#define ACLSIM_ASCENDC_SYSTEM_H

#include <string>

#include "ascendc/tensor.h"
#include "utils/debug/asc_assert.h"

namespace AscendC {

/* ------------------------------------------------------------------------------- system variables */
ACLSIM_API inline int64_t GetSystemCycle() { return aclsim::asc::call(ACLSIM_RA, ASC_GetSystemCycle); }
ACLSIM_API inline void InitSocState() { aclsim::asc::call(ACLSIM_RA, ASC_InitSocState); }
ACLSIM_API inline void Trap() { aclsim::asc::call(ACLSIM_RA, ASC_Trap); }
ACLSIM_API inline void PrintTimeStamp(uint32_t descId) { aclsim::asc::call(ACLSIM_RA, ASC_PrintTimeStamp, descId); }
ACLSIM_API inline bool aclsim_is_aic() { return aclsim::asc::call(ACLSIM_RA, ASC_IsAic) != 0; }
constexpr int32_t GetDataBlockSizeInBytes() { return ONE_BLK_SIZE; }

}  // namespace AscendC

/* ASCEND_IS_AIV / ASCEND_IS_AIC: which kind of core runs the body (mix kernels branch on it). */
#define ASCEND_IS_AIC (::AscendC::aclsim_is_aic())
#define ASCEND_IS_AIV (!::AscendC::aclsim_is_aic())
#define ASCEND_IS_NOT_AIC (!::AscendC::aclsim_is_aic())
#define ASCEND_IS_NOT_AIV (::AscendC::aclsim_is_aic())

namespace AscendC {

/* ------------------------------------------------------------------------------- synchronisation */
template <HardEvent event>
ACLSIM_API void SetFlag(int32_t eventID) {
    aclsim::asc::call(ACLSIM_RA, ASC_SetFlag, (uint64_t)event, (uint64_t)eventID);
}
template <HardEvent event>
ACLSIM_API void WaitFlag(int32_t eventID) {
    aclsim::asc::call(ACLSIM_RA, ASC_WaitFlag, (uint64_t)event, (uint64_t)eventID);
}
template <pipe_t pipe>
ACLSIM_API void PipeBarrier() {
    aclsim::asc::call(ACLSIM_RA, ASC_PipeBarrier, (uint64_t)pipe);
}
template <bool isAIVOnly = true>
ACLSIM_API void SyncAll() {
    aclsim::asc::call(ACLSIM_RA, ASC_SyncAll, 0, 0, 0, isAIVOnly);
}
template <bool isAIVOnly = true>
ACLSIM_API void SyncAll(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
                        const int32_t usedCores = 0) {
    aclsim::asc::call(ACLSIM_RA, ASC_SyncAll, gmWorkspace.word(), ubWorkspace.word_, (uint64_t)usedCores, isAIVOnly);
}
/* Flags between blocks in a GM workspace (the engine's sync/blocks.py, as CANN's A2 implementation). */
template <bool isAIVOnly = true>
ACLSIM_API void IBSet(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
                      int32_t blockIdx, int32_t eventID) {
    aclsim::asc::call(ACLSIM_RA, ASC_IBSet, gmWorkspace.word(), ubWorkspace.word_, (uint64_t)blockIdx,
                      (uint64_t)eventID, isAIVOnly);
}
template <bool isAIVOnly = true>
ACLSIM_API void IBWait(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
                       int32_t blockIdx, int32_t eventID) {
    aclsim::asc::call(ACLSIM_RA, ASC_IBWait, gmWorkspace.word(), ubWorkspace.word_, (uint64_t)blockIdx,
                      (uint64_t)eventID, isAIVOnly);
}
ACLSIM_API inline void InitDetermineComputeWorkspace(GlobalTensor<int32_t> &gmWorkspace,
                                                     LocalTensor<int32_t> &ubWorkspace) {
    aclsim::asc::call(ACLSIM_RA, ASC_BlockOrder, gmWorkspace.word(), ubWorkspace.word_, 0);
}
ACLSIM_API inline void WaitPreBlock(GlobalTensor<int32_t> &gmWorkspace, LocalTensor<int32_t> &ubWorkspace) {
    aclsim::asc::call(ACLSIM_RA, ASC_BlockOrder, gmWorkspace.word(), ubWorkspace.word_, 1);
}
ACLSIM_API inline void NotifyNextBlock(GlobalTensor<int32_t> &gmWorkspace, LocalTensor<int32_t> &ubWorkspace) {
    aclsim::asc::call(ACLSIM_RA, ASC_BlockOrder, gmWorkspace.word(), ubWorkspace.word_, 2);
}

/* Early start of the next task (super kernels); the template pipes choose which pipe signals. */
template <pipe_t AIV_PIPE = PIPE_MTE3, pipe_t AIC_PIPE = PIPE_FIX, bool FORCE = false>
ACLSIM_API void SetNextTaskStart() { aclsim::asc::call(ACLSIM_RA, ASC_SetNextTaskStart); }
ACLSIM_API inline void WaitPreTaskEnd() { aclsim::asc::call(ACLSIM_RA, ASC_WaitPreTaskEnd); }

/* The scalar unit's GM accesses (the engine's scalar/gm.py): values travel as their bits. */
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
namespace detail {
enum { GM_READ, GM_WRITE, GM_ADD, GM_MAX, GM_MIN, GM_EXCH, GM_CAS };
template <typename T>
ACLSIM_API T scalar_gm(const void *ra, int what, __gm__ T *address, T value = T(), T value2 = T()) {
    uint64_t bits = (uint64_t)aclsim::asc::call(ra, ASC_ScalarGm, (uint64_t)(uintptr_t)address,
                                                aclsim::asc::dtype<T>::code, (uint64_t)what,
                                                aclsim::asc::bits_of(value), aclsim::asc::bits_of(value2));
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}
}  // namespace detail
template <typename T>
ACLSIM_API T ReadGmByPassDCache(__gm__ T *addr) { return detail::scalar_gm(ACLSIM_RA, detail::GM_READ, addr); }
template <typename T>
ACLSIM_API void WriteGmByPassDCache(__gm__ T *addr, T value) {
    detail::scalar_gm(ACLSIM_RA, detail::GM_WRITE, addr, value);
}
template <typename T>
ACLSIM_API T AtomicAdd(__gm__ T *address, T value) { return detail::scalar_gm(ACLSIM_RA, detail::GM_ADD, address, value); }
template <typename T>
ACLSIM_API T AtomicMax(__gm__ T *address, T value) { return detail::scalar_gm(ACLSIM_RA, detail::GM_MAX, address, value); }
template <typename T>
ACLSIM_API T AtomicMin(__gm__ T *address, T value) { return detail::scalar_gm(ACLSIM_RA, detail::GM_MIN, address, value); }
template <typename T>
ACLSIM_API T AtomicExch(__gm__ T *address, T value) {
    return detail::scalar_gm(ACLSIM_RA, detail::GM_EXCH, address, value);
}
template <typename T>
ACLSIM_API T AtomicCas(__gm__ T *address, T value1, T value2) {
    return detail::scalar_gm(ACLSIM_RA, detail::GM_CAS, address, value1, value2);
}
template <MemDsbT arg0>
ACLSIM_API void DataSyncBarrier() { aclsim::asc::call(ACLSIM_RA, ASC_DataSyncBarrier, (uint64_t)arg0); }
template <typename T, CacheLine entireType, DcciDst dcciDst>
ACLSIM_API void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst) {
    aclsim::asc::call(ACLSIM_RA, ASC_DataCacheClean, (uint64_t)entireType, dst.word(), (uint64_t)dcciDst, 1);
}
template <typename T, CacheLine entireType>
ACLSIM_API void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst) {
    aclsim::asc::call(ACLSIM_RA, ASC_DataCacheClean, (uint64_t)entireType, dst.word(), 0, 0);
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
ACLSIM_API void DataCacheCleanAndInvalid(const LocalTensor<T> &dst) {
    aclsim::asc::call(ACLSIM_RA, ASC_DataCacheClean, (uint64_t)entireType, dst.word_, (uint64_t)dcciDst, 3);
}

template <uint8_t modeId, pipe_t pipe>
ACLSIM_API void CrossCoreSetFlag(uint16_t flagId) {
    aclsim::asc::call(ACLSIM_RA, ASC_CrossCoreSetFlag, flagId, modeId, (uint64_t)pipe);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
ACLSIM_API void CrossCoreWaitFlag(uint16_t flagId) {
    aclsim::asc::call(ACLSIM_RA, ASC_CrossCoreWaitFlag, flagId, modeId, (uint64_t)pipe);
}

/* Flags between two pipes, named by the pipes (TQueSync<src, dst>). */
template <pipe_t src, pipe_t dst>
class TQueSync {
public:
    ACLSIM_API void SetFlag(TEventID id) { aclsim::asc::call(ACLSIM_RA, ASC_SetFlag, event(), (uint64_t)id); }
    ACLSIM_API void WaitFlag(TEventID id) { aclsim::asc::call(ACLSIM_RA, ASC_WaitFlag, event(), (uint64_t)id); }

private:
    static constexpr uint64_t event() {
        return (uint64_t)(src == PIPE_MTE2 && dst == PIPE_V    ? HardEvent::MTE2_V
                          : src == PIPE_V && dst == PIPE_MTE2  ? HardEvent::V_MTE2
                          : src == PIPE_MTE3 && dst == PIPE_V  ? HardEvent::MTE3_V
                          : src == PIPE_V && dst == PIPE_MTE3  ? HardEvent::V_MTE3
                          : src == PIPE_V && dst == PIPE_V     ? HardEvent::V_V
                          : src == PIPE_MTE2 && dst == PIPE_MTE3 ? HardEvent::MTE2_MTE3
                          : src == PIPE_MTE3 && dst == PIPE_MTE2 ? HardEvent::MTE3_MTE2
                          : src == PIPE_S && dst == PIPE_V     ? HardEvent::S_V
                          : src == PIPE_V && dst == PIPE_S     ? HardEvent::V_S
                          : src == PIPE_MTE2 && dst == PIPE_S  ? HardEvent::MTE2_S
                          : src == PIPE_S && dst == PIPE_MTE2  ? HardEvent::S_MTE2
                          : src == PIPE_MTE3 && dst == PIPE_S  ? HardEvent::MTE3_S
                          : src == PIPE_S && dst == PIPE_MTE3  ? HardEvent::S_MTE3
                          : src == PIPE_MTE2 && dst == PIPE_MTE1 ? HardEvent::MTE2_MTE1
                          : src == PIPE_MTE1 && dst == PIPE_MTE2 ? HardEvent::MTE1_MTE2
                          : src == PIPE_MTE1 && dst == PIPE_M  ? HardEvent::MTE1_M
                          : src == PIPE_M && dst == PIPE_MTE1  ? HardEvent::M_MTE1
                          : src == PIPE_M && dst == PIPE_FIX   ? HardEvent::M_FIX
                          : src == PIPE_FIX && dst == PIPE_M   ? HardEvent::FIX_M
                          : src == PIPE_FIX && dst == PIPE_MTE2 ? HardEvent::FIX_MTE2
                          : src == PIPE_MTE2 && dst == PIPE_FIX ? HardEvent::MTE2_FIX
                          : src == PIPE_FIX && dst == PIPE_MTE3 ? HardEvent::FIX_MTE3
                                                                : HardEvent::MAX);
    }
};

/* ------------------------------------------------------------------------------- printf, DumpTensor */
namespace detail {
template <typename T>
inline auto fmt_arg(T v) {
    if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) {
        return (double)(float)v;
    } else if constexpr (std::is_enum<T>::value) {
        return (long long)v;
    } else {
        return v;
    }
}
inline void print(const void *ra, const char *text) {
    aclsim::asc::call(ra, ASC_Print, (uint64_t)(uintptr_t)text);
}
template <typename... Args>
inline void printf_at(const void *ra, const char *fmt, Args... args) {
    int n = std::snprintf(nullptr, 0, fmt, fmt_arg(args)...);
    std::string out(n > 0 ? (size_t)n : 0, '\0');
    if (n > 0) std::snprintf(&out[0], (size_t)n + 1, fmt, fmt_arg(args)...);
    if (aclsim_self == nullptr) {  // host code (`using namespace AscendC` makes printf this one)
        std::fputs(out.c_str(), stdout);
        return;
    }
    std::fflush(stdout);  // the program's own lines first, as they were written
    print(ra, out.c_str());
}
}  // namespace detail

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* printf from a kernel: C's format rules; the engine prints it (at the synchronize that runs the launch). */
template <typename... Args>
ACLSIM_API void printf(const char *fmt, Args... args) {
    detail::printf_at(ACLSIM_RA, fmt, args...);
}
template <typename... Args>
ACLSIM_API void PRINTF(const char *fmt, Args... args) {
    detail::printf_at(ACLSIM_RA, fmt, args...);
}
#pragma GCC diagnostic pop

template <typename T>
ACLSIM_API void DumpTensor(const LocalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize) {
    aclsim::asc::call(ACLSIM_RA, ASC_DumpLocal, tensor.word_, desc, dumpSize);
}
template <typename T>
ACLSIM_API void DumpTensor(const GlobalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize) {
    aclsim::asc::call(ACLSIM_RA, ASC_DumpGlobal, tensor.word(), desc, dumpSize);
}
template <typename T>
ACLSIM_API void DumpTensor(const LocalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo &) {
    aclsim::asc::call(ACLSIM_RA, ASC_DumpLocal, tensor.word_, desc, dumpSize);
}
template <typename T>
ACLSIM_API void DumpTensor(const GlobalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo &) {
    aclsim::asc::call(ACLSIM_RA, ASC_DumpGlobal, tensor.word(), desc, dumpSize);
}

/* ------------------------------------------------------------------------------- scalar unit */
template <typename T, typename U, RoundMode roundMode>
ACLSIM_API U ScalarCast(T valueIn) {
    float v = (float)valueIn;
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return (U)aclsim::asc::call_real(ACLSIM_RA, ASC_ScalarCast, aclsim::asc::dtype<U>::code | (uint64_t)roundMode << 8,
                                     bits);
}
template <typename T>
ACLSIM_API int64_t ScalarCountLeadingZero(T valueIn) {
    return aclsim::asc::call(ACLSIM_RA, ASC_ScalarCountLeadingZero, (uint64_t)valueIn);
}
template <int countValue>
ACLSIM_API int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    return aclsim::asc::call(ACLSIM_RA, ASC_ScalarGetCountOfValue, valueIn, countValue);
}
template <int countValue>
ACLSIM_API int64_t ScalarGetSFFValue(uint64_t valueIn) {
    return aclsim::asc::call(ACLSIM_RA, ASC_ScalarGetSFFValue, valueIn, countValue);
}
ACLSIM_API inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    return aclsim::asc::call(ACLSIM_RA, ASC_CountBitsCntSameAsSignBit, (uint64_t)valueIn);
}

}  // namespace AscendC

#endif

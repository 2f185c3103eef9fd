/* aclsim: Ascend C in C++, part 4: data movement (DataCopy, DataCopyPad, slices, Nd2Nz) and atomic GM stores. */
#ifndef ACLSIM_ASCENDC_MOVE_H
#define ACLSIM_ASCENDC_MOVE_H

#include "ascendc/tensor.h"

namespace AscendC {

constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;
constexpr int32_t K_MAX_DIM = 8;  // dimensions of a slice DataCopy

struct DataCopyParams {
    __aicore__ DataCopyParams() {}
    __aicore__ DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                              const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint16_t blockLen = 0;
    union {
        uint16_t srcGap = 0;
        uint16_t srcStride;
    };
    union {
        uint16_t dstGap = 0;
        uint16_t dstStride;
    };
};

struct DataCopyExtParams {
    __aicore__ DataCopyExtParams() {}
    __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                                 const uint32_t dstStrideIn, const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint32_t blockLen = 0;
    uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    __aicore__ DataCopyPadParams() {}
    __aicore__ DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                                 const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    __aicore__ DataCopyPadExtParams() {}
    __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                                    T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

struct Nd2NzParams {
    __aicore__ Nd2NzParams() {}
    __aicore__ Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                           const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
                           const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
                           const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
          srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
};

struct SliceInfo {
    __aicore__ SliceInfo() {}
    __aicore__ SliceInfo(const uint32_t startIndexIn, const uint32_t endIndexIn, const uint32_t strideIn,
                         const uint32_t burstLenIn, const uint32_t shapeValueIn = 0)
        : startIndex(startIndexIn), endIndex(endIndexIn), stride(strideIn), burstLen(burstLenIn),
          shapeValue(shapeValueIn) {}
    uint32_t startIndex = 0;
    uint32_t endIndex = ONE_BLK_SIZE - 1;
    uint32_t stride = 0;
    uint32_t burstLen = ONE_BLK_SIZE;
    uint32_t shapeValue = 0;
};

namespace detail {
inline uint64_t packed(const DataCopyParams &p) {
    return (uint64_t)p.blockCount | (uint64_t)p.blockLen << 16 | (uint64_t)p.srcStride << 32 |
           (uint64_t)p.dstStride << 48;
}
template <typename D, typename S>
inline void copy(const void *ra, const D &dst, const S &src, uint32_t count) {
    aclsim::asc::call(ra, ASC_DataCopy, word_of(dst), word_of(src), count, flags(dst, src));
}
template <typename D, typename S>
inline void copy(const void *ra, const D &dst, const S &src, const DataCopyParams &p) {
    aclsim::asc::call(ra, ASC_DataCopyParams, word_of(dst), word_of(src), packed(p), flags(dst, src));
}
template <typename D, typename S>
inline void copy_slices(const void *ra, const D &dst, const S &src, const SliceInfo *d, const SliceInfo *s,
                        uint32_t dims) {
    static_assert(sizeof(SliceInfo) == 20, "SliceInfo is five uint32");
    aclsim::asc::call(ra, ASC_DataCopySlice, word_of(dst), word_of(src), (uint64_t)(uintptr_t)d,
                      (uint64_t)(uintptr_t)s, dims, flags(dst, src));
}
template <typename D, typename S>
inline void copy_pad(const void *ra, const D &dst, const S &src, uint64_t p1, uint64_t p2, uint64_t pad,
                     uint64_t older) {
    aclsim::asc::call(ra, ASC_DataCopyPad, word_of(dst), word_of(src), p1, p2, pad, flags(dst, src) | older << 2);
}
inline uint64_t ext1(const DataCopyExtParams &p) { return (uint64_t)p.blockCount | (uint64_t)p.blockLen << 16; }
inline uint64_t ext2(const DataCopyExtParams &p) { return (uint64_t)p.srcStride | (uint64_t)p.dstStride << 32; }
template <typename T>
inline uint64_t pad_word(const DataCopyPadExtParams<T> &p) {
    return (uint64_t)p.isPad | (uint64_t)p.leftPadding << 8 | (uint64_t)p.rightPadding << 16 | 1ull << 24 |
           (aclsim::asc::bits_of(p.paddingValue) & 0xFFFFFFFFull) << 32;
}
inline uint64_t pad_word(const DataCopyPadParams &p) {
    return (uint64_t)p.isPad | (uint64_t)p.leftPadding << 8 | (uint64_t)p.rightPadding << 16 | 1ull << 24 |
           (p.paddingValue & 0xFFFFFFFFull) << 32;
}
}  // namespace detail

/* DataCopy: GM <-> local memory and local <-> local, the count form (elements). */
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count) {
    detail::copy(ACLSIM_RA, dst, src, count);
}
template <typename T>
ACLSIM_API void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
    detail::copy(ACLSIM_RA, dst, src, count);
}
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count) {
    detail::copy(ACLSIM_RA, dst, src, count);
}
/* The blocked form (DataCopyParams: counts and gaps in 32-byte blocks). */
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &params) {
    detail::copy(ACLSIM_RA, dst, src, params);
}
template <typename T>
ACLSIM_API void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params) {
    detail::copy(ACLSIM_RA, dst, src, params);
}
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params) {
    detail::copy(ACLSIM_RA, dst, src, params);
}
/* The enhanced form: the block modes, dequantisation, ReLU and padding of the Cube's CO1 -> CO2 path are the
 * engine's to refuse (the plain moves run as the blocked form). */
enum class BlockMode : uint8_t {
    BLOCK_MODE_NORMAL = 0,
    BLOCK_MODE_MATRIX,
    BLOCK_MODE_VECTOR,
    BLOCK_MODE_SMALL_CHANNEL,
    BLOCK_MODE_DEPTHWISE
};
enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };
enum class pad_t : uint8_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5, PAD_MODE6,
                             PAD_MODE7, PAD_MODE8 };
struct DataCopyEnhancedParams {
    BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
    DeqScale deqScale = DeqScale::DEQ_NONE;
    uint64_t deqValue = 0;
    uint8_t sidStoreMode = 0;
    bool isRelu = false;
    pad_t padMode = pad_t::PAD_NONE;
    uint64_t padValue = 0;
    uint64_t deqTensorAddr = 0;
};
namespace detail {
template <typename D, typename S>
inline void copy_enhanced(const void *ra, const D &dst, const S &src, const DataCopyParams &p,
                          const DataCopyEnhancedParams &e) {
    uint64_t f[7] = {(uint64_t)e.blockMode, (uint64_t)e.deqScale, e.deqValue, e.sidStoreMode, (uint64_t)e.isRelu,
                     (uint64_t)e.padMode, e.padValue};
    aclsim::asc::call(ra, ASC_DataCopyEnhanced, word_of(dst), word_of(src), packed(p), flags(dst, src),
                      (uint64_t)(uintptr_t)f);
}
}  // namespace detail
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &params,
                         const DataCopyEnhancedParams &enhancedParams) {
    detail::copy_enhanced(ACLSIM_RA, dst, src, params, enhancedParams);
}
template <typename T>
ACLSIM_API void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params,
                         const DataCopyEnhancedParams &enhancedParams) {
    detail::copy_enhanced(ACLSIM_RA, dst, src, params, enhancedParams);
}
template <typename T, typename U>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const DataCopyParams &params,
                         const DataCopyEnhancedParams &enhancedParams) {
    detail::copy_enhanced(ACLSIM_RA, dst, src, params, enhancedParams);
}
/* ND -> NZ (GM or UB -> L1). */
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const Nd2NzParams &p) {
    uint64_t f[8] = {p.ndNum, p.nValue, p.dValue, p.srcNdMatrixStride, p.srcDValue, p.dstNzC0Stride,
                     p.dstNzNStride, p.dstNzMatrixStride};
    aclsim::asc::call(ACLSIM_RA, ASC_DataCopyNd2Nz, dst.word_, src.word(), (uint64_t)(uintptr_t)f, 2);
}
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const Nd2NzParams &p) {
    uint64_t f[8] = {p.ndNum, p.nValue, p.dValue, p.srcNdMatrixStride, p.srcDValue, p.dstNzC0Stride,
                     p.dstNzNStride, p.dstNzMatrixStride};
    aclsim::asc::call(ACLSIM_RA, ASC_DataCopyNd2Nz, dst.word_, src.word_, (uint64_t)(uintptr_t)f, 0);
}
/* Slices of a multi-dimensional tensor. */
template <typename T>
ACLSIM_API void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const SliceInfo dstSliceInfo[],
                         const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
    detail::copy_slices(ACLSIM_RA, dst, src, dstSliceInfo, srcSliceInfo, dimValue);
}
template <typename T>
ACLSIM_API void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const SliceInfo dstSliceInfo[],
                         const SliceInfo srcSliceInfo[], const uint32_t dimValue = 1) {
    detail::copy_slices(ACLSIM_RA, dst, src, dstSliceInfo, srcSliceInfo, dimValue);
}

/* DataCopyPad: any byte length (A2/A3 and later). */
template <typename T>
ACLSIM_API void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                            const DataCopyExtParams &dataCopyParams, const DataCopyPadExtParams<T> &padParams) {
    detail::copy_pad(ACLSIM_RA, dst, src, detail::ext1(dataCopyParams), detail::ext2(dataCopyParams),
                     detail::pad_word(padParams), 0);
}
template <typename T>
ACLSIM_API void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                            const DataCopyExtParams &dataCopyParams) {
    detail::copy_pad(ACLSIM_RA, dst, src, detail::ext1(dataCopyParams), detail::ext2(dataCopyParams), 0, 0);
}
template <typename T>
ACLSIM_API void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                            const DataCopyParams &dataCopyParams, const DataCopyPadParams &padParams) {
    detail::copy_pad(ACLSIM_RA, dst, src, detail::packed(dataCopyParams), 0, detail::pad_word(padParams), 1);
}
template <typename T>
ACLSIM_API void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                            const DataCopyParams &dataCopyParams) {
    detail::copy_pad(ACLSIM_RA, dst, src, detail::packed(dataCopyParams), 0, 0, 1);
}

/* The value DataCopyPad pads with when its DataCopyPadExtParams say isPad = false. */
template <typename T, TPosition pos = TPosition::MAX>
ACLSIM_API void SetPadValue(T paddingValue) {
    if constexpr (aclsim::asc::is_real<T>) {
        aclsim::asc::call_s(ACLSIM_RA, ASC_SetPadValue, aclsim::asc::real_of(paddingValue));
    } else {
        aclsim::asc::call(ACLSIM_RA, ASC_SetPadValue, (uint64_t)(int64_t)paddingValue, 1);
    }
}

/* Atomic GM stores of the following UB -> GM moves. */
template <typename T>
ACLSIM_API void SetAtomicAdd() { aclsim::asc::call(ACLSIM_RA, ASC_SetAtomicAdd, aclsim::asc::dtype<T>::code); }
template <typename T>
ACLSIM_API void SetAtomicMax() { aclsim::asc::call(ACLSIM_RA, ASC_SetAtomicMax, aclsim::asc::dtype<T>::code); }
template <typename T>
ACLSIM_API void SetAtomicMin() { aclsim::asc::call(ACLSIM_RA, ASC_SetAtomicMin, aclsim::asc::dtype<T>::code); }
ACLSIM_API inline void SetAtomicNone() { aclsim::asc::call(ACLSIM_RA, ASC_SetAtomicNone); }
ACLSIM_API inline void DisableDmaAtomic() { aclsim::asc::call(ACLSIM_RA, ASC_SetAtomicNone); }

}  // namespace AscendC

#endif

/* aclsim: Ascend C in C++, part 7: the Cube unit (LoadData, Mmad, Fixpipe and the L0C -> GM DataCopy).
 *
 * Parameter structs cross to the engine as arrays of their fields (uint64 each, in the engine's order). */
#ifndef ACLSIM_ASCENDC_CUBE_H
#define ACLSIM_ASCENDC_CUBE_H

#include "ascendc/move.h"

/* The Fixpipe conversions (a type of the compiler's, in the global namespace). */
enum class QuantMode_t : uint8_t {
    NoQuant = 0,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};

namespace AscendC {

/* Element types aclsim's engine has no storage for (the Cube's 4-bit and 8-bit float formats): they exist so
 * that code naming them compiles; a tensor of them does not (dtype's static_assert says so). */
struct int4b_t {
    int8_t storage;
};
struct fp8_e4m3fn_t {
    uint8_t storage;
};
struct fp8_e5m2_t {
    uint8_t storage;
};
struct hifloat8_t {
    uint8_t storage;
};

using ::QuantMode_t;

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };

struct FixpipeConfig {
    CO2Layout format;
    bool isToUB;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ, false};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR, false};
constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR, false};

struct LoadData2DParams {
    __aicore__ LoadData2DParams() {}
    __aicore__ LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                                const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn,
                                const uint8_t addrModeIn)
        : startIndex(startIndexIn), dstGap(dstGapIn), srcStride(srcStrideIn), ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn), sid(sidIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;
    uint16_t dstGap = 0;
    uint16_t srcStride = 0;
    bool ifTranspose = 0;
    uint8_t repeatTimes = 0;
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};

struct LoadData2DParamsV2 {
    __aicore__ LoadData2DParamsV2() {}
    __aicore__ LoadData2DParamsV2(const uint32_t mStartPositionIn, const uint32_t kStartPositionIn,
                                  const uint16_t mStepIn, const uint16_t kStepIn, const int32_t srcStrideIn,
                                  const uint16_t dstStrideIn, const bool ifTransposeIn, const uint8_t sidIn)
        : mStartPosition(mStartPositionIn), kStartPosition(kStartPositionIn), mStep(mStepIn), kStep(kStepIn),
          srcStride(srcStrideIn), dstStride(dstStrideIn), ifTranspose(ifTransposeIn), sid(sidIn) {}
    uint32_t mStartPosition = 0;
    uint32_t kStartPosition = 0;
    uint16_t mStep = 0;
    uint16_t kStep = 0;
    int32_t srcStride = 0;
    uint16_t dstStride = 0;
    bool ifTranspose = false;
    uint8_t sid = 0;
};

struct LoadData2dTransposeParams {
    __aicore__ LoadData2dTransposeParams() {}
    __aicore__ LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                                         const uint16_t srcStrideIn, const uint16_t dstGapIn,
                                         const uint16_t dstFracGapIn, const uint8_t addrModeIn = 0)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint16_t dstGap = 0;
    uint16_t dstFracGap = 0;
    uint8_t addrMode = 0;
};

struct MmadParams {
    __aicore__ MmadParams() {}
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn,
                          const int32_t fmOffsetIn, const bool enSsparseIn, const bool enWinogradAIn,
                          const bool enWinogradBIn)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn) {}
    __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
                          const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn) {}
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
    bool disableGemv = false;
};

struct FixpipeParamsV220 {
    __aicore__ FixpipeParamsV220() {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                                 const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                                 const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                                 const uint16_t dstNdStrideIn, const uint8_t unitFlagIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), quantPre(quantPreIn),
          deqScalar((uint64_t)deqScalarIn), ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn),
          reluEn(reluEnIn), unitFlag(unitFlagIn) {}
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};
using FixpipeParamsArch = FixpipeParamsV220;

template <typename T>
struct FixpipeParams {
    __aicore__ FixpipeParams() {}
};

struct DataCopyCO12DstParams {
    __aicore__ DataCopyCO12DstParams() {}
    __aicore__ DataCopyCO12DstParams(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint32_t dstStrideIn,
                                     const uint16_t srcStrideIn, const QuantMode_t quantPreIn,
                                     const uint8_t reluPreIn, const bool channelSplitIn, const bool nz2ndEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), dstStride(dstStrideIn), srcStride(srcStrideIn), quantPre(quantPreIn),
          reluPre(reluPreIn), channelSplit(channelSplitIn), nz2ndEn(nz2ndEnIn) {}
    uint8_t sid = 0;
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint32_t dstStride = 0;
    uint16_t srcStride = 0;
    uint8_t unitFlag = 0;
    uint8_t clipReluPre = 0;
    uint8_t eltWiseOp = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint8_t reluPre = 0;
    bool channelSplit = false;
    bool nz2ndEn = false;
};

constexpr int32_t PAD_SIZE = 4;

template <typename T>
struct LoadData3DParamsV2 {
    __aicore__ LoadData3DParamsV2() {}
    uint8_t padList[PAD_SIZE] = {0};
    uint16_t l1H = 0;
    uint16_t l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0;
    uint16_t mExtension = 0;
    uint16_t kStartPt = 0;
    uint16_t mStartPt = 0;
    uint8_t strideW = 1;
    uint8_t strideH = 1;
    uint8_t filterW = 1;
    uint8_t filterH = 1;
    uint8_t dilationFilterW = 1;
    uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = 0;
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
};

namespace detail {
template <size_t N>
inline void cube(const void *ra, uint32_t op, uint64_t a, uint64_t b, const uint64_t (&f)[N], uint64_t extra = 0,
                 uint64_t more = 0) {
    aclsim::asc::call(ra, op, a, b, (uint64_t)(uintptr_t)f, N, extra, more);
}
}  // namespace detail

/* LoadData: L1 -> L0A/L0B (2-D fractals), and the 3-D img2col load. */
template <typename T>
ACLSIM_API void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2DParams &p) {
    const uint64_t f[] = {p.startIndex, p.repeatTimes, p.srcStride, p.sid, p.dstGap, p.ifTranspose, p.addrMode};
    detail::cube(ACLSIM_RA, ASC_LoadData2D, dst.word_, src.word_, f);
}
template <typename T>
ACLSIM_API void LoadData(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const LoadData2DParams &p) {
    const uint64_t f[] = {p.startIndex, p.repeatTimes, p.srcStride, p.sid, p.dstGap, p.ifTranspose, p.addrMode};
    detail::cube(ACLSIM_RA, ASC_LoadData2D, dst.word_, src.word(), f, 1);
}
template <typename T>
ACLSIM_API void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData2DParamsV2 &p) {
    const uint64_t f[] = {p.mStartPosition, p.kStartPosition, p.mStep, p.kStep, (uint64_t)(int64_t)p.srcStride,
                          p.dstStride, p.ifTranspose, p.sid};
    detail::cube(ACLSIM_RA, ASC_LoadData2DV2, dst.word_, src.word_, f);
}
template <typename T>
ACLSIM_API void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LoadData3DParamsV2<T> &p) {
    const uint64_t f[] = {(uint64_t)p.padList[0] | (uint64_t)p.padList[1] << 8 | (uint64_t)p.padList[2] << 16 |
                              (uint64_t)p.padList[3] << 24,
                          p.l1H, p.l1W, p.channelSize, p.kExtension, p.mExtension, p.kStartPt, p.mStartPt,
                          p.strideW, p.strideH, p.filterW, p.filterH, p.dilationFilterW, p.dilationFilterH,
                          p.enTranspose, aclsim::asc::bits_of((float)p.padValue), p.filterSizeW, p.filterSizeH,
                          p.fMatrixCtrl};
    detail::cube(ACLSIM_RA, ASC_LoadData3DV2, dst.word_, src.word_, f);
}
template <typename T>
ACLSIM_API void LoadDataWithTranspose(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                                      const LoadData2dTransposeParams &p) {
    const uint64_t f[] = {p.startIndex, p.repeatTimes, p.srcStride, p.dstGap, p.dstFracGap, p.addrMode};
    detail::cube(ACLSIM_RA, ASC_LoadDataWithTranspose, dst.word_, src.word_, f);
}

/* Mmad: C (+)= A x B (+ bias) in L0C. */
namespace detail {
inline void mmad(const void *ra, uint64_t dst, uint64_t fm, uint64_t filter, uint64_t bias, const MmadParams &p) {
    const uint64_t f[] = {p.m, p.n, p.k, p.isBias, (uint64_t)(int64_t)p.fmOffset, p.enSsparse, p.enWinogradA,
                          p.enWinogradB, p.unitFlag, p.cmatrixSource, p.cmatrixInitVal};
    aclsim::asc::call(ra, ASC_Mmad, dst, fm, filter, bias, (uint64_t)(uintptr_t)f, 11);
}
}  // namespace detail
template <typename T, typename U, typename S>
ACLSIM_API void Mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter,
                     const MmadParams &mmadParams) {
    detail::mmad(ACLSIM_RA, dst.word_, fm.word_, filter.word_, 0, mmadParams);
}
template <typename T, typename U, typename S, typename V>
ACLSIM_API void Mmad(const LocalTensor<T> &dst, const LocalTensor<U> &fm, const LocalTensor<S> &filter,
                     const LocalTensor<V> &bias, const MmadParams &mmadParams) {
    detail::mmad(ACLSIM_RA, dst.word_, fm.word_, filter.word_, bias.word_, mmadParams);
}

/* Fixpipe: L0C -> GM (quantisation, ReLU, NZ -> ND). */
namespace detail {
inline void fixpipe(const void *ra, uint64_t dst, uint64_t src, uint64_t cbuf, const FixpipeParamsV220 &p,
                    const FixpipeConfig &config) {
    const uint64_t f[] = {p.nSize, p.mSize, p.srcStride, p.dstStride, (uint64_t)p.quantPre, p.deqScalar, p.ndNum,
                          p.srcNdStride, p.dstNdStride, p.reluEn, p.unitFlag, p.isChannelSplit};
    aclsim::asc::call(ra, ASC_Fixpipe, dst, src, cbuf, (uint64_t)(uintptr_t)f, 12,
                      (uint64_t)config.format | (uint64_t)config.isToUB << 8);
}
}  // namespace detail
template <typename T, typename U, const FixpipeConfig &config = CFG_ROW_MAJOR>
ACLSIM_API void Fixpipe(const GlobalTensor<T> &dst, const LocalTensor<U> &src, const FixpipeParamsV220 &params) {
    detail::fixpipe(ACLSIM_RA, dst.word(), src.word_, 0, params, config);
}
template <typename T, typename U, const FixpipeConfig &config = CFG_ROW_MAJOR>
ACLSIM_API void Fixpipe(const GlobalTensor<T> &dst, const LocalTensor<U> &src,
                        const LocalTensor<uint64_t> &cbufWorkspace, const FixpipeParamsV220 &params) {
    detail::fixpipe(ACLSIM_RA, dst.word(), src.word_, cbufWorkspace.word_, params, config);
}
template <typename T, typename U, const FixpipeConfig &config = CFG_ROW_MAJOR>
ACLSIM_API void Fixpipe(const LocalTensor<T> &dst, const LocalTensor<U> &src, const FixpipeParamsV220 &params) {
    (void)dst, (void)src, (void)params;
    aclsim::asc::not_emulated(ACLSIM_RA, "Fixpipe", "L0C -> L1 / UB (aclsim's engine moves L0C to GM only)");
}

/* DataCopy L0C -> GM (DataCopyCO12DstParams). */
template <typename T, typename U>
ACLSIM_API void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<U> &src, const DataCopyCO12DstParams &p) {
    const uint64_t f[] = {p.nSize, p.mSize, p.dstStride, p.srcStride, (uint64_t)p.quantPre, p.reluPre,
                          p.channelSplit, p.nz2ndEn};
    detail::cube(ACLSIM_RA, ASC_DataCopyL0C, dst.word(), src.word_, f);
}

ACLSIM_API inline void SetFixpipePreQuantFlag(uint64_t config) {
    aclsim::asc::call(ACLSIM_RA, ASC_SetFixpipePreQuantFlag, config);
}
ACLSIM_API inline void SetFixpipeNz2ndFlag(uint16_t ndNum, uint16_t srcNdStride, uint32_t dstNdStride) {
    aclsim::asc::call(ACLSIM_RA, ASC_SetFixpipeNz2ndFlag, ndNum, srcNdStride, dstNdStride);
}
template <typename T>
ACLSIM_API void SetFixPipeConfig(const LocalTensor<T> &reluPre, const LocalTensor<T> &quantPre,
                                 bool isUnitFlag = false) {
    (void)reluPre, (void)quantPre, (void)isUnitFlag;
    aclsim::asc::not_emulated(ACLSIM_RA, "SetFixPipeConfig", "the fixpipe buffer's per-channel parameters of "
                                                             "DataCopy from L0C (use Fixpipe with a cbufWorkspace)");
}
template <typename T>
ACLSIM_API void SetFixPipeConfig(const LocalTensor<T> &preData, bool isUnitFlag = false) {
    (void)preData, (void)isUnitFlag;
    aclsim::asc::not_emulated(ACLSIM_RA, "SetFixPipeConfig", "the fixpipe buffer's per-channel parameters of "
                                                             "DataCopy from L0C (use Fixpipe with a cbufWorkspace)");
}
template <typename T>
ACLSIM_API void SetLoadDataPaddingValue(const T padValue) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_SetLoadDataPaddingValue, aclsim::asc::real_of(padValue));
}
ACLSIM_API inline void SetLoadDataBoundary(uint32_t boundaryValue) {
    aclsim::asc::call(ACLSIM_RA, ASC_SetLoadDataBoundary, boundaryValue);
}

}  // namespace AscendC

#endif

/* aclsim: Ascend C in C++, part 5: the vector unit (element-wise, casts, compare/select, reductions, gathers,
 * sorting, the mask register). Each instruction in its count form and its mask/repeat forms (a lane count or lane
 * bits); the engine's instruction of the same name does the rest. */
#ifndef ACLSIM_ASCENDC_VECTOR_H
#define ACLSIM_ASCENDC_VECTOR_H

#include "ascendc/tensor.h"

namespace AscendC {

struct BinaryRepeatParams {
    __aicore__ BinaryRepeatParams() {}
    __aicore__ BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                                  const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                                  const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    __aicore__ UnaryRepeatParams() {}
    __aicore__ UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                                 const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn) {}
    __aicore__ UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                                 const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

struct CopyRepeatParams {
    __aicore__ CopyRepeatParams() {}
    __aicore__ CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                                uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = DEFAULT_BLK_STRIDE;
    uint16_t srcStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

struct BrcbRepeatParams {
    __aicore__ BrcbRepeatParams() {}
    __aicore__ BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
};

struct GatherRepeatParams {
    __aicore__ GatherRepeatParams() {}
    __aicore__ GatherRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
};

struct GatherMaskParams {
    __aicore__ GatherMaskParams() {}
    __aicore__ GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn,
                                const uint16_t src0RepeatStrideIn, const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

struct TransposeParamsExt {
    __aicore__ TransposeParamsExt() {}
    __aicore__ TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn,
                                  const uint16_t wSizeIn, const TransposeType transposeTypeIn)
        : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

namespace detail {
inline uint64_t binary_packed(uint8_t times, bool set, const BinaryRepeatParams &p) {
    return (uint64_t)times | (uint64_t)set << 8 | (uint64_t)p.dstBlkStride << 16 | (uint64_t)p.src0BlkStride << 24 |
           (uint64_t)p.src1BlkStride << 32 | (uint64_t)p.dstRepStride << 40 | (uint64_t)p.src0RepStride << 48 |
           (uint64_t)p.src1RepStride << 56;
}
inline uint64_t unary_packed(uint8_t times, bool set, const UnaryRepeatParams &p) {
    return (uint64_t)times | (uint64_t)set << 8 | (uint64_t)p.dstBlkStride << 16 | (uint64_t)p.srcBlkStride << 32 |
           (uint64_t)p.dstRepStride << 48 | (uint64_t)p.srcRepStride << 56;
}
inline uint64_t dst_packed(uint8_t times, bool set, uint16_t blk, uint8_t rep) {
    return (uint64_t)times | (uint64_t)set << 8 | (uint64_t)blk << 16 | (uint64_t)rep << 48;
}
template <typename T>
inline uint64_t count_word(T n) { return (uint64_t)(int64_t)n; }
}  // namespace detail

/* ------------------------------------------------------------------------------- element-wise, binary */
#define ACLSIM_BINARY(NAME)                                                                                          \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,          \
                         uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams &repeatParams) {        \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME + ASC_FORM_BITS, dst.word_, src0.word_, src1.word_, mask[0],          \
                          mask[1], detail::binary_packed(repeatTime, isSetMask, repeatParams));                      \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,          \
                         uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams &repeatParams) {          \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME + ASC_FORM_REPEAT, dst.word_, src0.word_, src1.word_, mask, 0,        \
                          detail::binary_packed(repeatTime, isSetMask, repeatParams));                               \
    }                                                                                                                \
    template <typename T>                                                                                            \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,          \
                         const int32_t &count) {                                                                     \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME, dst.word_, src0.word_, src1.word_, detail::count_word(count));      \
    }

/* Binary instructions whose destination type differs from the sources' (T: dst, U: sources). */
#define ACLSIM_BINARY2(NAME)                                                                                         \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<U> &src0, const LocalTensor<U> &src1,          \
                         uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams &repeatParams) {        \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME + ASC_FORM_BITS, dst.word_, src0.word_, src1.word_, mask[0],          \
                          mask[1], detail::binary_packed(repeatTime, isSetMask, repeatParams));                      \
    }                                                                                                                \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<U> &src0, const LocalTensor<U> &src1,          \
                         uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams &repeatParams) {          \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME + ASC_FORM_REPEAT, dst.word_, src0.word_, src1.word_, mask, 0,        \
                          detail::binary_packed(repeatTime, isSetMask, repeatParams));                               \
    }                                                                                                                \
    template <typename T, typename U>                                                                                \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<U> &src0, const LocalTensor<U> &src1,          \
                         const uint32_t count) {                                                                     \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME, dst.word_, src0.word_, src1.word_, count);                          \
    }

ACLSIM_BINARY(Add)
ACLSIM_BINARY(Sub)
ACLSIM_BINARY(Mul)
ACLSIM_BINARY(Div)
ACLSIM_BINARY(Max)
ACLSIM_BINARY(Min)
ACLSIM_BINARY(And)
ACLSIM_BINARY(Or)
ACLSIM_BINARY(AddRelu)
ACLSIM_BINARY(SubRelu)
ACLSIM_BINARY(FusedMulAdd)
ACLSIM_BINARY(FusedMulAddRelu)
ACLSIM_BINARY2(MulAddDst)
ACLSIM_BINARY2(AddReluCast)
ACLSIM_BINARY2(SubReluCast)
ACLSIM_BINARY2(MulCast)
ACLSIM_BINARY2(AddDeqRelu)
#undef ACLSIM_BINARY
#undef ACLSIM_BINARY2

/* ------------------------------------------------------------------------------- element-wise, unary */
#define ACLSIM_UNARY(NAME)                                                                                           \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask[],                      \
                         const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {                          \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],              \
                          detail::unary_packed(repeatTime, isSetMask, repeatParams));                                \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,                        \
                         const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {                          \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME + ASC_FORM_REPEAT, dst.word_, src.word_, mask, 0,                     \
                          detail::unary_packed(repeatTime, isSetMask, repeatParams));                                \
    }                                                                                                                \
    template <typename T>                                                                                            \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count) {               \
        aclsim::asc::call(ACLSIM_RA, ASC_##NAME, dst.word_, src.word_, detail::count_word(count));                   \
    }

ACLSIM_UNARY(Exp)
ACLSIM_UNARY(Ln)
ACLSIM_UNARY(Abs)
ACLSIM_UNARY(Relu)
ACLSIM_UNARY(Sqrt)
ACLSIM_UNARY(Rsqrt)
ACLSIM_UNARY(Reciprocal)
ACLSIM_UNARY(Not)
#undef ACLSIM_UNARY

/* ----------------------------------------------------------- the flexible scalar position (Ascend 950) */
/* CANN's "Adds（灵活标量位置）", "Compares（灵活标量位置）", "Select（灵活标量位置）"... pages (asc-devkit docs): the
 * scalar may be the left or the right operand, and a LocalTensor may stand for its first element;
 * `config.scalarTensorIndex` says which of two tensors is that scalar (1: the right one, the default). The count
 * forms are emulated. */
struct BinaryDefaultType {};
struct BinaryConfig {
    int8_t scalarTensorIndex = 1;
};
constexpr BinaryConfig DEFAULT_BINARY_CONFIG = {1};

namespace detail {
template <typename X>
struct is_local : std::false_type {};
template <typename X>
struct is_local<LocalTensor<X>> : std::true_type {};
template <typename X>
constexpr bool is_local_v = is_local<std::decay_t<X>>::value;
template <typename X>
inline uint64_t word_of(const X &x) {
    if constexpr (is_local_v<X>) return x.word_; else return 0;
}
template <typename X>
inline double scalar_of(const X &x) {  // a value operand (0 for a tensor)
    if constexpr (is_local_v<X>) return 0; else return aclsim::asc::real_of(x);
}
constexpr uint64_t SCALAR_FIRST = 1ull << 12;  // packed bit 12 (aclsim.capi.ascendc.vector)
}  // namespace detail

/* ------------------------------------------------------------------------------- element-wise, with a scalar */
#define ACLSIM_SCALAR(NAME)                                                                                          \
    template <typename T, typename U = T, bool isSetMask = true>                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue,                 \
                         uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {         \
        aclsim::asc::call_s(ACLSIM_RA, ASC_##NAME + ASC_FORM_BITS, aclsim::asc::real_of(scalarValue), dst.word_,     \
                            src.word_, mask[0], mask[1], detail::unary_packed(repeatTime, isSetMask, repeatParams)); \
    }                                                                                                                \
    template <typename T, typename U = T, bool isSetMask = true>                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, uint64_t mask,  \
                         const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {                          \
        aclsim::asc::call_s(ACLSIM_RA, ASC_##NAME + ASC_FORM_REPEAT, aclsim::asc::real_of(scalarValue), dst.word_,   \
                            src.word_, mask, 0, detail::unary_packed(repeatTime, isSetMask, repeatParams));          \
    }                                                                                                                \
    template <typename T, typename U = T, bool isSetMask = true>                                                     \
    ACLSIM_API std::enable_if_t<!detail::is_local_v<U>> NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,   \
                                                             const U &scalarValue, const int32_t &count) {           \
        aclsim::asc::call_s(ACLSIM_RA, ASC_##NAME, aclsim::asc::real_of(scalarValue), dst.word_, src.word_,          \
                            detail::count_word(count));                                                              \
    }

/* the flexible scalar position: src1 a tensor; src0 a value (the left operand) or a tensor too (`config`) */
#define ACLSIM_SCALAR_FLEXIBLE(NAME)                                                                                 \
    ACLSIM_SCALAR(NAME)                                                                                              \
    template <typename T = BinaryDefaultType, bool isSetMask = true, const BinaryConfig &config = DEFAULT_BINARY_CONFIG, \
              typename U, typename S, typename V>                                                                    \
    ACLSIM_API std::enable_if_t<detail::is_local_v<V>> NAME(const U &dst, const S &src0, const V &src1,              \
                                                            const int32_t &count) {                                  \
        const bool first = detail::is_local_v<S> ? config.scalarTensorIndex == 0 : true;                            \
        uint64_t vec = src1.word_, sc = 0;                                                                           \
        if constexpr (detail::is_local_v<S>) {                                                                       \
            vec = first ? src1.word_ : detail::word_of(src0);                                                        \
            sc = first ? detail::word_of(src0) : src1.word_;                                                         \
        }                                                                                                            \
        aclsim::asc::call_s(ACLSIM_RA, ASC_##NAME, detail::scalar_of(src0), dst.word_, vec, detail::count_word(count),\
                            sc, first ? 1 : 0);                                                                      \
    }

ACLSIM_SCALAR_FLEXIBLE(Adds)
ACLSIM_SCALAR_FLEXIBLE(Muls)
ACLSIM_SCALAR_FLEXIBLE(Maxs)
ACLSIM_SCALAR_FLEXIBLE(Mins)
ACLSIM_SCALAR_FLEXIBLE(Subs)  // Subs, Divs, Ands, Ors: Ascend 950 only (the engine refuses them elsewhere)
ACLSIM_SCALAR_FLEXIBLE(Divs)
ACLSIM_SCALAR_FLEXIBLE(Ands)
ACLSIM_SCALAR_FLEXIBLE(Ors)
ACLSIM_SCALAR(LeakyRelu)
ACLSIM_SCALAR(ShiftLeft)
ACLSIM_SCALAR(ShiftRight)
#undef ACLSIM_SCALAR_FLEXIBLE
#undef ACLSIM_SCALAR

/* Ascend 950's shifts by a tensor of amounts (element by element). */
template <typename T, typename U, typename... A>
std::enable_if_t<detail::is_local_v<U>> ShiftLeft(const LocalTensor<T> &, const LocalTensor<T> &, const U &, A &&...) {
    static_assert(::aclsim::asc::never<T, U>, "aclsim: AscendC::ShiftLeft by a tensor of shift amounts (Ascend 950) is "
                                              "not emulated; shift by a scalar");
}
template <typename T, typename U, typename... A>
std::enable_if_t<detail::is_local_v<U>> ShiftRight(const LocalTensor<T> &, const LocalTensor<T> &, const U &, A &&...) {
    static_assert(::aclsim::asc::never<T, U>, "aclsim: AscendC::ShiftRight by a tensor of shift amounts (Ascend 950) is "
                                              "not emulated; shift by a scalar");
}

/* Axpy: dst = src * scalar + dst (dst and src types may differ). */
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, uint64_t mask[],
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_Axpy + ASC_FORM_BITS, aclsim::asc::real_of(scalarValue), dst.word_, src.word_,
                        mask[0], mask[1], detail::unary_packed(repeatTime, isSetMask, repeatParams));
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, uint64_t mask,
                     const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_Axpy + ASC_FORM_REPEAT, aclsim::asc::real_of(scalarValue), dst.word_, src.word_,
                        mask, 0, detail::unary_packed(repeatTime, isSetMask, repeatParams));
}
template <typename T, typename U>
ACLSIM_API void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, const int32_t &count) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_Axpy, aclsim::asc::real_of(scalarValue), dst.word_, src.word_,
                        detail::count_word(count));
}

/* ------------------------------------------------------------------------------- fills, copies, casts */
template <typename T>
ACLSIM_API void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_Duplicate, aclsim::asc::real_of(scalarValue), dst.word_,
                        detail::count_word(count));
}
template <typename T, bool isSetMask = true>
ACLSIM_API void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask, const uint8_t repeatTime,
                          const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_Duplicate + ASC_FORM_REPEAT, aclsim::asc::real_of(scalarValue), dst.word_, 0,
                        mask, 0, detail::dst_packed(repeatTime, isSetMask, dstBlockStride, dstRepeatStride));
}
template <typename T, bool isSetMask = true>
ACLSIM_API void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask[], const uint8_t repeatTime,
                          const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_Duplicate + ASC_FORM_BITS, aclsim::asc::real_of(scalarValue), dst.word_, 0,
                        mask[0], mask[1], detail::dst_packed(repeatTime, isSetMask, dstBlockStride, dstRepeatStride));
}

/* CreateVecIndex: dst[i] = firstValue + i. */
template <typename T>
ACLSIM_API void CreateVecIndex(LocalTensor<T> dst, const T &firstValue, uint32_t count) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_CreateVecIndex, aclsim::asc::real_of(firstValue), dst.word_, count);
}
template <typename T, typename M>
ACLSIM_API void CreateVecIndex(LocalTensor<T> &dst, const T &firstValue, M mask, uint8_t repeatTime,
                               uint16_t dstBlkStride, uint8_t dstRepStride) {
    (void)dst, (void)firstValue, (void)mask, (void)repeatTime, (void)dstBlkStride, (void)dstRepStride;
    aclsim::asc::not_emulated(ACLSIM_RA, "CreateVecIndex", "its mask/repeat form (the count form is)");
}

template <typename T, bool isSetMask = true>
ACLSIM_API void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask,
                     const uint8_t repeatTime, const CopyRepeatParams &p) {
    aclsim::asc::call(ACLSIM_RA, ASC_Copy + ASC_FORM_REPEAT, dst.word_, src.word_, mask, 0,
                      (uint64_t)repeatTime | (uint64_t)isSetMask << 8,
                      (uint64_t)p.dstStride | (uint64_t)p.srcStride << 16 | (uint64_t)p.dstRepeatSize << 32 |
                          (uint64_t)p.srcRepeatSize << 48);
}
template <typename T, bool isSetMask = true>
ACLSIM_API void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],
                     const uint8_t repeatTime, const CopyRepeatParams &p) {
    aclsim::asc::call(ACLSIM_RA, ASC_Copy + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],
                      (uint64_t)repeatTime | (uint64_t)isSetMask << 8,
                      (uint64_t)p.dstStride | (uint64_t)p.srcStride << 16 | (uint64_t)p.dstRepeatSize << 32 |
                          (uint64_t)p.srcRepeatSize << 48);
}

template <typename T>
ACLSIM_API void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t repeatTime,
                     const BrcbRepeatParams &p) {
    aclsim::asc::call(ACLSIM_RA, ASC_Brcb, dst.word_, src0.word_, repeatTime,
                      (uint64_t)p.dstBlkStride | (uint64_t)p.dstRepStride << 16);
}

template <typename T, typename U>
ACLSIM_API void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode,
                     const uint32_t count) {
    aclsim::asc::call(ACLSIM_RA, ASC_Cast, dst.word_, src.word_, (uint64_t)roundMode, count);
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode,
                     const uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {
    aclsim::asc::call(ACLSIM_RA, ASC_Cast + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)roundMode, 0, mask,
                      detail::unary_packed(repeatTime, isSetMask, repeatParams));
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode,
                     const uint64_t mask[], const uint8_t repeatTime, const UnaryRepeatParams &repeatParams) {
    aclsim::asc::call(ACLSIM_RA, ASC_Cast + ASC_FORM_BITS, dst.word_, src.word_, (uint64_t)roundMode, mask[1], mask[0],
                      detail::unary_packed(repeatTime, isSetMask, repeatParams));
}

/* ------------------------------------------------------------------------------- compare, select */
template <typename T, typename U>
ACLSIM_API void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                        CMPMODE cmpMode, uint32_t count) {
    aclsim::asc::call(ACLSIM_RA, ASC_Compare, dst.word_, src0.word_, src1.word_, count, 0, (uint64_t)cmpMode << 9);
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                        CMPMODE cmpMode, const uint64_t mask, uint8_t repeatTime,
                        const BinaryRepeatParams &repeatParams) {
    aclsim::asc::call(ACLSIM_RA, ASC_Compare + ASC_FORM_REPEAT, dst.word_, src0.word_, src1.word_, 0, mask,
                      detail::binary_packed(repeatTime, isSetMask, repeatParams) | (uint64_t)cmpMode << 9);
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                        CMPMODE cmpMode, const uint64_t mask[], uint8_t repeatTime,
                        const BinaryRepeatParams &repeatParams) {
    aclsim::asc::call(ACLSIM_RA, ASC_Compare + ASC_FORM_BITS, dst.word_, src0.word_, src1.word_, mask[1], mask[0],
                      detail::binary_packed(repeatTime, isSetMask, repeatParams) | (uint64_t)cmpMode << 9);
}

/* The register form: one repeat's bits into the CMPMASK register (read them with GetCmpMask). */
template <typename T, bool isSetMask = true>
ACLSIM_API void Compare(const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode, const uint64_t mask,
                        const BinaryRepeatParams &repeatParams) {
    aclsim::asc::call(ACLSIM_RA, ASC_CompareMask + ASC_FORM_REPEAT, src0.word_, src1.word_, mask, 0,
                      detail::binary_packed(1, isSetMask, repeatParams) | (uint64_t)cmpMode << 9);
}
template <typename T>
ACLSIM_API void GetCmpMask(const LocalTensor<T> &dst) { aclsim::asc::call(ACLSIM_RA, ASC_GetCmpMask, dst.word_); }
template <typename T>
ACLSIM_API void SetCmpMask(const LocalTensor<T> &src) { aclsim::asc::call(ACLSIM_RA, ASC_SetCmpMask, src.word_); }

template <typename T, typename U>
ACLSIM_API void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar,
                              CMPMODE cmpMode, uint32_t count) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_CompareScalar, aclsim::asc::real_of(src1Scalar), dst.word_, src0.word_, count,
                        0, (uint64_t)cmpMode << 9);
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar,
                              CMPMODE cmpMode, const uint64_t mask, uint8_t repeatTime,
                              const UnaryRepeatParams &repeatParams) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_CompareScalar + ASC_FORM_REPEAT, aclsim::asc::real_of(src1Scalar), dst.word_,
                        src0.word_, 0, mask,
                        detail::unary_packed(repeatTime, isSetMask, repeatParams) | (uint64_t)cmpMode << 9);
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar,
                              CMPMODE cmpMode, const uint64_t mask[], uint8_t repeatTime,
                              const UnaryRepeatParams &repeatParams) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_CompareScalar + ASC_FORM_BITS, aclsim::asc::real_of(src1Scalar), dst.word_,
                        src0.word_, mask[1], mask[0],
                        detail::unary_packed(repeatTime, isSetMask, repeatParams) | (uint64_t)cmpMode << 9);
}
template <typename T, typename U>
ACLSIM_API void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                         uint32_t count) {
    aclsim::asc::call_s(ACLSIM_RA, ASC_CompareScalar, aclsim::asc::real_of(src1Scalar), dst.word_, src0.word_, count,
                        0, (uint64_t)cmpMode << 9);
}

namespace detail {
template <typename T, typename U>
inline void select(const void *ra, uint32_t form, const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                   const LocalTensor<T> &src0, uint64_t src1, double scalar, SELMODE mode, uint64_t n, uint64_t mlo,
                   uint64_t packed) {
    uint64_t spec[3] = {n, mlo, packed | (uint64_t)mode << 9};
    aclsim::asc::call_s(ra, ASC_Select + form, scalar, dst.word_, selMask.word_, src0.word_, src1,
                        (uint64_t)(uintptr_t)spec);
}
}  // namespace detail

template <typename T, typename U>
ACLSIM_API void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                       const LocalTensor<T> &src1, SELMODE selMode, uint32_t count) {
    detail::select(ACLSIM_RA, 0, dst, selMask, src0, src1.word_, 0, selMode, count, 0, 0);
}
template <typename T, typename U>
ACLSIM_API void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                       T src1, SELMODE selMode, uint32_t count) {
    detail::select(ACLSIM_RA, 0, dst, selMask, src0, 0, aclsim::asc::real_of(src1), selMode, count, 0, 0);
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                       const LocalTensor<T> &src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
                       const BinaryRepeatParams &repeatParams) {
    detail::select(ACLSIM_RA, ASC_FORM_REPEAT, dst, selMask, src0, src1.word_, 0, selMode, 0, mask,
                   detail::binary_packed(repeatTime, isSetMask, repeatParams));
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                       const LocalTensor<T> &src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
                       const BinaryRepeatParams &repeatParams) {
    detail::select(ACLSIM_RA, ASC_FORM_BITS, dst, selMask, src0, src1.word_, 0, selMode, mask[1], mask[0],
                   detail::binary_packed(repeatTime, isSetMask, repeatParams));
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                       T src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
                       const BinaryRepeatParams &repeatParams) {
    detail::select(ACLSIM_RA, ASC_FORM_REPEAT, dst, selMask, src0, 0, aclsim::asc::real_of(src1), selMode, 0, mask,
                   detail::binary_packed(repeatTime, isSetMask, repeatParams));
}
template <typename T, typename U, bool isSetMask = true>
ACLSIM_API void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                       T src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
                       const BinaryRepeatParams &repeatParams) {
    detail::select(ACLSIM_RA, ASC_FORM_BITS, dst, selMask, src0, 0, aclsim::asc::real_of(src1), selMode, mask[1],
                   mask[0], detail::binary_packed(repeatTime, isSetMask, repeatParams));
}

/* ------------------------------------- Compares and Select with the flexible scalar position (Ascend 950) */

/* Compares(dst, src0, src1, cmpMode, count) where src1 is a LocalTensor: src0 a scalar (it is the left operand),
 * or a tensor too (then `config` says which one is the scalar). A scalar right of a tensor is the fixed form above. */
template <typename T0 = BinaryDefaultType, typename T1 = BinaryDefaultType, bool isSetMask = true,
          const BinaryConfig &config = DEFAULT_BINARY_CONFIG, typename T2, typename T3, typename T4>
ACLSIM_API std::enable_if_t<detail::is_local_v<T4>> Compares(const T2 &dst, const T3 &src0, const T4 &src1,
                                                              CMPMODE cmpMode, uint32_t count) {
    const uint64_t mode = (uint64_t)cmpMode << 9;
    if constexpr (detail::is_local_v<T3>) {
        const bool first = config.scalarTensorIndex == 0;
        const uint64_t vec = first ? src1.word_ : src0.word_, sc = first ? src0.word_ : src1.word_;
        aclsim::asc::call(ACLSIM_RA, ASC_CompareScalarAt, dst.word_, vec, sc, count, 0,
                          mode | (first ? detail::SCALAR_FIRST : 0));
    } else {
        aclsim::asc::call_s(ACLSIM_RA, ASC_CompareScalar, aclsim::asc::real_of(src0), dst.word_, src1.word_, count, 0,
                            mode | detail::SCALAR_FIRST);
    }
}

/* Select(dst, selMask, src0, src1, VSEL_TENSOR_SCALAR_MODE, count) where src1 is a LocalTensor: src0 a scalar value,
 * or a tensor too (then `config` says which one stands for its first element). */
template <typename T0 = BinaryDefaultType, typename T1 = BinaryDefaultType,
          const BinaryConfig &config = DEFAULT_BINARY_CONFIG, typename T2, typename T3, typename T4>
ACLSIM_API std::enable_if_t<detail::is_local_v<T2> && detail::is_local_v<T4>>
Select(const T2 &dst, const LocalTensor<T1> &selMask, const T3 &src0, const T4 &src1, SELMODE selMode,
       uint32_t count) {
    const bool first = detail::is_local_v<T3> ? config.scalarTensorIndex == 0 : true;
    uint64_t spec[3] = {count, 0, (uint64_t)selMode << 9 | (first ? detail::SCALAR_FIRST : 0)};
    aclsim::asc::call_s(ACLSIM_RA, ASC_Select, detail::scalar_of(src0), dst.word_, selMask.word_, detail::word_of(src0),
                        detail::word_of(src1), (uint64_t)(uintptr_t)spec);
}

/* ------------------------------------------------------------------------------- the mask register */
template <typename T, MaskMode mode = MaskMode::NORMAL>
ACLSIM_API void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    aclsim::asc::call(ACLSIM_RA, ASC_SetVectorMaskBits, maskHigh, maskLow, aclsim::asc::dtype<T>::code,
                      (uint64_t)mode);
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
ACLSIM_API void SetVectorMask(int32_t len) {
    aclsim::asc::call(ACLSIM_RA, ASC_SetVectorMask, (uint64_t)(int64_t)len, aclsim::asc::dtype<T>::code,
                      (uint64_t)mode);
}
ACLSIM_API inline void ResetMask() { aclsim::asc::call(ACLSIM_RA, ASC_ResetMask); }
ACLSIM_API inline void SetMaskCount() { aclsim::asc::call(ACLSIM_RA, ASC_SetMaskCount); }
ACLSIM_API inline void SetMaskNorm() { aclsim::asc::call(ACLSIM_RA, ASC_SetMaskNorm); }

/* ------------------------------------------------------------------------------- reductions */
namespace detail {
inline uint64_t reduce_packed(uint8_t times, bool set, uint16_t srcBlk, uint16_t srcRep, uint16_t dstRep) {
    return (uint64_t)times | (uint64_t)set << 8 | (uint64_t)srcBlk << 16 | (uint64_t)srcRep << 32 |
           (uint64_t)dstRep << 48;
}
}  // namespace detail

#define ACLSIM_WHOLE(NAME, WHICH, ...)                                                                               \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],                \
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,           \
                         const int32_t srcRepStride __VA_ARGS__) {                                                   \
        aclsim::asc::call(ACLSIM_RA, ASC_WholeReduce + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],        \
                          detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),    \
                          WHICH);                                                                                    \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask,                   \
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,           \
                         const int32_t srcRepStride __VA_ARGS__) {                                                   \
        aclsim::asc::call(ACLSIM_RA, ASC_WholeReduce + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)mask, 0,     \
                          detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),    \
                          WHICH);                                                                                    \
    }

ACLSIM_WHOLE(WholeReduceSum, 0)
ACLSIM_WHOLE(WholeReduceMax, 1 | (uint64_t)order << 8, , const ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)
ACLSIM_WHOLE(WholeReduceMin, 2 | (uint64_t)order << 8, , const ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)
#undef ACLSIM_WHOLE

#define ACLSIM_GROUPED(NAME, OP, WHICH)                                                                              \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,             \
                         const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,              \
                         const int32_t srcRepStride) {                                                               \
        aclsim::asc::call(ACLSIM_RA, OP + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],                     \
                          detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),    \
                          WHICH);                                                                                    \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,             \
                         const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                         const int32_t srcRepStride) {                                                               \
        aclsim::asc::call(ACLSIM_RA, OP + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)mask, 0,                  \
                          detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),    \
                          WHICH);                                                                                    \
    }

ACLSIM_GROUPED(BlockReduceSum, ASC_BlockReduce, 0)
ACLSIM_GROUPED(BlockReduceMax, ASC_BlockReduce, 1)
ACLSIM_GROUPED(BlockReduceMin, ASC_BlockReduce, 2)
ACLSIM_GROUPED(PairReduceSum, ASC_PairReduceSum, 0)
#undef ACLSIM_GROUPED

template <typename T, bool isSetMask = true>
ACLSIM_API void RepeatReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                                const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                                const int32_t dstRepStride, const int32_t srcRepStride) {
    (void)dstBlkStride;  // "dstBlkStride has no effect" (CANN RepeatReduceSum page)
    aclsim::asc::call(ACLSIM_RA, ASC_RepeatReduceSum + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)mask,
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride));
}

#define ACLSIM_REDUCE(NAME, WHICH, ...)                                                                              \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, \
                         const int32_t count __VA_ARGS__) {                                                          \
        aclsim::asc::call(ACLSIM_RA, ASC_Reduce, dst.word_, src.word_, sharedTmpBuffer.word_,                        \
                          detail::count_word(count), 0, WHICH);                                                      \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, \
                         const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride __VA_ARGS__) {  \
        aclsim::asc::call(ACLSIM_RA, ASC_Reduce + ASC_FORM_BITS, dst.word_, src.word_, sharedTmpBuffer.word_,        \
                          mask[0], mask[1], (WHICH) | (uint64_t)repeatTime << 8 | (uint64_t)srcRepStride << 16);     \
    }                                                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    ACLSIM_API void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer, \
                         const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride __VA_ARGS__) {     \
        aclsim::asc::call(ACLSIM_RA, ASC_Reduce + ASC_FORM_REPEAT, dst.word_, src.word_, sharedTmpBuffer.word_,      \
                          (uint64_t)mask, 0, (WHICH) | (uint64_t)repeatTime << 8 | (uint64_t)srcRepStride << 16);    \
    }

ACLSIM_REDUCE(ReduceSum, 0)
ACLSIM_REDUCE(ReduceMax, 1 | (uint64_t)calIndex << 2, , bool calIndex = false)
ACLSIM_REDUCE(ReduceMin, 2 | (uint64_t)calIndex << 2, , bool calIndex = false)

/* The reduction registers the last ReduceSum (ACC_VAL) and ReduceMax/ReduceMin (MAX_MIN_CNT: value bits, index in
 * bits 32-63) left, read as CANN's dav_c220 implementation reads them. */
template <typename T>
ACLSIM_API T GetReduceRepeatSumSpr() {
    int64_t acc = aclsim::asc::call(ACLSIM_RA, ASC_GetReduceRepeatSumSpr);
    T v;
    std::memcpy(&v, &acc, sizeof(T));
    return v;
}
template <typename T>
ACLSIM_API T GetAccVal() {
    int64_t acc = aclsim::asc::call(ACLSIM_RA, ASC_GetReduceRepeatSumSpr);
    T v;
    std::memcpy(&v, &acc, sizeof(T));
    return v;
}
template <typename T>
ACLSIM_API void GetReduceRepeatMaxMinSpr(T &maxMinValue, T &maxMinIndex) {
    uint64_t cnt = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GetReduceRepeatMaxMinSpr);
    uint32_t value = (uint32_t)(cnt & (sizeof(T) == 2 ? 0xffffu : 0xffffffffu)), index = (uint32_t)(cnt >> 32);
    std::memcpy(&maxMinValue, &value, sizeof(T));
    std::memcpy(&maxMinIndex, &index, sizeof(T));
}
template <typename T>
ACLSIM_API void GetReduceRepeatMaxMinSpr(T &maxMinValue) {
    uint64_t cnt = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GetReduceRepeatMaxMinSpr);
    uint32_t value = (uint32_t)(cnt & (sizeof(T) == 2 ? 0xffffu : 0xffffffffu));
    std::memcpy(&maxMinValue, &value, sizeof(T));
}
template <typename T>
ACLSIM_API void GetReduceMaxMinCount(T &maxMinValue, T &maxMinIndex) {
    uint64_t cnt = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GetReduceRepeatMaxMinSpr);
    uint32_t value = (uint32_t)(cnt & (sizeof(T) == 2 ? 0xffffu : 0xffffffffu)), index = (uint32_t)(cnt >> 32);
    std::memcpy(&maxMinValue, &value, sizeof(T));
    std::memcpy(&maxMinIndex, &index, sizeof(T));
}
#undef ACLSIM_REDUCE

/* The reductions by ReduceType: ReduceRepeat is WholeReduceSum/Max/Min, ReduceDataBlock BlockReduceSum/Max/Min,
 * ReducePairElem PairReduceSum (CANN kernel_operator_vec_reduce_intf_impl.h calls the same instructions). */
namespace detail {
template <ReduceType type>
constexpr uint64_t reduce_which() {
    static_assert(type == ReduceType::SUM || type == ReduceType::MAX || type == ReduceType::MIN,
                  "only ReduceType::SUM, MAX and MIN reduce");
    return type == ReduceType::SUM ? 0 : type == ReduceType::MAX ? 1 : 2;
}
}  // namespace detail
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
ACLSIM_API void ReduceRepeat(const LocalTensor<T> &dst, const LocalTensor<U> &src, const int32_t mask,
                             const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                             const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
    aclsim::asc::call(ACLSIM_RA, ASC_WholeReduce + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)mask, 0,
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),
                      detail::reduce_which<reduceType>() | (uint64_t)order << 8);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
ACLSIM_API void ReduceRepeat(const LocalTensor<T> &dst, const LocalTensor<U> &src, const uint64_t mask[],
                             const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                             const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
    aclsim::asc::call(ACLSIM_RA, ASC_WholeReduce + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),
                      detail::reduce_which<reduceType>() | (uint64_t)order << 8);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
ACLSIM_API void ReduceDataBlock(const LocalTensor<T> &dst, const LocalTensor<U> &src, const int32_t mask,
                                const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                const int32_t srcRepStride) {
    aclsim::asc::call(ACLSIM_RA, ASC_BlockReduce + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)mask, 0,
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),
                      detail::reduce_which<reduceType>());
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
ACLSIM_API void ReduceDataBlock(const LocalTensor<T> &dst, const LocalTensor<U> &src, const uint64_t mask[],
                                const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                const int32_t srcRepStride) {
    aclsim::asc::call(ACLSIM_RA, ASC_BlockReduce + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride),
                      detail::reduce_which<reduceType>());
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
ACLSIM_API void ReducePairElem(const LocalTensor<T> &dst, const LocalTensor<U> &src, const int32_t mask,
                               const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride) {
    static_assert(reduceType == ReduceType::SUM, "ReducePairElem: only ReduceType::SUM");
    aclsim::asc::call(ACLSIM_RA, ASC_PairReduceSum + ASC_FORM_REPEAT, dst.word_, src.word_, (uint64_t)mask, 0,
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride));
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
ACLSIM_API void ReducePairElem(const LocalTensor<T> &dst, const LocalTensor<U> &src, const uint64_t mask[],
                               const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride) {
    static_assert(reduceType == ReduceType::SUM, "ReducePairElem: only ReduceType::SUM");
    aclsim::asc::call(ACLSIM_RA, ASC_PairReduceSum + ASC_FORM_BITS, dst.word_, src.word_, mask[0], mask[1],
                      detail::reduce_packed(repeatTime, isSetMask, srcBlkStride, srcRepStride, dstRepStride));
}

/* ------------------------------------------------------------------------------- gathers, scatters */
template <typename T>
ACLSIM_API void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                       const uint32_t srcBaseAddr, const uint32_t count) {
    aclsim::asc::call(ACLSIM_RA, ASC_Gather, dst.word_, src.word_, srcOffset.word_, srcBaseAddr, count);
}
template <typename T>
ACLSIM_API void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                       const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                       const uint16_t dstRepStride) {
    aclsim::asc::call(ACLSIM_RA, ASC_Gather + ASC_FORM_REPEAT, dst.word_, src.word_, srcOffset.word_, srcBaseAddr,
                      mask, (uint64_t)repeatTime | (uint64_t)dstRepStride << 16);
}
template <typename T>
ACLSIM_API void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
                       const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                       const uint16_t dstRepStride) {
    aclsim::asc::call(ACLSIM_RA, ASC_Gather + ASC_FORM_BITS, dst.word_, src.word_, srcOffset.word_, srcBaseAddr,
                      (uint64_t)(uintptr_t)mask, (uint64_t)repeatTime | (uint64_t)dstRepStride << 16);
}
template <typename T>
ACLSIM_API void Scatter(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &dstOffset,
                        const uint32_t dstBaseAddr, const uint32_t count) {
    aclsim::asc::call(ACLSIM_RA, ASC_Scatter, dst.word_, src.word_, dstOffset.word_, dstBaseAddr, count);
}
template <typename T>
ACLSIM_API void Gatherb(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<uint32_t> &offset,
                        const uint8_t repeatTime, const GatherRepeatParams &p) {
    aclsim::asc::call(ACLSIM_RA, ASC_Gatherb, dst.word_, src0.word_, offset.word_, repeatTime,
                      (uint64_t)p.dstBlkStride | (uint64_t)p.dstRepStride << 16);
}

namespace detail {
inline uint64_t gather_mask_params(const GatherMaskParams &p) {
    return (uint64_t)p.src0BlockStride | (uint64_t)p.repeatTimes << 16 | (uint64_t)p.src0RepeatStride << 32 |
           (uint64_t)p.src1RepeatStride << 48;
}
}  // namespace detail

template <typename T, typename U, GatherMaskMode mode = GatherMaskMode::DEFAULT>
ACLSIM_API void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern,
                           const bool reduceMode, const uint32_t mask, const GatherMaskParams &gatherMaskParams,
                           uint64_t &rsvdCnt) {
    rsvdCnt = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GatherMask, dst.word_, src0.word_, src1Pattern.word_,
                                          (uint64_t)reduceMode | (uint64_t)mode << 1 | (uint64_t)mask << 32,
                                          detail::gather_mask_params(gatherMaskParams));
}
template <typename T, GatherMaskMode mode = GatherMaskMode::DEFAULT>
ACLSIM_API void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern,
                           const bool reduceMode, const uint32_t mask, const GatherMaskParams &gatherMaskParams,
                           uint64_t &rsvdCnt) {
    rsvdCnt = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GatherMask, dst.word_, src0.word_, src1Pattern,
                                          (uint64_t)reduceMode | (uint64_t)mode << 1 | 0x10 | (uint64_t)mask << 32,
                                          detail::gather_mask_params(gatherMaskParams));
}
ACLSIM_API inline int64_t GetGatherMaskRemainCount() {
    return aclsim::asc::call(ACLSIM_RA, ASC_GetGatherMaskRemainCount);
}

/* ------------------------------------------------------------------------------- layout */
template <typename T>
ACLSIM_API void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src) {
    aclsim::asc::call(ACLSIM_RA, ASC_Transpose, dst.word_, src.word_);
}
template <typename T>
ACLSIM_API void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                          const LocalTensor<uint8_t> &sharedTmpBuffer, const TransposeParamsExt &p) {
    aclsim::asc::call(ACLSIM_RA, ASC_TransposeExt, dst.word_, src.word_, sharedTmpBuffer.word_,
                      (uint64_t)p.nSize | (uint64_t)p.cSize << 32, (uint64_t)p.hSize | (uint64_t)p.wSize << 32,
                      (uint64_t)p.transposeType);
}

/* TransDataTo5HD: 16 source blocks to 16 destination blocks per repeat (NCHW -> NC1HWC0). The lists hold UB
 * addresses (GetPhyAddr) or tensors; params go in one word: dstHighHalf | srcHighHalf << 1 | repeatTimes << 8 |
 * dstRepStride << 16 | srcRepStride << 32. */
struct TransDataTo5HDParams {
    __aicore__ TransDataTo5HDParams() {}
    __aicore__ TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                    const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};
namespace detail {
inline uint64_t five_hd_word(const TransDataTo5HDParams &p) {
    return (uint64_t)p.dstHighHalf | (uint64_t)p.srcHighHalf << 1 | (uint64_t)p.repeatTimes << 8 |
           (uint64_t)p.dstRepStride << 16 | (uint64_t)p.srcRepStride << 32;
}
}  // namespace detail
template <typename T>
ACLSIM_API void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams &p) {
    uint64_t all[2 * NCHW_CONV_ADDR_LIST_SIZE];
    std::memcpy(all, dstList, sizeof(uint64_t) * NCHW_CONV_ADDR_LIST_SIZE);
    std::memcpy(all + NCHW_CONV_ADDR_LIST_SIZE, srcList, sizeof(uint64_t) * NCHW_CONV_ADDR_LIST_SIZE);
    aclsim::asc::call(ACLSIM_RA, ASC_TransDataTo5HD, (uint64_t)(uintptr_t)all, 0, detail::five_hd_word(p),
                      aclsim::asc::dtype<T>::code);
}
template <typename T>
ACLSIM_API void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                               const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE], const TransDataTo5HDParams &p) {
    uint64_t all[2 * NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; i++) {
        all[i] = dstList[i].word_;
        all[NCHW_CONV_ADDR_LIST_SIZE + i] = srcList[i].word_;
    }
    aclsim::asc::call(ACLSIM_RA, ASC_TransDataTo5HD, (uint64_t)(uintptr_t)all, 1, detail::five_hd_word(p),
                      aclsim::asc::dtype<T>::code);
}
template <typename T>
ACLSIM_API void TransDataTo5HD(const LocalTensor<uint64_t> &dst, const LocalTensor<uint64_t> &src,
                               const TransDataTo5HDParams &p) {
    aclsim::asc::call(ACLSIM_RA, ASC_TransDataTo5HD, dst.word_, 2, detail::five_hd_word(p),
                      aclsim::asc::dtype<T>::code, src.word_);
}

/* ------------------------------------------------------------------------------- sorting */
template <typename T>
struct MrgSortSrcList {
    __aicore__ MrgSortSrcList() {}
    __aicore__ MrgSortSrcList(const LocalTensor<T> &src1In, const LocalTensor<T> &src2In)
        : src1(src1In), src2(src2In) {}
    __aicore__ MrgSortSrcList(const LocalTensor<T> &src1In, const LocalTensor<T> &src2In,
                              const LocalTensor<T> &src3In)
        : src1(src1In), src2(src2In), src3(src3In) {}
    __aicore__ MrgSortSrcList(const LocalTensor<T> &src1In, const LocalTensor<T> &src2In,
                              const LocalTensor<T> &src3In, const LocalTensor<T> &src4In)
        : src1(src1In), src2(src2In), src3(src3In), src4(src4In) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

struct MrgSort4Info {
    __aicore__ MrgSort4Info() {}
    __aicore__ MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn,
                            const uint16_t validBitIn, const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
        for (int i = 0; i < 4; i++) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint8_t repeatTimes = 1;
};

namespace detail {
inline uint64_t sort_lengths(const MrgSort4Info &p) {
    return (uint64_t)p.elementLengths[0] | (uint64_t)p.elementLengths[1] << 16 | (uint64_t)p.elementLengths[2] << 32 |
           (uint64_t)p.elementLengths[3] << 48;
}
inline uint64_t sort_spec(const MrgSort4Info &p) {
    return (uint64_t)p.ifExhaustedSuspension | (uint64_t)p.validBit << 8 | (uint64_t)p.repeatTimes << 16;
}
}  // namespace detail

template <typename T>
ACLSIM_API void Sort32(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<uint32_t> &src1,
                       const int32_t repeatTime) {
    aclsim::asc::call(ACLSIM_RA, ASC_Sort32, dst.word_, src0.word_, src1.word_, (uint64_t)repeatTime);
}
template <typename T, bool isFullSort>
ACLSIM_API void Sort(const LocalTensor<T> &dst, const LocalTensor<T> &concat, const LocalTensor<uint32_t> &index,
                     LocalTensor<T> &tmp, const int32_t repeatTime) {
    aclsim::asc::call(ACLSIM_RA, ASC_Sort, dst.word_, concat.word_, index.word_, tmp.word_, (uint64_t)repeatTime,
                      isFullSort);
}
template <typename T>
ACLSIM_API void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &src, const MrgSort4Info &params) {
    uint64_t srcs[4] = {src.src1.word_, src.src2.word_, src.src3.word_, src.src4.word_};
    aclsim::asc::call(ACLSIM_RA, ASC_MrgSort, dst.word_, (uint64_t)(uintptr_t)srcs, detail::sort_lengths(params),
                      detail::sort_spec(params));
}
template <typename T>
ACLSIM_API void MrgSort4(const LocalTensor<T> &dst, const MrgSortSrcList<T> &src, const MrgSort4Info &params) {
    uint64_t srcs[4] = {src.src1.word_, src.src2.word_, src.src3.word_, src.src4.word_};
    aclsim::asc::call(ACLSIM_RA, ASC_MrgSort4, dst.word_, (uint64_t)(uintptr_t)srcs, detail::sort_lengths(params),
                      detail::sort_spec(params));
}
template <typename T>
ACLSIM_API void ProposalConcat(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                               const int32_t modeNumber) {
    aclsim::asc::call(ACLSIM_RA, ASC_ProposalConcat, dst.word_, src.word_, (uint64_t)repeatTime, (uint64_t)modeNumber);
}
template <typename T>
ACLSIM_API void ProposalExtract(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                                const int32_t modeNumber) {
    aclsim::asc::call(ACLSIM_RA, ASC_ProposalExtract, dst.word_, src.word_, (uint64_t)repeatTime, (uint64_t)modeNumber);
}
template <typename T>
ACLSIM_API void RpSort16(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime) {
    aclsim::asc::call(ACLSIM_RA, ASC_RpSort16, dst.word_, src.word_, (uint64_t)repeatTime);
}
ACLSIM_API inline void GetMrgSortResult(uint16_t &mrgSortList1, uint16_t &mrgSortList2, uint16_t &mrgSortList3,
                                        uint16_t &mrgSortList4) {
    uint64_t r = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GetMrgSortResult);
    mrgSortList1 = (uint16_t)r;
    mrgSortList2 = (uint16_t)(r >> 16);
    mrgSortList3 = (uint16_t)(r >> 32);
    mrgSortList4 = (uint16_t)(r >> 48);
}

}  // namespace AscendC

#endif

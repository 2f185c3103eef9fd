/* aclsim: Ascend C in C++, part 2: LocalTensor and GlobalTensor.
 *
 * A LocalTensor is one word naming the engine's view of local memory (ascendc/abi.h): slicing (`t[i]`) and
 * ReinterpretCast change the word here; everything else asks the engine. Local memory is the core's real memory,
 * so GetPhyAddr() is an address SIMT code and pointers can use. A GlobalTensor holds its GM address (real device
 * addresses) and the handle the engine gave SetGlobalBuffer.
 */
#ifndef ACLSIM_ASCENDC_TENSOR_H
#define ACLSIM_ASCENDC_TENSOR_H

#include "ascendc/core.h"

namespace AscendC {

struct ShapeInfo {
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[8] = {};
    uint32_t originalShape[8] = {};
    uint8_t dataFormat = 0;
    __aicore__ ShapeInfo() {}
};

template <typename T>
class LocalTensor;

namespace detail {
constexpr uint64_t LO_SHIFT = 38;
constexpr uint64_t LO_MASK = (1ull << 20) - 1;
constexpr uint64_t TYPE_SHIFT = 32;
/* The word of the same window `bytes` further (saturated: past local memory the engine refuses it). */
inline uint64_t shifted(uint64_t w, uint64_t bytes) {
    uint64_t lo = ((w >> LO_SHIFT) & LO_MASK) + bytes;
    if (lo > LO_MASK) lo = LO_MASK;
    return (w & ~(LO_MASK << LO_SHIFT)) | (lo << LO_SHIFT);
}
inline uint64_t retyped(uint64_t w, uint64_t code) { return (w & ~(63ull << TYPE_SHIFT)) | (code << TYPE_SHIFT); }
}  // namespace detail

/* `t(i)`: element i of a local tensor, read and written through the engine (GetValue/SetValue). */
template <typename T>
class LocalElement {
public:
    __aicore__ LocalElement(uint64_t w, uint32_t i) : w_(w), i_(i) {}
    ACLSIM_API operator T() const { return get(ACLSIM_RA); }
    ACLSIM_API LocalElement &operator=(T v) { set(v, ACLSIM_RA); return *this; }
    ACLSIM_API LocalElement &operator=(const LocalElement &o) { set(o.get(ACLSIM_RA), ACLSIM_RA); return *this; }
    ACLSIM_API LocalElement &operator+=(T v) { const void *ra = ACLSIM_RA; set(get(ra) + v, ra); return *this; }
    ACLSIM_API LocalElement &operator-=(T v) { const void *ra = ACLSIM_RA; set(get(ra) - v, ra); return *this; }
    ACLSIM_API LocalElement &operator*=(T v) { const void *ra = ACLSIM_RA; set(get(ra) * v, ra); return *this; }
    ACLSIM_API LocalElement &operator/=(T v) { const void *ra = ACLSIM_RA; set(get(ra) / v, ra); return *this; }

    T get(const void *ra) const {
        if constexpr (aclsim::asc::is_real<T>) {
            return (T)aclsim::asc::call_real(ra, ASC_LocalGetValue, w_, i_);
        } else {
            return (T)aclsim::asc::call(ra, ASC_LocalGetValue, w_, i_);
        }
    }
    void set(T v, const void *ra) const {
        if constexpr (aclsim::asc::is_real<T>) {
            aclsim::asc::call_s(ra, ASC_LocalSetValue, aclsim::asc::real_of(v), w_, i_);
        } else {
            aclsim::asc::call(ra, ASC_LocalSetValue, w_, i_, (uint64_t)(int64_t)v);
        }
    }

private:
    uint64_t w_;
    uint32_t i_;
};

template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    uint64_t word_ = 0;  // the engine's view (0: no memory yet)

    __aicore__ LocalTensor() {}
    ACLSIM_API LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize) {
        word_ = aclsim::asc::call(ACLSIM_RA, ASC_LocalAt, (uint64_t)pos, addr, tileSize, aclsim::asc::dtype<T>::code);
    }
    static LocalTensor of(uint64_t w) {
        LocalTensor t;
        t.word_ = w;
        return t;
    }

    __aicore__ LocalTensor operator[](const uint32_t offset) const {
        return of(detail::shifted(word_, (uint64_t)offset * sizeof(T)));
    }
    template <typename U>
    __aicore__ LocalTensor<U> ReinterpretCast() const {
        return LocalTensor<U>::of(detail::retyped(word_, aclsim::asc::dtype<U>::code));
    }

    ACLSIM_API uint64_t GetPhyAddr() const { return (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalPhyAddr, word_); }
    ACLSIM_API uint64_t GetPhyAddr(const uint32_t offset) const {
        return (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalPhyAddr, word_) + (uint64_t)offset * sizeof(T);
    }
    ACLSIM_API T GetValue(const uint32_t index) const { return LocalElement<T>(word_, index).get(ACLSIM_RA); }
    template <typename S>
    ACLSIM_API void SetValue(const uint32_t index, const S value) const {
        LocalElement<T>(word_, index).set((T)value, ACLSIM_RA);
    }
    __aicore__ LocalElement<T> operator()(const uint32_t offset) const { return LocalElement<T>(word_, offset); }

    ACLSIM_API uint32_t GetSize() const { return (uint32_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalSize, word_); }
    ACLSIM_API uint32_t GetLength() const { return (uint32_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalLength, word_); }
    ACLSIM_API int32_t GetPosition() const { return (int32_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalPosition, word_); }
    ACLSIM_API void SetSize(const uint32_t size) {
        word_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalResize, word_, (uint64_t)size * sizeof(T));
    }
    ACLSIM_API void SetBufferLen(uint32_t dataLen) {
        word_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_LocalResize, word_, dataLen);
    }
    ACLSIM_API void SetUserTag(const TTagType tag) {
        aclsim::asc::call(ACLSIM_RA, ASC_LocalSetUserTag, word_, (uint64_t)(uint32_t)tag);
    }
    ACLSIM_API TTagType GetUserTag() const {
        return (TTagType)aclsim::asc::call(ACLSIM_RA, ASC_LocalGetUserTag, word_);
    }
    template <typename U>
    ACLSIM_API void SetAddrWithOffset(LocalTensor<U> &src, uint32_t offset) {
        word_ = detail::retyped(detail::shifted(src.word_, (uint64_t)offset * sizeof(U)), aclsim::asc::dtype<T>::code);
    }
    __aicore__ void SetShapeInfo(const ShapeInfo &shapeInfo) { shape_ = shapeInfo; }
    __aicore__ ShapeInfo GetShapeInfo() const { return shape_; }

private:
    ShapeInfo shape_;
};

enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };
enum class CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    uint64_t handle_ = 0;  // the engine's GlobalTensor (0: no buffer set)
    T *base_ = nullptr;    // the address SetGlobalBuffer was given
    T *addr_ = nullptr;
    uint64_t size_ = 0;    // elements (0: not given)

    __aicore__ GlobalTensor() {}
    ACLSIM_API void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize) { bind(buffer, bufferSize, ACLSIM_RA); }
    ACLSIM_API void SetGlobalBuffer(__gm__ T *buffer) { bind(buffer, 0, ACLSIM_RA); }
    __aicore__ const __gm__ T *GetPhyAddr() const { return addr_; }
    __aicore__ __gm__ T *GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
    __aicore__ uint64_t GetSize() const { return size_; }
    __aicore__ GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor g = *this;
        g.addr_ = addr_ + offset;
        if (size_) g.size_ = size_ > offset ? size_ - offset : 0;
        return g;
    }
    ACLSIM_API T GetValue(const uint64_t offset) const {
        if constexpr (aclsim::asc::is_real<T>) {
            return (T)aclsim::asc::call_real(ACLSIM_RA, ASC_GlobalGetValue, word(), offset);
        } else {
            return (T)aclsim::asc::call(ACLSIM_RA, ASC_GlobalGetValue, word(), offset);
        }
    }
    ACLSIM_API void SetValue(const uint64_t offset, T value) {
        if constexpr (aclsim::asc::is_real<T>) {
            aclsim::asc::call_s(ACLSIM_RA, ASC_GlobalSetValue, aclsim::asc::real_of(value), word(), offset);
        } else {
            aclsim::asc::call(ACLSIM_RA, ASC_GlobalSetValue, word(), offset, (uint64_t)(int64_t)value);
        }
    }
    /* A reference to GM itself: the kernel's own load or store (checked by aclsim run --check). */
    __aicore__ __gm__ T &operator()(const uint64_t offset) const { return addr_[offset]; }
    template <typename U>
    ACLSIM_API GlobalTensor<U> ReinterpretCast() const {
        GlobalTensor<U> g;
        g.bind_at((__gm__ U *)addr_, size_ * sizeof(T) / sizeof(U), ACLSIM_RA);
        return g;
    }
    /* Cache hints change how fast GM is reached on the chip, never what a kernel computes: accepted as given. */
    template <CacheRwMode rwMode = CacheRwMode::RW>
    __aicore__ void SetL2CacheHint(CacheMode mode) { (void)mode; }
    __aicore__ void SetShapeInfo(const ShapeInfo &shapeInfo) { shape_ = shapeInfo; }
    __aicore__ ShapeInfo GetShapeInfo() const { return shape_; }

    __aicore__ uint64_t word() const { return handle_ | ((uint64_t)(addr_ - base_) << 16); }

    void bind_at(T *buffer, uint64_t size, const void *ra) { bind(buffer, size, ra); }

private:
    void bind(T *buffer, uint64_t size, const void *ra) {
        handle_ = (uint64_t)aclsim::asc::call(ra, ASC_GlobalBind, (uint64_t)(uintptr_t)buffer,
                                              aclsim::asc::dtype<T>::code, size);
        base_ = addr_ = buffer;
        size_ = size;
    }
    ShapeInfo shape_;
};

namespace detail {
/* A tensor operand's word and whether it is in GM (the flags of data movement). */
template <typename T>
inline uint64_t word_of(const LocalTensor<T> &t) { return t.word_; }
template <typename T>
inline uint64_t word_of(const GlobalTensor<T> &t) { return t.word(); }
template <typename T>
constexpr uint64_t in_gm(const LocalTensor<T> &) { return 0; }
template <typename T>
constexpr uint64_t in_gm(const GlobalTensor<T> &) { return 1; }
template <typename D, typename S>
constexpr uint64_t flags(const D &d, const S &s) { return in_gm(d) | in_gm(s) << 1; }
}  // namespace detail

}  // namespace AscendC

#endif

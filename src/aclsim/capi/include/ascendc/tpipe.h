/* aclsim: Ascend C in C++, part 3: TPipe, TQue/TQueBind, TBuf, LocalMemAllocator.
 *
 * Each object stands for the engine's (aclsim.asc.memory.tpipe), named by a handle: a queue gets its engine
 * object at pipe.InitBuffer. The engine keeps the rules (buffer counts, UB capacity, queue states, leaks).
 */
#ifndef ACLSIM_ASCENDC_TPIPE_H
#define ACLSIM_ASCENDC_TPIPE_H

#include "ascendc/tensor.h"

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind;
template <TPosition pos = TPosition::LCM>
class TBuf;

class TPipe {
public:
    template <class... A>
    void InitBufPool(A &&...) {
        static_assert(::aclsim::asc::never<A...>, "aclsim: AscendC::TPipe::InitBufPool is not emulated: buffer "
                                                  "pools (use InitBuffer with TQue/TBuf)");
    }
    uint64_t handle_ = 0;

    ACLSIM_API TPipe() { handle_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_PipeNew); }
    /* As CANN's ~TPipe: the pipe is destroyed at the end of its scope (tensors still allocated are leaks). */
    ACLSIM_API ~TPipe() {
        if (handle_ && !destroyed_) aclsim::asc::call(ACLSIM_RA, ASC_PipeDestroy, handle_, 1);
    }
    TPipe(const TPipe &) = delete;
    TPipe &operator=(const TPipe &) = delete;

    ACLSIM_API void Init() {
        aclsim::asc::call(ACLSIM_RA, ASC_PipeInit, handle_);
        destroyed_ = false;
    }
    template <class T>
    ACLSIM_API bool InitBuffer(T &que, uint8_t num, uint32_t len) {
        que.handle_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_PipeInitQueue, handle_, (uint64_t)T::src_position,
                                                  (uint64_t)T::dst_position, (uint64_t)T::queue_depth, num, len);
        return true;
    }
    template <TPosition pos>
    ACLSIM_API bool InitBuffer(TBuf<pos> &buf, uint32_t len) {
        buf.handle_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_PipeInitBuf, handle_, (uint64_t)pos, len);
        return true;
    }
    ACLSIM_API void Reset() { aclsim::asc::call(ACLSIM_RA, ASC_PipeReset, handle_); }
    ACLSIM_API void Destroy() {
        aclsim::asc::call(ACLSIM_RA, ASC_PipeDestroy, handle_, 0);
        destroyed_ = true;
    }
    template <HardEvent evt>
    ACLSIM_API TEventID AllocEventID() {
        return (TEventID)aclsim::asc::call(ACLSIM_RA, ASC_PipeAllocEventId, handle_, (uint64_t)evt);
    }
    template <HardEvent evt>
    ACLSIM_API void ReleaseEventID(TEventID id) {
        aclsim::asc::call(ACLSIM_RA, ASC_PipeReleaseEventId, handle_, (uint64_t)evt, (uint64_t)(uint8_t)id);
    }
    template <HardEvent evt>
    ACLSIM_API TEventID FetchEventID() {
        return (TEventID)aclsim::asc::call(ACLSIM_RA, ASC_PipeFetchEventId, handle_, (uint64_t)evt);
    }
    ACLSIM_API TEventID FetchEventID(HardEvent evt) {
        return (TEventID)aclsim::asc::call(ACLSIM_RA, ASC_PipeFetchEventId, handle_, (uint64_t)evt);
    }

    static TPipe *adopt(uint64_t h);

private:
    struct adopted {};
    explicit TPipe(adopted, uint64_t h) : handle_(h), destroyed_(true) {}
    bool destroyed_ = false;
};

/* GetTPipePtr(): the kernel's pipe (a stand-in object naming the engine's, kept per thread). */
inline TPipe *TPipe::adopt(uint64_t h) {
    static thread_local TPipe *kept = nullptr;
    if (kept == nullptr || kept->handle_ != h) {
        delete kept;
        kept = new TPipe(adopted{}, h);
    }
    return kept;
}
ACLSIM_API inline TPipe *GetTPipePtr() {
    return TPipe::adopt((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_GetTPipePtr));
}

/* A queue between two positions (the engine's TQueBind); TQue<pos, depth> is one with src = dst. */
template <TPosition src, TPosition dst, int32_t depth, auto mask>
class TQueBind {
public:
    static constexpr TPosition src_position = src;
    static constexpr TPosition dst_position = dst;
    static constexpr int32_t queue_depth = depth;
    uint64_t handle_ = 0;

    __aicore__ TQueBind() {}
    template <typename T>
    ACLSIM_API LocalTensor<T> AllocTensor() {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueAlloc, handle_, aclsim::asc::dtype<T>::code));
    }
    template <typename T>
    ACLSIM_API void AllocTensor(LocalTensor<T> &t) {
        t.word_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueAlloc, handle_, aclsim::asc::dtype<T>::code);
    }
    template <typename T>
    ACLSIM_API bool EnQue(const LocalTensor<T> &t) {
        return aclsim::asc::call(ACLSIM_RA, ASC_QueEnQue, handle_, t.word_) != 0;
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    ACLSIM_API bool EnQue(const LocalTensor<T> &t) {
        return aclsim::asc::call(ACLSIM_RA, ASC_QueEnQue, handle_, t.word_) != 0;
    }
    template <typename T>
    ACLSIM_API LocalTensor<T> DeQue() {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueDeQue, handle_, aclsim::asc::dtype<T>::code));
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T>
    ACLSIM_API LocalTensor<T> DeQue() {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueDeQue, handle_, aclsim::asc::dtype<T>::code));
    }
    template <typename T>
    ACLSIM_API void DeQue(LocalTensor<T> &t) {
        t.word_ = (uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueDeQue, handle_, aclsim::asc::dtype<T>::code);
    }
    template <typename T>
    ACLSIM_API void FreeTensor(LocalTensor<T> &t) { aclsim::asc::call(ACLSIM_RA, ASC_QueFree, handle_, t.word_); }
    ACLSIM_API bool HasTensorInQue() { return aclsim::asc::call(ACLSIM_RA, ASC_QueHasTensor, handle_) != 0; }
    ACLSIM_API int32_t GetTensorCountInQue() {
        return (int32_t)aclsim::asc::call(ACLSIM_RA, ASC_QueTensorCount, handle_);
    }
    ACLSIM_API bool VacantInQue() { return aclsim::asc::call(ACLSIM_RA, ASC_QueVacant, handle_) != 0; }
    ACLSIM_API bool HasIdleBuffer() { return aclsim::asc::call(ACLSIM_RA, ASC_QueHasIdleBuffer, handle_) != 0; }
    ACLSIM_API void FreeAllEvent() { aclsim::asc::call(ACLSIM_RA, ASC_QueFreeAllEvent, handle_); }
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

/* Scratch memory without a queue (the engine's TBuf). */
template <TPosition pos>
class TBuf {
public:
    uint64_t handle_ = 0;

    __aicore__ TBuf() {}
    template <typename T>
    ACLSIM_API LocalTensor<T> Get() {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_BufGet, handle_, aclsim::asc::dtype<T>::code, 0));
    }
    template <typename T>
    ACLSIM_API LocalTensor<T> Get(uint32_t len) {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_BufGet, handle_, aclsim::asc::dtype<T>::code, len));
    }
    template <typename T>
    ACLSIM_API LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_BufGetWithOffset, handle_,
                                                              aclsim::asc::dtype<T>::code, size, bufOffset));
    }
    template <typename T>
    ACLSIM_API LocalTensor<T> AllocTensor() {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueAlloc, handle_, aclsim::asc::dtype<T>::code));
    }
    template <typename T>
    ACLSIM_API bool EnQue(const LocalTensor<T> &t) {
        return aclsim::asc::call(ACLSIM_RA, ASC_QueEnQue, handle_, t.word_) != 0;
    }
    template <typename T>
    ACLSIM_API LocalTensor<T> DeQue() {
        return LocalTensor<T>::of((uint64_t)aclsim::asc::call(ACLSIM_RA, ASC_QueDeQue, handle_, aclsim::asc::dtype<T>::code));
    }
    template <typename T>
    ACLSIM_API void FreeTensor(LocalTensor<T> &t) { aclsim::asc::call(ACLSIM_RA, ASC_QueFree, handle_, t.word_); }
};

/* Tensors placed by hand from the bottom of a local memory, as CANN's LocalMemAllocator does. */
template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
public:
    __aicore__ LocalMemAllocator() {}
    __aicore__ uint32_t GetCurAddr() const { return head_; }
    template <TPosition pos, class T, uint32_t tileSize>
    ACLSIM_API LocalTensor<T> Alloc() { return take<T>(pos, tileSize, ACLSIM_RA); }
    template <TPosition pos, class T>
    ACLSIM_API LocalTensor<T> Alloc(uint32_t tileSize) { return take<T>(pos, tileSize, ACLSIM_RA); }
    template <class T, uint32_t tileSize>
    ACLSIM_API LocalTensor<T> Alloc() { return take<T>(position(), tileSize, ACLSIM_RA); }
    template <class T>
    ACLSIM_API LocalTensor<T> Alloc(uint32_t tileSize) { return take<T>(position(), tileSize, ACLSIM_RA); }

private:
    static constexpr TPosition position() {
        return hard == Hardware::UB    ? TPosition::VECCALC
               : hard == Hardware::L1  ? TPosition::A1
               : hard == Hardware::L0A ? TPosition::A2
               : hard == Hardware::L0B ? TPosition::B2
               : hard == Hardware::L0C ? TPosition::CO1
               : hard == Hardware::BIAS ? TPosition::C2
                                        : TPosition::GM;
    }
    template <class T>
    LocalTensor<T> take(TPosition pos, uint32_t tileSize, const void *ra) {
        LocalTensor<T> t;
        t.word_ = (uint64_t)aclsim::asc::call(ra, ASC_LocalAt, (uint64_t)pos, head_, tileSize,
                                              aclsim::asc::dtype<T>::code);
        head_ += (uint32_t)(tileSize * sizeof(T));
        return t;
    }
    uint32_t head_ = 0;
};

}  // namespace AscendC

using AscendC::GetTPipePtr;  // CANN declares it outside the namespace too

#endif

/* aclsim: the kernel language of Ascend C and Ascend SIMT in C++, run natively on aclsim's runtime.
 *
 * `aclsim cc` includes this header in every .asc file (and in C++ files with kernels). It gives:
 * - the qualifiers (__global__, __aicore__, __vector__, __cube__, __mix__, __gm__, __ubuf__, __simt_vf__,
 *   __launch_bounds__, GM_ADDR): markers for aclsim cc, which rewrites what they mean (see docs/c.md);
 * - the built-ins: dim3, threadIdx, blockIdx, blockDim, gridDim, warpSize (SIMT), block_idx, block_num,
 *   sub_block_idx, sub_block_num (Ascend C);
 * - the launches aclsim cc rewrites `k<<<...>>>(args)` into (aclsim::launch_simt / launch_cores), and the
 *   ones written as calls: ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, args...), ICPU_RUN_KF(k, blockDim,
 *   args...) with AscendC::GmAlloc / GmFree, and asc_vf_call<f>(dim3, args...) from an Ascend C kernel.
 * A launch copies its arguments and queues the kernel on its stream (aclsimLaunchKernel); it runs when the
 * stream's work runs, as every other launch (the sanitizer, the timeline and the scheduler see it).
 */
#ifndef ACLSIM_KERNEL_H
#define ACLSIM_KERNEL_H

#include "aclsim/kernel_abi.h"

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

/* ---------------------------------------------------------------------------------------- qualifiers */
#ifdef __ACLSIM_REWRITE__
/* aclsim cc's preprocessing keeps these words in the text: its rewriter reads them and removes them. */
#define __global__ __global__
#define __aicore__ __aicore__
#define __vector__ __vector__
#define __cube__ __cube__
#define __mix__ __mix__
#define __ubuf__ __ubuf__
#define __simt_vf__ __simt_vf__
#define __simd_vf__ __simd_vf__
#define __launch_bounds__ __launch_bounds__
#else
#define __global__
#define __aicore__
#define __vector__
#define __cube__
#define __mix__(...)
#define __ubuf__
#define __simt_vf__
#define __simd_vf__
#define __launch_bounds__(...)
#endif
#define __gm__
#define __host__
#define __device__
#define __simt_callee__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __sync_alias__
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t *
#endif
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 3510 /* the SIMT API's headers test it; aclsim's kernels run on every chip profile */
#endif

/* ---------------------------------------------------------------------------------------- built-ins */
namespace cce {
struct dim3 {
    uint32_t x, y, z;
    constexpr dim3(uint32_t vx = 1, uint32_t vy = 1, uint32_t vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(aclsim_dim3 d) : x(d.x), y(d.y), z(d.z) {}
    constexpr operator aclsim_dim3() const { return aclsim_dim3{x, y, z}; }
};
}  // namespace cce
using dim3 = cce::dim3;

/* The built-in variables kernel code reads. They are thread-local variables the runtime keeps for the
 * thread (or AI Core) it runs; host code may declare variables of the same names (`dim3 blockDim(256);`). */
inline thread_local aclsim_dim3 threadIdx, blockIdx, blockDim, gridDim;
inline thread_local int64_t block_idx, block_num = 1, sub_block_idx, sub_block_num = 1;
constexpr int32_t warpSize = 32;

namespace aclsim {

/* ---------------------------------------------------------------------------------------- launches */
/* A launch's closure: the function calling the kernel (a lambda the launch wrote, so that template kernels
 * deduce their arguments as a call would) and a copy of the arguments. */
template <class L, class T>
struct closure {
    L call;
    T args;
};

/* A caller numbered by its launch site: the number makes each launch's closure type (and so its key) unique. */
template <int N, class L>
struct tagged {
    L call;
    template <class... A>
    void operator()(A &&...a) const {
        call(std::forward<A>(a)...);
    }
};
template <int N, class L>
tagged<N, L> tag(L call) {
    return tagged<N, L>{call};
}

namespace {  // per translation unit: a kernel's key names the file it was launched from
template <class C>
const char *key() {
    static const std::string k = std::string(__BASE_FILE__) + "|" + __PRETTY_FUNCTION__;
    return k.c_str();
}

template <class C>
void run_thread(void *p) {
    C &c = *static_cast<C *>(p);
    std::apply(c.call, c.args);
}

template <class C>
void run_block(void *p, aclsim_thread *t) {  /* loop mode: only threadIdx changes from one thread to the next */
    C &c = *static_cast<C *>(p);
    const uint32_t bx = t->block_dim.x, by = t->block_dim.y, bz = t->block_dim.z;
    for (uint32_t z = 0; z < bz; ++z) {
        threadIdx.z = z;
        for (uint32_t y = 0; y < by; ++y) {
            threadIdx.y = y;
            for (uint32_t x = 0; x < bx; ++x) {
                threadIdx.x = x;
                std::apply(c.call, c.args);
            }
        }
    }
}

void builtins(aclsim_slots *s) {
    s->thread_idx = &threadIdx;
    s->block_idx = &blockIdx;
    s->block_dim = &blockDim;
    s->grid_dim = &gridDim;
    s->core = &block_idx;
    s->core_num = &block_num;
    s->sub_block_idx = &sub_block_idx;
    s->sub_block_num = &sub_block_num;
}

template <class C>
void destroy(void *p) {
    delete static_cast<C *>(p);
}

#ifdef __ACLSIM_TWIN__
/* The checked build registers each kernel's bodies when it is loaded (aclsim run --check). */
template <class C>
struct twin {
    static inline const int registered = aclsim_register_kernel(key<C>(), &run_thread<C>, &run_block<C>, &builtins);
};
#endif
}  // namespace

template <class T, size_t... I>
uint32_t pointers_of(const T &a, uint64_t *out, std::index_sequence<I...>) {
    uint32_t n = 0;
    auto one = [&](const auto &v) {
        if constexpr (std::is_pointer_v<std::decay_t<decltype(v)>>) out[n++] = (uint64_t)(uintptr_t)v;
    };
    (one(std::get<I>(a)), ...);
    return n;
}

inline uint64_t ub_bytes(std::nullptr_t) { return 0; }
template <class V>
uint64_t ub_bytes(V v) {
    if constexpr (std::is_pointer_v<V>) {
        return 0; /* an l2ctrl pointer (older Ascend C launches): no dynamic UB */
    } else {
        return (uint64_t)v;
    }
}

/* Fills `k` for one launch of the kernel that `call` calls with `a`; the closure is `*out` (heap or caller's). */
template <class C>
void describe(aclsim_kernel &k, C *c, const char *name, const void *entry, uint32_t kind, uint32_t fibers) {
    std::memset(&k, 0, sizeof k);
    k.abi = ACLSIM_KERNEL_ABI;
    k.kind = kind;
    k.fibers = fibers;
    k.name = name;
    k.entry = entry;
    k.key = key<C>();
    k.args = c;
    k.thread = &run_thread<C>;
    k.block = &run_block<C>;
    k.slots = &builtins;
#ifdef __ACLSIM_TWIN__
    (void)twin<C>::registered;
#endif
}

template <class L, class... A>
int submit(const char *name, const void *entry, L call, uint32_t kind, uint32_t fibers, uint32_t bounds, dim3 grid,
           dim3 block, uint64_t dyn, void *stream, const void *site, A &&...a) {
    using T = std::tuple<std::decay_t<A>...>;
    using C = closure<L, T>;
    C *c = new C{call, T(std::forward<A>(a)...)};
    uint64_t ptrs[sizeof...(A) + 1];
    aclsim_kernel k;
    describe(k, c, name, entry, kind, fibers);
    k.npointers = pointers_of(c->args, ptrs, std::index_sequence_for<A...>{});
    k.destroy = &destroy<C>;
    k.grid = grid;
    k.block_dim = block;
    k.dyn_ubuf = dyn;
    k.stream = stream;
    k.pointers = ptrs;
    k.site = site;
    k.max_threads = bounds;
    return aclsimLaunchKernel(&k);
}

/* k<<<grid, block[, dyn_ubuf_bytes[, stream]]>>>(args): a SIMT kernel (aclsim cc writes the call). */
template <class L, class... A>
__attribute__((noinline)) int launch_simt(const char *name, const void *entry, L call, int fibers, int bounds, dim3 grid,
                                          dim3 block, uint64_t dyn, void *stream, A &&...a) {
    return submit(name, entry, call, ACLSIM_KIND_SIMT, fibers, bounds, grid, block, dyn, stream,
                  __builtin_return_address(0), std::forward<A>(a)...);
}

/* k<<<blocks, dyn_ubuf_or_l2ctrl, stream>>>(args): an Ascend C kernel, one body per AI Core. */
template <class L, class D, class... A>
__attribute__((noinline)) int launch_cores(const char *name, const void *entry, L call, int kind, uint32_t blocks, D dyn,
                                           void *stream, A &&...a) {
    return submit(name, entry, call, kind, 0, 0, dim3(blocks), dim3(1), ub_bytes(dyn), stream,
                  __builtin_return_address(0), std::forward<A>(a)...);
}

/* ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, args...) */
template <class L>
struct aclrt_launcher {
    const char *name;
    const void *entry;
    L call;
    int kind;
    template <class... A>
    __attribute__((noinline)) uint32_t operator()(uint32_t blocks, void *stream, A &&...a) const {
        return (uint32_t)submit(name, entry, call, kind, 0, 0, dim3(blocks), dim3(1), 0, stream,
                                __builtin_return_address(0), std::forward<A>(a)...);
    }
};
template <class L>
aclrt_launcher<L> aclrt_launch(const char *name, const void *entry, L call, int kind = ACLSIM_KIND_AICORE) {
    return aclrt_launcher<L>{name, entry, call, kind};
}

/* asc_vf_call<f>(dim3 threads, args...): SIMT threads on the running AI Core (a SIMD VF is a plain call). */
template <class L, class First, class... A>
__attribute__((noinline)) void vf_call(const char *name, const void *entry, L call, int fibers, First &&first, A &&...a) {
    if constexpr (std::is_convertible_v<std::decay_t<First>, dim3> && !std::is_arithmetic_v<std::decay_t<First>>) {
        using T = std::tuple<std::decay_t<A>...>;
        using C = closure<L, T>;
        C c{call, T(std::forward<A>(a)...)};
        aclsim_kernel k;
        describe(k, &c, name, entry, ACLSIM_KIND_SIMT, fibers);
        k.grid = dim3(1);
        k.block_dim = dim3(first);
        k.site = __builtin_return_address(0);
        aclsim_vf_call(&k);
    } else {
        call(std::forward<First>(first), std::forward<A>(a)...);
    }
}

/* asc_vf_call<f>() without arguments: a SIMD VF (`__simd_vf__`), a plain call. */
template <class L>
__attribute__((noinline)) void vf_call(const char *, const void *, L call, int) {
    call();
}

/* `extern __ubuf__ T x[];`: the block's dynamic UB (the launch's dyn_ubuf bytes). */
template <class T>
struct dyn_ubuf {
    operator T *() const { return static_cast<T *>(aclsim_self->dyn_ubuf); }
    T &operator[](size_t i) const { return static_cast<T *>(aclsim_self->dyn_ubuf)[i]; }
    T *operator+(ptrdiff_t i) const { return static_cast<T *>(aclsim_self->dyn_ubuf) + i; }
};

/* `__ubuf__ T x[N];` in a kernel: one zeroed variable shared by the threads of the block. */
template <class T>
inline T *shared(const void *key) {
    return static_cast<T *>(aclsim_shared(key, sizeof(T), alignof(T), nullptr));
}

/* --check: accesses the compiler's instrumentation does not see (atomics) are recorded explicitly. */
#ifdef __ACLSIM_TWIN__
__attribute__((noinline)) inline void record_access(const volatile void *p, size_t n, int kind) {
    aclsim_access(p, n, kind, __builtin_return_address(0));
}
#define ACLSIM_ACCESS(p, n, kind) ::aclsim::record_access((p), (n), (kind))
#else
#define ACLSIM_ACCESS(p, n, kind) ((void)0)
#endif

}  // namespace aclsim

/* The call of a kernel (or SIMT function) with whatever arguments a launch gives it. */
#define ACLSIM_CALLER(kernel) [](auto &&...aclsim_a) { kernel(static_cast<decltype(aclsim_a) &&>(aclsim_a)...); }

/* Launches written as calls (aclsim cc's rewriting only refines the kernel's kind). */
#define ACLRT_LAUNCH_KERNEL(kernel)                                                                        \
    (::aclsim::aclrt_launch(#kernel, reinterpret_cast<const void *>(&kernel),                              \
                            ::aclsim::tag<__COUNTER__>(ACLSIM_CALLER(kernel))))
template <auto F, class... A>
inline void asc_vf_call(A &&...a) {
    ::aclsim::vf_call("SIMT function", reinterpret_cast<const void *>(F), ::aclsim::tag<0>(ACLSIM_CALLER(F)), 1,
                      static_cast<A &&>(a)...);
}

#endif /* __cplusplus */
#endif

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
template <class F>
struct kernel_traits;
template <class... A>
struct kernel_traits<void (*)(A...)> {
    using args = std::tuple<std::decay_t<A>...>;
};
template <class... A>
struct kernel_traits<void (*)(A...) noexcept> : kernel_traits<void (*)(A...)> {};

namespace {  // per translation unit: a kernel's key names the file it was launched from
template <auto K>
const char *key() {
    static const std::string k = std::string(__BASE_FILE__) + "|" + __PRETTY_FUNCTION__;
    return k.c_str();
}

template <auto K, class T>
void run_thread(void *args) {
    std::apply(K, *static_cast<T *>(args));
}

template <auto K, class T>
void run_block(void *args, aclsim_thread *t) {
    T &a = *static_cast<T *>(args);
    const uint32_t bx = t->block_dim.x, by = t->block_dim.y, bz = t->block_dim.z;
    uint32_t lin = 0;
    for (uint32_t z = 0; z < bz; ++z)
        for (uint32_t y = 0; y < by; ++y)
            for (uint32_t x = 0; x < bx; ++x, ++lin) {
                threadIdx = t->thread_idx = aclsim_dim3{x, y, z};
                t->linear = lin;
                t->lane = lin & 31;
                std::apply(K, a);
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

template <class T>
void destroy(void *args) {
    delete static_cast<T *>(args);
}

#ifdef __ACLSIM_TWIN__
/* The checked build registers each kernel's bodies when it is loaded (aclsim run --check). */
template <auto K, class T>
struct twin {
    static inline const int registered = aclsim_register_kernel(key<K>(), &run_thread<K, T>, &run_block<K, T>, &builtins);
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

template <auto K, class... A>
int submit(const char *name, uint32_t kind, uint32_t fibers, uint32_t bounds, dim3 grid, dim3 block, uint64_t dyn,
           void *stream, const void *site, A &&...a) {
    using T = typename kernel_traits<decltype(K)>::args;
    static_assert(sizeof...(A) == std::tuple_size_v<T>, "kernel launch: the number of arguments differs from the kernel's parameters");
#ifdef __ACLSIM_TWIN__
    (void)twin<K, T>::registered;
#endif
    T *args = new T(std::forward<A>(a)...);
    uint64_t ptrs[std::tuple_size_v<T> + 1];
    aclsim_kernel k;
    std::memset(&k, 0, sizeof k);
    k.abi = ACLSIM_KERNEL_ABI;
    k.kind = kind;
    k.fibers = fibers;
    k.npointers = pointers_of(*args, ptrs, std::make_index_sequence<std::tuple_size_v<T>>{});
    k.name = name;
    k.entry = reinterpret_cast<const void *>(K);
    k.key = key<K>();
    k.args = args;
    k.thread = &run_thread<K, T>;
    k.block = &run_block<K, T>;
    k.destroy = &destroy<T>;
    k.slots = &builtins;
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
template <auto K, int Fibers, int Bounds, class... A>
__attribute__((noinline)) int launch_simt(const char *name, dim3 grid, dim3 block, uint64_t dyn, void *stream, A &&...a) {
    return submit<K>(name, ACLSIM_KIND_SIMT, Fibers, Bounds, grid, block, dyn, stream, __builtin_return_address(0),
                     std::forward<A>(a)...);
}

/* k<<<blocks, dyn_ubuf_or_l2ctrl, stream>>>(args): an Ascend C kernel, one body per AI Core. */
template <auto K, int Kind, class D, class... A>
__attribute__((noinline)) int launch_cores(const char *name, uint32_t blocks, D dyn, void *stream, A &&...a) {
    return submit<K>(name, Kind, 0, 0, dim3(blocks), dim3(1), ub_bytes(dyn), stream, __builtin_return_address(0),
                     std::forward<A>(a)...);
}

/* ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, args...) */
template <auto K, int Kind = ACLSIM_KIND_AICORE>
struct aclrt_launcher {
    const char *name;
    template <class... A>
    __attribute__((noinline)) uint32_t operator()(uint32_t blocks, void *stream, A &&...a) const {
        return (uint32_t)submit<K>(name, Kind, 0, 0, dim3(blocks), dim3(1), 0, stream, __builtin_return_address(0),
                                   std::forward<A>(a)...);
    }
};

/* asc_vf_call<f>(dim3 threads, args...): SIMT threads on the running AI Core (a SIMD VF is a plain call). */
template <auto F, int Fibers = 1, class First, class... A>
__attribute__((noinline)) void vf_call(const char *name, First &&first, A &&...a) {
    if constexpr (std::is_convertible_v<std::decay_t<First>, dim3> && !std::is_arithmetic_v<std::decay_t<First>>) {
        using T = typename kernel_traits<decltype(F)>::args;
#ifdef __ACLSIM_TWIN__
        (void)twin<F, T>::registered;
#endif
        T args(std::forward<A>(a)...);
        dim3 threads = first;
        aclsim_kernel k;
        std::memset(&k, 0, sizeof k);
        k.abi = ACLSIM_KERNEL_ABI;
        k.kind = ACLSIM_KIND_SIMT;
        k.fibers = Fibers;
        k.name = name;
        k.entry = reinterpret_cast<const void *>(F);
        k.key = key<F>();
        k.args = &args;
        k.thread = &run_thread<F, T>;
        k.block = &run_block<F, T>;
        k.slots = &builtins;
        k.grid = dim3(1);
        k.block_dim = threads;
        k.site = __builtin_return_address(0);
        aclsim_vf_call(&k);
    } else {
        F(std::forward<First>(first), std::forward<A>(a)...);
    }
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

/* Launches written as calls (no rewriting needed). */
#define ACLRT_LAUNCH_KERNEL(kernel) (::aclsim::aclrt_launcher<&kernel>{#kernel})

#endif /* __cplusplus */
#endif

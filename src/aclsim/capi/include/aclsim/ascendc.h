/* aclsim: the AI Core side of Ascend C kernels in C++ that aclsim's launch machinery provides: which core
 * runs (GetBlockIdx...), the wait hook for synchronisation between cores, and CANN's CPU twin (ICPU_RUN_KF,
 * GmAlloc/GmFree). The Ascend C SIMD API itself (kernel_operator.h: tensors, queues, vector and Cube
 * instructions) is built on top of this.
 *
 * Cores: a launch `k<<<blocks, dyn, stream>>>(args)` of a __global__ __aicore__ (or __vector__) kernel runs
 * the body once per block, a __cube__ kernel once per AIC, a __mix__ kernel once per AIC and AIV of each
 * block; the cores run one at a time (aclsim.native's gang scheduler), each on a stack of its own.
 *
 * Waiting for other cores (SyncAll, cross-core flags): `aclsim::core_wait(ready)` suspends the running core
 * until ready() holds, running the other cores meanwhile; false when no core can ever make it hold (on
 * hardware the launch hangs): the caller then stops the kernel with aclsim_trap, naming what it waited for.
 */
#ifndef ACLSIM_ASCENDC_H
#define ACLSIM_ASCENDC_H

#include "aclsim/kernel.h"

namespace aclsim {
template <class F>
int call_ready(void *f) {
    return (*static_cast<F *>(f))() ? 1 : 0;
}
/* Suspend the running AI Core until ready() (a callable returning bool); false: it never will. */
template <class F>
bool core_wait(F ready) {
    return aclsim_core_wait(&call_ready<F>, &ready) != 0;
}
/* The same, and a wait that can never be satisfied stops the kernel (507015) with `what`. */
template <class F>
void core_wait_or_trap(F ready, const char *what) {
    if (!core_wait(ready)) aclsim_trap(what, "", 0);
}

/* ICPU_RUN_KF: the CPU twin's launch, synchronous, on the default stream. */
template <class L, class... A>
__attribute__((noinline)) void cpu_run(const char *name, const void *entry, L call, uint32_t blocks, A &&...a) {
    int rc = submit(name, entry, call, ACLSIM_KIND_AICORE, 0, 0, dim3(blocks), dim3(1), 0, nullptr,
                    __builtin_return_address(0), std::forward<A>(a)...);
    if (rc == 0) rc = aclsim_cpu_twin_sync();
    if (rc != 0) std::fprintf(stderr, "aclsim: ICPU_RUN_KF(%s, %u, ...) failed (%d): %s\n", name, blocks, rc, aclsim_recent_error());
}
}  // namespace aclsim

namespace AscendC {
inline int64_t GetBlockIdx() { return block_idx; }
inline int64_t GetBlockNum() { return block_num; }
inline int64_t GetSubBlockIdx() { return sub_block_idx; }
inline int64_t GetSubBlockNum() { return sub_block_num; }
inline int64_t GetTaskRation() { return sub_block_num; }
/* The CPU twin's global memory: device memory the host may also read and write (the twin shares it). */
inline void *GmAlloc(size_t size) { return aclsim_gm(0, size, nullptr); }
inline void GmFree(void *ptr) { aclsim_gm(1, 0, ptr); }
}  // namespace AscendC

#define ICPU_RUN_KF(func, blockdim, ...)                                                                   \
    ::aclsim::cpu_run(#func, reinterpret_cast<const void *>(&func), ::aclsim::tag<__COUNTER__>(ACLSIM_CALLER(func)), \
                      (blockdim), ##__VA_ARGS__)
#define ICPU_SET_TILING_KEY(key) ((void)(key))

#endif

/* aclsim: the C interface between natively compiled kernels and libascendcl's kernel runtime.
 *
 * Kernel code (headers in aclsim/kernel.h, simt_api/, kernel_operator.h) reads the running thread from
 * `aclsim_self`; a launch hands the runtime an `aclsim_kernel` (what to run, on which shape, with which
 * arguments); the functions below are what kernel code calls into the runtime for: barriers and warp
 * functions (they switch between the fibers of a block), block-shared (UB) variables, traps, the wait hook
 * for Ascend C cores, and access records of the --check build.
 *
 * This is an internal interface of aclsim (it changes with aclsim's version); programs use the kernel
 * language on top of it.
 */
#ifndef ACLSIM_KERNEL_ABI_H
#define ACLSIM_KERNEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACLSIM_KERNEL_ABI 1

typedef struct aclsim_dim3 { uint32_t x, y, z; } aclsim_dim3;

/* What a kernel launch runs on. SIMT: blocks of threads. Ascend C: one body per AI Core. */
enum aclsim_kind {
    ACLSIM_KIND_SIMT = 0,    /* __global__: grid of blocks of threads */
    ACLSIM_KIND_AICORE = 1,  /* __global__ __aicore__ (vector cores on a separated chip) */
    ACLSIM_KIND_VECTOR = 2,  /* __global__ __vector__: AIVs */
    ACLSIM_KIND_CUBE = 3,    /* __global__ __cube__: AICs */
    ACLSIM_KIND_MIX = 4      /* __global__ __mix__: one AIC and its AIVs per block */
};

/* The running SIMT thread (or AI Core). Kernel code reads it through aclsim_self. */
typedef struct aclsim_thread {
    aclsim_dim3 thread_idx, block_idx, block_dim, grid_dim;
    uint32_t linear;        /* thread index in its block (x fastest) */
    uint32_t lane;          /* linear % 32 */
    uint64_t core;          /* Ascend C: block_idx of the core; SIMT: linear block index */
    uint64_t core_num;      /* Ascend C: block_num */
    uint32_t sub_block_idx; /* mix kernels: the AIV's index in its block */
    uint32_t sub_block_num;
    uint32_t is_aic;        /* 1 on a Cube core */
    uint32_t kind;          /* enum aclsim_kind of the launch */
    void *ub;               /* the core's Unified Buffer and its size */
    uint64_t ub_size;
    void *dyn_ubuf;         /* the block's dynamic UB (`extern __ubuf__ T x[]`) and its size */
    uint64_t dyn_ubuf_size;
    void *block;            /* runtime-private: the block (fibers, shared variables) */
} aclsim_thread;

extern __thread aclsim_thread *aclsim_self;

/* Where a translation unit keeps the built-in variables its kernel code reads (threadIdx... are thread-local
 * variables of the program, so host code may still name its own variables gridDim or blockDim): the runtime
 * writes them for the thread it runs. */
typedef struct aclsim_slots {
    aclsim_dim3 *thread_idx, *block_idx, *block_dim, *grid_dim;
    int64_t *core, *core_num, *sub_block_idx, *sub_block_num;
} aclsim_slots;

/* One launch, as kernel code describes it to the runtime. The runtime owns `args` after a successful
 * aclsimLaunchKernel (it calls destroy(args) when the work has run or was dropped). */
typedef struct aclsim_kernel {
    uint32_t abi;                        /* ACLSIM_KERNEL_ABI */
    uint32_t kind;                       /* enum aclsim_kind */
    uint32_t fibers;                     /* 1: the body synchronises threads (barriers, warp functions) */
    uint32_t npointers;                  /* entries of `pointers` */
    uint32_t max_threads;                /* __launch_bounds__ (0: not given) */
    uint32_t reserved;
    const char *name;                    /* the kernel as written (template arguments included) */
    const void *entry;                   /* the kernel function (its DWARF names where it is defined) */
    const char *key;                     /* names the kernel in the checked build of its source */
    void *args;                          /* the arguments (a copy) */
    void (*thread)(void *args);          /* the body for aclsim_self */
    void (*block)(void *args, aclsim_thread *t); /* every thread of t's block in turn (no barriers) */
    void (*destroy)(void *args);
    void (*slots)(aclsim_slots *out);    /* the built-in variables of the kernel's translation unit */
    aclsim_dim3 grid, block_dim;         /* SIMT shape; Ascend C: grid.x = blocks */
    uint64_t dyn_ubuf;                   /* dynamic UB (SIMT shared memory) bytes per block */
    void *stream;                        /* aclrtStream (NULL: the default stream) */
    const uint64_t *pointers;            /* values of the pointer arguments */
    const void *site;                    /* the launch's return address (its source line) */
} aclsim_kernel;

/* Queue a launch on its stream (the <<<...>>> rewrite calls this). ACL_SUCCESS or the launch's error code. */
int aclsimLaunchKernel(const aclsim_kernel *k);
/* The AI Cores of the launch run a SIMT function (asc_vf_call): every thread of `block_dim` on this core. */
void aclsim_vf_call(const aclsim_kernel *k);

/* Barriers and warp functions (fiber mode); `ra` is the call's return address (its source line). */
void aclsim_syncthreads(void *ra);
enum aclsim_warp_op {
    ACLSIM_W_BALLOT, ACLSIM_W_ALL, ACLSIM_W_ANY, ACLSIM_W_ACTIVEMASK, ACLSIM_W_SHFL, ACLSIM_W_SHFL_UP,
    ACLSIM_W_SHFL_DOWN, ACLSIM_W_SHFL_XOR, ACLSIM_W_REDUCE_ADD, ACLSIM_W_REDUCE_MAX, ACLSIM_W_REDUCE_MIN,
    ACLSIM_W_SYNC
};
enum aclsim_warp_type { ACLSIM_T_I32, ACLSIM_T_U32, ACLSIM_T_F32, ACLSIM_T_I64, ACLSIM_T_U64, ACLSIM_T_F64 };
uint64_t aclsim_warp(int op, int type, uint64_t value, int32_t arg, int32_t width, void *ra);

/* A block-shared (`__ubuf__ T x[N];`) variable: the same zeroed bytes for every thread of the block. */
void *aclsim_shared(const void *key, size_t size, size_t align, void *ra);

/* Stop the launch with a device fault (assert, trap, misuse): the stream reports 507015 with `what`. */
void aclsim_trap(const char *what, const char *file, int line) __attribute__((noreturn));

/* Ascend C cores: suspend the running core until ready(arg) holds (SyncAll, cross-core flags). Returns 1
 * when it holds, 0 when it never will (no core can run): the caller then faults with what it waited for. */
int aclsim_core_wait(int (*ready)(void *arg), void *arg);

/* The CPU twin (ICPU_RUN_KF): GmAlloc (op 0) / GmFree (op 1) of memory both the host and kernels use, and the
 * synchronize after a launch (its code); aclsim_recent_error is aclGetRecentErrMsg. */
void *aclsim_gm(int op, size_t size, void *ptr);
int aclsim_cpu_twin_sync(void);
const char *aclsim_recent_error(void);

/* A chip profile's figures (tiling/platform/platform_ascendc.h): `soc` NULL for the current device's chip. */
typedef struct aclsim_soc_info {
    char name[64];
    uint32_t arch, aic, aiv, separated;
    uint64_t ub, l1, l0a, l0b, l0c, l2, hbm, bt;
} aclsim_soc_info;
int aclsim_soc(const char *soc, aclsim_soc_info *out);

/* Checked builds: each translation unit aclsim cc built carries one and registers it at start-up; when it is
 * loaded (aclsim run --check) its kernels register their instrumented bodies under their keys. */
int aclsim_register_twin(const void *image, uint64_t size, const char *source);
int aclsim_register_kernel(const char *key, void (*thread)(void *), void (*block)(void *, aclsim_thread *),
                           void (*slots)(aclsim_slots *));

/* The --check build: an access of `size` bytes at `addr` (kind: 0 read, 1 write, 2 atomic). */
void aclsim_access(const volatile void *addr, size_t size, int kind, void *ra);

#ifdef __cplusplus
}
#endif
#endif

/* What Python (aclsim.capi.kernels) calls in libascendcl's kernel runtime (kernels.c). Plain declarations:
 * build.py gives this file to cffi's cdef as it is (with aclsim/kernel_abi.h's structs). */

typedef struct aclsim_fault {
    int32_t status;     /* 0 ran; 1 signal (memory fault...); 2 illegal access (--check); 3 trap (text) */
    int32_t signo;
    int32_t write;      /* 1 write, 0 read, 2 atomic, -1 unknown */
    uint32_t size;      /* bytes of the access when known */
    uint64_t addr;      /* the address */
    uint64_t pc;        /* the faulting instruction, or the return address of the checked access */
    uint64_t block;     /* linear block index (Ascend C: the core) */
    uint64_t thread;    /* linear thread index in the block */
    uint64_t pc2;       /* a second place (barrier divergence) */
    uint64_t thread2;
    char text[480];
} aclsim_fault;

typedef struct aclsim_rec {   /* a run of accesses by one place in the code (--check) */
    uint64_t ra;        /* return address of the access (its source line) */
    int64_t off;        /* byte offset in the allocation of the first access */
    int64_t stride;     /* bytes between consecutive accesses of the run */
    uint64_t lane;      /* global linear thread of the first access */
    int64_t lane_stride;
    uint32_t count;
    uint32_t alloc;     /* index into the allocation table */
    uint8_t kind;       /* 0 read, 1 write, 2 atomic */
    uint8_t size;
    uint8_t satisfied;  /* a read of bytes this launch wrote before */
    uint8_t pad[5];
} aclsim_rec;

typedef struct aclsim_check {
    uint64_t n;              /* allocations, sorted by start */
    const uint64_t *start;
    const uint64_t *size;    /* bytes requested */
    const uint64_t *end;     /* end of the reserved bytes */
    uint64_t lo, hi;         /* the device address window */
    aclsim_rec *log;         /* closed runs (kernels.c grows it) */
    uint64_t nlog, cap;
    void *priv;              /* kernels.c: open runs, written-byte maps */
} aclsim_check;

typedef struct aclsim_run_args {
    const aclsim_kernel *k;
    void (*thread)(void *args);
    void (*block)(void *args, aclsim_thread *t);
    void (*slots)(aclsim_slots *out);   /* NULL: the launch's own */
    uint64_t first, count;   /* SIMT: blocks first .. first + count - 1 (linear) */
    int64_t core;            /* >= 0: run the body of AI Core `core` (Ascend C) */
    uint64_t core_num;
    uint32_t sub_block_idx, sub_block_num, is_aic;
    uint64_t ub_size;        /* UB bytes per block or core */
    void *ub;                /* the core's UB (NULL: the runtime's own) */
    aclsim_check *check;     /* NULL: not recording */
} aclsim_run_args;

int aclsim_native_run(const aclsim_run_args *a, aclsim_fault *out);
aclsim_kernel *aclsim_kernel_copy(const aclsim_kernel *k);
void aclsim_kernel_free(aclsim_kernel *k);
void aclsim_check_flush(aclsim_check *c);
void aclsim_check_free(aclsim_check *c);

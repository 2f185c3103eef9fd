/* aclsim's libascendcl: the runtime of natively compiled kernels (compiled into the library by build.py).
 *
 * A launch runs here when its task runs (aclsim.native queues it like every other launch):
 * - SIMT blocks, one after another. The threads of a block run as a loop over the kernel body (the
 *   program's own code, `aclsim_kernel.block`) when the kernel never synchronises its threads, else each
 *   thread is a fiber with a stack of its own: a barrier or a warp function suspends the thread, and when
 *   no thread can run, the block's scheduler completes the barrier (every live thread waits at the same
 *   one) or the warp functions (the lanes of a warp waiting at the same call).
 * - AI Cores (Ascend C): one body per call (aclsim.native runs the cores as its gang scheduler decides);
 *   a core's asc_vf_call runs SIMT threads on that core, with the core's UB.
 * A kernel that faults (a signal in kernel code: an access outside device memory, a stack overflow, a
 * division by zero, abort) or traps (assert, misuse) stops: the signal handler jumps back to the run,
 * which returns the fault to Python, and the stream reports 507015 at its next synchronize.
 * Under --check the kernels run from their checked build (compiled with the AddressSanitizer pass calling
 * the __asan_* functions below): every access to device memory is checked against the allocations before
 * it happens and recorded, as runs of accesses per place in the code, for the sanitizer.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define ACLSIM_EXPORT __attribute__((visibility("default")))  /* what kernel code calls (the library hides the rest) */

ACLSIM_EXPORT __thread aclsim_thread *aclsim_self __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------------------------------------- fibers */
#define STACK_SIZE (256 * 1024)  /* per SIMT thread in fiber mode */
#define GUARD_SIZE 4096

enum { F_RUN, F_BARRIER, F_WARP, F_DONE };

typedef struct fiber {
    void *sp;
#if !defined(__x86_64__) && !defined(__aarch64__)
    ucontext_t uc;
#endif
    int state, op, type;
    void *ra;
    uint64_t value, result;
    int32_t arg, width;
    aclsim_thread t;
} fiber;

#if defined(__x86_64__)
void aclsim_ctx_switch(void **save, void *load);
void aclsim_fiber_tramp(void);
__asm__(
    ".text\n"
    ".globl aclsim_ctx_switch\n.hidden aclsim_ctx_switch\n.type aclsim_ctx_switch,@function\n"
    "aclsim_ctx_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n  ret\n"
    ".size aclsim_ctx_switch, .-aclsim_ctx_switch\n"
    ".globl aclsim_fiber_tramp\n.hidden aclsim_fiber_tramp\n.type aclsim_fiber_tramp,@function\n"
    "aclsim_fiber_tramp:\n  movq %rbx, %rdi\n  callq *%r12\n  ud2\n"
    ".size aclsim_fiber_tramp, .-aclsim_fiber_tramp\n");
#elif defined(__aarch64__)
void aclsim_ctx_switch(void **save, void *load);
void aclsim_fiber_tramp(void);
__asm__(
    ".text\n"
    ".globl aclsim_ctx_switch\n.hidden aclsim_ctx_switch\n.type aclsim_ctx_switch,%function\n"
    "aclsim_ctx_switch:\n"
    "  sub sp, sp, #176\n"
    "  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n  stp x23, x24, [sp, #32]\n"
    "  stp x25, x26, [sp, #48]\n  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
    "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n  stp d14, d15, [sp, #144]\n"
    "  mrs x9, fpcr\n  str x9, [sp, #160]\n"
    "  mov x9, sp\n  str x9, [x0]\n  mov sp, x1\n"
    "  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n  ldp x23, x24, [sp, #32]\n"
    "  ldp x25, x26, [sp, #48]\n  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
    "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n  ldp d14, d15, [sp, #144]\n"
    "  ldr x9, [sp, #160]\n  msr fpcr, x9\n"
    "  add sp, sp, #176\n  ret\n"
    ".size aclsim_ctx_switch, .-aclsim_ctx_switch\n"
    ".globl aclsim_fiber_tramp\n.hidden aclsim_fiber_tramp\n.type aclsim_fiber_tramp,%function\n"
    "aclsim_fiber_tramp:\n  mov x0, x19\n  blr x20\n  brk #0\n"
    ".size aclsim_fiber_tramp, .-aclsim_fiber_tramp\n");
#endif

/* Each OS thread keeps its fiber stacks (with a guard page below each) for the launches it runs. */
typedef struct pool { char *mem; size_t n; } pool;
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static __thread pool *tpool;

static void pool_free(void *p) {
    pool *q = p;
    if (q->mem) munmap(q->mem, q->n * (STACK_SIZE + GUARD_SIZE));
    free(q);
}
static void pool_key_init(void) { pthread_key_create(&pool_key, pool_free); }

static int pool_ensure(size_t n) {
    pthread_once(&pool_once, pool_key_init);
    if (!tpool) {
        tpool = calloc(1, sizeof(pool));
        if (!tpool) return -1;
        pthread_setspecific(pool_key, tpool);
    }
    if (tpool->n >= n) return 0;
    if (tpool->mem) munmap(tpool->mem, tpool->n * (STACK_SIZE + GUARD_SIZE));
    tpool->mem = NULL;
    tpool->n = 0;
    size_t bytes = n * (STACK_SIZE + GUARD_SIZE);
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return -1;
    for (size_t i = 0; i < n; i++) mprotect(m + i * (STACK_SIZE + GUARD_SIZE), GUARD_SIZE, PROT_NONE);
    tpool->mem = m;
    tpool->n = n;
    return 0;
}

static int in_guard(uintptr_t a) {
    pool *q = tpool;
    if (!q || !q->mem || a < (uintptr_t)q->mem || a >= (uintptr_t)q->mem + q->n * (STACK_SIZE + GUARD_SIZE)) return 0;
    return (a - (uintptr_t)q->mem) % (STACK_SIZE + GUARD_SIZE) < GUARD_SIZE;
}

/* ------------------------------------------------------------------------------------- runs and blocks */
typedef struct chk chk;
typedef struct run run;

typedef struct block {
    run *run;
    int fibers;
    uint32_t n;                 /* threads */
    fiber *f;
    fiber *cur;
    void *sched_sp;
#if !defined(__x86_64__) && !defined(__aarch64__)
    ucontext_t sched_uc;
#endif
    char *ub;                   /* the block's (core's) UB: static __ubuf__ variables from 0 up, dynamic at the top */
    uint64_t ub_size, used, dyn;
    struct { const void *key; void *ptr; } var[128];
    int nvar;
} block;

struct run {
    const aclsim_run_args *a;
    const aclsim_kernel *k;
    run *root;                  /* the outermost run on this OS thread (asc_vf_call nests) */
    run *outer;
    aclsim_fault *out;
    sigjmp_buf recover;
    volatile int active;
    uint64_t tpb;               /* threads per block (global thread ids) */
    chk *chk;
    aclsim_thread proto;        /* loop mode's thread; the template of each fiber's */
    aclsim_slots slots;         /* the kernel's built-in variables (threadIdx...) on this OS thread */
    block B;
    char *own_ub;
};

static __thread run *cur_run __attribute__((tls_model("initial-exec")));

/* The running thread's index in its block: a fiber knows it; in loop mode it is the program's threadIdx. */
static uint32_t linear_of(const aclsim_thread *t) {
    const block *B = t->block;
    if (B && !B->fibers && B->run && B->run->slots.thread_idx) {
        aclsim_dim3 i = *B->run->slots.thread_idx;
        return i.x + t->block_dim.x * (i.y + t->block_dim.y * i.z);
    }
    return t->linear;
}

static void where(aclsim_fault *o) {
    aclsim_thread *t = aclsim_self;
    if (t) {
        o->block = t->core;
        o->thread = linear_of(t);
    }
}

/* The kernel's built-in variables (blockIdx, blockDim, gridDim, block_idx...) for the block or core `t`. */
static void put_builtins(run *r, const aclsim_thread *t) {
    aclsim_slots *s = &r->slots;
    if (!s->thread_idx) return;
    *s->thread_idx = t->thread_idx;
    *s->block_idx = t->block_idx;
    *s->block_dim = t->block_dim;
    *s->grid_dim = t->grid_dim;
    *s->core = (int64_t)t->core;
    *s->core_num = (int64_t)t->core_num;
    *s->sub_block_idx = t->sub_block_idx;
    *s->sub_block_num = t->sub_block_num;
}

static void stop(run *r) __attribute__((noreturn));
static void stop(run *r) {
    run *root = r->root;
    root->active = 0;
    cur_run = root;
    siglongjmp(root->recover, 1);
}

ACLSIM_EXPORT void aclsim_trap(const char *what, const char *file, int line) {
    run *r = cur_run;
    if (!r || !r->root->active) {
        fprintf(stderr, "aclsim: %s (%s:%d) outside a running kernel\n", what ? what : "trap", file ? file : "?", line);
        abort();
    }
    aclsim_fault *o = r->root->out;
    o->status = 3;
    where(o);
    if (file && *file)
        snprintf(o->text, sizeof o->text, "%s at %s:%d", what ? what : "trap", file, line);
    else
        snprintf(o->text, sizeof o->text, "%s", what ? what : "trap");
    stop(r);
}

static void trap_here(run *r, void *ra, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
static void trap_here(run *r, void *ra, const char *fmt, ...) {
    aclsim_fault *o = r->root->out;
    o->status = 3;
    o->pc = (uint64_t)(uintptr_t)ra;
    where(o);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->text, sizeof o->text, fmt, ap);
    va_end(ap);
    stop(r);
}

/* ---------------------------------------------------------------------------------------------- signals */
static struct sigaction old_act[NSIG];
static const int caught[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};

/* A signal raised by kernel code stops the kernel; 1 when it was (the handler does not return then). */
int aclsim_kernel_signal(int sig, siginfo_t *si, void *ucv) {
    run *r = cur_run;
    if (!r || !r->root->active) return 0;
    aclsim_fault *o = r->root->out;
    o->status = 1;
    o->signo = sig;
    o->addr = (uint64_t)(uintptr_t)si->si_addr;
    o->write = -1;
    ucontext_t *uc = ucv;
#if defined(__x86_64__)
    o->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    if (sig == SIGSEGV) o->write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#elif defined(__aarch64__)
    o->pc = (uint64_t)uc->uc_mcontext.pc;
#else
    (void)uc;
#endif
    where(o);
    uintptr_t sp = 0;
#if defined(__x86_64__)
    sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    sp = (uintptr_t)uc->uc_mcontext.sp;
#endif
    int below = 0;  /* the stack pointer left the running fiber's stack */
    aclsim_thread *t = aclsim_self;
    block *B = t ? t->block : NULL;
    if (B && B->fibers && B->cur && tpool && sp) {
        uintptr_t low = (uintptr_t)tpool->mem + (uintptr_t)(B->cur - B->f) * (STACK_SIZE + GUARD_SIZE) + GUARD_SIZE;
        below = sp < low;
    }
    if ((sig == SIGSEGV || sig == SIGBUS) && (below || in_guard((uintptr_t)si->si_addr)))
        snprintf(o->text, sizeof o->text, "stack overflow: a SIMT thread used more than its %d KiB of stack "
                 "(large local arrays or deep recursion)", STACK_SIZE / 1024);
    stop(r);
}

static void on_signal(int sig, siginfo_t *si, void *ucv) {
    aclsim_kernel_signal(sig, si, ucv);
    struct sigaction *o = &old_act[sig];
    if (o->sa_flags & SA_SIGINFO) {
        if (o->sa_sigaction) o->sa_sigaction(sig, si, ucv);
        return;
    }
    if (o->sa_handler == SIG_IGN) return;
    if (o->sa_handler == SIG_DFL) {
        signal(sig, SIG_DFL);  /* the faulting instruction runs again and the default action ends the process */
        if (sig == SIGABRT || sig == SIGTRAP) raise(sig);
        return;
    }
    o->sa_handler(sig);
}

static void install_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) sigaction(caught[i], &sa, &old_act[caught[i]]);
}

static __thread int altstack_done;
static void ensure_altstack(void) {
    if (altstack_done) return;
    altstack_done = 1;
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return;
    size_t size = 64 * 1024;
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    stack_t ss = {.ss_sp = m, .ss_size = size, .ss_flags = 0};
    sigaltstack(&ss, NULL);
}

/* ----------------------------------------------------------------------------------------- fiber mode */
static void fiber_main(fiber *f);

static void fiber_start(block *B, fiber *f, size_t i) {
    char *top = tpool->mem + i * (STACK_SIZE + GUARD_SIZE) + GUARD_SIZE + STACK_SIZE;
#if defined(__x86_64__)
    uintptr_t *sp = (uintptr_t *)((uintptr_t)top & ~(uintptr_t)15);
    *--sp = (uintptr_t)aclsim_fiber_tramp;  /* ret */
    *--sp = 0;                              /* rbp */
    *--sp = (uintptr_t)f;                   /* rbx: the trampoline's argument */
    *--sp = (uintptr_t)fiber_main;          /* r12: the function it calls */
    *--sp = 0;
    *--sp = 0;
    *--sp = 0;                              /* r13 r14 r15 */
    *--sp = 0x0000037F00001F80ULL;          /* MXCSR, x87 control word: their defaults */
    f->sp = sp;
#elif defined(__aarch64__)
    uintptr_t *sp = (uintptr_t *)(((uintptr_t)top & ~(uintptr_t)15) - 176);
    memset(sp, 0, 176);
    sp[0] = (uintptr_t)f;                   /* x19 */
    sp[1] = (uintptr_t)fiber_main;          /* x20 */
    sp[11] = (uintptr_t)aclsim_fiber_tramp; /* x30 */
    f->sp = sp;
#else
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = top - STACK_SIZE;
    f->uc.uc_stack.ss_size = STACK_SIZE;
    f->uc.uc_link = NULL;
    makecontext(&f->uc, (void (*)(void))fiber_main, 1, f);
#endif
    (void)B;
}

static void to_fiber(block *B, fiber *f) {
    B->cur = f;
    aclsim_self = &f->t;
    if (B->run->slots.thread_idx) *B->run->slots.thread_idx = f->t.thread_idx;
#if defined(__x86_64__) || defined(__aarch64__)
    aclsim_ctx_switch(&B->sched_sp, f->sp);
#else
    swapcontext(&B->sched_uc, &f->uc);
#endif
}

static void to_scheduler(block *B, fiber *f) {
#if defined(__x86_64__) || defined(__aarch64__)
    aclsim_ctx_switch(&f->sp, B->sched_sp);
#else
    swapcontext(&f->uc, &B->sched_uc);
#endif
    aclsim_self = &f->t;
}

static void fiber_main(fiber *f) {
    block *B = f->t.block;
    run *r = B->run;
    r->k->thread(r->k->args);
    f->state = F_DONE;
    to_scheduler(B, f);
    __builtin_trap();  /* never resumed */
}

static void warp_resolve(block *B, uint32_t w);

static void barrier_release(run *r, block *B) {
    fiber *first = NULL;
    for (uint32_t i = 0; i < B->n; i++) {
        fiber *f = &B->f[i];
        if (f->state != F_BARRIER) continue;
        if (!first) {
            first = f;
        } else if (f->ra != first->ra) {
            aclsim_fault *o = r->root->out;
            o->pc2 = (uint64_t)(uintptr_t)f->ra;
            o->thread2 = f->t.linear;
            aclsim_self = &first->t;
            trap_here(r, first->ra, "barrier divergence: the threads of a block wait at different barriers "
                      "(thread %u at one, thread %u at another); every thread of a block must reach the same "
                      "asc_syncthreads", first->t.linear, f->t.linear);
        }
    }
    for (uint32_t i = 0; i < B->n; i++)
        if (B->f[i].state == F_BARRIER) B->f[i].state = F_RUN;
}

static void run_fibers(run *r, block *B) {
    uint32_t n = B->n;
    const aclsim_dim3 bd = r->proto.block_dim;
    for (uint32_t i = 0; i < n; i++) {
        fiber *f = &B->f[i];
        f->state = F_RUN;
        f->t = r->proto;
        f->t.thread_idx.x = i % bd.x;
        f->t.thread_idx.y = (i / bd.x) % bd.y;
        f->t.thread_idx.z = i / (bd.x * bd.y);
        f->t.linear = i;
        f->t.lane = i & 31;
        f->t.block = B;
        fiber_start(B, f, i);
    }
    for (;;) {
        for (uint32_t i = 0; i < n; i++)
            if (B->f[i].state == F_RUN) to_fiber(B, &B->f[i]);
        uint32_t done = 0, warp = 0, barrier = 0;
        for (uint32_t i = 0; i < n; i++) {
            int s = B->f[i].state;
            done += s == F_DONE;
            warp += s == F_WARP;
            barrier += s == F_BARRIER;
        }
        if (done == n) break;
        if (warp) {
            for (uint32_t w = 0; w < (n + 31) / 32; w++) warp_resolve(B, w);
        } else if (barrier) {
            barrier_release(r, B);
        }
    }
    aclsim_self = &r->proto;
}

ACLSIM_EXPORT void aclsim_syncthreads(void *ra) {
    aclsim_thread *t = aclsim_self;
    block *B = t ? t->block : NULL;
    if (!B) aclsim_trap("asc_syncthreads outside a running kernel", "", 0);
    if (!B->fibers) {
        if (B->n == 1) return;
        trap_here(B->run, ra, "the kernel synchronises its threads (asc_syncthreads), but aclsim cc found no "
                  "barrier in it (a call through a pointer, or a function defined in another file); build the "
                  "kernel's file with aclsim cc so that it runs its threads as fibers");
    }
    fiber *f = B->cur;
    f->state = F_BARRIER;
    f->ra = ra;
    to_scheduler(B, f);
}

/* ------------------------------------------------------------------------------------- warp functions */
typedef union { uint64_t u; int64_t i; double d; float f[2]; int32_t i32[2]; uint32_t u32[2]; } word;

static double as_num(int type, uint64_t v) {
    word w = {.u = v};
    switch (type) {
    case ACLSIM_T_I32: return w.i32[0];
    case ACLSIM_T_U32: return w.u32[0];
    case ACLSIM_T_F32: return w.f[0];
    case ACLSIM_T_I64: return (double)w.i;
    case ACLSIM_T_U64: return (double)w.u;
    default: return w.d;
    }
}

static uint64_t reduce2(int op, int type, uint64_t a, uint64_t b) {
    word x = {.u = a}, y = {.u = b}, z = {.u = 0};
    if (op == ACLSIM_W_REDUCE_ADD) {
        switch (type) {
        case ACLSIM_T_I32: case ACLSIM_T_U32: z.u32[0] = x.u32[0] + y.u32[0]; break;
        case ACLSIM_T_F32: z.f[0] = x.f[0] + y.f[0]; break;
        case ACLSIM_T_I64: case ACLSIM_T_U64: z.u = x.u + y.u; break;
        default: z.d = x.d + y.d;
        }
        return z.u;
    }
    int less;
    switch (type) {
    case ACLSIM_T_I32: less = x.i32[0] < y.i32[0]; break;
    case ACLSIM_T_U32: less = x.u32[0] < y.u32[0]; break;
    case ACLSIM_T_I64: less = x.i < y.i; break;
    case ACLSIM_T_U64: less = x.u < y.u; break;
    default: less = as_num(type, a) < as_num(type, b);
    }
    return (op == ACLSIM_W_REDUCE_MAX) == less ? b : a;
}

/* The lanes of warp w waiting at the same warp function call complete it together (one call per round: the
 * lanes it releases may reach the warp's other waiting calls before those complete). */
static void warp_resolve(block *B, uint32_t w) {
    uint32_t lo = w * 32, hi = lo + 32 < B->n ? lo + 32 : B->n;
    {
        /* Lanes waiting at different calls diverged: the call earliest in the code completes first (a branch's
         * calls come before the place the branches join again, a loop's before the code after it), so the
         * lanes still inside a branch or a loop reach the calls after it before those complete. */
        fiber *lead = NULL;
        for (uint32_t i = lo; i < hi; i++)
            if (B->f[i].state == F_WARP && (!lead || (uintptr_t)B->f[i].ra < (uintptr_t)lead->ra)) lead = &B->f[i];
        if (!lead) return;
        uint32_t mask = 0;
        uint64_t val[32];
        for (uint32_t i = lo; i < hi; i++) {
            fiber *f = &B->f[i];
            if (f->state == F_WARP && f->ra == lead->ra) {
                if (f->op != lead->op || f->type != lead->type)
                    trap_here(B->run, lead->ra, "lanes %u and %u of a warp call different warp functions at the "
                              "same place", lead->t.linear, f->t.linear);
                mask |= 1u << (i - lo);
                val[i - lo] = f->value;
            }
        }
        int op = lead->op, type = lead->type;
        uint32_t ballot = 0;
        for (uint32_t l = 0; l < 32; l++)
            if ((mask >> l & 1) && val[l]) ballot |= 1u << l;
        uint64_t red = 0;
        if (op >= ACLSIM_W_REDUCE_ADD && op <= ACLSIM_W_REDUCE_MIN) {
            uint64_t v[32];
            uint32_t first = __builtin_ctz(mask);
            for (uint32_t l = 0; l < 32; l++) v[l] = (mask >> l & 1) ? val[l] : (op == ACLSIM_W_REDUCE_ADD ? 0 : val[first]);
            for (uint32_t off = 16; off; off >>= 1)  /* a butterfly, as the hardware's tree: every lane the same sum */
                for (uint32_t l = 0; l < 32; l++)
                    if (l < (l ^ off)) v[l] = v[l ^ off] = reduce2(op, type, v[l], v[l ^ off]);
            red = v[0];
        }
        for (uint32_t i = lo; i < hi; i++) {
            fiber *f = &B->f[i];
            uint32_t l = i - lo;
            if (!(mask >> l & 1)) continue;
            int32_t width = f->width > 0 && f->width <= 32 ? f->width : 32;
            uint32_t seg = l / width * width;
            int64_t src = l;
            switch (op) {
            case ACLSIM_W_BALLOT: f->result = ballot; break;
            case ACLSIM_W_ALL: f->result = ballot == mask; break;
            case ACLSIM_W_ANY: f->result = ballot != 0; break;
            case ACLSIM_W_ACTIVEMASK: f->result = mask; break;
            case ACLSIM_W_SYNC: f->result = 0; break;
            case ACLSIM_W_SHFL: src = seg + ((uint32_t)f->arg % width); break;
            case ACLSIM_W_SHFL_UP: src = (int64_t)l - (uint32_t)f->arg < (int64_t)seg ? l : (int64_t)l - (uint32_t)f->arg; break;
            case ACLSIM_W_SHFL_DOWN: src = l + (uint32_t)f->arg >= seg + width ? l : l + (uint32_t)f->arg; break;
            case ACLSIM_W_SHFL_XOR: src = (l ^ (uint32_t)f->arg) > seg + width - 1 ? l : (l ^ (uint32_t)f->arg); break;
            default: f->result = red;
            }
            if (op >= ACLSIM_W_SHFL && op <= ACLSIM_W_SHFL_XOR)  /* an inactive source lane: the caller's own value */
                f->result = src >= 0 && src < 32 && (mask >> src & 1) ? val[src] : f->value;
        }
        for (uint32_t i = lo; i < hi; i++)
            if (mask >> (i - lo) & 1) B->f[i].state = F_RUN;
    }
}

ACLSIM_EXPORT uint64_t aclsim_warp(int op, int type, uint64_t value, int32_t arg, int32_t width, void *ra) {
    aclsim_thread *t = aclsim_self;
    block *B = t ? t->block : NULL;
    if (!B) aclsim_trap("a warp function outside a running kernel", "", 0);
    if (!B->fibers) {
        if (B->n == 1) {
            fiber solo = {.state = F_WARP, .op = op, .type = type, .value = value, .arg = arg, .width = width, .ra = ra};
            block one = *B;
            one.f = &solo;
            one.n = 1;
            warp_resolve(&one, 0);
            return solo.result;
        }
        trap_here(B->run, ra, "the kernel calls a warp function, but aclsim cc found none in it (a call through a "
                  "pointer, or a function defined in another file); build the kernel's file with aclsim cc so "
                  "that it runs its threads as fibers");
    }
    fiber *f = B->cur;
    f->state = F_WARP;
    f->op = op;
    f->type = type;
    f->value = value;
    f->arg = arg;
    f->width = width;
    f->ra = ra;
    to_scheduler(B, f);
    return f->result;
}

/* ------------------------------------------------------------------------------------- block-shared UB */
ACLSIM_EXPORT void *aclsim_shared(const void *key, size_t size, size_t align, void *ra) {
    aclsim_thread *t = aclsim_self;
    block *B = t ? t->block : NULL;
    if (!B) aclsim_trap("a __ubuf__ variable outside a running kernel", "", 0);
    for (int i = 0; i < B->nvar; i++)
        if (B->var[i].key == key) return B->var[i].ptr;
    if (align < 32) align = 32;
    uint64_t off = (B->used + align - 1) / align * align;
    uint64_t room = B->ub_size - B->dyn;
    if (off + size > room || B->nvar == (int)(sizeof B->var / sizeof B->var[0]))
        trap_here(B->run, ra, "the block's __ubuf__ variables need %llu bytes (and %llu of dynamic UB), more than the "
                  "%llu bytes of the core's Unified Buffer", (unsigned long long)(off + size),
                  (unsigned long long)B->dyn, (unsigned long long)B->ub_size);
    void *p = B->ub + off;
    memset(p, 0, size);
    B->var[B->nvar].key = key;
    B->var[B->nvar].ptr = p;
    B->nvar++;
    B->used = off + size;
    return p;
}

/* ------------------------------------------------------------------------------------- --check records */
#define OPEN 512

struct chk {
    aclsim_check *c;
    aclsim_rec open[OPEN];
    uint8_t **bits;             /* per allocation: bytes this launch wrote (1 bit each), made on first write */
    uint64_t last;
};

static void push(aclsim_check *c, const aclsim_rec *r) {
    if (c->nlog == c->cap) {
        uint64_t cap = c->cap ? c->cap * 2 : 4096;
        aclsim_rec *log = realloc(c->log, cap * sizeof *log);
        if (!log) return;  /* out of memory: the record is lost, the check goes on */
        c->log = log;
        c->cap = cap;
    }
    c->log[c->nlog++] = *r;
}

void aclsim_check_flush(aclsim_check *c) {
    chk *k = c->priv;
    if (!k) return;
    for (int i = 0; i < OPEN; i++)
        if (k->open[i].count) {
            push(c, &k->open[i]);
            k->open[i].count = 0;
        }
}

void aclsim_check_free(aclsim_check *c) {
    chk *k = c->priv;
    if (k) {
        if (k->bits) {
            for (uint64_t j = 0; j < c->n; j++) free(k->bits[j]);
            free(k->bits);
        }
        free(k);
    }
    free(c->log);
    c->priv = NULL;
    c->log = NULL;
    c->nlog = c->cap = 0;
}

static void illegal(run *r, uintptr_t a, size_t n, int kind, void *ra) __attribute__((noreturn));
static void illegal(run *r, uintptr_t a, size_t n, int kind, void *ra) {
    aclsim_fault *o = r->root->out;
    o->status = 2;
    o->addr = a;
    o->size = (uint32_t)n;
    o->write = kind;
    o->pc = (uint64_t)(uintptr_t)ra;
    where(o);
    stop(r);
}

static void record(chk *k, uint64_t ra, uint32_t j, int kind, int n, int sat, int64_t off, uint64_t lane) {
    size_t h = ((ra >> 2) ^ (ra >> 11) ^ ((uint64_t)kind << 7) ^ j) & (OPEN - 1);
    aclsim_rec *o = &k->open[h];
    if (o->count) {
        if (o->ra == ra && o->alloc == j && o->kind == kind && o->size == n && o->satisfied == sat && o->count < (1u << 31)) {
            if (o->count == 1) {
                o->stride = off - o->off;
                o->lane_stride = (int64_t)(lane - o->lane);
                o->count = 2;
                return;
            }
            if (off == o->off + (int64_t)o->count * o->stride && lane == o->lane + o->count * o->lane_stride) {
                o->count++;
                return;
            }
        }
        push(k->c, o);
    }
    o->ra = ra;
    o->off = off;
    o->stride = 0;
    o->lane = lane;
    o->lane_stride = 0;
    o->count = 1;
    o->alloc = j;
    o->kind = (uint8_t)kind;
    o->size = (uint8_t)n;
    o->satisfied = (uint8_t)sat;
}

ACLSIM_EXPORT void aclsim_access(const volatile void *p, size_t n, int kind, void *ra) {
    run *r = cur_run;
    if (!r) return;
    run *root = r->root;
    chk *k = root->chk;
    if (!k || !root->active) return;
    aclsim_check *c = k->c;
    uintptr_t a = (uintptr_t)p;
    if (a - c->lo >= c->hi - c->lo) {
        if (a < 65536) illegal(r, a, n, kind, ra);  /* NULL (or near it) */
        return;  /* the thread's stack, UB, host memory: not device memory */
    }
    uint64_t j = k->last;
    if (!(j < c->n && c->start[j] <= a && a < c->end[j])) {
        uint64_t lo = 0, hi = c->n;  /* the last allocation starting at or before a */
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (c->start[mid] <= a) lo = mid + 1; else hi = mid;
        }
        if (lo == 0 || a >= c->end[lo - 1]) illegal(r, a, n, kind, ra);
        j = k->last = lo - 1;
    }
    if (a + n > c->end[j]) illegal(r, a, n, kind, ra);
    if ((n == 2 || n == 4 || n == 8) && (a & (n - 1))) illegal(r, a, n, kind, ra);
    uint64_t off = a - c->start[j];
    int sat = 0;
    uint8_t *bits = k->bits[j];
    if (kind == 0) {
        sat = bits != NULL;
        for (uint64_t b = off; sat && b < off + n; b++) sat = bits[b >> 3] >> (b & 7) & 1;
    } else {
        if (!bits) bits = k->bits[j] = calloc((c->end[j] - c->start[j] + 7) / 8, 1);
        if (bits)
            for (uint64_t b = off; b < off + n; b++) bits[b >> 3] |= (uint8_t)(1u << (b & 7));
    }
    aclsim_thread *t = aclsim_self;
    uint64_t lane = t ? t->core * root->tpb + linear_of(t) : 0;
    record(k, (uint64_t)(uintptr_t)ra, (uint32_t)j, kind, (int)n, sat, (int64_t)off, lane);
}

/* The AddressSanitizer pass in callback mode (-fsanitize=kernel-address, call threshold 0) calls these. */
#define ACLSIM_ASAN(n)                                                                                      \
    ACLSIM_EXPORT void __asan_load##n##_noabort(uintptr_t a) { aclsim_access((void *)a, n, 0, __builtin_return_address(0)); } \
    ACLSIM_EXPORT void __asan_store##n##_noabort(uintptr_t a) { aclsim_access((void *)a, n, 1, __builtin_return_address(0)); }
ACLSIM_ASAN(1)
ACLSIM_ASAN(2)
ACLSIM_ASAN(4)
ACLSIM_ASAN(8)
ACLSIM_ASAN(16)
ACLSIM_EXPORT void __asan_loadN_noabort(uintptr_t a, size_t n) { aclsim_access((void *)a, n, 0, __builtin_return_address(0)); }
ACLSIM_EXPORT void __asan_storeN_noabort(uintptr_t a, size_t n) { aclsim_access((void *)a, n, 1, __builtin_return_address(0)); }
ACLSIM_EXPORT void __asan_handle_no_return(void) {}
ACLSIM_EXPORT void __asan_before_dynamic_init(const char *module) { (void)module; }
ACLSIM_EXPORT void __asan_after_dynamic_init(void) {}

/* ------------------------------------------------------------------------------------------------ runs */
static void setup_block(run *r, block *B, uint64_t lin) {
    const aclsim_kernel *k = r->k;
    aclsim_thread *p = &r->proto;
    p->block_idx.x = (uint32_t)(lin % k->grid.x);
    p->block_idx.y = (uint32_t)(lin / k->grid.x % k->grid.y);
    p->block_idx.z = (uint32_t)(lin / ((uint64_t)k->grid.x * k->grid.y));
    p->core = lin;
    p->thread_idx.x = p->thread_idx.y = p->thread_idx.z = 0;
    p->linear = p->lane = 0;
    B->used = 0;
    B->nvar = 0;
    if (B->dyn) memset(B->ub + B->ub_size - B->dyn, 0, B->dyn);
    put_builtins(r, p);
}

static void run_threads(run *r, block *B) {
    if (B->fibers) {
        run_fibers(r, B);
    } else {
        aclsim_self = &r->proto;
        r->k->block(r->k->args, &r->proto);
    }
}

static int init_run(run *r, const aclsim_kernel *k, uint64_t ub_size, void *ub, uint64_t dyn, aclsim_fault *out) {
    block *B = &r->B;
    r->k = k;
    B->run = r;
    const aclsim_dim3 bd = k->block_dim;
    B->n = bd.x * bd.y * bd.z;
    r->tpb = B->n;
    B->fibers = k->fibers && B->n > 1;
    if (!ub) {
        r->own_ub = ub = malloc(ub_size ? ub_size : 1);
        if (!ub) {
            snprintf(out->text, sizeof out->text, "out of memory for the core's %llu-byte UB", (unsigned long long)ub_size);
            out->status = 3;
            return -1;
        }
    }
    B->ub = ub;
    B->ub_size = ub_size;
    if (dyn > ub_size) {
        snprintf(out->text, sizeof out->text, "the launch asks for %llu bytes of dynamic UB; the core has %llu",
                 (unsigned long long)dyn, (unsigned long long)ub_size);
        out->status = 3;
        return -1;
    }
    B->dyn = dyn;
    if (B->fibers) {
        if (pool_ensure(B->n) || !(B->f = calloc(B->n, sizeof(fiber)))) {
            snprintf(out->text, sizeof out->text, "out of memory for %u fiber stacks", B->n);
            out->status = 3;
            return -1;
        }
    }
    aclsim_thread *p = &r->proto;
    memset(p, 0, sizeof *p);
    p->block_dim = bd;
    p->grid_dim = k->grid;
    p->kind = k->kind;
    p->ub = B->ub;
    p->ub_size = ub_size;
    p->dyn_ubuf = B->ub + ub_size - dyn;
    p->dyn_ubuf_size = dyn;
    p->core_num = (uint64_t)k->grid.x * k->grid.y * k->grid.z;
    p->sub_block_num = 1;
    p->block = B;
    if (k->slots) k->slots(&r->slots);
    return 0;
}

static void end_run(run *r) {
    free(r->B.f);
    free(r->own_ub);
    r->B.f = NULL;
    r->own_ub = NULL;
}

int aclsim_native_run(const aclsim_run_args *a, aclsim_fault *out) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_handlers);
    ensure_altstack();
    memset(out, 0, sizeof *out);
    aclsim_kernel k = *a->k;
    k.thread = a->thread;
    k.block = a->block;
    if (a->slots) k.slots = a->slots;
    run *r = calloc(1, sizeof(run));
    if (!r) return -1;
    r->a = a;
    r->root = r;
    r->outer = cur_run;
    r->out = out;
    aclsim_thread *saved_self = aclsim_self;
    run *saved_run = cur_run;
    chk *ck = NULL;
    if (a->check) {
        ck = a->check->priv;
        if (!ck) {
            ck = a->check->priv = calloc(1, sizeof(chk));
            if (ck) {
                ck->c = a->check;
                ck->bits = calloc(a->check->n ? a->check->n : 1, sizeof(uint8_t *));
                ck->last = (uint64_t)-1;
            }
        }
        r->chk = ck && ck->bits ? ck : NULL;
    }
    uint64_t dyn = a->k->dyn_ubuf;
    if (a->core >= 0) {  /* one AI Core: the body once, as thread 0 of block `core` */
        k.block_dim.x = k.block_dim.y = k.block_dim.z = 1;
        k.fibers = 0;
    }
    if (init_run(r, &k, a->ub_size, a->ub, dyn, out) == 0) {
        cur_run = r;
        if (sigsetjmp(r->recover, 1) == 0) {
            r->active = 1;
            if (a->core >= 0) {
                aclsim_thread *p = &r->proto;
                setup_block(r, &r->B, (uint64_t)a->core);
                p->block_idx.x = (uint32_t)a->core;
                p->block_idx.y = p->block_idx.z = 0;
                p->grid_dim.x = (uint32_t)a->core_num;
                p->grid_dim.y = p->grid_dim.z = 1;
                p->core_num = a->core_num;
                p->sub_block_idx = a->sub_block_idx;
                p->sub_block_num = a->sub_block_num;
                p->is_aic = a->is_aic;
                put_builtins(r, p);
                aclsim_self = p;
                k.thread(k.args);
            } else {
                for (uint64_t b = a->first; b < a->first + a->count; b++) {
                    setup_block(r, &r->B, b);
                    run_threads(r, &r->B);
                }
            }
            r->active = 0;
        }
    }
    aclsim_self = saved_self;
    cur_run = saved_run;
    end_run(r);
    free(r);
    return out->status;
}

/* Told of every asc_vf_call before its threads run (ascendc/abi.c sets it: the Ascend C engine takes the call's
 * UB accesses). */
void (*aclsim_vf_hook)(const void *ra);

/* asc_vf_call: the running AI Core runs SIMT threads (the VF's block) with its own UB. */
ACLSIM_EXPORT void aclsim_vf_call(const aclsim_kernel *k) {
    run *outer = cur_run;
    aclsim_thread *core = aclsim_self;
    if (!outer || !core || !outer->root->active) aclsim_trap("asc_vf_call outside a running kernel", "", 0);
    if (aclsim_vf_hook) aclsim_vf_hook(k->site);
    block *CB = core->block;
    run *r = calloc(1, sizeof(run));
    if (!r) aclsim_trap("out of memory for a SIMT call", "", 0);
    r->root = outer->root;
    r->outer = outer;
    r->out = outer->root->out;
    r->chk = NULL;
    aclsim_fault scratch;
    memset(&scratch, 0, sizeof scratch);
    if (init_run(r, k, CB->ub_size, CB->ub, CB->dyn, &scratch) != 0) {
        free(r);
        aclsim_trap(scratch.text, "", 0);
    }
    r->tpb = r->B.n;
    r->B.used = CB->used;
    r->B.nvar = 0;
    aclsim_thread *p = &r->proto;
    p->block_idx = core->block_idx;
    p->grid_dim = core->grid_dim;
    p->core = core->core;
    p->core_num = core->core_num;
    p->sub_block_idx = core->sub_block_idx;
    p->sub_block_num = core->sub_block_num;
    p->is_aic = core->is_aic;
    p->dyn_ubuf = core->dyn_ubuf;
    p->dyn_ubuf_size = core->dyn_ubuf_size;
    put_builtins(r, p);
    cur_run = r;
    run_threads(r, &r->B);
    cur_run = outer;
    aclsim_self = core;
    put_builtins(r, core);
    end_run(r);
    free(r);
}

/* --------------------------------------------------------------------------------------------- launches */
aclsim_kernel *aclsim_kernel_copy(const aclsim_kernel *k) {
    aclsim_kernel *c = malloc(sizeof *c);
    if (!c) return NULL;
    *c = *k;
    uint64_t *p = NULL;
    if (k->npointers) {
        p = malloc(k->npointers * sizeof *p);
        if (!p) {
            free(c);
            return NULL;
        }
        memcpy(p, k->pointers, k->npointers * sizeof *p);
    }
    c->pointers = p;
    return c;
}

void aclsim_kernel_free(aclsim_kernel *k) {
    if (!k) return;
    if (k->destroy) k->destroy(k->args);
    free((void *)k->pointers);
    free(k);
}

static int aclsim_py__launch(void *ra, aclsim_kernel *k);
static int aclsim_py__soc(const char *soc, aclsim_soc_info *out);
static uint64_t aclsim_py__gm(int op, size_t size, void *ptr);

ACLSIM_EXPORT void *aclsim_gm(int op, size_t size, void *ptr) {
    ACLSIM_BOOT();
    return (void *)(uintptr_t)aclsim_py__gm(op, size, ptr);
}

ACLSIM_EXPORT int aclsim_cpu_twin_sync(void) { return aclrtSynchronizeStream(NULL); }

ACLSIM_EXPORT const char *aclsim_recent_error(void) {
    const char *m = aclGetRecentErrMsg();
    return m ? m : "";
}

ACLSIM_EXPORT int aclsim_soc(const char *soc, aclsim_soc_info *out) {
    ACLSIM_BOOT();
    return aclsim_py__soc(soc, out);
}
static int aclsim_py__core_wait(void *ready, void *arg);

ACLSIM_EXPORT int aclsimLaunchKernel(const aclsim_kernel *k) {
    ACLSIM_BOOT();
    if (!k || k->abi != ACLSIM_KERNEL_ABI) {
        fprintf(stderr, "aclsim: a kernel launch from code built for another aclsim version; rebuild it with aclsim cc\n");
        return 100000; /* ACL_ERROR_INVALID_PARAM */
    }
    aclsim_kernel *c = aclsim_kernel_copy(k);
    if (!c) {
        if (k->destroy) k->destroy(k->args);
        return 207001; /* ACL_ERROR_RT_MEMORY_ALLOCATION */
    }
    int rc = aclsim_py__launch(k->site ? (void *)k->site : __builtin_return_address(0), c);
    if (rc != 0) aclsim_kernel_free(c);
    return rc;
}

ACLSIM_EXPORT int aclsim_core_wait(int (*ready)(void *arg), void *arg) {
    if (ready(arg)) return 1;
    return aclsim_py__core_wait((void *)ready, arg);
}

/* ------------------------------------------------------------------------------- checked builds (twins) */
typedef struct twin { const void *image; uint64_t size; const char *source; void *handle; } twin;
static twin *twins;
static size_t ntwins;
typedef struct twin_kernel {
    const char *key;
    void (*thread)(void *);
    void (*block)(void *, aclsim_thread *);
    void (*slots)(aclsim_slots *);
} twin_kernel;
static twin_kernel *tkernels;
static size_t ntk;
static pthread_mutex_t twin_lock = PTHREAD_MUTEX_INITIALIZER;

/* A translation unit built by aclsim cc carries its checked build (a shared object) and registers it here. */
ACLSIM_EXPORT int aclsim_register_twin(const void *image, uint64_t size, const char *source) {
    pthread_mutex_lock(&twin_lock);
    twin *t = realloc(twins, (ntwins + 1) * sizeof *t);
    if (t) {
        twins = t;
        twins[ntwins++] = (twin){image, size, source, NULL};
    }
    pthread_mutex_unlock(&twin_lock);
    return 1;
}

/* The checked build's kernels register their bodies here when it is loaded. */
ACLSIM_EXPORT int aclsim_register_kernel(const char *key, void (*thread)(void *), void (*block)(void *, aclsim_thread *),
                                         void (*slots)(aclsim_slots *)) {
    pthread_mutex_lock(&twin_lock);
    twin_kernel *t = realloc(tkernels, (ntk + 1) * sizeof *t);
    if (t) {
        tkernels = t;
        tkernels[ntk++] = (twin_kernel){key, thread, block, slots};
    }
    pthread_mutex_unlock(&twin_lock);
    return 1;
}

/* Load every registered checked build: each is written once into `dir` under the hash of its bytes (so
 * reports can read its debug lines there) and opened; the number loaded; errors go to `err`. */
int aclsim_twins_load(const char *dir, char *err, size_t errlen) {
    int loaded = 0;
    err[0] = 0;
    pthread_mutex_lock(&twin_lock);
    size_t n = ntwins;
    pthread_mutex_unlock(&twin_lock);
    for (size_t i = 0; i < n; i++) {
        twin *t = &twins[i];
        if (t->handle) continue;
        uint64_t h = 1469598103934665603ULL;  /* FNV-1a */
        for (uint64_t j = 0; j < t->size; j++) h = (h ^ ((const unsigned char *)t->image)[j]) * 1099511628211ULL;
        char path[4096], tmp[4160];
        snprintf(path, sizeof path, "%s/%016llx.so", dir, (unsigned long long)h);
        if (access(path, R_OK) != 0) {
            snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
            FILE *f = fopen(tmp, "wb");
            if (!f || fwrite(t->image, 1, t->size, f) != t->size) {
                if (f) fclose(f);
                snprintf(err, errlen, "cannot write the checked build of %s to %s", t->source, dir);
                continue;
            }
            fclose(f);
            rename(tmp, path);
        }
        t->handle = dlopen(path, RTLD_LAZY | RTLD_GLOBAL);
        if (!t->handle) {
            snprintf(err, errlen, "the checked build of %s does not load: %s", t->source, dlerror());
            continue;
        }
        loaded++;
    }
    return loaded;
}

int aclsim_twin_lookup(const char *key, void **thread, void **block, void **slots) {
    int found = 0;
    pthread_mutex_lock(&twin_lock);
    for (size_t i = 0; i < ntk && !found; i++) {
        if (strcmp(tkernels[i].key, key) == 0) {
            *thread = (void *)tkernels[i].thread;
            *block = (void *)tkernels[i].block;
            *slots = (void *)tkernels[i].slots;
            found = 1;
        }
    }
    pthread_mutex_unlock(&twin_lock);
    return found;
}

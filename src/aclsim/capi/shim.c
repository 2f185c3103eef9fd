/* aclsim's libascendcl: the parts written in C (compiled into the library by aclsim/capi/build.py). */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* aclAppLog is variadic: format here, log in Python. */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    if (fmt == NULL) msg[0] = 0; else vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ACLSIM_BOOT();
    aclsim_py__app_log(__builtin_return_address(0), (int)logLevel, func, file, line, msg);
}

/* At exit, the sanitizer and the timeline write their reports (C programs never finalize Python). */
static void aclsim_exit_hook(void) { aclsim_py__at_exit(); }

static int aclsim_exit_registered = 0;
void aclsim_c_register_exit(void) {
    if (!aclsim_exit_registered) {
        aclsim_exit_registered = 1;
        atexit(aclsim_exit_hook);
    }
}

/* Host code that dereferences a device pointer faults (the device range has no access rights): the
 * handler names the allocation and the line, then the process ends as the fault would end it. */
static uintptr_t aclsim_lo, aclsim_hi;
static struct sigaction aclsim_old_segv, aclsim_old_bus;
static volatile sig_atomic_t aclsim_in_fault = 0;

int aclsim_kernel_signal(int sig, siginfo_t *si, void *ucv);  /* kernels.c: a fault of kernel code */

static void aclsim_on_fault(int sig, siginfo_t *si, void *ucv) {
    aclsim_kernel_signal(sig, si, ucv);  /* kernel code that faults stops its kernel (it does not return then) */
    uintptr_t addr = (uintptr_t)si->si_addr;
    if (!aclsim_in_fault && addr >= aclsim_lo && addr < aclsim_hi) {
        aclsim_in_fault = 1;
        uintptr_t pc = 0;
        int write = -1;
        ucontext_t *uc = (ucontext_t *)ucv;
#if defined(__x86_64__)
        pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
        write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#elif defined(__aarch64__)
        pc = (uintptr_t)uc->uc_mcontext.pc;
#else
        (void)uc;
#endif
        void *frames[64];
        int n = backtrace(frames, 64);
        int status = aclsim_py__host_fault(addr, pc, write, frames, n);
        if (status >= 0) _exit(status);
    }
    /* not ours, or reported: the previous action (default: die with the signal) */
    sigaction(SIGSEGV, &aclsim_old_segv, NULL);
    sigaction(SIGBUS, &aclsim_old_bus, NULL);
    (void)sig;
}

void aclsim_c_install_fault_handler(uintptr_t lo, uintptr_t hi) {
    struct sigaction sa;
    aclsim_lo = lo;
    aclsim_hi = hi;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = aclsim_on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &aclsim_old_segv);
    sigaction(SIGBUS, &sa, &aclsim_old_bus);
}

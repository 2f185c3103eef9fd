/* aclsim's libascendcl: the entry points of Ascend C code in C++ (ascendc/abi.h), compiled into the library by
 * build.py after kernels.c.
 *
 * Each entry hands its words to the embedded Python (aclsim.capi.ascendc), which runs the instruction on the
 * running AI Core. When the instruction faults, Python keeps the fault and says so (aclsim_asc_fail): the entry
 * then stops the core (aclsim_trap jumps back to where the core started) and the launch reports the fault. */
#include "ascendc/abi.h"

static int64_t aclsim_py__asc(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f,
                              void *ra);
static int64_t aclsim_py__asc_scalar(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                                     double s, void *ra);
static double aclsim_py__asc_real(uint32_t op, uint64_t a, uint64_t b, void *ra);

static __thread int aclsim_asc_failed;

/* Python: the call raised (its exception is kept for the launch); the core must stop. */
void aclsim_asc_fail(void) { aclsim_asc_failed = 1; }

static void aclsim_asc_stop(void) {
    aclsim_asc_failed = 0;
    aclsim_trap("an Ascend C call faulted", "", 0);
}

ACLSIM_EXPORT int64_t aclsim_asc(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f,
                                 const void *ra) {
    ACLSIM_BOOT();
    int64_t r = aclsim_py__asc(op, a, b, c, d, e, f, (void *)ra);
    if (__builtin_expect(aclsim_asc_failed, 0)) aclsim_asc_stop();
    return r;
}

ACLSIM_EXPORT int64_t aclsim_asc_scalar(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                                        double s, const void *ra) {
    ACLSIM_BOOT();
    int64_t r = aclsim_py__asc_scalar(op, a, b, c, d, e, s, (void *)ra);
    if (__builtin_expect(aclsim_asc_failed, 0)) aclsim_asc_stop();
    return r;
}

ACLSIM_EXPORT double aclsim_asc_real(uint32_t op, uint64_t a, uint64_t b, const void *ra) {
    ACLSIM_BOOT();
    double r = aclsim_py__asc_real(op, a, b, (void *)ra);
    if (__builtin_expect(aclsim_asc_failed, 0)) aclsim_asc_stop();
    return r;
}

/* kernels.c's asc_vf_call: the engine's VfCall stands for the UB accesses of the code it runs (vector/vf.py). */
static void aclsim_asc_vf(const void *ra) { aclsim_asc(ASC_VfCall, 0, 0, 0, 0, 0, 0, ra); }

__attribute__((constructor)) static void aclsim_asc_hooks(void) { aclsim_vf_hook = aclsim_asc_vf; }

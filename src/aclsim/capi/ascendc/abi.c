/* aclsim's libascendcl: the entry points of Ascend C code in C++ (ascendc/abi.h), compiled into the library by
 * build.py after kernels.c.
 *
 * Each entry hands its words to the embedded Python (aclsim.capi.ascendc), which runs the instruction on the
 * running AI Core. When the instruction faults, Python keeps the fault (`failed`): the entry then stops the core
 * (aclsim_trap jumps back to where the core started) and the launch reports the fault. */
#include "ascendc/abi.h"

/* The Python side, called directly through CPython's API: an Ascend C call is a few microseconds of Python, and
 * cffi's generic callback (argument conversion, a cdata for the return address) cost a fifth of an Ascend C add
 * kernel's time (benchmarks/bench_c_ascendc.py: 5.8 -> 4.7 ms). Set once
 * from aclsim.capi.ascendc: ENTRIES (the handler of each operation code), the module holding the running core
 * (aclsim.asc.faults: `_running`), FOREIGN_CALLER (its `ra`: where the program called) and `failed` (keeps a
 * call's exception for the launch). */
static PyObject *aclsim_asc_entries, *aclsim_asc_faults, *aclsim_asc_foreign, *aclsim_asc_failed_fn;
static PyObject *aclsim_asc_s_running, *aclsim_asc_s_ra;
static __thread int aclsim_asc_failed;

static void aclsim_asc_stop(void) {
    aclsim_asc_failed = 0;
    aclsim_trap("an Ascend C call faulted", "", 0);
}

static int aclsim_asc_setup(void) {
    PyObject *m = PyImport_ImportModule("aclsim.capi.ascendc");
    if (!m) return -1;
    PyObject *entries = PyObject_GetAttrString(m, "ENTRIES"), *faults = PyObject_GetAttrString(m, "faults");
    PyObject *foreign = PyObject_GetAttrString(m, "FOREIGN_CALLER"), *failed = PyObject_GetAttrString(m, "failed");
    Py_DECREF(m);
    if (!entries || !faults || !foreign || !failed || !PyTuple_Check(entries)) {
        Py_XDECREF(entries); Py_XDECREF(faults); Py_XDECREF(foreign); Py_XDECREF(failed);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "aclsim.capi.ascendc.ENTRIES is not a tuple");
        return -1;
    }
    aclsim_asc_s_running = PyUnicode_InternFromString("_running");
    aclsim_asc_s_ra = PyUnicode_InternFromString("ra");
    aclsim_asc_faults = PyModule_GetDict(faults);  /* borrowed from the module, which stays imported */
    Py_INCREF(aclsim_asc_faults);
    Py_DECREF(faults);
    aclsim_asc_foreign = foreign;
    aclsim_asc_failed_fn = failed;
    aclsim_asc_entries = entries;  /* last: the others are ready when this is set */
    return 0;
}

/* Call the handler of `op` with (core, words...); NULL with the exception kept and the core told to stop. */
static PyObject *aclsim_asc_call(uint32_t op, PyObject **args, size_t n, const void *ra) {
    PyObject *res = NULL;
    if (!aclsim_asc_entries && aclsim_asc_setup() < 0) goto fail;
    PyObject *core = PyDict_GetItemWithError(aclsim_asc_faults, aclsim_asc_s_running);
    if (!core && PyErr_Occurred()) goto fail;
    args[0] = core ? core : Py_None;
    PyObject *where = PyLong_FromVoidPtr((void *)ra);
    if (!where || PyObject_SetAttr(aclsim_asc_foreign, aclsim_asc_s_ra, where) < 0) { Py_XDECREF(where); goto fail; }
    Py_DECREF(where);
    Py_ssize_t count = PyTuple_GET_SIZE(aclsim_asc_entries);
    /* an unknown code comes from a kernel_operator.h newer than this library: its last entry says so */
    PyObject *h = PyTuple_GET_ITEM(aclsim_asc_entries, op < (uint32_t)count ? (Py_ssize_t)op : count - 1);
    res = PyObject_Vectorcall(h, args, n, NULL);
    if (res) return res;
fail:;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb) PyException_SetTraceback(value, tb);  /* `failed` prints it for an internal error */
    if (aclsim_asc_failed_fn && value) {
        PyObject *r = PyObject_CallOneArg(aclsim_asc_failed_fn, value);
        if (!r) PyErr_Print();
        Py_XDECREF(r);
    } else {
        PyErr_Restore(type, value, tb);
        type = value = tb = NULL;
        PyErr_Print();  /* aclsim itself failed to load: say why on stderr */
    }
    Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb);
    aclsim_asc_failed = 1;
    return NULL;
}

static void aclsim_asc_release(PyObject **args, size_t n) {
    for (size_t i = 1; i < n; i++) Py_XDECREF(args[i]);
}

static int64_t aclsim_asc_int(PyObject *res) {
    if (!res) return 0;
    int64_t r = res == Py_None ? 0 : (int64_t)PyLong_AsLongLong(res);
    if (r == -1 && PyErr_Occurred()) {  /* a word above 2^63 */
        PyErr_Clear();
        r = (int64_t)PyLong_AsUnsignedLongLong(res);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            r = 0;
        }
    }
    Py_DECREF(res);
    return r;
}

#define ACLSIM_ASC_WORDS(a, b, c, d, e)                                                                      \
    PyLong_FromUnsignedLongLong(a), PyLong_FromUnsignedLongLong(b), PyLong_FromUnsignedLongLong(c),          \
        PyLong_FromUnsignedLongLong(d), PyLong_FromUnsignedLongLong(e)

ACLSIM_EXPORT int64_t aclsim_asc(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f,
                                 const void *ra) {
    ACLSIM_BOOT();
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *args[7] = {NULL, ACLSIM_ASC_WORDS(a, b, c, d, e), PyLong_FromUnsignedLongLong(f)};
    int64_t r = aclsim_asc_int(aclsim_asc_call(op, args, 7, ra));
    aclsim_asc_release(args, 7);
    PyGILState_Release(g);
    if (__builtin_expect(aclsim_asc_failed, 0)) aclsim_asc_stop();
    return r;
}

ACLSIM_EXPORT int64_t aclsim_asc_scalar(uint32_t op, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                                        double s, const void *ra) {
    ACLSIM_BOOT();
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *args[7] = {NULL, ACLSIM_ASC_WORDS(a, b, c, d, e), PyFloat_FromDouble(s)};
    int64_t r = aclsim_asc_int(aclsim_asc_call(op, args, 7, ra));
    aclsim_asc_release(args, 7);
    PyGILState_Release(g);
    if (__builtin_expect(aclsim_asc_failed, 0)) aclsim_asc_stop();
    return r;
}

ACLSIM_EXPORT double aclsim_asc_real(uint32_t op, uint64_t a, uint64_t b, const void *ra) {
    ACLSIM_BOOT();
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *args[3] = {NULL, PyLong_FromUnsignedLongLong(a), PyLong_FromUnsignedLongLong(b)};
    PyObject *res = aclsim_asc_call(op, args, 3, ra);
    double r = res ? PyFloat_AsDouble(res) : 0.0;
    if (res && r == -1.0 && PyErr_Occurred()) PyErr_Clear();
    Py_XDECREF(res);
    aclsim_asc_release(args, 3);
    PyGILState_Release(g);
    if (__builtin_expect(aclsim_asc_failed, 0)) aclsim_asc_stop();
    return r;
}

/* kernels.c's asc_vf_call: the engine's VfCall stands for the UB accesses of the code it runs (vector/vf.py). */
static void aclsim_asc_vf(const void *ra) { aclsim_asc(ASC_VfCall, 0, 0, 0, 0, 0, 0, ra); }

__attribute__((constructor)) static void aclsim_asc_hooks(void) { aclsim_vf_hook = aclsim_asc_vf; }

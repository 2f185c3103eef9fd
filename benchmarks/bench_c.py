"""The C face's speed: an aclrtMalloc + aclrtFree pair from C against the pyACL face's pair, and a 256 MiB
aclrtMemcpy from C (host -> device, device -> host) against numpy copying the same bytes.

Run: python benchmarks/bench_c.py. The C side is compiled by `aclsim cc` into a shared library and called
in this process (ctypes), so each C figure is measured right next to its Python or numpy counterpart, on
the same runtime, best of several interleaved repeats (the machine is shared). Prints the ratios
measured in this run; no figure is hard-coded. Bars (issue 20): pair <= 2x pyACL; memcpy >= 0.9x numpy.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

PAIRS = 10000
COPY = 256 << 20
REPEATS = 9
PAIR_BAR, COPY_BAR = 2.0, 0.9

C_SOURCE = r"""
#include <time.h>
#include "acl/acl.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
double c_pairs(int n) {  /* seconds per aclrtMalloc + aclrtFree pair */
    void *p;
    double t0 = now();
    for (int i = 0; i < n; i++) { aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST); aclrtFree(p); }
    return (now() - t0) / n;
}
double c_memcpy(void *dst, const void *src, size_t n, int kind) {  /* seconds for one aclrtMemcpy */
    double t0 = now();
    aclError r = aclrtMemcpy(dst, n, src, n, (aclrtMemcpyKind)kind);
    return r == ACL_SUCCESS ? now() - t0 : -1.0;
}
"""


def load_c() -> ctypes.CDLL:
    tmp = tempfile.mkdtemp(prefix="bench_c-")
    src, lib = os.path.join(tmp, "bench.c"), os.path.join(tmp, "libbench.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    subprocess.run([sys.executable, "-m", "aclsim", "cc", "-O2", "-shared", "-fPIC", src, "-o", lib], check=True)
    c = ctypes.CDLL(lib)
    c.c_pairs.restype = c.c_memcpy.restype = ctypes.c_double
    c.c_pairs.argtypes = [ctypes.c_int]
    c.c_memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return c


def py_pairs(n: int) -> float:
    from aclsim import acl

    t0 = time.perf_counter()
    for _ in range(n):
        p, _ = acl.rt.malloc(256, 0)
        acl.rt.free(p)
    return (time.perf_counter() - t0) / n


def main() -> int:
    from aclsim import acl

    c = load_c()
    acl.init()
    acl.rt.set_device(0)
    src = np.ones(COPY, np.uint8)
    back = np.zeros(COPY, np.uint8)
    dst = np.zeros(COPY, np.uint8)
    dev, _ = acl.rt.malloc(COPY, 0)
    c.c_memcpy(dev, src.ctypes.data, COPY, 1)  # commits the device pages
    c.c_pairs(100)
    best: dict[str, float] = {}

    def keep(name: str, t: float) -> None:
        assert t >= 0, f"{name} failed"
        best[name] = min(t, best.get(name, t))

    for _ in range(REPEATS):
        keep("c_pair", c.c_pairs(PAIRS))
        keep("py_pair", py_pairs(PAIRS))
        keep("h2d", c.c_memcpy(dev, src.ctypes.data, COPY, 1))
        keep("d2h", c.c_memcpy(back.ctypes.data, dev, COPY, 2))
        t0 = time.perf_counter()
        np.copyto(dst, src)
        keep("numpy", time.perf_counter() - t0)
    equal = np.array_equal(back, src)
    acl.rt.free(dev)
    acl.rt.reset_device(0)
    acl.finalize()
    pair = best["c_pair"] / best["py_pair"]
    h2d, d2h = best["numpy"] / best["h2d"], best["numpy"] / best["d2h"]
    print(f"aclrtMalloc+aclrtFree pair: C {best['c_pair'] * 1e6:.2f} us, pyACL {best['py_pair'] * 1e6:.2f} us "
          f"-> {pair:.2f}x (bar <= {PAIR_BAR}x)")
    print(f"aclrtMemcpy 256 MiB from C: H2D {best['h2d'] * 1e3:.1f} ms, D2H {best['d2h'] * 1e3:.1f} ms, numpy copy "
          f"{best['numpy'] * 1e3:.1f} ms -> {h2d:.2f}x / {d2h:.2f}x numpy's speed (bar >= {COPY_BAR}x); "
          f"round trip {'equal' if equal else 'DIFFERENT'}")
    ok = pair <= PAIR_BAR and min(h2d, d2h) >= COPY_BAR and equal
    print("bars met" if ok else "a bar is missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

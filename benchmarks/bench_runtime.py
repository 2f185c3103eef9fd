"""Runtime speed and memory targets (issue 2), measured in one run.

- malloc+free pair with 10,000 live allocations: median us (target <= 10 us);
- memcpy H2D and D2H of 256 MiB: bandwidth vs numpy.copyto of the same bytes (target >= 0.7x);
- allocating all 64 GiB of an Ascend910B1: host memory committed (target: ~none until written).

Run: python benchmarks/bench_runtime.py
"""

from __future__ import annotations

import resource
import statistics
import time

import numpy as np

import aclsim.acl as acl
from aclsim import constants as C
from aclsim.runtime import reset_runtime


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_malloc_free(live: int = 10_000, pairs: int = 20_000) -> None:
    reset_runtime()
    acl.rt.set_device(0)
    rng = np.random.default_rng(0)
    keep = [acl.rt.malloc(int(n), C.ACL_MEM_MALLOC_HUGE_FIRST)[0] for n in rng.integers(1, 65536, live)]
    sizes = [int(n) for n in rng.integers(1, 65536, pairs)]
    samples = []
    for n in sizes:
        t0 = time.perf_counter_ns()
        p, _ = acl.rt.malloc(n, C.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.free(p)
        samples.append(time.perf_counter_ns() - t0)
    med = statistics.median(samples) / 1000
    p99 = sorted(samples)[int(len(samples) * 0.99)] / 1000
    print(f"malloc+free pair, {live:,} live allocations: median {med:.2f} us, p99 {p99:.2f} us (target <= 10 us)")
    for p in keep:
        acl.rt.free(p)


def best_of(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_memcpy(nbytes: int = 256 << 20) -> None:
    reset_runtime()
    acl.rt.set_device(0)
    host = np.random.default_rng(1).integers(0, 255, nbytes, dtype=np.uint8)
    back = np.empty_like(host)
    dev, _ = acl.rt.malloc(nbytes, C.ACL_MEM_MALLOC_HUGE_FIRST)
    hp, bp = host.ctypes.data, back.ctypes.data
    acl.rt.memcpy(dev, nbytes, hp, nbytes, 1)  # warm: commit the device pages
    t_np = best_of(lambda: np.copyto(back, host))
    t_h2d = best_of(lambda: acl.rt.memcpy(dev, nbytes, hp, nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE))
    t_d2h = best_of(lambda: acl.rt.memcpy(bp, nbytes, dev, nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST))
    assert np.array_equal(back, host)
    gb = nbytes / 1e9
    print(f"numpy.copyto 256 MiB: {gb / t_np:.2f} GB/s")
    print(f"memcpy H2D   256 MiB: {gb / t_h2d:.2f} GB/s = {t_np / t_h2d:.2f}x numpy (target >= 0.7x)")
    print(f"memcpy D2H   256 MiB: {gb / t_d2h:.2f} GB/s = {t_np / t_d2h:.2f}x numpy (target >= 0.7x)")
    acl.rt.free(dev)


def bench_whole_device() -> None:
    reset_runtime()
    acl.rt.set_device(0)
    before = rss_mib()
    ptrs = [acl.rt.malloc((2 << 30) - 64, C.ACL_MEM_MALLOC_HUGE_FIRST)[0] for _ in range(32)]
    free, total, _ = acl.rt.get_mem_info(C.ACL_HBM_MEM)
    after = rss_mib()
    print(f"allocated {(total - free) / 2**30:.0f} GiB of {total / 2**30:.0f} GiB: host RSS grew {after - before:.1f} MiB")
    acl.rt.memset(ptrs[0], 1 << 20, 1, 1 << 20)
    print(f"after writing 1 MiB into it: host RSS grew {rss_mib() - before:.1f} MiB")
    for p in ptrs:
        acl.rt.free(p)


if __name__ == "__main__":
    bench_malloc_free()
    bench_memcpy()
    bench_whole_device()

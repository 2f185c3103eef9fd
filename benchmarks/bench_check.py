"""Overhead of `--check all` on the article's square kernel over 2**20 threads.

Prints, from one run: the kernel's time (launch + synchronize, best of interleaved rounds) without
checks and with every sanitizer tool listening, their ratio (the bar is <= 3x), and numpy's
`x * x` on the same data for scale.
Run: python benchmarks/bench_check.py [log2(threads)]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from aclsim import acl, simt
from aclsim.check import Session
from aclsim.runtime import get_runtime


@simt.kernel
def square(inp: simt.Ptr[np.float32], out: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if tid < size:
        out[tid] = inp[tid] * inp[tid]


def best_of(fn, reps: int = 15) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 20)
    acl.init()
    acl.rt.set_device(0)
    x = np.random.default_rng(0).random(n, dtype=np.float32)
    dx, _ = acl.rt.malloc(n * 4, 0)
    dy, _ = acl.rt.malloc(n * 4, 0)
    acl.rt.memcpy(dx, n * 4, x.ctypes.data, n * 4, 1)

    def run() -> None:
        square[(n + 255) // 256, 256, 0](dx, dy, n)
        acl.rt.synchronize_stream(0)

    run()  # compile once
    session = Session(["memcheck", "racecheck", "initcheck", "leakcheck"])
    bus = get_runtime().bus
    plain = checked = float("inf")
    for _ in range(6):  # interleaved rounds: other load on the machine hits both sides alike
        bus.unsubscribe(session.observer)
        plain = min(plain, best_of(run, 5))
        bus.subscribe(session.observer)
        checked = min(checked, best_of(run, 5))
    acl.rt.free(dx)
    acl.rt.free(dy)
    session.stop()
    numpy_time = best_of(lambda: x * x)
    print(f"threads            {n}")
    print(f"kernel, no checks  {plain * 1e3:8.2f} ms")
    print(f"kernel, --check all{checked * 1e3:8.2f} ms")
    print(f"overhead           {checked / plain:8.2f}x   (bar: <= 3x)")
    print(f"numpy x * x        {numpy_time * 1e3:8.2f} ms   (kernel without checks: {plain / numpy_time:.1f}x numpy)")
    print(f"sanitizer errors   {session.report.error_count}")


if __name__ == "__main__":
    main()

"""What tracing costs: each workload untraced, with a do-nothing bus observer, and traced.

    python benchmarks/bench_trace.py

"traced" is `aclsim run --trace t.json --summary` in process: recording, building the timeline,
writing the JSON file and rendering the summary all count. "observed" subscribes an observer
with no handlers: the runtime's own cost of reporting events (call sites, event objects), which
any bus tool pays. In-process figures are CPU time of this process (other work on a shared
machine does not count), the best of several alternating rounds; ratios are to untraced. The
last line times whole `aclsim run` processes by the wall clock.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from aclsim import constants as C
from aclsim.cli.run import install_aliases, run_script
from aclsim.runtime import KernelWork, Task, get_runtime, reset_runtime
from aclsim.trace.session import TraceSession

try:
    from aclsim import simt
except ImportError:  # the SIMT engine is optional here
    simt = None

ROUNDS = 7


def tiny_loop(n: int = 1000) -> Callable[[], None]:
    """n launches of a kernel task that does nothing, each followed by a stream synchronize."""

    def go() -> None:
        rt = get_runtime()
        for _ in range(n):
            rt.launch(0, Task("kernel", "tiny", lambda t: None, work=KernelWork("custom", grid=(1, 1, 1), block=(32, 1, 1))))
            rt.synchronize_stream(0)

    return go


def big_copy(nbytes: int = 256 << 20) -> Callable[[], None]:
    """One H2D and one D2H copy of `nbytes` through pinned host memory."""
    rt = get_runtime()
    dev = rt.malloc(nbytes, 0)
    host = rt.malloc_host(nbytes)
    host.buffer[:] = 7

    def go() -> None:
        rt.memcpy(dev.start, nbytes, host.start, nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
        rt.memcpy(host.start, nbytes, dev.start, nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST)

    return go


def simt_square(n: int, launches: int) -> Callable[[], None] | None:
    """The article's example: y = x * x with one SIMT thread per element, `launches` times."""
    if simt is None:
        return None

    @simt.kernel
    def square(x: simt.Ptr[np.float32], y: simt.Ptr[np.float32], n: np.uint32) -> None:
        i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
        if i < n:
            y[i] = x[i] * x[i]

    rt = get_runtime()
    x = np.arange(n, dtype=np.float32)
    dx, dy = rt.malloc(x.nbytes, 0), rt.malloc(x.nbytes, 0)
    rt.memcpy(dx.start, x.nbytes, x.ctypes.data, x.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
    block = 256
    grid = (n + block - 1) // block

    def go() -> None:
        for _ in range(launches):
            square[grid, block](dx.start, dy.start, np.uint32(n))
        rt.synchronize_stream(0)

    return go


def example(path: str) -> Callable[[], None] | None:
    """A whole example program, run in process as `aclsim run` does (its output discarded)."""
    if not os.path.exists(path):
        return None
    install_aliases()

    def go() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            assert run_script(path, [])[0] == 0

    return go


def command_line(path: str) -> None:
    """`aclsim run [--trace] example`: whole processes, interpreter start-up included."""
    if not os.path.exists(path):
        return
    best = {False: float("inf"), True: float("inf")}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(ROUNDS):
            for traced in best:
                cmd = [sys.executable, "-m", "aclsim", "run", *(["--trace", os.path.join(d, "t.json")] if traced else []),
                       path]
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True)
                best[traced] = min(best[traced], time.perf_counter() - t0)
    print(f"{'aclsim run ' + os.path.basename(path) + ' (process)':<46} untraced {best[False] * 1e3:7.2f} ms  "
          f"traced x{best[True] / best[False]:5.2f}")


def timed(work: Callable[[], None], mode: str, trace_path: str) -> tuple[float, float]:
    """(total CPU seconds, CPU seconds spent in session.finish)."""
    rt = get_runtime()
    session = observer = None
    t0 = time.process_time()
    if mode == "traced":
        session = TraceSession(trace_path, summary=True, out=io.StringIO())
    elif mode == "observed":
        observer = object()
        rt.bus.subscribe(observer)
    work()
    t1 = time.process_time()
    if session is not None:
        session.finish()
    if observer is not None:
        rt.bus.unsubscribe(observer)
    t2 = time.process_time()
    return t2 - t0, t2 - t1


def measure(name: str, work: Callable[[], None] | None, rounds: int = ROUNDS) -> None:
    if work is None:
        print(f"{name:<46} skipped (needs aclsim.simt / the example)")
        return
    work()  # warm up (compilation, first-touch of pages)
    best = {"untraced": (float("inf"), 0.0), "observed": (float("inf"), 0.0), "traced": (float("inf"), 0.0)}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.json")
        for _ in range(rounds):
            for mode in best:
                best[mode] = min(best[mode], timed(work, mode, path))
        size = os.path.getsize(path)
    base = best["untraced"][0]
    print(f"{name:<46} untraced {base * 1e3:7.2f} ms  observed x{best['observed'][0] / base:5.2f}  "
          f"traced x{best['traced'][0] / base:5.2f} (finish {best['traced'][1] * 1e3:.1f} ms, "
          f"file {size / 1024:.0f} KiB)")


def main() -> None:
    reset_runtime()
    get_runtime().set_device(0)
    measure("article square, 2^20 threads, 1 launch", simt_square(1 << 20, 1))
    measure("article square, 2^20 threads, 1,000 launches", simt_square(1 << 20, 1000), rounds=3)
    measure("article square, 1,024 threads, 1,000 launches", simt_square(1024, 1000))
    measure("1,000 launches of an empty task + sync each", tiny_loop())
    measure("256 MiB H2D + D2H (synchronous memcpy)", big_copy())
    seed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "seed_square.py")
    measure("examples/seed_square.py (2^20 threads), in process", example(seed))
    command_line(seed)


if __name__ == "__main__":
    main()

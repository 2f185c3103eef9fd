"""SIMT kernel speed, every figure measured in this run.

1. The article's square kernel (256 threads per block) against np.multiply(x, x, out=y) on the
   same data, warm, at 2^16, 2^20 and 2^22 threads (target: <= 1.3x at 2^22).
2. Launch overhead: an empty kernel plus synchronize (target: <= 15 us).
3. Each example kernel against Numba's CUDA simulator on the same problem, when numba is
   installed (skipped otherwise); the simulator runs one Python thread per GPU thread, so sizes
   are small.
4. Loop-heavy kernels (issue 11's targets): one thread running a 1,000-iteration loop (<= 2 ms),
   naive matmul 256x256 with one thread per output against numpy's A @ B (<= 30x), the same kernel
   spelled four ways (grid(2) or blockIdx * blockDim + threadIdx, n uint32 or int32: <= 1.5x apart), an inclusive
   scan of 2^20 elements (block-level shared-memory scan + scanned block sums) against np.cumsum
   (<= 10x), and the numba.cuda face's elementwise kernel at 2^22 against numpy (<= 1.3x).

Every row is measured on both engines: the numpy engine (ACLSIM_SIMT_JIT=0) and the numba JIT
(ACLSIM_SIMT_JIT=1, when numba is installed and the kernel is in its subset; "-" otherwise), with the
JIT's compile time (its first launch) apart. A quality bar takes the engine a user gets by default
(the JIT for loop kernels it translates, the numpy engine for the rest).

The last lines list every quality bar of issue 11 with its figure from this run. The machine is
shared: figures under load are slower (ratios to numpy less so); rerun on an idle machine.

Run: python benchmarks/bench_simt.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")  # must precede any numba import

import numpy as np

import aclsim
from aclsim import simt
from aclsim.cli.run import install_aliases

# The kernels measured are the examples' own (examples/ is put on sys.path; each example's main()
# only runs under __main__). seed_square.py does `import acl`, which aclsim provides.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
install_aliases()
from matmul import matmul  # noqa: E402
from reduction import THREADS as TPB  # noqa: E402
from reduction import block_sum as reduction  # noqa: E402
from saxpy import saxpy  # noqa: E402
from seed_square import square_kernel as square  # noqa: E402


@simt.kernel
def empty(x: simt.Ptr[np.float32]):
    pass


try:  # Numba's simulator patches the kernels' globals: `cuda` must be a module-level name
    import numba
    from numba import cuda, float32
except ImportError:
    numba = cuda = None

if cuda is not None:

    @cuda.jit
    def nb_square(inp, out, size):
        tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if tid < size:
            out[tid] = inp[tid] * inp[tid]

    @cuda.jit
    def nb_saxpy(n, a, x, y):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        stride = cuda.blockDim.x * cuda.gridDim.x
        while i < n:
            y[i] = a * x[i] + y[i]
            i += stride

    @cuda.jit
    def nb_matmul(a, b, c, n):
        row = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if row < n and col < n:
            acc = float32(0)
            for k in range(n):
                acc += a[row, k] * b[k, col]
            c[row, col] = acc

    @cuda.jit
    def nb_reduction(x, total, n):
        partial = cuda.shared.array(TPB, float32)
        tid = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + tid
        partial[tid] = x[i] if i < n else float32(0)
        cuda.syncthreads()
        stride = cuda.blockDim.x // 2
        while stride > 0:
            if tid < stride:
                partial[tid] += partial[tid + stride]
            cuda.syncthreads()
            stride //= 2
        if tid == 0:
            cuda.atomic.add(total, 0, partial[0])


@simt.kernel
def one_thread_loop(x: simt.Ptr[np.float32], out: simt.Ptr[np.float32], n: np.int32):
    acc = np.float32(0)
    for k in range(n):
        acc += x[k] * x[k]
    out[0] = acc


@simt.kernel
def naive_matmul(a: simt.Ptr[np.float32], b: simt.Ptr[np.float32], c: simt.Ptr[np.float32], n: np.uint32):
    col, row = simt.grid(2)
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


# The same naive matmul as a new user would write it: indices from simt.grid(2) or spelled out as the
# seed writes them, the size as uint32 or int32 (naive_matmul above is the first of the four).
@simt.kernel
def naive_matmul_i32(a: simt.Ptr[np.float32], b: simt.Ptr[np.float32], c: simt.Ptr[np.float32], n: np.int32):
    col, row = simt.grid(2)
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


@simt.kernel
def naive_matmul_idx_i32(a: simt.Ptr[np.float32], b: simt.Ptr[np.float32], c: simt.Ptr[np.float32], n: np.int32):
    row = simt.blockIdx.y * simt.blockDim.y + simt.threadIdx.y
    col = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


@simt.kernel
def naive_matmul_idx_u32(a: simt.Ptr[np.float32], b: simt.Ptr[np.float32], c: simt.Ptr[np.float32], n: np.uint32):
    row = simt.blockIdx.y * simt.blockDim.y + simt.threadIdx.y
    col = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


SPELLINGS = {"grid(2), n: uint32": naive_matmul, "grid(2), n: int32": naive_matmul_i32,
             "blockIdx * blockDim + threadIdx, n: int32": naive_matmul_idx_i32,
             "blockIdx * blockDim + threadIdx, n: uint32": naive_matmul_idx_u32}


TILE = 16


@simt.kernel
def tiled_matmul(a: simt.Array[np.float32, 2], b: simt.Array[np.float32, 2], c: simt.Array[np.float32, 2]):
    """numba's "fast matmul" pattern: 16x16 tiles of A and B staged in shared memory."""
    sa = simt.shared.array((TILE, TILE), np.float32)
    sb = simt.shared.array((TILE, TILE), np.float32)
    x, y = simt.grid(2)
    tx, ty = simt.threadIdx.x, simt.threadIdx.y
    acc = np.float32(0)
    for i in range(simt.gridDim.x):
        sa[tx, ty] = a[x, ty + i * TILE]
        sb[tx, ty] = b[tx + i * TILE, y]
        simt.syncthreads()
        for j in range(TILE):
            acc += sa[tx, j] * sb[j, ty]
        simt.syncthreads()
    c[x, y] = acc


SCAN_TPB = 1024


@simt.kernel
def block_scan(x: simt.Ptr[np.float32], out: simt.Ptr[np.float32], sums: simt.Ptr[np.float32], n: np.uint32):
    """Hillis-Steele inclusive scan of each block's elements in shared memory; block totals to sums."""
    tile = simt.shared.array(SCAN_TPB, np.float32)
    t = simt.threadIdx.x
    i = simt.grid(1)
    tile[t] = x[i] if i < n else np.float32(0)
    simt.syncthreads()
    d = 1
    while d < SCAN_TPB:
        v = tile[t - d] if t >= d else np.float32(0)
        simt.syncthreads()
        tile[t] += v
        simt.syncthreads()
        d *= 2
    if i < n:
        out[i] = tile[t]
    if t == SCAN_TPB - 1:
        sums[simt.blockIdx.x] = tile[t]


@simt.kernel
def add_block_offsets(out: simt.Ptr[np.float32], scanned: simt.Ptr[np.float32], n: np.uint32):
    i = simt.grid(1)
    b = simt.blockIdx.x
    if i < n and b > 0:
        out[i] += scanned[b - 1]


BARS: list[tuple[str, float, float, str, str]] = []  # (quality bar, figure, target, unit, note), this run


def bar(name: str, value: float, target: float, unit: str, note: str = "") -> None:
    BARS.append((name, value, target, unit, note))


def timed(fn, reps: int) -> float:
    """Best wall time of fn() over reps runs (after one warm-up run): other processes on a shared
    machine only ever add time, to aclsim and numpy alike (numpy's multi-threaded BLAS most of all:
    its A @ B median ranges from 0.15 to 16 ms on this 2-core VM under load), so the best run is the
    steadiest estimate of each side's own cost, and ratios of best runs compare like with like."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def engines(fn, reps: int, kernel=None) -> dict[str, float]:
    """Best times of fn on each engine: {"numpy": s, "jit": s, "compile": s} (no "jit" when it does not
    apply: numba missing or the kernel outside the JIT's subset). `kernel` is the kernel fn launches."""
    out = {}
    for mode, key in (("0", "numpy"), ("1", "jit")):
        os.environ["ACLSIM_SIMT_JIT"] = mode
        try:
            if key == "jit":
                if kernel is not None and "_jit" not in kernel.__dict__:
                    t0 = time.perf_counter()
                    fn()  # the first launch translates and compiles
                    out["compile"] = time.perf_counter() - t0
                if kernel is not None and kernel.__dict__.get("_jit") is None:
                    break
            out[key] = timed(fn, reps)
        finally:
            del os.environ["ACLSIM_SIMT_JIT"]
    return out


def show(t: dict[str, float], unit: float = 1e3) -> str:
    """'numpy engine X ms, JIT Y ms (compile Z s)' of an engines() result."""
    jit = f"jit {t['jit'] * unit:8.2f}" if "jit" in t else "jit        -"
    comp = f" (compile {t['compile']:.2f} s)" if "compile" in t and "jit" in t else ""
    return f"numpy engine {t['numpy'] * unit:8.2f}  {jit}{comp}"


def bench_square(sync) -> None:
    print("1. square kernel vs np.multiply(x, x, out=y), warm, best run")
    for log2 in (16, 20, 22):
        n = 1 << log2
        x = np.random.default_rng(0).random(n, dtype=np.float32)
        y = np.empty_like(x)
        dx, dy = aclsim.to_device(x), aclsim.empty(n)

        def kernel(dx=dx, dy=dy, n=n):
            square[n // 256, 256](dx, dy, n)
            sync()

        t = engines(kernel, 21, square)
        t_k = t["numpy"]  # the default engine of a kernel without loops
        t_np = timed(lambda x=x, y=y: np.multiply(x, x, out=y), 21)
        assert np.array_equal(dy.copy_to_host(), x * x)
        print(f"   2^{log2} threads: simt {show(t)} ms   numpy {t_np * 1e3:8.3f} ms   ratio {t_k / t_np:5.2f}x"
              + (f" (jit {t['jit'] / t_np:5.2f}x)" if "jit" in t else ""))
        if log2 == 22:
            bar("elementwise square, 2^22 threads, vs numpy", t_k / t_np, 1.3, "x")
        dx.free()
        dy.free()


def bench_launch(sync) -> None:
    d = aclsim.empty(1)
    n = 3000

    def launches():
        for _ in range(n):
            empty[1, 1](d)
            sync()

    t = engines(launches, 3, empty)
    print(f"2. launch overhead (empty kernel + synchronize), us: {show(t, 1e6 / n)}")
    bar("launch + synchronize of an empty kernel", t["numpy"] / n * 1e6, 15, "us")


def problems() -> dict:
    """Each example at a size the Numba simulator finishes in seconds."""
    rng = np.random.default_rng(1)
    n_sq, n_sx, n_mm, n_red = 4096, 8192, 24, 2048
    return {
        "square (16 x 256 threads)": dict(
            inputs=[rng.random(n_sq, dtype=np.float32), np.zeros(n_sq, np.float32)], scalars=(n_sq,),
            grid=16, block=256, order="arrays-first"),
        "saxpy grid-stride (8 x 128 threads, n=8192)": dict(
            inputs=[rng.random(n_sx, dtype=np.float32), rng.random(n_sx, dtype=np.float32)], scalars=(n_sx, 2.0),
            grid=8, block=128, order="saxpy"),
        "matmul 24x24 (2x2 blocks of 16x16)": dict(
            inputs=[rng.random((n_mm, n_mm), dtype=np.float32), rng.random((n_mm, n_mm), dtype=np.float32),
                    np.zeros((n_mm, n_mm), np.float32)], scalars=(n_mm,), grid=(2, 2), block=(16, 16),
            order="arrays-first"),
        f"reduction ({n_red // TPB} x {TPB} threads, 9 barriers)": dict(
            inputs=[rng.random(n_red, dtype=np.float32), np.zeros(1, np.float32)], scalars=(n_red,),
            grid=n_red // TPB, block=TPB, order="arrays-first"),
    }


def _args(p: dict, arrays: list) -> list:
    if p["order"] == "saxpy":
        return [p["scalars"][0], np.float32(p["scalars"][1]), *arrays]
    return [*arrays, *p["scalars"]]


def bench_numba(sync) -> None:
    if cuda is None:
        print("3. Numba CUDA simulator: numba is not installed, skipped (pip install numba)")
        return
    print(f"3. example kernels vs Numba {numba.__version__} CUDA simulator (same sizes; one timed run of the simulator)")
    ours = {"square": square, "saxpy": saxpy, "matmul": matmul, "reduction": reduction}
    theirs = {"square": nb_square, "saxpy": nb_saxpy, "matmul": nb_matmul, "reduction": nb_reduction}
    for label, p in problems().items():
        key = label.split()[0]
        dev = [aclsim.to_device(a) for a in p["inputs"]]

        def run_ours(dev=dev, p=p, key=key):
            for d, a in zip(dev, p["inputs"], strict=True):
                d.copy_from_host(a)
            ours[key][p["grid"], p["block"]](*_args(p, dev))
            sync()

        te = engines(run_ours, 5, ours[key])
        t_ours = te.get("jit", te["numpy"]) if ours[key].compiled.iterates else te["numpy"]  # the default engine
        got = dev[-1].copy_to_host() if key != "saxpy" else dev[1].copy_to_host()
        warm = [cuda.to_device(a.copy()) for a in p["inputs"]]
        theirs[key][1, 1](*_args(p, warm))  # one thread first: one-time set-up costs are not counted
        nb_arrays = [cuda.to_device(a.copy()) for a in p["inputs"]]
        t0 = time.perf_counter()
        theirs[key][p["grid"], p["block"]](*_args(p, nb_arrays))
        cuda.synchronize()
        t_nb = time.perf_counter() - t0
        ref = nb_arrays[-1].copy_to_host() if key != "saxpy" else nb_arrays[1].copy_to_host()
        same = "same result" if np.allclose(got, ref, rtol=1e-5) else "RESULTS DIFFER"
        print(f"   {label:<46} simt {show(te)} ms   numba-sim {t_nb * 1e3:9.1f} ms   "
              f"{t_nb / t_ours:8.0f}x faster ({same})")


def bench_loops(sync) -> None:
    print("4. loop-heavy kernels, warm, best run")
    x = np.random.default_rng(2).random(1000, dtype=np.float32)
    dx, dout = aclsim.to_device(x), aclsim.empty(1)

    def loop():
        one_thread_loop[1, 1](dx, dout, 1000)
        sync()

    te = engines(loop, 11, one_thread_loop)
    t = te.get("jit", te["numpy"])
    assert np.isclose(dout.copy_to_host()[0], np.dot(x, x), rtol=1e-4)
    print(f"   1 thread, 1,000-iteration loop: {show(te)} ms  (target <= 2 ms)")
    bar("1 thread, 1,000-iteration loop", t * 1e3, 2, "ms")

    n = 256
    rng = np.random.default_rng(3)
    a, b = (rng.random((n, n), dtype=np.float32) for _ in range(2))
    da, db, dc = aclsim.to_device(a), aclsim.to_device(b), aclsim.empty((n, n))

    def mm():
        naive_matmul[(n // 16, n // 16), (16, 16)](da, db, dc, n)
        sync()

    te = engines(mm, 7, naive_matmul)
    t_k = te.get("jit", te["numpy"])
    t_np = timed(lambda: a @ b, 21)
    assert np.allclose(dc.copy_to_host(), a @ b, rtol=1e-4)
    print(f"   naive matmul 256x256: simt {show(te)} ms   A @ B {t_np * 1e3:6.3f} ms   "
          f"ratio {t_k / t_np:6.1f}x (numpy engine {te['numpy'] / t_np:6.1f}x)  (target <= 30x)")
    # numpy's A @ B (multi-threaded BLAS) takes ~0.15 ms here when the machine is idle, but 100x that
    # when another process competes for the 2 cores: the ratio then says nothing.
    bar("naive matmul 256x256 vs A @ B", t_k / t_np, 30, "x",
        "A @ B slowed by load: rerun on an idle machine" if t_np > 1e-3 else "")

    times = {}
    for label, kernel in SPELLINGS.items():
        def spelled(kernel=kernel):
            kernel[(n // 16, n // 16), (16, 16)](da, db, dc, n)
            sync()

        te = engines(spelled, 7, kernel)
        times[label] = te.get("jit", te["numpy"])  # the default engine: its loop interleaves
        assert np.allclose(dc.copy_to_host(), a @ b, rtol=1e-4)
        print(f"   naive matmul 256x256, {label + ':':<44} {show(te)} ms")
    spread = max(times.values()) / min(times.values())
    print(f"   the four spellings: slowest / fastest {spread:4.2f}x  (target <= 1.5x)")
    bar("naive matmul 256x256, 4 spellings: slowest / fastest", spread, 1.5, "x")

    m = 250  # not a multiple of the 16x16 blocks: the bounds guard leaves threads idle at the edges
    a2, b2 = a[:m, :m].copy(), b[:m, :m].copy()
    da2, db2, dc2 = aclsim.to_device(a2), aclsim.to_device(b2), aclsim.empty((m, m))

    def mm_guarded():
        naive_matmul[(16, 16), (16, 16)](da2, db2, dc2, m)
        sync()

    tg = engines(mm_guarded, 7, naive_matmul)
    t_g = tg.get("jit", tg["numpy"])
    t_np2 = timed(lambda: a2 @ b2, 21)
    assert np.allclose(dc2.copy_to_host(), a2 @ b2, rtol=1e-4)
    print(f"   naive matmul 250x250: simt {show(tg)} ms   A @ B {t_np2 * 1e3:6.3f} ms   "
          f"ratio {t_g / t_np2:6.1f}x  (16x16 blocks, bounds guard; no target)")

    def tiled():
        tiled_matmul[(n // TILE, n // TILE), (TILE, TILE)](da, db, dc)
        sync()

    te = engines(tiled, 7, tiled_matmul)
    t_k = te.get("jit", te["numpy"])
    assert np.allclose(dc.copy_to_host(), a @ b, rtol=1e-4)
    print(f"   tiled matmul 256x256: simt {show(te)} ms   A @ B {t_np * 1e3:6.3f} ms   "
          f"ratio {t_k / t_np:6.1f}x  (shared-memory tiles; no target)")

    n = 1 << 20
    nb = n // SCAN_TPB
    xs = rng.random(n, dtype=np.float32)
    dxs, dys, dsums = aclsim.to_device(xs), aclsim.empty(n), aclsim.empty(nb)
    dscan, dtop = aclsim.empty(nb), aclsim.empty(1)

    def scan():
        block_scan[nb, SCAN_TPB](dxs, dys, dsums, n)
        block_scan[1, SCAN_TPB](dsums, dscan, dtop, nb)  # 1,024 block totals: one block scans them
        add_block_offsets[nb, SCAN_TPB](dys, dscan, n)
        sync()

    te = engines(scan, 7, block_scan)
    t_k = te.get("jit", te["numpy"])
    t_np = timed(lambda: np.cumsum(xs), 11)
    assert np.allclose(dys.copy_to_host(), np.cumsum(xs, dtype=np.float64), rtol=1e-3)
    print(f"   inclusive scan 2^20:  simt {show(te)} ms   np.cumsum {t_np * 1e3:6.3f} ms   "
          f"ratio {t_k / t_np:6.1f}x  (target <= 10x)")
    bar("inclusive scan 2^20 vs np.cumsum", t_k / t_np, 10, "x")


def bench_cuda_face(sync) -> None:
    from aclsim.simt import cuda as acuda

    @acuda.jit
    def axpy(a, x, y, out):
        i = acuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    n = 1 << 22
    x, y = (np.random.default_rng(4).random(n, dtype=np.float32) for _ in range(2))
    dx, dy, dout = acuda.to_device(x), acuda.to_device(y), acuda.device_array(n, np.float32)
    out = np.empty_like(x)
    a = np.float32(2)

    def kern():
        axpy[n // 256, 256](a, dx, dy, dout)
        acuda.synchronize()

    def ref():
        np.multiply(x, a, out=out)
        np.add(out, y, out=out)

    te, t_np = engines(kern, 11, axpy), timed(ref, 11)
    t_k = te["numpy"]  # no loop: the numpy engine by default
    assert np.array_equal(dout.copy_to_host(), a * x + y)
    print(f"5. numba.cuda face, axpy 2^22 threads: {show(te)} ms, numpy {t_np * 1e3:.2f} ms, "
          f"ratio {t_k / t_np:.2f}x")
    bar("elementwise axpy (numba.cuda face), 2^22 threads, vs numpy", t_k / t_np, 1.3, "x")


def summary() -> None:
    print("quality bars (issue 11), this run:")
    for name, value, target, unit, note in BARS:
        verdict = note or ("met" if value <= target else "NOT met")
        print(f"   {name:<58} {value:8.2f} {unit:<2} (<= {target:g} {unit}) {verdict}")


def main() -> None:
    with aclsim.Device(0):
        sync = aclsim.Stream.default().synchronize
        bench_square(sync)
        bench_launch(sync)
        bench_numba(sync)
        bench_loops(sync)
        bench_cuda_face(sync)
    summary()


if __name__ == "__main__":
    main()

"""The numba JIT path (simt/jit.py) against the numpy engine: bit-identical memory, identical faults."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import aclsim
from aclsim import simt
from aclsim.runtime import reset_runtime
from aclsim.simt import Ptr

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def runtime(fresh_runtime):
    return fresh_runtime


def launch(mode: str, kernel, grid, block, args) -> list[np.ndarray]:
    """Run on one engine ("0" numpy, "1" JIT) from fresh device copies; the arrays afterwards."""
    with mock.patch.dict(os.environ, {"ACLSIM_SIMT_JIT": mode}), aclsim.Device(0):
        dev = [aclsim.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        kernel[grid, block](*dev)
        aclsim.Stream.default().synchronize()
        return [d.copy_to_host() for d in dev if not isinstance(d, (int, float, np.generic))]


def same_on_both(kernel, grid, block, *args) -> list[np.ndarray]:
    """Both engines leave bit-identical memory (NaNs included); returns it."""
    ref = launch("0", kernel, grid, block, args)
    got = launch("1", kernel, grid, block, args)
    assert kernel.__dict__.get("_jit") is not None, "the kernel was not translated"
    for r, g in zip(ref, got, strict=True):
        assert r.dtype == g.dtype and r.tobytes() == g.tobytes(), (r, g)
    return got


def fault_message(mode: str, kernel, grid, block, args) -> str:
    """The launch's fault, from a fresh runtime (so that both engines see the same addresses)."""
    reset_runtime()
    with pytest.raises(aclsim.AclError) as e:
        launch(mode, kernel, grid, block, args)
    return str(e.value)


# ---------------------------------------------------------------------------- kernels
@simt.kernel
def fma_guarded(a: Ptr[np.float32], b: Ptr[np.float32], out: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    if i < n:
        out[i] = a[i] * b[i] + 1.5


@simt.kernel
def int_ops(a: Ptr[np.int32], b: Ptr[np.int32], u: Ptr[np.uint32], out: Ptr[np.int32], uo: Ptr[np.uint32],
            lo: Ptr[np.int64], n: np.int32):
    i = simt.grid(1)
    if i < n:
        x = a[i]
        y = b[i]
        out[8 * i] = x / y
        out[8 * i + 1] = x % y
        out[8 * i + 2] = x // y
        out[8 * i + 3] = x * y - (x + y)
        out[8 * i + 4] = (x << (y & 63)) ^ (x >> (y & 63))
        out[8 * i + 5] = -x | ~y
        w = -100 - 5 * 3  # a Python int: C division and remainder too
        out[8 * i + 6] = 7 / (y & 3) + (-7) % (y & 3) + w / -7 + w % 3 + (w + 1) % -4
        out[8 * i + 7] = (x & 0xFF) + (1 << (y & 31))
        uo[2 * i] = u[i] + x  # int32 converts to uint32
        uo[2 * i + 1] = u[i] / (u[i] >> 3) - y
        lo[i] = x * np.int64(y) + u[i]


@simt.kernel
def loops(a: Ptr[np.float32], out: Ptr[np.float32], cnt: Ptr[np.int32], n: np.int32, lim: np.int32):
    i = np.int32(simt.grid(1))  # signed: j below goes negative
    if i >= n:
        return
    acc = np.float32(0)
    hits = 0
    for k in range(i, n):
        if a[k] < 0:
            continue
        if hits >= lim:
            break
        acc += a[k] * a[i]
        hits += 1
    j = n - 1
    while j > i:
        if a[j] > 0.9:
            break
        j -= 2
    for k in range(n - 1, i, -3):
        acc -= a[k]
    out[i] = acc
    cnt[2 * i] = hits
    cnt[2 * i + 1] = j


@simt.kernel
def matmul2d(a: Ptr[np.float32], b: Ptr[np.float32], c: Ptr[np.float32], n: np.uint32):
    col, row = simt.grid(2)
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


@simt.kernel
def math_mix(x: Ptr[np.float32], d: Ptr[np.float64], k: Ptr[np.int32], out: Ptr[np.float32], dout: Ptr[np.float64],
             n: np.int32):
    i = simt.grid(1)
    if i < n:
        v = x[i]
        w = d[i]
        out[10 * i] = math.sqrt(v)
        out[10 * i + 1] = math.floor(v) + math.ceil(v) * math.trunc(v)
        out[10 * i + 2] = math.fabs(v) - math.copysign(2.0, v)
        out[10 * i + 3] = math.fmod(v, 0.75)
        out[10 * i + 4] = simt.rsqrt(v)
        out[10 * i + 5] = min(v, k[i]) + max(v, 0.25)
        out[10 * i + 6] = abs(v) + k[i] * v  # int32 * float32 is float32
        out[10 * i + 7] = np.int32(v * 100) + float(k[i]) / 3
        out[10 * i + 8] = math.sqrt(k[i]) if not math.isnan(v) else np.float32(-1)
        out[10 * i + 9] = simt.fma(v, v, v) if math.isfinite(v) else np.float32(7)
        dout[2 * i] = w * v + k[i] / 7.0 - math.floor(w)
        dout[2 * i + 1] = np.float32(w) + np.uint32(k[i]) * 0.5


@simt.kernel
def sums(x: Ptr[np.float32], s32: Ptr[np.float32], s64: Ptr[np.float64], m: np.int32, n: np.int32):
    i = simt.grid(1)
    if i < n:
        a = np.float32(0)
        b = np.float64(0)
        for k in range(m):
            t = x[(i * 7 + k) % n]
            a += t * t
            b += t / 3
        s32[i] = a
        s64[i] = b


# ---------------------------------------------------------------------------- differential tests
def test_guarded_elementwise_is_bit_identical():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    a[:3] = [np.inf, np.nan, -0.0]
    (_, _, out) = same_on_both(fma_guarded, 8, 128, a, b, np.zeros(1000, np.float32), 1000)
    np.testing.assert_array_equal(out, a * b + np.float32(1.5))


I32 = hnp.arrays(np.int32, 64, elements=st.one_of(st.integers(-(1 << 31), (1 << 31) - 1),
                                                  st.sampled_from([0, -1, 1, -(1 << 31), (1 << 31) - 1])))


@settings(max_examples=25, deadline=None)
@given(a=I32, b=I32, u=hnp.arrays(np.uint32, 64))
def test_integer_arithmetic_division_and_overflow_are_bit_identical(a, b, u):
    n = 64
    _, _, _, out, uo, lo = same_on_both(int_ops, 1, 64, a, b, u, np.zeros(8 * n, np.int32),
                                        np.zeros(2 * n, np.uint32), np.zeros(n, np.int64), n)
    with np.errstate(all="ignore"):  # an independent check of C's truncating division where it is defined
        ok = (b != 0) & ~((a == -(1 << 31)) & (b == -1))
        q = np.trunc(a[ok].astype(np.float64) / b[ok]).astype(np.int64)
        assert out[0::8][ok].tolist() == q.astype(np.int32).tolist()
        assert lo.tolist() == (a.astype(np.int64) * b + u).tolist()
        assert uo[0::2].tolist() == (u + a.astype(np.uint32)).tolist()  # C: int32 converts to uint32


def test_loops_with_break_continue_negative_steps_and_early_return():
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, 300).astype(np.float32)
    for lim in (0, 5, 1000):
        same_on_both(loops, 3, 128, a, np.zeros(300, np.float32), np.zeros(600, np.int32), 300, lim)


@pytest.mark.parametrize("n", [16, 50])
def test_2d_grid_matmul_float32_accumulation(n):
    rng = np.random.default_rng(n)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    blocks = (n + 15) // 16
    (_, _, c) = same_on_both(matmul2d, (blocks, blocks), (16, 16), a, b, np.zeros((n, n), np.float32), n)
    ref = np.zeros((n, n), np.float32)
    for k in range(n):  # the kernel's order of float32 sums
        ref += a[:, k : k + 1] * b[k : k + 1, :]
    np.testing.assert_array_equal(c, ref)


@settings(max_examples=20, deadline=None)
@given(x=hnp.arrays(np.float32, 40, elements=st.floats(-1e6, 1e6, width=32) | st.sampled_from(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40])), k=hnp.arrays(np.int32, 40, elements=st.integers(-1000, 1000)))
def test_math_and_int_float_mixes_are_bit_identical(x, k):
    d = x.astype(np.float64) * 1.25
    same_on_both(math_mix, 1, 64, x, d, k, np.zeros(400, np.float32), np.zeros(80, np.float64), 40)


def test_float32_and_float64_accumulation_loops():
    x = np.random.default_rng(4).standard_normal(500).astype(np.float32)
    _, s32, s64 = same_on_both(sums, 4, 128, x, np.zeros(500, np.float32), np.zeros(500, np.float64), 200, 500)
    ref, ref64 = np.zeros(500, np.float32), np.zeros(500, np.float64)
    for k in range(200):
        t = x[(np.arange(500) * 7 + k) % 500]
        ref += t * t
        ref64 += t / np.float32(3)  # C: float32 / int is float32, then widened to the double sum
    np.testing.assert_array_equal(s32, ref)
    np.testing.assert_array_equal(s64, ref64)


# ---------------------------------------------------------------------------- faults
@simt.kernel
def reads_past(x: Ptr[np.float32], out: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    acc = np.float32(0)
    for k in range(n):
        acc += x[i + k]
    out[i] = acc


@simt.kernel
def writes_before(x: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    for k in range(3):
        x[i - n + k] = 1.0


@simt.kernel
def zero_step(x: Ptr[np.int32], n: np.int32, step: np.int32):
    i = simt.grid(1)
    for k in range(0, n, step):
        x[i] += k


@pytest.mark.parametrize("kernel, make", [
    (reads_past, lambda: (np.ones(64, np.float32), np.zeros(64, np.float32), 300)),
    (writes_before, lambda: (np.ones(64, np.float32), 40)),
    (zero_step, lambda: (np.zeros(64, np.int32), 10, 0)),
])
def test_faults_are_reported_exactly_as_by_the_numpy_engine(kernel, make):
    ref = fault_message("0", kernel, 1, 64, make())
    assert fault_message("1", kernel, 1, 64, make()) == ref
    assert kernel.__dict__.get("_jit") is not None


@simt.kernel
def lane_steps(x: Ptr[np.int32], n: np.int32):
    i = simt.grid(1)
    for k in range(n, 10, x[i]):
        x[i] += k


def test_a_per_lane_zero_step_runs_as_on_the_numpy_engine():
    # The numpy engine runs no iteration in a lane whose own step is 0 (and faults on a uniform 0 step)
    x = np.array([1, 0, 2, -1] * 16, np.int32)
    same_on_both(lane_steps, 1, 64, x, 3)


# ---------------------------------------------------------------------------- selection
@simt.kernel
def with_shared(x: Ptr[np.float32], n: np.int32):
    s = simt.shared.array(64, np.float32)
    i = simt.threadIdx.x
    s[i] = x[i]
    simt.syncthreads()
    for k in range(n):
        x[i] += s[(i + k) % 64]


def test_kernels_outside_the_subset_and_jit_off_run_on_the_numpy_engine():
    x = np.arange(64, dtype=np.float32)
    got = launch("1", with_shared, 1, 64, (x, 2))[0]
    assert with_shared.__dict__.get("_jit", 0) is None  # not translated: shared memory
    np.testing.assert_array_equal(got, x + x + np.roll(x, -1))
    launch("0", matmul2d, 1, (4, 4), (np.ones(16, np.float32), np.ones(16, np.float32), np.zeros(16, np.float32), 4))
    assert "_jit" not in matmul2d.__dict__ or matmul2d.__dict__["_jit"] is not None


def test_observed_launches_run_on_the_numpy_engine_and_report_every_access(runtime):
    class Watch:
        def __init__(self):
            self.lines = set()

        def on_kernel_access(self, rec):
            self.lines.add(rec.line)

    watch = Watch()
    runtime.bus.subscribe(watch)
    x = np.ones(64, np.float32)
    (_, out) = launch("1", reads_past, 1, 32, (x, np.zeros(64, np.float32), 4))
    assert out[:32].tolist() == [4.0] * 32
    assert len(watch.lines) == 2  # the load in the loop and the store: events only the numpy engine emits


# ---------------------------------------------------------------------------- arrays
@simt.kernel
def array_rows(a: simt.Array[np.float32, 2], w: simt.Array[np.float64, 1], out: simt.Array[np.float64, 2]):
    i, j = simt.grid(2)
    rows, cols = a.shape
    if i < rows and j < len(w):
        acc = np.float64(0)
        for k in range(cols):
            acc += a[i, k] * w[k] + a.size + out.ndim
        out[i, j] = acc + w[j]


class Transposed:
    """A 2-D device array seen transposed (strides in the array protocol)."""

    def __init__(self, dev):
        self.dev = dev

    @property
    def __acl_array_interface__(self):
        d = dict(self.dev.__acl_array_interface__)
        (r, c), isz = d["shape"], np.dtype(d["typestr"]).itemsize
        d.update(shape=(c, r), strides=(isz, c * isz))
        return d


@settings(max_examples=15, deadline=None)
@given(rows=st.integers(1, 9), cols=st.integers(1, 9), step=st.integers(1, 3), transpose=st.booleans())
def test_array_parameters_with_shapes_and_strides_are_bit_identical(rows, cols, step, transpose):
    rng = np.random.default_rng(rows * 10 + cols)
    host = rng.standard_normal((rows * step, cols)).astype(np.float32)
    w = rng.standard_normal(cols)
    outs = []
    for mode in ("0", "1"):
        with mock.patch.dict(os.environ, {"ACLSIM_SIMT_JIT": mode}), aclsim.Device(0):
            base = aclsim.to_device(host)
            a = base[::step] if not transpose else Transposed(aclsim.to_device(host[::step].T.copy()))
            dw, out = aclsim.to_device(w), aclsim.to_device(np.zeros((rows, cols)))
            array_rows[(2, 2), (8, 8)](a, dw, out)
            aclsim.Stream.default().synchronize()
            outs.append(out.copy_to_host())
    assert array_rows.__dict__.get("_jit") is not None
    assert outs[0].tobytes() == outs[1].tobytes()


def test_array_index_outside_its_dimension_faults_as_on_the_numpy_engine():
    @simt.kernel
    def past_row(a: simt.Array[np.float32, 2], n: np.int32):
        i = simt.grid(1)
        for k in range(n):
            a[i, k] = 1.0  # k reaches the next row's start: in the allocation, outside the dimension

    args = (np.zeros((4, 4), np.float32), 5)
    ref = fault_message("0", past_row, 1, 4, args)
    assert "out of bounds" in ref and fault_message("1", past_row, 1, 4, args) == ref


# ---------------------------------------------------------------------------- Python-number variables
@simt.kernel
def python_number_start(a: simt.Array[np.float32, 1], b: simt.Array[np.float32, 1], out: simt.Array[np.float32, 1],
                        counts: simt.Array[np.int64, 1]):
    i = simt.grid(1)
    if i < out.size:
        acc = 0.0  # a Python float until the first float32 sum: compiled as float32 from the start
        hits = 0
        for k in range(i, a.size):
            acc += a[k] * b[k]
            if a[k] > b[i]:
                hits += counts[k]  # a Python int, then int64
        out[i] = acc
        counts[i] = hits


@simt.kernel
def python_number_used_as_double(a: simt.Array[np.float32, 1], out: simt.Array[np.float32, 1]):
    i = simt.grid(1)
    if i < out.size:
        acc = 0.1
        if a[i] > 0:
            acc += a[i]
        out[i] = acc * 3.0  # a Python float times 3.0 is a double product: not compiled


def test_variables_starting_as_python_numbers():
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    counts = rng.integers(-5, 5, 300)
    _, _, out, _ = same_on_both(python_number_start, 3, 128, a, b, np.zeros(300, np.float32), counts)
    ref = np.zeros(300, np.float32)
    for i in range(300):
        for k in range(i, 300):
            ref[i] += a[k] * b[k]
    np.testing.assert_array_equal(out, ref)
    launch("1", python_number_used_as_double, 1, 64, (a[:64], np.zeros(64, np.float32)))
    assert python_number_used_as_double.__dict__["_jit"] is None  # left to the numpy engine


def test_a_numba_style_kernel_of_the_cuda_face_runs_compiled_with_the_same_results():
    from aclsim.simt import cuda

    @cuda.jit
    def mm(A, B, C):
        i, j = cuda.grid(2)
        if i < C.shape[0] and j < C.shape[1]:
            tmp = 0.
            for k in range(A.shape[1]):
                tmp += A[i, k] * B[k, j]
            C[i, j] = tmp

    rng = np.random.default_rng(8)
    a, b = rng.random((20, 30)), rng.random((30, 10))  # float64, as numba's examples
    outs = []
    for mode in ("0", "1"):
        with mock.patch.dict(os.environ, {"ACLSIM_SIMT_JIT": mode}), aclsim.Device(0):
            dc = cuda.device_array((20, 10), np.float64)
            mm[(2, 1), (16, 16)](cuda.to_device(a), cuda.to_device(b), dc)
            cuda.synchronize()
            outs.append(dc.copy_to_host())
    assert outs[0].tobytes() == outs[1].tobytes()
    assert [k.__dict__.get("_jit") is not None for k in mm._specs.values()] == [True]  # one specialization, compiled
    ref = np.zeros((20, 10))
    for k in range(30):  # the kernel's order of sums
        ref += a[:, k : k + 1] * b[k : k + 1, :]
    np.testing.assert_array_equal(outs[1], ref)


@simt.kernel
def maybe_undefined(x: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    for k in range(n):
        if k > 100:
            v = x[i] + k
    x[i] = v  # never assigned when n <= 101: the numpy engine faults


def test_a_variable_that_may_be_read_unassigned_leaves_the_kernel_to_the_numpy_engine():
    args = (np.ones(64, np.float32), 3)
    ref = fault_message("0", maybe_undefined, 1, 64, args)
    assert fault_message("1", maybe_undefined, 1, 64, args) == ref
    assert maybe_undefined.__dict__["_jit"] is None


@simt.kernel
def wide_shifts(a: Ptr[np.uint64], b: Ptr[np.int64], k: Ptr[np.int32], out: Ptr[np.uint64], sout: Ptr[np.int64],
                n: np.int32):
    i = simt.grid(1)
    for j in range(n):
        out[4 * i] = a[i] << (k[i] + j)
        out[4 * i + 1] = a[i] >> (k[i] - j)
        out[4 * i + 2] = a[i] / np.uint64(k[i] & 7) + a[i] % np.uint64(k[i] & 3)
        out[4 * i + 3] = a[i] // (a[i] >> 60)
        sout[2 * i] = b[i] >> (k[i] + j)
        sout[2 * i + 1] = b[i] / (k[i] - 3) + b[i] % (k[i] - 3)


def test_64_bit_unsigned_shifts_and_divisions_keep_every_bit():
    # numba would unify a uint64 with an int literal as a float64: 2^64 - 1 must survive every helper
    rng = np.random.default_rng(10)
    a = rng.integers(0, 1 << 64, 64, dtype=np.uint64)
    a[:3] = [(1 << 64) - 1, 1 << 63, 0]
    b = rng.integers(-(1 << 63), 1 << 63, 64, dtype=np.int64)
    k = rng.integers(-2, 70, 64).astype(np.int32)
    same_on_both(wide_shifts, 1, 64, a, b, k, np.zeros(256, np.uint64), np.zeros(128, np.int64), 2)


def test_by_default_only_small_launches_of_loop_kernels_take_the_jit():
    from aclsim.simt import jit

    def make():
        @simt.kernel
        def scale(n: int, x: Ptr[np.float32]):
            i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
            while i < n:  # grid-stride loop
                x[i] = x[i] * 2.0
                i += simt.gridDim.x * simt.blockDim.x
        return scale

    x = np.arange(1 << 16, dtype=np.float32)
    big, small = make(), make()
    assert launch("", big, 64, 256, [x.size, x])[0].tobytes() == (x * 2).tobytes()
    assert not big._jit.interleaved and not big._jit.launch.signatures  # 16,384 threads: never compiled or run
    assert 64 * 256 > jit.AUTO_MAX_THREADS >= 4 * 256
    assert launch("", small, 4, 256, [x.size, x])[0].tobytes() == (x * 2).tobytes()
    assert small._jit.launch.signatures  # 1,024 threads looping 64 times: compiled and run


def test_by_default_an_interleaved_loop_kernel_takes_the_jit_at_any_size():
    n = 80  # 5 x 5 blocks of 16 x 16: 6,400 threads, past the per-thread path's 4,096
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    kernel = simt.kernel(mm_f32.__wrapped__)  # a fresh kernel object: no cached JIT state
    ref = launch("0", kernel, (5, 5), (16, 16), [a.ravel(), b.ravel(), np.zeros(n * n, np.float32), n, n, n])
    got = launch("", kernel, (5, 5), (16, 16), [a.ravel(), b.ravel(), np.zeros(n * n, np.float32), n, n, n])
    assert kernel._jit.interleaved and kernel._jit.per_block  # compiled for the 16 x 16 block shape
    assert got[2].tobytes() == ref[2].tobytes()


# ---------------------------------------------------------------------------- the interleaved schedule
# A loop with block-uniform bounds and only register updates runs trip by trip over all threads of a
# block (jit._Gen.lane_plan): each thread still adds in its own order, so memory stays bit-identical.
def interleaved(kernel) -> bool:
    return kernel.__dict__["_jit"].interleaved


@simt.kernel
def mm_f32(a: Ptr[np.float32], b: Ptr[np.float32], c: Ptr[np.float32], n: np.int32, m: np.int32, p: np.int32):
    col, row = simt.grid(2)
    if row < n and col < p:
        acc = np.float32(0)
        for k in range(m):
            acc += a[row * m + k] * b[k * p + col]
        c[row * p + col] = acc


@simt.kernel
def mm_f64(a: Ptr[np.float64], b: Ptr[np.float64], c: Ptr[np.float64], n: np.int32, m: np.int32, p: np.int32):
    col, row = simt.grid(2)
    if row < n and col < p:
        acc = np.float64(0)
        for k in range(m):
            acc += a[row * m + k] * b[k * p + col]
        c[row * p + col] = acc


@simt.kernel
def mm_i32(a: Ptr[np.int32], b: Ptr[np.int32], c: Ptr[np.int32], n: np.int32, m: np.int32, p: np.int32):
    col, row = simt.grid(2)
    if row < n and col < p:
        acc = np.int32(0)
        for k in range(m):
            acc += a[row * m + k] * b[k * p + col]  # wraps
        c[row * p + col] = acc


@simt.kernel
def strided_mix(x: Ptr[np.float32], y: Ptr[np.float32], out: Ptr[np.float32], n: np.int32, m: np.int32):
    i = simt.grid(1)
    base = x[i % n]  # loaded before the loop: read per thread in it
    if i < n:
        s = np.float32(0)
        r = np.float32(1)
        for k in range(1, m, 2):
            t = y[(i * 3 + k) % n] * base
            s += t
            r = r * np.float32(0.5) + t - k
        out[2 * i] = s
        out[2 * i + 1] = r


def ordered_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b with each output's sum in the kernel's order (k ascending), in the inputs' dtype."""
    c = np.zeros((a.shape[0], b.shape[1]), a.dtype)
    with np.errstate(over="ignore"):
        for k in range(a.shape[1]):
            c += a[:, k : k + 1] * b[k : k + 1, :]
    return c


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(0, 40), p=st.integers(1, 40),
       block=st.sampled_from([(16, 16), (8, 4), (32, 1), (5, 3), (1, 7)]),
       dtype=st.sampled_from([np.float32, np.float64, np.int32]), seed=st.integers(0, 1 << 16))
def test_interleaved_matmul_guards_and_2d_grids_are_bit_identical(n, m, p, block, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype is np.int32:
        a, b = (rng.integers(-(1 << 31), 1 << 31, s, dtype=np.int64).astype(np.int32) for s in ((n, m), (m, p)))
    else:
        a, b = (rng.standard_normal(s).astype(dtype) for s in ((n, m), (m, p)))
        a.flat[:2] = [np.inf, np.nan][: a.size]
    kernel = {np.float32: mm_f32, np.float64: mm_f64, np.int32: mm_i32}[dtype]
    grid = (-(-p // block[0]), -(-n // block[1]))  # edge threads idle behind the guard
    c = np.full((n, p), 7, dtype)
    (_, _, got) = same_on_both(kernel, grid, block, a, b, c, n, m, p)
    assert interleaved(kernel)
    np.testing.assert_array_equal(got, ordered_matmul(a, b))


@settings(max_examples=15, deadline=None)
@given(x=hnp.arrays(np.float32, 50, elements=st.floats(-1e3, 1e3, width=32)),
       m=st.integers(0, 30), threads=st.integers(1, 130))
def test_interleaved_loop_with_step_temporaries_and_values_loaded_before_it(x, m, threads):
    y = x[::-1].copy()
    blocks = -(-threads // 32)
    (_, _, out) = same_on_both(strided_mix, blocks, 32, x, y, np.zeros(100, np.float32), 50, m)
    assert interleaved(strided_mix)
    i = np.arange(50)
    s, r = np.zeros(50, np.float32), np.ones(50, np.float32)
    for k in range(1, m, 2):  # the kernel's order, in float32
        t = y[(i * 3 + k) % 50] * x[i]
        s += t
        r = r * np.float32(0.5) + t - np.float32(k)
    live = i < blocks * 32  # threads past 50 are idle
    assert out[0::2][live].tobytes() == s[live].tobytes() and out[1::2][live].tobytes() == r[live].tobytes()


def test_interleaved_loop_faults_only_for_an_active_thread():
    # reads_past: every thread reads x[i + k]; past the end it faults as on the numpy engine
    args = (np.ones(64, np.float32), np.zeros(64, np.float32), 40)
    ref = fault_message("0", reads_past, 1, 64, args)
    assert fault_message("1", reads_past, 1, 64, args) == ref
    assert interleaved(reads_past)
    # mm_f32's idle edge threads would read past the end too: they do not fault
    a = np.ones((3, 5), np.float32)
    (_, _, c) = same_on_both(mm_f32, (1, 1), (16, 16), a, a.T.copy(), np.zeros((3, 3), np.float32), 3, 5, 3)
    np.testing.assert_array_equal(c, np.full((3, 3), 5, np.float32))


@simt.kernel
def thread_bounds(x: Ptr[np.float32], out: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    acc = np.float32(0)
    for k in range(i, n):  # bounds differ per thread
        acc += x[k]
    out[i] = acc


@simt.kernel
def store_in_loop(x: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    for k in range(n):
        x[i] = x[i] * 2 + k  # a store in the loop


@simt.kernel
def computed_position(x: Ptr[np.int32], out: Ptr[np.int32], n: np.int32):
    i = simt.grid(1)
    j = np.int32(i)
    for _ in range(n):
        j = x[j]  # the next position is a value the loop loads
    out[i] = j


def test_kernels_outside_the_interleaved_shape_keep_the_per_thread_schedule():
    x = np.random.default_rng(9).random(64, dtype=np.float32)
    same_on_both(thread_bounds, 1, 64, x, np.zeros(64, np.float32), 64)
    same_on_both(store_in_loop, 1, 64, x, 3)
    perm = np.random.default_rng(10).permutation(64).astype(np.int32)
    same_on_both(computed_position, 1, 64, perm, np.zeros(64, np.int32), 5)
    same_on_both(loops, 1, 64, x, np.zeros(64, np.float32), np.zeros(128, np.int32), 64, 5)  # break, return
    for kernel in (thread_bounds, store_in_loop, computed_position, loops):
        assert not interleaved(kernel)


# ---------------------------------------------------------------------------- Ctrl-C and the disk cache
_STUCK = textwrap.dedent("""
    import numpy as np
    import aclsim
    from aclsim import simt
    from aclsim.simt import Ptr

    @simt.kernel
    def stuck(x: Ptr[np.int32], n: np.int32):
        i = simt.grid(1)
        k = np.int32(0)
        while k < n:
            k = k * 2  # never advances past 0
        x[i] = k + 1

    @simt.kernel
    def later(x: Ptr[np.int32]):
        x[simt.grid(1)] = 7

    with aclsim.Device(0):
        d, e = aclsim.zeros(32, np.int32), aclsim.zeros(32, np.int32)
        stream = aclsim.Stream.default()
        stuck[1, 32](d, 0)  # compiled and run once: the next launch is inside compiled code
        stream.synchronize()
        print("engine", "jit" if stuck._jit is not None else "numpy", flush=True)
        stuck[1, 32](d, 5)
        later[1, 32](e)
        print("waiting", flush=True)
        try:
            stream.synchronize()
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        try:
            stream.synchronize()
        except aclsim.AclError as err:
            print("next wait", err.code, "interrupted" in str(err), flush=True)
        stream.synchronize()
        print("later work", e.copy_to_host()[:4].tolist(), flush=True)
""")


def test_ctrl_c_stops_a_kernel_stuck_in_compiled_code(tmp_path):
    script = tmp_path / "stuck.py"
    script.write_text(_STUCK)
    env = dict(os.environ, ACLSIM_SIMT_JIT="1", ACLSIM_SIMT_JIT_CACHE=str(tmp_path / "cache"))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env)
    try:
        assert p.stdout.readline().split() == ["engine", "jit"]
        assert p.stdout.readline().strip() == "waiting"
        time.sleep(0.5)  # (into the compiled loop; a Ctrl-C sent earlier is handled the same way)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)  # a hang guard only
    finally:
        p.kill()
    assert p.returncode == 0, err
    # exactly once: the interrupt, 507000 at the next wait, later work on the stream dropped
    assert out.splitlines() == ["interrupted", "next wait 507000 True", "later work [0, 0, 0, 0]"]


_TWICE = textwrap.dedent("""
    import sys
    import numpy as np
    import aclsim
    sys.path.insert(0, sys.argv[1])
    from matmul import matmul

    with aclsim.Device(0):
        a = aclsim.to_device(np.ones((32, 32), np.float32))
        c = aclsim.empty((32, 32))
        matmul[(2, 2), (16, 16)](a, a, c, 32)
        assert (c.copy_to_host() == 32).all()
    jk = matmul._jit
    stats = [d.stats for d in ([jk.launch] if jk.launch is not None else jk.per_block.values())]
    print(sum(s.cache_hits.total() for s in stats), sum(s.cache_misses.total() for s in stats))
""")


def test_compiled_kernels_are_cached_on_disk_for_the_next_run(tmp_path):
    script = tmp_path / "twice.py"
    script.write_text(_TWICE)
    examples = str(Path(__file__).resolve().parent.parent / "examples")
    cache = tmp_path / "cache"
    env = dict(os.environ, ACLSIM_SIMT_JIT_CACHE=str(cache))
    env.pop("ACLSIM_SIMT_JIT", None)
    runs = [subprocess.run([sys.executable, str(script), examples], capture_output=True, text=True, env=env,
                           timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert runs[0].stdout.split() == ["0", "1"]  # compiled
    assert runs[1].stdout.split() == ["1", "0"]  # loaded, not compiled again
    assert list(cache.glob("k_*.py"))
    off = subprocess.run([sys.executable, str(script), examples], capture_output=True, text=True, timeout=300,
                         env=dict(env, ACLSIM_SIMT_JIT_CACHE="0", XDG_CACHE_HOME=str(tmp_path / "xdg")))
    assert off.stdout.split()[0] == "0" and not (tmp_path / "xdg").exists()  # off: compiled in memory


def test_only_kernels_with_loops_are_handed_to_the_interruptible_worker(tmp_path):
    """A compiled kernel without a loop cannot run for long: it runs on the calling thread (the hand-off
    to the worker that makes Ctrl-C work costs a launch tens of microseconds); a loop kernel is handed off."""
    script = tmp_path / "handoff.py"
    script.write_text(textwrap.dedent('''
        import threading
        import numpy as np
        import aclsim
        from aclsim import simt

        @simt.kernel
        def straight(x: simt.Ptr[np.float32]):
            x[simt.threadIdx.x] = 1.0

        @simt.kernel
        def looping(x: simt.Ptr[np.float32]):
            for k in range(4):
                x[simt.threadIdx.x] += 1.0

        def workers():
            return sum(t.name == "aclsim-simt-jit" for t in threading.enumerate())

        with aclsim.Device(0):
            d = aclsim.zeros(32)
            straight[1, 32](d)
            aclsim.Stream.default().synchronize()
            print(workers(), end=" ")
            looping[1, 32](d)
            aclsim.Stream.default().synchronize()
            print(workers(), d.copy_to_host()[0])
    '''))
    env = dict(os.environ, ACLSIM_SIMT_JIT="1", ACLSIM_SIMT_JIT_CACHE="0")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.stdout.split() == ["0", "1", "5.0"], out.stderr

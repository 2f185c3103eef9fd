"""Per-thread local arrays, multi-dimensional shared arrays with constant-expression shapes, and
constant arrays."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
from aclsim import simt
from aclsim.simt import Ptr


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def run(kernel, grid, block, *args):
    dev = [aclsim.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid, block](*dev)
    aclsim.Stream.default().synchronize()
    return [d.copy_to_host() for d in dev if isinstance(d, aclsim.DeviceArray)]


HIST = 8
TILE = 8
COEFS = np.array([0.5, -1.0, 2.0, 0.25], np.float64)


@simt.kernel
def private_histogram(x: Ptr[np.int32], out: Ptr[np.int32], per: np.int32, n: np.int32):
    t = simt.grid(1)
    h = simt.local.array(HIST, np.int32)
    for b in range(HIST):
        h[b] = 0
    for k in range(t * per, min(t * per + per, n)):  # per-thread trip counts differ
        h[x[k] % HIST] += 1
    for b in range(HIST):
        out[t * HIST + b] = h[b]


def test_local_arrays_are_private_to_each_thread():
    x = np.random.default_rng(0).integers(0, 1000, 1000).astype(np.int32)
    out = run(private_histogram, 2, 32, x, np.zeros(64 * HIST, np.int32), 16, 1000)[1].reshape(64, HIST)
    for t in range(64):
        chunk = x[t * 16 : min(t * 16 + 16, 1000)]
        assert out[t].tolist() == np.bincount(chunk % HIST, minlength=HIST).tolist()


@simt.device
def insertion_sort(a, n):
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@simt.kernel
def median_of_window(x: Ptr[np.float32], out: Ptr[np.float32], n: np.int32):
    i = simt.grid(1)
    if i < n:
        w = simt.local.array(shape=(2, 3), dtype=np.float32)
        for k in range(5):
            j = min(max(np.int32(i) + k - 2, 0), n - 1)  # grid() is uint32, as in C
            w[k // 3, k % 3] = x[j]
        flat = simt.local.array(5, np.float32)
        for k in range(5):
            flat[k] = w[k // 3, k % 3]
        insertion_sort(flat, 5)
        out[i] = flat[2]


def test_two_dimensional_local_arrays_and_passing_one_to_a_device_function():
    x = np.random.default_rng(1).standard_normal(300).astype(np.float32)
    out = run(median_of_window, 5, 64, x, np.zeros(300, np.float32), 300)[1]
    padded = np.concatenate([[x[0]] * 2, x, [x[-1]] * 2])
    expect = np.median(np.lib.stride_tricks.sliding_window_view(padded, 5), axis=1)
    assert np.array_equal(out, expect.astype(np.float32))


@simt.kernel
def local_out_of_bounds(out: Ptr[np.int32], n: np.int32):
    i = simt.grid(1)
    a = simt.local.array((2, 4), np.int32)
    a[i % 2, i] = 1
    out[i] = a[i % 2, i]


def test_local_index_out_of_bounds_faults_naming_the_index_tuple():
    d = aclsim.to_device(np.zeros(8, np.int32))
    local_out_of_bounds[1, 8](d, 8)
    with pytest.raises(aclsim.AclError, match=r"index \(0, 4\) out of bounds in store of the local array 'a' "
                                              r"\(shape \(2, 4\), int32\) by block \(0, 0, 0\) thread \(4, 0, 0\)"):
        aclsim.Stream.default().synchronize()


@simt.kernel
def tiled_matmul(a: Ptr[np.float32], b: Ptr[np.float32], c: Ptr[np.float32], n: np.int32):
    sa = simt.shared.array((TILE, TILE + 1), np.float32)  # padded: a constant expression
    sb = simt.shared.array(shape=(TILE, TILE), dtype=np.float32)
    x, y = simt.grid(2)
    tx, ty = simt.threadIdx.x, simt.threadIdx.y
    acc = np.float32(0)
    for t in range(n // TILE):
        sa[ty, tx] = a[y * n + t * TILE + tx]
        sb[ty, tx] = b[(t * TILE + ty) * n + x]
        simt.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        simt.syncthreads()
    c[y * n + x] = acc


def test_shared_tiles_with_two_dimensional_shapes_from_constants():
    rng = np.random.default_rng(2)
    n = 32
    a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    c = run(tiled_matmul, (n // TILE, n // TILE), (TILE, TILE), a, b, np.zeros((n, n), np.float32), n)[2]
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@simt.kernel
def polynomial(x: Ptr[np.float64], out: Ptr[np.float64], n: np.int32):
    i = simt.grid(1)
    cf = simt.const.array_like(COEFS)
    if i < n:
        acc = 0.0
        for k in range(4):
            acc = acc * x[i] + cf[k]
        out[i] = acc


def test_constant_arrays_are_read_by_every_thread():
    x = np.linspace(-2, 2, 100)
    out = run(polynomial, 2, 64, x, np.zeros(100), 100)[1]
    np.testing.assert_allclose(out, np.polyval(COEFS, x), rtol=1e-14)


def test_memory_declarations_are_checked_at_compile_time():
    @simt.kernel
    def writes_const(out: Ptr[np.float64]):
        cf = simt.const.array_like(COEFS)
        cf[0] = 1.0

    @simt.kernel
    def variable_shape(out: Ptr[np.float64], n: np.int32):
        a = simt.local.array(n, np.float64)
        out[0] = a[0]

    @simt.kernel
    def bad_keyword(out: Ptr[np.float64]):
        a = simt.local.array(shape=3, type=np.float64)
        out[0] = a[0]

    with pytest.raises(simt.SimtError, match=r"writing the constant array 'cf'.*read-only"):
        writes_const.compile()
    with pytest.raises(simt.SimtError, match=r"shape or dtype is not a constant.*arithmetic on them"):
        variable_shape.compile()
    with pytest.raises(simt.SimtError, match=r"argument 'type'.*simt.local.array\(shape, dtype\)"):
        bad_keyword.compile()

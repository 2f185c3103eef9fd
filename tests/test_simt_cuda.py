"""The numba.cuda face (`from aclsim.simt import cuda`): kernels and host code written for numba, and
device arrays with shapes and strides in kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclsim
from aclsim.simt import cuda

TPB = 8


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


# ------------------------------------------------------------------------------------ kernels
@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


def test_host_arrays_are_copied_in_and_back_like_numba():
    x, y = np.arange(1000.0), np.linspace(0, 1, 1000)
    out = np.zeros(1000)
    add_kernel[(1000 + 127) // 128, 128](x, y, out)
    assert np.array_equal(out, x + y)


@cuda.jit
def naive_matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def test_two_dimensional_arrays_with_shape_and_grid2():
    rng = np.random.default_rng(0)
    a, b = rng.random((37, 21)), rng.random((21, 29))
    d_c = cuda.device_array((37, 29))
    naive_matmul[(3, 2), (16, 16)](cuda.to_device(a), cuda.to_device(b), d_c)
    np.testing.assert_allclose(d_c.copy_to_host(), a @ b, rtol=1e-13)


@cuda.jit
def tiled_matmul(a, b, c):
    sa = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    sb = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(cuda.gridDim.x):
        sa[tx, ty] = 0
        sb[tx, ty] = 0
        if x < a.shape[0] and ty + t * TPB < a.shape[1]:
            sa[tx, ty] = a[x, ty + t * TPB]
        if y < b.shape[1] and tx + t * TPB < b.shape[0]:
            sb[tx, ty] = b[tx + t * TPB, y]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sa[tx, k] * sb[k, ty]
        cuda.syncthreads()
    if x < c.shape[0] and y < c.shape[1]:
        c[x, y] = acc


def test_shared_memory_tiled_matmul():
    rng = np.random.default_rng(1)
    n = 4 * TPB
    a, b = (rng.random((n, n)).astype(np.float32) for _ in range(2))
    c = np.zeros((n, n), np.float32)
    tiled_matmul[(n // TPB, n // TPB), (TPB, TPB)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@cuda.jit
def block_sum(x, total):
    partial = cuda.shared.array(64, np.float64)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    partial[t] = x[i] if i < len(x) else 0.0
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            partial[t] += partial[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(total, 0, partial[0])


def test_reduction_with_shared_memory_and_atomics():
    x = np.random.default_rng(2).random(1000)
    total = cuda.to_device(np.zeros(1))
    block_sum[16, 64](cuda.to_device(x), total)
    cuda.synchronize()
    assert total.copy_to_host()[0] == pytest.approx(x.sum(), rel=1e-12)


@cuda.jit(device=True)
def clamp_at(a, i, j):
    n, m = a.shape
    return a[min(max(i, 0), n - 1), min(max(j, 0), m - 1)]


@cuda.jit
def blur(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        ii, jj = np.int64(i), np.int64(j)
        s = 0.0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                s += clamp_at(a, ii + di, jj + dj)
        out[i, j] = s / 9


def test_device_functions_take_arrays_and_read_their_shape():
    a = np.random.default_rng(3).random((20, 13))
    out = np.zeros_like(a)
    blur[(3, 2), (8, 8)](a, out)
    padded = np.pad(a, 1, mode="edge")
    expect = sum(padded[1 + di : 21 + di, 1 + dj : 14 + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9
    np.testing.assert_allclose(out, expect, rtol=1e-13)


@cuda.jit
def hist2d(xs, ys, h):
    i = cuda.grid(1)
    if i < xs.shape[0]:
        cuda.atomic.add(h, (ys[i], xs[i]), 1)


def test_atomics_take_index_tuples_on_2d_arrays():
    rng = np.random.default_rng(4)
    xs, ys = rng.integers(0, 5, 500).astype(np.int32), rng.integers(0, 3, 500).astype(np.int32)
    h = np.zeros((3, 5), np.int32)
    hist2d[4, 128](xs, ys, h)
    expect = np.zeros((3, 5), np.int32)
    np.add.at(expect, (ys, xs), 1)
    assert np.array_equal(h, expect)


@cuda.jit
def copy_2d(src, dst):
    i, j = cuda.grid(2)
    if i < src.shape[0] and j < src.shape[1]:
        dst[i, j] = src[i, j]


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 12), cols=st.integers(1, 12), r0=st.integers(0, 3), c0=st.integers(0, 3),
       rs=st.integers(1, 3), cs=st.integers(1, 3), flip=st.booleans())
def test_strided_views_index_like_numpy(rows, cols, r0, c0, rs, cs, flip):
    with aclsim.Device(0):
        host = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
        d = cuda.to_device(host)
        view = d[r0::rs, c0::cs]
        ref = host[r0::rs, c0::cs]
        if flip:
            view, ref = view[::-1], ref[::-1]
        if ref.size == 0:
            return
        out = cuda.device_array(ref.shape, np.float32)
        copy_2d[((ref.shape[0] + 3) // 4, (ref.shape[1] + 3) // 4), (4, 4)](view, out)
        assert np.array_equal(out.copy_to_host(), ref)


@cuda.jit
def past_the_columns(a):
    i, j = cuda.grid(2)
    a[i, j + 1] = 1.0


def test_an_index_outside_its_dimension_faults_naming_the_index_tuple():
    d = cuda.to_device(np.zeros((4, 4)))  # a[0, 4] is inside the allocation (row 1) but outside dimension 1
    past_the_columns[1, (4, 4)](d)
    with pytest.raises(aclsim.AclError, match=r"index \(0, 4\) out of bounds in store of the device array 'a' "
                                              r"\(shape \(4, 4\), float64\) by block \(0, 0, 0\) thread \(0, 3, 0\)"):
        cuda.synchronize()


@cuda.jit
def shape_facts(a, out):
    out[0] = len(a)
    out[1] = a.ndim
    out[2] = a.size
    n, m, k = a.shape
    out[3] = n * 100 + m * 10 + k


def test_len_ndim_size_and_shape_unpacking():
    out = np.zeros(4, np.int64)
    shape_facts[1, 1](cuda.device_array((2, 3, 4), np.float32), out)
    assert out.tolist() == [2, 3, 24, 234]


@cuda.jit("void(float64[:], float64)")
def scale(x, f):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = math.sqrt(x[i]) * f


def test_signatures_streams_and_numba_host_calls():
    x = np.arange(256.0)
    s = cuda.stream()
    d = cuda.to_device(x, stream=s)
    scale[2, 128, s](d, 3.0)
    s.synchronize()
    got = cuda.pinned_array(256)
    d.copy_to_host(got)
    assert np.array_equal(got, np.sqrt(x) * 3.0)


def test_what_is_not_emulated_says_so():
    with pytest.raises(AttributeError, match=r"does not emulate numba.cuda.mapped_array"):
        _ = cuda.mapped_array
    with pytest.raises(AttributeError, match=r"cuda.random.init_xoroshiro128p_states is not emulated"):
        _ = cuda.random.init_xoroshiro128p_states
    with pytest.raises(AttributeError, match=r"cuda.atomic.mul is not emulated.*add, and_, cas"):
        _ = cuda.atomic.mul
    with pytest.raises(aclsim.simt.SimtError, match=r"option.*link"):
        cuda.jit(link=["x.cu"])
    with pytest.raises(aclsim.simt.SimtError, match="dynamic shared memory size must be a byte count"):
        add_kernel[1, 32, 0, -4](np.zeros(1), np.zeros(1), np.zeros(1))


# ------------------------------------------------------------------------------------ simt.Array
@aclsim.simt.kernel
def row_sums(a: aclsim.simt.Array[np.float32, 2], out: aclsim.simt.Array[np.float64]):
    r = aclsim.simt.grid(1)
    if r < a.shape[0]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[r, k]
        out[r] = acc


def test_simt_array_annotations_take_device_arrays_and_views():
    host = np.random.default_rng(5).random((30, 12)).astype(np.float32)
    d, out = aclsim.to_device(host), aclsim.zeros(15, np.float64)
    row_sums[1, 32](d[::2, 3:], out)  # every other row, columns 3..11
    aclsim.Stream.default().synchronize()
    np.testing.assert_allclose(out.copy_to_host(), host[::2, 3:].astype(np.float64).sum(axis=1), rtol=1e-6)


def test_simt_array_arguments_must_match_the_annotation():
    out = aclsim.zeros(4, np.float64)
    with pytest.raises(aclsim.simt.SimtError, match=r"'a' is a 1-D float32 array; the kernel takes "
                                                    r"simt.Array\[float32, 2\]"):
        row_sums[1, 4](aclsim.zeros(4, np.float32), out)
    with pytest.raises(aclsim.simt.SimtError, match="'a' must be a device array"):
        row_sums[1, 4](np.zeros((2, 2), np.float32), out)


@cuda.jit
def reverse_in_blocks(x, out):
    buf = cuda.shared.array(0, dtype=np.float32)  # sized by the launch
    as_int = cuda.shared.array(0, dtype=np.int32)  # the same bytes, another type
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = buf[cuda.blockDim.x - 1 - t]
    cuda.syncthreads()
    if t == 0:
        as_int[0] = 7
    cuda.syncthreads()
    if t == 1:
        out[i] = buf[0]  # the bit pattern of int32 7 read as float32


def test_dynamic_shared_memory_is_sized_at_launch_and_declarations_alias():
    x = np.arange(128, dtype=np.float32)
    out = np.zeros(128, np.float32)
    reverse_in_blocks[2, 64, 0, 64 * 4](x, out)
    expect = x.reshape(2, 64)[:, ::-1].reshape(-1).copy()
    expect[[1, 65]] = np.array([7], np.int32).view(np.float32)[0]
    assert np.array_equal(out, expect)


def test_dynamic_shared_memory_too_small_faults_in_the_kernel():
    out = np.zeros(64, np.float32)
    with pytest.raises(aclsim.AclError, match=r"shared memory index 32 out of range"):
        reverse_in_blocks[1, 64, 0, 32 * 4](np.zeros(64, np.float32), out)


@cuda.jit
def vote_counts(x, out):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    positive = x[i] > 0
    n = cuda.syncthreads_count(positive)
    every = cuda.syncthreads_and(positive)
    some = cuda.syncthreads_or(x[i] > 100)
    cuda.threadfence()
    cuda.threadfence_block()
    if t == 0:
        b = cuda.blockIdx.x
        out[b, 0] = n
        out[b, 1] = every
        out[b, 2] = some


def test_syncthreads_count_and_or_reduce_over_each_block():
    x = np.random.default_rng(6).integers(-5, 102, 4 * 32).astype(np.int32)
    x[64:96] = np.abs(x[64:96]) + 1  # block 2: all positive
    out = np.zeros((4, 3), np.int32)
    vote_counts[4, 32](x, out)
    blocks = x.reshape(4, 32)
    assert out[:, 0].tolist() == (blocks > 0).sum(axis=1).tolist()
    assert out[:, 1].tolist() == (blocks > 0).all(axis=1).astype(int).tolist()
    assert out[:, 2].tolist() == (blocks > 100).any(axis=1).astype(int).tolist()
    assert out[2, 1] == 1


@cuda.jit
def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    first = cuda.shfl_sync(0xFFFFFFFF, x[i], 0)
    up = cuda.shfl_up_sync(0xFFFFFFFF, x[i], 1)
    flip = cuda.shfl_xor_sync(0xFFFFFFFF, x[i], 1)
    odd = cuda.ballot_sync(0xFFFFFFFF, x[i] % 2 == 1)
    pos = cuda.all_sync(0xFFFFFFFF, x[i] >= 0)
    big = cuda.any_sync(0xFFFFFFFF, x[i] > 90)
    cuda.syncwarp()
    out[i, 0] = v
    out[i, 1] = first
    out[i, 2] = up
    out[i, 3] = flip
    out[i, 4] = odd
    out[i, 5] = pos + 2 * big
    out[i, 6] = cuda.activemask() if cuda.laneid < 8 else 0


def test_warp_shuffles_and_votes_over_32_lanes():
    x = np.random.default_rng(7).integers(0, 100, 128).astype(np.int64)
    out = np.zeros((128, 7), np.int64)
    warp_sum[2, 64](x, out)
    w = x.reshape(4, 32)
    lane = np.arange(128) % 32
    assert out[lane == 0, 0].tolist() == w.sum(axis=1).tolist()
    assert out[:, 1].tolist() == np.repeat(w[:, 0], 32).tolist()
    assert out[:, 2].tolist() == np.where(lane == 0, x, np.roll(x, 1)).tolist()
    assert out[:, 3].tolist() == x.reshape(-1, 2)[:, ::-1].reshape(-1).tolist()
    bits = [sum(1 << k for k in range(32) if row[k] % 2) for row in w]
    assert out[:, 4].tolist() == np.repeat(bits, 32).tolist()
    assert out[:, 5].tolist() == np.repeat([1 + 2 * int((row > 90).any()) for row in w], 32).tolist()
    assert set(out[lane < 8, 6].tolist()) == {0xFFFFFFFF}


@cuda.jit
def divergent_shuffle(x):
    i = cuda.grid(1)
    if cuda.laneid < 16:
        x[i] = cuda.shfl_sync(0xFFFFFFFF, x[i], 0)


def test_a_divergent_warp_call_faults_instead_of_hanging():
    with pytest.raises(aclsim.AclError, match=r"shfl_sync at .* lanes \[16, 17, .*31\] named in the mask "
                                              r"0xffffffff do not take part"):
        divergent_shuffle[1, 32](np.zeros(32, np.int32))


@cuda.jit(device=True)
def min_max(a, b):
    if a < b:
        return a, b
    return b, a


@cuda.jit(device=True)
def polar(x, y):
    r = math.hypot(x, y)
    return r, math.atan2(y, x)


@cuda.jit
def sort_pairs(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        lo, hi = min_max(x[i], y[i])
        r, phi = polar(x[i], y[i])
        out[i, 0] = lo
        out[i, 1] = hi
        out[i, 2] = r
        out[i, 3] = phi


def test_device_functions_return_tuples_that_callers_unpack():
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal(100), rng.standard_normal(100)
    out = np.zeros((100, 4))
    sort_pairs[1, 128](x, y, out)
    np.testing.assert_array_equal(out[:, 0], np.minimum(x, y))
    np.testing.assert_array_equal(out[:, 1], np.maximum(x, y))
    np.testing.assert_allclose(out[:, 2], np.hypot(x, y), rtol=1e-15)
    np.testing.assert_allclose(out[:, 3], np.arctan2(y, x), rtol=1e-15)


def test_a_tuple_result_stored_into_one_element_is_refused():
    @cuda.jit
    def k(x):
        x[0] = min_max(x[1], x[2])

    with pytest.raises(aclsim.simt.SimtError, match=r"storing the 2 values of 'min_max\(x\[1\], x\[2\]\)' into one array element"):
        k[1, 1](np.zeros(3))


@cuda.jit
def heat_steps(u, tmp, steps):
    """Explicit heat equation, all steps in one launch: a grid sync between reading and writing."""
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = u.size
    for _ in range(steps):
        if 0 < i < n - 1:
            tmp[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1])
        g.sync()
        if 0 < i < n - 1:
            u[i] = tmp[i]
        g.sync()


def test_grid_sync_orders_every_block_of_a_cooperative_launch():
    u0 = np.zeros(500)
    u0[250] = 100.0
    u = u0.copy()
    heat_steps[4, 128](u, np.zeros(500), 50)
    ref = u0.copy()
    for _ in range(50):
        nxt = ref.copy()
        nxt[1:-1] = ref[1:-1] + 0.25 * (ref[:-2] - 2 * ref[1:-1] + ref[2:])
        ref = nxt
    np.testing.assert_allclose(u, ref, rtol=1e-12)


def test_a_grid_sync_on_too_many_blocks_is_refused_at_launch():
    with pytest.raises(aclsim.simt.SimtError, match=r"all its blocks must be resident at once: 100000 blocks"):
        heat_steps[100000, 128](np.zeros(8), np.zeros(8), 1)


@cuda.jit
def monte_carlo_pi(states, hits, draws):
    i = cuda.grid(1)
    if i < hits.size:
        inside = 0
        for _ in range(draws):
            x = cuda.random.xoroshiro128p_uniform_float32(states, i)
            y = cuda.random.xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                inside += 1
        hits[i] = inside


@cuda.jit
def normals(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(out.shape[1]):
            out[i, k] = cuda.random.xoroshiro128p_normal_float64(states, i)


def test_per_thread_random_numbers():
    n = 256
    states = cuda.random.create_xoroshiro128p_states(n, seed=42)
    hits = np.zeros(n, np.int32)
    monte_carlo_pi[2, 128](states, hits, 200)
    assert abs(4 * hits.sum() / (n * 200) - np.pi) < 0.05
    assert len(set(hits.tolist())) > 10  # threads draw different streams
    out = np.zeros((n, 40))
    normals[2, 128](cuda.random.create_xoroshiro128p_states(n, seed=7), out)
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05
    again = np.zeros((n, 40))
    normals[2, 128](cuda.random.create_xoroshiro128p_states(n, seed=7), again)
    assert np.array_equal(out, again)  # the same seed gives the same numbers


@aclsim.simt.kernel
def row_norms(a: aclsim.simt.Array[np.float64, 2], out: aclsim.simt.Array[np.float64]):
    r = aclsim.simt.grid(1)
    if r < a.shape[0]:
        row = a[r]  # a 1-D view of row r
        acc = 0.0
        for k in range(row.shape[0]):
            acc += row[k] * row[k]
        out[r] = math.sqrt(acc)


def test_a_row_of_a_2d_array_is_a_1d_view():
    host = np.random.default_rng(9).standard_normal((40, 9))
    d, out = aclsim.to_device(host), aclsim.zeros(20, np.float64)
    row_norms[1, 64](d[::2], out)
    aclsim.Stream.default().synchronize()
    np.testing.assert_allclose(out.copy_to_host(), np.linalg.norm(host[::2], axis=1), rtol=1e-14)


@cuda.jit
def masked_votes(x, mask, out):
    i = cuda.grid(1)
    if (mask >> cuda.laneid) & 1:
        out[i, 0] = cuda.ballot_sync(mask, x[i] > 0)
        out[i, 1] = cuda.shfl_xor_sync(mask, x[i], 0)
        out[i, 2] = cuda.any_sync(mask, x[i] > 0)


@settings(max_examples=30, deadline=None)
@given(mask=st.integers(1, 2**32 - 1), seed=st.integers(0, 1000))
def test_votes_with_random_masks_see_only_the_named_lanes(mask, seed):
    with aclsim.Device(0):
        x = np.random.default_rng(seed).integers(-3, 3, 64).astype(np.int64)
        out = np.full((64, 3), -1, np.int64)
        masked_votes[1, 64](x, mask, out)
        for w in range(2):
            xs = x[32 * w : 32 * w + 32]
            bits = sum(1 << k for k in range(32) if xs[k] > 0) & mask
            for k in range(32):
                row = out[32 * w + k].tolist()
                assert row == ([bits, int(xs[k]), int(bits != 0)] if mask >> k & 1 else [-1, -1, -1])


@cuda.jit
def mandelbrot(c, out, iters):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        z = 0j
        n = 0
        while n < iters and abs(z) <= 2.0:
            z = z * z + c[i, j]
            n += 1
        out[i, j] = n


def test_complex_arithmetic_in_kernels():
    re, im = np.meshgrid(np.linspace(-2, 0.5, 30), np.linspace(-1.2, 1.2, 20))
    c = (re + 1j * im).astype(np.complex128)
    out = np.zeros(c.shape, np.int32)
    mandelbrot[(3, 4), (8, 8)](c, out, 30)
    expect = np.zeros(c.shape, np.int32)
    for idx, cv in np.ndenumerate(c):
        z, n = 0j, 0
        while n < 30 and abs(z) <= 2.0:
            z = z * z + cv
            n += 1
        expect[idx] = n
    assert np.array_equal(out, expect)


@cuda.jit
def rotate(z, angle, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i] * complex(math.cos(angle), math.sin(angle))
        out[i, 0] = w.real
        out[i, 1] = w.imag


def test_complex64_stays_complex64_and_real_imag_parts():
    z = (np.arange(16) + 1j * np.arange(16)[::-1]).astype(np.complex64)
    out = np.zeros((16, 2), np.float32)
    rotate[1, 16](z, 0.5, out)
    w = z * np.complex128(complex(math.cos(0.5), math.sin(0.5)))
    np.testing.assert_allclose(out[:, 0], w.real, rtol=1e-5)
    np.testing.assert_allclose(out[:, 1], w.imag, rtol=1e-5)

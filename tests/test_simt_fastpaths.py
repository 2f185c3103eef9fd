"""Fast paths of the SIMT engine give the general path's results, faults and reports.

Each fast path (uniform loops and their deferred merges, scalar arithmetic with literals, affine
and contiguous loads and stores, shared-memory windows and views, fused stores, in-place updates,
per-block conditions, chunk sizes) is run against a numpy reference computed here, and next to the
same computation forced onto the general per-lane path (bounds or indices loaded per lane, or an
access observer subscribed, which makes every access report its lanes). Faults keep their line.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclsim
from aclsim import simt
from aclsim.simt import Ptr, cuda, threadIdx


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def run(kernel, grid, block, *args):
    """Launch on device copies of the numpy arguments; the arrays after the kernel, in order."""
    dev = [aclsim.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid, block](*dev)
    aclsim.Stream.default().synchronize()
    return [d.copy_to_host() for d in dev if isinstance(d, aclsim.DeviceArray)]


def line_of(fn, text: str) -> int:
    """The file line number of the first source line of fn containing text."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, s in enumerate(lines) if text in s)


# ------------------------------------------------------------------------- uniform loops
@simt.kernel
def loop_uniform(start: np.int32, stop: np.int32, step: np.int32, out: Ptr[np.int32]):
    t = threadIdx.x
    acc = np.int32(0)
    n = np.int32(0)
    for k in range(start, stop, step):
        acc += k * (t + 1)
        n += 1
    out[2 * t] = acc
    out[2 * t + 1] = n


@simt.kernel
def loop_per_lane(bounds: Ptr[np.int32], out: Ptr[np.int32]):
    t = threadIdx.x
    acc = np.int32(0)
    n = np.int32(0)
    for k in range(bounds[3 * t], bounds[3 * t + 1], bounds[3 * t + 2]):  # per-lane bounds: the general path
        acc += k * (t + 1)
        n += 1
    out[2 * t] = acc
    out[2 * t + 1] = n


def _loop_reference(start: int, stop: int, step: int, lanes: int) -> list[int]:
    ks = range(start, stop, step)
    return [v for t in range(lanes) for v in (sum(k * (t + 1) for k in ks), len(ks))]


@settings(max_examples=40, deadline=None)
@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(bool))
def test_uniform_for_loop_matches_the_per_lane_loop_and_python_range(start, stop, step):
    lanes = 4
    (fast,) = run(loop_uniform, 1, lanes, start, stop, step, np.zeros(2 * lanes, np.int32))
    bounds = np.tile(np.array([start, stop, step], np.int32), lanes)
    (slow,) = run(loop_per_lane, 1, lanes, bounds, np.zeros(2 * lanes, np.int32))[1:]
    assert fast.tolist() == slow.tolist() == _loop_reference(start, stop, step, lanes)


@simt.kernel
def loop_u32_down(start: np.uint32, out: Ptr[np.uint32]):
    n = np.uint32(0)
    for _k in range(start, -1, -1):  # -1 converts to 4294967295 in the uint32 comparison: no trip at all
        n += 1
    out[0] = n


@simt.kernel
def loop_u32_down_to_zero(start: np.uint32, out: Ptr[np.uint32]):
    n = np.uint32(0)
    for k in range(start, 0, -1):
        n += k
    out[0] = n


def test_uniform_loop_follows_c_conversions_of_unsigned_counters():
    assert run(loop_u32_down, 1, 1, 5, np.zeros(1, np.uint32))[0][0] == 0
    assert run(loop_u32_down_to_zero, 1, 1, 5, np.zeros(1, np.uint32))[0][0] == 5 + 4 + 3 + 2 + 1


@simt.kernel
def loop_wraps(stop: np.int32, out: Ptr[np.int32]):
    n = np.int32(0)
    for _k in range(2147483600, stop, 20):  # the counter would pass INT32_MAX: left to the per-lane path
        n += 1
        if n == 10:
            break
    out[0] = n


def test_a_counter_that_would_wrap_keeps_the_general_loop():
    # C: signed overflow; the emulator wraps like the hardware's 32-bit add, so the loop goes on
    assert run(loop_wraps, 1, 1, 2147483647, np.zeros(1, np.int32))[0][0] == 10
    from aclsim.simt.ops import uniform_trips

    assert uniform_trips(np.int32(2147483600), np.int32(2147483647), 20) is None
    assert uniform_trips(np.int32(0), np.int32(10), 3) == len(range(0, 10, 3))


@simt.kernel
def loop_oob(x: Ptr[np.float32], out: Ptr[np.float32], n: np.int32):
    acc = np.float32(0)
    for k in range(n):
        acc += x[k]  # reads past x when n > len(x)
    out[threadIdx.x] = acc


def test_out_of_range_load_in_a_uniform_loop_faults_at_its_line():
    x = np.arange(8, dtype=np.float32)
    assert run(loop_oob, 1, 2, x, np.zeros(2, np.float32), 8)[1].tolist() == [x.sum()] * 2
    with pytest.raises(aclsim.AclError) as e:
        run(loop_oob, 1, 2, x, np.zeros(2, np.float32), 1 << 22)
    assert f":{line_of(loop_oob.fn, 'acc += x[k]')}" in str(e.value)
    assert "illegal address" in str(e.value) and "load x[" in str(e.value)


@simt.kernel
def loop_in_branch(x: Ptr[np.int32], out: Ptr[np.int32], n: np.int32):
    t = threadIdx.x
    k = np.int32(-1)
    if t % 2 == 0:
        for k in range(n):  # uniform trip count inside a partial mask
            out[t] += x[k]
    out[t] += 1000 * k  # odd lanes keep k = -1


def test_uniform_loop_under_a_partial_mask_keeps_inactive_lanes():
    x = np.arange(1, 6, dtype=np.int32)
    (out,) = run(loop_in_branch, 1, 6, x, np.zeros(6, np.int32), 5)[1:]
    ref = [int(x.sum()) + 4000 if t % 2 == 0 else -1000 for t in range(6)]
    assert out.tolist() == ref


# ------------------------------------------------------------------------- scalar arithmetic
@simt.kernel
def literal_ops(a: np.int32, b: np.uint32, f: np.float32, out_i: Ptr[np.int32], out_u: Ptr[np.uint32],
                out_f: Ptr[np.float32]):
    out_i[0] = a + 1
    out_i[1] = a * 3
    out_i[2] = 7 - a
    out_u[0] = b - 1
    out_u[1] = b + 4294967295  # literal in range: wraps as uint32
    out_u[2] = b + -1  # negative literal: converted to uint32 first (general path)
    out_f[0] = f * 1.1  # float literal does not widen float32
    out_f[1] = f + 3


@pytest.mark.parametrize("a,b,f", [(2147483647, 0, 1.5), (-2147483648, 3, -2.25), (5, 4294967295, 1e30)])
def test_scalar_literal_arithmetic_wraps_and_keeps_types_like_c(a, b, f):
    oi, ou, of = run(literal_ops, 1, 1, a, b, np.float32(f), np.zeros(3, np.int32), np.zeros(3, np.uint32),
                     np.zeros(2, np.float32))
    wrap = lambda v, bits, signed: ((v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))) if signed \
        else v % (1 << bits)  # noqa: E731
    assert oi.tolist() == [wrap(a + 1, 32, True), wrap(a * 3, 32, True), wrap(7 - a, 32, True)]
    assert ou.tolist() == [wrap(b - 1, 32, False), wrap(b + 4294967295, 32, False), wrap(b - 1, 32, False)]
    f32 = np.float32(f)
    assert of.tolist() == [float(f32 * np.float32(1.1)), float(f32 + np.float32(3))]


# ------------------------------------------------------------------------- affine (lattice) loads
@simt.kernel
def affine_load(x: Ptr[np.int32], out: Ptr[np.int32], a: np.int32, b: np.int32, c: np.int32, d: np.int32,
                e: np.int32):
    tx, ty = simt.threadIdx.x, simt.threadIdx.y
    bx, by = simt.blockIdx.x, simt.blockIdx.y
    lin = (by * simt.gridDim.x + bx) * (simt.blockDim.x * simt.blockDim.y) + ty * simt.blockDim.x + tx
    out[lin] = x[a * tx + b * ty + c * bx + d * by + e]


def _affine_reference(x, grid, block, coefs):
    a, b, c, d, e = coefs
    by, bx, ty, tx = np.meshgrid(*(np.arange(n) for n in (grid[1], grid[0], block[1], block[0])), indexing="ij")
    return x[(a * tx + b * ty + c * bx + d * by + e).reshape(-1)]


@settings(max_examples=30, deadline=None)
@given(st.tuples(st.integers(1, 5), st.integers(1, 4)), st.tuples(st.integers(1, 9), st.integers(1, 5)),
       st.tuples(*(st.integers(-6, 6) for _ in range(4))))
def test_affine_loads_over_random_grids_match_numpy(grid, block, coefs4):
    a, b, c, d = coefs4
    dims = (block[0], block[1], grid[0], grid[1])
    lo = sum(min(0, k * (n - 1)) for k, n in zip(coefs4, dims, strict=True))
    hi = sum(max(0, k * (n - 1)) for k, n in zip(coefs4, dims, strict=True))
    e = -lo  # every index in [0, hi - lo]
    x = np.arange(3, hi - lo + 4, dtype=np.int32) * 7
    lanes = grid[0] * grid[1] * block[0] * block[1]
    (out,) = run(affine_load, grid, block, x, np.zeros(lanes, np.int32), a, b, c, d, e)[1:]
    assert out.tolist() == _affine_reference(x, grid, block, (a, b, c, d, e)).tolist()


def test_affine_loads_over_chunks_that_are_not_boxes_of_the_grid():
    grid, block = (3000, 2), (128, 1)  # chunks of 2,048 blocks: some span two grid rows
    x = np.random.default_rng(5).integers(-1000, 1000, 3000 * 2 * 2 + 8).astype(np.int32)
    (out,) = run(affine_load, grid, block, x, np.zeros(3000 * 2 * 128, np.int32), 0, 0, 2, 6000, 1)[1:]
    assert out.tolist() == _affine_reference(x, grid, block, (0, 0, 2, 6000, 1)).tolist()


def test_affine_load_out_of_range_still_faults_at_its_line():
    x = np.arange(40, dtype=np.int32)
    with pytest.raises(aclsim.AclError) as e:
        run(affine_load, (4, 2), (8, 1), x, np.zeros(64, np.int32), 1, 0, 8, 32, 1 << 20)
    assert "illegal address" in str(e.value) and f":{line_of(affine_load.fn, 'out[lin] = x[')}" in str(e.value)


@simt.kernel
def add_previous_block(out: Ptr[np.float32], per_block: Ptr[np.float32], n: np.uint32):
    i = simt.grid(1)
    b = simt.blockIdx.x
    if i < n and b > 0:
        out[i] += per_block[b - 1]  # b - 1 is out of range only in block 0, where no lane loads it


@pytest.mark.parametrize("n", [(1 << 18) + 5000, 1 << 18])  # a partial last block, or whole blocks only
def test_per_block_values_under_a_mask_that_excludes_the_out_of_range_block(n):
    tpb = 128
    nb = -(-n // tpb)
    out = np.arange(n, dtype=np.float32)
    per_block = np.random.default_rng(6).random(nb, dtype=np.float32)
    (got,) = run(add_previous_block, nb, tpb, out, per_block, n)[:1]
    ref = out.copy()
    ref[tpb:] += per_block[np.arange(tpb, n) // tpb - 1]
    assert got.tolist() == ref.tolist()


# ------------------------------------------------------------------------- shared-memory windows
TILE = 64


@simt.kernel
def block_scan_i32(x: Ptr[np.int32], out: Ptr[np.int32]):
    tile = simt.shared.array(TILE, np.int32)
    t = simt.threadIdx.x
    i = simt.grid(1)
    tile[t] = x[i]
    simt.syncthreads()
    d = 1
    while d < TILE:
        v = tile[t - d] if t >= d else np.int32(0)
        simt.syncthreads()
        tile[t] += v
        simt.syncthreads()
        d *= 2
    out[i] = tile[t]


def test_shared_memory_scan_with_shifted_masked_reads_matches_cumsum():
    x = np.random.default_rng(7).integers(-100, 100, 5 * TILE).astype(np.int32)
    (out,) = run(block_scan_i32, 5, TILE, x, np.zeros_like(x))[1:]
    assert out.tolist() == np.cumsum(x.reshape(5, TILE), axis=1).reshape(-1).tolist()


@simt.kernel
def shifted_store(x: Ptr[np.int32], out: Ptr[np.int32], shift: np.int32):
    tile = simt.shared.array(TILE, np.int32)
    t = simt.threadIdx.x
    tile[t] = -1
    simt.syncthreads()
    if t >= shift:
        tile[t - shift] = x[t]  # a masked store through a shifted window
    simt.syncthreads()
    out[simt.grid(1)] = tile[t]


def test_masked_shifted_shared_store_writes_only_active_threads():
    x = np.arange(100, 100 + TILE, dtype=np.int32)
    (out,) = run(shifted_store, 2, TILE, x, np.zeros(2 * TILE, np.int32), 5)[1:]
    ref = np.full(TILE, -1, np.int32)
    ref[: TILE - 5] = x[5:]
    assert out.tolist() == np.tile(ref, 2).tolist()


@simt.kernel
def shared_underflow(x: Ptr[np.int32], out: Ptr[np.int32]):
    tile = simt.shared.array(TILE, np.int32)
    t = simt.threadIdx.x
    tile[t] = x[t]
    simt.syncthreads()
    if t < 10:
        out[t] = tile[t - 1]  # thread 0 reads tile[-1]


def test_shifted_shared_read_below_zero_faults_naming_the_thread_and_line():
    with pytest.raises(aclsim.AclError) as e:
        run(shared_underflow, 1, TILE, np.arange(TILE, dtype=np.int32), np.zeros(TILE, np.int32))
    msg = str(e.value)
    assert "shared memory index" in msg and "thread (0, 0, 0)" in msg
    assert f":{line_of(shared_underflow.fn, 'out[t] = tile[t - 1]')}" in msg


# ------------------------------------------------------------------------- contiguous accesses under data masks
@simt.kernel
def clamp_negative(x: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    i = simt.grid(1)
    if i < n and x[i] < 0:  # a data-dependent mask: lanes are not a contiguous run
        out[i] = x[i] * 2
        out[i] += 1


def test_contiguous_store_under_a_data_mask_writes_only_active_lanes():
    x = np.random.default_rng(8).standard_normal(3000).astype(np.float32)
    out0 = np.full(3000, 7, np.float32)
    (out,) = run(clamp_negative, 12, 256, x, out0, 3000)[1:]
    ref = np.where(x < 0, x * np.float32(2) + np.float32(1), out0)
    assert out.tolist() == ref.tolist()


class AccessLog:
    def __init__(self):
        self.events = []

    def on_kernel_access(self, access):
        self.events.append(access)


def observed(kernel, grid, block, *args):
    """Run with an access observer subscribed; the kernel's access events."""
    from aclsim.runtime import get_runtime

    log = AccessLog()
    get_runtime().bus.subscribe(log)
    try:
        run(kernel, grid, block, *args)
    finally:
        get_runtime().bus.unsubscribe(log)
    return log.events


def test_observers_still_get_every_active_lane_of_fast_path_accesses():
    x = np.arange(-20, 20, dtype=np.float32)
    load_i, load_again, store, load_out, store2 = observed(clamp_negative, 1, 64, x, np.zeros(40, np.float32), 40)
    assert np.array_equal(np.asarray(load_i.lanes), np.arange(40))  # lanes 40..63 fail i < n
    for e in (load_again, store, load_out, store2):  # x < 0 in lanes 0..19
        assert np.array_equal(np.asarray(e.lanes), np.arange(20))
    xs = np.arange(3, 50, dtype=np.int32)
    (e,) = [a for a in observed(affine_load, (2, 2), (3, 2), xs, np.zeros(24, np.int32), 2, 1, 6, 3, 4)
            if not a.write]
    ref = _affine_reference(np.arange(xs.size), (2, 2), (3, 2), (2, 1, 6, 3, 4))
    assert np.array_equal(np.asarray(e.offsets), ref * 4) and np.array_equal(np.asarray(e.lanes), np.arange(24))


# ------------------------------------------------------------------------- stores of a op b op c
@simt.kernel
def fused_forms(a: np.float32, x: Ptr[np.float32], y: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    i = simt.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]
        out[n + i] = y[i] - a * x[i]  # the pending operand on the right of a non-commutative op
        out[2 * n + i] = x[i] * 1.1 + 3  # weak literals keep float32
        y[i] = y[i] * 2 - out[i + 1]  # operands read before the store, even from the destination


def test_stores_of_two_operations_round_like_the_two_operations():
    n = 700
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a = np.float32(1.7)
    _, y_after, out = run(fused_forms, 3, 256, a, x, y.copy(), np.zeros(3 * n + 1, np.float32), n)
    ref = np.zeros(3 * n + 1, np.float32)
    ref[:n] = a * x + y
    ref[n : 2 * n] = y - a * x
    ref[2 * n : 3 * n] = x * np.float32(1.1) + np.float32(3)
    assert out.tolist() == ref.tolist()
    assert y_after.tolist() == (y * np.float32(2) - ref[1 : n + 1]).tolist()


@simt.kernel
def wide_inner(x: Ptr[np.float64], y: Ptr[np.float64], z: Ptr[np.float32], out: Ptr[np.float32]):
    i = simt.grid(1)
    out[i] = x[i] * y[i] + z[i]  # the product is float64: rounded once, at the store


def test_a_wider_inner_operation_is_not_rounded_to_the_destination_first():
    rng = np.random.default_rng(10)
    x, y = rng.standard_normal(512), rng.standard_normal(512)
    z = rng.standard_normal(512).astype(np.float32)
    (out,) = run(wide_inner, 2, 256, x, y, z, np.zeros(512, np.float32))[3:]
    assert out.tolist() == (x * y + z.astype(np.float64)).astype(np.float32).tolist()


# ------------------------------------------------------------------------- uniform indices
@simt.kernel
def read_at(x: Ptr[np.float32], out: Ptr[np.float32], k: np.int32):
    out[threadIdx.x] = x[k]  # one index for every thread


def test_uniform_index_loads_read_the_element_and_fault_outside_the_allocation():
    x = np.arange(10, dtype=np.float32)
    assert run(read_at, 1, 3, x, np.zeros(3, np.float32), 7)[1].tolist() == [7.0] * 3
    for bad in (-1, 1 << 20):
        with pytest.raises(aclsim.AclError) as e:
            run(read_at, 1, 3, x, np.zeros(3, np.float32), bad)
        assert f"load x[{bad}]" in str(e.value) and f":{line_of(read_at.fn, 'x[k]')}" in str(e.value)


# ------------------------------------------------------------------------- per-block conditions
@simt.kernel
def block_conditions(out: Ptr[np.int32], lo: np.uint32, hi: np.int32):
    i = simt.grid(1)
    b = simt.blockIdx.x
    v = np.int32(0)
    if b >= lo:
        v += 1
    if 3 * b - 7 < hi:  # b - 7 wraps below zero as uint32 for the first blocks
        v += 10
    if b * 2 + 1 <= hi:
        v += 100
    out[i] = v


@pytest.mark.parametrize("lo,hi", [(0, 0), (3, 11), (2100, 4000), (5000, -1)])
def test_conditions_on_block_indices_match_numpy_across_chunks(lo, hi):
    nb, tpb = 2200, 128  # two chunks of blocks
    (out,) = run(block_conditions, nb, tpb, np.zeros(nb * tpb, np.int32), lo, hi)
    b = np.repeat(np.arange(nb, dtype=np.int64), tpb)
    u32 = lambda v: v % (1 << 32)  # noqa: E731  (uint32 arithmetic; int32 hi converts to uint32)
    ref = (b >= lo) * 1 + (u32(3 * b - 7) < u32(hi)) * 10 + (u32(b * 2 + 1) <= u32(hi)) * 100
    assert out.tolist() == ref.tolist()


@simt.kernel
def mixed_store(x: Ptr[np.float32], k: Ptr[np.int64], out: Ptr[np.float32]):
    i = simt.grid(1)
    out[i] = x[i] + k[i]  # C: k converts to float32 first; never a float64 sum rounded once


def test_a_store_of_mixed_operand_types_converts_like_c():
    x = np.ones(4, np.float32)
    k = np.array([2**24 + 1, 3, 2**30 + 65, -(2**24) - 3], np.int64)
    (out,) = run(mixed_store, 1, 4, x, k, np.zeros(4, np.float32))[2:]
    assert out.tolist() == (x + k.astype(np.float32)).tolist()


@simt.kernel
def shared_axpy(x: Ptr[np.float32], out: Ptr[np.float32], a: np.float32):
    tile = simt.shared.array(TILE, np.float32)
    t = simt.threadIdx.x
    i = simt.grid(1)
    tile[t] = x[i]
    tile[t] = tile[t] * a  # computed into the block rows
    tile[t] -= x[i] * np.float64(0.5)  # a float64 operand: converted like C, not computed in place
    out[i] = tile[t]


def test_shared_memory_stores_of_operations_round_like_c():
    x = np.random.default_rng(11).standard_normal(3 * TILE).astype(np.float32)
    (out,) = run(shared_axpy, 3, TILE, x, np.zeros_like(x), np.float32(1.3))[1:]
    ref = ((x * np.float32(1.3)).astype(np.float64) - x.astype(np.float64) * 0.5).astype(np.float32)
    assert out.tolist() == ref.tolist()


# ------------------------------------------------------------------------- loops with 2-D grids and barriers
@simt.kernel
def mm(a: Ptr[np.float32], b: Ptr[np.float32], c: Ptr[np.float32], n: np.uint32, kmax: np.uint32):
    col, row = simt.grid(2)
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(kmax):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


def test_matmul_in_a_uniform_loop_sums_in_order_and_faults_past_the_matrix():
    n = 24
    rng = np.random.default_rng(12)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    (c,) = run(mm, (3, 3), (8, 8), a, b, np.zeros((n, n), np.float32), n, n)[2:]
    ref = np.zeros((n, n), np.float32)
    for k in range(n):  # float32, one rounding per multiply and per add, k in order
        ref = ref + np.outer(a[:, k], b[k, :])
    assert c.tolist() == ref.tolist()
    with pytest.raises(aclsim.AclError) as e:
        run(mm, (3, 3), (8, 8), a, b, np.zeros((n, n), np.float32), n, 4 * n)
    assert "illegal address" in str(e.value) and f":{line_of(mm.fn, 'acc += a[row * n + k]')}" in str(e.value)


@simt.kernel
def sync_in_loop(out: Ptr[np.int32], rounds: np.int32):
    tile = simt.shared.array(TILE, np.int32)
    t = simt.threadIdx.x
    tile[t] = t
    if t < TILE - 1:  # part of the block runs a loop with a barrier: an error, not a hang
        for _ in range(rounds):
            simt.syncthreads()
            tile[t] += 1
    out[t] = tile[t]


def test_a_barrier_in_a_uniform_loop_under_divergence_is_reported():
    with pytest.raises(aclsim.AclError, match="barrier divergence"):
        run(sync_in_loop, 1, TILE, np.zeros(TILE, np.int32), 3)


# ------------------------------------------------------------------------- multi-dimensional affine indices
TPB2 = 8


@simt.kernel
def tiled_mm(a: simt.Array[np.float32, 2], b: simt.Array[np.float32, 2], c: simt.Array[np.float32, 2]):
    sa = simt.shared.array((TPB2, TPB2), np.float32)
    sb = simt.shared.array((TPB2, TPB2), np.float32)
    x, y = simt.grid(2)
    tx, ty = simt.threadIdx.x, simt.threadIdx.y
    acc = np.float32(0)
    for i in range(simt.gridDim.x):
        sa[tx, ty] = a[x, ty + i * TPB2]
        sb[tx, ty] = b[tx + i * TPB2, y]
        simt.syncthreads()
        for j in range(TPB2):
            acc += sa[tx, j] * sb[j, ty]
        simt.syncthreads()
    c[x, y] = acc


def test_shared_memory_tiled_matmul_equals_an_in_order_float32_sum():
    n = 4 * TPB2
    rng = np.random.default_rng(13)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    (c,) = run(tiled_mm, (4, 4), (TPB2, TPB2), a, b, np.zeros((n, n), np.float32))[2:]
    ref = np.zeros((n, n), np.float32)
    for k in range(n):
        ref = ref + np.outer(a[:, k], b[k, :])
    assert c.tolist() == ref.tolist()


@simt.kernel
def row_col(a: simt.Array[np.int32, 2], out: simt.Array[np.int32, 2], shift: np.int32):
    i, j = simt.grid(2)
    out[j, i] = a[j, i + shift]  # i + shift may leave the row while staying inside the allocation


def test_two_dimensional_index_outside_its_dimension_faults_naming_the_tuple():
    a = np.arange(8 * 16, dtype=np.int32).reshape(8, 16)
    (out,) = run(row_col, (2, 2), (4, 4), a, np.zeros((8, 8), np.int32), 3)[1:]
    assert out.tolist() == a[:, 3:11].tolist()
    with pytest.raises(aclsim.AclError) as e:
        run(row_col, (2, 2), (4, 4), a, np.zeros((8, 8), np.int32), 9)
    assert "index (0, 16) out of bounds" in str(e.value) and f":{line_of(row_col.fn, 'a[j, i + shift]')}" in str(e.value)


@simt.kernel
def shared_patterns(out: Ptr[np.int32]):
    s = simt.shared.array((4, 16), np.int32)
    tx, ty = simt.threadIdx.x, simt.threadIdx.y
    s[ty, tx] = 100 * ty + tx
    simt.syncthreads()
    v = s[3 - ty, 15 - tx] + s[0, tx]  # reversed (negative steps) and broadcast reads
    simt.syncthreads()
    s[0, tx] = tx  # every row of threads writes row 0: not a one-to-one store
    simt.syncthreads()
    out[ty * 16 + tx] = v * 1000 + s[0, tx]


def test_shared_memory_reads_and_writes_with_affine_tuple_indices():
    (out,) = run(shared_patterns, 1, (16, 4), np.zeros(64, np.int32))
    ty, tx = np.divmod(np.arange(64), 16)
    ref = ((100 * (3 - ty) + (15 - tx)) + tx) * 1000 + tx
    assert out.tolist() == ref.tolist()


@simt.kernel
def dynamic_strided(out: Ptr[np.float32]):
    d = simt.shared.array(0, np.float32)
    t = simt.threadIdx.x
    d[2 * t + 1] = t * 0.5
    d[2 * t] = -1.0
    simt.syncthreads()
    out[simt.grid(1)] = d[t]


def test_strided_accesses_to_dynamic_shared_memory():
    cfg = dynamic_strided[3, 32, 0, 64 * 4]
    dev = aclsim.zeros(96)
    cfg(dev)
    aclsim.Stream.default().synchronize()
    per_block = np.where(np.arange(32) % 2 == 1, (np.arange(32) // 2) * 0.5, -1.0)
    assert dev.copy_to_host().tolist() == np.tile(per_block, 3).astype(np.float32).tolist()


@simt.kernel
def reverse(x: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    i = simt.grid(1)
    if i < n:
        out[i] = x[n - 1 - i]  # a lazy index with a negative coefficient: a reversed view


def test_reversed_index_reads_backwards_and_faults_when_it_wraps():
    x = np.arange(1000, dtype=np.float32)
    (out,) = run(reverse, 4, 256, x, np.zeros(1000, np.float32), 1000)[1:]
    assert out.tolist() == x[::-1].tolist()
    with pytest.raises(aclsim.AclError, match="illegal address"):
        run(reverse, 5, 256, x, np.zeros(2000, np.float32), 1200)  # lane 0 reads x[1199]


@simt.kernel
def affine_2d(a: simt.Array[np.int32, 2], out: Ptr[np.int32], p: np.int32, q: np.int32, r: np.int32,
              s: np.int32, u: np.int32, w: np.int32):
    tx, ty = simt.threadIdx.x, simt.threadIdx.y
    bx, by = simt.blockIdx.x, simt.blockIdx.y
    lin = (by * simt.gridDim.x + bx) * (simt.blockDim.x * simt.blockDim.y) + ty * simt.blockDim.x + tx
    out[lin] = a[p * tx + q * bx + r, s * ty + u * by + w]


@settings(max_examples=30, deadline=None)
@given(st.tuples(st.integers(1, 3), st.integers(1, 3)), st.tuples(st.integers(1, 6), st.integers(1, 4)),
       st.tuples(*(st.integers(0, 3) for _ in range(4))), st.integers(1, 3), st.integers(1, 2), st.booleans())
def test_two_dimensional_affine_indices_on_strided_views_match_numpy(grid, block, coefs, step0, step1, overflow):
    p, q, s, u = coefs
    rows = p * (block[0] - 1) + q * (grid[0] - 1) + 1
    cols = s * (block[1] - 1) + u * (grid[1] - 1) + 1
    host = np.arange(rows * step0 * (cols + 2) * step1, dtype=np.int32).reshape(rows * step0, (cols + 2) * step1)
    view = host[::step0, ::step1][:, : cols + 1]
    dev = aclsim.to_device(host)[::step0, ::step1][:, : cols + 1]  # strides (step0 * width, step1) elements
    w = 2 if overflow else 0  # overflow: the largest column index is cols + 1, past the view's last column
    lanes = grid[0] * grid[1] * block[0] * block[1]
    out = aclsim.zeros(lanes, np.int32)
    affine_2d[grid, block](dev, out, p, q, 0, s, u, w)
    if overflow:
        with pytest.raises(aclsim.AclError, match="out of bounds"):
            aclsim.Stream.default().synchronize()
        return
    aclsim.Stream.default().synchronize()
    by, bx, ty, tx = (c.reshape(-1) for c in np.indices((grid[1], grid[0], block[1], block[0])))  # lane order
    assert out.copy_to_host().tolist() == view[p * tx + q * bx, s * ty + u * by + w].tolist()


# ------------------------------------------------------------------------- loops under a bounds guard
@simt.kernel
def guarded_loops(x: Ptr[np.int32], out: Ptr[np.int32], n: np.int32, reps: np.int32, per_lane: Ptr[np.int32]):
    t = threadIdx.x
    acc = np.int32(-1)  # lanes outside the guard keep -1, 7 and -2
    last = np.int32(7)
    w = np.int32(-2)
    if t < n:
        acc = 0
        for k in range(reps):  # uniform: assignments merge once, after the loop
            acc += x[k] * (t + 1)
            last = k
            if (t + k) % 3 == 0:  # a nested branch assigning the same variable
                acc -= 1
            for j in range(2):  # a nested uniform loop
                w = j + k
        for _k in range(per_lane[t]):  # per-lane bounds: the general path, for comparison
            acc += 1000
    out[3 * t] = acc
    out[3 * t + 1] = last
    out[3 * t + 2] = w


def test_uniform_loops_under_a_guard_merge_like_the_per_lane_path():
    lanes, n, reps = 40, 27, 6
    x = np.arange(1, reps + 1, dtype=np.int32)
    per_lane = (np.arange(lanes) % 4).astype(np.int32)
    (out,) = run(guarded_loops, 1, lanes, x, np.zeros(3 * lanes, np.int32), n, reps, per_lane)[1:2]
    ref = []
    for t in range(lanes):
        if t >= n:
            ref += [-1, 7, -2]
            continue
        acc = sum(int(x[k]) * (t + 1) - ((t + k) % 3 == 0) for k in range(reps)) + 1000 * int(per_lane[t])
        ref += [acc, reps - 1, 1 + reps - 1]
    assert out.tolist() == ref


def test_guarded_naive_matmul_on_a_size_that_is_not_a_multiple_of_the_block():
    n = 20  # 2 x 2 blocks of 16 x 16: the last rows and columns of threads are outside the matrix
    rng = np.random.default_rng(14)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    (c,) = run(mm, (2, 2), (16, 16), a, b, np.zeros((n, n), np.float32), n, n)[2:]
    ref = np.zeros((n, n), np.float32)
    for k in range(n):
        ref = ref + np.outer(a[:, k], b[k, :])
    assert c.tolist() == ref.tolist()
    with pytest.raises(aclsim.AclError, match="illegal address"):  # an active lane past the matrix
        run(mm, (2, 2), (16, 16), a, b, np.zeros((n, n), np.float32), n, 3 * n)


# ------------------------------------------------------------------------- updates in place (a[i] op= v)
@simt.kernel
def updates(x: Ptr[np.float32], y: Ptr[np.int32], n: np.uint32, w: np.float64):
    i = simt.grid(1)
    t = simt.threadIdx.x
    tile = simt.shared.array(TILE, np.int32)
    tile[t] = t
    simt.syncthreads()
    if t >= 5:
        tile[t] *= 3  # a masked window of shared memory
    tile[t] -= 1
    simt.syncthreads()
    if i < n:
        x[i] += 1.5  # a weak float: stays float32
        x[i] *= w  # a float64 operand: converted like C (computed in float64, rounded once)
        if x[i] > 4:  # a data mask
            y[i] += tile[t]
            x[i] -= 0.25
        y[i] -= 7


@pytest.mark.parametrize("n", [150, 3 * TILE])  # some lanes past the arrays, or none
def test_updates_in_place_match_numpy_under_every_mask(n):
    rng = np.random.default_rng(15)
    x = rng.random(n).astype(np.float32) * 4
    y = rng.integers(-50, 50, n).astype(np.int32)
    gx, gy = run(updates, 3, TILE, x, y, n, 1.25)
    x1 = ((x + np.float32(1.5)).astype(np.float64) * 1.25).astype(np.float32)
    tile = np.arange(TILE)
    tile = np.where(tile >= 5, tile * 3, tile) - 1
    assert gx.tolist() == np.where(x1 > 4, x1 - np.float32(0.25), x1).tolist()
    assert gy.tolist() == (y + np.where(x1 > 4, tile[np.arange(n) % TILE], 0) - 7).tolist()


def test_observers_see_the_load_and_the_store_of_an_update():
    events = observed(updates, 1, TILE, np.ones(10, np.float32), np.zeros(10, np.int32), 10, 1.0)
    first = [(e.api, e.write) for e in events[:2]]  # x[i] += 1.5
    assert first == [("load", False), ("store", True)]
    assert np.array_equal(np.asarray(events[1].lanes), np.arange(10))


# ------------------------------------------------------------------------- chunking
@simt.kernel
def big_local(out: Ptr[np.float64]):
    scratch = simt.local.array(4096, np.float64)  # 32 KiB per thread: chunks hold at most 2,048 threads
    i = simt.grid(1)
    scratch[4095] = i * 0.5
    scratch[0] = scratch[4095] + 1
    out[i] = scratch[0]


def test_threads_with_large_local_arrays_run_in_bounded_chunks():
    from aclsim.simt.kernel import CHUNK_LANES, CHUNK_LOCAL_BYTES

    n = 1 << 14  # unbounded, one chunk would hold 512 MiB of local arrays
    assert big_local.compile().local_bytes * min(n, CHUNK_LANES) > CHUNK_LOCAL_BYTES
    (out,) = run(big_local, n // 256, 256, np.zeros(n))
    assert out.tolist() == (np.arange(n) * 0.5 + 1).tolist()


# ------------------------------------------------------------------------- fast paths against the observed path
def _cases():
    rng = np.random.default_rng(16)
    n = 20
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    xs = np.arange(3, 60, dtype=np.int32)
    x = rng.standard_normal(300).astype(np.float32)
    return {
        "affine": (affine_load, (3, 2), (4, 3), xs, np.zeros(72, np.int32), 2, -1, 7, 9, 5),
        "guarded matmul": (mm, (2, 2), (16, 16), a, b, np.zeros((n, n), np.float32), n, n),
        "tiled matmul": (tiled_mm, (2, 2), (TPB2, TPB2), a[:16, :16].copy(), b[:16, :16].copy(),
                         np.zeros((16, 16), np.float32)),
        "updates": (updates, 3, TILE, np.abs(x[:192]) * 3, np.arange(192, dtype=np.int32), 150, 1.5),
        "data mask": (clamp_negative, 2, 256, x, np.full(300, 7, np.float32), 300),
        "reverse": (reverse, 4, 256, x, np.zeros(300, np.float32), 300),
        "per block": (add_previous_block, 10, 32, x, rng.random(10, dtype=np.float32), 300),
        "shared tuple": (shared_patterns, 1, (16, 4), np.zeros(64, np.int32)),
        "loops under a guard": (guarded_loops, 1, 40, np.arange(1, 7, dtype=np.int32), np.zeros(120, np.int32), 27,
                                6, (np.arange(40) % 4).astype(np.int32)),
    }


@pytest.mark.parametrize("case", list(_cases()))
def test_each_fast_path_gives_what_the_observed_per_element_path_gives(case):
    kernel, grid, block, *args = _cases()[case]
    fast = run(kernel, grid, block, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    from aclsim.runtime import get_runtime

    log = AccessLog()  # an observer: memory accesses take the per-element path that reports each lane
    get_runtime().bus.subscribe(log)
    try:
        slow = run(kernel, grid, block, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    finally:
        get_runtime().bus.unsubscribe(log)
    assert log.events
    for f, s in zip(fast, slow, strict=True):
        assert f.tolist() == s.tolist()


@cuda.jit  # numba's face: parameter types come from the launch arguments
def uniform_typed(start, stop, step, out):
    n = np.int64(0)
    acc = np.int64(0)
    for k in range(start, stop, step):
        n += 1
        acc += k
        if n == 40:  # a marker the same in both paths
            out[2] = 1
    out[0] = n
    out[1] = acc


@cuda.jit
def per_lane_typed(a, b, s, out):
    t = cuda.threadIdx.x
    n = np.int64(0)
    acc = np.int64(0)
    for k in range(a[t], b[t], s[t]):
        n += 1
        acc += k
        if n == 40:
            out[2] = 1
    out[0] = n
    out[1] = acc


_TYPES = [(np.int32, np.int32, np.int32), (np.uint32, np.uint32, np.int32), (np.int64, np.int32, np.int32),
          (np.int16, np.int16, np.int16), (np.uint32, np.int64, np.int32)]


@pytest.mark.parametrize("types", _TYPES, ids=lambda t: "-".join(np.dtype(x).name for x in t))
@settings(max_examples=15, deadline=None)
@given(st.integers(-30, 30), st.integers(-30, 30), st.integers(-5, 5).filter(bool))
def test_uniform_loop_counters_follow_c_types_like_the_per_lane_loop(types, start, stop, step):
    ta, tb, ts = (np.dtype(t) for t in types)
    # unsigned bounds stay small: a counter from 2^32 - 1 down, or down past 0, would run ~2^32 times
    start, stop = (abs(start) if ta.kind == "u" else start), (abs(stop) if tb.kind == "u" else stop)
    if step < 0 and (ta.kind == "u" or tb.kind == "u"):
        stop = max(stop, -step)  # the counter's last step then stays >= 0 (stop 0 let 3 - 5 wrap to 2^32 - 2)
    vals = [np.array([v], t) for v, t in ((start, ta), (stop, tb), (step, ts))]
    fast, slow = aclsim.zeros(3, np.int64), aclsim.zeros(3, np.int64)
    uniform_typed[1, 1](vals[0][0], vals[1][0], vals[2][0], fast)
    per_lane_typed[1, 1](*(aclsim.to_device(v) for v in vals), slow)
    aclsim.Stream.default().synchronize()
    assert fast.copy_to_host().tolist() == slow.copy_to_host().tolist()

"""Fast paths of the SIMT engine give the general path's results, faults and reports.

Each fast path (uniform loops, scalar arithmetic with literals, structured loads, shared-memory
windows, fused stores) is run next to the same computation forced onto the general per-lane path
(bounds or indices loaded per lane) and against a numpy reference computed here.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclsim
from aclsim import simt
from aclsim.simt import Ptr, threadIdx


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

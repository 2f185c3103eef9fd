"""Mask/repeat calls of one shape reuse a cached lane plan: each call still checks its own operands, sets the
mask register, and computes exactly the enabled lanes (numpy references built lane by lane)."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm

EVEN = [0x5555_5555_5555_5555] * 2


def _bufs(dt, n: int, k: int):
    pipe = asc.TPipe()
    out = []
    for _ in range(k):
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, n * dt.sizeof())
        out.append(b.get(dt))
    return out


def _lanes(bits: int, lanes: int) -> np.ndarray:
    return np.array([(bits >> i) & 1 for i in range(lanes)], bool)


def test_a_reused_plan_still_finds_the_unwritten_lane_of_another_tensor():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        a, b, c, d = _bufs(asc.float32, 256, 4)
        asc.data_copy(a, _gm(x), 256)
        asc.data_copy(b, _gm(x), 256)
        asc.data_copy(c, _gm(x), 128)  # elements 128.. of c never written
        for src in (b, b, c):  # the third call has the plan of the first two
            asc.add(d, a, src, EVEN, 4, asc.BinaryRepeatParams())

    with pytest.raises(asc.AscError, match=r"asc\.add: reads .* element 128 .* never written"):
        kernel[1](np.ones(256, np.float32))


def test_a_cached_call_sets_the_mask_register_as_the_first_did():
    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        a, d = _bufs(asc.float32, 128, 2)
        asc.data_copy(a, _gm(x), 128)
        asc.duplicate(d, 0.0, 128)
        asc.set_vector_mask(0, 2**64 - 1, dtype=asc.float32)
        asc.add(d, a, a, EVEN, 1, asc.BinaryRepeatParams())
        asc.set_vector_mask(0, 2**64 - 1, dtype=asc.float32)  # all lanes again
        asc.add(d, a, a, EVEN, 1, asc.BinaryRepeatParams())  # cached: the register is EVEN again
        asc.add(d[64:], a[64:], a[64:], asc.MASK_PLACEHOLDER, 1, asc.BinaryRepeatParams(), False)
        asc.data_copy(_gm(z), d, 128)

    x = np.arange(128, dtype=np.float32)
    z = np.zeros(128, np.float32)
    kernel[1](x, z)
    on = np.tile(_lanes(EVEN[0], 64), 2)
    np.testing.assert_array_equal(z, np.where(on, 2 * x, 0))


@pytest.mark.parametrize(("dtype", "bits"), [
    ("float16", sum(1 << i for i in range(32, 96, 4))),  # every 4th lane of blocks 2..5
    ("float32", sum(1 << i for i in range(8, 48, 2))),  # every other lane of blocks 1..5
    ("float16", 0x0F0F_0F0F_0F0F_0F0F),  # runs of 4 lanes: more than a few pieces
    ("float32", 0xFF00_0000_00FF_FF00),  # two runs
])
@pytest.mark.parametrize("dst_blk", [1, 2])
def test_sparse_lanes_change_exactly_the_enabled_lanes(dtype, bits, dst_blk):
    dt = getattr(asc, dtype)
    lanes = 256 // dt.sizeof()
    epb = lanes // 8
    reps = 3
    n = reps * lanes * dst_blk

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        a, b, d = _bufs(dt, n, 3)
        asc.data_copy(a, _gm(x), n)
        asc.data_copy(b, _gm(y), n)
        asc.data_copy(d, _gm(z), n)
        params = asc.BinaryRepeatParams(dst_blk, 1, 1, 8 * dst_blk, 8, 8)
        for _ in range(2):  # the second call runs on the cached plan
            asc.sub(d, a, b, [bits & (2**64 - 1), bits >> 64], reps, params)
        asc.data_copy(_gm(z), d, n)

    rng = np.random.default_rng(3)
    x, y, z0 = (rng.uniform(-4, 4, n).astype(dtype) for _ in range(3))
    want = z0.copy()
    on = _lanes(bits, lanes)
    for r in range(reps):
        for lane in np.flatnonzero(on):
            blk, e = divmod(int(lane), epb)
            s = r * lanes + lane
            want[(r * 8 * dst_blk + blk * dst_blk) * epb + e] = x[s] - y[s]
    z = z0.copy()
    kernel[1](x, y, z)
    np.testing.assert_array_equal(z, want)


def test_a_full_mask_into_strided_blocks_marks_exactly_those_blocks_written():
    even_blocks = [0x00FF_00FF_00FF_00FF]  # float32 lanes of blocks 0, 2, 4, 6

    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, read_gap: bool):
        a, d = _bufs(asc.float32, 2 * 128, 2)
        asc.data_copy(a, _gm(x), 128)
        for _ in range(2):  # dst blocks 0, 2, 4, ...: the odd blocks stay unwritten
            asc.relu(d, a, 64, 2, asc.UnaryRepeatParams(2, 1, 16, 8))
        src = d[8:] if read_gap else d  # d[8:]: its even blocks are d's odd ones
        asc.adds(src, src, 1.0, even_blocks, 2, asc.UnaryRepeatParams())
        asc.data_copy(_gm(z), d, asc.DataCopyParams(16, 1, 1, 0))  # d's even blocks, back to back

    x = np.random.default_rng(5).uniform(-2, 2, 128).astype(np.float32)
    z = np.zeros(128, np.float32)
    kernel[1](x, z, False)
    want = np.maximum(x, 0)
    want[:64] += np.float32(1)  # 2 repeats of d's even blocks: the first 8 blocks of relu(x)
    np.testing.assert_array_equal(z, want)
    with pytest.raises(asc.AscError, match=r"asc\.adds: reads .* element 0 .* never written"):
        kernel[1](x, z, True)


def _masks(rng, lanes: int) -> list[int]:
    """Masks of the shapes the planner tells apart: first n lanes, whole blocks, evenly spaced lanes in a block
    range, a few runs, random bits."""
    epb = lanes // 8
    b0, b1 = sorted(rng.choice(9, 2, replace=False).tolist())
    step = int(rng.choice([2, 4]))
    spaced = sum(1 << (b * epb + e) for b in range(b0, b1) for e in range(int(rng.integers(step)), epb, step))
    runs = sum(((1 << int(rng.integers(1, 9))) - 1) << int(s) for s in rng.choice(lanes - 8, 3, replace=False))
    return [(1 << int(rng.integers(1, lanes + 1))) - 1, sum(0xFF << (8 * b) for b in range(b0, b1)) or 1,
            spaced or 1, runs & ((1 << lanes) - 1), int.from_bytes(rng.bytes(lanes // 8), "little") or 1]


@pytest.mark.parametrize("seed", range(6))
def test_random_masks_and_strides_match_a_lane_by_lane_reference(seed):
    rng = np.random.default_rng(seed)
    dtype = ["float16", "float32"][seed % 2]
    dt = getattr(asc, dtype)
    lanes = 256 // dt.sizeof()
    epb = lanes // 8
    reps = int(rng.integers(1, 6))
    # dst: blocks blk apart, repeats 8 * blk apart (no two lanes share an element); sources anywhere
    strides = [(int(b), int(8 * b + rng.integers(0, 3))) for b in rng.integers(1, 4, 3)]
    n = ((reps - 1) * max(r for _, r in strides) + 7 * max(b for b, _ in strides) + 1) * epb
    masks = _masks(rng, lanes)

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        a, b, d = _bufs(dt, n, 3)
        asc.data_copy(a, _gm(x), n)
        asc.data_copy(b, _gm(y), n)
        asc.data_copy(d, _gm(z), n)
        (db, dr), (ab, ar), (bb, br) = strides
        params = asc.BinaryRepeatParams(db, ab, bb, dr, ar, br)
        in_place = asc.BinaryRepeatParams(db, db, ab, dr, dr, ar)  # src0 is dst, lane for lane
        for bits in masks:
            for _ in range(2):  # the second call of each shape runs on the cached plan
                asc.mul(d, a, b, [bits & (2**64 - 1), bits >> 64], reps, params)
                asc.max(d, d, a, [bits & (2**64 - 1), bits >> 64], reps, in_place)
        asc.data_copy(_gm(z), d, n)

    x, y, z0 = (rng.uniform(-3, 3, n).astype(dtype) for _ in range(3))
    want = z0.copy()

    def at(k: int, r: int, lane: int) -> int:
        blk, stride = strides[k]
        return (r * stride + lane // epb * blk) * epb + lane % epb

    for bits in masks:
        for _ in range(2):
            for r in range(reps):
                for lane in np.flatnonzero(_lanes(bits, lanes)):
                    d_i, a_i, b_i = at(0, r, lane), at(1, r, lane), at(2, r, lane)
                    want[d_i] = np.maximum(x[a_i] * y[b_i], x[a_i])
    z = z0.copy()
    kernel[1](x, y, z)
    np.testing.assert_array_equal(z, want)

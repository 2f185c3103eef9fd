"""Written-byte tracking of the mask/repeat form on its fast paths: only the lanes a mask enables are
read (so masked-off lanes may hold garbage) and written (so they stay unreadable), whether the operand's
blocks are contiguous or strided; an enabled lane that was never written still faults, naming it."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm

N = 512  # float32 elements per operand: 8 repeats of 64 lanes
EVEN = [0x5555_5555_5555_5555]  # lanes 0, 2, 4, ... of a 64-lane (float32) repeat
CONTIGUOUS = asc.UnaryRepeatParams()
STRIDED = asc.UnaryRepeatParams(1, 2, 8, 16)  # source blocks 2 apart: dst 1 repeat, src 2 repeats of room


def _tensors(n: int):
    pipe = asc.TPipe()
    out = []
    for _ in range(3):
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, n * 4)
        out.append(b.get(asc.float32))
    return out


def _reference(x: np.ndarray, repeats: int, src_blk: int, src_rep: int) -> np.ndarray:
    """dst lane (r, b, e) = 2 * x lane (r * src_rep + b * src_blk) * 8 + e on even lanes, 0 elsewhere."""
    out = np.zeros(repeats * 64, np.float32)
    for r in range(repeats):
        for lane in range(0, 64, 2):
            b, e = divmod(lane, 8)
            out[r * 64 + lane] = 2 * x[(r * src_rep + b * src_blk) * 8 + e]
    return out


@pytest.mark.parametrize("params", [CONTIGUOUS, STRIDED], ids=["contiguous", "strided source"])
def test_masked_off_source_lanes_may_be_garbage(params):
    """The source's odd lanes were never written: a mask that leaves them off reads only what was."""
    repeats = 4

    @asc.jit
    def kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
        staged, src, dst = _tensors(2 * N)
        asc.data_copy(staged, _gm(x), 2 * N)
        asc.adds(src, staged, 0.0, EVEN, 2 * repeats, CONTIGUOUS)  # even lanes of src written, odd ones not
        asc.duplicate(dst, 0.0, repeats * 64)
        asc.muls(dst, src, 2.0, EVEN, repeats, params)
        asc.data_copy(_gm(z), dst, repeats * 64)

    x = np.random.default_rng(4).uniform(-1, 1, 2 * N).astype(np.float32)
    z = np.zeros(repeats * 64, np.float32)
    kernel[1](x, z)
    np.testing.assert_array_equal(z, _reference(x, repeats, params.src_blk_stride, params.src_rep_stride))


@pytest.mark.parametrize("params", [CONTIGUOUS, STRIDED], ids=["contiguous", "strided source"])
def test_an_enabled_lane_never_written_faults(params):
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        staged, src, dst = _tensors(2 * N)
        asc.data_copy(staged, _gm(x), 2 * N)
        asc.adds(src, staged, 0.0, EVEN, 16, CONTIGUOUS)  # odd lanes of src never written
        asc.muls(dst, src, 2.0, 2, 4, params)  # lanes 0 and 1 of each repeat: lane 1 is unwritten

    with pytest.raises(asc.AscError, match=r"asc\.muls: .* element 1 .* was never written"):
        kernel[1](np.ones(2 * N, np.float32))


@pytest.mark.parametrize("dst_params", [CONTIGUOUS, asc.UnaryRepeatParams(2, 1, 16, 8)],
                         ids=["contiguous", "strided destination"])
def test_masked_off_destination_lanes_stay_unwritten(dst_params):
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        src, dst, _ = _tensors(2 * N)
        asc.data_copy(src, _gm(x), 2 * N)
        asc.adds(dst, src, 1.0, EVEN, 2, dst_params)  # odd lanes of dst never written
        asc.muls(dst, dst, 2.0, 2)  # reads lanes 0 and 1: lane 1 faults

    with pytest.raises(asc.AscError, match=r"asc\.muls: reads 2 x float32 but element 1 .* was never written"):
        kernel[1](np.ones(2 * N, np.float32))


def _bits(*runs: tuple[int, int]) -> int:
    return sum(((1 << (e - s)) - 1) << s for s, e in runs)


@pytest.mark.parametrize("runs", [
    ((3, 20),),  # one run from inside block 0 to inside block 2
    ((0, 5), (40, 64)),  # a partial first block, then whole blocks to the end
    ((8, 16), (17, 18), (20, 24), (63, 64)),  # four short runs
    ((8, 16), (17, 18), (30, 33), (63, 64)),  # a run across a block boundary makes five pieces
    ((1, 2), (5, 6), (9, 10), (13, 14), (20, 30)),  # more runs than are computed run by run
], ids=["one run", "two runs", "four runs", "five pieces", "five runs"])
@pytest.mark.parametrize("dst_blk", [1, 2])
def test_lane_runs_change_exactly_the_enabled_lanes(runs, dst_blk):
    repeats = 3
    bits = _bits(*runs)

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
        a, b, d = _tensors(N)
        asc.data_copy(a, _gm(x), N)
        asc.data_copy(b, _gm(y), N)
        asc.data_copy(d, _gm(z), N)
        asc.sub(d, a, b, [bits], repeats, asc.BinaryRepeatParams(dst_blk, 1, 1, 8 * dst_blk, 8, 8))
        asc.data_copy(_gm(z), d, N)

    rng = np.random.default_rng(6)
    x, y = rng.uniform(-1, 1, N).astype(np.float32), rng.uniform(-1, 1, N).astype(np.float32)
    z0 = np.full(N, 7.0, np.float32)
    want = z0.copy()
    for r in range(repeats):
        for lane in range(64):
            if bits >> lane & 1:
                blk, e = divmod(lane, 8)
                want[(r * 8 * dst_blk + blk * dst_blk) * 8 + e] = x[r * 64 + lane] - y[r * 64 + lane]
    z = z0.copy()
    kernel[1](x, y, z)
    np.testing.assert_array_equal(z, want)

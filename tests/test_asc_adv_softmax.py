"""asc.adv.softmax: row softmax of the source's [m, k] ShapeInfo against numpy, sum/max broadcast over one
32-byte block per row, the documented type pairs and errors; LocalTensorAuto loops reuse freed UB."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, s: asc.GlobalAddress, mx: asc.GlobalAddress,
                   m: int, k: int, in_place: bool):
    per_row = 32 // s.dtype.sizeof()
    src = asc.LocalTensorAuto(x.dtype, (m, k))
    dst = src if in_place else asc.LocalTensorAuto(x.dtype, (m, k))
    sums = asc.LocalTensorAuto(s.dtype, (m, per_row))
    maxes = asc.LocalTensorAuto(s.dtype, (m, per_row))
    asc.data_copy(src, _gm(x), m * k)
    src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (m, k))))
    asc.adv.softmax(dst, sums, maxes, src, asc.adv.SoftmaxTiling())
    asc.data_copy(_gm(y), dst, m * k)
    asc.data_copy(_gm(s), sums, m * per_row)
    asc.data_copy(_gm(mx), maxes, m * per_row)


def _reference(x):
    x = x.astype(np.float64)
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    return e / e.sum(axis=1, keepdims=True), e.sum(axis=1), mx[:, 0]


@pytest.mark.parametrize(("dtype", "stat_t"), [(np.float32, np.float32), (np.float16, np.float16),
                                                (np.float16, np.float32)])
@pytest.mark.parametrize("in_place", [False, True])
def test_softmax_matches_numpy_with_row_sum_and_max(dtype, stat_t, in_place):
    m, k = 8, 256
    rng = np.random.default_rng(4)
    x = rng.uniform(-6, 6, (m, k)).astype(dtype)
    per_row = 32 // np.dtype(stat_t).itemsize
    y = np.zeros((m, k), dtype)
    s, mx = np.zeros((m, per_row), stat_t), np.zeros((m, per_row), stat_t)
    softmax_kernel[1](x, y, s, mx, m, k, in_place)
    want, want_sum, want_max = _reference(x)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=tol, atol=tol * 1e-2)
    np.testing.assert_allclose(s.astype(np.float64), np.repeat(want_sum[:, None], per_row, 1), rtol=tol)
    np.testing.assert_array_equal(mx.astype(np.float64), np.repeat(want_max[:, None], per_row, 1))


def test_softmax_takes_m_as_the_product_of_the_leading_dimensions():
    @asc.jit
    def three_d(x: asc.GlobalAddress, y: asc.GlobalAddress):
        src = asc.LocalTensorAuto(x.dtype, 2 * 3 * 64)
        dst = asc.LocalTensorAuto(x.dtype, 2 * 3 * 64)
        stats = [asc.LocalTensorAuto(asc.float32, 6 * 8) for _ in range(2)]
        asc.data_copy(src, _gm(x), 2 * 3 * 64)
        src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (2, 3, 64))))
        asc.adv.softmax(dst, stats[0], stats[1], src, asc.adv.SoftmaxTiling())
        asc.data_copy(_gm(y), dst, 2 * 3 * 64)

    x = np.random.default_rng(2).uniform(-3, 3, (6, 64)).astype(np.float32)
    y = np.zeros_like(x)
    three_d[1](x, y)
    np.testing.assert_allclose(y, _reference(x)[0], rtol=1e-6)


@asc.jit
def bad_call(x: asc.GlobalAddress, case: str):
    src = asc.LocalTensorAuto(x.dtype, 8 * 64)
    dst = asc.LocalTensorAuto(x.dtype, 8 * 64)
    stats = [asc.LocalTensorAuto(asc.float32, 8 * 8) for _ in range(2)]
    asc.data_copy(src, _gm(x), 8 * 64)
    shape = {"no_shape": None, "unaligned": (8, 60), "basic": (6, 64)}.get(case, (8, 64))
    if shape:
        src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, shape)))
    if case == "partial_overlap":
        dst = src[16:]
    if case == "stats_overlap":
        stats[1] = stats[0][32:]
    tmp = asc.LocalTensorAuto(asc.uint8, 512) if case == "small_tmp" else None
    asc.adv.softmax(dst, stats[0], stats[1], src, asc.adv.SoftmaxTiling(), tmp, basic_block=case == "basic",
                    data_format_nz=case == "nz")


@pytest.mark.parametrize(("case", "message"), [
    ("no_shape", r"asc\.adv\.softmax: the source has no shape: call src\.set_shape_info"),
    ("unaligned", r"the last dimension \(60 x float32\) must be a multiple of 32 bytes"),
    ("basic", r"basic_block=True needs a basic-block shape .* got \[6, 64\]"),
    ("partial_overlap", r"dst \(UB offset \d+\) overlaps a source"),
    ("stats_overlap", r"sum \(UB offset \d+, 256 bytes\) and max \(UB offset \d+, 256 bytes\) overlap"),
    ("small_tmp", r"temp_buffer holds 512 bytes but asc\.adv\.softmax needs at least 544 \(the minValue of its host helper GetSoftMaxMinTmpSize\)"),  # (8 + 64 + 64) * 4
])
def test_softmax_misuse_fails_at_the_call(case, message):
    with pytest.raises(asc.AscError, match=message):
        bad_call[1](np.ones(8 * 64, np.float32), case)


def test_nz_softmax_is_reported_as_not_emulated():
    with pytest.raises(asc.AscError, match=r"asc\.adv\.softmax with data_format_nz=True \(NZ layout\) is a pyasc API "
                                           r"that aclsim does not emulate"):
        bad_call[1](np.ones(8 * 64, np.float32), "nz")


def test_a_loop_of_auto_tensors_of_mixed_sizes_reuses_freed_ub():
    @asc.jit
    def loop(x: asc.GlobalAddress):
        for _ in range(8):  # pyasc's softmax test: each round's tensors replace the previous round's
            src = asc.LocalTensorAuto(asc.float32, 8192)
            sums = asc.LocalTensorAuto(asc.float32, 64)
            maxes = asc.LocalTensorAuto(asc.float32, 64)
            dst = asc.LocalTensorAuto(asc.float32, 8192)
            asc.data_copy(src, _gm(x), 8192)
            asc.data_copy(dst, src, 8192)
            asc.duplicate(sums, 0.0, 64)
            asc.duplicate(maxes, 0.0, 64)

    loop[1](np.ones(8192, np.float32))  # <= 2 rounds (132 KB) live: fits the 188 KB UB when freed blocks coalesce

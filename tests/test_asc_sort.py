"""Sorting instructions: sort32 / sort / mrg_sort / adv.concat / adv.extract on the A2 (score, index) record
layout and the region-proposal instructions of the Atlas inference AI Core, against numpy's stable sort."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from asc_helpers import gm as _gm


def _ub(dtype, nbytes):
    b = asc.TBuf(asc.TPosition.VECCALC)
    asc.get_tpipe_ptr().init_buffer(b, nbytes)
    return b.get(dtype)


def _records(raw: np.ndarray, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Decode A2 sort records: (scores, indices) from the 8-byte (score, index) structs."""
    b = raw.view(np.uint8).reshape(-1, 8)
    isz = np.dtype(dtype).itemsize
    return np.ascontiguousarray(b[:, :isz]).view(dtype).ravel(), np.ascontiguousarray(b[:, 4:]).view(np.uint32).ravel()


def _stable_desc(x):
    return np.argsort(-x.astype(np.float64), kind="stable")


def _scores(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-20, 20, n).astype(dtype)  # many ties: equal scores must keep input order


@asc.jit
def sort32_kernel(x: asc.GlobalAddress, i: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    asc.TPipe()
    s, idx, d = _ub(x.dtype, n * 4), _ub(asc.uint32, n * 4), _ub(x.dtype, n * 8)
    asc.data_copy(s, _gm(x), n)
    asc.data_copy(idx, _gm(i), n)
    asc.sort32(d, s, idx, n // 32)
    asc.data_copy(_gm(z), d, n * 8 // x.dtype.itemsize)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_sort32_sorts_each_group_of_32_into_score_index_records(dtype):
    n = 128
    x = _scores(n, dtype, 1)
    i = np.arange(1000, 1000 + n, dtype=np.uint32)
    z = np.zeros(n * 8 // np.dtype(dtype).itemsize, dtype)
    sort32_kernel[1](x, i, z, n)
    scores, index = _records(z, dtype)
    for g in range(n // 32):
        sl = slice(32 * g, 32 * g + 32)
        order = _stable_desc(x[sl])
        np.testing.assert_array_equal(scores[sl], x[sl][order])
        np.testing.assert_array_equal(index[sl], i[sl][order])
    if dtype is np.float16:  # the 2 bytes between a half score and its index are reserved
        assert not z.view(np.uint8).reshape(-1, 8)[:, 2:4].any()


@asc.jit
def full_sort_kernel(x: asc.GlobalAddress, v: asc.GlobalAddress, i: asc.GlobalAddress, n: int, full: bool):
    asc.TPipe()
    src, cat = _ub(x.dtype, n * 4), _ub(x.dtype, n * 4)
    tmp, dst = _ub(x.dtype, n * 8), _ub(x.dtype, n * 8)
    idx, val, out = _ub(asc.uint32, n * 4), _ub(x.dtype, n * 4), _ub(asc.uint32, n * 4)
    asc.data_copy(src, _gm(x), n)
    asc.duplicate(idx.reinterpret_cast(asc.int32), 0, n)
    for k in range(n):  # indices 0..n-1 through the scalar unit
        idx.set_value(k, k)
    asc.adv.concat(cat, src, tmp, n // 16)
    asc.sort(dst, cat, idx, tmp, n // 32, is_full_sort=full)
    asc.adv.extract(val, out, dst, n // 32)
    asc.data_copy(_gm(v), val, n)
    asc.data_copy(_gm(i), out, n)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_full_sort_then_extract_gives_numpys_stable_descending_order(dtype):
    n = 256
    x = _scores(n, dtype, 2)
    v, i = np.zeros(n, dtype), np.zeros(n, np.uint32)
    full_sort_kernel[1](x, v, i, n, True)
    order = _stable_desc(x)
    np.testing.assert_array_equal(v, x[order])
    np.testing.assert_array_equal(i, order)


def test_sort_without_full_sort_orders_within_groups_of_32_only():
    n = 128
    x = _scores(n, np.float32, 3)
    v, i = np.zeros(n, np.float32), np.zeros(n, np.uint32)
    full_sort_kernel[1](x, v, i, n, False)
    order = np.concatenate([32 * g + _stable_desc(x[32 * g : 32 * g + 32]) for g in range(n // 32)])
    np.testing.assert_array_equal(i, order)
    np.testing.assert_array_equal(v, x[order])


def _merge_kernel(lengths, valid_bit, suspend, info, repeat=1):
    @asc.jit
    def merge(x: asc.GlobalAddress, z: asc.GlobalAddress, got: asc.GlobalAddress):
        asc.TPipe()
        n = 128
        s, d = _ub(x.dtype, n * 4), _ub(x.dtype, n * 8)
        idx = _ub(asc.uint32, n * 4)
        out = _ub(x.dtype, n * 8)
        asc.data_copy(s, _gm(x), n)
        asc.duplicate(out, -1.0, n * 2)
        for k in range(n):
            idx.set_value(k, k)
        asc.sort32(d, s, idx, n // 32)  # four sorted queues of 32 records
        rec = asc.get_sort_offset(32)
        queues = asc.MrgSortSrcList(d[0], d[rec], d[2 * rec], d[3 * rec])
        sorted_num = [0, 0, 0, 0]
        if info:
            asc.mrg_sort(out, queues, asc.MrgSort4Info(lengths, suspend, valid_bit, repeat))
        else:
            asc.mrg_sort(out, queues, lengths, sorted_num, valid_bit, repeat, suspend)
        asc.data_copy(_gm(z), out, n * 2)
        g = _gm(got)
        for k, c in enumerate(asc.get_mrg_sort_result()):
            g.set_value(k, c)
        for k, c in enumerate(sorted_num):
            g.set_value(4 + k, c)

    return merge


@pytest.mark.parametrize("info", [False, True])
def test_mrg_sort_merges_four_sorted_queues_into_one(info):
    x = _scores(128, np.float32, 4)
    z, got = np.zeros(256, np.float32), np.zeros(8, np.int32)
    _merge_kernel([32] * 4, 15, False, info)[1](x, z, got)
    scores, index = _records(z, np.float32)
    order = _stable_desc(x)  # merging the four stable-sorted groups = one stable sort, ties to the lower queue
    np.testing.assert_array_equal(scores, x[order])
    np.testing.assert_array_equal(index, order)
    assert list(got[:4]) == [32] * 4
    assert list(got[4:]) == ([0] * 4 if info else [32] * 4)  # the list form fills sorted_num


def test_mrg_sort_with_exhausted_suspension_stops_when_a_queue_runs_out():
    x = np.concatenate([np.arange(32, 0, -1), np.arange(100, 68, -1), np.zeros(64)]).astype(np.float32)
    z, got = np.full(256, -1, np.float32), np.zeros(8, np.int32)
    _merge_kernel([32, 32, 0, 0], 0b11, True, False)[1](x, z, got)
    # queue 1 (100..69) runs out first: all of it was taken and none of queue 0 (32..1)
    assert list(got[:4]) == [0, 32, 0, 0] and list(got[4:]) == [0, 32, 0, 0]
    scores, _ = _records(z[:64], np.float32)
    np.testing.assert_array_equal(scores, np.arange(100, 68, -1))


def test_mrg_sort_refuses_a_valid_bit_that_is_not_2_3_or_4_queues():
    with pytest.raises(asc.AscError, match=r"valid_bit must be 0b11, 0b111 or 0b1111"):
        _merge_kernel([32] * 4, 5, False, False)[1](np.zeros(128, np.float32), np.zeros(256, np.float32),
                                                   np.zeros(8, np.int32))


def test_sort32_repeat_time_is_limited_to_255():
    with pytest.raises(asc.AscError, match=r"repeat_time must be in 0\.\.255, got 256"):
        @asc.jit
        def k(x: asc.GlobalAddress):
            asc.TPipe()
            s = _ub(asc.float32, 32)
            asc.sort32(s, s, s.reinterpret_cast(asc.uint32), 256)

        k[1](np.zeros(8, np.float32))


@asc.jit
def lengths_kernel(z: asc.GlobalAddress):
    g = _gm(z)
    g.set_value(0, asc.get_sort_len(100))
    g.set_value(1, asc.get_sort_offset(10))


@pytest.mark.parametrize(("soc", "per"), [("Ascend910B1", 2), ("Ascend310P3", 8)])
def test_get_sort_len_counts_float32_elements_of_the_chips_record_layout(soc, per):
    aclsim.configure(soc)
    z = np.zeros(8, np.int32)
    lengths_kernel[1](z)
    assert list(z[:2]) == [100 * per, 10 * per]


def test_region_proposals_concat_sort16_extract_on_310p():
    aclsim.configure("Ascend310P3")

    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, v: asc.GlobalAddress, lab: asc.GlobalAddress):
        asc.TPipe()
        n = 32
        s, lb = _ub(asc.float16, n * 2), _ub(asc.float16, n * 2)
        p = _ub(asc.float16, n * 16)
        asc.duplicate(p, 0, n * 8)
        asc.data_copy(s, _gm(x), n)
        asc.data_copy(lb, _gm(y), n)
        asc.proposal_concat(p, s, n // 16, 4)  # scores
        asc.proposal_concat(p, lb, n // 16, 5)  # labels
        asc.rp_sort16(p, p, n // 16)
        asc.proposal_extract(s, p, n // 16, 4)
        asc.proposal_extract(lb, p, n // 16, 5)
        asc.data_copy(_gm(v), s, n)
        asc.data_copy(_gm(lab), lb, n)

    x = _scores(32, np.float16, 5)
    labels = np.arange(32, dtype=np.float16)
    v, lab = np.zeros(32, np.float16), np.zeros(32, np.float16)
    k[1](x, labels, v, lab)
    order = np.concatenate([16 * g + _stable_desc(x[16 * g : 16 * g + 16]) for g in range(2)])
    np.testing.assert_array_equal(v, x[order])
    np.testing.assert_array_equal(lab, labels[order])


@pytest.mark.parametrize(("soc", "api"), [("Ascend910B1", "rp_sort16"), ("Ascend310P3", "sort32")])
def test_each_layouts_instructions_are_refused_on_the_other_chip(soc, api):
    aclsim.configure(soc)

    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.TPipe()
        s = _ub(asc.float16, 512)
        if api == "sort32":
            asc.sort32(s, s, s.reinterpret_cast(asc.uint32), 1)
        else:
            asc.rp_sort16(s, s, 1)

    with pytest.raises(asc.AscError, match=rf"{api} does not exist on {soc}"):
        k[1](np.zeros(8, np.float32))


def test_mrg_sort_refuses_a_destination_overlapping_its_queues():
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.TPipe()
        d = _ub(asc.float32, 1024)
        asc.duplicate(d, 0.0, 256)
        queues = asc.MrgSortSrcList(asc.float32, d[0], d[64])
        asc.mrg_sort(d[64], queues, [32, 32], [0, 0], 0b11, 1)

    with pytest.raises(asc.AscError, match=r"asc\.mrg_sort: dst \(UB offset \d+\) overlaps a source queue"):
        k[1](np.zeros(8, np.float32))


def test_mrg_sort_repeats_move_every_queue_and_dst_on_by_the_queues_total_length():
    """Two repeats of merging two 32-record queues: groups 0+1, then groups 2+3."""
    x = _scores(128, np.float32, 6)
    z, got = np.zeros(256, np.float32), np.zeros(8, np.int32)
    _merge_kernel([32, 32], 0b11, False, False, repeat=2)[1](x, z, got)
    _, index = _records(z, np.float32)
    for half in range(2):
        sl = slice(64 * half, 64 * half + 64)
        np.testing.assert_array_equal(index[sl], 64 * half + _stable_desc(x[sl]))

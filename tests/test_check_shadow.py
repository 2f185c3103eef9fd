"""initcheck's shadow memory against a per-byte reference model (first-write index of every byte)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from aclsim.check.shadow import MAX_RUNS, Shadow

SIZE = 256
NEVER = np.iinfo(np.int64).max

ranges = st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)).map(sorted)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("range"), ranges, st.integers(0, 60)),
        st.tuples(st.just("elements"), st.lists(st.integers(0, SIZE // 4 - 1), min_size=1, max_size=12),
                  st.integers(0, 60)),
    ),
    max_size=40,
)


def reference_write(ref: np.ndarray, lo: int, hi: int, index: int) -> None:
    ref[lo:hi] = np.minimum(ref[lo:hi], index)


@settings(max_examples=300, deadline=None)
@given(ops, ranges, st.lists(st.integers(0, SIZE // 4 - 1), min_size=1, max_size=12), st.integers(0, 64))
def test_shadow_matches_a_per_byte_model(writes, read, elements, at):
    sh = Shadow(SIZE)
    ref = np.full(SIZE, NEVER, np.int64)
    for kind, where, index in writes:
        if kind == "range":
            sh.write_range(where[0], where[1], index)
            reference_write(ref, where[0], where[1], index)
        else:
            offs = np.array(where, np.int64) * 4
            sh.write_elements(offs, 4, index)
            for o in offs:
                reference_write(ref, o, o + 4, index)
    lo, hi = read
    got = sh.unwritten_range(lo, hi, at)
    want = lo + np.flatnonzero(ref[lo:hi] >= at)
    assert (got is None and want.size == 0) or np.array_equal(got, want)
    offs = np.array(elements, np.int64) * 4
    got = sh.unwritten_elements(offs, 4, at)
    want = np.flatnonzero([(ref[o : o + 4] >= at).any() for o in offs])
    assert (got is None and want.size == 0) or np.array_equal(got, want)


def test_whole_buffer_writes_stay_a_single_run():
    sh = Shadow(1 << 30)  # 1 GiB: no per-byte array is ever built for whole-range traffic
    for index in range(1000):
        sh.write_range(0, 1 << 30, index)
        assert sh.unwritten_range(0, 1 << 30, index + 1) is None
    assert sh.dense is None and len(sh.runs) == 1


def test_many_small_writes_switch_to_dense_and_stay_exact():
    sh = Shadow(4096)
    for i in range(MAX_RUNS + 1):
        sh.write_range(i * 16, i * 16 + 8, i)  # gaps keep runs apart
    assert sh.dense is not None
    assert sh.unwritten_range(0, 8, 1) is None
    assert np.array_equal(sh.unwritten_range(0, 24, 100), np.arange(8, 16))


def test_allocated_before_checking_counts_as_written():
    assert Shadow(64, written=True).unwritten_range(0, 64, 0) is None

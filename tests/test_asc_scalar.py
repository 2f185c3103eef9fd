"""Scalar-unit functions against Python integer arithmetic and numpy conversions, and their refusals."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim.runtime import get_runtime

VALUES = [0, 1, 28, 0xFFFF, 0x0FFFFFFFFFFFFFFF, 0x0F00000000000000, (1 << 64) - 1, 1 << 63, -1, -2, -(1 << 40),
          0x123456789ABCDEF0]


def _run(fn, *args):
    """fn(*args) evaluated inside a one-core kernel."""
    got = []

    @asc.jit
    def k(z: asc.GlobalAddress):  # a host array argument makes the launch run before it returns
        got.append(fn(*args))

    k[1](np.zeros(8, np.float32))
    return got[0]


def _bits(v):
    return format(v & ((1 << 64) - 1), "064b")  # most significant bit first


@pytest.mark.parametrize("v", VALUES)
def test_bit_functions_read_the_64_bits_of_the_argument(v):
    b = _bits(v)
    assert _run(asc.scalar_count_leading_zero, v) == len(b) - len(b.lstrip("0"))
    assert _run(asc.scalar_get_count_of_value, v, 1) == b.count("1")
    assert _run(asc.scalar_get_count_of_value, v, 0) == b.count("0")
    for c in "01":
        pos = b[::-1].find(c)
        assert _run(asc.scalar_get_sff_value, v, int(c)) == pos  # -1 when absent
    same = len(b) - 1 - len(b[1:].lstrip(b[0]))
    assert _run(asc.count_bits_cnt_same_as_sign_bit, v) == (-1 if b in ("0" * 64, "1" * 64) else same)


def test_documented_examples():
    assert _run(asc.scalar_count_leading_zero, 0x0FFFFFFFFFFFFFFF) == 4
    assert _run(asc.scalar_get_count_of_value, 0xFFFF, 1) == 16
    assert _run(asc.count_bits_cnt_same_as_sign_bit, 0x0F00000000000000) == 3


@pytest.mark.parametrize(("mode", "ref"), [(asc.RoundMode.CAST_ROUND, lambda x: np.trunc(x + np.copysign(0.5, x))),
                                           (asc.RoundMode.CAST_RINT, np.rint), (asc.RoundMode.CAST_FLOOR, np.floor),
                                           (asc.RoundMode.CAST_CEIL, np.ceil)])
def test_scalar_cast_to_int32_rounds_by_mode(mode, ref):
    for x in (2.5, -2.5, 3.5, -0.4, 7.7, 1e12, -1e12):
        want = int(np.clip(ref(np.float64(np.float32(x))), -2**31, 2**31 - 1))
        got = _run(asc.scalar_cast, x, asc.int32, mode)
        assert got == want and isinstance(got, np.int32)


def test_scalar_cast_to_half_rounds_to_odd():
    x = np.float32(1 + 2**-11 + 2**-13)  # between two halves; the odd neighbour is 1 + 2**-10
    got = _run(asc.scalar_cast, float(x), asc.half, asc.RoundMode.CAST_ODD)
    assert got == np.float16(1 + 2**-10) and got.dtype == np.float16


def test_scalar_cast_refuses_an_undocumented_conversion():
    with pytest.raises(asc.AscError, match=r"float32 -> int32 with CAST_TRUNC is not a ScalarCast conversion"):
        _run(asc.scalar_cast, 1.5, asc.int32, asc.RoundMode.CAST_TRUNC)


def test_count_value_must_be_a_bit():
    with pytest.raises(asc.AscError, match=r"count_value must be 0 or 1, got 2"):
        _run(asc.scalar_get_count_of_value, 5, 2)


def test_get_task_ratio_is_1_for_a_vector_only_launch():
    assert _run(asc.get_task_ratio) == 1


class _Tasks:
    def __init__(self):
        self.done = []

    def on_task_done(self, task):
        self.done.append(task)


def test_get_system_cycle_reads_the_modeled_device_clock_of_the_timeline():
    """A queued kernel that runs 0.2 s after its launch still reads cycles inside its own modeled span."""
    cycles = []

    @asc.jit
    def k(z: asc.GlobalAddress):
        cycles.append(asc.get_system_cycle())
        cycles.append(asc.get_system_cycle())

    with aclsim.Device(0):
        tasks = _Tasks()
        get_runtime().bus.subscribe(tasks)
        z = aclsim.zeros(8, np.float32)
        k[1](z)  # device memory: queued, runs when the host waits
        time.sleep(0.2)
        z.copy_to_host()
    (task,) = [t for t in tasks.done if t.kind == "kernel"]
    hz = get_runtime().chip.cube_mhz * 1e6
    assert int(task.start * hz) <= cycles[0] <= cycles[1] <= task.end * hz


def test_print_time_stamp_prints_the_cycle_counter_and_the_kernel_start(capsys):
    cycles = []

    @asc.jit
    def k(z: asc.GlobalAddress):
        cycles.append(asc.get_system_cycle())
        asc.print_time_stamp(65577)
        cycles.append(asc.get_system_cycle())

    k[1](np.zeros(8, np.float32))
    m = re.fullmatch(r"descId is 65577, rsv is 0, timeStamp is (\d+), entry is (\d+)\.\n", capsys.readouterr().out)
    assert m, "the PrintTimeStamp line"
    stamp, entry = int(m.group(1)), int(m.group(2))
    assert entry <= cycles[0] <= stamp <= cycles[1]

"""racecheck's pipe hazards inside an AI Core (msSanitizer "Potential RAW hazard detected at UB"):
a pipe touching UB bytes another pipe touched with no set_flag/wait_flag, pipe_barrier or queue
event between them is reported with both kernel lines and the missing pair; correctly synchronised
kernels (flags, PIPE_ALL, queues, auto-sync) stay clean, and every kernel still computes the right
result (the emulator runs in program order: the race is only reported)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.asc.aicore import pipes
from aclsim.check import Session
from aclsim.runtime import reset_runtime

HERE = Path(__file__).read_text().splitlines()
N = 256
E = asc.HardEvent


def line_of(marker: str) -> int:
    (n,) = [i for i, text in enumerate(HERE, 1) if text.rstrip().endswith(f"# {marker}")]
    return n


@pytest.fixture(autouse=True)
def fresh():
    reset_runtime()


def checked(run, tools=("racecheck",)) -> Session:
    s = Session(list(tools), out=io.StringIO())
    run()
    s.stop()
    return s


def inputs() -> tuple[np.ndarray, np.ndarray]:
    return np.random.default_rng(5).uniform(-1, 1, N).astype(np.float32), np.zeros(N, np.float32)


@asc.jit
def scale(x: asc.GlobalAddress, z: asc.GlobalAddress, how: str):
    """z = 2 * x through one TBuf, synchronised as `how` says."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, N)
    zg.set_global_buffer(z, N)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 2 * N * 4)
    a = buf.get(asc.float32)
    b = a[N:]
    asc.data_copy(a, xg, N)  # COPY IN
    if how in ("flags", "no V_MTE3"):
        asc.set_flag(E.MTE2_V, 1)
        asc.wait_flag(E.MTE2_V, 1)
    elif how == "barrier":
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    elif how == "wrong pair":
        asc.set_flag(E.MTE3_V, 0)  # orders MTE3, not MTE2, before V
        asc.wait_flag(E.MTE3_V, 0)
    asc.muls(b, a, 2.0, N)  # SCALE
    if how == "no V_MTE3":
        asc.pipe_barrier(asc.PipeID.PIPE_V)  # a barrier of one pipe orders nothing between pipes
    else:
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
    asc.data_copy(zg, b, N)  # COPY OUT


@pytest.mark.parametrize("how", ["flags", "barrier"])
def test_flags_and_pipe_all_barrier_are_clean(how):
    x, z = inputs()
    s = checked(lambda: scale[1](x, z, how))
    assert s.findings == []
    np.testing.assert_array_equal(z, 2 * x)


@pytest.mark.parametrize("how", ["none", "wrong pair"])
def test_missing_mte2_v_wait_names_both_lines_and_the_pair(how):
    x, z = inputs()
    s = checked(lambda: scale[1](x, z, how))
    np.testing.assert_array_equal(z, 2 * x)  # in program order the CPU hides the race
    (f,) = s.findings
    assert (f.tool, f.kind, f.severity) == ("racecheck", "pipe-raw-hazard", "error")
    text = "\n".join(f.lines())
    copy_in, use = line_of("COPY IN"), line_of("SCALE")
    assert "PIPE_MTE2 Write by asc.data_copy at kernel scale (" in text and f"test_check_synccheck.py:{copy_in})" in text
    assert "PIPE_V Read by asc.muls at kernel scale (" in text and f"test_check_synccheck.py:{use})" in text
    assert f"{N * 4} bytes from UB offset 0x0 in block 0" in text
    assert f.fix.startswith(f"asc.set_flag(asc.HardEvent.MTE2_V, event_id) after line {copy_in} and "
                            f"asc.wait_flag(asc.HardEvent.MTE2_V, event_id) before line {use}")


def test_a_barrier_of_one_pipe_leaves_v_to_mte3_unordered():
    x, z = inputs()
    s = checked(lambda: scale[1](x, z, "no V_MTE3"))
    (f,) = s.findings
    assert f.kind == "pipe-raw-hazard"
    assert "HardEvent.V_MTE3" in f.fix and f"before line {line_of('COPY OUT')}" in f.fix


def test_each_core_is_judged_and_reported_once_with_a_count():
    x = np.random.default_rng(1).uniform(-1, 1, (3, N)).astype(np.float32)
    z = np.zeros_like(x)

    @asc.jit
    def per_core(x: asc.GlobalAddress, z: asc.GlobalAddress):
        scale(x + asc.get_block_idx() * N, z + asc.get_block_idx() * N, "none")

    s = checked(lambda: per_core[3](x, z))
    (f,) = s.findings
    assert f.count == 3
    np.testing.assert_array_equal(z, 2 * x)


@asc.jit
def double_buffered(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, back_pressure: bool):
    """Tile after tile through one UB tile: the next copy-in overwrites what the vector unit reads."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, tiles * N)
    zg.set_global_buffer(z, tiles * N)
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, N * 4, N)
    for i in range(tiles):
        asc.data_copy(src, xg[i * N:], N)  # REFILL
        asc.set_flag(E.MTE2_V, 0)
        asc.wait_flag(E.MTE2_V, 0)
        asc.adds(dst, src, 1.0, N)  # CONSUME
        asc.set_flag(E.V_MTE3, 0)
        asc.wait_flag(E.V_MTE3, 0)
        asc.data_copy(zg[i * N:], dst, N)
        if back_pressure:
            asc.set_flag(E.MTE3_MTE2, 0)  # V -> MTE3 -> MTE2: the refill comes after the last read
            asc.wait_flag(E.MTE3_MTE2, 0)
            asc.set_flag(E.MTE3_V, 0)  # and the next adds after the copy-out read dst
            asc.wait_flag(E.MTE3_V, 0)


def test_overwriting_a_tile_still_being_read_is_a_war_hazard():
    x = np.random.default_rng(2).uniform(-1, 1, 3 * N).astype(np.float32)
    z = np.zeros_like(x)
    s = checked(lambda: double_buffered[1](x, z, 3, False))
    kinds = {(f.kind, f.order[1], f.order[2]) for f in s.findings}
    assert ("pipe-war-hazard", line_of("CONSUME"), line_of("REFILL")) in kinds  # MTE2 overwrites what V read
    np.testing.assert_array_equal(z, x + 1)
    z[:] = 0
    assert checked(lambda: double_buffered[1](x, z, 3, True)).findings == []
    np.testing.assert_array_equal(z, x + 1)


@asc.jit
def queued(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """The framework way: queues carry the synchronisation, no flag in sight."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, tiles * N)
    zg.set_global_buffer(z, tiles * N)
    pipe = asc.TPipe()
    qi, qo = asc.TQue(asc.TPosition.VECIN, 2), asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qi, 2, N * 4)
    pipe.init_buffer(qo, 2, N * 4)
    for i in range(tiles):
        t = qi.alloc_tensor(asc.float32)
        asc.data_copy(t, xg[i * N:], N)
        qi.enque(t)
        t = qi.deque(asc.float32)
        o = qo.alloc_tensor(asc.float32)
        asc.mul(o, t, t, N)
        qo.enque(o)
        qi.free_tensor(t)
        o = qo.deque(asc.float32)
        asc.data_copy(zg[i * N:], o, N)
        qo.free_tensor(o)


def test_queue_based_kernel_is_clean():
    x = np.random.default_rng(3).uniform(-1, 1, 4 * N).astype(np.float32)
    z = np.zeros_like(x)
    assert checked(lambda: queued[2](x[: 2 * N], z[: 2 * N], 2) or queued[1](x, z, 4)).findings == []
    np.testing.assert_array_equal(z, x * x)


@asc.jit
def scalar_then_vector(x: asc.GlobalAddress, z: asc.GlobalAddress, synced: bool):
    """A scalar store into UB, read by the vector unit: needs S_V (a store lands late)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, N)
    zg.set_global_buffer(z, N)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, N)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, N * 4, N)
    asc.data_copy(t, xg, N)
    asc.set_flag(E.MTE2_S, 0)
    asc.wait_flag(E.MTE2_S, 0)  # the scalar unit stalls: everything issued after it follows MTE2
    first = t.get_value(0)
    t.set_value(0, first * 10)  # POKE
    if synced:
        asc.set_flag(E.S_V, 0)
        asc.wait_flag(E.S_V, 0)
    asc.adds(out, t, 0.0, N)  # USE
    asc.set_flag(E.V_MTE3, 0)
    asc.wait_flag(E.V_MTE3, 0)
    asc.data_copy(zg, out, N)


def test_scalar_store_read_by_the_vector_unit_needs_s_v():
    x, z = inputs()
    expected = x.copy()
    expected[0] *= 10
    (f,) = checked(lambda: scalar_then_vector[1](x, z, False)).findings
    assert f.kind == "pipe-raw-hazard" and f.order[1:] == (line_of("POKE"), line_of("USE"))
    assert "PIPE_S Write by asc.LocalTensor.set_value" in "\n".join(f.lines())
    assert "HardEvent.S_V" in f.fix
    np.testing.assert_array_equal(z, expected)
    assert checked(lambda: scalar_then_vector[1](x, z, True)).findings == []


def test_auto_sync_kernels_are_clean():
    x, z = inputs()

    @asc.jit(insert_sync=True)
    def raw_tensors(x: asc.GlobalAddress, z: asc.GlobalAddress):  # the compiler places the flags
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, N)
        zg.set_global_buffer(z, N)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, N)
        asc.data_copy(t, xg, N)
        asc.muls(t, t, 3.0, N)
        asc.data_copy(zg, t, N)

    @asc.jit
    def auto_tensors(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, N)
        zg.set_global_buffer(z, N)
        t = asc.LocalTensorAuto(asc.float32, [N])
        asc.data_copy(t, xg, N)
        asc.muls(t, t, 3.0, N)
        asc.data_copy(zg, t, N)

    for kernel in (raw_tensors, auto_tensors):
        z[:] = 0
        assert checked(lambda k=kernel: k[1](x, z)).findings == []
        np.testing.assert_array_equal(z, 3 * x)


def test_no_pipe_record_is_built_when_racecheck_is_off(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a pipe record was built")

    monkeypatch.setattr(pipes, "PipeAccess", refuse)
    monkeypatch.setattr(pipes, "PipeSync", refuse)
    x, z = inputs()
    s = checked(lambda: scale[1](x, z, "none"), tools=("memcheck", "initcheck", "leakcheck"))
    assert s.findings == []
    scale[1](x, z, "none")  # and with no sanitizer at all
    np.testing.assert_array_equal(z, 2 * x)


GOLDEN = """\
========= ACLSIM CHECK (racecheck)
========= Potential RAW hazard detected at UB: PIPE_V reads UB bytes PIPE_MTE2 writes, with no synchronisation between them
=========     PIPE_MTE2 Write by asc.data_copy at kernel scale (tests/test_check_synccheck.py:{copy_in})
=========     PIPE_V Read by asc.muls at kernel scale (tests/test_check_synccheck.py:{use})
=========     1024 bytes from UB offset 0x0 in block 0 (aiv) of kernel scale: nothing orders PIPE_V after PIPE_MTE2, so \
on hardware it may run first; aclsim runs in program order and hides it
=========     launched at tests/test_check_synccheck.py:{launch} in <lambda>
=========     fix: asc.set_flag(asc.HardEvent.MTE2_V, event_id) after line {copy_in} and asc.wait_flag(asc.HardEvent.MTE2_V, \
event_id) before line {use} (or pass the tensor through a queue: enque / deque)
=========
========= ERROR SUMMARY: 1 error
"""


def test_golden_report_text(monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)  # reports name files relative to the working directory
    x, z = inputs()
    s = checked(lambda: scale[1](x, z, "none"))  # LAUNCH
    assert s.report.text() == GOLDEN.format(copy_in=line_of("COPY IN"), use=line_of("SCALE"),
                                            launch=line_of("LAUNCH"))


@asc.jit
def ub_to_ub(x: asc.GlobalAddress, z: asc.GlobalAddress, synced: bool):
    """A UB -> UB data_copy runs on the vector pipe: after a vector instruction it needs no flag, after a
    GM -> UB copy it needs MTE2_V like any vector read."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, N)
    zg.set_global_buffer(z, N)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, N * 4, N)
    c = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2 * N * 4, N)
    asc.data_copy(a, xg, N)
    if synced:
        asc.set_flag(E.MTE2_V, 0)
        asc.wait_flag(E.MTE2_V, 0)
    asc.data_copy(b, a, N)  # UB COPY
    asc.muls(c, b, 4.0, N)
    asc.data_copy(b, c, N)  # V after V: in order
    asc.set_flag(E.V_MTE3, 0)
    asc.wait_flag(E.V_MTE3, 0)
    asc.data_copy(zg, b, N)


def test_a_ub_to_ub_copy_is_a_vector_pipe_access():
    x, z = inputs()
    (f,) = checked(lambda: ub_to_ub[1](x, z, False)).findings
    assert f.kind == "pipe-raw-hazard" and f.order[2] == line_of("UB COPY")
    assert "PIPE_V Read by asc.data_copy" in "\n".join(f.lines())
    np.testing.assert_array_equal(z, 4 * x)
    assert checked(lambda: ub_to_ub[1](x, z, True)).findings == []

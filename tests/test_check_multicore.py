"""memcheck's multi-core corruption rule on real Ascend C kernels (aclsim.asc): cores of one launch
that write the same GM bytes (or read bytes another core writes) without atomics are reported once
per pair of kernel lines, at msSanitizer's WARNING level; correct partitions, strided row
interleaving and atomic accumulation are clean, and the report is the same in both scheduling modes."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim.check import Session
from aclsim.runtime import reset_runtime

HERE = Path(__file__).read_text().splitlines()
CORES, BLOCK, TILE = 4, 256, 64


def line_of(marker: str) -> int:
    (n,) = [i for i, text in enumerate(HERE, 1) if text.rstrip().endswith(f"# {marker}")]
    return n


@pytest.fixture(params=["lazy", "eager"])
def mode(request, monkeypatch):
    monkeypatch.setenv("ACLSIM_SCHEDULE", request.param)
    reset_runtime()
    return request.param


def checked(run, tools=("memcheck",)) -> Session:
    s = Session(list(tools), out=io.StringIO())
    run()
    s.stop()
    return s


@asc.jit
def add_blocks(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int, extra: int):
    """AddCustom with one queue per operand; each core copies out `block_length + extra` elements."""
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length + extra)
    y_gm.set_global_buffer(y + offset, block_length + extra)
    z_gm.set_global_buffer(z + offset, block_length + extra)
    pipe = asc.TPipe()
    qx, qy, qz = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    n = block_length + extra
    for q in (qx, qy, qz):
        pipe.init_buffer(q, 1, n * 2)
    xl, yl = qx.alloc_tensor(asc.half), qy.alloc_tensor(asc.half)
    asc.data_copy(xl, x_gm, n)
    asc.data_copy(yl, y_gm, n)
    zl = qz.alloc_tensor(asc.half)
    asc.add(zl, xl, yl, n)
    qx.free_tensor(xl)
    qy.free_tensor(yl)
    asc.data_copy(z_gm, zl, n)  # STORE
    qz.free_tensor(zl)


def add_inputs(extra: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    n = CORES * BLOCK + extra  # room for the last core's extra elements: no out-of-bounds, only the overlap
    return (rng.uniform(-1, 1, n).astype(np.float16), rng.uniform(-1, 1, n).astype(np.float16),
            np.zeros(n, np.float16))


def test_overlapping_blocks_are_one_warning_naming_cores_bytes_and_line(mode):
    x, y, z = add_inputs(16)
    s = checked(lambda: add_blocks[CORES](x, y, z, BLOCK, 16))
    assert s.report.error_count == 0 and s.report.warning_count == 1
    (f,) = s.findings
    assert (f.tool, f.kind, f.severity, f.code) == ("memcheck", "multi-core-corruption", "warning", None)
    text = "\n".join(f.lines())
    assert text.startswith("WARNING: Multi-core corruption: different cores of kernel add_blocks write the same")
    where = f"test_check_multicore.py:{line_of('STORE')}"
    n = (BLOCK + 16) * 2
    assert f"core 0 writes {n} bytes" in text and f"core 1 writes {n} bytes" in text and where in text
    assert f"(offset {BLOCK * 2})" in text  # core 1's run starts where core 0's block ends
    assert f"these two overlap on {16 * 2} bytes" in text
    # every neighbouring pair overlaps on the 16 extra halves
    assert f"in all, {(CORES - 1) * 16 * 2} bytes in {CORES - 1} ranges conflict, between cores 0-{CORES - 1}" in text
    assert "get_block_idx()" in f.fix and "set_atomic_add" in f.fix
    assert np.array_equal(z[: CORES * BLOCK], (x + y)[: CORES * BLOCK])  # the data itself does not show it


def test_correct_partition_is_clean(mode):
    x, y, z = add_inputs(0)
    s = checked(lambda: add_blocks[CORES](x, y, z, BLOCK, 0), tools=("memcheck", "racecheck", "initcheck"))
    assert s.findings == []
    assert np.array_equal(z, x + y)


@asc.jit
def column_sums(x: asc.GlobalAddress, out: asc.GlobalAddress, block_length: int, atomic: int):
    """Each core adds its block of `x` into the same `out`: atomic 1 atomically, 2 atomically but core 0."""
    x_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * block_length, block_length)
    out_gm.set_global_buffer(out, block_length)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, block_length * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, x_gm, block_length)
    if atomic == 1 or (atomic == 2 and asc.get_block_idx() > 0):
        asc.set_atomic_add(asc.float32)
    asc.data_copy(out_gm, t, block_length)  # ACCUMULATE
    asc.set_atomic_none()
    q.free_tensor(t)


def test_atomic_add_accumulation_into_one_buffer_is_clean(mode):
    x = np.arange(CORES * BLOCK, dtype=np.float32) % 97  # integers: float32 sums are exact in any order
    out = np.zeros(BLOCK, np.float32)
    s = checked(lambda: column_sums[CORES](x, out, BLOCK, 1))
    assert s.findings == []
    assert np.array_equal(out, x.reshape(CORES, BLOCK).sum(axis=0))


def test_plain_stores_into_one_buffer_are_reported(mode):
    x = np.arange(CORES * BLOCK, dtype=np.float32)
    out = np.zeros(BLOCK, np.float32)
    (f,) = checked(lambda: column_sums[CORES](x, out, BLOCK, 0)).findings
    text = "\n".join(f.lines())
    assert f"in all, {BLOCK * 4} bytes in 1 range conflict, between cores 0-{CORES - 1}" in text
    assert f"test_check_multicore.py:{line_of('ACCUMULATE')}" in text


def test_a_plain_store_among_atomic_ones_is_reported(mode):
    x = np.arange(CORES * BLOCK, dtype=np.float32)
    out = np.zeros(BLOCK, np.float32)
    (f,) = checked(lambda: column_sums[CORES](x, out, BLOCK, 2)).findings
    text = "\n".join(f.lines())
    assert "write the same global memory, not all atomically" in text
    assert "core 0 writes" in text and "core 1 atomically writes" in text
    assert "make every store to these bytes atomic" in f.fix


@asc.jit
def smooth_in_place(z: asc.GlobalAddress, block_length: int, halo: int):
    """z[i] *= 2 per core block, reading `halo` elements of the next core's block too (a stencil gone wrong)."""
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z + asc.get_block_idx() * block_length, block_length + halo)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, (block_length + halo) * 4)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, z_gm, block_length + halo)  # HALO-READ
    asc.muls(t, t, 2.0, block_length)
    asc.data_copy(z_gm, t, block_length)  # IN-PLACE-STORE
    q.free_tensor(t)


def test_reading_bytes_another_core_writes_is_reported_as_read_write(mode):
    z = np.ones(CORES * BLOCK + 8, np.float32)
    (f,) = checked(lambda: smooth_in_place[CORES](z, BLOCK, 8)).findings
    text = "\n".join(f.lines())
    assert "a core of kernel smooth_in_place reads global memory another core writes" in text
    read, store = line_of("HALO-READ"), line_of("IN-PLACE-STORE")
    assert f"core 0 reads {(BLOCK + 8) * 4} bytes" in text and f"test_check_multicore.py:{read}" in text
    assert f"core 1 writes {BLOCK * 4} bytes" in text and f"test_check_multicore.py:{store}" in text
    assert f"in all, {(CORES - 1) * 8 * 4} bytes in {CORES - 1} ranges conflict" in text
    assert "split the kernel into two launches" in f.fix


@asc.jit
def interleaved_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows_per_core: int):
    """Core c owns rows c, c + cores, ...: strided DataCopyParams copies (16 halves = 32 bytes a row)."""
    cores = asc.get_block_num()
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * 16)
    z_gm.set_global_buffer(z + asc.get_block_idx() * 16)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, rows_per_core * 32)
    t = q.alloc_tensor(asc.half)
    asc.data_copy(t, x_gm, asc.DataCopyParams(rows_per_core, 1, cores - 1, 0))
    asc.muls(t, t, 2.0, rows_per_core * 16)
    asc.data_copy(z_gm, t, asc.DataCopyParams(rows_per_core, 1, 0, cores - 1))
    q.free_tensor(t)


def test_interleaved_strided_rows_are_clean(mode):
    rows = 8
    x = np.arange(CORES * rows * 16, dtype=np.float16)
    z = np.zeros_like(x)
    s = checked(lambda: interleaved_rows[CORES](x, z, rows))
    assert s.findings == []  # each core's byte ranges interleave with the others' but never overlap
    assert np.array_equal(z, x * 2)


def launch_twice_on_a_stream() -> Session:
    """Two overlapping launches queued on a stream, waited for only afterwards (lazy mode runs them then)."""
    with aclsim.Device(0):
        stream = aclsim.Stream()
        n = CORES * BLOCK + 16
        x, y = aclsim.to_device(np.ones(n, np.float16)), aclsim.to_device(np.ones(n, np.float16))
        z = aclsim.zeros(n, np.float16)
        s = Session(["memcheck"], out=io.StringIO())
        for _ in range(2):
            add_blocks[CORES, stream](x, y, z, BLOCK, 16)
        stream.synchronize()
        s.stop()
        for a in (x, y, z):
            a.free()
        stream.destroy()
    return s


def test_same_report_in_lazy_and_eager_mode_and_launches_fold(monkeypatch):
    texts = {}
    for m in ("lazy", "eager"):
        monkeypatch.setenv("ACLSIM_SCHEDULE", m)
        reset_runtime()
        s = launch_twice_on_a_stream()
        (f,) = s.findings
        assert f.count == 2
        texts[m] = s.report.text()
    assert texts["lazy"] == texts["eager"]
    assert "seen 2 times" in texts["lazy"] and "WARNING SUMMARY: 1 warning" in texts["lazy"]
    assert "ERROR SUMMARY: 0 errors" in texts["lazy"]


def test_warnings_do_not_set_the_error_exit_code(mode):
    x, y, z = add_inputs(16)
    s = Session(["memcheck"], error_exitcode=7, out=io.StringIO())
    add_blocks[CORES](x, y, z, BLOCK, 16)
    assert s.finish() is None
    assert "WARNING SUMMARY: 1 warning (not counted as errors)" in s.out.getvalue()

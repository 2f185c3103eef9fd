"""A copy out of local memory moves whatever the bytes hold, as the DMA does on hardware: copying a 32-byte block
whose tail the kernel never computed is legal (CANN's own examples do it: a ReduceMax result of 2 halves copied out
as 16), so it is no fault; `--check initcheck` reports it as a warning with the kernel line."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import aclsim.asc as asc
from aclsim.check import Session
from aclsim.runtime import reset_runtime

HERE = Path(__file__).read_text().splitlines()


@pytest.fixture(autouse=True)
def fresh():
    reset_runtime()


@asc.jit
def head_of_block(z: asc.GlobalAddress, copies: int):
    """Two floats computed, a block of 8 copied out (UB -> GM, or UB -> UB -> GM when `copies` is 2)."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z, 8)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 64)
    a = buf.get(asc.float32)
    a.set_value(0, 5.0)
    a.set_value(1, 6.0)
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    if copies == 2:
        b = a[8:]
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(b, a, 8)  # UB TO UB
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(zg, b, 8)  # SECOND COPY OUT
    else:
        asc.data_copy(zg, a, 8)  # COPY OUT


def line_of(marker: str) -> int:
    (n,) = [i for i, text in enumerate(HERE, 1) if text.rstrip().endswith(f"# {marker}")]
    return n


@pytest.mark.parametrize("copies", [1, 2])
def test_copying_out_a_block_with_an_unwritten_tail_moves_the_computed_head(copies):
    z = np.full(8, -1, np.float32)
    head_of_block[1](z, copies)
    assert z[:2].tolist() == [5.0, 6.0]


def test_initcheck_warns_of_the_garbage_it_moved_with_the_kernel_line():
    z = np.zeros(8, np.float32)
    s = Session(["initcheck"], out=io.StringIO())
    head_of_block[1](z, 1)
    s.stop()
    (f,) = s.findings
    assert f.severity == "warning" and f.kind == "uninitialized-local-move"
    assert "asc.data_copy copies 32 bytes" in f.headline
    assert any(f"test_asc_copy_garbage.py:{line_of('COPY OUT')}" in d for d in f.details), f.details
    assert any("byte 8" in d for d in f.details), f.details  # the first float never written


def test_garbage_stays_garbage_through_a_local_copy():
    """UB -> UB carries the written-flags: the copy out of the second buffer is reported too."""
    z = np.zeros(8, np.float32)
    s = Session(["initcheck"], out=io.StringIO())
    head_of_block[1](z, 2)
    s.stop()
    lines = sorted(int(d.rsplit(":", 1)[1].split(")")[0]) for f in s.findings for d in f.details[:1])
    assert lines == [line_of("UB TO UB"), line_of("SECOND COPY OUT")]

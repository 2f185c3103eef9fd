"""Host-side accesses through acl calls of pinned host memory that queued work still targets are races, named
with both lines (issue 23, defect 6): the commonest shape of "read before synchronize" in pyACL code is a
memcpy_async into malloc_host memory read back with acl.util.ptr_to_bytes before the synchronize, and a
host-to-host acl.rt.memcpy refilling a staging buffer a queued host-to-device copy still reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aclsim import acl
from aclsim.check import Session

pytestmark = pytest.mark.filterwarnings("ignore:acl.util.ptr_to_numpy will be deprecated")
H2H, H2D, D2H = 0, 1, 2
N = 4096


@pytest.fixture
def setup():
    acl.init()
    acl.rt.set_device(0)
    s, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(N, 0)
    assert acl.rt.memset(d, N, 7, N) == 0
    h, _ = acl.rt.malloc_host(N)
    yield s, d, h
    acl.rt.synchronize_device()
    acl.rt.free_host(h)
    acl.rt.free(d)
    acl.rt.destroy_stream(s)
    acl.rt.reset_device(0)
    acl.finalize()


def line_of(marker: str) -> int:
    (n,) = [i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1) if marker in text]
    return n


def races(findings) -> list:
    return [f for f in findings if f.kind == "race-host-device"]


@pytest.mark.parametrize("read", ["ptr_to_bytes", "ptr_to_numpy"])
def test_reading_pinned_memory_a_queued_copy_writes_is_a_race(setup, read):
    s, d, h = setup
    session = Session(["racecheck"])
    assert acl.rt.memcpy_async(h, N, d, N, D2H, s) == 0
    if read == "ptr_to_bytes":
        data = np.frombuffer(acl.util.ptr_to_bytes(h, N), np.uint8)  # BUG: ptr_to_bytes before the synchronize
    else:
        data = acl.util.ptr_to_numpy(h, (N,), 2).copy()  # BUG: ptr_to_numpy (NPY_UBYTE)
    assert not data.any()  # stale: the copy has not run
    assert acl.rt.synchronize_stream(s) == 0
    session.stop()
    (f,) = races(session.findings)
    assert f.headline == f"Race: host call acl.util.{read} reads pinned host memory that queued device work writes"
    assert f"test_check_pinned.py:{line_of(f'# BUG: {read}')}" in f.details[0]
    assert "memcpy_async D2H writes it" in f.details[1] and "test_check_pinned.py" in f.details[1]
    assert "the pinned host buffer of size 4096 bytes" in f.details[3]


def test_refilling_a_staging_buffer_a_queued_copy_reads_is_a_race(setup):
    s, d, h = setup
    src = np.ones(N, np.uint8)
    session = Session(["racecheck"])
    assert acl.rt.memcpy_async(d, N, h, N, H2D, s) == 0
    assert acl.rt.memcpy(h, N, src.ctypes.data, N, H2H) == 0  # BUG: the upload has not read it yet
    assert acl.rt.memset(h, N, 0, 16) == 0  # BUG again, through memset
    assert acl.rt.synchronize_stream(s) == 0
    session.stop()
    found = races(session.findings)
    assert [f.headline for f in found] == [
        "Race: host call acl.rt.memcpy writes pinned host memory that queued device work reads",
        "Race: host call acl.rt.memset writes pinned host memory that queued device work reads"]


def test_freeing_pinned_memory_a_queued_copy_writes_is_a_use_after_free(setup):
    s, d, _ = setup
    h2, _ = acl.rt.malloc_host(N)
    session = Session(["memcheck"])
    assert acl.rt.memcpy_async(h2, N, d, N, D2H, s) == 0
    assert acl.rt.free_host(h2) == 0  # BUG: the copy writes it when the stream runs
    assert acl.rt.synchronize_stream(s) == 0
    session.stop()
    (f,) = [f for f in session.findings if f.kind == "use-after-free-queued"]
    assert "acl.rt.free_host does not wait for queued tasks" in f.details[3]


def test_the_same_program_with_its_synchronize_reports_nothing(setup):
    s, d, h = setup
    session = Session(["memcheck", "racecheck", "initcheck"])
    assert acl.rt.memcpy_async(h, N, d, N, D2H, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert set(acl.util.ptr_to_bytes(h, N)) == {7}
    assert acl.util.ptr_to_numpy(h, (N,), 2).min() == 7
    src = np.ones(N, np.uint8)
    assert acl.rt.memcpy(h, N, src.ctypes.data, N, H2H) == 0
    assert acl.rt.memcpy_async(d, N, h, N, H2D, s) == 0
    assert acl.rt.synchronize_stream(s) == 0
    assert acl.rt.memset(h, N, 0, N) == 0
    session.stop()
    assert session.findings == []

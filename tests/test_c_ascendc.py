"""Ascend C kernels in C++ (`kernel_operator.h`): built with `aclsim cc`, run with `aclsim run` on the engine the
pyasc face uses, with its checks and the sanitizer's findings naming the C++ lines."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "c" / "ascendc"
PITFALLS = EXAMPLES / "pitfalls"

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("g++") is None or not sysconfig.get_config_var("Py_ENABLE_SHARED"),
    reason="the C face needs gcc, g++ and a Python with a shared libpython")


def aclsim(*args: str, cwd: Path = ROOT, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, check=False)


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """build(source) -> the program `aclsim cc` made from it (once per module)."""
    out = tmp_path_factory.mktemp("ascendc")
    made: dict[Path, Path] = {}

    def make(source: Path) -> Path:
        if source not in made:
            prog = out / source.stem
            r = aclsim("cc", str(source), "-o", str(prog))
            assert r.returncode == 0, r.stderr
            made[source] = prog
        return made[source]

    return make


def rel(source: Path) -> Path:
    """A source as reports name it (relative to the working directory, the repository here)."""
    return source.relative_to(ROOT)


def line_of(source: Path, marker: str) -> int:
    return next(i for i, ln in enumerate(source.read_text().splitlines(), 1) if marker in ln)


def test_the_count_form_add_computes_every_core_s_slice_and_checks_clean(build):
    prog = build(EXAMPLES / "add.asc")
    r = aclsim("run", "--check", "all", str(prog))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "add: 16384 floats on 8 cores: all correct" in r.stdout
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_the_tpipe_tque_add_streams_its_tiles_through_the_queues(build):
    prog = build(EXAMPLES / "add_tpipe.asc")
    r = aclsim("run", "--check", "all", str(prog))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "add_tpipe: 16384 floats on 8 cores in tiles of 128: all correct" in r.stdout
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_a_missing_barrier_is_named_with_the_lines_of_both_pipes(build):
    src = PITFALLS / "add_no_barrier.asc"
    r = aclsim("run", "--check", "all", str(build(src)))
    add = line_of(src, "AscendC::Add(zUb")
    copy_in, copy_out = line_of(src, "DataCopy(xUb"), line_of(src, "DataCopy(zGm")
    assert "all correct" in r.stdout  # the emulator runs in program order: only the sanitizer sees it
    assert r.stderr.count("Potential RAW hazard detected at UB") == 3, r.stderr
    assert f"PIPE_MTE2 Write by AscendC::DataCopy at kernel add_kernel ({rel(src)}:{copy_in})" in r.stderr
    assert f"PIPE_V Read by AscendC::Add at kernel add_kernel ({rel(src)}:{add})" in r.stderr
    assert f"PIPE_MTE3 Read by AscendC::DataCopy at kernel add_kernel ({rel(src)}:{copy_out})" in r.stderr


def test_a_tensor_never_freed_stops_the_core_at_the_alloc_that_would_hang(build):
    src = PITFALLS / "add_tpipe_no_free.asc"
    r = aclsim("run", str(build(src)))
    assert r.returncode == 1
    assert "507015" in r.stderr
    alloc = line_of(src, "outZ.AllocTensor")
    assert ("add_tpipe: core 0 of 8: AscendC::TQue::AllocTensor: queue TQue(VECOUT) has 2 buffer(s) and none is "
            "free (dequeued, dequeued): on hardware the core would wait forever") in r.stderr
    assert f"(at {rel(src)}:{alloc} in KernelAdd::Compute)" in r.stderr


def test_a_matmul_with_host_tiling_computes_c_and_checks_clean(build):
    prog = build(EXAMPLES / "matmul.asc")
    r = aclsim("run", "--check", "all", str(prog))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "matmul 256x192x128 on 4 cores (blocks of 128x96): all correct" in r.stdout
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_a_matmul_reading_past_a_stops_the_core_at_the_matmul_call(build):
    src = PITFALLS / "matmul_wrong_offset.asc"
    r = aclsim("run", "--check", "all", str(build(src)))
    assert r.returncode == 1
    call = line_of(src, "IterateAll")
    assert "Device fault: kernel matmul_kernel stopped with an exception" in r.stderr
    assert ("matmul_kernel: core 1 of 4: AscendC::Matmul::IterateAll: accesses 32768 bytes at GM "
            "0x20000000c000") in r.stderr
    assert f"(at {rel(src)}:{call} in matmul_kernel)" in r.stderr


def test_simt_lookups_started_from_an_ascend_c_kernel_work_on_its_ub(build):
    prog = build(EXAMPLES / "gather_adds.asc")
    r = aclsim("run", "--check", "all", str(prog))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gather_adds: 8192 lookups on 8 cores: all correct" in r.stdout
    assert "ERROR SUMMARY: 0 errors" in r.stderr


def test_a_vf_call_reading_ub_an_unwaited_copy_fills_is_a_hazard(build):
    src = PITFALLS / "gather_adds_no_wait.asc"
    r = aclsim("run", "--check", "all", str(build(src)))
    assert "all correct" in r.stdout
    copy, vf = line_of(src, "DataCopyPad(table"), line_of(src, "asc_vf_call<lookup>")
    assert "Potential RAW hazard detected at UB: PIPE_V reads UB bytes PIPE_MTE2 writes" in r.stderr
    assert f"PIPE_MTE2 Write by AscendC::DataCopyPad at kernel gather_adds ({rel(src)}:{copy})" in r.stderr
    assert f"PIPE_V Read by asc_vf_call at kernel gather_adds ({rel(src)}:{vf})" in r.stderr
    assert (f"fix: AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(eventId) after line {copy} and "
            f"AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(eventId) before line {vf}") in r.stderr

"""Kernels in C and C++: SIMT and Ascend C kernels built with `aclsim cc` run natively on the emulated device,
with the sanitizer's findings on their source lines, faults as 507015 and launches as ordinary device work.

The programs are compiled once per version of aclsim's kernel sources and cached (each build compiles the
program and its checked build), so a second run of the suite compiles nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "c" / "kernels"
EXAMPLES = ROOT / "examples" / "c"
SOC950 = ("--soc", "Ascend950PR_9589")

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("g++") is None or not sysconfig.get_config_var("Py_ENABLE_SHARED"),
    reason="kernels in C need gcc, g++ and a Python with a shared libpython")


def aclsim(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, check=False, env=env)


def _programs_dir() -> Path:
    from aclsim.capi.build import build_dir, library_path

    library_path()
    d = build_dir().with_name(build_dir().name + "-test-programs")  # one per version of the headers and library
    d.mkdir(parents=True, exist_ok=True)
    return d


def compiled(source: Path, *flags: str) -> Path:
    """The program `aclsim cc` makes from `source` (cached by the source's text, flags and aclsim's version)."""
    from aclsim.cli import cc

    key = hashlib.sha256(source.read_bytes() + " ".join(flags).encode() + Path(cc.__file__).read_bytes()
                         + (ROOT / "src" / "aclsim" / "capi" / "rewrite.py").read_bytes()).hexdigest()[:16]
    prog = _programs_dir() / f"{source.stem}-{key}"
    if not prog.exists():
        tmp = prog.with_name(prog.name + f".{os.getpid()}")
        r = aclsim("cc", *flags, str(source.relative_to(ROOT)), "-o", str(tmp), cwd=ROOT)
        assert r.returncode == 0, r.stderr
        os.replace(tmp, prog)
    return prog


def run(prog: Path, *args: str, options: tuple[str, ...] = SOC950) -> subprocess.CompletedProcess:
    return aclsim("run", *options, str(prog), *args, cwd=ROOT)


def values(out: str, name: str) -> np.ndarray:
    line = next(ln for ln in out.splitlines() if ln.startswith(name + " "))
    return np.array([float(x) for x in line.split()[1:]])


def line_of(source: Path, marker: str) -> int:
    return next(i for i, ln in enumerate(source.read_text().splitlines(), 1) if marker in ln)


# ---------------------------------------------------------------------------------------- the article
def test_the_articles_square_kernel_prints_the_right_squares():
    r = run(compiled(EXAMPLES / "square.asc"), "100000")
    assert r.returncode == 0, r.stderr
    assert "squares of 0.5 1.0 1.5: 0.25 1.00 2.25" in r.stdout
    assert "squared 100000 floats with 391 blocks of 256 threads: all correct" in r.stdout
    assert "warning" not in r.stderr  # Ascend 950 has SIMT
    clean = run(compiled(EXAMPLES / "square.asc"), "1000", options=("--check", "all", *SOC950))
    assert clean.returncode == 0 and "ERROR SUMMARY: 0 errors" in clean.stderr, clean.stderr


def test_a_simt_kernel_on_a_chip_without_simt_runs_with_a_warning():
    r = run(compiled(EXAMPLES / "square.asc"), "1000", options=())
    assert r.returncode == 0 and "all correct" in r.stdout
    assert "SquareKernel is a SIMT kernel" in r.stderr and "Ascend910B1 has none" in r.stderr


def test_the_missing_bounds_check_is_named_with_the_asc_line():
    src = EXAMPLES / "pitfalls" / "square_bounds.asc"
    line = line_of(src, "BUG: no `if (tid < size)`")
    prog = compiled(src)
    plain = run(prog)  # the bytes past 1000 floats lie in mapped pages: silent, as on an NPU
    assert plain.returncode == 0, plain.stderr
    r = run(prog, options=("--check", "all"))  # Ascend910B1: the first 8 threads land in the 32-byte padding
    assert r.returncode != 0
    for op in ("read", "write"):
        assert f"Invalid __global__ {op} of size 4 bytes" in r.stderr
    assert f"at kernel SquareKernel ({src.relative_to(ROOT)}:{line})" in r.stderr
    assert "by block (3, 0, 0) thread (232, 0, 0)" in r.stderr
    assert f"illegal address 0x200000000fc0 in a 4-byte load by block (3, 0, 0) thread (240, 0, 0) at " \
           f"{src.relative_to(ROOT)}:{line}" in r.stderr  # past the padding: the device fault
    r950 = run(prog, options=("--check", "all", *SOC950))  # no padding on Ascend 950: the first extra thread faults
    assert "illegal address 0x200000000fa0 in a 4-byte load by block (3, 0, 0) thread (232, 0, 0)" in r950.stderr


def test_the_missing_synchronize_is_named_with_the_copy_and_the_kernel_line():
    src = EXAMPLES / "pitfalls" / "square_nosync.asc"
    r = run(compiled(src), options=("--check", "all", *SOC950))
    rel = src.relative_to(ROOT)
    assert "Race: host call aclrtMemcpy reads device memory that queued device work writes" in r.stderr
    assert f"at {rel}:{line_of(src, 'BUG: no synchronize')} in main" in r.stderr
    assert f"device: kernel SquareKernel ({rel}:{line_of(src, 'output[tid] = input[tid]')}) writes it" in r.stderr
    assert "fix: call aclrtSynchronizeStream(" in r.stderr


# ---------------------------------------------------------------------------------------- SIMT semantics
@pytest.fixture(scope="module")
def simt():
    return compiled(KERNELS / "simt.asc")


def test_a_stencil_through_shared_ub_with_barriers(simt):
    r = run(simt, "stencil")
    assert "sync 0" in r.stdout, r.stdout + r.stderr
    x = (np.arange(1000) * 37 % 101).astype(np.float32)
    expected = np.convolve(np.pad(x, 3), np.ones(7), "valid")
    assert np.array_equal(values(r.stdout, "stencil"), expected)


def test_warp_votes_shuffles_and_reductions(simt):
    r = run(simt, "warps")
    assert "sync 0" in r.stdout, r.stdout + r.stderr
    got = values(r.stdout, "warps").reshape(96, 12)
    x = (np.arange(96) * 53 + 7) % 100
    for t in range(96):
        i = t % 48
        first = t - i + (i // 32) * 32  # the global index of the warp's lane 0
        lanes = list(range(first, min(t - i + 48, first + 32)))
        lane, v = t - first, x[lanes]

        def at(src: int, own: int = lane, v=v) -> int:
            return int(v[src]) if 0 <= src < len(v) else int(v[own])

        ballot = sum(1 << k for k in range(len(v)) if v[k] > 50)
        seg16, seg8 = lane // 16 * 16, lane // 8 * 8
        odd = sum(1 << k for k in range(1, len(v), 2))
        expected = [np.int32(np.uint32(ballot)), int(any(v > 98)), 1, at(5), at(lane - 3 if lane - 3 >= seg16 else lane),
                    at(lane + 2 if lane + 2 < seg8 + 8 else lane), at(lane ^ 1), v.sum(), v.max(), v.min(),
                    np.int32(np.uint32(odd)) if lane % 2 else -1, int((v * 0.5).sum())]
        assert got[t].tolist() == [float(e) for e in expected], (t, got[t], expected)


def test_atomics_on_gm_and_ub(simt):
    r = run(simt, "atomics")
    assert "sync 0" in r.stdout, r.stdout + r.stderr
    x = (np.arange(5000, dtype=np.int64) * 7919 + 13) % 1000 + 5
    assert values(r.stdout, "hist").tolist() == np.bincount(x % 16, minlength=16).tolist()
    assert values(r.stdout, "stats").tolist() == [5000, x.max(), x.min(), 5000 % 10, 1]
    assert values(r.stdout, "fsum").tolist() == [1250.0]


def _bf16(f: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 (nearest, ties to even) -> float32."""
    u = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)


def test_half_and_bfloat16_round_after_each_operation(simt):
    r = run(simt, "halves")
    got = values(r.stdout, "halves").reshape(6, 4)
    a = np.array([1.0, 3.14159265, -2.71828, 1000.7, 65504.0, 0.1], np.float32)
    h = a.astype(np.float16)
    with np.errstate(over="ignore"):
        assert got[:, 0].tolist() == ((h * h).astype(np.float16) + np.float16(1)).astype(np.float32).tolist()
    b = _bf16(a)
    assert got[:, 1].tolist() == _bf16(_bf16(b * b) + 1).tolist()
    toward_zero = np.where(np.abs(h.astype(np.float32)) > np.abs(a), np.nextafter(h, np.float16(0)), h)
    assert got[:, 2].tolist() == toward_zero.astype(np.float32).tolist()
    assert got[:, 3].tolist() == np.rint(a).tolist()


def test_dynamic_ub_of_the_launch(simt):
    r = run(simt, "reverse")
    assert values(r.stdout, "reverse").tolist() == np.arange(256).reshape(4, 64)[:, ::-1].ravel().tolist()


# ---------------------------------------------------------------------------------------- faults
FAULTS = {
    "wild": ("FAULT-WILD", "illegal address 0x200000400000 in a store by block (1, 0, 0) thread (0, 0, 0)"),
    "null": ("FAULT-WILD", "illegal address 0x0 in a store by block (1, 0, 0) thread (0, 0, 0)"),
    "divide": ("FAULT-DIV", "arithmetic exception (an integer division by zero or overflow) by block (0, 0, 0) "
                            "thread (7, 0, 0)"),
    "assert": ("FAULT-ASSERT", "assertion `p[threadIdx.x] < limit' failed at tests/c/kernels/simt.asc:"),
    "diverge": ("FAULT-BARRIER-A", "barrier divergence: the threads of a block wait at different barriers"),
    "deep": ("__global__ void deep", "stack overflow: a SIMT thread used more than its 256 KiB"),
}


@pytest.mark.parametrize("case", sorted(FAULTS))
def test_a_faulting_kernel_is_an_aicore_exception_at_the_next_synchronize(simt, case):
    marker, text = FAULTS[case]
    r = run(simt, case)
    assert f"after {case}" in r.stdout and "sync 507015" in r.stdout and "last 507015" in r.stdout, r.stdout + r.stderr
    message = next(ln for ln in r.stdout.splitlines() if ln.startswith("message "))
    assert text in message
    line = line_of(KERNELS / "simt.asc", marker)
    lines = (line, line + 1) if case == "deep" else (line,)  # a stack overflow faults in the function's prologue
    assert any(f"simt.asc:{n}" in message for n in lines), message
    if r.returncode == 0:  # the program went on: `aclsim run` still names the failed kernel on stderr
        assert "aclsim: device work failed during the run" in r.stderr and text in r.stderr, r.stderr
    if case == "assert":
        assert "[ASSERT] " in r.stdout and "Assertion `p[threadIdx.x] < limit' failed. value 20 at thread 20" in r.stdout
    if case == "diverge":
        assert f"waits at tests/c/kernels/simt.asc:{line_of(KERNELS / 'simt.asc', 'FAULT-BARRIER-B')}" in message


def test_a_launch_beyond_the_kernels_thread_bound_fails_and_says_why(simt):
    r = run(simt, "bounds")
    assert "kernel launch failed (107000)" in r.stderr and "more than the 1024 a kernel without __launch_bounds__" in r.stderr
    assert "sync 0" in r.stdout and "last 107000" in r.stdout  # nothing was queued; aclrtGetLastError has the code


def test_faults_under_the_sanitizer_name_the_device_fault(simt):
    r = run(simt, "wild", options=("--check", "memcheck", *SOC950))
    assert "Device fault: kernel wild stopped with an exception" in r.stderr
    assert f"at tests/c/kernels/simt.asc:{line_of(KERNELS / 'simt.asc', 'FAULT-WILD')}" in r.stderr


# ---------------------------------------------------------------------------------------- AI Cores
@pytest.fixture(scope="module")
def cores():
    return compiled(KERNELS / "cores.asc")


def test_ascend_c_kernels_run_one_body_per_core_and_cores_interleave_when_they_wait(cores):
    r = run(cores, "ok", options=())
    assert r.returncode == 0, r.stderr
    ids, order = r.stdout.splitlines()[:2]
    assert ids.split() == [f"{i}/8" for i in range(8)]
    assert order.split()[1:] == [str(7 - i) for i in range(8)]  # core 0 waited for core 1, ... the last ran first


def test_a_wait_no_core_can_satisfy_faults_instead_of_hanging(cores):
    r = run(cores, "deadlock", options=())
    assert "aclrtSynchronizeStream -> 507015" in r.stdout
    assert "core waits for a flag no core ever sets by core 0" in r.stdout


def test_simt_work_started_from_an_ai_core_uses_the_cores_ub(cores):
    r = run(cores, "vf", options=())
    assert r.returncode == 0, r.stderr
    simd = sorted(ln for ln in r.stdout.splitlines() if ln.startswith("simd vf"))
    assert simd == [f"simd vf on core {i}" for i in range(4)]  # asc_vf_call<f>(): a SIMD VF, called as is
    lines = [ln for ln in r.stdout.splitlines() if not ln.startswith("simd vf")]
    x = np.arange(256, dtype=np.float64)
    assert [float(v) for v in lines[0].split()] == np.where(x < 250, x * x, 0).tolist()
    sums = np.where(x < 250, x * x, 0).reshape(8, 32).sum(axis=1)  # per core: the sum of each warp of 32 threads
    assert [float(v) for v in lines[1].split()[1:]] == sums.tolist()


def test_the_cpu_twins_launch_with_gm_alloc(cores):
    r = run(cores, "cpu", options=())
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [f"{i}/8" for i in range(8)]


# ---------------------------------------------------------------------------------------- the launch as device work
def test_a_native_launch_is_device_work_on_the_timeline(tmp_path, simt):
    trace = tmp_path / "t.json"
    r = run(simt, "stencil", options=("--trace", str(trace), "--summary", *SOC950))
    assert r.returncode == 0, r.stderr
    assert '"stencil"' in trace.read_text()
    assert re.search(r"stencil", r.stderr)


def test_eager_scheduling_runs_the_kernel_at_the_launch(simt):
    r = run(simt, "stencil", options=("--schedule", "eager", *SOC950))
    assert "sync 0" in r.stdout and values(r.stdout, "stencil")[0] == 121


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("make") is None, reason="needs cmake and make")
def test_an_asc_cmake_project_builds_against_aclsim_home_and_its_library_kernels_are_checked(tmp_path):
    home = aclsim("home").stdout.strip()
    src = KERNELS / "cmake"
    env = dict(os.environ, CMAKE_PREFIX_PATH=home, ASCEND_HOME_PATH=home)
    build = tmp_path / "build"
    build.mkdir()
    for cmd in (["cmake", str(src)], ["make"]):
        r = subprocess.run(cmd, cwd=build, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert r.returncode == 0, r.stdout + r.stderr
    r = aclsim("run", "--check", "memcheck", str(build / "demo"), cwd=ROOT)  # 910B1: the extra thread reads padding
    assert "y[999] 998001" in r.stdout
    line = line_of(src / "square_kernel.asc", "BUG: <=")
    assert re.search(rf"at kernel square \(\S*square_kernel\.asc:{line}\)", r.stderr), r.stderr

"""The SIMT examples and `aclsim demo` run as a user would: subprocesses with their exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def aclsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclsim", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("script", "args", "expect"),
    [
        ("seed_square.py", [], "squared 1048576 floats with 4096 blocks of 256 threads: match numpy"),
        ("seed_square.py", ["1000"], "squared 1000 floats with 4 blocks of 256 threads: match numpy"),
        ("saxpy.py", ["300001"], "saxpy over 300001 elements with a grid-stride loop: match numpy"),
        ("matmul.py", ["45"], "45x45 matmul on a 3x3 grid of 16x16 blocks: match numpy"),
        ("reduction.py", ["100001"], "sum of 100001 floats"),
    ],
)
def test_example_runs_under_aclsim_run(script, args, expect):
    r = aclsim("run", str(EXAMPLES / script), *args)
    assert r.returncode == 0, r.stdout + r.stderr
    assert expect in r.stdout
    assert "MISMATCH" not in r.stdout


def test_demo_narrates_every_step_and_passes():
    r = aclsim("demo", "--size", "5000")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    for step in range(1, 7):
        assert f"Step {step}" in out
    assert "acl.rt.synchronize_stream(stream)" in out and "-> 0" in out
    assert "grid 20 x 1 x 1 blocks of 256 x 1 x 1 threads" in out
    assert out.count("acl.rt.get_mem_info(ACL_HBM_MEM)") == 3
    assert "back to the start" in out
    assert "all 5,000 elements equal input * input" in out
    assert "Result: PASS" in out


def test_demo_exits_nonzero_when_the_check_fails():
    r = aclsim("demo", "--size", "1000", "--bug", "off-by-one")
    assert r.returncode == 1
    assert "1 of 1,000 elements WRONG (first: output[999]" in r.stdout and "Result: FAIL" in r.stdout


def test_demo_shows_the_fault_of_a_kernel_without_bounds_check():
    r = aclsim("demo", "--size", "1000", "--bug", "no-bounds-check")
    assert r.returncode == 1
    assert "acl.rt.synchronize_stream(stream)" in r.stdout and "-> 507015" in r.stdout
    assert "illegal address" in r.stdout and "input[1008]" in r.stdout

"""The exit status of `aclsim run --check`, which CI relies on: --error-exitcode wins whenever errors were
reported (as compute-sanitizer's does), and a run stopped by SIGTERM (a CI timeout) or Ctrl-C still
reports what it found so far, promptly (queued work is not run first), and writes the --json file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# A program with one error found early (a double free) that then waits to be stopped, with a kernel
# queued that would fault (no bounds check) if the sanitizer ran it before reporting.
WAITING = """\
import time
import numpy as np
import acl
from aclsim import simt

@simt.kernel
def fill(out: simt.Ptr[np.float32], n: np.uint32):
    i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    out[i] = 1.0

acl.init(); acl.rt.set_device(0)
dev, _ = acl.rt.malloc(4096, 0)
acl.rt.free(dev); acl.rt.free(dev)
buf, _ = acl.rt.malloc(4000, 0)
fill[8, 256](buf, 1000)
print("ready", flush=True)
time.sleep(120)
"""

# The same error, then a queued Ascend C kernel that is "interrupted by Ctrl-C" while the sanitizer
# runs it at exit: each of its cores sends SIGINT to the process.
CTRL_C_AT_EXIT = """\
import os, signal
import acl
import aclsim.asc as asc

@asc.jit
def interrupted(x: asc.GlobalAddress):
    os.kill(os.getpid(), signal.SIGINT)

acl.init(); acl.rt.set_device(0)
dev, _ = acl.rt.malloc(4096, 0)
acl.rt.free(dev); acl.rt.free(dev)
buf, _ = acl.rt.malloc(4096, 0)
interrupted[4, None](asc.GlobalAddress(buf, asc.float32))
"""


# Forgets to synchronize, so its results are wrong and it exits 1 by itself.
UNSYNCHRONIZED = """\
import sys
import numpy as np
import acl
from aclsim import simt

@simt.kernel
def twice(x: simt.Ptr[np.float32], n: np.uint32):
    i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if i < n:
        x[i] = x[i] * 2

acl.init(); acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
data = np.arange(256, dtype=np.float32)
dev, _ = acl.rt.malloc(data.nbytes, 0)
acl.rt.memcpy(dev, data.nbytes, data.ctypes.data, data.nbytes, 1)
twice[1, 256, stream](dev, 256)
out = np.empty_like(data)
acl.rt.memcpy(out.ctypes.data, out.nbytes, dev, out.nbytes, 2)
sys.exit(0 if np.array_equal(out, data * 2) else 1)
"""


def _run(tmp_path: Path, source: str, *opts: str) -> subprocess.CompletedProcess:
    prog = tmp_path / "prog.py"
    prog.write_text(source)
    return subprocess.run([sys.executable, "-m", "aclsim", "run", *opts, str(prog)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)


def test_error_exitcode_wins_over_the_programs_own_failure(tmp_path):
    assert _run(tmp_path, UNSYNCHRONIZED).returncode == 1  # the program's own verdict
    r = _run(tmp_path, UNSYNCHRONIZED, "--check", "racecheck", "--error-exitcode", "7")
    assert "Race: host call acl.rt.memcpy reads" in r.stderr
    assert r.returncode == 7


def test_without_findings_the_programs_status_stays(tmp_path):
    fixed = UNSYNCHRONIZED.replace("out = np.empty_like", "acl.rt.synchronize_stream(stream)\nout = np.empty_like")
    assert _run(tmp_path, fixed, "--check", "racecheck", "--error-exitcode", "7").returncode == 0
    exits_4 = fixed.replace("sys.exit(0 if", "sys.exit(4 if")
    assert _run(tmp_path, exits_4, "--check", "racecheck", "--error-exitcode", "7").returncode == 4


def _stopped_run(tmp_path: Path, sig: int, *opts: str) -> tuple[subprocess.CompletedProcess, dict | None]:
    prog = tmp_path / "prog.py"
    prog.write_text(WAITING)
    out = tmp_path / "found.json"
    p = subprocess.Popen([sys.executable, "-m", "aclsim", "run", "--check", "all", *opts, "--json", str(out),
                          str(prog)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert p.stdout is not None and p.stdout.readline() == "ready\n"
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=60)  # far less than the program's own sleep
    finally:
        p.kill()
    r = subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)
    return r, json.loads(out.read_text()) if out.exists() else None


def test_sigterm_writes_the_report_and_json_and_the_error_exitcode_wins(tmp_path):
    r, doc = _stopped_run(tmp_path, signal.SIGTERM, "--error-exitcode", "7")
    assert r.returncode == 7, r.stderr
    assert "terminated by SIGTERM" in r.stderr and "INTERRUPTED by SIGTERM" in r.stderr
    assert "Double free" in r.stderr and "ERROR SUMMARY: 1 error" in r.stderr
    assert doc is not None and doc["interrupted"] == "SIGTERM"
    # the queued kernel was not run; the program did not end, so its live allocations are not leaks
    assert [e["class"] for e in doc["errors"]] == ["double-free"]


def test_ctrl_c_writes_the_report_and_exits_130(tmp_path):
    r, doc = _stopped_run(tmp_path, signal.SIGINT)
    assert r.returncode == 130, r.stderr
    assert "KeyboardInterrupt" in r.stderr and "INTERRUPTED by SIGINT" in r.stderr
    assert doc is not None and doc["interrupted"] == "SIGINT"
    assert [e["class"] for e in doc["errors"]] == ["double-free"]


def test_ctrl_c_while_the_sanitizer_runs_queued_work_does_not_crash_it(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(CTRL_C_AT_EXIT)
    out = tmp_path / "found.json"
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", "--check", "all", "--json", str(out), str(prog)],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "Traceback" not in r.stderr, r.stderr
    assert "INTERRUPTED by SIGINT" in r.stderr and "Double free" in r.stderr
    assert r.returncode == 130
    doc = json.loads(out.read_text())
    # the program itself ended, so what it left allocated is a leak; the kernel was not run again
    assert doc["interrupted"] == "SIGINT" and [e["class"] for e in doc["errors"]] == ["double-free", "leak"]


def test_a_bad_aclsim_check_value_is_named_as_such(tmp_path):
    env = {**os.environ, "ACLSIM_CHECK": "foo"}
    prog = tmp_path / "prog.py"
    prog.write_text("print('ran')\n")
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", str(prog)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 2 and "ran" not in r.stdout
    assert r.stderr.startswith("aclsim: ACLSIM_CHECK: unknown sanitizer tool 'foo'"), r.stderr
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", "--check", "foo", str(prog)], capture_output=True,
                       text=True, timeout=120, env=env)  # the option wins over the environment, and is named
    assert r.stderr.startswith("aclsim: --check: unknown sanitizer tool 'foo'"), r.stderr


def test_ctrl_c_while_stop_runs_queued_work_is_recorded_then_propagates():
    """In a library setting (the pytest plugin), Session.stop keeps the Ctrl-C's meaning: it finishes its
    bookkeeping (unsubscribed, report marked) and re-raises; Session.finish keeps it and reports."""
    from aclsim import acl, asc
    from aclsim.check import Session
    from aclsim.runtime import get_runtime, reset_runtime

    pressed = []

    @asc.jit
    def interrupted(x: asc.GlobalAddress):
        if not pressed:  # Ctrl-C pressed once (teardown may run what is left of the launch)
            pressed.append(1)
            raise KeyboardInterrupt

    reset_runtime()
    try:
        acl.init()
        acl.rt.set_device(0)
        session = Session(["memcheck", "leakcheck"])
        dev, _ = acl.rt.malloc(64, 0)
        acl.rt.free(dev)
        acl.rt.free(dev)
        buf, _ = acl.rt.malloc(64, 0)
        interrupted[2, None](asc.GlobalAddress(buf, asc.float32))
        with pytest.raises(KeyboardInterrupt):
            session.stop()
        assert session.report.interrupted == "SIGINT"
        assert session.observer not in get_runtime().bus.observers
        assert [f.kind for f in session.findings] == ["double-free"]  # buf, still live, is not judged a leak
    finally:
        reset_runtime()

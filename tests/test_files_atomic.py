"""Trace and report files are written whole or not at all (issue 23, defect 7): a write that fails part way
(a full disk; here a file-size limit the program sets before it ends, which fails writes the same way) used
to leave a truncated, invalid JSON file behind. Now it leaves the previous file, or none, and no temporary
file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = """
import resource, signal, sys
import numpy as np
import acl
acl.init(); acl.rt.set_device(0)
s, _ = acl.rt.create_stream()
bufs = [acl.rt.malloc(256, 0)[0] for _ in range(40)]
for b in bufs:
    acl.rt.memset_async(b, 256, 1, 256, s)
acl.rt.synchronize_stream(s)
bufs.pop()  # leaked: the report has a finding
for b in bufs:
    acl.rt.free(b)
if len(sys.argv) > 1:  # the disk fills up: from here on, writes past 512 bytes fail with EFBIG, as on a full disk
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
"""


def run(tmp_path: Path, *flags: str, full: bool = False) -> subprocess.CompletedProcess:
    (tmp_path / "prog.py").write_text(PROGRAM)
    return subprocess.run([sys.executable, "-m", "aclsim", "run", *flags, "prog.py", *(["full"] if full else [])],
                          cwd=tmp_path, text=True, capture_output=True, timeout=120)


@pytest.mark.parametrize("flag,name", [("--trace", "t.json"), ("--json", "r.json")])
def test_a_file_that_cannot_be_written_whole_is_not_written_at_all(tmp_path, flag, name):
    extra = ["--check", "leakcheck"] if flag == "--json" else []
    good = run(tmp_path, *extra, flag, name)
    assert good.returncode == 0, good.stderr
    before = (tmp_path / name).read_text()
    json.loads(before)
    assert len(before) > 600
    r = run(tmp_path, *extra, flag, name, full=True)  # the same run, on a disk that fills up before the end
    assert r.returncode == 1 and "aclsim: cannot write the" in r.stderr and "File too large" in r.stderr
    assert "Traceback" not in r.stderr
    assert (tmp_path / name).read_text() == before  # the previous file, intact
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["prog.py", name])  # no temporary file left
    (tmp_path / name).unlink()
    run(tmp_path, *extra, flag, name, full=True)
    assert not (tmp_path / name).exists()  # and no truncated one when there was none

"""What a newcomer meets in the first hour: the README's set-up and snippets, `import aclsim` giving every
submodule, `aclsim demo --bug` teaching, and the command line's hints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_aclsim_reaches_check_and_trace_without_importing_them(tmp_path):
    r = _python(
        "import sys, aclsim\n"
        "assert 'aclsim.check' not in sys.modules and 'aclsim.trace' not in sys.modules  # import stays light\n"
        f"with aclsim.trace.start_session({str(tmp_path / 't.json')!r}):\n"
        "    session = aclsim.check.enable('leakcheck')\n"
        "    with aclsim.Device(0):\n"
        "        x = aclsim.zeros(4)\n"
        "print(aclsim.constants.ACL_MEMCPY_HOST_TO_DEVICE, aclsim.simt.kernel.__name__, aclsim.acl.rt.__name__)\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:2] == ["1", "kernel"]
    assert (tmp_path / "t.json").exists()
    assert "ERROR SUMMARY" in r.stderr  # the sanitizer enabled through the lazy attribute reports at exit
    r = _python("import aclsim; aclsim.nothing")
    assert "module 'aclsim' has no attribute 'nothing'" in r.stderr

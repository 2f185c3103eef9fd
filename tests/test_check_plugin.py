"""`pytest --aclsim-check=...` (the plugin registered as the pytest11 entry point) and
`aclsim.check.enable()`, each in a fresh process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

TESTS = '''
import numpy as np
from aclsim import acl

def setup_module():
    acl.init()
    acl.rt.set_device(0)

def test_leaks():
    dev, _ = acl.rt.malloc(256, 0)  # never freed

def test_clean():
    dev, _ = acl.rt.malloc(256, 0)
    acl.rt.memset(dev, 256, 0, 256)
    out = np.ones(64, np.float32)
    acl.rt.memcpy(out.ctypes.data, 256, dev, 256, 2)
    acl.rt.free(dev)
    assert not out.any()
'''


def run(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_plugin_fails_the_test_with_findings_and_shows_the_report(tmp_path):
    (tmp_path / "test_prog.py").write_text(TESTS)
    r = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--aclsim-check=all", "test_prog.py"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 failed, 1 passed" in r.stdout
    assert "FAILED test_prog.py::test_leaks" in r.stdout
    assert "Leaked 256 bytes of device memory" in r.stdout and "test_prog.py:10 in test_leaks" in r.stdout


def test_plugin_is_inactive_without_the_option(tmp_path):
    (tmp_path / "test_prog.py").write_text(TESTS)
    r = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_prog.py"], tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr


def test_plugin_rejects_an_unknown_tool(tmp_path):
    (tmp_path / "test_prog.py").write_text(TESTS)
    r = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--aclsim-check=memchek", "test_prog.py"], tmp_path)
    assert r.returncode == 4 and "unknown sanitizer tool 'memchek'" in r.stderr


def test_enable_in_code_reports_at_exit(tmp_path):
    prog = textwrap.dedent('''
        import aclsim.check
        from aclsim import acl
        aclsim.check.enable("leakcheck")
        acl.rt.set_device(0)
        acl.rt.malloc(100, 0)
        dev, _ = acl.rt.malloc(64, 0)
        acl.rt.free(dev)
        acl.rt.free(dev)  # a memcheck error: not reported, memcheck is off
    ''')
    r = run(["-c", prog], tmp_path)
    assert r.returncode == 0
    assert "ACLSIM CHECK (leakcheck)" in r.stderr
    assert "LEAK SUMMARY: 100 bytes leaked in 1 allocation\n" in r.stderr
    assert "Double free" not in r.stderr and "ERROR SUMMARY: 1 error\n" in r.stderr


def test_report_is_identical_from_run_to_run(tmp_path):
    (tmp_path / "prog.py").write_text(textwrap.dedent('''
        import acl
        acl.rt.set_device(0)
        host, _ = acl.rt.malloc_host(4096)           # leaked
        dev, _ = acl.rt.malloc(4096, 0)
        stream, _ = acl.rt.create_stream()
        acl.rt.memset(dev, 4096, 1, 4096)
        acl.rt.memcpy_async(host + 8, 64, dev, 64, 2, stream)   # misaligned pinned destination
        acl.rt.synchronize_stream(stream)
        acl.rt.free(host)                            # host memory given to acl.rt.free
        acl.rt.free_host(host + 64)                  # not the start of a pinned buffer
    '''))
    runs = [run(["-m", "aclsim", "run", "--check", "all", "prog.py"], tmp_path) for _ in range(2)]
    assert runs[0].stderr == runs[1].stderr
    assert "ERROR SUMMARY: 5 errors" in runs[0].stderr

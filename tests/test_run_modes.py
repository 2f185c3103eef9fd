"""Run modes: EP (a host with an NPU card, the default) and RC (the program runs on the device, as on an
Atlas 200 DK: acl.rt.get_run_mode() is ACL_DEVICE and the host reads and writes device memory); and the
`atc` command a program finds on PATH inside `aclsim run`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from aclsim import acl
from aclsim import constants as C

H2D, D2H, D2D = C.ACL_MEMCPY_HOST_TO_DEVICE, C.ACL_MEMCPY_DEVICE_TO_HOST, C.ACL_MEMCPY_DEVICE_TO_DEVICE


@pytest.fixture
def dev():
    acl.rt.set_device(0)
    d, ret = acl.rt.malloc(4096, 0)
    assert ret == 0
    src = np.arange(1024, dtype=np.float32)
    assert acl.rt.memcpy(d, 4096, src.ctypes.data, 4096, H2D) == 0
    return d


def test_ep_mode_is_acl_host_and_device_memory_is_apart(dev, monkeypatch):
    monkeypatch.delenv("ACLSIM_RUN_MODE", raising=False)
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)
    with pytest.raises(ValueError, match=r"cannot read; copy it .* --run-mode rc"):
        acl.util.ptr_to_bytes(dev, 16)


def test_rc_mode_is_acl_device_and_the_host_reads_and_writes_device_memory(dev, monkeypatch):
    monkeypatch.setenv("ACLSIM_RUN_MODE", "rc")
    assert acl.rt.get_run_mode() == (C.ACL_DEVICE, 0)
    assert acl.util.ptr_to_bytes(dev + 4, 8) == np.arange(1, 3, dtype=np.float32).tobytes()
    with pytest.warns(Warning, match="deprecated"):
        view = acl.util.ptr_to_numpy(dev, (1024,), C.NPY_FLOAT32)
    view[:4] = -1.0  # lands in device memory
    out = np.zeros(1024, np.float32)
    assert acl.rt.memcpy(out.ctypes.data, 4096, dev, 4096, D2H) == 0
    np.testing.assert_array_equal(out[:5], [-1, -1, -1, -1, 4])
    host = np.full(1024, 7, np.float32)  # ACLLite on a 200 DK copies host data with DEVICE_TO_DEVICE
    assert acl.rt.memcpy(dev, 4096, host.ctypes.data, 4096, D2D) == 0
    assert acl.util.ptr_to_bytes(dev, 4) == np.float32(7).tobytes()
    with pytest.raises(ValueError, match="past the end"):
        acl.util.ptr_to_bytes(dev, 8192)


def test_a_bad_run_mode_is_refused_before_the_program_runs(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text("print('ran')\n")
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", str(prog)], capture_output=True, text=True,
                       env={**__import__("os").environ, "ACLSIM_RUN_MODE": "xyz"})
    assert r.returncode == 2 and "ACLSIM_RUN_MODE" in r.stderr and "ran" not in r.stdout


def test_run_mode_flag_and_atc_on_path(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text(textwrap.dedent("""
        import shutil, subprocess, acl
        print(acl.rt.get_run_mode())
        r = subprocess.run(["atc", "--help"], capture_output=True, text=True)
        print(shutil.which("atc") is not None, r.returncode, "--singleop" in r.stdout)
    """))
    r = subprocess.run([sys.executable, "-m", "aclsim", "run", "--run-mode", "rc", str(prog)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["(0, 0)", "True 0 True"]


def test_check_accepts_device_to_device_copies_of_process_memory_in_rc_mode(tmp_path):
    """Atlas 200 DK programs copy their own (numpy) buffers with ACL_MEMCPY_DEVICE_TO_DEVICE: in RC mode the
    process's memory is device memory, so --check finds no wrong direction; in EP mode the same copy is one."""
    prog = tmp_path / "rc_copy.py"
    prog.write_text(textwrap.dedent("""
        import acl, numpy as np
        acl.init(); acl.rt.set_device(0); ctx, _ = acl.rt.create_context(0)
        host = np.arange(256, dtype=np.float32)
        dev, _ = acl.rt.malloc(host.nbytes, 0)
        assert acl.rt.memcpy(dev, host.nbytes, acl.util.numpy_to_ptr(host), host.nbytes, 3) == 0
        back = np.zeros_like(host)
        assert acl.rt.memcpy(acl.util.numpy_to_ptr(back), back.nbytes, dev, back.nbytes, 3) == 0
        assert (back == host).all()
        acl.rt.free(dev); acl.rt.destroy_context(ctx); acl.rt.reset_device(0); acl.finalize()
    """))
    for mode, errors in (("rc", "0 errors"), ("ep", "2 errors")):
        p = subprocess.run([sys.executable, "-m", "aclsim", "run", "--run-mode", mode, "--check", "all", str(prog)],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert f"ERROR SUMMARY: {errors}" in p.stderr, (mode, p.stderr)

"""Host memory a Python program cannot corrupt through the runtime.

Each case crashed the interpreter or silently corrupted its heap before: a copy running past a
pinned buffer, a copy into a buffer after free_host, a copy into a mapping re-protected since the
runtime last looked, and a copy from the kernel's [vvar] pages. Every one must return a code and
write nothing; under --check the first two are named, with the lines involved.
"""

from __future__ import annotations

import ctypes
import mmap

import numpy as np
import pytest

import aclsim.acl as acl
from aclsim import constants as C
from aclsim.check import Session

H2D, D2H = C.ACL_MEMCPY_HOST_TO_DEVICE, C.ACL_MEMCPY_DEVICE_TO_HOST


@pytest.fixture
def dev():
    acl.rt.set_device(0)
    d, ret = acl.rt.malloc(8192, 0)
    assert ret == 0
    assert acl.rt.memset(d, 8192, 0x5A, 8192) == 0
    return d


def test_a_copy_running_past_a_pinned_buffer_is_refused_and_writes_nothing(dev):
    h, _ = acl.rt.malloc_host(4096)
    acl.rt.memset(h, 4096, 0, 4096)
    assert acl.rt.memcpy(h + 64, 8192, dev, 8192, D2H) == 107000
    assert "past the end" in acl.get_recent_err_msg()
    assert acl.util.ptr_to_bytes(h, 4096) == bytes(4096)  # not one byte written
    assert acl.rt.memcpy(h + 64, 4032, dev, 4032, D2H) == 0  # the part that fits is fine
    assert acl.util.ptr_to_bytes(h + 64, 4032) == b"\x5a" * 4032


def test_pinned_memory_is_unusable_after_free_host(dev):
    h, _ = acl.rt.malloc_host(4096)
    assert acl.rt.free_host(h) == 0
    assert acl.rt.memcpy(h, 4096, dev, 4096, D2H) == 100000
    assert "free_host" in acl.get_recent_err_msg()
    assert acl.rt.memset(h, 4096, 1, 4096) == 100000
    assert acl.rt.memcpy(dev, 4096, h + 128, 64, H2D) == 100000
    with pytest.raises(ValueError), pytest.warns(Warning, match="deprecated"):
        acl.util.ptr_to_numpy(h, (16,), C.NPY_UINT8)
    h2, _ = acl.rt.malloc_host(4096)  # a new buffer never reuses quarantined pages
    assert h2 != h


def test_a_mapping_re_protected_since_the_last_look_is_refused(dev):
    m = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    assert acl.rt.memcpy(addr, 4096, dev, 4096, D2H) == 0  # writable: the runtime remembers that
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.mprotect(ctypes.c_void_p(addr), 4096, mmap.PROT_READ) == 0
    assert acl.rt.memcpy(addr, 4096, dev, 4096, D2H) == 100000  # would be SIGSEGV
    assert acl.rt.memcpy(dev, 4096, addr, 4096, H2D) == 0  # reading it is still fine


def test_special_kernel_mappings_are_refused(dev):
    with open("/proc/self/maps") as f:
        vvar = [int(line.split("-")[0], 16) for line in f if "[vvar]" in line]
    if not vvar:
        pytest.skip("no [vvar] mapping on this kernel")
    assert acl.rt.memcpy(dev, 64, vvar[0], 64, H2D) == 100000  # would be SIGBUS


def test_check_names_pinned_overflow_and_use_after_free_host(dev):
    s = Session({"memcheck"}, out=None)
    h, _ = acl.rt.malloc_host(4096)
    acl.rt.memcpy(h + 64, 8192, dev, 8192, D2H)  # overflow line
    acl.rt.free_host(h)
    acl.rt.memcpy(dev, 64, h, 64, H2D)  # use after free line
    s.stop()
    kinds = [f.kind for f in s.findings]
    assert kinds == ["host-overflow", "use-after-free"]
    over, uaf = s.findings
    assert "4096 bytes" in " ".join(over.details) and "4160 bytes too many" in " ".join(over.details)
    assert over.code == 107000 and uaf.code == 100000
    assert uaf.sites["free"] is not None and uaf.sites["free"].lineno == uaf.sites["use"].lineno - 1


def test_pageable_numpy_memory_still_works_both_ways(dev):
    src = np.arange(2048, dtype=np.float32)
    out = np.zeros_like(src)
    assert acl.rt.memcpy(dev, 8192, src.ctypes.data, 8192, H2D) == 0
    assert acl.rt.memcpy(out.ctypes.data, 8192, dev, 8192, D2H) == 0
    assert np.array_equal(out, src)
    ro = np.frombuffer(bytes(8192), np.uint8)  # a bytes object: readable, and the runtime may read it
    assert acl.rt.memcpy(dev, 8192, ro.ctypes.data, 8192, H2D) == 0


def test_memory_shared_between_processes_is_ordinary_host_memory(dev):
    """multiprocessing.shared_memory lives in /dev/shm and a shared anonymous mmap shows as "/dev/zero (deleted)"
    in /proc/self/maps: both are plain memory that frame-passing pipelines copy to and from the device."""
    from multiprocessing import shared_memory

    shm = shared_memory.SharedMemory(create=True, size=8192)
    try:
        a = np.ndarray((2048,), np.float32, buffer=shm.buf)
        a[:] = np.arange(2048, dtype=np.float32)
        assert acl.rt.memcpy(dev, 8192, a.ctypes.data, 8192, H2D) == 0
        a[:] = 0
        assert acl.rt.memcpy(a.ctypes.data, 8192, dev, 8192, D2H) == 0
        assert np.array_equal(a, np.arange(2048, dtype=np.float32))
        del a
    finally:
        shm.close()
        shm.unlink()
    m = mmap.mmap(-1, 8192, flags=mmap.MAP_SHARED)  # anonymous and shared: "/dev/zero (deleted)"
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    assert acl.rt.memcpy(addr, 8192, dev, 8192, D2H) == 0
    assert m[4:8] == np.float32(1).tobytes()  # the device held arange(2048) as float32
    assert acl.rt.memcpy(dev, 8192, addr, 8192, H2D) == 0



@pytest.mark.parametrize("name, special", [
    ("/dev/shm/psm_5f2a", False), ("/dev/zero (deleted)", False), ("/dev/hugepages/libhugetlbfs.tmp", False),
    ("/SYSV00000000 (deleted)", False), ("/memfd:frames (deleted)", False), ("", False),
    ("/dev/davinci0", True), ("/dev/nvidia0", True), ("/dev/mem", True), ("[vvar]", True), ("[vsyscall]", True),
])
def test_only_real_device_files_and_kernel_pages_are_off_limits(name, special):
    from aclsim.runtime.host import is_special_mapping

    assert is_special_mapping(name) is special

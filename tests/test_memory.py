"""Device and host memory: alignment, rounding, page kinds, accounting, address model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclsim
import aclsim.acl as acl
from aclsim import constants as C
from aclsim.runtime.memory import HUGE_PAGE, NORMAL_PAGE, device_of

MiB = 1 << 20


@pytest.fixture
def rt(fresh_runtime):
    fresh_runtime.set_device(0)
    return fresh_runtime


@pytest.mark.parametrize("size,expected", [(1, 64), (32, 64), (33, 96), (100, 160), (4096, 4128)])
def test_malloc_rounds_up_to_32_plus_32(rt, size, expected):
    a = rt.malloc(size, C.ACL_MEM_MALLOC_NORMAL_ONLY)
    assert a.alloc_size == expected
    assert a.start % 64 == 0


def test_malloc_align32_has_no_padding(rt):
    assert rt.malloc(33, 0, "malloc_align32").alloc_size == 64


@pytest.mark.parametrize(
    "policy,size,kind,reserved",
    [
        (C.ACL_MEM_MALLOC_HUGE_FIRST, 1000, "normal", NORMAL_PAGE),
        (C.ACL_MEM_MALLOC_HUGE_FIRST, MiB - 64, "normal", MiB),  # <= 1 MB -> normal pages anyway
        (C.ACL_MEM_MALLOC_HUGE_FIRST, MiB, "huge", HUGE_PAGE),  # 1 MiB + 32 > 1 MB -> huge, 2 MB granules
        (C.ACL_MEM_MALLOC_HUGE_FIRST, 3 * MiB, "huge", 2 * HUGE_PAGE),
        (C.ACL_MEM_MALLOC_HUGE_ONLY, 100, "huge", HUGE_PAGE),
        (C.ACL_MEM_MALLOC_NORMAL_ONLY, 3 * MiB, "normal", 3 * MiB + NORMAL_PAGE),
        (C.ACL_MEM_MALLOC_HUGE_FIRST_P2P, 3 * MiB, "huge", 2 * HUGE_PAGE),
        (C.ACL_MEM_MALLOC_HUGE_ONLY_P2P, 100, "huge", HUGE_PAGE),
        (C.ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 100, "normal", NORMAL_PAGE),
        (C.ACL_MEM_MALLOC_HUGE1G_ONLY, 100, "huge1g", 1 << 30),
        (42, 3 * MiB, "huge", 2 * HUGE_PAGE),  # outside the enum: >= 2 MB -> huge
        (42, 100, "normal", NORMAL_PAGE),
    ],
)
def test_policies_pick_page_kind_and_granularity(rt, policy, size, kind, reserved):
    free0 = {attr: rt.get_mem_info(attr)[0] for attr in (C.ACL_HBM_MEM, C.ACL_HBM_MEM_HUGE, C.ACL_HBM_MEM_NORMAL)}
    a = rt.malloc(size, policy)
    assert (a.page_kind, a.reserved) == (kind, reserved)
    assert rt.get_mem_info(C.ACL_HBM_MEM)[0] == free0[C.ACL_HBM_MEM] - reserved
    assert rt.get_mem_info(C.ACL_HBM_MEM_HUGE)[0] < free0[C.ACL_HBM_MEM_HUGE]
    rt.free(a.start)
    for attr, before in free0.items():
        assert rt.get_mem_info(attr)[0] == before  # comes back exactly


def test_huge1g_not_on_310p():
    aclsim.configure(soc="Ascend310P3")
    rt = aclsim.get_runtime()
    rt.set_device(0)
    with pytest.raises(aclsim.AclError) as e:
        rt.malloc(100, C.ACL_MEM_MALLOC_HUGE1G_ONLY)
    assert e.value.code == 207000


def test_mem_info_attributes_per_chip():
    aclsim.configure(soc="Ascend310P3")
    acl.rt.set_device(0)
    free, total, ret = acl.rt.get_mem_info(C.ACL_DDR_MEM)
    assert ret == 0 and total == 24_000_000_000 and free == total
    assert acl.rt.get_mem_info(C.ACL_HBM_MEM) == (free, total, 0)  # HBM query converted to DDR on 310P
    assert acl.rt.get_mem_info(C.ACL_HBM_MEM_P2P_HUGE) == (0, 0, 0)
    assert acl.rt.get_mem_info(C.ACL_HBM_MEM_HUGE1G) == (0, 0, 0)
    aclsim.configure(soc="Ascend910B4")
    acl.rt.set_device(0)
    assert acl.rt.get_mem_info(C.ACL_HBM_MEM)[1] == 32 << 30
    assert acl.rt.get_mem_info(C.ACL_DDR_MEM) == (0, 0, 0)
    assert acl.get_soc_name() == "Ascend910B4"


def test_device_full_returns_207001_and_recovers(rt):
    half = 32 << 30
    a = rt.malloc(half - 4096, 0)
    b = rt.malloc(half - 4096, 0)
    with pytest.raises(aclsim.AclError) as e:
        rt.malloc(4 << 20, 0)
    assert e.value.code == 207001
    rt.free(a.start)
    c = rt.malloc(half - 4096, 0)  # the freed range is reusable
    assert c.start == a.start
    rt.free(b.start)
    rt.free(c.start)
    assert rt.get_mem_info(C.ACL_HBM_MEM)[0] == 64 << 30


def test_freed_neighbours_are_coalesced_when_the_device_is_full(rt):
    blocks = [rt.malloc((4 << 20) - 64, C.ACL_MEM_MALLOC_HUGE_ONLY) for _ in range(8)]
    filler = rt.malloc((64 << 30) - (32 << 20) - 64, C.ACL_MEM_MALLOC_HUGE_ONLY)
    assert rt.get_mem_info(C.ACL_HBM_MEM)[0] == 0
    for a in blocks:
        rt.free(a.start)
    big = rt.malloc((32 << 20) - 64, C.ACL_MEM_MALLOC_HUGE_ONLY)  # needs all eight neighbours merged
    assert big.start == blocks[0].start
    rt.free(big.start)
    rt.free(filler.start)


def test_device_addresses_never_look_like_host_addresses(rt):
    a = rt.malloc(64, 0)
    host = np.zeros(16)
    assert device_of(a.start) == 0 and device_of(host.ctypes.data) is None
    attrs, ret = acl.rt.pointer_get_attributes(a.start + 8)
    assert ret == 0 and attrs["location"]["type"] == C.ACL_MEM_LOCATION_TYPE_DEVICE
    h = rt.malloc_host(64)
    assert acl.rt.pointer_get_attributes(h.start)[0]["location"]["type"] == C.ACL_MEM_LOCATION_TYPE_HOST
    assert acl.rt.pointer_get_attributes(host.ctypes.data)[0]["location"]["type"] == 2


def test_pointer_arithmetic_inside_an_allocation(rt):
    d, _ = acl.rt.malloc(1024, 0)
    src = np.arange(256, dtype=np.float32)
    assert acl.rt.memcpy(d + 512, 512, src.ctypes.data + 512, 512, 1) == 0
    out = np.zeros(128, dtype=np.float32)
    assert acl.rt.memcpy(out.ctypes.data, 512, d + 512, 512, 2) == 0
    assert np.array_equal(out, src[128:])


def test_malloc_host_is_real_aligned_memory(rt):
    h, ret = acl.rt.malloc_host(1000)
    assert ret == 0 and h % 64 == 0
    assert acl.rt.memset(h, 1000, 0xAB, 1000) == 0
    assert acl.util.ptr_to_bytes(h, 4) == b"\xab" * 4
    with pytest.warns(Warning):
        arr = acl.util.ptr_to_numpy(h, (10,), C.NPY_UINT8)
    arr[:] = 3
    assert acl.util.ptr_to_bytes(h, 10) == b"\x03" * 10


def test_bytes_to_ptr_receives_d2h_copies(rt):
    data = np.linspace(0, 1, 64, dtype=np.float32)
    d, _ = acl.rt.malloc(data.nbytes, 0)
    src = data.tobytes()  # the bytes object must outlive the pointer taken from it
    assert acl.rt.memcpy(d, data.nbytes, acl.util.bytes_to_ptr(src), data.nbytes, 1) == 0
    out = bytes(data.nbytes)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), data.nbytes, d, data.nbytes, 2) == 0
    assert np.array_equal(np.frombuffer(out, dtype=np.float32), data)


def test_util_argument_errors():
    with pytest.raises(ValueError, match="needs an byte"):
        acl.util.bytes_to_ptr("text")
    with pytest.raises(ValueError, match="needs an ndarray"), pytest.warns(Warning):
        acl.util.numpy_to_ptr([1, 2])
    with pytest.raises(ValueError, match="not readable host memory"):
        acl.util.ptr_to_bytes(4096, 16)
    a = np.arange(6).reshape(2, 3)[:, ::2]
    with pytest.warns(Warning):
        ptr, c = acl.util.numpy_contiguous_to_ptr(a)
    assert c.flags.c_contiguous and ptr == c.ctypes.data


def test_device_pointer_is_not_host_readable(rt):
    d = rt.malloc(64, 0)
    with pytest.raises(ValueError, match="device memory"):
        acl.util.ptr_to_bytes(d.start, 16)


def test_memcpy_kind_is_corrected_from_pointers(rt):
    """The current runtime resolves the direction from the pointers (MemcpyKindAutoCorrect)."""
    d, _ = acl.rt.malloc(64, 0)
    src = np.arange(16, dtype=np.float32)
    assert acl.rt.memcpy(d, 64, src.ctypes.data, 64, C.ACL_MEMCPY_DEVICE_TO_HOST) == 0  # wrong kind
    out = np.zeros(16, dtype=np.float32)
    assert acl.rt.memcpy(out.ctypes.data, 64, d, 64, C.ACL_MEMCPY_DEFAULT) == 0
    assert np.array_equal(out, src)


def test_memcpy2d_copies_a_pitched_window(rt):
    host = np.arange(4 * 10, dtype=np.uint8).reshape(4, 10)
    d, _ = acl.rt.malloc(4 * 8, 0)
    assert acl.rt.memcpy2d(d, 8, host.ctypes.data + 1, 10, 6, 4, C.ACL_MEMCPY_HOST_TO_DEVICE) == 0
    out = np.zeros((4, 8), dtype=np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, 32, d, 32, 2) == 0
    assert np.array_equal(out[:, :6], host[:, 1:7])
    back = np.zeros((4, 6), dtype=np.uint8)
    assert acl.rt.memcpy2d_async(back.ctypes.data, 6, d, 8, 6, 4, 2, 0) == 0
    assert np.array_equal(back, host[:, 1:7])


def test_peer_copy_needs_peer_access():
    aclsim.configure(devices=2)
    assert acl.rt.set_device(1) == 0
    d1, _ = acl.rt.malloc(64, 0)
    assert acl.rt.memset(d1, 64, 9, 64) == 0
    assert acl.rt.set_device(0) == 0
    d0, _ = acl.rt.malloc(64, 0)
    assert acl.rt.device_can_access_peer(0, 1) == (1, 0)
    assert acl.rt.memcpy(d0, 64, d1, 64, 3) == 107000
    assert "device_enable_peer_access" in acl.get_recent_err_msg()
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    assert acl.rt.memcpy(d0, 64, d1, 64, 3) == 0
    out = bytes(64)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), 64, d0, 64, 2) == 0
    assert out == b"\x09" * 64


def test_dvpp_memory_is_device_memory(rt):
    p, ret = acl.media.dvpp_malloc(1000)
    assert ret == 0 and acl.rt.pointer_get_attributes(p)[0]["location"]["type"] == 1
    assert acl.media.dvpp_free(p) == 0
    assert acl.media.dvpp_free(p) == 107000


def test_reset_device_releases_memory_and_contexts(rt):
    a = rt.malloc(1 << 20, 0)
    rt.set_device(0)  # refcount 2
    rt.reset_device(0)
    assert rt.find_allocation(a.start) is a  # still alive: one reference left
    rt.reset_device(0)
    assert rt.find_allocation(a.start) is None
    assert acl.rt.get_context() == (0, 107002)
    assert acl.rt.reset_device(0) == 507007  # an extra reset: ACL_ERROR_RT_CONTEXT_RELEASE_ERROR


def test_whole_device_allocates_without_committing_host_memory(rt):
    """64 GiB of device memory costs no host memory until bytes are written."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    blocks = [rt.malloc((2 << 30) - 64, 0) for _ in range(32)]
    assert rt.get_mem_info(C.ACL_HBM_MEM)[0] == 0
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 64 * 1024  # far below 64 GiB
    for b in blocks:
        rt.free(b.start)


def test_device_memory_is_a_real_address_range_the_host_cannot_touch(rt):
    """Device addresses are mapped in the process (C code can hold them) but without access rights:
    the runtime reaches the same pages through its own view."""
    a = rt.malloc(4096, 0)
    maps = Path("/proc/self/maps").read_text().splitlines()
    rng = [ln for ln in maps if int(ln.split("-")[0], 16) <= a.start < int(ln.split()[0].split("-")[1], 16)]
    assert len(rng) == 1 and rng[0].split()[1] == "---s"
    a.data[:4] = [1, 2, 3, 4]
    assert bytes(a.backing[a.offset:a.offset + 4]) == bytes([1, 2, 3, 4])


def test_a_device_whose_fixed_range_is_taken_is_placed_elsewhere_and_still_decoded():
    """MAP_FIXED_NOREPLACE fails when something else holds the device's fixed range: the kernel places the
    device range elsewhere and device_of knows it (addresses then differ from run to run, nothing else does)."""
    import ctypes
    import mmap as mm

    from aclsim.runtime import reset_runtime
    from aclsim.runtime.memory import device_base

    libc = ctypes.CDLL(None)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    want = device_base(1)
    got = libc.mmap(want, 1 << 20, 0, mm.MAP_PRIVATE | mm.MAP_ANONYMOUS | 0x100000, -1, 0)
    assert got == want
    try:
        rt = reset_runtime(devices=2)
        rt.set_device(1)
        a = rt.malloc(4096, 0)
        assert not want <= a.start < want + (1 << 20) and device_of(a.start) == 1 and device_of(want) != 1
        data = np.arange(1024, dtype=np.float32)
        back = np.zeros_like(data)
        rt.memcpy(a.start, 4096, data.ctypes.data, 4096, C.ACL_MEMCPY_HOST_TO_DEVICE)
        rt.memcpy(back.ctypes.data, 4096, a.start, 4096, C.ACL_MEMCPY_DEVICE_TO_HOST)
        assert np.array_equal(back, data)
        rt.free(a.start)
        reset_runtime()
        assert device_of(a.start) is None  # the moved range is gone with its heap
    finally:
        libc.munmap(got, 1 << 20)

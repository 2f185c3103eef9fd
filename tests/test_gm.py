"""runtime.gm, the one door kernel engines use to reach device memory: the bounds rule and its fault
texts, typed views, the device-array protocol, and that simt and asc place every address the same way."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from aclsim import acl, simt
from aclsim.runtime import get_runtime
from aclsim.runtime.gm import GlobalMemory, array_of
from aclsim.runtime.memory import DEVICE_BASE, DEVICE_STRIDE, device_base, device_of
from aclsim.simt import Ptr, threadIdx

F32 = np.dtype(np.float32)


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def door() -> GlobalMemory:
    return GlobalMemory(get_runtime())


def sync_code() -> int:
    return acl.rt.synchronize_stream(0)


# ---------------------------------------------------------------------------- addresses
def test_device_of_decodes_the_device_from_an_address():
    assert device_of(0) is None and device_of(DEVICE_BASE - 1) is None
    assert device_of(DEVICE_BASE) == 0 and device_of(device_base(3) + 12345) == 3
    assert device_base(1) - device_base(0) == DEVICE_STRIDE
    d = aclsim.zeros(4)
    assert device_of(d.ptr) == 0


# ---------------------------------------------------------------------------- the bounds rule
def test_each_bad_address_class_has_its_own_verdict():
    gm = door()
    a = aclsim.zeros(1000)  # 4000 bytes requested
    reserved = a.allocation.alloc_size
    host = np.zeros(4, np.float32)
    gone = aclsim.zeros(8)
    gone_ptr = gone.ptr
    gone.free()
    cases = {
        "null": gm.check(0, 4),
        "host": gm.check(host.ctypes.data, 4),
        "never": gm.check(device_base(0) + (1 << 40), 4),
        "freed": gm.check(gone_ptr + 8, 4),
        "misaligned": gm.check(a.ptr + 2, 4, a.ptr, F32),
        "past-end": gm.check(a.ptr + reserved, 4, a.ptr),
        "before": gm.check(a.ptr - 4, 4, a.ptr),
    }
    for kind, v in cases.items():
        assert v.kind == kind and v.faults, (kind, v)
    assert "NULL" in cases["null"].text
    assert "not device memory" in cases["host"].text
    assert "never allocated" in cases["never"].text
    assert f"freed: it was 8 bytes into the 32-byte allocation at {gone_ptr:#x}" in cases["freed"].text
    assert "not aligned to the 4-byte size of float32" in cases["misaligned"].text
    assert (f"{reserved - 4000} bytes past the 4000 bytes requested for the allocation at {a.ptr:#x} "
            f"(exactly at the end of the {reserved} bytes the runtime reserved)") == cases["past-end"].text
    assert cases["before"].text.startswith(f"4 bytes before the allocation at {a.ptr:#x}")


def test_a_device_nobody_set_has_never_allocated_anything():
    v = door().check(device_base(5) + 64, 4)
    assert v.kind == "never" and "device 5" in v.text


def test_padding_and_other_live_allocations_do_not_fault():
    gm = door()
    a, b = aclsim.zeros(1000), aclsim.zeros(8)
    assert gm.check(a.ptr + 3996, 4, a.ptr).kind == "ok"
    pad = gm.check(a.ptr + 4000, 4, a.ptr)  # past the 4000 bytes requested, inside the 32-byte padding
    assert pad.kind == "padding" and not pad.faults and pad.alloc is a.allocation
    other = gm.check(b.ptr, 4, a.ptr)
    assert other.kind == "other" and not other.faults and other.alloc is b.allocation


def test_a_range_over_adjacent_allocations_is_legal_and_a_gap_is_not():
    gm = door()
    a, b = aclsim.zeros(1016), aclsim.zeros(1016)  # 4064 bytes + 32 padding: exactly one 4 KiB page each
    assert b.ptr == a.ptr + a.allocation.alloc_size  # adjacent in the address space
    span = gm.span(a.ptr + 4000, 128, a.ptr)
    assert not hasattr(span, "kind") and span.allocs == (a.allocation, b.allocation)
    c = aclsim.zeros(8)  # 64 bytes reserved in a 4 KiB page: a gap follows it
    past = gm.span(c.ptr + 48, 32, c.ptr)
    assert past.kind == "past-end" and "its 32-byte access runs 16 bytes over the end" in past.text


# ---------------------------------------------------------------------------- typed views
def test_typed_views_share_the_device_bytes_and_are_cached():
    x = np.arange(16, dtype=np.float32)
    d = aclsim.to_device(x)
    gm = door()
    v = gm.view(d.allocation, F32)
    assert np.array_equal(v[:16], x) and v.shape[0] == d.allocation.alloc_size // 4
    assert gm.view(d.allocation, F32) is v
    tail = gm.view(d.allocation, F32, 8 * 4)
    tail[0] = -1.0
    assert d.copy_to_host()[8] == -1.0
    whole, base = gm.device_view(d.ptr, np.dtype(np.int32))
    assert whole[(d.ptr - base) // 4 + 1] == x[1:2].view(np.int32)[0]


# ---------------------------------------------------------------------------- one rule for both engines
@simt.kernel
def simt_read_at(x: Ptr[np.float32], out: Ptr[np.float32], k: np.int32):
    if threadIdx.x == 0:
        out[0] = x[k]


@asc.jit
def asc_read_at(x: asc.GlobalAddress, out: asc.GlobalAddress, k: int):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    og.set_value(0, xg.get_value(k))


def both_engines(ptr: int, k: int, outs: list | None = None) -> list[tuple[int, str | None, float]]:
    """(sync code, recent error message, out[0]) after reading ptr[k] from a simt and an asc kernel."""
    outs = outs or [aclsim.zeros(1), aclsim.zeros(1)]
    results = []
    for launch, out in zip((lambda o: simt_read_at[1, 32](ptr, o, k),
                            lambda o: asc_read_at[1](asc.GlobalAddress(ptr, asc.float32), o, k)), outs, strict=True):
        launch(out)
        code = sync_code()
        results.append((code, acl.get_recent_err_msg(), float(out.copy_to_host()[0])))
    return results


def test_simt_and_asc_fault_with_the_same_reason_past_the_reserved_end():
    d = aclsim.to_device(np.arange(1000, dtype=np.float32))
    k = d.allocation.alloc_size // 4
    reason = door().check(d.ptr + 4 * k, 4, d.ptr).text
    for code, msg, _ in both_engines(d.ptr, k):
        assert code == 507015 and reason in msg


def test_simt_and_asc_fault_with_the_same_reason_on_a_freed_pointer():
    outs = [aclsim.zeros(1), aclsim.zeros(1)]  # allocated first: a later malloc would reuse the freed bytes
    d = aclsim.to_device(np.ones(8, np.float32))
    ptr = d.ptr
    d.free()
    reason = door().check(ptr, 4, ptr).text
    assert "freed" in reason
    for code, msg, _ in both_engines(ptr, 0, outs):
        assert code == 507015 and reason in msg


def test_simt_and_asc_read_the_padding_and_other_allocations_without_fault():
    a = aclsim.to_device(np.arange(1000, dtype=np.float32))
    b = aclsim.to_device(np.array([7.5, 8.5], np.float32))
    for code, msg, value in both_engines(a.ptr, (b.ptr - a.ptr) // 4):
        assert (code, msg, value) == (0, None, 7.5)
    for code, _, _ in both_engines(a.ptr, 1003):  # past the 1000 elements requested, inside the padding
        assert code == 0


@asc.jit
def asc_copy(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(q, 1, n * 4)
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    t = q.alloc_tensor(asc.float32)
    asc.data_copy(t, xg, n)
    asc.data_copy(og, t, n)
    q.free_tensor(t)


def test_asc_dma_over_two_adjacent_allocations_moves_both():
    a = aclsim.to_device(np.arange(1016, dtype=np.float32))
    b = aclsim.to_device(np.arange(1016, 2032, dtype=np.float32))
    assert b.ptr == a.ptr + a.allocation.alloc_size
    out = aclsim.zeros(64)
    start = a.ptr + 1000 * 4  # 16 requested elements of a, its 32-byte padding (zeros), then b
    asc_copy[1](asc.GlobalAddress(start, asc.float32), out, 64)
    assert sync_code() == 0
    want = np.concatenate([np.arange(1000, 1016), np.zeros(8), np.arange(1016, 1056)]).astype(np.float32)
    assert np.array_equal(out.copy_to_host(), want)


# ---------------------------------------------------------------------------- the device-array protocol
class Foreign:
    """A device array from another library: only the protocol, no aclsim class."""

    def __init__(self, ptr: int, n: int) -> None:
        self.ptr, self.n = ptr, n

    @property
    def __acl_array_interface__(self) -> dict:
        return {"data": (self.ptr, False), "shape": (self.n,), "typestr": "<f4", "strides": None, "version": 1}


def test_device_array_exposes_the_array_interface():
    d = aclsim.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert d.__acl_array_interface__ == {"data": (d.ptr, False), "shape": (3, 4), "typestr": "<f4",
                                         "strides": None, "version": 1}
    ref = array_of(d[:, ::2])
    assert (ref.addr, ref.dtype, ref.shape, ref.strides) == (d.ptr, F32, (3, 2), (16, 8))
    g = array_of(asc.GlobalAddress(d.ptr, asc.float16))
    assert (g.addr, g.dtype, g.shape) == (d.ptr, np.dtype(np.float16), None)
    with pytest.raises(TypeError, match="not a device array"):
        array_of(np.zeros(3))


@simt.kernel
def simt_fill(out: Ptr[np.float32], value: np.float32):
    out[threadIdx.x] = value


@asc.jit
def asc_fill(out: asc.GlobalAddress, value: float):
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    og.set_value(1, value)


def test_any_object_with_the_protocol_is_a_kernel_argument():
    d = aclsim.zeros(4)
    simt_fill[1, 4](Foreign(d.ptr, 4), 2.5)
    asc_fill[1](Foreign(d.ptr, 4), 9.0)
    assert sync_code() == 0
    assert np.array_equal(d.copy_to_host(), np.array([2.5, 9.0, 2.5, 2.5], np.float32))


# ---------------------------------------------------------------------------- what observers see
class Accesses:
    """An observer that keeps every kernel access."""

    def __init__(self) -> None:
        self.seen: list = []

    def on_kernel_access(self, ka) -> None:
        self.seen.append(ka)


def test_accesses_are_reported_in_the_allocation_they_land_in():
    a = aclsim.to_device(np.arange(1016, dtype=np.float32))
    b = aclsim.to_device(np.arange(1016, 2032, dtype=np.float32))
    out = aclsim.zeros(64)
    obs = Accesses()
    get_runtime().bus.subscribe(obs)
    asc_copy[1](asc.GlobalAddress(a.ptr + 1000 * 4, asc.float32), out, 64)  # over a's padding into b
    simt_read_at[1, 32](a.ptr, out, (b.ptr - a.ptr) // 4 + 3)  # a's pointer, b's element 3
    assert sync_code() == 0
    dma = [(ka.alloc, ka.lo, ka.hi) for ka in obs.seen if not ka.write and ka.api == "data_copy"]
    assert dma == [(a.allocation, 4000, 4096), (b.allocation, 0, 160)]  # 96 bytes of a (with its padding), 160 of b
    loads = [(ka.alloc, ka.lo, ka.hi) for ka in obs.seen if ka.api == "load"]
    assert loads == [(b.allocation, 12, 16)]


# ---------------------------------------------------------------------------- the hardware out-of-bounds mode
@asc.jit
def _copy_tile(x: asc.GlobalAddress, z: asc.GlobalAddress, offset: int, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + offset)
    zg.set_global_buffer(z + offset)
    t = asc.LocalTensorAuto(x.dtype, n)
    asc.data_copy(t, xg, n)
    asc.data_copy(zg, t, n)


def _tile_past_the_end(offset: int, n: int) -> tuple[int, aclsim.DeviceArray, aclsim.DeviceArray]:
    x = aclsim.to_device(np.arange(1000, dtype=np.float32))  # 4000 bytes: one 4 KiB page
    z = aclsim.zeros(1000)
    _copy_tile[1](x, z, offset, n)  # elements offset .. offset + n - 1
    return sync_code(), x, z


def test_by_default_an_access_past_the_reserved_bytes_faults(monkeypatch):
    monkeypatch.delenv("ACLSIM_OOB", raising=False)
    code, _, _ = _tile_past_the_end(992, 24)
    assert code == 507015
    assert "runs 32 bytes over the end of the 4032 bytes the runtime reserved" in acl.get_recent_err_msg()


def test_in_hardware_mode_an_access_inside_the_pages_proceeds_and_is_listed_once_per_line(monkeypatch):
    from aclsim.runtime import oob as gm

    monkeypatch.setenv("ACLSIM_OOB", "hardware")
    monkeypatch.setattr(gm, "STRAYS", gm._Strays())
    code, x, z = _tile_past_the_end(992, 24)  # bytes 3968 .. 4064: past the 4032 reserved, inside the 4 KiB page
    assert code == 0
    raw_x, raw_z = door().view(x.allocation, F32), door().view(z.allocation, F32)
    np.testing.assert_array_equal(z.copy_to_host()[992:], np.arange(992, 1000, dtype=np.float32))
    np.testing.assert_array_equal(raw_z[1000:1008], raw_x[1000:1008])  # the write landed past z's end too
    _copy_tile[1](x, z, 992, 24)
    assert sync_code() == 0
    lines = sorted(line for _, line in gm.STRAYS.sites)
    assert len(lines) == 2 and lines[1] == lines[0] + 1  # the two data_copy lines, each listed once
    assert all(fn == "_copy_tile" and "the runtime reserved" in text and count == 2
               for fn, text, count in gm.STRAYS.sites.values())
    _copy_tile[1](x, z, 1000, 64)  # z's write runs past its page into memory nothing maps: a fault still
    assert sync_code() == 507015


def test_in_hardware_mode_unmapped_memory_still_faults(monkeypatch):
    from aclsim.runtime import oob as gm_module

    monkeypatch.setenv("ACLSIM_OOB", "hardware")
    monkeypatch.setattr(gm_module, "STRAYS", gm_module._Strays())
    x = aclsim.zeros(1000)
    gm = door()
    far = x.ptr + (64 << 20)
    assert gm.check(far, 4, x.ptr).kind == "past-end"  # no live allocation maps it
    assert gm.check(x.ptr + 4096 - 4, 4, x.ptr).kind == "mapped"  # the allocation's own page
    assert not gm.inside(np.array([far], np.int64), 4)[0]
    assert gm.inside(np.array([x.ptr + 4092], np.int64), 4)[0]


def test_a_bad_oob_mode_is_refused():
    import os

    from aclsim.runtime.oob import oob_mode

    os.environ["ACLSIM_OOB"] = "sometimes"
    try:
        with pytest.raises(ValueError, match=r"fault .* or hardware"):
            oob_mode()
    finally:
        del os.environ["ACLSIM_OOB"]

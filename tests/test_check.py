"""The sanitizer (aclsim.check) on programs written against the pyACL facade.

Kernel-side checks are driven by a small device task that does its work with numpy and reports
what it touched through the KernelAccess contract, as the kernel engines do.
"""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from aclsim import acl
from aclsim.check import Session
from aclsim.runtime import KernelAccess, KernelFault, KernelWork, Site, Task, get_runtime, reset_runtime

H2D, D2H, D2D = 1, 2, 3


def here() -> int:
    """Line number of the caller (to assert the reported line)."""
    return inspect.currentframe().f_back.f_lineno


@pytest.fixture
def check():
    acl.init()
    acl.rt.set_device(0)
    s = Session(["memcheck", "racecheck", "initcheck", "leakcheck"])
    yield s
    s.stop()


@pytest.fixture(params=["lazy", "eager"])
def mode(request, monkeypatch):
    monkeypatch.setenv("ACLSIM_SCHEDULE", request.param)
    reset_runtime()
    return request.param


def classes(s: Session) -> list[str]:
    s.stop()
    return [f.kind for f in s.findings]


def only(s: Session, kind: str):
    found = [f for f in s.findings if f.kind == kind]
    assert len(found) == 1, [f.kind for f in s.findings]
    return found[0]


def kernel(accesses, stream=0, name="square", line=7, threads_per_block=256):
    """Launch a device task that applies `accesses`: (ptr, dtype, n elements, write, value) each.

    A write stores `value` into elements [0, n); a read loads them. Both are reported as a kernel would.
    """
    rt = get_runtime()
    resolved = [(rt.find_allocation(ptr), ptr, *rest) for ptr, *rest in accesses]  # at launch, as engines do

    def run(task: Task) -> None:
        for a, ptr, dtype, n, write, value in resolved:
            isz = np.dtype(dtype).itemsize
            offs = (ptr - a.start) + np.arange(n, dtype=np.int64) * isz
            view = a.data[offs[0] : offs[-1] + isz].view(dtype)
            if write:
                view[:] = value
            if rt.bus.wants("kernel_access"):
                rt.bus.emit("kernel_access", KernelAccess(
                    task, a, write, int(offs[0]), int(offs[-1]) + isz, isz, offsets=offs,
                    lanes=np.arange(n, dtype=np.int64), line=line, api="store" if write else "load",
                    describe=lambda lane: f"block ({lane // threads_per_block}, 0, 0) "
                                          f"thread ({lane % threads_per_block}, 0, 0)",
                ))
        task.work.bytes_written = 0

    caller = inspect.currentframe().f_back  # the launch site is the test's line, as for a real kernel launch
    site = Site(caller.f_code.co_filename, caller.f_lineno, caller.f_code.co_name)
    pointers = tuple(ptr for ptr, *_ in accesses)  # launch arguments, kept by the task as the engines do
    work = KernelWork("simt", grid=(1, 1, 1), block=(threads_per_block, 1, 1), pointers=pointers)
    task = Task("kernel", name, run, work=work, site=site, keep=pointers)
    return rt.launch(stream, task)


# ---------------------------------------------------------------------------- kind check
def test_wrong_memcpy_kind_names_the_right_kind(check):
    dev, _ = acl.rt.malloc(64, 0)
    acl.rt.memset(dev, 64, 1, 64)
    out = np.zeros(64, np.uint8)
    assert acl.rt.memcpy(out.ctypes.data, 64, dev, 64, H2D) == 0; line = here()  # noqa: E702
    classes(check)
    f = only(check, "wrong-memcpy-kind")
    assert f.sites["call"].lineno == line
    assert "ACL_MEMCPY_DEVICE_TO_HOST" in f.fix
    acl.rt.free(dev)


def test_right_memcpy_kind_is_clean(check):
    dev, _ = acl.rt.malloc(64, 0)
    src = np.arange(64, dtype=np.uint8)
    out = np.zeros(64, np.uint8)
    acl.rt.memcpy(dev, 64, src.ctypes.data, 64, H2D)
    acl.rt.memcpy(out.ctypes.data, 64, dev, 64, D2H)
    acl.rt.free(dev)
    assert classes(check) == []
    assert np.array_equal(out, src)


# ---------------------------------------------------------------------------- frees
def test_double_free_names_both_frees(check):
    dev, _ = acl.rt.malloc(100, 0)
    acl.rt.free(dev); first = here()  # noqa: E702
    assert acl.rt.free(dev) == 107000; second = here()  # noqa: E702
    classes(check)
    f = only(check, "double-free")
    assert (f.sites["first_free"].lineno, f.sites["free"].lineno) == (first, second)
    assert f.code == 107000


def test_free_of_the_wrong_memory_kind(check):
    host, _ = acl.rt.malloc_host(64)
    dev, _ = acl.rt.malloc(64, 0)
    assert acl.rt.free(host) != 0
    assert acl.rt.free_host(dev) != 0
    acl.rt.free(dev)
    acl.rt.free_host(host)
    assert classes(check) == ["free-wrong-kind", "free-wrong-kind"]
    assert "acl.rt.free_host" in check.findings[0].fix and "acl.rt.free " in check.findings[1].fix


def test_free_of_an_interior_pointer(check):
    dev, _ = acl.rt.malloc(256, 0)
    assert acl.rt.free(dev + 64) == 107000
    acl.rt.free(dev)
    assert classes(check) == ["invalid-free"]
    assert "64 bytes inside" in check.findings[0].details[1]


def test_use_after_free_by_a_host_call(check):
    dev, _ = acl.rt.malloc(64, 0)
    acl.rt.free(dev); freed = here()  # noqa: E702
    assert acl.rt.memset(dev, 64, 0, 64) == 100000; used = here()  # noqa: E702
    classes(check)
    f = only(check, "use-after-free")
    assert (f.sites["free"].lineno, f.sites["use"].lineno) == (freed, used)
    assert f.code == 100000


# ---------------------------------------------------------------------------- copies
def test_copy_into_the_padding_is_reported_even_though_it_succeeds(check):
    dev, _ = acl.rt.malloc(100, 0)
    src = np.ones(120, np.uint8)
    assert acl.rt.memcpy(dev, 120, src.ctypes.data, 120, H2D) == 0; line = here()  # noqa: E702
    acl.rt.free(dev)
    classes(check)
    f = only(check, "copy-overflow")
    assert f.sites["call"].lineno == line and "20 bytes past the end" in f.headline


def test_misaligned_memcpy_async_address(check):
    dev, _ = acl.rt.malloc(1024, 0)
    host, _ = acl.rt.malloc_host(1024)
    stream, _ = acl.rt.create_stream()
    acl.rt.memset(dev, 1024, 0, 1024)
    acl.rt.memcpy_async(host, 512, dev + 64, 512, D2H, stream)  # aligned: fine
    acl.rt.memcpy_async(host, 512, dev + 4, 512, D2H, stream); line = here()  # noqa: E702
    acl.rt.synchronize_stream(stream)
    acl.rt.destroy_stream(stream)
    acl.rt.free(dev)
    acl.rt.free_host(host)
    classes(check)
    f = only(check, "misaligned-copy")
    assert f.sites["call"].lineno == line and f.code == 107008


# ---------------------------------------------------------------------------- leaks
def test_leaks_at_reset_device_with_size_and_stack(check):
    leaked, _ = acl.rt.malloc(100, 0); line = here()  # noqa: E702
    b, _ = acl.rt.malloc(50, 0)
    h, _ = acl.rt.malloc_host(30)
    acl.rt.free(b)
    acl.rt.reset_device(0)
    acl.rt.free_host(h)
    classes(check)
    f = only(check, "leak")
    assert f.nbytes == 100 and f.sites["alloc"].lineno == line and f"{leaked:#x}" in f.details[0]
    assert f"test_check.py:{line}" in "\n".join(f.details)
    assert "LEAK SUMMARY: 100 bytes leaked in 1 allocation\n" in check.report.text()


# ---------------------------------------------------------------------------- kernels
def test_out_of_bounds_kernel_write_is_folded_per_line(check):
    n = 1020  # 4080 bytes: 1024 threads write 16 bytes past the end, inside the 32-byte padding
    dev, _ = acl.rt.malloc(n * 4, 0)
    kernel([(dev, np.float32, 1024, True, 1.0)], line=12)
    kernel([(dev, np.float32, 1024, True, 2.0)], line=12)
    acl.rt.synchronize_stream(0)
    acl.rt.free(dev)
    classes(check)
    f = only(check, "oob-write")
    assert f.count == 2 * 4 and f.code is None
    text = "\n".join(f.details)
    assert "line 12" in text and "block (3, 0, 0) thread (252, 0, 0)" in text
    assert f"0 bytes after the allocation at {dev:#x} of size {n * 4} bytes" in text


def test_in_bounds_kernel_is_clean(check):
    dev, _ = acl.rt.malloc(1024 * 4, 0)
    kernel([(dev, np.float32, 1024, True, 1.0)])
    kernel([(dev, np.float32, 1024, False, None)])
    acl.rt.synchronize_stream(0)
    acl.rt.free(dev)
    assert classes(check) == []


def test_kernel_reading_unwritten_memory(check):
    x, _ = acl.rt.malloc(256 * 4, 0)
    y, _ = acl.rt.malloc(256 * 4, 0)
    acl.rt.memset(x, 512, 0, 512)  # only the first half is written
    kernel([(x, np.float32, 256, False, None), (y, np.float32, 256, True, 0.0)], line=21)
    acl.rt.synchronize_stream(0)
    acl.rt.free(x)
    acl.rt.free(y)
    classes(check)
    f = only(check, "uninitialized-kernel-read")
    assert f.count == 128 and "thread (128, 0, 0)" in "\n".join(f.details)


def test_uninitialized_copy_to_host(check):
    dev, _ = acl.rt.malloc(64, 0)
    out = np.zeros(64, np.uint8)
    acl.rt.memcpy(out.ctypes.data, 64, dev, 64, D2H); line = here()  # noqa: E702
    acl.rt.free(dev)
    classes(check)
    assert only(check, "uninitialized-copy").sites["call"].lineno == line


# ---------------------------------------------------------------------------- races (both scheduling modes)
def test_reading_results_before_synchronize(mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    out = np.zeros(256, np.float32)
    kernel([(dev, np.float32, 256, True, 3.0)]); launch = here()  # noqa: E702
    acl.rt.memcpy(out.ctypes.data, 1024, dev, 1024, D2H); copy = here()  # noqa: E702
    acl.rt.synchronize_stream(0)
    acl.rt.free(dev)
    assert classes(check) == ["race-host-device"]
    f = check.findings[0]
    assert (f.sites["task"].lineno, f.sites["host"].lineno) == (launch, copy)
    assert f.fix == f"call acl.rt.synchronize_stream(0) before tests/test_check.py line {copy}"


def test_synchronize_before_reading_is_clean(mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    out = np.zeros(256, np.float32)
    kernel([(dev, np.float32, 256, True, 3.0)])
    acl.rt.synchronize_stream(0)
    acl.rt.memcpy(out.ctypes.data, 1024, dev, 1024, D2H)
    acl.rt.free(dev)
    assert classes(check) == []
    assert np.all(out == 3.0)


def test_cross_stream_race_and_its_event_fix(mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    host, _ = acl.rt.malloc_host(1024)
    a, _ = acl.rt.create_stream()
    b, _ = acl.rt.create_stream()
    kernel([(dev, np.float32, 256, True, 1.0)], stream=a); write = here()  # noqa: E702
    acl.rt.memcpy_async(host, 1024, dev, 1024, D2H, b); read = here()  # noqa: E702
    event, _ = acl.rt.create_event()
    dev2, _ = acl.rt.malloc(1024, 0)
    kernel([(dev2, np.float32, 256, True, 2.0)], stream=a)
    acl.rt.record_event(event, a)
    acl.rt.stream_wait_event(b, event)
    acl.rt.memcpy_async(host, 1024, dev2, 1024, D2H, b)  # ordered by the event: no race
    acl.rt.synchronize_stream(a)
    acl.rt.synchronize_stream(b)
    for s in (a, b):
        acl.rt.destroy_stream(s)
    acl.rt.destroy_event(event)
    acl.rt.free(dev)
    acl.rt.free(dev2)
    acl.rt.free_host(host)
    assert classes(check) == ["race-stream-stream"]
    f = check.findings[0]
    assert (f.sites["first"].lineno, f.sites["second"].lineno) == (write, read)
    assert f"acl.rt.stream_wait_event({b:#x}, event)" in f.fix


def test_free_while_a_kernel_is_queued(mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    acl.rt.memset(dev, 1024, 0, 1024)
    kernel([(dev, np.float32, 256, False, None)])
    acl.rt.free(dev); line = here()  # noqa: E702
    acl.rt.synchronize_stream(0)
    assert classes(check) == ["use-after-free-queued"]
    assert check.findings[0].sites["free"].lineno == line


def test_report_is_identical_in_both_scheduling_modes(monkeypatch):
    texts = []
    for m in ("lazy", "eager"):
        monkeypatch.setenv("ACLSIM_SCHEDULE", m)
        reset_runtime()
        acl.init()
        acl.rt.set_device(0)
        s = Session(["memcheck", "racecheck", "initcheck", "leakcheck"])
        dev, _ = acl.rt.malloc(1020 * 4, 0)
        other, _ = acl.rt.malloc(64, 0)
        out = np.zeros(1020, np.float32)
        kernel([(other, np.float32, 16, False, None), (dev, np.float32, 1024, True, 1.0)])
        acl.rt.memcpy(out.ctypes.data, out.nbytes, dev, out.nbytes, D2H)
        acl.rt.free(other)
        s.stop()
        texts.append(s.report.text())
    assert texts[0] == texts[1]
    for kind in ("Invalid __global__ write", "Uninitialized __global__ read", "Race: host call",
                 "Use after free", "Leaked 4080 bytes"):
        assert kind in texts[0]


def test_json_report(tmp_path, check):
    dev, _ = acl.rt.malloc(64, 0)
    acl.rt.free(dev)
    acl.rt.free(dev)
    check.stop()
    path = tmp_path / "findings.json"
    check.report.write_json(str(path))
    doc = json.loads(path.read_text())
    assert doc["error_count"] == 1
    (err,) = doc["errors"]
    assert (err["tool"], err["class"], err["acl_code"]) == ("memcheck", "double-free", 107000)
    assert err["sites"]["free"]["file"].endswith("test_check.py")


def test_memcpy_async_with_pageable_memory_waits_for_the_stream(mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    out = np.zeros(256, np.float32)
    kernel([(dev, np.float32, 256, True, 1.0)])
    acl.rt.memcpy_async(out.ctypes.data, 1024, dev, 1024, D2H, 0)  # pageable: returns after the copy
    acl.rt.free(dev)
    assert classes(check) == []
    assert np.all(out == 1.0)


def test_device_fault_is_reported_once_with_its_code(mode, check):
    rt = get_runtime()

    def crash(task: Task) -> None:
        raise KernelFault("kernel 'square': illegal address 0x10 in store out[4] by block (0, 0, 0) thread (4, 0, 0)")

    rt.launch(0, Task("kernel", "square", crash)); line = here()  # noqa: E702
    rt.launch(0, Task("kernel", "square", crash))  # dropped after the fault: same error, not a new finding
    assert acl.rt.synchronize_stream(0) == 507015
    assert classes(check) == ["device-fault"]
    f = check.findings[0]
    assert f.code == 507015 and "illegal address 0x10" in f.details[0]
    assert f.sites["launch"].lineno == line
    assert f.fix == "fix the access named above (index, bounds check or alignment)"


def test_a_python_error_in_kernel_code_asks_to_fix_the_code(check):
    def body(task: Task) -> None:
        try:
            (1).no_such_attribute  # noqa: B018
        except AttributeError as e:  # engines wrap the kernel's own Python errors like this
            raise KernelFault(f"kernel 'square': AttributeError: {e}") from e

    get_runtime().launch(0, Task("kernel", "square", body))
    assert acl.rt.synchronize_stream(0) == 507015
    (f,) = [f for f in check.findings if f.kind == "device-fault"]
    assert f.fix == "fix the kernel code at the line named above (the error is Python's, raised while the kernel ran)"


def test_polling_until_complete_orders_the_host(mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    out = np.zeros(256, np.float32)
    kernel([(dev, np.float32, 256, True, 5.0)])
    while acl.rt.stream_query(0)[0] != 0:  # ACL_STREAM_STATUS_COMPLETE
        pass
    acl.rt.memcpy(out.ctypes.data, 1024, dev, 1024, D2H)
    acl.rt.free(dev)
    assert classes(check) == []
    assert np.all(out == 5.0)


def test_atomic_add_into_unwritten_memory_reads_it(check):
    rt = get_runtime()
    acc, _ = acl.rt.malloc(64, 0)
    a = rt.find_allocation(acc)

    def run(task: Task) -> None:  # every thread atomically adds 1 to acc[lane % 4]
        offs = (np.arange(256, dtype=np.int64) % 4) * 4
        rt.bus.emit("kernel_access", KernelAccess(task, a, True, 0, 16, 4, offsets=offs, lanes=np.arange(256),
                                                  line=3, api="atomic_add", atomic=True))

    rt.launch(0, Task("kernel", "histogram", run))
    acl.rt.synchronize_stream(0)
    acl.rt.free(acc)
    assert classes(check) == ["uninitialized-kernel-read"]
    assert check.findings[0].count == 256


@pytest.mark.parametrize("wait", ["synchronize_stream", "synchronize_event", "synchronize_device", "destroy_stream"])
def test_every_host_wait_orders_later_host_calls(wait, mode, check):
    dev, _ = acl.rt.malloc(1024, 0)
    late, _ = acl.rt.malloc(1024, 0)
    stream, _ = acl.rt.create_stream()
    event, _ = acl.rt.create_event()
    kernel([(dev, np.float32, 256, True, 1.0)], stream=stream)
    acl.rt.record_event(event, stream)
    kernel([(late, np.float32, 256, True, 2.0)], stream=stream)  # after the event: only full waits cover it
    {"synchronize_stream": lambda: acl.rt.synchronize_stream(stream),
     "synchronize_event": lambda: acl.rt.synchronize_event(event),
     "synchronize_device": acl.rt.synchronize_device,
     "destroy_stream": lambda: acl.rt.destroy_stream(stream)}[wait]()
    out = np.zeros(256, np.float32)
    acl.rt.memcpy(out.ctypes.data, 1024, dev, 1024, D2H)
    acl.rt.memcpy(out.ctypes.data, 1024, late, 1024, D2H); line = here()  # noqa: E702
    if wait != "destroy_stream":
        acl.rt.synchronize_stream(stream)
        acl.rt.destroy_stream(stream)
    acl.rt.destroy_event(event)
    for p in (dev, late):
        acl.rt.free(p)
    found = classes(check)
    if wait == "synchronize_event":
        assert found == ["race-host-device"] and check.findings[0].sites["host"].lineno == line
    else:
        assert found == []


def _copy_in_a_callback(check, block_type: int) -> tuple[list[str], bytes]:
    """memset -> callback that copies the bytes to the host -> memset, on one stream with a report thread."""
    import threading

    dev, _ = acl.rt.malloc(1024, 0)
    host, _ = acl.rt.malloc_host(1024)
    stream, _ = acl.rt.create_stream()
    ctx, _ = acl.rt.get_context()
    done = threading.Event()

    def reports() -> None:
        acl.rt.set_context(ctx)
        while not done.is_set():
            acl.rt.process_report(20)

    t = threading.Thread(target=reports)
    t.start()
    assert acl.rt.subscribe_report(t.ident, stream) == 0
    acl.rt.memset_async(dev, 1024, 1, 1024, stream)

    def copy_out(_: object) -> None:
        acl.rt.memcpy(host, 1024, dev, 1024, D2H)

    assert acl.rt.launch_callback(copy_out, None, block_type, stream) == 0
    acl.rt.memset_async(dev, 1024, 2, 1024, stream)
    acl.rt.synchronize_stream(stream)
    done.set()
    t.join()
    acl.rt.unsubscribe_report(t.ident, stream)
    seen = bytes(np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * 1024).from_address(host)))
    acl.rt.free(dev)
    acl.rt.free_host(host)
    acl.rt.destroy_stream(stream)
    return classes(check), seen


def test_a_copy_inside_a_blocking_callback_is_ordered_by_its_stream(check):
    # the callback runs after the first memset and the stream waits for it before the second:
    # neither is a race (both were reported before the check knew a host call can run inside a callback)
    found, seen = _copy_in_a_callback(check, 1)  # ACL_CALLBACK_BLOCK
    assert found == []
    assert seen == b"\x01" * 1024

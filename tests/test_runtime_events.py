"""What an observer of the runtime's bus receives: typed records, every pyACL call, typed task work.

Observers (sanitizer, trace, a user's own) rely on these records alone: they must never need to
parse positional call arguments or ask the runtime anything back.
"""

from __future__ import annotations

import numpy as np

import aclsim.acl as acl
from aclsim import constants as C
from aclsim import simt
from aclsim.runtime import CopyWork, HostCopy, HostWait, KernelWork, Release, Task, get_runtime


class Log:
    """A plain observer: records (event name, record) for every event it is given."""

    def __init__(self, *names: str) -> None:
        self.seen: list[tuple[str, object]] = []
        for n in names:
            setattr(self, f"on_{n}", lambda rec, n=n: self.seen.append((n, rec)))

    def of(self, name: str) -> list:
        return [r for n, r in self.seen if n == name]


def observe(*names: str) -> Log:
    log = Log(*names)
    get_runtime().bus.subscribe(log)
    return log


def test_calls_that_were_silent_are_reported_with_their_pyacl_names():
    log = observe("api")
    acl.rt.set_device(0)
    dev, _ = acl.rt.malloc(64, 0)
    acl.rt.pointer_get_attributes(dev)
    acl.rt.device_can_access_peer(0, 0)  # refused (100000), and still reported
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    acl.rt.record_event(start, 0)
    acl.rt.record_event(end, 0)
    acl.rt.synchronize_event(end)
    acl.rt.event_elapsed_time(start, end)

    @simt.kernel
    def noop(x: simt.Ptr[np.float32]):
        pass

    noop[1, 1](dev)
    calls = {c.name: c.ret for c in log.of("api")}
    assert calls["acl.rt.pointer_get_attributes"] == 0
    assert calls["acl.rt.device_can_access_peer"] == 100000
    assert calls["acl.rt.event_elapsed_time"] == 0
    launch = next(c for c in log.of("api") if c.name == "acl.rt.launch_kernel")
    assert launch.task is not None and launch.task.name == "noop"


def test_copy_calls_name_their_pointers():
    log = observe("api")
    acl.rt.set_device(0)
    dev, _ = acl.rt.malloc(64, 0)
    host = np.zeros(16, np.float32)
    acl.rt.memcpy(dev, 64, host.ctypes.data, 64, C.ACL_MEMCPY_HOST_TO_DEVICE)
    acl.rt.memset(dev, 64, 0, 64)
    by_name = {c.name: dict(c.pointers) for c in log.of("api") if c.pointers}
    assert by_name["acl.rt.memcpy"] == {"dst": dev, "src": host.ctypes.data}
    assert by_name["acl.rt.memset"] == {"addr": dev}


def test_host_waits_say_what_the_host_waited_for():
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    log = observe("host_wait")
    acl.rt.synchronize_stream(stream)
    acl.rt.stream_query(stream)
    acl.rt.synchronize_device()
    acl.rt.destroy_stream(stream)
    waits: list[HostWait] = log.of("host_wait")
    assert [w.kind for w in waits] == ["stream", "query", "device", "release"]
    assert waits[0].stream.handle == stream and waits[1].stream.handle == stream
    assert waits[2].device == 0 and waits[3].stream.handle == stream
    assert all(w.t0 <= w.t1 for w in waits)


def test_a_reset_that_only_drops_a_reference_waits_for_nothing():
    acl.rt.set_device(0)
    acl.rt.set_device(0)
    log = observe("host_wait")
    acl.rt.reset_device(0)  # the device stays set: nothing is drained
    assert log.of("host_wait") == []
    acl.rt.reset_device(0)
    assert [(w.kind, w.device) for w in log.of("host_wait")] == [("release", 0)]


def test_tasks_carry_typed_work():
    log = observe("submit", "task_done", "host_copy", "free")
    acl.rt.set_device(0)
    dev, _ = acl.rt.malloc(4096, 0)
    pinned, _ = acl.rt.malloc_host(4096)
    acl.rt.memcpy_async(dev, 4096, pinned, 4096, C.ACL_MEMCPY_HOST_TO_DEVICE, 0)
    acl.rt.memset_async(dev, 4096, 7, 100, 0)

    @simt.kernel
    def fill(x: simt.Ptr[np.uint8], n: np.int32):
        i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
        if i < n:
            x[i] = 1

    fill[4, 32](dev, 128)
    acl.rt.synchronize_stream(0)
    out = np.zeros(16, np.uint8)
    acl.rt.memcpy(out.ctypes.data, 16, dev, 16, C.ACL_MEMCPY_DEVICE_TO_HOST)
    acl.rt.free(dev)

    copy, fill_task, kernel = log.of("task_done")
    assert isinstance(copy, Task) and isinstance(copy.work, CopyWork)
    assert (copy.work.direction, copy.work.nbytes, copy.work.dst.addr) == ("H2D", 4096, dev)
    assert fill_task.kind == "memset" and fill_task.work.direction is None and fill_task.work.nbytes == 100
    assert isinstance(kernel.work, KernelWork) and kernel.work.engine == "simt"
    assert (kernel.work.grid, kernel.work.block) == ((4, 1, 1), (32, 1, 1))
    assert kernel.work.pointers == (dev,) and kernel.work.bytes_written == 128
    (sync,) = log.of("host_copy")
    assert isinstance(sync, HostCopy) and (sync.direction, sync.nbytes, sync.device) == ("D2H", 16, 0)
    (rel,) = log.of("free")
    assert isinstance(rel, Release) and rel.alloc.start == dev and rel.site.lineno > 0

"""The bus observer behind --trace and --summary: appends plain tuples, formats nothing.

It runs inside every traced API call and device task, so each handler does the least it can;
`timeline.build` turns the records into spans at the end of the run.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

from ..runtime import (
    ApiCall,
    CopyWork,
    DeviceReset,
    EventWait,
    EventWork,
    HostCopy,
    HostWait,
    KernelWork,
    Release,
    Task,
)
from ..runtime.observe import now


class Call(NamedTuple):
    name: str
    t0: float
    t1: float
    thread: int
    ret: int
    site: Any  # observe.Site or None
    work: tuple | None  # (device, context, kind, direction, nbytes) of a synchronous copy or fill


class Submit(NamedTuple):
    seq: int
    thread: int
    time: float
    kind: str
    name: str
    stream: tuple[int, int, int]  # (device, context handle, stream handle)


class Done(NamedTuple):
    seq: int
    kind: str
    name: str
    start: float
    end: float
    exec_time: float
    stream: tuple[int, int, int]
    info: dict
    error: tuple[int, str] | None


class Recorder:
    """Collects API calls, task submissions and completions, host waits and memory changes."""

    def __init__(self) -> None:
        self.origin = now()
        self.calls: list[Call] = []
        self.submits: list[Submit] = []
        self.done: list[Done] = []
        self.syncs: list[tuple[str, float, float, int, str]] = []  # (kind, t0, t1, thread, what it waited for)
        self.memory: list[tuple[float, int, int]] = []  # (time, device, +/- bytes reserved)
        self.waits: list[tuple[int, int]] = []  # (wait task seq, record task seq)
        self.threads: dict[int, str] = {}
        self._host_copy: dict[int, tuple] = {}  # thread -> the synchronous copy its current API call made

    def _thread(self) -> int:
        tid = threading.get_ident()
        if tid not in self.threads:
            self.threads[tid] = threading.current_thread().name
        return tid

    # -- bus events -------------------------------------------------------------------------------
    def on_host_copy(self, c: HostCopy) -> None:
        """A synchronous copy moved device bytes: the trace draws it on the context's default stream."""
        self._host_copy[self._thread()] = (c.device, c.context, c.kind, c.direction, c.nbytes)

    def on_api(self, call: ApiCall) -> None:
        tid = self._thread()
        work = self._host_copy.pop(tid, None)
        name = call.name
        if name == "acl.rt.launch_kernel" and call.task is not None:
            name = f"launch {call.task.name}"  # as the timeline names a kernel launch
        self.calls.append(Call(name, call.t0, call.t1, tid, call.ret, call.site, work if call.ret == 0 else None))

    def on_submit(self, task: Any) -> None:
        s = task.stream
        self.submits.append(
            Submit(task.seq, self._thread(), task.submit_time, task.kind, task.name,
                   (s.device_id, s.context.handle, s.handle))
        )

    def on_task_done(self, task: Task) -> None:
        s = task.stream
        self.done.append(
            Done(task.seq, task.kind, task.name, task.start, task.end, task.exec_time,
                 (s.device_id, s.context.handle, s.handle), work_details(task.work), task.error)
        )

    def on_event_wait(self, w: EventWait) -> None:
        self.waits.append((w.task.seq, w.record.seq))

    def on_host_wait(self, w: HostWait) -> None:
        if w.kind == "device":
            what = f"device {w.device}"
        elif w.kind == "stream":
            what = "default stream" if w.stream.handle == 0 else f"stream {w.stream.handle:#x}"
        elif w.kind == "event":
            what = f"event {w.event.handle:#x}"
        else:
            return  # releases and queries: the API call's own span shows them
        self.syncs.append((w.kind, w.t0, w.t1, self._thread(), what))

    def on_malloc(self, alloc: Any) -> None:
        self.memory.append((now(), alloc.device, alloc.reserved))

    def on_free(self, rel: Release) -> None:
        self.memory.append((now(), rel.alloc.device, -rel.alloc.reserved))

    def on_device_reset(self, reset: DeviceReset) -> None:
        if reset.leaked:
            self.memory.append((now(), reset.device, -sum(a.reserved for a in reset.leaked)))


def work_details(work: Any) -> dict:
    """The fields of a task's work the trace shows and models (small, hashable values only)."""
    if type(work) is CopyWork:
        return {"bytes": work.nbytes, "direction": work.direction} if work.direction else {"bytes": work.nbytes}
    if type(work) is KernelWork:
        out: dict[str, Any] = {k: v for k, v in (("grid", work.grid), ("block", work.block), ("cores", work.cores))
                               if v is not None}
        out["bytes_read"], out["bytes_written"] = work.bytes_read, work.bytes_written
        if work.ops is not None:
            out["ops"] = work.ops
        if work.cube_flops:
            out["cube_flops"] = work.cube_flops
            if work.cube_cores is not None:
                out["cube_cores"] = work.cube_cores
        return out
    if type(work) is EventWork:
        return {"event": work.event}
    return {}

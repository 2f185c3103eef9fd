"""The bus observer behind --trace and --summary: appends plain tuples, formats nothing.

It runs inside every traced API call and device task, so each handler does the least it can;
`timeline.build` turns the records into spans at the end of the run.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

from ..runtime import get_runtime
from ..runtime.memory import DEVICE_BASE, DEVICE_STRIDE
from ..runtime.observe import ApiCall, now

# Synchronous calls that move device bytes without queuing a task: the trace draws them on the
# current context's default stream, since the host call is the copy.
SYNC_WORK = {"acl.rt.memcpy", "acl.rt.memset", "acl.rt.memcpy2d"}
# task.info keys worth keeping (others may be large: closures, arrays, regions); lists become tuples
# so that spans of one kernel shape can share their modeled time and encoded details.
INFO_KEYS = ("bytes", "direction", "grid", "block", "cores", "bytes_read", "bytes_written", "ops", "event",
             "cube_flops")


class Call(NamedTuple):
    name: str
    t0: float
    t1: float
    thread: int
    ret: int
    site: Any  # observe.Site or None
    work: tuple | None  # (device, context, kind, direction, nbytes) for SYNC_WORK calls


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

    def _thread(self) -> int:
        tid = threading.get_ident()
        if tid not in self.threads:
            self.threads[tid] = threading.current_thread().name
        return tid

    # -- bus events -------------------------------------------------------------------------------
    def on_api(self, call: ApiCall) -> None:
        tid = self._thread()
        work = _sync_work(call) if call.name in SYNC_WORK and call.ret == 0 else None
        self.calls.append(Call(call.name, call.t0, call.t1, tid, call.ret, call.site, work))

    def on_submit(self, task: Any) -> None:
        s = task.stream
        self.submits.append(
            Submit(task.seq, self._thread(), task.submit_time, task.kind, task.name,
                   (s.device_id, s.context.handle, s.handle))
        )

    def on_task_done(self, task: Any) -> None:
        s = task.stream
        info = task.info
        self.done.append(
            Done(task.seq, task.kind, task.name, task.start, task.end, task.exec_time,
                 (s.device_id, s.context.handle, s.handle),
                 {k: tuple(info[k]) if type(info[k]) is list else info[k] for k in INFO_KEYS if k in info},
                 task.error)
        )

    def on_event_wait(self, task: Any, dep: Any) -> None:
        self.waits.append((task.seq, dep.seq))

    def on_sync(self, kind: str, target: Any, site: Any, t0: float, t1: float) -> None:
        if kind == "device":
            what = f"device {target}"
        elif kind == "stream" and target.handle == 0:
            what = "default stream"
        else:
            what = f"{kind} {target.handle:#x}"
        self.syncs.append((kind, t0, t1, self._thread(), what))

    def on_malloc(self, alloc: Any) -> None:
        self.memory.append((now(), alloc.device, alloc.reserved))

    def on_free(self, alloc: Any, site: Any) -> None:
        self.memory.append((now(), alloc.device, -alloc.reserved))

    def on_device_reset(self, device_id: int, leaked: list) -> None:
        if leaked:
            self.memory.append((now(), device_id, -sum(a.reserved for a in leaked)))


def _device_of(addr: int) -> int | None:
    return (addr - DEVICE_BASE) // DEVICE_STRIDE if addr >= DEVICE_BASE else None


def _sync_work(call: ApiCall) -> tuple | None:
    """(device, context handle, kind, direction, bytes) of a successful synchronous copy or memset."""
    a = call.args
    if call.name == "acl.rt.memset":
        dev, kind, direction, nbytes = _device_of(a[0]), "memset", None, a[3]
    else:
        dst, src = a[0], a[2]
        nbytes = a[3] if call.name == "acl.rt.memcpy" else a[4] * a[5]
        ddev, sdev = _device_of(dst), _device_of(src)
        dev = ddev if ddev is not None else sdev
        direction = {(True, True): "D2D", (True, False): "H2D", (False, True): "D2H"}.get(
            (ddev is not None, sdev is not None)
        )
        kind = "memcpy"
    if dev is None or nbytes == 0 or (kind == "memcpy" and (direction is None or a[0] == a[2])):
        return None  # host to host, or a no-op: no device work
    ctx = get_runtime().current_context(call.name)  # the context the call just used
    return (dev, ctx.handle, kind, direction, nbytes)

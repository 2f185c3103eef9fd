"""The runtime's event bus: sanitizer tools, the trace and the summary subscribe here.

The runtime calls `bus.emit("name", ...)`; every subscribed observer that defines `on_name`
receives it. With no observers the runtime skips building events altogether (`bus.active`).

Events (positional arguments):
  api(call: ApiCall)                    a host API call returned (pyACL or Pythonic face)
  malloc(alloc) / free(alloc, site)     device allocations (memory.Allocation)
  malloc_host(h) / free_host(h, site)   pinned host allocations (host.HostAllocation)
  bad_free(addr, api, reason, site)     a free the runtime refused
  submit(task) / task_done(task)        device work queued on / finished by a stream
  access(access: Access)                device bytes read or written (host call or device task)
  kernel_access(access: KernelAccess)   device memory a kernel read or wrote in one allocation
  kind_mismatch(call, given, actual)    a memcpy kind that contradicts the pointers (corrected)
  sync(kind, target, site, t0, t1)      the host waited ("stream", "event", "device")
  event_wait(task, dep_task)            a stream waited for an event's record task
  device_reset(device_id, leaked)       allocations still live when a device was released
  finalize() / exit()                   acl.finalize, interpreter exit
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Site:
    """A Python call site outside aclsim: file, line, function, plus the caller chain."""

    filename: str
    lineno: int
    function: str
    stack: tuple[tuple[str, int, str], ...] = ()

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno} in {self.function}"


def user_site(depth: int = 8) -> Site | None:
    """The innermost frame outside the aclsim package, with up to `depth` callers."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
    if f is None:
        return None
    frames = []
    g = f
    while g is not None and len(frames) < depth:
        frames.append((g.f_code.co_filename, g.f_lineno, g.f_code.co_name))
        g = g.f_back
    return Site(f.f_code.co_filename, f.f_lineno, f.f_code.co_name, tuple(frames))


@dataclass
class ApiCall:
    """One host API call, as the trace and summary see it."""

    name: str
    args: tuple
    ret: int
    t0: float
    t1: float
    thread: int = field(default_factory=threading.get_ident)
    site: Site | None = None
    task: Any = None  # the device task it submitted, if any


@dataclass
class Access:
    """Device memory read or written by a host call or a device task."""

    alloc: Any  # memory.Allocation
    lo: int  # byte offsets within the allocation
    hi: int
    write: bool
    task: Any = None  # streams.Task, or None for a synchronous host call
    site: Site | None = None
    what: str = ""  # e.g. "acl.rt.memcpy", "kernel square"


@dataclass
class KernelAccess:
    """Elements a running kernel loaded or stored in one allocation (one event per access site).

    Kernel engines (aclsim.simt, aclsim.asc) emit it only when `bus.wants("kernel_access")`.
    """

    task: Any  # streams.Task of the launch
    alloc: Any  # memory.Allocation accessed
    write: bool
    lo: int  # byte range [lo, hi) relative to alloc.start covering every element accessed
    hi: int
    itemsize: int
    offsets: Any = None  # int64 numpy array: byte offset (from alloc.start) of each element, or None = all of [lo, hi)
    lanes: Any = None  # int64 numpy array, same length as offsets: flat global thread id (SIMT) per element
    core: int | None = None  # AI Core / block index (Ascend C)
    line: int | None = None  # kernel source line of the access
    api: str = ""  # e.g. "load", "store", "atomic_add", "data_copy"
    describe: Any = None  # callable(lane) -> "block (x, y, z) thread (x, y, z)" for reports
    atomic: bool = False


class Bus:
    """Dispatches runtime events to observers."""

    def __init__(self) -> None:
        self.observers: list[Any] = []
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return bool(self.observers)

    def subscribe(self, observer: Any) -> None:
        with self._lock:
            if observer not in self.observers:
                self.observers = [*self.observers, observer]

    def unsubscribe(self, observer: Any) -> None:
        with self._lock:
            self.observers = [o for o in self.observers if o is not observer]

    def wants(self, name: str) -> bool:
        attr = "on_" + name
        return any(hasattr(o, attr) for o in self.observers)

    def emit(self, name: str, *args: Any) -> None:
        attr = "on_" + name
        for o in self.observers:
            fn = getattr(o, attr, None)
            if fn is not None:
                fn(*args)


def now() -> float:
    """The host clock every timestamp in aclsim uses (seconds)."""
    return time.perf_counter()

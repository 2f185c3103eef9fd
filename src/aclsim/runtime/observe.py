"""The runtime's event bus and the typed records it carries.

Observers (the sanitizer, the trace, the progress line) subscribe to the `Bus`; the runtime calls
`bus.emit("name", record)` and every subscribed observer that defines `on_name(record)` receives it.
With no observers the runtime builds no records at all (`bus.active`). Observers only read
records: they never call back into the runtime or take its lock. A light listener (`bus.listen`) gets
only the events whose sites ask `bus.wants(name)` first, and turns no other record on: the progress line
listens for copies in flight that way, at no cost to the calls it does not watch.

Events (one typed record each; those kernel engines emit are in kernel_events.py):
  api(ApiCall)              a host API call returned (pyACL or Pythonic face)
  malloc(Allocation)        a device allocation (memory.Allocation)
  free(Release)             a device allocation was freed
  malloc_host(HostAllocation) / free_host(Release)   pinned host memory
  bad_free(BadFree)         a free the runtime refused
  submit(Task) / task_done(Task)   device work queued on / finished by a stream (task.work is typed; task_done
                            reaches light listeners too)
  access(Access)            device bytes read or written by a host call or a copy/fill task
  host_access(Access)       pinned host bytes (malloc_host; Access.alloc a host.HostAllocation) read or written
                            by a host call (memcpy, memset, acl.util.ptr_to_bytes/ptr_to_numpy) or a copy task
  kernel_access(KernelAccess)  device memory a kernel read or wrote in one allocation
  pipe_access(PipeAccess)   a pipe of an AI Core read or wrote bytes of the core's local memory (UB)
  pipe_sync(PipeSync)       an AI Core's set_flag / wait_flag / pipe_barrier, or a queue operation
  local_garbage(LocalGarbage)  an AI Core's copy moved local-memory bytes nothing wrote (hardware moves the garbage)
  host_copy(HostCopy)       a synchronous copy or fill moved device bytes (no task)
  copy_start(CopyInFlight) / copy_end(CopyInFlight)  a synchronous copy or fill begins / ends on a host thread
                            (emitted when `bus.wants("copy_start")`, to light listeners too: the progress line)
  kind_mismatch(KindMismatch)  a memcpy kind that contradicts the pointers (corrected)
  refused(Refused)          a call refused host memory it was given (overrun, freed pinned buffer)
  host_wait(HostWait)       the host waited for device work, or saw it finished
  event_wait(EventWait)     a stream waited for an event's record task
  device_reset(DeviceReset) allocations still live when a device was released
  finalize(None) / exit(None)  acl.finalize, interpreter exit
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import AclError
from .work import Task

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


class _ForeignCaller(threading.local):
    """The return address of the current thread's call into a face written for another language (the C face
    sets `ra` on every call), and the function that turns it into a `Site` (set once by that face)."""

    ra: int | None = None
    resolve: Callable[[Any], Site | None] | None = None


FOREIGN_CALLER = _ForeignCaller()


def resolve_foreign_sites(resolve: Callable[[Any], Site | None]) -> None:
    """Set how the face that records `FOREIGN_CALLER.ra` turns a native caller into a `Site` (once per process)."""
    _ForeignCaller.resolve = resolve


def user_site(depth: int = 8) -> Site | None:
    """The innermost frame outside the aclsim package, with up to `depth` callers.

    A call with no Python frame outside aclsim came from native code: its site is where the native caller is
    (`FOREIGN_CALLER`), resolved by the face that received the call.
    """
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
    if f is None:
        resolve = _ForeignCaller.resolve
        return resolve(FOREIGN_CALLER.ra) if resolve is not None and FOREIGN_CALLER.ra is not None else None
    frames = []
    g = f
    while g is not None and len(frames) < depth:
        frames.append((g.f_code.co_filename, g.f_lineno, g.f_code.co_name))
        g = g.f_back
    return Site(f.f_code.co_filename, f.f_lineno, f.f_code.co_name, tuple(frames))


# ---------------------------------------------------------------------------------- records
@dataclass
class ApiCall:
    """One host API call, as the trace and summary see it.

    `pointers` names the call's pointer arguments (e.g. (("dst", addr), ("src", addr))), so observers
    never need to know argument positions; `args` is the raw tuple, for display only.
    """

    name: str
    args: tuple
    ret: int
    t0: float
    t1: float
    thread: int = field(default_factory=threading.get_ident)
    site: Site | None = None
    task: Any = None  # the device task it submitted, if any
    pointers: tuple[tuple[str, int], ...] = ()


@dataclass
class Access:
    """Device memory (event `access`) or pinned host memory (event `host_access`) read or written by a host call
    or a device task."""

    alloc: Any  # memory.Allocation, or host.HostAllocation for a host_access
    lo: int  # byte offsets within the allocation
    hi: int
    write: bool
    task: Any = None  # work.Task, or None for a synchronous host call
    site: Site | None = None
    what: str = ""  # e.g. "acl.rt.memcpy", "kernel square"
    callback: Any = None  # for a host call: the launch_callback task it runs inside, if any


@dataclass(frozen=True)
class Release:
    """A device or pinned host allocation was freed at `site`."""

    alloc: Any  # memory.Allocation or host.HostAllocation
    site: Site | None


@dataclass(frozen=True)
class BadFree:
    """A free the runtime refused, with what the address really is."""

    addr: int
    api: str  # "acl.rt.free", "acl.rt.free_host", "acl.media.dvpp_free"
    reason: str
    site: Site | None
    device_alloc: Any = None  # the live device allocation containing addr, if any
    host_alloc: Any = None  # the live pinned host allocation containing addr, if any


@dataclass(frozen=True)
class HostCopy:
    """A synchronous copy or fill that moved device bytes (memcpy, memset, memcpy2d)."""

    api: str
    kind: str  # "memcpy" or "memset"
    direction: str | None  # "H2D", "D2H", "D2D"; None for a fill
    nbytes: int
    device: int
    context: int  # handle of the context the call used


@dataclass(frozen=True)
class CopyInFlight:
    """A synchronous copy or fill (memcpy, memset, memcpy2d) a host thread is doing, from `start` (host clock)."""

    api: str  # e.g. "acl.rt.memcpy"
    nbytes: int
    thread: int
    start: float


@dataclass(frozen=True)
class KindMismatch:
    """A copy whose `kind` argument contradicts its pointers (the runtime corrects it)."""

    api: str
    given: int
    actual: int
    site: Site | None


@dataclass(frozen=True)
class Refused:
    """A call was refused because of a byte range it named (no byte was touched).

    why: "host-overflow" (runs past the pinned buffer it starts in), "host-freed" (inside a pinned
    buffer free_host released).
    """

    api: str
    arg: str  # the parameter, e.g. "dst"
    addr: int
    nbytes: int
    why: str
    alloc: Any  # the pinned buffer (host.HostAllocation) concerned
    site: Site | None


@dataclass(frozen=True)
class HostWait:
    """The host waited for device work, or saw it finished.

    kind: "stream", "event", "device" (blocking waits: synchronize_*, the implicit synchronize of a
    pageable async copy); "release" (destroy_stream/destroy_context/reset_device waited for the work
    they drained); "query" (stream_query / query_event_status: the host saw what had finished).
    """

    kind: str
    site: Site | None
    t0: float
    t1: float
    stream: Any = None
    event: Any = None
    device: int | None = None
    context: Any = None


@dataclass(frozen=True)
class EventWait:
    """Task `task` (a stream_wait_event) waited for `record`, an event's record task."""

    task: Any
    record: Any


@dataclass(frozen=True)
class DeviceReset:
    """A device was released with these allocations still live."""

    device: int
    leaked: list


# ---------------------------------------------------------------------------------- the bus
class Bus:
    """Dispatches runtime events to observers."""

    def __init__(self) -> None:
        self.observers: list[Any] = []
        self.listeners: list[Any] = []  # light listeners: events asked for with wants(name), no records turned on
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

    def listen(self, listener: Any) -> None:
        """Subscribe lightly: `listener` gets the events whose sites ask `wants(name)` (and any other event while
        an observer makes the runtime emit it), without turning on the records observers get."""
        with self._lock:
            if listener not in self.listeners:
                self.listeners = [*self.listeners, listener]

    def unlisten(self, listener: Any) -> None:
        with self._lock:
            self.listeners = [o for o in self.listeners if o is not listener]

    def wants(self, name: str) -> bool:
        attr = "on_" + name
        return any(hasattr(o, attr) for group in (self.observers, self.listeners) for o in group)

    def emit(self, name: str, record: Any = None) -> None:
        attr = "on_" + name
        for group in (self.observers, self.listeners):
            for o in group:
                fn = getattr(o, attr, None)
                if fn is not None:
                    fn(record)


def now() -> float:
    """The host clock every timestamp in aclsim uses (seconds)."""
    return time.perf_counter()


def api(name: str, pointers: tuple[str, ...] = ()) -> Callable:
    """Decorate a Runtime method: report the call (name, args, result, times) to observers.

    `pointers` names the parameters through which the call reads or writes memory (copies and fills);
    observers get them by name.
    """

    def deco(fn: Callable) -> Callable:
        params = list(inspect.signature(fn).parameters)[1:]

        @functools.wraps(fn)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not self.bus.observers:
                return fn(self, *args, **kwargs)
            t0 = now()
            ret, result = 0, None
            try:
                result = fn(self, *args, **kwargs)
                return result
            except AclError as e:
                ret = e.code
                raise
            finally:
                named = dict(zip(params, args, strict=False)) | kwargs
                ptrs = tuple((p, named[p]) for p in pointers if p in named)
                task = result if isinstance(result, Task) else None
                self.bus.emit("api", ApiCall(name, (*args, *kwargs.values()), ret, t0, now(), site=user_site(),
                                             task=task, pointers=ptrs))

        return wrapper

    return deco

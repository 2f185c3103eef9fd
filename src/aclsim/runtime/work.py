"""Device tasks and the typed descriptions of the work they do.

A `Task` is one unit of device work on a stream; its `work` says what it does, as one of the small
records below, so the scheduler, the kernel engines and every observer share named fields instead
of a free-form dictionary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Code
from .memory import is_device_address


class KernelFault(Exception):
    """Raised by device work that faults (e.g. an illegal address); the stream reports 507015."""

    def __init__(self, message: str, code: int = Code.ERROR_RT_AICORE_EXCEPTION) -> None:
        super().__init__(message)
        self.code = int(code)


@dataclass
class CopyWork:
    """An asynchronous copy (memcpy_async, memcpy2d_async) or fill (memset_async)."""

    api: str
    nbytes: int
    direction: str | None  # "H2D", "D2H", "D2D"; None for a fill
    dst: Any  # copies.Region written
    src: Any = None  # copies.Region read (None for a fill)


@dataclass(frozen=True)
class BufferUse:
    """A byte range queued work reads or writes, known when it is queued (models, operators, DVPP, BLAS)."""

    region: Any  # copies.Region (device memory, or host memory the work writes, e.g. JPEGE's size)
    write: bool


@dataclass
class KernelWork:
    """Device work that computes: a kernel launch (its shape, its pointer arguments, what it moved once it
    ran), or a model, operator, DVPP or BLAS call, whose buffers are known when it is queued."""

    engine: str  # "simt", "asc", "onnxruntime", "dvpp", "numpy", or "custom" (queued through Runtime.launch)
    source: str | None = None  # the kernel's source file
    grid: tuple[int, ...] | None = None  # SIMT launch shape
    block: tuple[int, ...] | None = None
    cores: int | None = None  # Ascend C: number of AI Cores (blocks)
    pointers: tuple[int, ...] = ()  # device addresses among the arguments
    bytes_read: int = 0  # filled in by the engine when the kernel ran
    bytes_written: int = 0
    ops: int | None = None
    cube_flops: int = 0  # Cube-unit multiply-adds x 2 (Ascend C mmad), for the modeled time
    cube_cores: int | None = None  # Ascend C mix launches: the AICs (blocks), when `cores` counts AIVs
    progress: tuple[int, int] | None = None  # (done, total) while running, for the progress line
    api: str | None = None  # the call that queued work that is not a kernel launch, e.g. "acl.mdl.execute_async"
    buffers: tuple[BufferUse, ...] = ()  # what that work reads and writes (a kernel's accesses come as it runs)

    def __post_init__(self) -> None:  # shapes given as lists become tuples (hashable, comparable)
        self.grid = None if self.grid is None else tuple(self.grid)
        self.block = None if self.block is None else tuple(self.block)
        if self.buffers and not self.pointers:  # the device addresses it was given, as a kernel's arguments
            self.pointers = tuple(b.region.addr for b in self.buffers if b.region.is_device)


@dataclass
class EventWork:
    """record_event (the event's timestamp) or stream_wait_event (waits for `Task.dep`)."""

    event: int  # the event's handle


@dataclass
class CallbackWork:
    """A launch_callback: runs `fn(args)` on the subscribed report thread."""

    fn: Callable[[Any], Any]
    args: Any
    blocking: bool  # ACL_CALLBACK_BLOCK: the stream waits until the callback returned
    subscriber: int  # thread id that runs it (acl.rt.subscribe_report)
    runner: int | None = None  # thread running it now
    processed: bool = False


def pointers_in(args: Any) -> tuple[int, ...]:
    """Device addresses among a kernel launch's arguments: ints, device arrays (`__acl_array_interface__`)
    and objects with a `.ptr`."""
    out = []
    for v in args if isinstance(args, (tuple, list)) else ():
        face = getattr(type(v), "__acl_array_interface__", None)
        p = v.__acl_array_interface__["data"][0] if face is not None else getattr(v, "ptr", v)
        if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and is_device_address(int(p)):
            out.append(int(p))
    return tuple(out)


Work = CopyWork | KernelWork | EventWork | CallbackWork

KINDS = ("memcpy", "memset", "kernel", "record", "wait", "callback")


class Task:
    """One unit of device work on a stream."""

    __slots__ = (
        "__weakref__",
        "dep",
        "discarded",
        "done",
        "end",
        "error",
        "error_cause",
        "exec_time",
        "fn",
        "interrupted",
        "keep",
        "kind",
        "name",
        "posted",
        "seq",
        "site",
        "start",
        "stream",
        "submit_time",
        "work",
    )

    def __init__(
        self,
        kind: str,
        name: str,
        fn: Callable[[Task], None] | None = None,
        work: Work | None = None,
        dep: Task | None = None,
        keep: Any = None,
        site: Any = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"task kind must be one of {KINDS}, got {kind!r}")
        self.kind = kind
        self.name = name
        self.fn = fn
        self.work = KernelWork("custom") if work is None and kind == "kernel" else work
        self.dep = dep  # stream_wait_event: the record task waited for
        self.keep = keep  # objects kept alive until the task has run
        self.site = site
        self.stream: Any = None
        self.submit_time = 0.0
        self.start = 0.0
        self.end = 0.0
        self.exec_time = 0.0
        self.done = False
        self.discarded = False  # dropped unrun by destroy_stream_force
        self.interrupted = False  # stopped part way by KeyboardInterrupt/SystemExit (task.error says so)
        self.error: tuple[int, str] | None = None
        # the Python exception type behind a fault when the work's own code raised one (a TypeError in a
        # kernel body), None for a fault the engine detected (an illegal address, a misuse it refused)
        self.error_cause: str | None = None
        self.seq = 0
        self.posted = False

    def __repr__(self) -> str:
        return f"<Task {self.seq} {self.kind} {self.name!r} done={self.done}>"

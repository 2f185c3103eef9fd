"""Wording shared by the tools: allocations, streams, tasks and byte ranges in report lines."""

from __future__ import annotations

from typing import Any

from ..runtime import Allocation, HostAllocation, KernelWork, Stream, Task
from .findings import short_path, where


def alloc_text(a: Allocation | HostAllocation) -> str:
    if type(a) is HostAllocation:  # host addresses change from run to run: reports do not print them
        return f"the pinned host buffer of size {a.size} bytes (acl.rt.malloc_host)"
    return f"the allocation at {a.start:#x} of size {a.size} bytes"


def memory_kind(a: Allocation | HostAllocation) -> str:
    return "pinned host memory" if type(a) is HostAllocation else "device memory"


def alloc_line(a: Allocation) -> str:
    return f"allocated at {where(a.site)}"


def stream_name(s: Stream | None) -> str:
    if s is None:
        return "(no stream)"
    return "the default stream (0)" if s.is_default else f"stream {s.handle:#x}"


def stream_arg(s: Stream) -> str:
    """How the user names the stream in a pyACL call."""
    return "0" if s.is_default else f"{s.handle:#x}"


def task_text(task: Task, line: int | None = None) -> str:
    """How a report names queued work: `kernel NAME (file:line)`, `model 1 (acl.mdl.execute_async)`, a copy's name."""
    api = called(task)
    if api is not None:
        return f"{task.name} ({api})"
    return kernel_where(task, line) if task.kind == "kernel" else task.name


def called(task: Task) -> str | None:
    """The call that queued `task` when it is a model, operator, DVPP or BLAS call (not a kernel launch)."""
    w = task.work
    return w.api if type(w) is KernelWork else None


def range_text(a: Allocation | HostAllocation, lo: int, hi: int) -> str:
    if type(a) is HostAllocation:
        return f"{hi - lo} bytes at offset {lo}"
    return f"{hi - lo} bytes at {a.start + lo:#x} (offset {lo})"


def rw(write: bool) -> str:
    return "writes" if write else "reads"


def kernel_where(task: Task, line: int | None) -> str:
    """`kernel NAME (file:line)`: the kernel's source line when the engine gives one."""
    src: Any = getattr(task.work, "source", None)
    if line is None:
        return f"kernel {task.name}"
    return f"kernel {task.name} ({short_path(src)}:{line})" if src else f"kernel {task.name} line {line}"

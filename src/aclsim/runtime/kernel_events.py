"""The records kernel engines emit while a kernel runs (typed events of the bus, `runtime/observe.py`): device
memory a kernel touched, synchronisation between its cores, and inside an AI Core its pipes' accesses to local
memory, their sync points and copies of bytes nothing wrote."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class KernelAccess:
    """Elements a running kernel loaded or stored in one allocation (one event per access site).

    Kernel engines (aclsim.simt, aclsim.asc) emit it only when `bus.wants("kernel_access")`.
    """

    task: Any  # work.Task of the launch
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
    epoch: int = 0  # Ascend C: the core's synchronisation epoch at the access (KernelSync)


@dataclass(frozen=True)
class KernelSync:
    """A core of a running kernel entered a new epoch (it synchronised with other cores: Ascend C
    cross-core flags, sync_all). `clock[c]` is the last epoch of core c whose accesses happen
    before this core's accesses tagged `epoch` (a vector clock); accesses carry their epoch."""

    task: Any  # work.Task of the launch
    core: int
    epoch: int
    clock: dict  # core -> epoch


@dataclass(frozen=True)
class PipeAccess:
    """A pipe ("MTE2", "MTE3", "V", "S") of one AI Core read or wrote bytes [lo, hi) of its local memory.

    Kernel engines emit it only when `bus.wants("pipe_access")`; `lo`/`hi` are byte offsets in `pool`.
    """

    task: Any  # work.Task of the launch
    core: int
    pipe: str
    pool: str  # "UB"
    lo: int
    hi: int
    write: bool
    line: int | None  # kernel source line
    api: str  # e.g. "data_copy", "add", "LocalTensor.get_value"


@dataclass(frozen=True)
class LocalGarbage:
    """A copy of one AI Core read bytes [lo, hi) of its local memory `pool`, and byte `bad` (the first of them)
    was never written since the buffer was allocated: the copy moved garbage, as hardware does.

    Kernel engines emit it only when `bus.wants("local_garbage")`.
    """

    task: Any  # work.Task of the launch
    core: int
    pool: str  # "UB", "L1"...
    lo: int
    hi: int
    bad: int
    line: int | None  # kernel source line
    api: str  # the call as its language spells it, e.g. "AscendC::DataCopy"


@dataclass(frozen=True)
class PipeSync:
    """A synchronisation point between the pipes of one AI Core.

    kind: "set" / "wait" (set_flag / wait_flag of the event src_dst with `event_id`), "barrier"
    (pipe_barrier(src); src "ALL" for PIPE_ALL), "queue" (a queue operation: enque, deque,
    alloc_tensor, free_tensor, whose events the framework inserts).
    """

    task: Any
    core: int
    kind: str
    src: str = ""
    dst: str = ""
    event_id: int = 0
    line: int | None = None
    api: str = ""

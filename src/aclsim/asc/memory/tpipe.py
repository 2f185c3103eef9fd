"""TPipe, TQueBind/TQue and TBuf: carving local memory and the tensor life cycle.

Names and signatures follow pyasc `python/asc/language/fwk/tpipe.py`. The rules come from the
Ascend C API pages (hicann/asc-devkit `docs/api/SIMD-API/基础API/资源管理/TPipe/InitBuffer.md`, `TQue/TQue简介.md`), CANN's
`kernel_tpipe_impl.h` and the queue state checks of asc-devkit `impl/basic_api/kernel_tquebind_impl.h`: init_buffer
rounds each block up to 32 bytes and refuses to over-subscribe the memory, a TPipe manages at most
64 buffers, at most 8 tensors (4 on the first-generation 910) may be allocated at once on one
TPosition, enque past the queue depth is refused. Where hardware would hang (deque on an empty
queue, alloc_tensor with every buffer in use) the emulator faults at once and says why.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Any

from .. import faults
from ..aicore import pipes
from ..faults import fail
from ..types.dtypes import DataType, as_dtype
from ..types.enums import HardEvent, TPosition
from .auto import Arena
from .local import ALLOCATED, DEQUEUED, ENQUEUED, FIXED, FREE, STATE_NAMES, Buffer, LocalTensor, position_pool

QBUF_MAX_LEN = 64  # buffers one TPipe can manage (kernel_tpipe_impl.h)
EVENT_IDS = 8  # event ids per HardEvent a TPipe hands out (inference: 8 flag registers per pipe pair)


class Queues:
    """A core's TPipe and how many queue tensors are live (allocated, not freed) per TPosition."""

    __slots__ = ("live", "pipe")

    def __init__(self) -> None:
        self.pipe: TPipe | None = None
        self.live = [0] * 12


def check_leaks(core: Any, launch: Any) -> None:
    """At kernel end: every queue tensor of the core's pipe must have been freed (npuchk ErrorLeak)."""
    pipe = core.state(Queues).pipe
    if pipe is not None:
        pipe.check_leaks(launch)


def _caller(depth: int = 2) -> Any:
    """(file, line) of the kernel code `depth` frames up (2 = the caller of the API function), or a native caller's
    place (faults.caller)."""
    return faults.caller(depth + 1)


class TQueBind:
    """A queue between two positions; its buffers come from `TPipe.init_buffer(que, num, len)`."""

    def __init__(self, src: int = TPosition.VECIN, dst: int = TPosition.VECIN, depth: int = 0, mask: int = 0) -> None:
        self.src = TPosition(src)
        self.dst = TPosition(dst)
        self.position = self.dst if self.src == TPosition.GM else self.src
        # depth: how many enqueued tensors may wait for deque (0: the queue does not count them).
        self.depth = int(depth or 0)
        self.bufs: list[Buffer] = []
        self.fifo: deque[Buffer] = deque()
        self.next = 0
        self.core: Any = None  # the aicore.core.Core whose pipe carved its buffers
        self.live: list[int] = []  # that core's live queue tensors per TPosition (Queues.live)
        self.name: str | None = None  # the kernel variable holding it, learnt at init_buffer

    def label(self) -> str:
        name = self.name or faults.name_of(self)
        return f"{name} ({self.position.name})" if name else f"{type(self).__name__}({self.position.name})"

    def _need_init(self, api: str) -> None:
        fail(api, f"queue {self.label()} has no buffers: call pipe.init_buffer({faults.name_of(self) or 'que'}, "
                  "num, len) first")

    def alloc_tensor(self, dtype: Any) -> LocalTensor | None:
        """Take a free buffer of the queue (pass a LocalTensor to rebind it in place)."""
        api = "TQue.alloc_tensor"
        bufs = self.bufs
        if not bufs:
            self._need_init(api)
        n = len(bufs)
        i = self.next
        b = bufs[i]
        if b.state != FREE:
            for k in range(1, n):
                b = bufs[(i + k) % n]
                if b.state == FREE:
                    i = (i + k) % n
                    break
            else:
                states = ", ".join(STATE_NAMES[x.state] for x in bufs)
                fail(api, f"queue {self.label()} has {n} buffer(s) and none is free ({states}): on hardware the "
                          "core would wait forever. free_tensor a tensor first, or give the queue more buffers "
                          "in init_buffer")
        self.next = (i + 1) % n
        core = self.core
        live = self.live
        limit = core.chip.tensors_per_position
        if live[self.position] >= limit:
            fail(api, f"{limit} tensors are already allocated on TPosition.{self.position.name} (current size is "
                      f"{limit}, max buffer number in same queue position is {limit} on {core.chip.name}); "
                      "free_tensor one first")
        live[self.position] += 1
        b.state = ALLOCATED
        b.site = _caller()
        pool = b.pool
        pool.unwrite(b.lo, b.end)  # a fresh tensor holds nothing meaningful
        if pool.watch:
            pipes.sync(self.core, "queue", api)
        if isinstance(dtype, DataType):
            return b.tensor(dtype)
        if isinstance(dtype, LocalTensor):
            t = b.tensor(dtype.dtype)
            dtype.buf, dtype.gen, dtype.lo, dtype.end, dtype.arr = t.buf, t.gen, t.lo, t.end, t.arr
            return None
        return b.tensor(as_dtype(dtype))

    def enque(self, tensor: LocalTensor, *user_positions: Any) -> None:
        """Hand a written tensor to the consumer side of the queue. pyasc's optional (src, dst) user
        positions only choose the hardware sync event, which the in-order emulator does not need."""
        api = "TQue.enque"
        b = self._own(tensor, api)
        if b.state not in (ALLOCATED, DEQUEUED):
            fail(api, f"the tensor is {STATE_NAMES[b.state]}: enque takes a tensor from alloc_tensor or deque")
        if self.depth and len(self.fifo) >= self.depth:
            fail(api, f"queue {self.label()} already holds {len(self.fifo)} tensor(s) (usedCount is "
                      f"{len(self.fifo)}, which exceed depth limits {self.depth}): deque before enqueuing more, "
                      "or create the queue with a larger depth")
        b.state = ENQUEUED
        self.fifo.append(b)
        if b.pool.watch:
            pipes.sync(self.core, "queue", api)

    def deque(self, dtype: Any) -> LocalTensor | None:
        """Take the oldest enqueued tensor (pass a LocalTensor to rebind it in place)."""
        api = "TQue.deque"
        if not self.fifo:
            if not self.bufs:
                self._need_init(api)
            fail(api, f"queue {self.label()} is empty: no tensor was enqueued, so on hardware the core would hang "
                      "here waiting for one. enque before deque")
        b = self.fifo.popleft()
        b.state = DEQUEUED
        if b.pool.watch:
            pipes.sync(self.core, "queue", api)
        if isinstance(dtype, DataType):
            return b.tensor(dtype)
        if isinstance(dtype, LocalTensor):
            t = b.tensor(dtype.dtype)
            dtype.buf, dtype.gen, dtype.lo, dtype.end, dtype.arr = t.buf, t.gen, t.lo, t.end, t.arr
            return None
        return b.tensor(as_dtype(dtype))

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Give the tensor's buffer back to the queue; the tensor must not be used afterwards."""
        api = "TQue.free_tensor"
        b = tensor.buf
        if b.owner is not self:
            self._own(tensor, api)
        if tensor.gen != b.gen or b.state == FREE:
            at = f" at {faults.short(b.site[0])}:{b.site[1]}" if b.site else ""
            fail(api, f"double free: this tensor of {self.label()} was already freed{at} (npuchk ErrorFree)")
        if b.state == ENQUEUED:
            fail(api, f"the tensor is still enqueued in {self.label()}: deque it before free_tensor")
        b.retire("free_tensor", _caller())
        self.live[self.position] -= 1
        if b.pool.watch:
            pipes.sync(self.core, "queue", api)

    def _own(self, tensor: LocalTensor, api: str) -> Buffer:
        if not isinstance(tensor, LocalTensor):
            raise TypeError(f"{api} expects a LocalTensor, got {type(tensor).__name__}")
        b = tensor.buf
        if b.owner is not self:
            other = b.owner.label() if isinstance(b.owner, TQueBind) else "no queue"
            fail(api, f"the tensor belongs to {other}, not to {self.label()} (npuchk ErrorBuffer1)")
        if tensor.gen != b.gen:
            tensor.dead(api)
        return b

    def has_tensor_in_que(self) -> bool:
        return bool(self.fifo)

    def get_tensor_count_in_que(self) -> int:
        return len(self.fifo)

    def vacant_in_que(self) -> bool:
        """True while another enque fits (fewer than `depth` tensors pending)."""
        return not self.depth or len(self.fifo) < self.depth

    def has_idle_buffer(self) -> bool:
        return any(b.state == FREE for b in self.bufs)

    def free_all_event(self) -> None:
        """Release the queue's sync events (nothing to do: the emulator runs each instruction in order)."""


class TQue(TQueBind):
    """A queue at one position: `asc.TQue(asc.TPosition.VECIN, depth)`."""

    def __init__(self, pos: int = TPosition.VECIN, depth: int | None = None, mask: int = 0) -> None:
        super().__init__(pos, pos, 1 if depth is None else depth, mask)


class TBuf:
    """Scratch memory without a queue: `pipe.init_buffer(buf, nbytes)`, then `buf.get(dtype)`."""

    def __init__(self, pos: int = TPosition.VECCALC) -> None:
        self.position = TPosition(pos)
        self.buffer: Buffer | None = None

    def _buf(self, api: str) -> Buffer:
        b = self.buffer
        if b is None:
            fail(api, f"TBuf {faults.name_of(self) or ''} has no memory: call pipe.init_buffer(buf, nbytes) first")
        return b

    def get(self, dtype: Any, len: int | None = None, shape: Any = None) -> LocalTensor:
        """The whole buffer (or its first `len` elements) as a tensor of `dtype`."""
        api = "TBuf.get"
        b = self._buf(api)
        dt = as_dtype(dtype)
        t = b.tensor(dt)
        if len:
            nbytes = int(len) * dt.itemsize
            if nbytes > b.end - b.lo:
                fail(api, f"{len} x {dt.name} = {nbytes} bytes exceeds the TBuf's {b.end - b.lo} bytes")
            t.end = b.lo + nbytes
            t.arr = t.arr[: int(len)]
        return t

    # Ascend C's TBuf derives from TQueBind<pos, pos, 0, 0>: the queue calls work on its one buffer.
    def alloc_tensor(self, dtype: Any) -> LocalTensor:
        """The whole buffer as a tensor of `dtype` (as get)."""
        return self.get(dtype)

    def enque(self, tensor: LocalTensor, *user_positions: Any) -> None:
        """Nothing waits on a TBuf: the tensor must still be live. (Ascend C's TQueBind<pos, pos, 0, 0>
        events order the buffer's pipes; synccheck treats it as any queue operation.)"""
        tensor.bounds(0, "TBuf.enque")
        pipes.sync(tensor.buf.pool.core, "queue", "TBuf.enque")

    def deque(self, dtype: Any) -> LocalTensor:
        """The whole buffer as a tensor of `dtype` (as get)."""
        t = self.get(dtype)
        pipes.sync(t.buf.pool.core, "queue", "TBuf.deque")
        return t

    def free_tensor(self, tensor: LocalTensor) -> None:
        """A TBuf's memory stays with it until the pipe is reset: the tensor must still be live."""
        tensor.bounds(0, "TBuf.free_tensor")

    def get_with_offset(self, size: int, buf_offset: int, dtype: Any) -> LocalTensor:
        """`size` elements starting `buf_offset` bytes (32-byte aligned) into the buffer."""
        api = "TBuf.get_with_offset"
        b = self._buf(api)
        dt = as_dtype(dtype)
        if buf_offset % 32:
            fail(api, f"buf_offset {buf_offset} must be 32-byte aligned")
        nbytes = int(size) * dt.itemsize
        if buf_offset + nbytes > b.end - b.lo:
            fail(api, f"{size} x {dt.name} at offset {buf_offset} exceeds the TBuf's {b.end - b.lo} bytes")
        t = b.tensor(dt)[buf_offset // dt.itemsize]
        t.end = t.lo + nbytes
        t.arr = t.arr[: int(size)]
        return t


class TPipe:
    """The kernel's manager of local memory and sync event ids (one per kernel, per core)."""

    def __init__(self, core: Any = None) -> None:
        core = core if core is not None else faults.running("TPipe")
        q = core.state(Queues)
        if q.pipe is not None and not q.pipe.destroyed:
            fail("TPipe", "a kernel may create only one TPipe; pass it around (or use asc.get_tpipe_ptr())")
        q.pipe = self
        self.core = core
        self.buffers: list[Buffer] = []
        self.queues: list[TQueBind] = []
        self.tbufs: list[TBuf] = []
        self.events: dict[int, set[int]] = {}
        self.destroyed = False

    def init(self) -> None:
        """Ascend C `TPipe::Init`: the constructor already did it; after `destroy` it makes the pipe usable
        again (and the kernel's current pipe)."""
        core = self.core
        if self.destroyed:
            q = core.state(Queues)
            if q.pipe is not self and q.pipe is not None and not q.pipe.destroyed:
                fail("TPipe.init", "another TPipe is live in this kernel; destroy it first")
            q.pipe = self
            self.destroyed = False

    def init_buffer(self, *args: Any, **kwargs: Any) -> None:
        """`init_buffer(que, num, len)`: `num` blocks of `len` bytes for a queue;
        `init_buffer(buf, num)`: one block of `num` bytes for a TBuf (pyasc keyword names)."""
        api = "TPipe.init_buffer"
        target = kwargs.pop("que", None) or kwargs.pop("buf", None)
        rest = list(args)
        if target is None and rest:
            target = rest.pop(0)
        names = ["num", "len"] if isinstance(target, TQueBind) else ["num"]
        if isinstance(target, TBuf) and "len" in kwargs:  # pyasc's newer spelling: init_buffer(buf=, len=)
            if "num" in kwargs or rest[1:]:
                raise TypeError(f"{api}: a TBuf takes one size, num= (pyasc 1.1.1) or len= (newer pyasc)")
            kwargs["num"] = kwargs.pop("len")
        vals = dict(zip(names, rest, strict=False))
        vals.update({k: kwargs.pop(k) for k in names if k in kwargs})
        if kwargs or len(rest) > len(names):
            raise TypeError(f"{api}: unexpected arguments {sorted(kwargs) or rest[len(names):]}")
        if self.destroyed:
            fail(api, "the TPipe was destroyed")
        if isinstance(target, TQueBind):
            num, length = int(vals.get("num", 0)), int(vals.get("len", 0))
            if target.bufs:
                fail(api, f"queue {target.label()} already has buffers; init_buffer each queue once")
        elif isinstance(target, TBuf):
            num, length = 1, int(vals.get("num", 0))
            if target.buffer is not None:
                fail(api, "this TBuf already has memory; init_buffer each TBuf once")
        else:
            raise TypeError(f"{api}: the first argument must be a TQue/TQueBind or a TBuf, got {type(target).__name__}")
        if num < 1 or length < 1:
            fail(api, f"num and len must be positive, got num={num}, len={length}")
        if len(self.buffers) + num > QBUF_MAX_LEN:
            fail(api, f"a TPipe manages at most {QBUF_MAX_LEN} buffers; this call would make {len(self.buffers) + num}")
        block = (length + 31) // 32 * 32  # "len is rounded up to 32 bytes"
        core = self.core
        pool = core.pool(position_pool(core, target.position, api))
        need = num * block
        arena = core.units.get(Arena)
        auto = arena.low if arena is not None and arena.pool is pool else pool.usable
        if pool.top + need > auto:
            chip = core.chip
            reserved = f", the top {pool.size - pool.usable} reserved for API temp space" if pool.size > pool.usable else ""
            fail(api, f"{pool.name} over-subscribed: asked for {num} x {block} bytes"
                      f"{' (len ' + str(length) + ' rounded up to 32)' if block != length else ''} = {need} bytes at "
                      f"offset {pool.top}, but {chip.name}'s {pool.name} has {pool.usable} usable bytes "
                      f"({pool.size} total{reserved}"
                      f"{', the top ' + str(pool.usable - auto) + ' held by LocalTensorAuto' if auto < pool.usable else ''}); "
                      f"only {auto - pool.top} bytes are left")
        if isinstance(target, TQueBind):
            target.core = core
            target.live = core.state(Queues).live
            target.name = next((k for k, v in sys._getframe(1).f_locals.items() if v is target), None)
            target.bufs = [Buffer(pool, pool.top + k * block, block, target, k, target.position, FREE)
                           for k in range(num)]
            self.buffers.extend(target.bufs)
            self.queues.append(target)
        else:
            target.buffer = Buffer(pool, pool.top, block, target, 0, target.position, FIXED)
            self.buffers.append(target.buffer)
            self.tbufs.append(target)
        pool.top += need

    def reset(self) -> None:
        """Release every buffer: tensors from before must not be used again."""
        self._release("TPipe.reset")

    def _release(self, by: str) -> None:
        site = _caller(3)
        for b in self.buffers:
            b.retire(by, site)
        for q in self.queues:
            q.bufs = []
            q.fifo.clear()
        for t in self.tbufs:
            t.buffer = None
        for pool in self.core.pools.values():
            pool.top = 0
        self.core.state(Queues).live[:] = [0] * 12
        self.buffers = []
        self.queues = []
        self.tbufs = []

    def destroy(self) -> None:
        """Release everything; a new TPipe may be created afterwards."""
        self._release("TPipe.destroy")
        self.destroyed = True

    def alloc_event_id(self, event: int = HardEvent.V_S) -> int:
        used = self.events.setdefault(int(event), set())
        for i in range(EVENT_IDS):
            if i not in used:
                used.add(i)
                return i
        fail("TPipe.alloc_event_id", f"all {EVENT_IDS} event ids of {HardEvent(event).name} are allocated; "
                                     "release_event_id one first")

    def fetch_event_id(self, event: int = HardEvent.V_S) -> int:
        """An unallocated event id, without allocating it."""
        used = self.events.get(int(event), set())
        return next((i for i in range(EVENT_IDS) if i not in used), 0)

    def release_event_id(self, id: int, event: int = HardEvent.V_S) -> None:
        self.events.get(int(event), set()).discard(int(id))

    def check_leaks(self, launch: Any) -> None:
        """At kernel end: every queue tensor must have been freed (npuchk ErrorLeak)."""
        held = [b for q in self.queues for b in q.bufs if b.state != FREE]
        if held:
            parts = []
            for b in held:
                at = f", from alloc_tensor at {faults.short(b.site[0])}:{b.site[1]}" if b.site else ""
                parts.append(f"{b.owner.label()} buffer {b.index} (still {STATE_NAMES[b.state]}{at})")
            fail("TPipe", f"the kernel returned with {len(held)} tensor(s) not freed: {'; '.join(parts)}. "
                          "free_tensor every tensor you alloc_tensor (npuchk ErrorLeak)", launch.end_site)


def get_tpipe_ptr(core: Any = None) -> TPipe:
    """The kernel's TPipe (of `core`, by default the running one)."""
    pipe = (core if core is not None else faults.running("get_tpipe_ptr")).state(Queues).pipe
    if pipe is None:
        fail("get_tpipe_ptr", "no TPipe was created in this kernel yet: create one with asc.TPipe()")
    return pipe

"""Local tensors: `LocalTensor` (pyasc `core/tensor.py` names), a typed window on one `Buffer` of a core's local memory.

Buffers carved for a queue go FREE -> ALLOCATED -> ENQUEUED -> DEQUEUED -> FREE; free_tensor bumps the
buffer's generation, so a tensor kept past free_tensor is recognised as used-after-free (npuchk
ErrorRead1/ErrorWrite1). Reads check that every byte was written since the buffer was allocated
(npuchk ErrorRead2), that the tensor is 32-byte aligned (ErrorRead4) and large enough (ErrorRead3).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import faults
from ..aicore.pipes import access
from ..aicore.pool import Pool
from ..faults import AscWarning, fail
from ..types import bf16
from ..types.dtypes import DataType, as_dtype, bfloat16
from ..types.enums import TPosition
from ..types.shape import HasShapeInfo

FREE, ALLOCATED, ENQUEUED, DEQUEUED, FIXED = range(5)


class RawWindows(dict):
    """A core's local windows made from plain numbers (`LocalTensor.at`): (memory, offset, count, type) -> tensor."""


class PhyAddresses(dict):
    """A core's UB addresses that `LocalTensor.get_phy_addr` handed out -> the element type of the tensor they came
    from (the address forms of trans_data_to_5hd take the type from it, as pyasc's compiler infers it)."""


class Escaped(dict):
    """A core's UB windows whose address `get_phy_addr` handed out since its last VF call ((buffer, start byte) ->
    tensor): code behind a pointer (SIMT functions of a native face, vector/vf.py) reads and writes them unseen."""


STATE_NAMES = ("free", "allocated", "enqueued", "dequeued", "fixed")


MEMO_SIZE = 256  # operand windows remembered per buffer
LO_BITS = 24  # a memo key is a geometry's base plus the window's start byte (local memories are < 16 MiB)


class Checked:
    """What the static checks of one vector operand geometry found on one tensor window, kept in its buffer's
    `memo` (under the geometry's base key plus the window's start byte) so that calls of the same shape skip them.

    The window is (lo, end, dtype) in the buffer: the bounds, alignment and UB checks hold for any tensor with
    the same window (`same`); `arr` is the view object of the last tensor seen, a quicker test of the same
    (a tensor's `arr` is replaced whenever its start, end or element type change). Liveness (the generation)
    is still checked on every call. `full` is the pool epoch at which every byte (lane) of the geometry was
    seen written: it stays true until a flag is cleared (`Pool.unwrite`). `hi` is the end byte the written
    check covers, `view` the operand's values (the contiguous forms), `extra` what a repeat plan keeps.
    """

    __slots__ = ("arr", "dtype", "end", "extra", "full", "hi", "lo", "view")

    def __init__(self, t: LocalTensor, hi: int, view: np.ndarray | None, extra: Any = None) -> None:
        self.arr, self.lo, self.end, self.dtype = t.arr, t.lo, t.end, t.dtype
        self.hi, self.view, self.extra = hi, view, extra
        self.full = -1

    def same(self, t: LocalTensor) -> bool:
        """Whether `t` is the window the checks were made on (then its view object is the quick test from now on)."""
        if self.lo == t.lo and self.end == t.end and self.dtype is t.dtype:
            self.arr = t.arr
            return True
        return False


def remember(buf: Buffer, key: int, c: Checked) -> Checked:
    """Keep `c` in `buf`'s memo under `key` while it has room: a kernel cycling through more windows of one
    buffer than that keeps hitting the first ones (emptying a full memo would make every call a miss)."""
    memo = buf.memo
    if len(memo) < MEMO_SIZE or key in memo:
        memo[key] = c
    return c


class Buffer:
    """One block of local memory carved by TPipe.init_buffer (or a raw LocalTensor region)."""

    __slots__ = ("__weakref__", "end", "gen", "index", "lo", "memo", "owner", "pool", "position", "released_by",
                 "site", "state", "tag", "views")

    def __init__(self, pool: Pool, lo: int, size: int, owner: Any, index: int, position: int, state: int) -> None:
        self.pool = pool
        self.lo = lo
        self.end = lo + size
        self.owner = owner
        self.index = index
        self.position = position
        self.state = state
        self.gen = 0
        self.site: tuple[str, int] | None = None  # where it was allocated / released last
        self.released_by = "free_tensor"
        self.views: dict[DataType, np.ndarray] = {}
        self.memo: dict[int, Checked] = {}  # vector operand (geometry, window start) -> its checks (`Checked`)
        self.tag = 0  # set_user_tag / get_user_tag

    def tensor(self, dtype: DataType) -> LocalTensor:
        arr = self.views.get(dtype)
        if arr is None:
            arr = self.views[dtype] = self.pool.bytes[self.lo : self.end].view(dtype.np)
        t = LocalTensor.__new__(LocalTensor)
        t.dtype, t.buf, t.gen, t.lo, t.end, t.arr = dtype, self, self.gen, self.lo, self.end, arr
        return t

    def retire(self, by: str, site: tuple[str, int]) -> None:
        """Invalidate every tensor handed out on this buffer (`by` free_tensor or TPipe.reset at `site`)."""
        self.gen += 1
        self.state = FREE if self.state != FIXED else FIXED
        self.released_by = by
        self.site = site


# Ascend C's positions past pyasc's (C++ TPosition values): none is local memory the engine models.
_MORE_POSITIONS = {12: "SPM", 13: "TSCM", 14: "C2PIPE2GM (the Fixpipe buffer)", 15: "C2PIPE2LOCAL"}


def position_pool(core: Any, pos: int, api: str) -> str:
    """The physical memory behind a TPosition on `core`'s chip (Ascend C TPosition page: VECIN/VECOUT/VECCALC are
    the UB, A1/B1/C1 L1, A2 L0A, B2 L0B, CO1 L0C; C2 the BiasTable and CO2 GM on A2/A3, the UB on the coupled
    Atlas inference cores)."""
    if pos not in TPosition._value2member_map_:
        name = _MORE_POSITIONS.get(pos, str(pos))
        fail(api, f"TPosition {name} is not emulated by aclsim (no memory of the engine stands behind it)")
    p = TPosition(pos)
    if p in (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC):
        return "UB"
    if p in (TPosition.A1, TPosition.B1, TPosition.C1):
        return "L1"
    if p is TPosition.A2:
        return "L0A"
    if p is TPosition.B2:
        return "L0B"
    if p is TPosition.CO1:
        return "L0C"
    if p is TPosition.C2 and core.chip.separated:
        return "BT"  # the BiasTable mmad adds from (A2/A3)
    if p is TPosition.CO2 and not core.chip.separated:
        return "UB"
    fail(api, f"TPosition.{p.name} is not local memory a buffer can be carved from on {core.chip.name}")


class LocalTensor(HasShapeInfo):
    """A typed view of a core's local memory (UB for VECIN/VECOUT/VECCALC).

    `asc.LocalTensor(dtype, pos, addr, tile_size)` makes a raw tensor at a UB byte address, as
    pyasc's first tutorial does; queue tensors come from alloc_tensor / deque, scratch from TBuf.get.

    As an instruction operand it is a window of one local memory: `buf.pool`, the byte offset `lo`, the element
    type `dtype` and the bytes up to `end`, and the buffer's generation `gen` (liveness). `at` makes one from plain
    numbers, as a native face has them.
    """

    __slots__ = ("arr", "buf", "dtype", "end", "gen", "lo", "shape_info")

    def __init__(self, dtype: Any, pos: int = TPosition.VECIN, addr: int = 0, tile_size: int = 0,
                 core: Any = None) -> None:
        api = "LocalTensor"
        core = core if core is not None else faults.running(api)
        dt = as_dtype(dtype)
        pool = core.pool(position_pool(core, pos, api))
        nbytes = int(tile_size) * dt.itemsize
        if addr % 32:
            fail(api, f"address {addr} is not 32-byte aligned ({pool.name} operands must start on 32 bytes)")
        if nbytes < 0 or addr < 0 or addr + nbytes > pool.usable:  # LocalTensor(dtype): empty until set
            fail(api, f"{tile_size} x {dt.name} at {pool.name} offset {addr} does not fit the {pool.usable} usable "
                      f"bytes of {pool.name} on {core.chip.name}")
        t = Buffer(pool, int(addr), nbytes, None, 0, int(pos), FIXED).tensor(dt)
        self.dtype, self.buf, self.gen, self.lo, self.end, self.arr = t.dtype, t.buf, t.gen, t.lo, t.end, t.arr

    @classmethod
    def at(cls, core: Any, memory: str, offset: int, dtype: Any, count: int) -> LocalTensor:
        """`count` elements of `dtype` (an asc type, a numpy dtype or an aclDataType code) at byte `offset` of
        `core`'s local memory `memory` ("UB", "L1", "L0A", "L0B", "L0C", "BT"), as a native face names an
        operand. Equal windows share one buffer, so repeated calls keep their checks' memo."""
        windows = core.units.get(RawWindows) or core.state(RawWindows)  # (not state() first: this runs per call)
        key = (memory, offset, count, dtype)
        t = windows.get(key)
        if t is None:
            t = windows[key] = cls(as_dtype(dtype), _POSITION[memory], offset, count, core=core)
        return t

    # -- views -----------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> LocalTensor:
        if isinstance(index, slice):
            if index.stop is not None or index.step is not None:
                raise TypeError("LocalTensor slicing takes only a start offset: t[offset:]")
            index = index.start or 0
        k = int(index)
        lo = self.lo + k * self.dtype.itemsize
        if not self.buf.lo <= lo <= self.end:
            fail("LocalTensor[]", f"offset {k} x {self.dtype.name} leaves the tensor's buffer "
                                  f"({self.buf.pool.name} bytes {self.buf.lo}..{self.end})")
        t = LocalTensor.__new__(LocalTensor)
        t.dtype, t.buf, t.gen, t.end, t.lo = self.dtype, self.buf, self.gen, self.end, lo
        t.arr = self.arr[k:]
        return t

    def reinterpret_cast(self, dtype: Any) -> LocalTensor:
        dt = as_dtype(dtype)
        t = LocalTensor.__new__(LocalTensor)
        t.dtype, t.buf, t.gen, t.lo, t.end = dt, self.buf, self.gen, self.lo, self.end
        t.arr = self.buf.pool.bytes[self.lo : self.end - (self.end - self.lo) % dt.itemsize].view(dt.np)
        return t

    def get_size(self) -> int:
        """Elements from this tensor's start to the end of its buffer."""
        return (self.end - self.lo) // self.dtype.itemsize

    def get_length(self) -> int:
        """Bytes from this tensor's start to the end of its buffer."""
        return self.end - self.lo

    def get_phy_addr(self, offset: int = 0) -> int:
        """Byte address in its local memory (remembered with the element type, which the address forms of
        trans_data_to_5hd take from it as pyasc's compiler does)."""
        addr = self.lo + int(offset) * self.dtype.itemsize
        core = self.buf.pool.core
        if core is not None:
            core.state(PhyAddresses)[addr] = self.dtype
            core.state(Escaped)[(id(self.buf), self.lo)] = self
        return addr

    def get_position(self) -> int:
        return self.buf.position

    def set_size(self, size: int = 0) -> None:
        """Make the tensor `size` elements long (within its buffer)."""
        self._resize(int(size) * self.dtype.itemsize, "LocalTensor.set_size")

    def set_buffer_len(self, data_len: int) -> None:
        """Make the tensor `data_len` bytes long (within its buffer)."""
        self._resize(int(data_len), "LocalTensor.set_buffer_len")

    def _resize(self, nbytes: int, api: str) -> None:
        if self.gen != self.buf.gen:
            self.dead(api)
        room = self.buf.end - self.lo
        if nbytes < 0:
            fail(api, f"the length must be >= 0, got {nbytes} bytes")
        if nbytes > room:  # legal, but an access past `room` would hit memory another buffer owns
            warnings.warn(faults.message(api, f"{nbytes} bytes exceed the {room} bytes of the tensor's buffer; aclsim "
                                           f"keeps checking accesses against the {room} bytes"), AscWarning, stacklevel=3)
            nbytes = room
        self.end = self.lo + nbytes
        self.arr = self.buf.pool.bytes[self.lo : self.end - nbytes % self.dtype.itemsize].view(self.dtype.np)

    def set_addr_with_offset(self, src: LocalTensor, offset: int) -> None:
        """Point this tensor (keeping its element type) at `src` plus `offset` elements of src's type."""
        t = src[int(offset)].reinterpret_cast(self.dtype)
        self.buf, self.gen, self.lo, self.end, self.arr = t.buf, t.gen, t.lo, t.end, t.arr

    def set_user_tag(self, tag: int = 0) -> None:
        """Label the tensor's buffer (read back with get_user_tag)."""
        self.buf.tag = int(tag)

    def get_user_tag(self) -> int:
        return self.buf.tag

    # -- checked access ----------------------------------------------------------------------
    def dead(self, api: str) -> None:
        b = self.buf
        if b.gen != self.gen:
            name = faults.name_of(self) or "the tensor"
            at = f" at {faults.short(b.site[0])}:{b.site[1]}" if b.site else ""
            fail(api, f"{name} is used after {b.released_by}: its buffer was released{at} "
                      f"(now {STATE_NAMES[b.state]}); npuchk ErrorRead1/ErrorWrite1")

    def bounds(self, count: int, api: str) -> int:
        """End byte of `count` elements after the liveness and size checks."""
        if self.gen != self.buf.gen:
            self.dead(api)
        hi = self.lo + count * self.dtype.itemsize
        if hi > self.end:
            self.overflow(count, api)
        return hi

    def overflow(self, count: int, api: str) -> None:
        fail(api, f"{count} x {self.dtype.name} needs {count * self.dtype.itemsize} bytes but the tensor holds only "
                  f"{self.end - self.lo} bytes (tensor size overflow, npuchk ErrorRead3/ErrorWrite2)")

    def misaligned(self, api: str) -> None:
        fail(api, f"the tensor starts at {self.buf.pool.name} offset {self.lo}, not 32-byte aligned "
                  "(vector and DMA operands must start on 32 bytes, npuchk ErrorRead4/ErrorWrite4)")

    def span(self, count: int, api: str) -> int:
        """`bounds` plus the 32-byte alignment rule of vector and DMA operands."""
        hi = self.bounds(count, api)
        if self.lo & 31:
            self.misaligned(api)
        return hi

    def checked(self, count: int, api: str) -> Checked:
        """The checks of the first `count` elements as a vector operand (live, in bounds, aligned, in UB),
        remembered on the buffer for the next call with the same window and count."""
        key = (count << LO_BITS) + self.lo
        c = self.buf.memo.get(key)
        if c is not None and (c.arr is self.arr or c.same(self)):
            return c
        hi = self.lo + count * self.dtype.itemsize
        if hi > self.end:
            self.overflow(count, api)
        if self.lo & 31:
            self.misaligned(api)
        if self.buf.pool.name != "UB":
            self.not_ub(api)
        arr = self.arr
        return remember(self.buf, key, Checked(self, hi, arr if count == len(arr) else arr[:count]))

    # The two hot paths below inline `span` and the memo hit of `checked` (they run for every vector operand).
    def read(self, count: int, api: str) -> np.ndarray:
        """Vector source: the first `count` elements, checked to be live, in UB, in bounds, aligned and written."""
        b = self.buf
        if self.gen != b.gen:
            self.dead(api)
        c = b.memo.get((count << LO_BITS) + self.lo)
        if c is None or (c.arr is not self.arr and not c.same(self)):
            c = self.checked(count, api)
        pool = b.pool
        if c.full != pool.epoch:
            bad = pool.unwritten(c.lo, c.hi)
            if bad >= 0:
                self.uninit(api, bad, count)
            c.full = pool.epoch
        if pool.watch:
            access("V", pool, c.lo, c.hi, False, api)
        return c.view

    def uninit(self, api: str, bad: int, count: int) -> None:
        isz = self.dtype.itemsize
        fail(api, f"reads {count} x {self.dtype.name} but element {(bad - self.lo) // isz} "
                  f"({self.buf.pool.name} byte {bad}) was never written since the buffer was allocated: local "
                  "memory holds garbage, not zeros (npuchk ErrorRead2). Fill it first; if it is the tail of a "
                  "data_copy whose length was not a multiple of 32 bytes, use data_copy_pad")

    def not_ub(self, api: str) -> None:
        fail(api, f"vector instructions work on UB tensors (VECIN/VECOUT/VECCALC); this tensor is in "
                  f"{self.buf.pool.name} (TPosition.{TPosition(self.buf.position).name})")

    def write(self, count: int, api: str) -> np.ndarray:
        """Vector destination: the first `count` elements, checked, and marked written."""
        b = self.buf
        if self.gen != b.gen:
            self.dead(api)
        c = b.memo.get((count << LO_BITS) + self.lo)
        if c is None or (c.arr is not self.arr and not c.same(self)):
            c = self.checked(count, api)
        pool = b.pool
        if c.full != pool.epoch:
            pool.mark(c.lo, c.hi)
            c.full = pool.epoch
        if pool.watch:
            access("V", pool, c.lo, c.hi, True, api)
        return c.view

    # -- scalar access -----------------------------------------------------------------------
    def get_value(self, index: int) -> Any:
        """Scalar read (no alignment rule for the scalar unit)."""
        t = self[index]
        hi = t.bounds(1, "LocalTensor.get_value")
        pool = t.buf.pool
        bad = pool.unwritten(t.lo, hi)
        if bad >= 0:
            t.uninit("LocalTensor.get_value", bad, 1)
        if pool.watch:
            access("S", pool, t.lo, hi, False, "LocalTensor.get_value")
        return t.arr[0] if t.dtype is not bfloat16 else bf16.values(t.arr[:1], "LocalTensor.get_value")[0]

    def set_value(self, index: int, value: Any) -> None:
        """Scalar write."""
        t = self[index]
        hi = t.bounds(1, "LocalTensor.set_value")
        t.arr[0] = value if t.dtype is not bfloat16 else bf16.bits(value, "LocalTensor.set_value")
        pool = t.buf.pool
        pool.mark(t.lo, hi)
        if pool.watch:
            access("S", pool, t.lo, hi, True, "LocalTensor.set_value")

    def __repr__(self) -> str:
        return f"LocalTensor({self.dtype!r}, {self.buf.pool.name}+{self.lo}, {self.get_size()} elements)"


_POSITION = {"UB": TPosition.VECCALC, "L1": TPosition.A1, "L0A": TPosition.A2, "L0B": TPosition.B2,
             "L0C": TPosition.CO1, "BT": TPosition.C2}  # a position each local memory is carved for
ALIGN = {"L0A": 512, "L0B": 512, "L0C": 64, "L1": 32, "BT": 64, "UB": 32}  # operand start alignment per memory


def pool_of(t: Any, api: str, role: str, pools: tuple[str, ...]) -> None:
    """`t` must be a live LocalTensor in one of `pools`, aligned as that memory requires."""
    if not isinstance(t, LocalTensor):
        raise TypeError(f"asc.{api}: {role} must be a LocalTensor, got {type(t).__name__}")
    if t.gen != t.buf.gen:
        t.dead(api)
    name = t.buf.pool.name
    if name not in pools:
        where = " or ".join(pools)
        fail(api, f"{role} is in {name} (TPosition.{TPosition(t.buf.position).name}) but must be in {where}")
    align = ALIGN[name]
    if t.lo % align:
        fail(api, f"{role} starts at {name} byte {t.lo}, not {align}-byte aligned ({name} operands must start on "
                  f"{align} bytes)")


def extent(t: LocalTensor) -> int:
    """Where a cube operand ends as the NPU sees it. A tensor made at a raw address (`LocalTensor(pos, addr, size)`,
    LocalMemAllocator) is bounded by its memory, not by the size it was declared with: nothing on the NPU knows
    that size, and CANN's own cube examples declare L0 tensors of the unpadded shape and load, mmad and fixpipe
    whole fractals through them (asc-devkit 03_matrix_compute: mmad, mmad_gemv, batch_matmul)."""
    return t.end if t.buf.state != FIXED else t.buf.pool.size


def room(t: LocalTensor, nbytes: int, api: str, role: str, what: str) -> None:
    """`t` must hold `nbytes` from its start (`role` and `what` name the operand and the use in the fault; a
    raw-address tensor: see `extent`)."""
    end = extent(t)
    if t.lo + nbytes > end:
        fail(api, f"{role} {what} needs {nbytes} bytes of {t.buf.pool.name} but the tensor holds only "
                  f"{end - t.lo} bytes ({t.buf.pool.name} overflow)")

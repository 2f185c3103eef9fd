"""Global memory operands: `GlobalAddress` (a typed GM pointer) and `GlobalTensor` (pyasc `core/tensor.py` names).

GM is reached only through the launch's door (`aclsim.runtime.gm`): the allocation holding a tensor's
address is resolved once, and any access outside it is placed by the door's bounds rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from aclsim.runtime import get_runtime
from aclsim.runtime.gm import GlobalMemory, Verdict, array_interface, array_of, has_array_interface

from .. import faults
from ..faults import fail
from ..types import bf16
from ..types.dtypes import DataType, as_dtype, bfloat16
from ..types.shape import HasShapeInfo

_U8 = np.dtype(np.uint8)
POLL_READS = 256  # scalar GM re-reads finding nothing changed before a core counts as polling
SPIN_LIMIT = 1 << 22  # such re-reads, once no other core can run, before the poll is a fault
POLL_PLACES = 64  # places remembered; a core reading more distinct places is not polling


class Polling:
    """A core's recent scalar GM reads: (buffer id, offset) -> (buffer, offset, the bytes read), and how many reads
    in a row found what the previous read of their place found."""

    __slots__ = ("alone", "same", "seen")

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int], tuple[np.ndarray, int, bytes]] = {}
        self.same = 0
        self.alone = False


def polled(core: Any, buf: np.ndarray, off: int, n: int, api: str) -> None:
    """Note `core`'s scalar read of GM bytes buf[off : off + n]. A core that keeps re-reading GM nobody changes
    polls for another core (a flag in GM, a spin loop in the kernel): the cores run one at a time, so after
    POLL_READS such reads it hands over (the gang scheduler) until one of the places it reads changes. When no
    other core can run it goes on; still polling SPIN_LIMIT reads later, it faults (on hardware it spins for ever)."""
    p = core.units.get(Polling) or core.state(Polling)
    key = (id(buf), off)
    now = buf[off : off + n].tobytes()
    old = p.seen.get(key)
    if old is not None and old[2] == now:
        p.same += 1
    else:
        p.same, p.alone = 0, False
        if len(p.seen) >= POLL_PLACES:
            p.seen.clear()
        p.seen[key] = (buf, off, now)
        return
    if p.same % POLL_READS:
        return
    if p.alone:
        if p.same >= SPIN_LIMIT:
            fail(api, f"polls GM for a value no core will store: {p.same} reads found nothing changed and every "
                      "other core returned or waits (on hardware the core spins for ever)")
        return
    places = list(p.seen.values())
    if core.launch.wait(core, lambda: any(b[o : o + len(v)].tobytes() != v for b, o, v in places)):
        p.same = 0
    else:
        p.alone = True


class GlobalAddress:
    """A typed GM pointer (`__gm__ T*`): `x + n` advances n elements; `asc.GlobalAddress(ptr, dtype)`
    types a pyACL device pointer (int) or a device array (a DeviceArray) for a launch."""

    __slots__ = ("addr", "dtype")

    def __init__(self, addr: Any, dtype: Any = None) -> None:
        if isinstance(addr, GlobalAddress):
            dtype = dtype if dtype is not None else addr.dtype  # keeps bfloat16, which numpy names uint16
            addr = addr.addr
        elif has_array_interface(addr):
            ref = array_of(addr)
            dtype = dtype if dtype is not None else ref.dtype
            addr = ref.addr
        if dtype is None:
            raise TypeError("GlobalAddress needs an element type: asc.GlobalAddress(ptr, asc.float16)")
        self.addr = int(addr)
        self.dtype: DataType = as_dtype(dtype)

    def __add__(self, n: int) -> GlobalAddress:
        return GlobalAddress(self.addr + int(n) * self.dtype.itemsize, self.dtype)

    __radd__ = __add__

    def __sub__(self, n: int) -> GlobalAddress:
        return GlobalAddress(self.addr - int(n) * self.dtype.itemsize, self.dtype)

    def __int__(self) -> int:
        return self.addr

    @property
    def __acl_array_interface__(self) -> dict:
        """A typed pointer of unknown extent (shape None) in the device-array protocol."""
        return array_interface(self.addr, self.dtype.np, None)

    def __repr__(self) -> str:
        return f"GlobalAddress({self.addr:#x}, {self.dtype!r})"


class GlobalTensor(HasShapeInfo):
    """A typed view of GM, set with `set_global_buffer(x + offset[, size])`; `gm[i:]` offsets it.

    As an instruction operand it is an address range: the element type, the address and the size, reached
    only through the launch's door (`aclsim.runtime.gm`): the allocation holding the address and its bytes are
    resolved once (`bind`), and any access outside them is placed by the door's bounds rule. `at` makes one from
    plain numbers, as a native face has them.
    """

    __slots__ = ("addr", "alloc", "base", "buf", "core", "door", "dtype", "off", "shape_info", "size")

    def __init__(self) -> None:
        self.dtype: DataType | None = None
        self.addr = 0
        self.base = 0  # the address set_global_buffer was given: the pointer accesses are made through
        self.size: int | None = None
        self.alloc: Any = None
        self.buf: np.ndarray | None = None  # the allocation's bytes (uint8), from the door
        self.off = 0  # byte offset of element 0 inside `alloc`
        self.core: Any = None  # the core whose accesses these are (None on the host)
        self.door: GlobalMemory | None = None

    @classmethod
    def at(cls, core: Any, addr: int, dtype: Any, count: int | None = None) -> GlobalTensor:
        """`count` elements of `dtype` (an asc type, a numpy dtype or an aclDataType code) at GM address `addr`."""
        g = cls()
        g.bind(core, int(addr), as_dtype(dtype), count)
        return g

    def bind(self, core: Any, addr: int, dt: DataType, size: int | None) -> None:
        """Point the tensor at `size` elements of `dt` at `addr`, for `core`'s accesses."""
        if addr % dt.itemsize:
            fail("GlobalTensor.set_global_buffer",
                 f"GM address {addr:#x} is not aligned to sizeof({dt.name}) = {dt.itemsize} bytes")
        self.dtype = dt
        self.addr = self.base = addr
        self.size = None if size is None else int(size)
        self.core = core
        self.door = gm = core.launch.gm if core is not None else GlobalMemory(get_runtime())
        self.alloc = a = gm.find(addr)
        self.buf = gm.view(a, _U8) if a is not None else None
        self.off = addr - a.start if a is not None else 0

    def set_global_buffer(self, buffer: GlobalAddress | None = None, buffer_size: int | None = None) -> None:
        if not isinstance(buffer, GlobalAddress):
            raise TypeError(f"set_global_buffer expects a GlobalAddress (a kernel argument + offset), got "
                            f"{type(buffer).__name__}")
        self.bind(faults.running_or_none(), buffer.addr, buffer.dtype, buffer_size)

    def _at(self, index: Any) -> GlobalTensor:
        if isinstance(index, slice):
            if index.stop is not None or index.step is not None:
                raise TypeError("GlobalTensor slicing takes only a start offset: gm[offset:]")
            index = index.start or 0
        if self.dtype is None:
            raise RuntimeError("GlobalTensor used before set_global_buffer")
        g = GlobalTensor.__new__(GlobalTensor)
        k = int(index)
        g.dtype, g.alloc, g.buf, g.base, g.core, g.door = self.dtype, self.alloc, self.buf, self.base, self.core, self.door
        g.addr = self.addr + k * self.dtype.itemsize
        g.off = self.off + k * self.dtype.itemsize
        g.size = None if self.size is None else self.size - k
        return g

    __getitem__ = _at

    def region(self, nbytes: int, api: str) -> tuple[np.ndarray, int, Any]:
        """(bytes, offset of element 0 in them, where) for `nbytes` from element 0, after the door's bounds rule.

        `where` is the allocation (or the door's Span over several) that `Core.emit_gm` reports to observers.
        """
        a, off = self.alloc, self.off
        if a is not None and off >= 0 and off + nbytes <= a.alloc_size and not a.freed:
            return self.buf, off, a  # inside the buffer's own allocation: the common case
        got = self.door.span(self.addr, nbytes, self.base)
        if isinstance(got, Verdict):
            fail(api, f"accesses {nbytes} bytes at GM {self.addr:#x}: {got.text}")
        return got.buf, got.off, got

    def get_value(self, offset: int) -> Any:
        """Scalar read through the core's data cache."""
        dt = self.dtype
        buf, off, where = self._at(offset).region(dt.itemsize, "GlobalTensor.get_value")
        core = self.core
        if core is not None:
            if core.launch.observe:
                core.emit_gm(where, off, off + dt.itemsize, False, dt.itemsize, "get_value")
            polled(core, buf, off, dt.itemsize, "GlobalTensor.get_value")
        stored = buf[off : off + dt.itemsize].view(dt.np)
        return stored[0] if dt is not bfloat16 else bf16.values(stored, "GlobalTensor.get_value")[0]

    def set_value(self, offset: int, value: Any) -> None:
        """Scalar write. On hardware it lands in the core's data cache, not GM, until flushed (Ascend C
        GlobalTensor SetValue page: "DataCacheCleanAndInvalid")."""
        dt = self.dtype
        buf, off, where = self._at(offset).region(dt.itemsize, "GlobalTensor.set_value")
        buf[off : off + dt.itemsize].view(dt.np)[0] = (value if dt is not bfloat16
                                                   else bf16.bits(value, "GlobalTensor.set_value"))
        core = self.core
        if core is not None and core.launch.observe:
            core.emit_gm(where, off, off + dt.itemsize, True, dt.itemsize, "set_value")

    def get_size(self) -> int | None:
        return self.size

    def get_phy_addr(self, offset: int = 0) -> GlobalAddress:
        return GlobalAddress(self.addr, self.dtype) + offset

    def __repr__(self) -> str:
        return f"GlobalTensor({self.dtype!r}, {self.addr:#x}, size={self.size})"

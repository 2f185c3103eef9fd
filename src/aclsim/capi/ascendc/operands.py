"""The operand words of the Ascend C ABI (ascendc/abi.h) as the engine's operands, and back.

A local tensor word names a window (a buffer of the core's local memory and the end of the tensor's view of it,
handed out as a handle), the buffer's generation when the tensor was made (a tensor kept past FreeTensor is
recognised as such), the element type and the byte offset. A GM tensor word names the GlobalTensor
SetGlobalBuffer made (a handle) and an element offset from it. Both decode through per-core caches, so a call
with the same operands as before costs a dictionary lookup per operand and keeps the engine's own memo of checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...asc.faults import fail
from ...asc.memory.gm import GlobalTensor
from ...asc.memory.local import Buffer, LocalTensor
from ...asc.types.dtypes import ALL, DataType
from ...asc.vector.repeat import Repeat

DTYPES: dict[int, DataType] = {t.code: t for t in ALL}
HANDLE_BITS = 16
GEN_MASK = 0xFFFF
LO_MASK = (1 << 20) - 1
CACHE = 8192  # tensor views remembered per core before the cache starts over


class NativeCore:
    """What the C++ face keeps for one core: windows by handle, tensors by word, GM tensors by handle, and the
    framework objects (TPipe, TQue, TBuf, Matmul) the C++ objects stand for."""

    __slots__ = ("gm_of", "gms", "gviews", "objects", "views", "window_of", "windows")

    def __init__(self) -> None:
        self.windows: list[tuple[Buffer, int] | None] = [None]  # handle 0: a tensor never assigned
        self.window_of: dict[tuple[Buffer, int], int] = {}
        self.views: dict[int, LocalTensor] = {}
        self.gms: list[GlobalTensor | None] = [None]
        self.gm_of: dict[tuple[int, int, int], int] = {}
        self.gviews: dict[int, GlobalTensor] = {}
        self.objects: list[Any] = [None]

    def window(self, buf: Buffer, end: int) -> int:
        """The handle of `buf` viewed up to byte `end`."""
        key = (buf, end)
        h = self.window_of.get(key)
        if h is None:
            h = self.window_of[key] = len(self.windows)
            if h >> HANDLE_BITS:
                fail("LocalTensor", f"the kernel made more than {(1 << HANDLE_BITS) - 1} distinct tensor windows; "
                                    "aclsim's C++ face cannot name more")
            self.windows.append(key)
        return h

    def keep(self, obj: Any) -> int:
        """A handle for a framework object."""
        self.objects.append(obj)
        return len(self.objects) - 1


def state(core: Any) -> NativeCore:
    st = core.units.get(NativeCore)
    return st if st is not None else core.state(NativeCore)


# ------------------------------------------------------------------------------------------ local tensors
def word(core: Any, t: LocalTensor) -> int:
    """The word of tensor `t` (remembered, so the next call naming it finds the same object)."""
    st = core.units.get(NativeCore) or state(core)
    h = st.window_of.get((t.buf, t.end)) or st.window(t.buf, t.end)
    w = h | (t.gen & GEN_MASK) << 16 | t.dtype.code << 32 | t.lo << 38
    views = st.views
    if len(views) >= CACHE:
        views.clear()
    views[w] = t
    return w


def local(core: Any, w: int) -> LocalTensor:
    """The tensor a word names on `core` (the hot path of every call: one lookup in the core's cache)."""
    st = core.units.get(NativeCore)
    if st is not None:
        t = st.views.get(w)
        if t is not None and t.gen == t.buf.gen:
            return t
    return _make(core, w)


def _make(core: Any, w: int) -> LocalTensor:
    st = state(core)
    h = w & 0xFFFF
    win = st.windows[h] if h < len(st.windows) else None
    if win is None:
        fail("LocalTensor", "the tensor was never given memory (a default-constructed LocalTensor: assign it from "
                            "AllocTensor, DeQue, TBuf::Get or a LocalMemAllocator first)")
    buf, end = win
    dt = DTYPES[(w >> 32) & 63]
    lo = (w >> 38) & LO_MASK
    gen16 = (w >> 16) & GEN_MASK
    t = LocalTensor.__new__(LocalTensor)
    t.dtype, t.buf, t.lo, t.end = dt, buf, lo, end
    # the buffer's generation now, if the low bits agree; else an older one (the tensor was freed since)
    t.gen = buf.gen if (buf.gen & GEN_MASK) == gen16 else buf.gen - ((buf.gen - gen16) & GEN_MASK or GEN_MASK + 1)
    t.arr = buf.pool.bytes[lo : max(lo, end - (end - lo) % dt.itemsize)].view(dt.np)
    views = st.views
    if len(views) >= CACHE:
        views.clear()
    views[w] = t
    return t


def local_or_none(core: Any, w: int) -> LocalTensor | None:
    return local(core, w) if w else None


# ------------------------------------------------------------------------------------------ GM tensors
def bind_gm(core: Any, addr: int, code: int, size: int) -> int:
    """The handle of a GlobalTensor of `size` elements (0: unknown) of type `code` at `addr`."""
    st = state(core)
    key = (addr, code, size)
    h = st.gm_of.get(key)
    if h is None:
        g = GlobalTensor.at(core, addr, DTYPES[code], size or None)
        h = st.gm_of[key] = len(st.gms)
        if h >> HANDLE_BITS:
            fail("GlobalTensor.set_global_buffer", f"the kernel set more than {(1 << HANDLE_BITS) - 1} distinct GM "
                                                   "buffers; aclsim's C++ face cannot name more")
        st.gms.append(g)
    return h


def gm(core: Any, w: int) -> GlobalTensor:
    """The GM tensor a word names on `core`."""
    st = core.units.get(NativeCore) or state(core)
    g = st.gviews.get(w)
    if g is None:
        base = st.gms[w & 0xFFFF] if (w & 0xFFFF) < len(st.gms) else None
        if base is None:
            fail("GlobalTensor", "the tensor was never given GM memory: call SetGlobalBuffer first")
        k = w >> 16
        if k >> 47:
            k -= 1 << 48
        g = base[k] if k else base
        gviews = st.gviews
        if len(gviews) >= CACHE:
            gviews.clear()
        gviews[w] = g
    return g


def tensor(core: Any, w: int, is_gm: bool) -> Any:
    return gm(core, w) if is_gm else local(core, w)


# ------------------------------------------------------------------------------------------ mask/repeat forms
_REPEATS: dict[tuple[int, ...], Repeat] = {}


def repeat(api: str, operands: int, mlo: int, mhi: int, packed: int, bits: bool) -> Repeat:
    """The Repeat of a mask/repeat call: mask (a lane count, or lane bits low/high), `packed` = repeat times (bits
    0-7) | isSetMask (bit 8) | the repeat parameters (bits 16-63: BinaryRepeatParams' six uint8 strides, or
    UnaryRepeatParams' dst/src block strides (uint16) and dst/src repeat strides (uint8))."""
    key = (mlo, mhi, packed, bits, operands)
    r = _REPEATS.get(key)
    if r is None:
        f = packed >> 16
        if operands == 3:
            b = [(f >> (8 * i)) & 0xFF for i in range(6)]
            strides = [(b[0], b[3]), (b[1], b[4]), (b[2], b[5])]
        else:
            strides = [(f & 0xFFFF, (f >> 32) & 0xFF), ((f >> 16) & 0xFFFF, (f >> 40) & 0xFF)][:operands]
        r = Repeat.of(api, (mlo, mhi) if bits else mlo, packed & 0xFF, strides, bool(packed >> 8 & 1))
        if len(_REPEATS) < CACHE:
            _REPEATS[key] = r
    return r


def from_bits(bits: int, code: int) -> Any:
    """The element of type `code` whose bits C passed (the stored form: a bfloat16 stays its 16 bits)."""
    dt = DTYPES[code]
    return np.array([bits & ((1 << 64) - 1)], np.uint64).view(np.uint8)[: dt.itemsize].view(dt.np)[0]


def to_bits(value: Any, code: int) -> int:
    """An element's bits, for C to take back as its type."""
    dt = DTYPES[code]
    return int(np.array([value], dt.np).view(np.uint8)[: dt.itemsize].view(f"u{dt.itemsize}")[0])

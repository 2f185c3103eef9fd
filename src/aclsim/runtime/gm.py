"""The one door kernel engines use to reach device (global) memory.

Kernel engines (`aclsim.simt`, `aclsim.asc`) never read a heap, an allocation's backing buffer
or its offset: they resolve addresses, get typed arrays, learn why an address is bad and report
what they touched only through a `GlobalMemory` (one per launch: `GlobalMemory(rt)`). This is
also where an array module other than numpy (CuPy on a real GPU) would plug in: the interface
is the methods below and nothing else.

    find(addr) -> Allocation | None          the live allocation whose reserved bytes hold addr
    allocations() -> list[Allocation]        every live allocation, in address order (native kernels)
    view(alloc, dtype, offset=0) -> ndarray  typed 1-D view from byte `offset` of an allocation to
                                             its reserved end (cached per allocation, dtype, offset)
    device_view(addr, dtype) -> (ndarray, base)  typed view of the whole device memory holding
                                             addr; element i is at address base + i * itemsize
    check(addr, nbytes, origin, dtype) -> Verdict  the bounds rule for one access
    inside(addrs, nbytes) -> bool ndarray     the same rule for many element addresses at once
    span(addr, nbytes, origin) -> Span | Verdict     the bytes of a contiguous access (a DMA)
    observed() / emit(...) / emit_span(...) / emit_scattered(...)  kernel accesses to observers

The bounds rule, the same for every engine: an access of `nbytes` at `addr` is legal when every
byte lies in the reserved bytes (requested size rounded up, plus the runtime's 32-byte padding)
of live allocations of one device, and `addr` is a multiple of the element size. That is what
hardware does: memory inside a mapped allocation never faults, even past the requested size or
in another allocation than the one the pointer came from (the sanitizer reports the first; the
second is plain pointer arithmetic). Anything else faults, and `Verdict.text` says why: NULL,
host pointer, freed (a heap remembers its last `memory.FREED_RECORD` frees), never allocated,
misaligned, past the reserved end (measured from the bytes requested), before an allocation.

Hardware-like out-of-bounds mode (`oob_mode()`, ACLSIM_OOB=hardware, `aclsim run --oob hardware`): an
access the rule above faults still proceeds when every byte lies in memory the real allocator maps
behind live allocations: an allocation's whole pages (`Allocation.reserved`), or what `map_behind`
recorded (a torch tensor's caching-allocator segment). Its Verdict is "mapped" (no fault, the text says
what the default mode would have said); reads see what is there and writes land there, as on the NPU;
each such access is listed once, with its line, at exit (and the sanitizer still reports it as an error).

Device arrays reach engines as plain addresses through the array-interface protocol: any
object with an `__acl_array_interface__` property (modelled on numba's
`__cuda_array_interface__`: a dict with "data": (pointer, read_only), "shape", "typestr",
"strides" (None when C-contiguous) and "version") can be passed to a kernel;
`array_of(obj)` turns it into an `ArrayRef`. "shape" None marks a typed pointer of unknown extent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from . import oob
from .kernel_events import KernelAccess, KernelSync
from .memory import FREED_RECORD, Allocation, DeviceHeap, device_of
from .oob import covered, oob_mode

ARRAY_INTERFACE_VERSION = 1
_NO_FAULT = ("ok", "padding", "other", "mapped")



class ArrayRef(NamedTuple):
    """What a kernel needs to know about a device array: address, element type, shape, byte strides."""

    addr: int
    dtype: np.dtype
    shape: tuple[int, ...] | None  # None: a typed pointer of unknown extent
    strides: tuple[int, ...] | None  # None: C-contiguous


def array_interface(addr: int, dtype: Any, shape: tuple[int, ...] | None,
                    strides: tuple[int, ...] | None = None, read_only: bool = False) -> dict:
    """The `__acl_array_interface__` dict for a device array (or a typed pointer when shape is None)."""
    return {"data": (int(addr), read_only), "shape": shape, "typestr": np.dtype(dtype).str,
            "strides": strides, "version": ARRAY_INTERFACE_VERSION}


def has_array_interface(obj: Any) -> bool:
    return hasattr(type(obj), "__acl_array_interface__")


def address_of(obj: Any) -> int:
    """The device address of an object exposing `__acl_array_interface__` (launches need only that)."""
    return int(obj.__acl_array_interface__["data"][0])


def array_of(obj: Any) -> ArrayRef:
    """An `ArrayRef` for any object exposing `__acl_array_interface__`; TypeError otherwise."""
    if not has_array_interface(obj):
        raise TypeError(f"{type(obj).__name__} is not a device array (it has no __acl_array_interface__)")
    d = obj.__acl_array_interface__
    shape = d.get("shape")
    strides = d.get("strides")
    return ArrayRef(int(d["data"][0]), np.dtype(d["typestr"]), None if shape is None else tuple(shape),
                    None if strides is None else tuple(strides))


@dataclass(frozen=True)
class Verdict:
    """Where an access lands. `kind`: "ok", "padding" (past the requested size, inside the reserved
    bytes), "other" (inside another live allocation than the pointer's) — none of which fault — or
    the fault kinds "null", "host", "freed", "never", "misaligned", "past-end", "before", "outside"."""

    kind: str
    text: str = ""
    alloc: Allocation | None = None

    @property
    def faults(self) -> bool:
        return self.kind not in _NO_FAULT


@dataclass(frozen=True)
class Span:
    """The bytes of a legal contiguous access: `buf[off : off + nbytes]`, over one or more allocations."""

    addr: int
    buf: np.ndarray  # uint8
    off: int
    allocs: tuple[Allocation, ...]  # the live allocations it covers, in address order


class GlobalMemory:
    """Device memory as one launch of a kernel engine sees it."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self.bus = rt.bus
        self._device_views: dict[tuple[int, np.dtype], tuple[np.ndarray, int]] = {}
        self.hardware = oob_mode() == "hardware"

    # -- resolving and viewing -----------------------------------------------------------------
    def _heap(self, addr: int) -> DeviceHeap | None:
        """The heap of the device whose address range holds `addr` (None: host address, no such device)."""
        d = device_of(addr)
        devs = self.rt.devices
        return devs[d].heap if d is not None and d < len(devs) else None

    def find(self, addr: int) -> Allocation | None:
        d = device_of(addr)
        devs = self.rt.devices
        heap = devs[d].heap if d is not None and d < len(devs) else None
        return heap.find(addr) if heap is not None else None

    def view(self, alloc: Allocation, dtype: np.dtype, offset: int = 0) -> np.ndarray:
        """`dtype` elements from byte `offset` (>= 0, a multiple of the itemsize) of `alloc` to its reserved end."""
        views = alloc.views  # kept on the allocation: launches of the same buffers reuse them
        if views is None:
            views = alloc.views = {}
        key = (dtype, offset)
        v = views.get(key)
        if v is None:
            n = (alloc.alloc_size - offset) // dtype.itemsize
            v = views[key] = np.ndarray((n,), dtype, buffer=alloc.backing, offset=alloc.offset + offset)
        return v

    def allocations(self) -> list[Allocation]:
        """Every live allocation of every device, in address order (native kernels reach device memory
        through device addresses: the pages under these are opened to them, and --check bounds accesses)."""
        return [a for dev in self.rt.devices if dev.heap is not None for a in dev.heap.live()]

    def device_view(self, addr: int, dtype: np.dtype) -> tuple[np.ndarray, int]:
        """(typed view of the whole memory of `addr`'s device, the address of its element 0)."""
        heap = self._heap(addr)
        if heap is None:
            raise ValueError(f"{addr:#x} is not on a device with memory")
        key = (heap.device_id, dtype)
        hit = self._device_views.get(key)
        if hit is None:
            hit = self._device_views[key] = (
                np.ndarray((heap.capacity // dtype.itemsize,), dtype, buffer=heap.bytes), heap.base)
        return hit

    # -- the bounds rule -----------------------------------------------------------------------
    def check(self, addr: int, nbytes: int, origin: int | None = None, dtype: np.dtype | None = None) -> Verdict:
        """Classify an access of `nbytes` at `addr` made through the pointer `origin` (default: addr)."""
        origin = addr if origin is None else origin
        bad = self._bad_pointer(origin)
        if bad is not None:
            return self._stray(bad, origin, addr, nbytes)
        heap = self._heap(origin)
        assert heap is not None  # _bad_pointer checked it
        own = heap.find(origin)
        pieces = self._covering(heap, addr, nbytes) if device_of(addr) == heap.device_id else None
        if pieces is not None:
            isz = dtype.itemsize if dtype is not None else 1
            if addr % isz:
                return Verdict("misaligned", f"not aligned to the {isz}-byte size of {dtype}", pieces[0])
            a = pieces[0]
            if len(pieces) > 1 or a is not own:
                return Verdict("other", "", a)
            return Verdict("padding" if addr + nbytes > a.start + a.size else "ok", "", a)
        before, after = heap.neighbours(addr)  # on the pointer's device, wherever the address strayed
        if before is not None:
            v = Verdict("past-end", _past(before, addr, nbytes), before)
        elif after is not None:
            v = Verdict("before", f"{after.start - addr} bytes before the allocation at {after.start:#x} "
                                  f"({after.size} bytes requested, {after.alloc_size} reserved)", after)
        else:
            v = Verdict("outside", "outside every live device allocation")
        return self._stray(v, origin, addr, nbytes)

    def _stray(self, fault: Verdict, origin: int, addr: int, nbytes: int) -> Verdict:
        """In the hardware out-of-bounds mode, a faulting access inside mapped memory proceeds ("mapped", its
        allocation the one the pointer lies in or behind); otherwise the fault."""
        if not self.hardware or fault.kind in ("null", "host", "misaligned", "freed") or device_of(addr) != device_of(origin):
            return fault
        heap = self._heap(origin)
        if heap is None or not covered(heap, np.array([origin, addr], np.int64), (1, nbytes)).all():
            return fault
        own = heap.find(origin) or heap.neighbours(origin)[0]
        oob.STRAYS.note(f"{nbytes} bytes at GM {addr:#x}: {fault.text}")
        return Verdict("mapped", fault.text, own)

    def _bad_pointer(self, origin: int) -> Verdict | None:
        """Why a kernel's pointer itself is not device memory, if it is not."""
        if origin == 0:
            return Verdict("null", "the pointer is NULL (0)")
        d = device_of(origin)
        if d is None:
            return Verdict("host", f"the pointer {origin:#x} is not device memory "
                                   "(pass an acl.rt.malloc address or a DeviceArray)")
        heap = self._heap(origin)
        if heap is None:
            return Verdict("never", f"the pointer {origin:#x} is not inside any live allocation "
                                    f"(never allocated: device {d} has no memory in use)")
        if heap.find(origin) is not None:
            return None
        f = heap.freed_at(origin)
        if f is not None:
            return Verdict("freed", f"the pointer {origin:#x} is not inside any live allocation (freed: it was "
                                    f"{origin - f.start} bytes into the {f.size}-byte allocation at {f.start:#x})", f)
        return Verdict("never", f"the pointer {origin:#x} is not inside any live allocation (never allocated, "
                                f"or freed more than {FREED_RECORD} frees ago)")

    @staticmethod
    def _covering(heap: DeviceHeap, addr: int, nbytes: int) -> tuple[Allocation, ...] | None:
        """The live allocations whose reserved bytes cover [addr, addr + nbytes) without a gap, or None."""
        a = heap.find(addr)
        if a is None:
            return None
        if addr + nbytes <= a.end:
            return (a,)
        pieces = [a]
        while pieces[-1].end < addr + nbytes:
            nxt = heap.find(pieces[-1].end)
            if nxt is None:
                return None
            pieces.append(nxt)
        return tuple(pieces)

    def inside(self, addrs: np.ndarray, nbytes: int) -> np.ndarray:
        """The bounds rule for many int64 element addresses on one device: which lie in a live allocation."""
        heap = self._heap(int(addrs[0])) if addrs.shape[0] else None
        if heap is None:
            return np.zeros(addrs.shape[0], bool)
        s, e = heap.starts_array()
        if not s.shape[0]:
            return np.zeros(addrs.shape[0], bool)
        starts, ends = s.astype(np.int64), e.astype(np.int64)
        j = np.searchsorted(starts, addrs, side="right") - 1
        ok = (j >= 0) & (addrs + nbytes <= ends[np.maximum(j, 0)])
        if self.hardware and not ok.all():
            stray = ~ok & covered(heap, addrs, nbytes) & (addrs % nbytes == 0)
            if stray.any():
                self.check(int(addrs[np.argmax(stray)]), nbytes)  # lists the first of them, with its line
                ok |= stray
        return ok

    def span(self, addr: int, nbytes: int, origin: int | None = None) -> Span | Verdict:
        """The bytes of a contiguous access when the bounds rule allows it, else the faulting Verdict."""
        heap = self._heap(addr)
        pieces = self._covering(heap, addr, nbytes) if heap is not None else None
        if pieces is None or self._bad_pointer(addr if origin is None else origin) is not None:
            v = self.check(addr, nbytes, origin)
            if v.kind != "mapped" or heap is None:
                return v
            return Span(addr, np.ndarray((heap.capacity,), _U8, buffer=heap.bytes), addr - heap.base, (v.alloc,))
        if len(pieces) == 1:
            a = pieces[0]
            return Span(addr, self.view(a, _U8), addr - a.start, pieces)
        return Span(addr, np.ndarray((heap.capacity,), _U8, buffer=heap.bytes), addr - heap.base, pieces)

    # -- observers -----------------------------------------------------------------------------
    def observed(self) -> bool:
        """Whether any observer wants kernel accesses (engines then call the emit methods)."""
        return bool(self.bus.observers) and self.bus.wants("kernel_access")

    def emit(self, task: Any, alloc: Allocation, write: bool, lo: int, hi: int, itemsize: int, **kw: Any) -> None:
        """One KernelAccess in `alloc`: bytes [lo, hi) from its start (kw: offsets, lanes, core, line, api, ...)."""
        self.bus.emit("kernel_access", KernelAccess(task, alloc, write, lo, hi, itemsize, **kw))

    def emit_sync(self, task: Any, core: int, epoch: int, clock: dict) -> None:
        """A core of the running kernel `task` entered `epoch` knowing `clock` (see KernelSync)."""
        self.bus.emit("kernel_sync", KernelSync(task, core, epoch, clock))

    def emit_scattered(self, task: Any, addrs: np.ndarray, itemsize: int, write: bool,
                       lanes: np.ndarray | None = None, **kw: Any) -> None:
        """KernelAccesses for element addresses that the bounds rule allowed, one per allocation they fall in."""
        heap = self._heap(int(addrs[0]))
        s, _ = heap.starts_array()
        j = np.searchsorted(s.astype(np.int64), addrs, side="right") - 1
        live = heap.live()
        for jj in np.unique(j):
            alloc = live[jj]
            sel = j == jj
            off = addrs[sel] - alloc.start
            self.emit(task, alloc, write, int(off.min()), int(off.max()) + itemsize, itemsize, offsets=off,
                      lanes=None if lanes is None else lanes[sel], **kw)

    def emit_span(self, task: Any, span: Span, write: bool, lo: int, hi: int, itemsize: int,
                  offsets: np.ndarray | None = None, **kw: Any) -> None:
        """KernelAccesses for bytes [lo, hi) (or the elements at `offsets`) counted from `span.addr`."""
        if len(span.allocs) == 1:
            base = span.addr - span.allocs[0].start
            self.emit(task, span.allocs[0], write, base + lo, base + hi, itemsize,
                      offsets=None if offsets is None else offsets + base, **kw)
            return
        if offsets is None:
            offsets = np.arange(lo, hi, itemsize, dtype=np.int64)
        self.emit_scattered(task, span.addr + offsets, itemsize, write, **kw)


_U8 = np.dtype(np.uint8)


def _past(a: Allocation, addr: int, nbytes: int) -> str:
    """An access beyond the reserved end of `a`: measured from the bytes the program requested, then placed
    against the end of what the runtime reserved (requested + padding)."""
    end, req_end = a.end, a.start + a.size
    if addr == end:
        where = "exactly at the end of"
    elif addr > end:
        where = f"{addr - end} bytes past the end of"
    else:
        where = f"its {nbytes}-byte access runs {addr + nbytes - end} bytes over the end of"
    head = (f"{addr - req_end} bytes past the {a.size} bytes requested" if addr >= req_end
            else f"byte {addr - a.start} of the {a.size} bytes requested")
    return f"{head} for the allocation at {a.start:#x} ({where} the {a.alloc_size} bytes the runtime reserved)"


__all__ = ["ARRAY_INTERFACE_VERSION", "ArrayRef", "GlobalMemory", "Span", "Verdict", "address_of", "array_interface",
           "array_of", "has_array_interface"]

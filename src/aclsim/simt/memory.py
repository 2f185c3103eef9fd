"""Loads, stores and atomics of a running kernel: global memory through `Ptr` parameters, shared memory.

Memory safety is always on: every access is checked against the live device allocations. An
element inside the pointer's own allocation is the fast path (a typed numpy view; a contiguous
index range is a slice). Anything else is classified against every live allocation of the device:
another live allocation is accessed (hardware would not fault; the sanitizer reports it), an
address outside all of them, or misaligned for its type, faults the launch with a KernelFault
naming the kernel, block, thread, index, address and source line.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..runtime.memory import DEVICE_BASE, DEVICE_STRIDE
from ..runtime.observe import KernelAccess
from ..runtime.work import KernelFault
from .atomics import as_values, serial_apply
from .ctype import cast
from .ops import ND, Idx, binop, mask_array, val

_CLIP = 1 << 50  # indices beyond this are out of every allocation anyway; keeps address maths in int64


class PtrArg:
    """A pointer parameter resolved at launch: its allocation and typed views of it."""

    __slots__ = ("addr", "alloc", "copy", "dtype", "full", "isz", "n_hi", "n_lo", "name", "view")

    def __init__(self, rt: Any, name: str, addr: int, dtype: np.dtype) -> None:
        self.name, self.addr, self.dtype, self.isz = name, addr, dtype, dtype.itemsize
        self.alloc = rt.find_allocation(addr)
        self.copy = False  # set when the kernel also writes this allocation: loads must not alias
        a = self.alloc
        if a is None or addr % self.isz:
            # Not device memory, or misaligned for its element type: every access takes the checked path.
            self.n_lo = self.n_hi = 0
            self.full = self.view = np.empty(0, dtype)
            return
        views = _VIEWS.get(a)
        if views is None:
            views = _VIEWS[a] = {}
        hit = views.get((addr, dtype))
        if hit is None:
            off = addr - a.start
            n_lo, n_hi = off // self.isz, (a.end - addr) // self.isz
            full = np.ndarray((n_lo + n_hi,), dtype, buffer=a.data, offset=off - n_lo * self.isz)
            hit = views[(addr, dtype)] = (n_lo, n_hi, full, full[n_lo:])
        self.n_lo, self.n_hi, self.full, self.view = hit


# Typed views of each live allocation, built once per (address, dtype): launches reuse them.
_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class SharedArr:
    """A `simt.shared.array`: one copy per block of the chunk being run, shape (blocks, size)."""

    __slots__ = ("data", "dtype", "name", "shape", "size")

    def __init__(self, name: str, shape: tuple[int, ...], dtype: np.dtype, blocks: int) -> None:
        self.name, self.shape, self.dtype = name, shape, dtype
        self.size = int(np.prod(shape))
        self.data = np.zeros((blocks, self.size), dtype)


# ---------------------------------------------------------------------------- index handling
def _active(C: Any, idx: Any, m: Any, line: int, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    """int64 indices of the active lanes, and the mask array (None when every lane is active)."""
    v = val(idx)
    ma = None if m is True else mask_array(C.N, m)
    if type(v) is ND:
        if v.dtype.kind not in "iub":
            raise _type_fault(C, line, what, v.dtype)
        ia = v if ma is None else v[ma]
        if ia.dtype.kind == "u" and ia.dtype.itemsize == 8:
            ia = np.minimum(ia, _CLIP)
        return ia.astype(np.int64, copy=False), ma
    if isinstance(v, float) or (isinstance(v, np.generic) and v.dtype.kind == "f"):
        raise _type_fault(C, line, what, np.dtype(type(v)) if isinstance(v, float) else v.dtype)
    n = C.N if ma is None else int(np.count_nonzero(ma))
    return np.full(n, min(int(v), _CLIP), np.int64), ma


def _type_fault(C: Any, line: int, what: str, dt: Any) -> TypeError:
    return TypeError(f"the index in {what} must be an integer, got {dt}")


def _lanes(C: Any, ma: np.ndarray | None, n: int) -> np.ndarray:
    """Global lane ids of the active lanes."""
    return C.lane0 + (np.arange(n, dtype=np.int64) if ma is None else np.flatnonzero(ma))


def _locate(
    C: Any, P: PtrArg, ia: np.ndarray, ma: np.ndarray | None, line: int, api: str, write: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(typed array, element positions) for elements P[ia]; faults on an illegal address."""
    if ia.shape[0] == 0:
        return P.view, ia
    lo, hi = int(ia.min()), int(ia.max())
    if -P.n_lo <= lo and hi < P.n_hi:
        if C.observe:
            _emit(C, P.alloc, (P.addr - P.alloc.start) + ia * P.isz, _lanes(C, ma, ia.shape[0]), P.isz, line, api, write)
        return (P.view, ia) if lo >= 0 else (P.full, ia + P.n_lo)
    return _locate_any(C, P, ia, ma, line, api, write)


def _locate_any(
    C: Any, P: PtrArg, ia: np.ndarray, ma: np.ndarray | None, line: int, api: str, write: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The checked path: classify every address against all live allocations of the device."""
    addr = P.addr + np.clip(ia, -_CLIP, _CLIP) * P.isz
    heap = _heap_of(C, P.addr)
    if heap is None:
        inside = np.zeros(ia.shape[0], bool)
        starts = ends = np.zeros(0, np.int64)
        j = np.full(ia.shape[0], -1)
    else:
        s, e = heap.starts_array()
        starts, ends = s.astype(np.int64), e.astype(np.int64)
        j = np.searchsorted(starts, addr, side="right") - 1
        jc = np.maximum(j, 0)
        inside = (j >= 0) & (addr + P.isz <= ends[jc]) if starts.shape[0] else np.zeros(ia.shape[0], bool)
    bad = ~inside | (addr % P.isz != 0)
    if bad.any():
        first = int(np.argmax(bad))
        lane = int(_lanes(C, ma, ia.shape[0])[first])
        a = int(addr[first])
        reason = _why(C, a, P, starts, ends, bool(inside[first]))
        raise KernelFault(
            f"kernel '{C.name}': illegal address {a:#x} in {api} {P.name}[{int(ia[first])}] by "
            f"{C.describe(lane)} at {C.where(line)}: {reason}"
        )
    if C.observe:
        lanes = _lanes(C, ma, ia.shape[0])
        for jj in np.unique(j):
            alloc = heap.find(int(starts[jj]))
            sel = j == jj
            _emit(C, alloc, addr[sel] - alloc.start, lanes[sel], P.isz, line, api, write)
    return C.heap_view(heap, P.dtype), (addr - heap.base) // P.isz


def _heap_of(C: Any, addr: int) -> Any:
    if addr < DEVICE_BASE:
        return None
    d = (addr - DEVICE_BASE) // DEVICE_STRIDE
    devs = C.rt.devices
    return devs[d].heap if d < len(devs) else None


def _why(C: Any, a: int, P: PtrArg, starts: np.ndarray, ends: np.ndarray, inside: bool) -> str:
    """Where a faulting address lies relative to the allocations around it."""
    if inside:
        return f"not aligned to the {P.isz}-byte size of {P.dtype}"
    if P.addr == 0:
        return "the pointer is NULL (0)"
    if P.addr < DEVICE_BASE:
        return f"the pointer {P.addr:#x} is not device memory (pass an acl.rt.malloc address or a DeviceArray)"
    if P.alloc is None:
        return f"the pointer {P.addr:#x} is not inside any live allocation (freed, or never allocated)"
    i = int(np.searchsorted(starts, a, side="right")) - 1
    if i >= 0 and a + P.isz > ends[i]:
        return _past(C, a, P.isz, int(starts[i]))
    nxt = int(starts[i + 1]) if i + 1 < len(starts) else None
    if nxt is not None and a < nxt:
        return f"{nxt - a} bytes before the allocation at {nxt:#x} ({_alloc_desc(C, nxt)})"
    return "outside every live device allocation"


def _past(C: Any, a: int, isz: int, start: int) -> str:
    """An access beyond the allocation at `start`: measured from the bytes the program requested,
    then placed against the end of what the runtime reserved (requested + padding)."""
    alloc = C.rt.find_allocation(start)
    if alloc is None:
        return f"past the end of the allocation at {start:#x} (freed)"
    end = alloc.end
    if a == end:
        where = "exactly at the end of"
    elif a > end:
        where = f"{a - end} bytes past the end of"
    else:
        where = f"its {isz}-byte element runs over the end of"
    return (f"{a - alloc.start - alloc.size} bytes past the {alloc.size} bytes requested for the allocation at "
            f"{start:#x} ({where} the {alloc.alloc_size} bytes the runtime reserved)")


def _alloc_desc(C: Any, start: int) -> str:
    a = C.rt.find_allocation(start)
    return f"{a.size} bytes requested, {a.alloc_size} reserved" if a is not None else "freed"


def _emit(C: Any, alloc: Any, offsets: np.ndarray, lanes: np.ndarray, isz: int, line: int, api: str, write: bool) -> None:
    offsets = np.asarray(offsets, np.int64)
    C.rt.bus.emit("kernel_access", KernelAccess(
        task=C.task, alloc=alloc, write=write, lo=int(offsets.min()), hi=int(offsets.max()) + isz, itemsize=isz,
        offsets=offsets, lanes=np.asarray(lanes, np.int64), line=line, api=api, describe=C.describe,
        atomic=api.startswith("atomic"),
    ))


# ---------------------------------------------------------------------------- global memory
def _ramp_range(C: Any, P: PtrArg, idx: Idx, m: Any) -> tuple[int, int, int, int, int] | None:
    """(first lane, end lane, first element, last element, stride) of a contiguous access, if in bounds."""
    if not (m is True or type(m) is slice):
        return None
    r = C.ramp(idx)
    if r is None:
        return None
    k, lo = r
    a, b = (0, C.N) if m is True else (m.start, m.stop)
    first, last = lo + k * a, lo + k * (b - 1)
    if first < 0 or last >= P.n_hi:
        return None
    if C.observe and (k != 1 or P.addr - P.alloc.start + (last + 1) * P.isz > P.alloc.size):
        return None  # observers get every element of strided accesses and of any past the requested size
    return a, b, first, last, k


def _emit_ramp(C: Any, P: PtrArg, a: int, b: int, first: int, last: int, line: int, api: str, write: bool) -> None:
    """Report a contiguous in-bounds access as one byte range (lanes a..b-1 of the chunk, in order)."""
    off = P.addr - P.alloc.start
    C.rt.bus.emit("kernel_access", KernelAccess(
        task=C.task, alloc=P.alloc, write=write, lo=off + first * P.isz, hi=off + (last + 1) * P.isz, itemsize=P.isz,
        lanes=range(C.lane0 + a, C.lane0 + b), line=line, api=api, describe=C.describe,
    ))


def load(C: Any, P: Any, idx: Any, m: Any, line: int) -> Any:
    """The value of P[idx] in every active lane (inactive lanes read 0)."""
    if type(P) is SharedArr:
        return shared_load(C, P, idx, m, line)
    P = _ptr(C, P, line)
    if type(idx) is Idx:
        r = _ramp_range(C, P, idx, m)
        if r is not None:
            a, b, first, last, k = r
            if C.observe:
                _emit_ramp(C, P, a, b, first, last, line, "load", False)
            v = P.view[first : last + 1 : k]
            C.bytes_read += (b - a) * P.isz
            if m is True:
                return v.copy() if P.copy else v
            out = np.zeros(C.N, P.dtype)
            out[a:b] = v
            return out
    v = val(idx)
    if type(v) is not ND and not C.observe and isinstance(v, (int, np.integer)) and -P.n_lo <= v < P.n_hi:
        C.bytes_read += P.isz
        return P.full[int(v) + P.n_lo]  # one element every lane reads
    if type(v) is ND and not C.observe and v.dtype.kind in "iu" and v.dtype.itemsize <= 4:
        lo, hi = int(v.min()), int(v.max())
        if lo >= 0 and hi < P.n_hi:
            # Every lane's index is inside the allocation: gather for all lanes instead of selecting the
            # active ones (inactive lanes' values are never used), which saves two passes.
            n = C.N if m is True else int(np.count_nonzero(mask_array(C.N, m)))
            C.bytes_read += n * P.isz
            return P.view[v]
    ia, ma = _active(C, v, m, line, f"load {P.name}[...]")
    arr, k = _locate(C, P, ia, ma, line, "load", False)
    got = arr[k]
    C.bytes_read += got.nbytes
    if ma is None:
        return got
    out = np.zeros(C.N, P.dtype)
    out[ma] = got
    return out


def store(C: Any, P: Any, idx: Any, value: Any, m: Any, line: int) -> None:
    """P[idx] = value in every active lane."""
    if type(P) is SharedArr:
        return shared_store(C, P, idx, value, m, line)
    P = _ptr(C, P, line)
    v = cast(val(value), P.dtype)
    if type(idx) is Idx:
        r = _ramp_range(C, P, idx, m)
        if r is not None:
            a, b, first, last, k = r
            if C.observe:
                _emit_ramp(C, P, a, b, first, last, line, "store", True)
            P.view[first : last + 1 : k] = v[a:b] if type(v) is ND else v
            C.bytes_written += (b - a) * P.isz
            return None
    ia, ma = _active(C, idx, m, line, f"store {P.name}[...]")
    arr, k = _locate(C, P, ia, ma, line, "store", True)
    if type(v) is ND and ma is not None:
        v = v[ma]
    arr[k] = v
    C.bytes_written += k.shape[0] * P.isz
    return None


_FUSED = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _fusable(v: Any, dt: np.dtype) -> bool:
    t = type(v)
    return (t is ND and v.dtype is dt) or t is float or t is int or (isinstance(v, np.generic) and v.dtype == dt)


def store_binop(C: Any, P: Any, idx: Any, op: str, a: Any, b: Any, m: Any, line: int) -> None:
    """P[idx] = a <op> b; a contiguous float store is computed straight into device memory (no temporary)."""
    if type(P) is PtrArg and type(idx) is Idx and op in _FUSED and P.dtype.kind == "f" \
            and _fusable(a, P.dtype) and _fusable(b, P.dtype):
        r = _ramp_range(C, P, idx, m)
        if r is not None:
            lo, hi, first, last, k = r
            if C.observe:
                _emit_ramp(C, P, lo, hi, first, last, line, "store", True)
            # numpy resolves any overlap between the operands and the output itself.
            _FUSED[op](a[lo:hi] if type(a) is ND else a, b[lo:hi] if type(b) is ND else b,
                       out=P.view[first : last + 1 : k])
            C.bytes_written += (hi - lo) * P.isz
            return
    store(C, P, idx, binop(op, a, b), m, line)


def atomic(C: Any, op: str, P: Any, idx: Any, value: Any, m: Any, line: int, compare: Any = None) -> Any:
    """Atomic op on P[idx] per active lane, serialized in lane order; returns the old values."""
    api = f"atomic_{op}"
    if type(P) is SharedArr:
        idx = _shared_index(C, P, idx, line)
    ia, ma = _active(C, idx, m, line, f"{api}({_name(P)}, ...)")
    if type(P) is SharedArr:
        arr, k = P.data.reshape(-1), _shared_flat(C, P, ia, ma, line, api)
    else:
        P = _ptr(C, P, line)
        arr, k = _locate(C, P, ia, ma, line, api, True)
    n = k.shape[0]
    v = cast(val(value), arr.dtype)
    v = as_values(v if type(v) is not ND or ma is None else v[ma], n, arr.dtype)
    cmp = None
    if op == "cas":
        c = cast(val(compare), arr.dtype)
        cmp = as_values(c if type(c) is not ND or ma is None else c[ma], n, arr.dtype)
    old = serial_apply(arr, k, v, op, cmp)
    if type(P) is PtrArg:
        C.bytes_read += n * P.isz
        C.bytes_written += n * P.isz
    if ma is None:
        return old
    out = np.zeros(C.N, arr.dtype)
    out[ma] = old
    return out


def _name(P: Any) -> str:
    return getattr(P, "name", "?")


def _ptr(C: Any, P: Any, line: int) -> PtrArg:
    if type(P) is not PtrArg:
        raise TypeError(f"only a simt.Ptr parameter or a shared array can be indexed, not {type(P).__name__}")
    return P


# ---------------------------------------------------------------------------- shared memory
def _shared_index(C: Any, S: SharedArr, idx: Any, line: int) -> Any:
    """A flat element index from a (possibly multi-dimensional) shared-array index."""
    if type(idx) is not tuple:
        return idx
    if len(idx) != len(S.shape):
        raise TypeError(f"shared array '{S.name}' has {len(S.shape)} dimension(s), "
                        f"indexed with {len(idx)}")
    flat: Any = 0
    for i, n in zip(idx, S.shape, strict=False):
        flat = np.multiply(flat, n, dtype=np.int64) + np.asarray(val(i)).astype(np.int64)
    return flat


def _shared_flat(C: Any, S: SharedArr, ia: np.ndarray, ma: np.ndarray | None, line: int, api: str) -> np.ndarray:
    if ia.shape[0] and (int(ia.min()) < 0 or int(ia.max()) >= S.size):
        bad = (ia < 0) | (ia >= S.size)
        first = int(np.argmax(bad))
        lane = int(_lanes(C, ma, ia.shape[0])[first])
        raise KernelFault(
            f"kernel '{C.name}': shared memory index {int(ia[first])} out of range in {api} {S.name}[...] "
            f"(shared array of {S.size} x {S.dtype}) by {C.describe(lane)} at {C.where(line)}"
        )
    blk = C.lane_block() if ma is None else C.lane_block()[ma]
    return blk * S.size + ia


def _shared_cols(C: Any, S: SharedArr, idx: Any, m: Any) -> int | None:
    """Column offset c when idx == threadIdx.x + c in a 1-D block and every lane is active."""
    if m is not True or type(idx) is not Idx:
        return None
    c = C.thread_offset(idx)
    if c is None or c + C.bdx > S.size:
        return None
    return c


def shared_load(C: Any, S: SharedArr, idx: Any, m: Any, line: int) -> Any:
    c = _shared_cols(C, S, idx, m)
    if c is not None:
        return S.data[:, c : c + C.bdx].flatten()
    ia, ma = _active(C, _shared_index(C, S, idx, line), m, line, f"load {S.name}[...]")
    got = S.data.reshape(-1)[_shared_flat(C, S, ia, ma, line, "load")]
    if ma is None:
        return got
    out = np.zeros(C.N, S.dtype)
    out[ma] = got
    return out


def shared_store(C: Any, S: SharedArr, idx: Any, value: Any, m: Any, line: int) -> None:
    v = cast(val(value), S.dtype)
    c = _shared_cols(C, S, idx, m)
    if c is not None:
        S.data[:, c : c + C.bdx] = v.reshape(S.data.shape[0], C.bdx) if type(v) is ND else v
        return
    ia, ma = _active(C, _shared_index(C, S, idx, line), m, line, f"store {S.name}[...]")
    k = _shared_flat(C, S, ia, ma, line, "store")
    if type(v) is ND and ma is not None:
        v = v[ma]
    S.data.reshape(-1)[k] = v

"""Loads, stores and atomics of a running kernel: global memory through `Ptr` parameters, shared memory.

Memory safety is always on. Global memory is reached only through the launch's door
(`runtime.gm.GlobalMemory`, `C.gm`), which applies the one bounds rule of every engine: an
element inside the pointer's own allocation is the fast path (a typed view; a contiguous index
range is a slice); anything else is classified by the door: inside another live allocation is
legal (hardware would not fault), anything else faults the launch with a KernelFault naming the
kernel, block, thread, index, address, source line and the door's reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.gm import GlobalMemory
from ..runtime.work import KernelFault
from .atomics import as_values, serial_apply
from .ctype import cast
from .ops import ND, Idx, binop, mask_array, val

_CLIP = 1 << 50  # indices beyond this are out of every allocation anyway; keeps address maths in int64


class PtrArg:
    """A pointer parameter resolved at launch: its allocation and typed views of it."""

    __slots__ = ("addr", "alloc", "array", "copy", "dtype", "fields", "full", "gm", "isz", "n_hi", "n_lo", "name", "view")

    def __init__(self, gm: GlobalMemory, name: str, addr: int, dtype: np.dtype) -> None:
        self.name, self.addr, self.dtype, self.isz = name, addr, dtype, dtype.itemsize
        self.gm = gm
        self.fields: dict[str, PtrArg] | None = None  # records: a typed pointer per field (field())
        self.array: Any = None  # the device-array parameter built on this pointer (arrays.make_array)
        self.alloc = a = gm.find(addr)
        self.copy = False  # set when the kernel also writes this allocation: loads must not alias
        if a is None or addr % self.isz:
            # Not device memory, or misaligned for its element type: every access takes the checked path.
            self.n_lo = self.n_hi = 0
            self.full = self.view = np.empty(0, dtype)
            return
        off = addr - a.start
        self.full = gm.view(a, dtype)
        self.view = gm.view(a, dtype, off)
        self.n_lo, self.n_hi = off // self.isz, self.view.shape[0]


    def field(self, name: str) -> PtrArg:
        """A pointer to field `name` of the records this pointer points to, typed as the field's elements."""
        if self.fields is None:
            self.fields = {}
        p = self.fields.get(name)
        if p is None:
            fdt, off = self.dtype.fields[name][:2]
            p = self.fields[name] = PtrArg(self.gm, f"{self.name}.{name}", self.addr + off, fdt.base)
            p.copy = self.copy
        return p


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
            off = (P.addr - P.alloc.start) + ia * P.isz
            C.gm.emit(C.task, P.alloc, write, int(off.min()), int(off.max()) + P.isz, P.isz, offsets=off,
                      lanes=_lanes(C, ma, ia.shape[0]), line=line, api=api, describe=C.describe,
                      atomic=api.startswith("atomic"))
        return (P.view, ia) if lo >= 0 else (P.full, ia + P.n_lo)
    return _locate_any(C, P, ia, ma, line, api, write)


def _locate_any(
    C: Any, P: PtrArg, ia: np.ndarray, ma: np.ndarray | None, line: int, api: str, write: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The checked path: the door places every element address; the first bad one faults the launch."""
    addr = P.addr + np.clip(ia, -_CLIP, _CLIP) * P.isz
    inside = C.gm.inside(addr, P.isz)
    bad = ~inside | (addr % P.isz != 0)
    if bad.any():
        first = int(np.argmax(bad))
        lane = int(_lanes(C, ma, ia.shape[0])[first])
        a = int(addr[first])
        reason = C.gm.check(a, P.isz, P.addr, P.dtype).text
        raise KernelFault(
            f"kernel '{C.name}': illegal address {a:#x} in {api} {P.name}[{int(ia[first])}] by "
            f"{C.describe(lane)} at {C.where(line)}: {reason}"
        )
    if C.observe:
        C.gm.emit_scattered(C.task, addr, P.isz, write, _lanes(C, ma, ia.shape[0]), line=line, api=api,
                            describe=C.describe, atomic=api.startswith("atomic"))
    arr, base = C.gm.device_view(P.addr, P.dtype)
    return arr, (addr - base) // P.isz


# ---------------------------------------------------------------------------- global memory
def _ramp_range(C: Any, P: PtrArg, idx: Idx, m: Any) -> tuple[int, int, int, int, int] | None:
    """(first lane, end lane, first element, last element, stride) of a contiguous access, if in bounds.

    Under a bool-array mask the range is every lane of the chunk (each in bounds, active or not) and
    stores must write through the mask; observers then take the per-element path (they are told
    exactly which lanes accessed memory)."""
    if type(m) is ND and C.observe:
        return None
    r = C.ramp(idx)
    if r is None:
        return None
    k, lo = r
    a, b = (m.start, m.stop) if type(m) is slice else (0, C.N)
    first, last = lo + k * a, lo + k * (b - 1)
    if first < 0 or last >= P.n_hi:
        return None
    if C.observe and (k != 1 or P.addr - P.alloc.start + (last + 1) * P.isz > P.alloc.size):
        return None  # observers get every element of strided accesses and of any past the requested size
    return a, b, first, last, k


def _emit_ramp(C: Any, P: PtrArg, a: int, b: int, first: int, last: int, line: int, api: str, write: bool) -> None:
    """Report a contiguous in-bounds access as one byte range (lanes a..b-1 of the chunk, in order)."""
    off = P.addr - P.alloc.start
    C.gm.emit(C.task, P.alloc, write, off + first * P.isz, off + (last + 1) * P.isz, P.isz,
              lanes=range(C.lane0 + a, C.lane0 + b), line=line, api=api, describe=C.describe)


_UNIFORM_INDEX = {int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64}


def load(C: Any, P: Any, idx: Any, m: Any, line: int) -> Any:
    """The value of P[idx] in every active lane (an inactive lane reads 0, or its element when every
    lane's index is in bounds: its value is never used)."""
    if type(idx) in _UNIFORM_INDEX and type(P) is PtrArg and not C.observe:  # one element every lane reads
        k = int(idx)
        if -P.n_lo <= k < P.n_hi:
            C.bytes_read += P.isz
            return P.full[k + P.n_lo]
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
            C.bytes_read += (b - a if type(m) is not ND else int(np.count_nonzero(m))) * P.isz
            if m is True or type(m) is ND:  # (inactive lanes' values are never used)
                return v.copy() if P.copy else v
            out = np.zeros(C.N, P.dtype)
            out[a:b] = v
            return out
        if not C.observe:
            # An affine index over the chunk's box of threads (rows, columns, per-block values): a
            # strided copy, no index array. Observers take the per-element path below.
            box = C.lattice_view(idx, P.view)
            if box is not None:
                C.bytes_read += (C.N if m is True else int(np.count_nonzero(mask_array(C.N, m)))) * P.isz
                return np.array(box, order="C").reshape(C.N)
            if type(m) is slice and m.start % C.tpb == 0 and m.stop % C.tpb == 0:  # whole blocks run
                box = C.lattice_view(idx, P.view, (m.start // C.tpb, m.stop // C.tpb))
                if box is not None:
                    C.bytes_read += (m.stop - m.start) * P.isz
                    out = np.zeros(C.N, P.dtype)
                    out[m] = box.reshape(-1)
                    return out
    v = val(idx)
    if type(v) in _UNIFORM_INDEX and not C.observe:  # (a uniform Idx)
        k = int(v)
        if -P.n_lo <= k < P.n_hi:
            C.bytes_read += P.isz
            return P.full[k + P.n_lo]
    if type(v) is ND and not C.observe and v.dtype.kind in "iu" and v.dtype.itemsize <= 4:
        lo, hi = int(v.min()), int(v.max())
        if lo >= 0 and hi < P.n_hi:
            # Every lane's index is inside the allocation: gather for all lanes instead of selecting the
            # active ones (inactive lanes' values are never used), which saves two passes.
            n = C.N if m is True else int(np.count_nonzero(mask_array(C.N, m)))
            C.bytes_read += n * P.isz
            return P.view[v]
        if m is not True and P.n_hi > 0:
            # Out of range only in inactive lanes (a bounds guard such as `if row < n`): gather for all
            # lanes with indices clamped into the allocation; the clamped lanes' values are never used.
            ma = mask_array(C.N, m)
            if int(np.min(v, where=ma, initial=0)) >= 0 and int(np.max(v, where=ma, initial=0)) < P.n_hi:
                C.bytes_read += int(np.count_nonzero(ma)) * P.isz
                return np.take(P.view, v, mode="clip")
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
            src = v[a:b] if type(v) is ND else v
            if type(m) is ND:
                np.copyto(P.view[first : last + 1 : k], src, where=m)
                C.bytes_written += int(np.count_nonzero(m)) * P.isz
            else:
                P.view[first : last + 1 : k] = src
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
    """Whether `a op b` on v gives dt in C and numpy alike, so it can be computed into dt's memory.
    Integers wrap the same either way (+, - and * commute with wrapping); an integer literal only
    when it fits dt (numpy refuses the others, which C converts), a float literal only with floats."""
    t = type(v)
    if dt.kind not in "iuf":
        return False
    if t is ND:
        return v.dtype is dt
    if t is int:
        return dt.kind == "f" or _INT_RANGE[dt][0] <= v <= _INT_RANGE[dt][1]
    if t is float:
        return dt.kind == "f"
    return isinstance(v, np.generic) and v.dtype == dt


_INT_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}


def store_binop(C: Any, P: Any, idx: Any, op: str, a: Any, b: Any, m: Any, line: int) -> None:
    """P[idx] = a <op> b; a contiguous store (or a shared-memory window) whose operands already have the
    element type is computed straight into memory (no temporary).

    One operand may be a pending (op, x, y) of the same kind (`p[i] = a * x[i] + y[i]`): it is computed
    into the destination first, then combined with the other operand in place, which is exact because
    both steps round to the destination's type, as the two operations would."""
    inner = a if type(a) is tuple else b if type(b) is tuple else None
    if type(P) is SharedArr and inner is None and op in _FUSED and _fusable(a, P.dtype) and _fusable(b, P.dtype):
        w = _shared_window(C, P, idx, m)
        if w is not None and w[3] is None:  # every thread of the window: compute into shared memory
            c, lo, hi, _ = w
            rows = (lambda v: v.reshape(C.nb, C.bdx)[:, lo:hi] if type(v) is ND else v)  # noqa: E731
            _FUSED[op](rows(a), rows(b), out=P.data[:, lo + c : hi + c])
            return
    other = None if inner is None else b if inner is a else a
    operands = (a, b) if inner is None else (inner[1], inner[2], other)
    if type(P) is PtrArg and type(idx) is Idx and op in _FUSED and type(m) is not ND \
            and all(_fusable(v, P.dtype) for v in operands):
        r = _ramp_range(C, P, idx, m)
        if r is not None and not (inner is not None and type(other) is ND and np.may_share_memory(other, P.view)):
            lo, hi, first, last, k = r
            if C.observe:
                _emit_ramp(C, P, lo, hi, first, last, line, "store", True)
            dst = P.view[first : last + 1 : k]
            part = (lambda v: v[lo:hi] if type(v) is ND else v)  # noqa: E731
            if inner is None:  # numpy resolves any overlap between the operands and the output itself
                _FUSED[op](part(a), part(b), out=dst)
            else:
                _FUSED[inner[0]](part(inner[1]), part(inner[2]), out=dst)
                _FUSED[op](*((dst, part(b)) if inner is a else (part(a), dst)), out=dst)
            C.bytes_written += (hi - lo) * P.isz
            return
    store(C, P, idx, binop(op, pending(a), pending(b)), m, line)


def update_in_place(C: Any, P: Any, idx: Any, op: str, v: Any, m: Any) -> bool:
    """P[idx] op= v computed in memory (one pass, no copy of the old values) when the access is a slice
    of device memory or a window of shared memory, v needs no conversion and no observer watches;
    False when the caller must load, compute and store."""
    if op not in _FUSED or C.observe or type(idx) is not Idx or not _fusable(v, P.dtype):
        return False
    if type(P) is SharedArr:
        w = _shared_window(C, P, idx, m)
        if w is None:
            return False
        c, lo, hi, rows = w
        dst = P.data[:, lo + c : hi + c]
        src = v.reshape(C.nb, C.bdx)[:, lo:hi] if type(v) is ND else v
        _FUSED[op](dst, src, out=dst, where=True if rows is None else rows)
        return True
    if type(P) is not PtrArg:
        return False
    r = _ramp_range(C, P, idx, m)
    if r is None:
        return False
    a, b, first, last, k = r
    dst = P.view[first : last + 1 : k]
    n = b - a if type(m) is not ND else int(np.count_nonzero(m))
    _FUSED[op](dst, v[a:b] if type(v) is ND else v, out=dst, where=m if type(m) is ND else True)
    C.bytes_read += n * P.isz
    C.bytes_written += n * P.isz
    return True


def pending(v: Any) -> Any:
    """The value of an operand that may be a pending (op, x, y) of store_binop."""
    return binop(*v) if type(v) is tuple else v


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
def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-ordered array of this shape."""
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def affine_flat(C: Any, shape: tuple[int, ...], strides: tuple[int, ...], idx: Any) -> Any:
    """The element number of a (multi-dimensional) index as a lazy affine index (or an int) when every
    part is a uniform integer or affine in the thread indices and lies inside its dimension in every
    lane of the chunk (the sum then stays below 2^31 for arrays that small); None otherwise."""
    parts = idx if type(idx) is tuple else (idx,)
    if len(parts) != len(shape):
        return None
    flat: Any = 0
    for p, n, st in zip(parts, shape, strides, strict=True):
        r = C.index_range(p)
        if r is None or r[0] < 0 or r[1] >= n:
            return None
        flat = binop("add", flat, binop("mul", p if type(p) is Idx else int(p), st))
    return flat


def _shared_index(C: Any, S: SharedArr, idx: Any, line: int) -> Any:
    """A flat element index from a (possibly multi-dimensional) shared-array index."""
    if type(idx) is not tuple:
        return idx
    if S.size < 1 << 31:
        flat = affine_flat(C, S.shape, c_strides(S.shape), idx)
        if flat is not None:
            return flat
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


def _shared_window(C: Any, S: SharedArr, idx: Any, m: Any) -> tuple[int, int, int, Any] | None:
    """(c, lo, hi, mask rows) when idx == threadIdx.x + c in a 1-D block and every active thread t has
    lo <= t < hi, the threads whose element t + c is inside S: the access is then the column slice
    [lo + c, hi + c) of every block's row. None sends the access to the checked per-lane path (which
    also reports any out-of-range index). Mask rows: None when every thread in [lo, hi) is active."""
    if type(idx) is not Idx or m is False:
        return None
    c = C.thread_offset(idx)
    if c is None:
        return None
    lo, hi = max(0, -c), min(C.bdx, S.size - c)
    if lo >= hi:
        return None
    if m is True:
        return (c, lo, hi, None) if lo == 0 and hi == C.bdx else None
    rows = mask_array(C.N, m).reshape(C.nb, C.bdx)
    if rows[:, :lo].any() or rows[:, hi:].any():
        return None
    return c, lo, hi, rows[:, lo:hi]


def shared_load(C: Any, S: SharedArr, idx: Any, m: Any, line: int) -> Any:
    idx = _shared_index(C, S, idx, line)
    w = _shared_window(C, S, idx, m)
    if w is not None:
        c, lo, hi, _ = w
        if lo == 0 and hi == C.bdx:
            return S.data[:, c : c + C.bdx].flatten()
        out = np.zeros((C.nb, C.bdx), S.dtype)  # inactive lanes' values are never used
        out[:, lo:hi] = S.data[:, lo + c : hi + c]
        return out.reshape(C.N)
    if type(idx) is Idx:  # affine in the thread indices (a[ty, j], a[j, tx], ...): a strided copy
        view = C.shared_view(idx, S.data, False)
        if view is not None:
            return np.array(view, order="C").reshape(C.N)
    ia, ma = _active(C, idx, m, line, f"load {S.name}[...]")
    got = S.data.reshape(-1)[_shared_flat(C, S, ia, ma, line, "load")]
    if ma is None:
        return got
    out = np.zeros(C.N, S.dtype)
    out[ma] = got
    return out


def shared_store(C: Any, S: SharedArr, idx: Any, value: Any, m: Any, line: int) -> None:
    v = cast(val(value), S.dtype)
    idx = _shared_index(C, S, idx, line)
    w = _shared_window(C, S, idx, m)
    if w is not None:
        c, lo, hi, rows = w
        src = v.reshape(C.nb, C.bdx)[:, lo:hi] if type(v) is ND else v
        if rows is None:
            S.data[:, lo + c : hi + c] = src
        else:
            np.copyto(S.data[:, lo + c : hi + c], src, where=rows)
        return
    if type(idx) is Idx and m is not False:  # a different element in every thread: a strided copy
        view = C.shared_view(idx, S.data, True)
        if view is not None:
            src = v.reshape(view.shape) if type(v) is ND else v
            np.copyto(view, src, where=True if m is True else mask_array(C.N, m).reshape(view.shape))
            return
    ia, ma = _active(C, idx, m, line, f"store {S.name}[...]")
    k = _shared_flat(C, S, ia, ma, line, "store")
    if type(v) is ND and ma is not None:
        v = v[ma]
    S.data.reshape(-1)[k] = v

"""Arrays in kernels: device-array parameters (shape and strides over a pointer), per-thread local
arrays (`simt.local.array`) and constant arrays (`simt.const.array_like`).

A device-array parameter is a `PtrArg` plus its shape and element strides: `a[i, j]` checks every
index against its dimension, then loads or stores element `i * strides[0] + j * strides[1]`
through the pointer (whose own checks still apply).

A local array holds one row per lane of the running chunk (shape (lanes, size)); a constant array
is one read-only copy, taken when the kernel is compiled, that every thread reads. Both are
indexed with C-order multi-dimensional indices; an index outside a dimension faults the launch
naming the array, the index tuple, the thread and the line (hardware would read or write some
other thread's memory: never what the program meant).

`load`/`store`/`atomic` here are the helpers compiled kernels call for every subscript: they
handle these arrays and hand pointers and shared arrays on to `memory`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.gm import array_of, has_array_interface
from ..runtime.work import KernelFault
from . import memory
from .atomics import as_values, serial_apply
from .ctype import cast
from .lang import ArrayType, PtrType, SimtError
from .memory import c_strides
from .ops import ND, UNDEF, Idx, assign, binop, mask_array, val


class LocalArr:
    """A `simt.local.array`: C-order elements per thread, one row per lane of the chunk."""

    __slots__ = ("data", "dtype", "name", "shape", "size")

    def __init__(self, name: str, shape: tuple[int, ...], dtype: np.dtype, lanes: int) -> None:
        self.name, self.shape, self.dtype = name, shape, dtype
        self.size = math.prod(shape)
        self.data = np.zeros((lanes, self.size), dtype)


class ConstArr:
    """A `simt.const.array_like(host_array)`: a read-only copy every thread reads."""

    __slots__ = ("data", "dtype", "name", "shape", "size")

    def __init__(self, name: str, host: np.ndarray) -> None:
        self.name, self.shape, self.dtype = name, host.shape, host.dtype
        self.size = host.size
        self.data = np.ascontiguousarray(host).reshape(1, -1).copy()
        self.data.flags.writeable = False


class ArrayArg:
    """A device-array parameter of a running kernel: its pointer, shape and strides (in elements)."""

    __slots__ = ("contiguous", "dtype", "extents", "name", "off", "ptr", "shape", "size", "span", "strides")

    def __init__(self, name: str, ptr: Any, shape: tuple[int, ...], strides: tuple[int, ...], off: Any = None) -> None:
        self.name, self.ptr, self.shape, self.strides = name, ptr, shape, strides
        self.off = off  # elements from the pointer to element [0, ...] (per lane for a row of a row view)
        self.extents: tuple = ()  # the hidden launch values it was made from (make_array)
        self.dtype = ptr.dtype
        if any(type(n) is ND for n in shape):  # a slice whose length differs per thread (a[i:])
            self.size, self.contiguous, self.span = None, False, 1 << 62
            return
        self.size = math.prod(shape)
        self.contiguous = strides == c_strides(shape)
        self.span = sum((n - 1) * abs(st) for n, st in zip(shape, strides, strict=True))  # largest |offset|


def launch_types(declared: dict[str, Any]) -> dict[str, Any]:
    """A kernel's launch parameters: each array parameter becomes a pointer, with its shape and strides
    appended as hidden int64 parameters (in parameter order)."""
    out = {n: PtrType(t.dtype) if isinstance(t, ArrayType) else t for n, t in declared.items()}
    for n, t in declared.items():
        if isinstance(t, ArrayType):
            out.update(t.launch_params(n))
    return out


def expand_args(kname: str, declared: dict[str, Any], args: tuple) -> list[Any]:
    """Launch arguments for launch_types(declared): each device array (any object with the
    `__acl_array_interface__` protocol) is followed by its shape and element strides."""
    extents: list[int] = []
    for (name, t), a in zip(declared.items(), args, strict=True):
        if not isinstance(t, ArrayType):
            continue
        if not has_array_interface(a):
            raise SimtError(f"kernel {kname}: argument '{name}' must be a device array ({t}), got {type(a).__name__}"
                            + ("; copy it to the device first (aclsim.to_device)" if isinstance(a, np.ndarray) else ""))
        ref = array_of(a)
        dtype = _dtype_of(a, ref)
        if ref.shape is None or dtype != t.dtype or len(ref.shape) != t.ndim:
            what = "a pointer without a shape" if ref.shape is None else f"a {len(ref.shape)}-D {dtype} array"
            raise SimtError(f"kernel {kname}: argument '{name}' is {what}; the kernel takes {t}")
        isz = t.dtype.itemsize
        if ref.strides is None:
            strides = c_strides(ref.shape)
        elif any(s % isz for s in ref.strides):
            raise SimtError(f"kernel {kname}: argument '{name}' has byte strides {ref.strides}, "
                            f"not multiples of its {isz}-byte elements")
        else:
            strides = tuple(s // isz for s in ref.strides)
        extents += [*ref.shape, *strides]
    return [*args, *(np.int64(e) for e in extents)]


def _dtype_of(a: Any, ref: Any) -> np.dtype:
    """An array argument's element type: the interface's typestr, or the object's own dtype when that is a
    record type (a typestr such as |V32 does not name the fields)."""
    own = getattr(a, "dtype", None)
    return own if isinstance(own, np.dtype) and own.names is not None and own.itemsize == ref.dtype.itemsize \
        else ref.dtype


def make_array(ptr: Any, extents: tuple[int, ...]) -> ArrayArg:
    """The kernel-side array from its pointer and hidden (shape..., strides...) parameters (built once
    per launch: every chunk gets the same one)."""
    A = ptr.array
    if A is None or A.extents != extents:
        nd = len(extents) // 2
        A = ptr.array = ArrayArg(ptr.name, ptr, tuple(int(e) for e in extents[:nd]),
                                 tuple(int(e) for e in extents[nd:]))
        A.extents = extents
    return A


def tuple_item(t: tuple, idx: Any) -> Any:
    """t[k] of a tuple value: k must be the same integer in every thread (as numba needs a constant)."""
    k = val(idx)
    if type(k) is ND or type(k) is float or type(k) is tuple or (type(k) is not int and k.dtype.kind not in "iub"):
        raise TypeError(f"a tuple of {len(t)} values indexed by {'a per-thread value' if type(k) is ND else k!r}; "
                        "index tuples with an integer constant")
    return t[int(k)]


def unpack(v: Any, n: int) -> tuple:
    """`a, b = v` of a tuple value held in a variable (its length is known only now)."""
    if type(v) is not tuple:
        raise TypeError(f"cannot unpack a {type(val(v)).__name__} into {n} names")
    if len(v) != n:
        raise TypeError(f"cannot unpack a tuple of {len(v)} values into {n} names")
    return v


def length(A: Any) -> Any:
    """len(x) of a tuple or an array (its first dimension)."""
    return len(A) if type(A) is tuple else shape_of(A)[0]


def shape_of(A: Any) -> tuple[Any, ...]:
    """a.shape of any kernel array, as int64 values (numba's intp)."""
    if not hasattr(A, "shape"):
        raise TypeError(f"a {type(A).__name__} has no shape (only arrays do)")
    return tuple(np.int64(n) for n in A.shape)


def size_of(A: Any) -> Any:
    return np.int64(math.prod(int(n) for n in shape_of(A)))


def ndim_of(A: Any) -> int:
    return len(shape_of(A))


def _array_flat(C: Any, A: ArrayArg, idx: Any, m: Any, line: int, what: str) -> Any:
    """The element offset from the pointer of A[idx]; a contiguous 1-D index stays lazy when in bounds."""
    if type(idx) is not tuple and A.contiguous and len(A.shape) == 1 and type(idx) is Idx \
            and (m is True or type(m) is slice):
        r = C.ramp(idx)
        if r is not None:
            k, lo = r
            a, b = (0, C.N) if m is True else (m.start, m.stop)
            if lo + k * (b - 1) < A.shape[0] and lo + k * a >= 0:
                return idx if A.off is None else binop("add", idx, A.off)  # keeps the slice fast path
    if A.off is None and A.span < 1 << 31 and min(A.strides, default=0) >= 0:  # a[row, k], a[x, ty + i * TPB], ...
        flat = memory.affine_flat(C, A.shape, A.strides, idx)
        if flat is not None:
            return flat
    flat = _flat(C, A, idx, m, line, what, A.strides)
    if A.off is not None:
        return binop("add", np.asarray(flat, np.int64), np.asarray(val(A.off), np.int64))
    if type(flat) is ND and A.span < 1 << 31:
        flat = flat.astype(np.int32)  # small indices keep the pointer's gather fast path
    return flat


def subview(C: Any, A: Any, idx: Any, m: Any, line: int) -> ArrayArg:
    """a[i] (or a[i, j] of a 3-D array): the sub-array at those leading indices, in every lane."""
    if type(A) is not ArrayArg:
        raise TypeError(f"'{getattr(A, 'name', '?')}' has no rows (only device-array parameters do)")
    parts = idx if type(idx) is tuple else (idx,)
    k = len(parts)
    if k >= len(A.shape) + (A.dtype.names is not None):  # (a record array's a[i] is one record)
        raise TypeError(f"'{A.name}' has {len(A.shape)} dimension(s): a[...] with {k} indices is an element")
    lead = ArrayArg(A.name, A.ptr, A.shape[:k], A.strides[:k])
    off = _flat(C, lead, idx, m, line, "a row", lead.strides)
    if A.off is not None:
        off = binop("add", np.asarray(off, np.int64), np.asarray(val(A.off), np.int64))
    return ArrayArg(A.name, A.ptr, A.shape[k:], A.strides[k:], off)


def _flat1d(A: Any) -> Any:
    """A local or constant array as a 1-D array over the same elements (what a view's flat index reads)."""
    if len(A.shape) == 1:
        return A
    B = object.__new__(type(A))
    B.name, B.dtype, B.size, B.data, B.shape = A.name, A.dtype, A.size, A.data, (A.size,)
    return B


def _normalize(part: slice, n: int) -> tuple[Any, Any, int]:
    """(start, length, step) of a slice over a dimension of n elements, as Python's slice.indices
    does; start and stop may differ per thread (int64 arrays), the step may not."""
    step = 1 if part.step is None else val(part.step)
    if type(step) is ND:
        raise TypeError("a slice whose step differs between threads")
    step = int(step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    lo, hi = (0, n) if step > 0 else (-1, n - 1)

    def bound(v: Any, default: int) -> Any:
        if v is None:
            return default
        v = val(v)
        v = np.asarray(v).astype(np.int64)
        v = np.where(v < 0, v + n, v)
        return np.clip(v, lo, hi)

    start = bound(part.start, 0 if step > 0 else n - 1)
    stop = bound(part.stop, n if step > 0 else -1)
    length = np.maximum(0, (stop - start + step - (1 if step > 0 else -1)) // step)
    return start, length, step


def slice_view(C: Any, A: Any, parts: tuple, m: Any, line: int) -> ArrayArg:
    """a[i:j], a[::2], a[i, :], dynsmem[1:] ... in a kernel: a view of a device, shared, local or constant
    array (a device array whose element 0 and length may differ per thread)."""
    if type(A) is ArrayArg:
        base, off, shape, strides = A.ptr, A.off, A.shape, A.strides
    elif type(A) is memory.SharedArr or type(A) in _OWN:
        base = A if type(A) is memory.SharedArr else _flat1d(A)
        off, shape, strides = None, A.shape, c_strides(A.shape)
    else:
        raise TypeError(f"slicing '{getattr(A, 'name', '?')}': only arrays with a shape can be sliced "
                        "(use pointer arithmetic, p + k, on a simt.Ptr)")
    if len(parts) > len(shape):
        raise TypeError(f"'{A.name}' has {len(shape)} dimension(s), sliced with {len(parts)}")
    new_shape, new_strides, start_of = [], [], 0
    for k, p in enumerate(parts):
        if type(p) is slice:
            start, length, step = _normalize(p, shape[k])
            start_of = binop("add", start_of, binop("mul", start, strides[k]))
            new_shape.append(int(length) if np.ndim(length) == 0 else length)
            new_strides.append(strides[k] * step)
        else:  # an index: checked against its dimension, the dimension dropped
            lead = ArrayArg(A.name, base, (shape[k],), (strides[k],))
            start_of = binop("add", start_of, _flat(C, lead, p, m, line, "a slice", lead.strides))
    new_shape += list(shape[len(parts):])
    new_strides += list(strides[len(parts):])
    start_of = val(start_of)
    start_of = int(start_of) if np.ndim(start_of) == 0 else start_of
    if off is not None:
        start_of = binop("add", np.asarray(start_of, np.int64), np.asarray(val(off), np.int64))
    zero = type(start_of) is int and start_of == 0
    return ArrayArg(A.name, base, tuple(new_shape), tuple(new_strides), None if zero else start_of)


def record_field(C: Any, A: Any, idx: Any, fname: str, m: Any, line: int) -> ArrayArg:
    """Field `fname` of the record A[idx] (A a record array, or one record with idx ()): a 0-d view for a
    scalar field, an n-d view for an array field, over the field's own typed pointer."""
    if type(A) is not ArrayArg or A.dtype.names is None:
        raise TypeError(f"'{getattr(A, 'name', '?')}' holds no records")
    fdt, foff = A.dtype.fields[fname][:2]
    isz, fsz = A.dtype.itemsize, fdt.base.itemsize
    if isz % fsz or foff % fsz:
        raise TypeError(f"field '{fname}' of the records of '{A.name}' is not aligned to its {fdt.base} elements "
                        "(a packed record: make the dtype with align=True)")
    if idx is None:  # the field of every record: an array over A's shape, then the field's own
        k = isz // fsz
        return ArrayArg(f"{A.name}.{fname}", A.ptr.field(fname), A.shape + fdt.shape,
                        tuple(st * k for st in A.strides) + c_strides(fdt.shape),
                        None if A.off is None else binop("mul", A.off, k))
    rec: Any = 0
    if A.shape:
        rec = _flat(C, ArrayArg(A.name, A.ptr, A.shape, A.strides), idx, m, line, "a record", A.strides)
    if A.off is not None:
        rec = binop("add", np.asarray(rec, np.int64), np.asarray(val(A.off), np.int64))
    off = binop("mul", rec, isz // fsz) if type(rec) is not int else rec * (isz // fsz)
    return ArrayArg(f"{A.name}.{fname}", A.ptr.field(fname), fdt.shape, c_strides(fdt.shape),
                    None if type(off) is int and off == 0 else off)


def view_copy(C: Any, dst: Any, src: Any, m: Any, line: int) -> None:
    """dst[...] = src for two array views of the same shape (an array field assigned an array)."""
    if type(src) is not ArrayArg or tuple(dst.shape) != tuple(src.shape):
        raise TypeError(f"assigning an array of shape {getattr(src, 'shape', '?')} to '{dst.name}' of shape {dst.shape}")
    for k in np.ndindex(*dst.shape):
        store(C, dst, k, load(C, src, k, m, line), m, line)


def record_copy(C: Any, dst: Any, di: Any, src: Any, si: Any, m: Any, line: int) -> None:
    """dst[di] = src[si] for records: every field, element by element."""
    if dst.dtype != src.dtype:
        raise TypeError(f"copying a record of {src.dtype} into one of {dst.dtype}")
    for name in dst.dtype.names:
        d, s_ = record_field(C, dst, di, name, m, line), record_field(C, src, si, name, m, line)
        for k in np.ndindex(*d.shape):
            store(C, d, k, load(C, s_, k, m, line), m, line)


class PtrView:
    """`p + k` for a pointer parameter p: the same allocation from element k on (k may differ per lane)."""

    __slots__ = ("dtype", "name", "off", "ptr")

    def __init__(self, ptr: Any, off: Any) -> None:
        self.ptr, self.off, self.name, self.dtype = ptr, off, ptr.name, ptr.dtype


def ptr_add(P: Any, k: Any, sign: int) -> PtrView:
    """P + k (sign 1) or P - k (sign -1), in elements."""
    k = val(k)
    if isinstance(k, float) or (isinstance(k, (ND, np.generic)) and k.dtype.kind not in "iub"):
        raise TypeError("pointer arithmetic needs an integer offset")
    if sign < 0:
        k = binop("sub", 0, k)
    if type(P) is PtrView:
        return PtrView(P.ptr, binop("add", P.off, k))
    if type(P) is not memory.PtrArg:
        raise TypeError(f"arithmetic on '{getattr(P, 'name', '?')}': only simt.Ptr pointers take + and -")
    return PtrView(P, k)


def rebind(C: Any, m: Any, new: Any, old: Any) -> Any:
    """A pointer/array name after `name = new` in the lanes of m: lanes may differ only in an offset."""
    if m is True or old is UNDEF or new is old:
        return new
    if m is False:
        return old
    base_new, base_old = getattr(new, "ptr", new), getattr(old, "ptr", old)
    if type(base_new) is memory.PtrArg and base_new is base_old and type(new) is not ArrayArg \
            and type(old) is not ArrayArg:
        return PtrView(base_new, assign(C, m, getattr(new, "off", 0), getattr(old, "off", 0)))
    raise TypeError("a name bound to different arrays in different threads (only a pointer's offset may differ "
                    "between threads); bind it the same way in every thread")


_OWN = (LocalArr, ConstArr)


def _flat(C: Any, A: Any, idx: Any, m: Any, line: int, what: str, strides: tuple[int, ...] | None = None) -> Any:
    """The element number of idx in every lane (an int when uniform; C order unless strides are given);
    faults when an index is outside its dimension."""
    strides = strides or c_strides(A.shape)
    parts = idx if type(idx) is tuple else (idx,)
    if len(parts) != len(A.shape):
        raise TypeError(f"{what}: '{A.name}' has {len(A.shape)} dimension(s), indexed with {len(parts)}")
    vals = [val(p) for p in parts]
    for v in vals:
        kind = v.dtype.kind if isinstance(v, (ND, np.generic)) else ("f" if type(v) is float else "i")
        if kind not in "iub":
            raise TypeError(f"the index in {what} must be an integer, got {getattr(v, 'dtype', type(v).__name__)}")
    if not any(type(v) is ND for v in vals) and not any(type(n) is ND for n in A.shape):  # uniform: Python ints
        ints = [int(v) for v in vals]
        if any(not 0 <= i < n for i, n in zip(ints, A.shape, strict=True)):
            lane = C.lane0 if m is True else C.lane0 + int(np.argmax(mask_array(C.N, m)))
            _fault(C, A, tuple(ints), lane, line, what)
        return sum(i * st for i, st in zip(ints, strides, strict=True))
    ma = None if m is True else mask_array(C.N, m)
    flat = np.zeros(C.N, np.int64)
    bad = np.zeros(C.N, bool)
    for v, n, st in zip(vals, A.shape, strides, strict=True):
        v = np.asarray(v).astype(np.int64)
        bad |= (v < 0) | (v >= n)
        flat = flat + v * st
    if ma is not None:
        bad &= ma
    if bad.any():
        lane = int(np.argmax(bad))
        at = tuple(int(np.asarray(val(p)).reshape(-1)[lane if np.ndim(val(p)) else 0]) for p in parts)
        _fault(C, A, at, C.lane0 + lane, line, what)
    return flat


def _fault(C: Any, A: Any, at: tuple[int, ...], lane: int, line: int, what: str) -> None:
    kind = {LocalArr: "local", ConstArr: "constant"}.get(type(A), "device")
    index = at[0] if len(at) == 1 else at
    raise KernelFault(
        f"kernel '{C.name}': index {index} out of bounds in {what} of the {kind} array '{A.name}' "
        f"(shape {A.shape}, {A.dtype}) by {C.describe(lane)} at {C.where(line)}"
    )


def _rows(A: Any, C: Any, ma: np.ndarray | None) -> Any:
    """The row of each active lane: local arrays have one per lane, constant arrays one for all."""
    if type(A) is ConstArr:
        return 0
    return np.arange(C.N) if ma is None else np.flatnonzero(ma)


def load(C: Any, A: Any, idx: Any, m: Any, line: int) -> Any:
    """A[idx] in every active lane (a pointer or shared array goes to memory.load)."""
    if type(A) is memory.PtrArg:
        return memory.load(C, A, idx, m, line)
    if type(A) is ArrayArg:
        if type(A.ptr) in _OWN:
            return load(C, A.ptr, _array_flat(C, A, idx, m, line, "load"), m, line)
        return memory.load(C, A.ptr, _array_flat(C, A, idx, m, line, "load"), m, line)
    if type(A) is PtrView:
        return memory.load(C, A.ptr, binop("add", A.off, idx), m, line)
    if type(A) is tuple:
        return tuple_item(A, idx)
    if type(A) not in _OWN:
        return memory.load(C, A, idx, m, line)
    k = _flat(C, A, idx, m, line, "load")
    if type(k) is int:
        return A.data[:, k].copy() if type(A) is LocalArr else A.data[0, k]
    if m is True:
        return A.data[_rows(A, C, None), k]
    ma = mask_array(C.N, m)
    out = np.zeros(C.N, A.dtype)
    out[ma] = A.data[_rows(A, C, ma), k[ma]]
    return out


def store(C: Any, A: Any, idx: Any, value: Any, m: Any, line: int) -> None:
    if type(A) is ArrayArg:
        if type(A.ptr) in _OWN:
            return store(C, A.ptr, _array_flat(C, A, idx, m, line, "store"), value, m, line)
        return memory.store(C, A.ptr, _array_flat(C, A, idx, m, line, "store"), value, m, line)
    if type(A) is PtrView:
        return memory.store(C, A.ptr, binop("add", A.off, idx), value, m, line)
    if type(A) not in _OWN:
        return memory.store(C, A, idx, value, m, line)
    if type(A) is ConstArr:
        raise TypeError(f"the constant array '{A.name}' is read-only")
    k = _flat(C, A, idx, m, line, "store")
    v = cast(val(value), A.dtype)
    ma = None if m is True else mask_array(C.N, m)
    if type(k) is int:
        if ma is None:
            A.data[:, k] = v
        else:
            A.data[ma, k] = v[ma] if type(v) is ND else v
        return None
    rows = _rows(A, C, ma)
    A.data[rows, k if ma is None else k[ma]] = v if type(v) is not ND or ma is None else v[ma]
    return None


def store_binop(C: Any, A: Any, idx: Any, op: str, a: Any, b: Any, m: Any, line: int) -> None:
    if type(A) is ArrayArg:
        return memory.store_binop(C, A.ptr, _array_flat(C, A, idx, m, line, "store"), op, a, b, m, line)
    if type(A) is PtrView:
        return memory.store_binop(C, A.ptr, binop("add", A.off, idx), op, a, b, m, line)
    if type(A) not in _OWN:
        return memory.store_binop(C, A, idx, op, a, b, m, line)
    return store(C, A, idx, binop(op, memory.pending(a), memory.pending(b)), m, line)


def update(C: Any, A: Any, idx: Any, op: str, v: Any, m: Any, line: int) -> None:
    """A[idx] op= v, with v already evaluated (and free of loads, so the order of the accesses is moot)."""
    if type(A) in (memory.PtrArg, memory.SharedArr) and memory.update_in_place(C, A, idx, op, v, m):
        return None
    return store_binop(C, A, idx, op, load(C, A, idx, m, line), v, m, line)


def atomic(C: Any, op: str, A: Any, idx: Any, value: Any, m: Any, line: int, compare: Any = None) -> Any:
    """Atomics on a local array are plain read-modify-writes (only the thread itself sees it)."""
    if type(A) is ArrayArg:
        flat = _array_flat(C, A, idx, m, line, f"atomic_{op}")
        if type(A.ptr) in _OWN:
            return atomic(C, op, A.ptr, flat, value, m, line, compare)
        return memory.atomic(C, op, A.ptr, flat, value, m, line, compare)
    if type(A) is PtrView:
        return memory.atomic(C, op, A.ptr, binop("add", A.off, idx), value, m, line, compare)
    if type(A) not in _OWN:
        return memory.atomic(C, op, A, idx, value, m, line, compare)
    if type(A) is ConstArr:
        raise TypeError(f"the constant array '{A.name}' is read-only")
    k = _flat(C, A, idx, m, line, f"atomic_{op}")
    ma = None if m is True else mask_array(C.N, m)
    rows = _rows(A, C, ma)
    n = C.N if ma is None else rows.shape[0]
    kk = np.full(n, k, np.int64) if type(k) is int else (k if ma is None else k[ma])
    flat = A.data.reshape(-1)
    v = cast(val(value), A.dtype)
    v = as_values(v if type(v) is not ND or ma is None else v[ma], n, A.dtype)
    cmp = None
    if op == "cas":
        c = cast(val(compare), A.dtype)
        cmp = as_values(c if type(c) is not ND or ma is None else c[ma], n, A.dtype)
    old = serial_apply(flat, rows * A.size + kk, v, op, cmp)
    if ma is None:
        return old
    out = np.zeros(C.N, A.dtype)
    out[ma] = old
    return out

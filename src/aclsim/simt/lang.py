"""The names a SIMT kernel uses: thread indices, `dim3`, `Ptr`, shared memory, barriers, atomics, math.

These objects only mean something inside a `@simt.kernel` / `@simt.device` function, where the
compiler recognizes them; calling them from ordinary Python raises `SimtError`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, NamedTuple

import numpy as np

from .ctype import scalar_dtype
from .mathfns import MATH


class SimtError(Exception):
    """A kernel the compiler refuses, or a launch with an invalid configuration."""


def _only_in_kernel(name: str) -> SimtError:
    return SimtError(f"simt.{name} can only be used inside a @simt.kernel or @simt.device function")


class dim3(NamedTuple):
    """Grid or block dimensions (x, y, z), each at least 1."""

    x: int
    y: int = 1
    z: int = 1


class _Index:
    """blockIdx / threadIdx / blockDim / gridDim: `.x .y .z` inside a kernel (uint32)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr in ("x", "y", "z"):
            raise _only_in_kernel(f"{self._name}.{attr}")
        raise AttributeError(attr)

    def __repr__(self) -> str:
        return f"simt.{self._name}"


blockIdx = _Index("blockIdx")
threadIdx = _Index("threadIdx")
blockDim = _Index("blockDim")
gridDim = _Index("gridDim")


class PtrType:
    """The annotation `simt.Ptr[dtype]`: a device pointer to elements of `dtype`."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        if self.dtype.kind not in "biufc" and self.dtype.names is None:
            raise SimtError(f"simt.Ptr[{self.dtype}]: kernels handle bool, integer, float and complex element types "
                            "(and records of them) only")

    def __repr__(self) -> str:
        return f"simt.Ptr[{self.dtype}]"


class Ptr:
    """`simt.Ptr[np.float32]` annotates a pointer parameter (any numpy dtype, e.g. np.float16)."""

    def __class_getitem__(cls, dtype: Any) -> PtrType:
        return PtrType(dtype)


class ArrayType:
    """The annotation `simt.Array[dtype, ndim]`: a device array with a shape (a.shape, a[i, j], len(a))."""

    def __init__(self, dtype: Any, ndim: int) -> None:
        self.dtype = np.dtype(dtype)
        record = self.dtype.names is not None
        if self.dtype.kind not in "biufc" and not record:
            raise SimtError(f"simt.Array[{self.dtype}, ...]: kernels handle bool, integer, float and complex element "
                            "types, and records of them, only")
        if type(ndim) is not int or ndim < (0 if record else 1):
            raise SimtError(f"simt.Array[{self.dtype}, {ndim!r}]: the number of dimensions must be an int >= 1")
        self.ndim = ndim  # 0: one record (a record argument)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArrayType) and (other.dtype, other.ndim) == (self.dtype, self.ndim)

    def __hash__(self) -> int:
        return hash((self.dtype, self.ndim))

    def __repr__(self) -> str:
        return f"simt.Array[{self.dtype}, {self.ndim}]"

    def launch_params(self, name: str) -> list[tuple[str, Any]]:
        """The hidden launch parameters after the pointer: shape then element strides (int64)."""
        return [(f"{name}.{what}[{k}]", np.dtype(np.int64)) for what in ("shape", "strides") for k in range(self.ndim)]


class Array:
    """`simt.Array[np.float32, 2]` annotates a device-array parameter (`simt.Array[np.float32]`: 1-D)."""

    def __class_getitem__(cls, spec: Any) -> ArrayType:
        return ArrayType(*spec) if isinstance(spec, tuple) else ArrayType(spec, 1)


class _Shared:
    """`simt.shared.array(shape, dtype)`: per-block shared memory (shape and dtype are constants)."""

    def array(self, shape: Any, dtype: Any) -> Any:
        raise _only_in_kernel("shared.array")


shared = _Shared()


class _Local:
    """`simt.local.array(shape, dtype)`: an array private to each thread (shape and dtype are constants)."""

    def array(self, shape: Any, dtype: Any) -> Any:
        raise _only_in_kernel("local.array")


class _Const:
    """`simt.const.array_like(host_array)`: a read-only copy of a module-level numpy array, taken at compile time."""

    def array_like(self, ary: Any) -> Any:
        raise _only_in_kernel("const.array_like")


local = _Local()
const = _Const()


class _Special:
    """A value a kernel reads by name: simt.laneid (thread's lane in its warp of 32), simt.warpsize (32)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"simt.{self._name}"


WARP_SIZE = 32
laneid = _Special("laneid")
warpsize = _Special("warpsize")


def syncthreads() -> None:
    """Barrier for all threads of a block (every live thread of the block must reach it)."""
    raise _only_in_kernel("syncthreads")


def _intrinsic(name: str, doc: str) -> Any:
    def fn(*args: Any) -> Any:
        raise _only_in_kernel(name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


syncthreads_count = _intrinsic(
    "syncthreads_count", "syncthreads_count(predicate): a barrier; the number of the block's threads where it is true")
syncthreads_and = _intrinsic("syncthreads_and", "syncthreads_and(predicate): a barrier; 1 if true in every thread")
syncthreads_or = _intrinsic("syncthreads_or", "syncthreads_or(predicate): a barrier; 1 if true in any thread")
# Memory fences order a thread's memory accesses as other threads see them. Lanes here run one
# statement at a time over coherent memory (sequentially consistent), so every fence already holds.
threadfence = _intrinsic("threadfence", "threadfence(): order this thread's memory accesses device-wide")
threadfence_block = _intrinsic("threadfence_block", "threadfence_block(): order them for the block")
threadfence_system = _intrinsic("threadfence_system", "threadfence_system(): order them for host and device")

# Warp functions (see warp.py): every thread named in `mask` must make the same call.
all_sync = _intrinsic("all_sync", "all_sync(mask, predicate): true if it holds in every named lane")
any_sync = _intrinsic("any_sync", "any_sync(mask, predicate): true if it holds in any named lane")
ballot_sync = _intrinsic("ballot_sync", "ballot_sync(mask, predicate): uint32 bits of the named lanes where it holds")
activemask = _intrinsic("activemask", "activemask(): uint32 bits of the warp's lanes executing the call")
syncwarp = _intrinsic("syncwarp", "syncwarp(mask=0xffffffff): the named lanes of the warp meet")
shfl_sync = _intrinsic("shfl_sync", "shfl_sync(mask, value, src_lane): value of lane src_lane")
shfl_up_sync = _intrinsic("shfl_up_sync", "shfl_up_sync(mask, value, delta): value of lane - delta (own if < 0)")
shfl_down_sync = _intrinsic("shfl_down_sync", "shfl_down_sync(mask, value, delta): value of lane + delta (own if > 31)")
shfl_xor_sync = _intrinsic("shfl_xor_sync", "shfl_xor_sync(mask, value, lane_mask): value of lane ^ lane_mask")
WARP_FUNCTIONS = ("all_sync", "any_sync", "ballot_sync", "activemask", "syncwarp", "shfl_sync", "shfl_up_sync",
                  "shfl_down_sync", "shfl_xor_sync")

# Random numbers (see xoroshiro.py): xoroshiro128p_uniform_float32(states, index) & co.
RNG_FUNCTIONS = {f"xoroshiro128p_{k}": k for k in ("uniform_float32", "uniform_float64", "normal_float32", "normal_float64")}
for _f in RNG_FUNCTIONS:
    globals()[_f] = _intrinsic(_f, f"{_f}(states, index): advance state `index` and return the next number")

this_grid = _intrinsic(
    "this_grid", "this_grid(): the launch's grid as a cooperative group; this_grid().sync() is a grid-wide barrier")


class _CooperativeGroups:
    """`cg` (numba's cuda.cg): this_grid()."""

    def __init__(self) -> None:
        self.this_grid = this_grid


cg = _CooperativeGroups()

grid = _intrinsic(
    "grid", "grid(ndim): the thread's absolute position, blockIdx * blockDim + threadIdx (a tuple for ndim 2 or 3)"
)
gridsize = _intrinsic("gridsize", "gridsize(ndim): the number of threads of the grid, blockDim * gridDim (per dimension)")

ATOMIC_OPS = ("add", "sub", "max", "min", "and", "or", "xor", "exch", "inc", "dec", "nanmax", "nanmin")
atomic_add = _intrinsic("atomic_add", "atomic_add(array, index, value) -> old value: array[index] += value")
atomic_sub = _intrinsic("atomic_sub", "atomic_sub(array, index, value) -> old value: array[index] -= value")
atomic_max = _intrinsic("atomic_max", "atomic_max(array, index, value) -> old value")
atomic_min = _intrinsic("atomic_min", "atomic_min(array, index, value) -> old value")
atomic_and = _intrinsic("atomic_and", "atomic_and(array, index, value) -> old value")
atomic_or = _intrinsic("atomic_or", "atomic_or(array, index, value) -> old value")
atomic_xor = _intrinsic("atomic_xor", "atomic_xor(array, index, value) -> old value")
atomic_exch = _intrinsic("atomic_exch", "atomic_exch(array, index, value) -> old value: array[index] = value")
atomic_inc = _intrinsic("atomic_inc", "atomic_inc(array, index, value) -> old value: old >= value ? 0 : old + 1")
atomic_dec = _intrinsic("atomic_dec", "atomic_dec(array, index, value) -> old value: old == 0 or old > value ? value : old - 1")
atomic_nanmax = _intrinsic("atomic_nanmax", "atomic_nanmax(array, index, value) -> old value; a NaN operand is ignored")
atomic_nanmin = _intrinsic("atomic_nanmin", "atomic_nanmin(array, index, value) -> old value; a NaN operand is ignored")
atomic_compare_and_swap = _intrinsic(
    "atomic_compare_and_swap", "atomic_compare_and_swap(array, compare, value) -> old value of array[0] (numba's form)")
atomic_cas = _intrinsic(
    "atomic_cas", "atomic_cas(array, index, compare, value) -> old value; stores value where old == compare"
)

# Math (the table and argument rules are in mathfns): simt.sqrt(x), simt.hypot(x, y), ...
for _name in MATH:
    globals()[_name] = _intrinsic(_name, f"{_name}{'(x)' if MATH[_name].nargs == 1 else '(x, y)'}: math.{_name} per thread")
rsqrt = _intrinsic("rsqrt", "rsqrt(x) = 1 / sqrt(x)")
# Bit intrinsics (CUDA's __popc, __clz, __ffs, __brev; numba's cuda.popc & co), on the integer's own width.
BIT_FUNCTIONS = {
    "popc": "popc(x): the number of bits set",
    "clz": "clz(x): the number of leading zero bits (of x's width)",
    "ffs": "ffs(x): the position of the lowest bit set, from 1 (0 if none)",
    "brev": "brev(x): the bits in reverse order",
}
for _f, _doc in BIT_FUNCTIONS.items():
    globals()[_f] = _intrinsic(_f, _doc)
# Half-precision intrinsics (CUDA's cuda_fp16.h, numba's cuda.fp16): the operands become float16 first.
FP16_FUNCTIONS = {
    **{n: 2 for n in ("hadd", "hsub", "hmul", "hdiv", "heq", "hne", "hge", "hgt", "hle", "hlt", "hmax", "hmin")},
    **{n: 1 for n in ("hneg", "habs", "hsin", "hcos", "hlog", "hlog2", "hlog10", "hexp", "hexp2", "hexp10", "hsqrt",
                      "hrsqrt", "hceil", "hfloor", "hrcp", "htrunc", "hrint")},
    "hfma": 3,
}


class _Fp16:
    """`cuda.fp16.hadd(a, b)` & co (see FP16_FUNCTIONS)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"cuda.fp16.{name} is not emulated by aclsim; available: {', '.join(FP16_FUNCTIONS)}")


fp16 = _Fp16()
for _f, _n in FP16_FUNCTIONS.items():
    setattr(fp16, _f, _intrinsic(_f, f"fp16.{_f}: {_n} operand(s) as float16"))
selp = _intrinsic("selp", "selp(p, a, b): a where p is true, else b")
fma = _intrinsic("fma", "fma(a, b, c) = a * b + c")
min = _intrinsic("min", "min(a, b, ...) with C conversions")
max = _intrinsic("max", "max(a, b, ...) with C conversions")
abs = _intrinsic("abs", "abs(x), keeping the type")


# ---------------------------------------------------------------------------- @simt.device and annotations
def params_of(fn: Any, what: str, require: bool) -> dict[str, Any]:
    """Parameter name -> PtrType, ArrayType, scalar np.dtype, or None (untyped device-function parameter)."""
    try:
        ann = inspect.get_annotations(fn, eval_str=True)
    except Exception as e:
        raise SimtError(f"{what} {fn.__name__}: cannot evaluate its annotations ({e})") from None
    out: dict[str, Any] = {}
    for name in inspect.signature(fn).parameters:
        a = ann.get(name)
        if isinstance(a, (PtrType, ArrayType)):
            out[name] = a
            continue
        dt = scalar_dtype(a) if a is not None else None
        if dt is None and (require or a is not None):
            raise SimtError(
                f"{what} {fn.__name__}: parameter '{name}' needs a type annotation: simt.Ptr[np.float32] (any bool, "
                f"integer or float dtype) for a device pointer, simt.Array[np.float32, 2] for a device array, "
                f"or a scalar type (np.uint32, np.int32, np.float32, int, float)"
                + (f"; got {a!r}" if a is not None else "")
            )
        out[name] = dt
    return out


class DeviceFunction:
    """A `@simt.device` helper, callable from kernels and other device functions."""

    def __init__(self, fn: Any, signature: tuple[tuple[Any, ...], Any] | None = None) -> None:
        """`signature`: (parameter types, return type or None), as numba's cuda.jit("f4(f4, i4)", device=True)
        fixes them: arguments convert to the parameter types, the result to the return type."""
        self.fn = self.py_func = fn
        self.signature = signature
        # compiler.Compiled per set of compile-time arguments (front.static_key), built by the kernels that call it
        self.compiled: dict[tuple, Any] = {}
        self.source: Any = None  # front.Source, parsed once
        functools.update_wrapper(self, fn)

    def params(self) -> dict[str, Any]:
        if self.signature is not None:
            names = list(inspect.signature(self.fn).parameters)
            if len(names) != len(self.signature[0]):
                raise SimtError(f"device function {self.fn.__name__}: its signature has {len(self.signature[0])} "
                                f"argument types for {len(names)} parameters")
            # arrays pass through as they are (their shape and strides come with them)
            return {n: None if isinstance(t, ArrayType) else t for n, t in zip(names, self.signature[0], strict=True)}
        return params_of(self.fn, "device function", require=False)

    @property
    def restype(self) -> Any:
        return self.signature[1] if self.signature is not None else None

    def __call__(self, *args: Any) -> Any:
        raise SimtError(f"@simt.device function {self.fn.__name__} can only be called from a kernel")


def device(fn: Any) -> DeviceFunction:
    """Decorator: a function kernels can call (compiled along with them)."""
    return DeviceFunction(fn)

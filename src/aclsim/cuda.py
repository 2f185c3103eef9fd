"""The `numba.cuda` face: numba CUDA kernels and their host code on the emulated Ascend runtime.

    from aclsim.simt import cuda          # instead of: from numba import cuda

    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    d_out = cuda.device_array_like(x)
    axpy[blocks, threads](2.0, cuda.to_device(x), cuda.to_device(y), d_out)
    result = d_out.copy_to_host()

Kernels compile with `aclsim.simt` (so the sanitizer and the trace see every launch) once per
combination of argument types, as numba specializes: device arrays (and host numpy arrays,
copied in and back around the launch as numba does) become `simt.Array[dtype, ndim]`, Python ints
int64 and floats float64. Arithmetic inside follows simt's C rules, not numba's numpy promotion
(see the README's table of differences). Like numba, the first use of the device makes device 0
current when no device is.

This is a face over the runtime and the simt engine, like `aclsim.api`; names numba has and this
face does not emulate raise an AttributeError saying so.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any

import numpy as np

from . import api
from .constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE
from .errors import AclError
from .runtime import get_runtime
from .runtime.gm import array_of, has_array_interface
from .simt import lang, ntype, xoroshiro
from .simt.ctype import cast, element_dtype
from .simt.kernel import Kernel, _dims
from .simt.lang import (
    ArrayType,
    DeviceFunction,
    SimtError,
    blockDim,
    blockIdx,
    cg,
    const,
    grid,
    gridDim,
    gridsize,
    laneid,
    local,
    shared,
    syncthreads,
    syncthreads_and,
    syncthreads_count,
    syncthreads_or,
    threadfence,
    threadfence_block,
    threadfence_system,
    threadIdx,
    warpsize,
)


class _Atomic:
    """`cuda.atomic.add(array, index, value)` & co: the old value; index may be a tuple for n-D arrays."""

    def __init__(self) -> None:
        for op in lang.ATOMIC_OPS:
            setattr(self, op + "_" if op in ("and", "or") else op, getattr(lang, f"atomic_{op}"))
        self.cas = lang.atomic_cas  # cas(array, index, old, value), as numba
        self.compare_and_swap = lang.atomic_compare_and_swap  # compare_and_swap(array, old, value): element 0

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"cuda.atomic.{name} is not emulated by aclsim; available: "
                             + ", ".join(sorted(k for k in vars(self) if not k.startswith("_"))))


atomic = _Atomic()
_OPTIONS = {"debug", "opt", "lineinfo", "fastmath", "cache", "max_registers", "inline", "forceinline"}


def _ensure_device() -> None:
    """numba's implicit primary context: device 0 becomes current when this thread has none."""
    rt = get_runtime()
    try:
        rt.get_device()
    except AclError:
        rt.set_device(0)


def jit(func_or_sig: Any = None, device: bool = False, **options: Any) -> Any:
    """`@cuda.jit`, `@cuda.jit("void(float32[:], int32)")`, `@cuda.jit(device=True)`: a kernel or device function.

    Without a signature a kernel specializes on the argument types of each launch; with signatures (a
    string, numba types, or a list of them) its parameters take those types, as numba's do.
    Performance options (fastmath, opt, lineinfo, ...) change nothing here; others are refused.
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise SimtError(f"cuda.jit: the option(s) {sorted(unknown)} are not emulated by aclsim")
    sigs = None
    is_fn = callable(func_or_sig) and not isinstance(func_or_sig, (str, list, tuple)) \
        and not type(func_or_sig).__module__.startswith("numba.")
    if func_or_sig is not None and not is_fn:
        sigs = ntype.parse_full(func_or_sig)

    def wrap(fn: Any) -> Any:
        if device:  # one signature fixes the types; with several, the call's own types decide (as numba picks)
            return DeviceFunction(fn, sigs[0] if sigs and len(sigs) == 1 else None)
        return CudaKernel(fn, [args for args, _ in sigs] if sigs else None)

    return wrap(func_or_sig) if is_fn else wrap


class CudaKernel:
    """A `@cuda.jit` kernel: `kernel[griddim, blockdim](*args)` or `[griddim, blockdim, stream, sharedmem]`.

    Like numba's dispatcher it has `py_func`, `specialize(*args)`, `forall(n)`, `overloads`
    (the specializations made so far, by argument types), `signatures` and `extensions`."""

    def __init__(self, fn: Any, signatures: list[tuple[Any, ...]] | None = None) -> None:
        self.fn = self.py_func = fn
        self.params = list(inspect.signature(fn).parameters)
        self.signatures = signatures or []
        for sig in self.signatures:
            if len(sig) != len(self.params):
                raise SimtError(f"cuda.jit: the signature of {fn.__name__} has {len(sig)} argument types "
                                f"for its {len(self.params)} parameters")
        self._specs: dict[tuple, _Specialized] = {}
        self.extensions: list[Any] = []
        self.__simt_device__ = DeviceFunction(fn)  # called from another kernel, it is a device function
        functools.update_wrapper(self, fn)

    @property
    def overloads(self) -> dict[tuple, Any]:
        return dict(self._specs)

    def __getitem__(self, config: Any) -> Any:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise SimtError(f"launch as {self.fn.__name__}[griddim, blockdim](...) (optionally stream, sharedmem)")
        griddim, blockdim = config[:2]
        _check_config(griddim, blockdim)
        return functools.partial(self._launch, griddim, blockdim, config[2] if len(config) > 2 else 0,
                                 config[3] if len(config) > 3 else 0)

    def __call__(self, *args: Any) -> None:
        raise ValueError(f"launch configuration was not specified: launch kernel {self.fn.__name__} as "
                         f"{self.fn.__name__}[griddim, blockdim](...)")

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> Any:
        """`kernel.forall(n)(*args)`: a 1-D launch of at least n threads (numba picks the block size; 128 here)."""
        tpb = int(tpb) or 128
        return self[max(1, (int(ntasks) + tpb - 1) // tpb), tpb, stream, sharedmem]

    def specialize(self, *args: Any) -> CudaKernel:
        """A kernel fixed to the types of these arguments (numba's dispatcher.specialize)."""
        types = self._types(list(args))
        k = CudaKernel(self.fn, [types])
        k._specs = {types: self._spec(types)}
        return k

    def _types(self, dev_args: list) -> tuple:
        types = tuple(_typeof(name, a) for name, a in zip(self.params, dev_args, strict=True))
        if not self.signatures:
            return types
        sig = ntype.best(self.signatures, types)
        if sig is not None:
            return sig
        raise TypeError(f"No matching definition for argument type(s) {', '.join(map(str, types))} of kernel "
                        f"{self.fn.__name__} (signatures: {self.signatures})")

    def _spec(self, types: tuple) -> _Specialized:
        spec = self._specs.get(types)
        if spec is None:
            named = dict(zip(self.params, types, strict=True))
            spec = self._specs[types] = _Specialized(
                self.fn, {n: t for n, t in named.items() if not isinstance(t, ntype.Static)},
                {n: t.value for n, t in named.items() if isinstance(t, ntype.Static)})
        return spec

    def _launch(self, griddim: Any, blockdim: Any, stream: Any, sharedmem: int, *args: Any) -> None:
        if len(args) != len(self.params):
            raise SimtError(f"kernel {self.fn.__name__} takes {len(self.params)} arguments, got {len(args)}")
        _ensure_device()
        copies = []  # host arrays: copied in, and back after the kernel (cuda.In: not back), as numba does
        dev_args = []
        for a in args:
            for ext in self.extensions:  # numba's launch-argument extensions
                a = ext.prepare_args(None, a, stream=stream, retr=[])[1]
            direction, a = _direction(a)
            if isinstance(a, np.ndarray) or (isinstance(a, np.void) and a.dtype.names is not None):
                d = to_device(a)  # a record goes as a one-record device array, as numba passes it
                if direction != "in":
                    copies.append((a, d))
                a = d
            dev_args.append(a)
        types = self._types(dev_args)
        spec = self._spec(types)
        dev_args = [a if not isinstance(t, np.dtype) else _numba_cast(a, t) for a, t in zip(dev_args, types, strict=True)
                    if not isinstance(t, ntype.Static)]  # tuples are part of the specialization, not launch values
        spec[griddim, blockdim, _stream_of(stream), sharedmem](*dev_args)
        if spec.compiled is not None and spec.compiled.raises:  # numba raises a kernel's exception at the launch
            try:
                get_runtime().synchronize_device()
            except AclError:
                raised, spec.raised = spec.raised, None
                if raised is None:
                    raise
                raise raised.exc(raised.message) from None
        if copies:
            get_runtime().synchronize_device()
            for host, d in copies:
                _copy_back(host, d)
                d.free()


class In:
    """`cuda.In(ary)`: a host array the kernel only reads (copied to the device, not back)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class Out(In):
    """`cuda.Out(ary)`: a host array the kernel writes (copied back after the launch)."""


class InOut(In):
    """`cuda.InOut(ary)`: copied in and back (what a plain host array gets)."""


def _direction(a: Any) -> tuple[str, Any]:
    """("in" | "out" | "inout", the array) of a launch argument wrapped in cuda.In/Out/InOut (numba's own
    wrappers too); plain arguments are "inout"."""
    name = type(a).__name__
    if isinstance(a, In) or (name in ("In", "Out", "InOut") and type(a).__module__.startswith("numba.")
                             and hasattr(a, "value")):
        return name.lower(), a.value
    return "inout", a


def _numba_cast(a: Any, t: np.dtype) -> Any:
    """A number passed for a scalar parameter of type t converts as numba casts it (an integer wraps to
    the parameter's width when a signature declares a narrower type)."""
    if isinstance(a, bool | int | float | complex) or (isinstance(a, np.generic) and a.dtype != t):
        return cast(a.item() if isinstance(a, np.generic) else a, t)
    return a


def _copy_back(host: Any, d: DeviceNDArray) -> None:
    """After a launch, a host argument gets what the kernel left in its device copy (as numba does)."""
    out = d.copy_to_host()
    if isinstance(host, np.void):  # a record (a view into its array when it came from one)
        for name in host.dtype.names:
            host[name] = out[name]
    elif host.flags.writeable:
        host[...] = out.reshape(host.shape)


def _check_config(griddim: Any, blockdim: Any) -> None:
    """numba validates the launch configuration when the kernel is indexed, with its exception types and
    messages (ValueError for the number of dimensions, TypeError for non-integers)."""
    for name, dim in (("griddim", griddim), ("blockdim", blockdim)):
        parts = [dim] if isinstance(dim, (int, np.integer, float)) else list(dim) \
            if isinstance(dim, (tuple, list)) else [dim]
        if not 1 <= len(parts) <= 3:
            raise ValueError(f"{name} must be a sequence of 1, 2 or 3 integers, got {parts!r}")
        if not all(isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in parts):
            raise TypeError(f"{name} must be a sequence of integers, got {parts!r}")
    _dims(griddim, "grid")
    _dims(blockdim, "block")


class _Specialized(Kernel):
    """One specialization of a `@cuda.jit` kernel: its parameter types come from the launch arguments."""

    def __init__(self, fn: Any, declared: dict[str, Any], bound: dict[str, Any]) -> None:
        super().__init__(fn, declared, bound, rules="numba")  # numba's typing (simt/ntype.py)


def _typeof(name: str, a: Any) -> Any:
    """numba's typeof for a launch argument: arrays by (dtype, ndim), Python int/float as int64/float64."""
    if isinstance(a, np.ndarray):  # a host array: typed as its device copy will be
        return ArrayType(a.dtype, a.ndim)
    if isinstance(a, np.void) and a.dtype.names is not None:  # a record
        return ArrayType(a.dtype, 0)
    if has_array_interface(a):
        ref = array_of(a)
        if ref.shape is None:
            raise SimtError(f"kernel argument '{name}': a typed pointer without a shape; pass a device array")
        own = getattr(a, "dtype", None)  # records: the object's dtype names the fields, the typestr does not
        dtype = own if isinstance(own, np.dtype) and own.names is not None else ref.dtype
        return ArrayType(dtype, len(ref.shape))
    if isinstance(a, bool):
        return np.dtype(np.bool_)
    if isinstance(a, int):
        return np.dtype(np.int64)
    if isinstance(a, float):
        return np.dtype(np.float64)
    if isinstance(a, complex):
        return np.dtype(np.complex128)
    if isinstance(a, (np.integer, np.floating, np.bool_, np.complexfloating)):
        return a.dtype
    if ntype.is_constant_tuple(a):
        return ntype.Static(a)
    raise SimtError(f"kernel argument '{name}': a {type(a).__name__} cannot be passed to a kernel here "
                    "(device arrays, numpy arrays, numbers and tuples of numbers can)")


def _stream_of(stream: Any) -> Any:
    return 0 if stream is None or (isinstance(stream, int) and stream == 0) else stream


class _Random:
    """`cuda.random`: xoroshiro128+ states made on the host, numbers drawn per thread in kernels."""

    def __init__(self) -> None:
        for name in lang.RNG_FUNCTIONS:
            setattr(self, name, getattr(lang, name))

    @staticmethod
    def create_xoroshiro128p_states(n: int, seed: int, subsequence_start: int = 0, stream: Any = 0) -> Any:
        """n independent generator states on the device (splitmix64-seeded; not numba's exact streams)."""
        _ensure_device()
        return api.to_device(xoroshiro.seed_states(int(n), int(seed), int(subsequence_start)))

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"cuda.random.{name} is not emulated by aclsim; available: create_xoroshiro128p_states, "
                             + ", ".join(lang.RNG_FUNCTIONS))


random = _Random()


# ---------------------------------------------------------------------------- host API
class DeviceNDArray(api.DeviceArray):
    """numba's device array: an `aclsim.DeviceArray` with numba's host-side extras (element reads and
    writes, slice assignment, `.T`, `.flags`, Fortran order, copies of strided views)."""

    def _wrap(self, v: api.DeviceArray) -> DeviceNDArray:
        return DeviceNDArray(v.shape, v.dtype, _alloc=v._alloc, _offset=v._offset, _strides=v.strides,
                             _base=v.base)

    def __getitem__(self, key: Any) -> Any:
        layout = self._layout()
        if np.ndim(layout[key]) == 0:  # one element: its value, copied to the host (as numba does)
            return self._span_to_host()[key][()]
        return self._wrap(super().__getitem__(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        """`d[i] = v`, `d[a:b] = host_or_device_array`: a synchronous copy into the selected elements."""
        if has_array_interface(value) and isinstance(value, api.DeviceArray):
            value = value.copy_to_host()
        host = self._span_to_host()
        host[key] = value
        self._span_from_host(host)

    def _span(self) -> tuple[int, int]:
        """Byte offsets, from this view's first element, of the smallest range holding every element."""
        if self.size == 0:
            return 0, 0
        lo = sum(min(0, (n - 1) * st) for n, st in zip(self.shape, self.strides, strict=True))
        hi = sum(max(0, (n - 1) * st) for n, st in zip(self.shape, self.strides, strict=True))
        return lo, hi + self.dtype.itemsize

    def _span_to_host(self) -> np.ndarray:
        """This view's elements in a host array of the same geometry (over a copy of its span)."""
        lo, hi = self._span()
        buf = np.empty(max(hi - lo, self.dtype.itemsize), np.uint8)
        rt = get_runtime()
        rt.synchronize_device()
        if hi > lo:
            rt.memcpy(buf.ctypes.data, hi - lo, self.ptr + lo, hi - lo, ACL_MEMCPY_DEVICE_TO_HOST)
        return np.lib.stride_tricks.as_strided(buf[-lo:].view(self.dtype) if lo else buf.view(self.dtype),
                                               self.shape, self.strides)

    def _span_from_host(self, host: np.ndarray) -> None:
        lo, hi = self._span()
        if hi > lo:
            base = host.base if host.base is not None else host
            while getattr(base, "base", None) is not None:
                base = base.base
            get_runtime().memcpy(self.ptr + lo, hi - lo, np.asarray(base).ctypes.data, hi - lo, ACL_MEMCPY_HOST_TO_DEVICE)

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        """A host copy (into `ary` when given); strided views too."""
        if self.is_contiguous:
            return super().copy_to_host(ary, stream=_stream_of(stream) or None)
        out = np.array(self._span_to_host())
        if ary is not None:
            ary[...] = out
            return ary
        return out

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        self[...] = ary

    @property
    def T(self) -> DeviceNDArray:
        return self.transpose()

    def transpose(self) -> DeviceNDArray:
        return DeviceNDArray(self.shape[::-1], self.dtype, _alloc=self._alloc, _offset=self._offset,
                             _strides=self.strides[::-1], _base=self.base or self)

    @property
    def flags(self) -> dict[str, bool]:
        f_strides = api._c_strides(self.shape[::-1], self.dtype.itemsize)[::-1]
        return {"C_CONTIGUOUS": self.is_contiguous, "F_CONTIGUOUS": self.strides == f_strides or (self.ndim <= 1 and self.is_contiguous)}

    def is_c_contiguous(self) -> bool:
        return self.flags["C_CONTIGUOUS"]

    def is_f_contiguous(self) -> bool:
        return self.flags["F_CONTIGUOUS"]


def _new(shape: Any, dtype: Any, order: str = "C") -> DeviceNDArray:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    d = DeviceNDArray(shape, dtype)
    if order == "F":
        d.strides = api._c_strides(d.shape[::-1], d.dtype.itemsize)[::-1]
    elif order != "C":
        raise SimtError(f"cuda.device_array: order must be 'C' or 'F', got {order!r}")
    return d


def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: api.DeviceArray | None = None) -> DeviceNDArray:
    """A device copy of a host array (or copy into `to`); Fortran-ordered arrays stay Fortran-ordered."""
    _ensure_device()
    host = np.asarray(obj)
    if to is not None:
        if isinstance(to, DeviceNDArray):
            to[...] = host
        else:
            to.copy_from_host(host, stream=_stream_of(stream) or None)
        return to
    order = "F" if host.ndim > 1 and host.flags.f_contiguous and not host.flags.c_contiguous else "C"
    d = _new(host.shape, host.dtype, order)
    d._span_from_host(np.array(host, order=order))
    return d


def device_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C", stream: Any = 0) -> Any:
    """An uninitialised device array (C or Fortran order)."""
    if strides is not None:
        raise SimtError("cuda.device_array: explicit strides are not emulated; use order='C' or 'F'")
    _ensure_device()
    return _new(shape, np.dtype(dtype) if element_dtype(dtype) is None else element_dtype(dtype), order)


def device_array_like(ary: Any, stream: Any = 0) -> Any:
    order = "F" if getattr(ary, "ndim", 1) > 1 and _is_f_order(ary) else "C"
    return device_array(ary.shape, ary.dtype, order=order)


def _is_f_order(ary: Any) -> bool:
    if isinstance(ary, np.ndarray):
        return ary.flags.f_contiguous and not ary.flags.c_contiguous
    return bool(getattr(ary, "flags", {}).get("F_CONTIGUOUS")) and not getattr(ary, "flags", {}).get("C_CONTIGUOUS")


class Reduce:
    """`cuda.Reduce(binop)(ary, size=None, res=None, init=0, stream=0)`: ary's elements combined with
    binop (a function of two values, compiled for the device like a device function), then with init.

    The device folds strided slices of the array, one per thread of a block (binop must be associative
    and commutative, as numba requires); the host combines the block's partial results."""

    def __init__(self, binop: Any) -> None:
        op = binop if isinstance(binop, DeviceFunction) else DeviceFunction(binop)
        self.binop = op.fn

        @jit
        def fold(a, partial, n, nthreads):  # thread t: a[t] op a[t + nthreads] op ...
            t = threadIdx.x
            if t < n:
                acc = a[t]
                for k in range(t + nthreads, n, nthreads):
                    acc = op(acc, a[k])
                partial[t] = acc

        self._fold = fold

    def __call__(self, ary: Any, size: int | None = None, res: Any = None, init: Any = 0, stream: Any = 0) -> Any:
        _ensure_device()
        d = ary if isinstance(ary, api.DeviceArray) else to_device(np.asarray(ary))
        n = d.size if size is None else int(size)
        flat = d if d.ndim == 1 else d.view(d.dtype)
        result = init
        if n:
            nthreads = min(n, 256)
            partial = device_array(nthreads, d.dtype)
            self._fold[1, nthreads, stream](flat, partial, n, nthreads)
            for v in partial.copy_to_host(stream=stream):
                result = self.binop(result, v)
        result = d.dtype.type(result)
        if res is not None:
            res[0:1] = np.array([result])
            return None
        return result


def _elementwise_kernel(op: DeviceFunction, nargs: int) -> CudaKernel:
    """out[i] = op(a[i], ...) over flat arrays: the kernel behind cuda.vectorize (1 to 4 operands)."""
    if nargs == 1:
        @jit
        def k1(out, a):
            i = grid(1)
            if i < out.size:
                out[i] = op(a[i])
        return k1
    if nargs == 2:
        @jit
        def k2(out, a, b):
            i = grid(1)
            if i < out.size:
                out[i] = op(a[i], b[i])
        return k2
    if nargs == 3:
        @jit
        def k3(out, a, b, c):
            i = grid(1)
            if i < out.size:
                out[i] = op(a[i], b[i], c[i])
        return k3
    if nargs == 4:
        @jit
        def k4(out, a, b, c, d):
            i = grid(1)
            if i < out.size:
                out[i] = op(a[i], b[i], c[i], d[i])
        return k4
    raise SimtError(f"cuda.vectorize: functions of 1 to 4 arguments are emulated, not {nargs}")


class Vectorized:
    """A `@cuda.vectorize` function: called with arrays (host or device) or scalars, it applies the scalar
    function elementwise on the device, with numpy's broadcasting; the element types are those of the
    first signature the inputs convert to (numpy's same-kind casting), or the inputs' own without one."""

    def __init__(self, fn: Any, sigs: list[tuple[tuple[Any, ...], Any]] | None) -> None:
        self.py_func, self.sigs = fn, sigs or []
        self._op = DeviceFunction(fn)
        self._kernel = _elementwise_kernel(self._op, len(inspect.signature(fn).parameters))
        functools.update_wrapper(self, fn)

    def _types(self, dts: list[np.dtype]) -> tuple[list[np.dtype], np.dtype | None]:
        for args, ret in self.sigs:
            if all(np.can_cast(d, t, "same_kind") for d, t in zip(dts, args, strict=True)):
                return list(args), ret
        if self.sigs:
            raise TypeError(f"cuda.vectorize {self.py_func.__name__}: no signature takes {[str(d) for d in dts]}")
        return dts, None

    def __call__(self, *args: Any, out: Any = None, stream: Any = 0) -> Any:
        _ensure_device()
        on_device = any(isinstance(a, api.DeviceArray) for a in (*args, out))
        hosts = [a.copy_to_host() if isinstance(a, api.DeviceArray) else np.asarray(a) for a in args]
        types, ret = self._types([h.dtype for h in hosts])
        shape = np.broadcast_shapes(*(h.shape for h in hosts))
        flat = [to_device(np.ascontiguousarray(np.broadcast_to(h.astype(t), shape)).reshape(-1))
                for h, t in zip(hosts, types, strict=True)]
        n = int(np.prod(shape))
        d_out = device_array(max(n, 1), ret if ret is not None else np.result_type(*types))
        if n:
            self._kernel[(n + 127) // 128, 128, stream](d_out, *flat)
        result = d_out.copy_to_host(stream=stream)[:n].reshape(shape)
        if out is not None:  # a host array or a DeviceNDArray
            out[...] = result
            return out
        if on_device:
            return to_device(result)
        return result if result.ndim else result[()]


def vectorize(sigs: Any = None, **options: Any) -> Any:
    """`@cuda.vectorize(["float32(float32, float32)", ...])`: a function applied elementwise on the device."""
    if callable(sigs) and not isinstance(sigs, (str, list, tuple)):
        return Vectorized(sigs, None)
    parsed = ntype.parse_full(sigs) if sigs is not None else None
    return lambda fn: Vectorized(fn, parsed)


def compile_ptx(*args: Any, **kwargs: Any) -> Any:
    raise SimtError("cuda.compile_ptx is not emulated by aclsim: there is no PTX here (kernels run on the emulated "
                    "Ascend device from their Python source)")


compile_ptx_for_current_device = compile = compile_for_current_device = compile_ptx


def external_stream(ptr: int) -> api.Stream:
    """A stream made elsewhere: here a pyACL stream handle (`acl.rt.create_stream`) or an aclsim.Stream's
    `handle`; launches on it queue on that runtime stream."""
    _ensure_device()
    try:
        stream = get_runtime().stream(int(ptr), "cuda.external_stream")
    except AclError as e:
        raise SimtError(f"cuda.external_stream: {int(ptr):#x} is not a stream of the emulated runtime "
                        f"(pass the handle of a pyACL or aclsim stream): {e}") from None
    return api.Stream(_wrap=stream)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C") -> np.ndarray:
    """Host memory for fast copies: an ordinary numpy array here (every host array is 'pinned' for the emulator)."""
    return np.empty(shape, dtype, order=order)  # type: ignore[call-overload]


def pinned_array_like(ary: np.ndarray) -> np.ndarray:
    return np.empty_like(ary)


@contextlib.contextmanager
def pinned(*arrays: Any) -> Any:
    """`with cuda.pinned(a):` page-locks host arrays on a GPU; nothing to do on the emulator."""
    yield


def stream() -> api.Stream:
    _ensure_device()
    return api.Stream()


def default_stream() -> api.Stream:
    _ensure_device()
    return api.Stream.default()


def synchronize() -> None:
    """Wait for all work on the current device."""
    _ensure_device()
    get_runtime().synchronize_device()


def event(timing: bool = True) -> api.Event:
    _ensure_device()
    return api.Event()


def is_available() -> bool:
    return True


# Warp functions (cuda.shfl_sync, cuda.ballot_sync, cuda.activemask, ...), bit intrinsics (cuda.popc,
# clz, ffs, brev), cuda.selp, cuda.fma, cuda.cbrt and cuda.fp16.
_KERNEL_NAMES = (*lang.WARP_FUNCTIONS, *lang.BIT_FUNCTIONS, "selp", "fma", "cbrt", "fp16")
globals().update({_n: getattr(lang, _n) for _n in _KERNEL_NAMES})


def __getattr__(name: str) -> Any:
    raise AttributeError(f"aclsim.simt.cuda does not emulate numba.cuda.{name}; see the README's SIMT section "
                         "for what the cuda namespace offers")


__all__ = [
    "DeviceNDArray", "In", "InOut", "Out", "Reduce", "compile_ptx", "external_stream", "vectorize",
    "atomic", "blockDim", "blockIdx", "cg", "const", "random", "default_stream", "device_array", "device_array_like", "event", "grid",
    "gridDim", "gridsize", "is_available", "jit", "laneid", "local", "pinned", "pinned_array", "pinned_array_like",
    "shared", "stream", "synchronize", "syncthreads", "syncthreads_and", "syncthreads_count", "syncthreads_or",
    "threadIdx", "threadfence", "threadfence_block", "threadfence_system", "to_device", "warpsize",
    *_KERNEL_NAMES,
]

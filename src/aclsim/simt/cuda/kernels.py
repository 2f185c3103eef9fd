"""The numba.cuda face's kernels: `cuda.jit` (kernels specialized per argument types, as numba's dispatcher;
device functions), launches with numba's arguments (host arrays copied in and back, cuda.In/Out/InOut,
extensions), `cuda.atomic`, `cuda.random`, `cuda.Reduce` and `cuda.vectorize` over the simt engine with
numba's typing rules (simt/ntype.py)."""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from ... import api
from ...errors import AclError
from ...runtime import get_runtime
from ...runtime.gm import array_of, has_array_interface
from .. import lang, ntype, xoroshiro
from ..ctype import cast
from ..kernel import Kernel, _dims
from ..lang import ArrayType, DeviceFunction, SimtError, grid, threadIdx
from .host import DeviceNDArray, _ensure_device, _stream_of, device_array, to_device


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

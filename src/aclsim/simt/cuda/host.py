"""The numba.cuda face's host side: device arrays (`DeviceNDArray`, `to_device`, `device_array`, ...),
streams, events and the names numba has for a GPU's host (pinned memory, PTX) over the runtime."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ... import api
from ...constants import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE
from ...errors import AclError
from ...runtime import get_runtime
from ...runtime.gm import has_array_interface
from ..ctype import element_dtype
from ..lang import SimtError


def _ensure_device() -> None:
    """numba's implicit primary context: device 0 becomes current when this thread has none."""
    rt = get_runtime()
    try:
        rt.get_device()
    except AclError:
        rt.set_device(0)


def _stream_of(stream: Any) -> Any:
    return 0 if stream is None or (isinstance(stream, int) and stream == 0) else stream



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

"""The Pythonic face: `Device`, `Stream`, `Event`, `DeviceArray`; failures raise `AclError`.

Everything goes through the same runtime as the pyACL facade, so both can be mixed: a
`DeviceArray.ptr` is a pyACL device pointer and `Stream.handle` a pyACL stream handle.
"""

from __future__ import annotations

import contextlib
import math
import weakref
from collections import deque
from typing import Any

import numpy as np

from . import constants as C
from .errors import AclError, Code
from .runtime import Allocation, get_runtime
from .runtime import Event as _Event
from .runtime import Stream as _Stream
from .runtime.devices import TEARDOWN_HOOKS
from .runtime.gm import array_interface


def _stream_handle(stream: Stream | int | None) -> int:
    if stream is None:
        return 0
    return stream.handle if isinstance(stream, Stream) else int(stream)


class Device:
    """A device made current for this thread: `with Device(0) as dev: ...` sets and resets it."""

    def __init__(self, device_id: int = 0) -> None:
        self.id = device_id
        self._open = False

    def __enter__(self) -> Device:
        get_runtime().set_device(self.id)
        self._open = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Release this use of the device (acl.rt.reset_device)."""
        if self._open:
            self._open = False
            get_runtime().reset_device(self.id)

    @property
    def chip(self) -> Any:
        return get_runtime().devices[self.id].chip

    def synchronize(self) -> None:
        get_runtime().synchronize_device()

    def mem_info(self, attr: int = C.ACL_HBM_MEM) -> tuple[int, int]:
        """(free, total) bytes of the current device, as acl.rt.get_mem_info."""
        return get_runtime().get_mem_info(attr)

    def __repr__(self) -> str:
        return f"Device({self.id}, {self.chip.name})"


class Stream:
    """A stream of the current context. `Stream.default()` is the context's default stream."""

    def __init__(self, priority: int = 0, flags: int = 0, *, _wrap: _Stream | None = None) -> None:
        self._s = _wrap if _wrap is not None else get_runtime().create_stream(priority, flags)

    @classmethod
    def default(cls) -> Stream:
        return cls(_wrap=get_runtime().current_context("Stream.default").default_stream)

    @property
    def handle(self) -> int:
        return self._s.handle

    def synchronize(self) -> None:
        get_runtime().synchronize_stream(self.handle)

    def query(self) -> bool:
        """True when all queued work has finished (polling lets the device progress)."""
        return get_runtime().stream_query(self.handle) == C.ACL_STREAM_STATUS_COMPLETE

    def wait_event(self, event: Event) -> None:
        get_runtime().stream_wait_event(self.handle, event.handle)

    def record(self, event: Event | None = None) -> Event:
        event = event or Event()
        event.record(self)
        return event

    def destroy(self) -> None:
        if self.handle and not self._s.destroyed:
            get_runtime().destroy_stream(self.handle)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.destroy()

    def __repr__(self) -> str:
        return f"Stream({self.handle:#x})"


class Event:
    """An event of the current context."""

    def __init__(self, flags: int = 0) -> None:
        self._e: _Event = get_runtime().create_event(flags)

    @property
    def handle(self) -> int:
        return self._e.handle

    def record(self, stream: Stream | int | None = None) -> None:
        get_runtime().record_event(self.handle, _stream_handle(stream))

    def synchronize(self) -> None:
        get_runtime().synchronize_event(self.handle)

    def query(self) -> bool:
        return get_runtime().query_event_status(self.handle) == C.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to `end` (both recorded and completed)."""
        return get_runtime().event_elapsed_time(self.handle, end.handle)

    def destroy(self) -> None:
        if not self._e.destroyed:
            get_runtime().destroy_event(self.handle)

    def __enter__(self) -> Event:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.destroy()


class DeviceArray:
    """A typed n-d view of device memory. Owns its allocation unless it is a view (`base`)."""

    def __init__(
        self, shape: int | tuple[int, ...], dtype: Any = np.float32, *, _alloc: Allocation | None = None,
        _offset: int = 0, _strides: tuple[int, ...] | None = None, _base: DeviceArray | None = None,
    ) -> None:
        self.shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        if any(n < 0 for n in self.shape):
            raise ValueError(f"negative dimensions are not allowed: shape {self.shape}")
        if self.dtype.hasobject:
            # Device memory holds bytes: Python object pointers copied there and back would dangle.
            raise TypeError(f"a DeviceArray cannot hold Python objects (dtype {self.dtype}); use a numeric dtype")
        if _alloc is None:
            nbytes = math.prod(self.shape) * self.dtype.itemsize
            release_collected()
            _alloc = get_runtime().malloc(max(nbytes, 1), C.ACL_MEM_MALLOC_HUGE_FIRST)
            self._owner = weakref.finalize(self, _COLLECTED.append, _alloc)
            self._owner.atexit = False  # the runtime's teardown hook frees what is left, before the leak check
            _OWNERS.add(self)
        self._alloc = _alloc
        self._offset = _offset
        self.strides = _strides if _strides is not None else _c_strides(self.shape, self.dtype.itemsize)
        self.base = _base

    # -- properties --------------------------------------------------------------------------
    @property
    def ptr(self) -> int:
        """Device address of the first element (usable with acl.rt.* and kernels)."""
        return self._alloc.start + self._offset

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_contiguous(self) -> bool:
        return self.strides == _c_strides(self.shape, self.dtype.itemsize)

    @property
    def allocation(self) -> Allocation:
        return self._alloc

    @property
    def __acl_array_interface__(self) -> dict:
        """Address, shape, typestr and strides for kernel engines (numba's `__cuda_array_interface__` idea)."""
        d = self.__dict__.get("_interface")  # a DeviceArray's geometry never changes: build it once
        if d is None:
            d = self._interface = array_interface(self.ptr, self.dtype, self.shape,
                                                  None if self.is_contiguous else self.strides)
        return d

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, ptr={self.ptr:#x})"

    # -- views -------------------------------------------------------------------------------
    def _layout(self) -> np.ndarray:
        """A numpy array with this view's geometry over a dummy buffer (for slicing maths)."""
        return np.lib.stride_tricks.as_strided(
            np.zeros(1, dtype=self.dtype), shape=self.shape, strides=self.strides, writeable=False
        )

    def __getitem__(self, key: Any) -> DeviceArray:
        layout = self._layout()
        v = layout[key]
        if not isinstance(v, np.ndarray) or v.ndim == 0:
            raise TypeError("indexing a DeviceArray yields a view; use a slice (a[i:i+1]) and copy_to_host()")
        delta = v.__array_interface__["data"][0] - layout.__array_interface__["data"][0]
        return DeviceArray(v.shape, self.dtype, _alloc=self._alloc, _offset=self._offset + delta,
                           _strides=v.strides, _base=self.base or self)

    def view(self, dtype: Any) -> DeviceArray:
        dt = np.dtype(dtype)
        if not self.is_contiguous or self.nbytes % dt.itemsize:
            raise ValueError("view needs a contiguous array whose size is a multiple of the new itemsize")
        return DeviceArray((self.nbytes // dt.itemsize,), dt, _alloc=self._alloc, _offset=self._offset,
                           _base=self.base or self)

    # -- copies ------------------------------------------------------------------------------
    def copy_to_host(self, out: np.ndarray | None = None, stream: Stream | int | None = None) -> np.ndarray:
        """Copy to a host array after the stream's earlier work (synchronize, then a D2H copy)."""
        self._need_contiguous("copy_to_host")
        if out is None:
            out = np.empty(self.shape, dtype=self.dtype)
        if out.nbytes != self.nbytes or not out.flags.c_contiguous or out.dtype.hasobject:
            raise ValueError(f"out must be a contiguous numeric array of {self.nbytes} bytes")
        rt = get_runtime()
        h = _stream_handle(stream)
        rt.synchronize_stream(h)
        if self.nbytes:  # a synchronous copy: views need not meet memcpy_async's 64-byte alignment
            rt.memcpy(out.ctypes.data, out.nbytes, self.ptr, self.nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST)
        return out

    def copy_from_host(self, a: Any, stream: Stream | int | None = None) -> None:
        """Copy a host array in, after the stream's earlier work."""
        self._need_contiguous("copy_from_host")
        src = np.ascontiguousarray(a, dtype=self.dtype)
        if src.nbytes != self.nbytes:
            raise ValueError(f"expected {self.nbytes} bytes of {self.dtype}, got {src.nbytes}")
        if self.nbytes:
            rt = get_runtime()
            h = _stream_handle(stream)
            rt.memcpy_async(self.ptr, self.nbytes, src.ctypes.data, src.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE, h)

    def _need_contiguous(self, what: str) -> None:
        if self._alloc.freed:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"DeviceArray.{what}: the array's device memory was freed (free() or the end of its with-block)",
            )
        if not self.is_contiguous:
            raise ValueError(f"{what} needs a contiguous DeviceArray; this view has strides {self.strides}")

    # -- lifetime ----------------------------------------------------------------------------
    def free(self) -> None:
        """Free the allocation now (views must not be used afterwards)."""
        if self.base is not None:
            raise ValueError("free() the array that owns the memory, not a view of it")
        owner = getattr(self, "_owner", None)
        if owner is not None:
            owner.detach()
        if not self._alloc.freed:
            get_runtime().free(self._alloc.start)

    def __enter__(self) -> DeviceArray:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()


# Lifetime, as numba's and CuPy's device arrays: an owning DeviceArray the garbage collector takes gives its
# memory back. The finalizer only queues the allocation (it may run anywhere, even inside a runtime call);
# the queue is emptied before the next DeviceArray is made and before a device reset or the process exit
# (then arrays still alive are given back too: the face owns them, so they are not the program's leaks).
_COLLECTED: deque[Allocation] = deque()
_OWNERS: weakref.WeakSet[DeviceArray] = weakref.WeakSet()


def release_collected(exiting: bool = False) -> None:
    """Free the device memory of collected DeviceArrays (at exit, of every live one). Like cudaFree it first
    waits for queued device work, which may still use it."""
    if exiting:
        for a in list(_OWNERS):
            a._owner()
    if not _COLLECTED:
        return
    rt = get_runtime()
    if not rt.idle():
        with contextlib.suppress(AclError):  # no current context, or a stream failed: its owner hears of it
            rt.synchronize_device()
    while _COLLECTED:
        alloc = _COLLECTED.popleft()
        if not alloc.freed:
            with contextlib.suppress(AclError):  # its device was reset meanwhile
                rt.free(alloc.start)


TEARDOWN_HOOKS.append(release_collected)


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def empty(shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
    """Uninitialised device array on the current device."""
    return DeviceArray(shape, dtype)


def zeros(shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
    a = DeviceArray(shape, dtype)
    if a.nbytes:
        get_runtime().memset(a.ptr, a.nbytes, 0, a.nbytes)
    return a


def to_device(a: Any, dtype: Any = None) -> DeviceArray:
    """Copy a host array to a new device array (synchronous H2D copy)."""
    src = np.ascontiguousarray(a, dtype=dtype)
    d = DeviceArray(src.shape, src.dtype)
    if src.nbytes:
        get_runtime().memcpy(d.ptr, d.nbytes, src.ctypes.data, src.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
    return d


def current_device() -> int:
    return get_runtime().get_device()


__all__ = ["AclError", "Code", "Device", "DeviceArray", "Event", "Stream", "current_device", "empty", "to_device",
           "zeros"]

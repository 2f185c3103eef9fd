"""`acl.util`: pointers to and from numpy arrays and bytes, and report-thread helpers.

As in pyACL, pointers are real process addresses (no copy), except `ptr_to_bytes`, which copies.
Unlike pyACL, a pointer that is not readable host memory raises ValueError instead of crashing.
A device pointer is refused in EP mode (the host cannot read device memory); in RC mode (`aclsim run
--run-mode rc`, a program on an Atlas 200 DK) host and device share memory and it reads (and, through
`ptr_to_numpy`, writes) the device bytes.
"""

from __future__ import annotations

import ctypes
import threading
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import AclError
from ..runtime import get_runtime
from ..runtime.host import MAPPINGS
from ..runtime.memory import device_of
from . import _device
from ._args import parser
from ._missing import not_emulated

_threads: dict[int, _ReportThread] = {}

# Argument formats of pyACL's util functions (python/pyACL/util/*.cpp: PyArg_ParseTuple "O", "kk", "kOi",
# "OO", "K"): wrong counts or types raise TypeError("acl.util.<fn> args parse failed") as acl.rt.* do.
_parse_one = {name: parser(f"acl.util.{name}", "O") for name in
              ("numpy_to_ptr", "numpy_contiguous_to_ptr", "bytes_to_ptr")}
_parse_ptr_to_bytes = parser("acl.util.ptr_to_bytes", "kk")
_parse_ptr_to_numpy = parser("acl.util.ptr_to_numpy", "kOi")
# WrapStartThread (util/thread.cpp) is the one wrapper that keeps PyArg_ParseTuple's own error: CPython's wording.
_parse_start_thread = parser("acl.util.start_thread", "OO", cpython_count=True)
_parse_stop_thread = parser("acl.util.stop_thread", "K")


def _npy_dtype(type_num: int) -> np.dtype:
    """The dtype of a numpy type number; types with no fixed element size over raw memory are refused."""
    for t in set(np.sctypeDict.values()):
        try:
            d = np.dtype(t)
        except TypeError:
            continue
        if d.num == type_num:
            if d.hasobject or d.itemsize == 0:  # object (17), string (18), unicode (19), void (20)
                raise ValueError(
                    f"acl.util.ptr_to_numpy: numpy type {type_num} ({d.name}) has no fixed element size or holds "
                    "Python objects, so it cannot view raw memory; use a numeric type such as NPY_FLOAT32 (11)")
            return d
    raise ValueError(f"acl.util.ptr_to_numpy: unknown numpy type number {type_num}")


def _device_bytes(ptr: int, nbytes: int, fn: str) -> _device.Bytes | None:
    """The device memory at `ptr` in RC mode (None for a host pointer); ValueError in EP mode or out of bounds."""
    if device_of(ptr) is None:
        return None
    if _device.run_mode() != "rc":
        raise ValueError(
            f"{fn}: {ptr:#x} is device memory, which the host cannot read; copy it to host memory with "
            "acl.rt.memcpy first (a program written for an Atlas 200 DK, where host and device share memory, "
            "runs with `aclsim run --run-mode rc`)"
        )
    try:
        mem = _device.memory(ptr, nbytes, True, fn, "ptr")
    except AclError as e:  # a ValueError here, as for a bad host pointer (an AclError made records no message)
        raise ValueError(e.message) from None
    _device.report_access([(mem, False)], fn)  # the host reads device memory queued work may still write
    return mem


def _check_host(ptr: int, nbytes: int, fn: str) -> None:
    if nbytes and not MAPPINGS.accessible(ptr, nbytes, False):
        raise ValueError(f"{fn}: {ptr:#x} is not readable host memory for {nbytes} bytes")


def numpy_to_ptr(*args: Any) -> int:
    warnings.warn("acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
                  Warning, stacklevel=2)
    (array,) = _parse_one["numpy_to_ptr"](args)
    if not isinstance(array, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    if not array.flags.c_contiguous:
        warnings.warn("acl.util.numpy_to_ptr: the array is not contiguous", Warning, stacklevel=2)
    return int(array.__array_interface__["data"][0])


def numpy_contiguous_to_ptr(*args: Any) -> tuple[int, np.ndarray]:
    warnings.warn("acl.util.numpy_contiguous_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
                  Warning, stacklevel=2)
    (array,) = _parse_one["numpy_contiguous_to_ptr"](args)
    if not isinstance(array, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    c = np.ascontiguousarray(array)
    return int(c.__array_interface__["data"][0]), c


def bytes_to_ptr(*args: Any) -> int:
    """Address of the buffer inside a bytes object (writes through it mutate the bytes, as in pyACL)."""
    (data,) = _parse_one["bytes_to_ptr"](args)
    if not isinstance(data, bytes):
        raise ValueError("needs an byte as argument")
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


def ptr_to_bytes(*args: Any) -> bytes:
    ptr, size = _parse_ptr_to_bytes(args)
    if ptr == 0 and size:
        raise ValueError("acl.util.ptr_to_bytes: ptr is 0 (NULL)")
    dev = _device_bytes(ptr, size, "acl.util.ptr_to_bytes")
    if dev is not None:
        return dev.array().tobytes()
    _check_host(ptr, size, "acl.util.ptr_to_bytes")
    get_runtime().report_host_read(ptr, size, "acl.util.ptr_to_bytes")  # (pinned memory a queued copy may write)
    return ctypes.string_at(ptr, size) if size else b""


def ptr_to_numpy(*args: Any) -> np.ndarray:
    """A numpy view of host memory (no copy): `ptr_to_numpy(ptr, shape_tuple, npy_type_number)`."""
    warnings.warn("acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead.",
                  Warning, stacklevel=2)
    ptr, shape, npy_type = _parse_ptr_to_numpy(args)
    if not isinstance(shape, tuple):  # pyACL: PyTuple_Size fails -> ValueError "shape is empty"
        raise ValueError(f"acl.util.ptr_to_numpy: shape is empty: pass a tuple of ints, not {type(shape).__name__}")
    if not all(isinstance(n, int) for n in shape):
        raise TypeError("the second argument is not list of int")
    if any(n < 0 for n in shape):  # numpy's own refusal in PyArray_NewFromDescr
        raise ValueError(f"acl.util.ptr_to_numpy: negative dimensions are not allowed: {shape}")
    dtype = _npy_dtype(npy_type)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    dev = _device_bytes(ptr, nbytes, "acl.util.ptr_to_numpy")
    if dev is not None:
        return dev.array(dtype, shape)  # a view: writes land in device memory, as on an Atlas 200 DK
    _check_host(ptr, nbytes, "acl.util.ptr_to_numpy")
    rt = get_runtime()
    with rt.lock:
        h = rt.host.find(ptr)
        freed = rt.host.find_freed(ptr) is not None
    rt.report_host_read(ptr, nbytes, "acl.util.ptr_to_numpy")  # the view's making; later reads through it are not seen
    if freed:
        raise ValueError("acl.util.ptr_to_numpy: the pointer is inside a pinned buffer acl.rt.free_host released")
    if h is not None and ptr + nbytes <= h.end:
        # malloc_host memory: a view that keeps the buffer alive, so the array stays valid after
        # acl.rt.free_host (with pyACL it would dangle; reading it could crash the interpreter).
        lo = ptr - h.start
        return h.buffer[lo : lo + nbytes].view(dtype).reshape(shape)
    buf = (ctypes.c_uint8 * nbytes).from_address(ptr) if nbytes else bytearray()
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


class _ReportThread(threading.Thread):
    """pyACL's util thread (util/thread.cpp): runs fn(args_list), or fn() when args_list is None, and keeps
    what it raised for stop_thread."""

    def __init__(self, fn: Callable, args_list: Any) -> None:
        super().__init__(daemon=True, name="acl-report")
        self.fn, self.args_list = fn, args_list
        self.failure: str | None = None

    def run(self) -> None:
        try:
            if self.args_list is None:
                self.fn()
            else:
                self.fn(self.args_list)
        except BaseException as e:  # printed, as PyErr_Display does, and raised again by stop_thread
            traceback.print_exception(e)
            self.failure = f"exception={type(e).__name__},msg=thread call failed;"


def start_thread(*args: Any) -> tuple[int, int]:
    """Start a thread running fn(args_list) (fn() when args_list is None); returns (thread_id, ret)."""
    fn, args_list = _parse_start_thread(args)
    if not callable(fn):
        raise TypeError("parameter must be callable")
    t = _ReportThread(fn, args_list)
    t.start()
    assert t.ident is not None
    _threads[t.ident] = t
    return t.ident, 0


def stop_thread(*args: Any) -> int:
    """Join a thread from start_thread; RuntimeError when its function raised (as pyACL's stop_thread)."""
    (thread_id,) = _parse_stop_thread(args)
    t = _threads.pop(thread_id, None)
    if t is None:
        return 100000
    t.join(timeout=5.0)  # the thread ends when its loop sees the caller's stop flag
    if t.failure is not None:
        raise RuntimeError(t.failure)
    return 0


__getattr__ = not_emulated("acl.util", [])

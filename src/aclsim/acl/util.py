"""`acl.util`: pointers to and from numpy arrays and bytes, and report-thread helpers.

As in pyACL, pointers are real process addresses (no copy), except `ptr_to_bytes`, which copies.
Unlike pyACL, a pointer that is not readable host memory raises ValueError instead of crashing.
"""

from __future__ import annotations

import ctypes
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..runtime import get_runtime
from ..runtime.host import MAPPINGS
from ..runtime.memory import DEVICE_BASE
from ._missing import not_emulated

_threads: dict[int, threading.Thread] = {}


def _npy_dtype(type_num: int) -> np.dtype:
    for t in set(np.sctypeDict.values()):
        try:
            d = np.dtype(t)
        except TypeError:
            continue
        if d.num == type_num:
            return d
    raise ValueError(f"unknown numpy type number {type_num}")


def _check_host(ptr: int, nbytes: int, fn: str) -> None:
    if ptr >= DEVICE_BASE:
        raise ValueError(
            f"{fn}: {ptr:#x} is device memory, which the host cannot read; "
            "copy it to host memory with acl.rt.memcpy first"
        )
    if nbytes and not MAPPINGS.accessible(ptr, nbytes, False):
        raise ValueError(f"{fn}: {ptr:#x} is not readable host memory for {nbytes} bytes")


def numpy_to_ptr(array: Any) -> int:
    warnings.warn("acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
                  Warning, stacklevel=2)
    if not isinstance(array, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    if not array.flags.c_contiguous:
        warnings.warn("acl.util.numpy_to_ptr: the array is not contiguous", Warning, stacklevel=2)
    return int(array.__array_interface__["data"][0])


def numpy_contiguous_to_ptr(array: Any) -> tuple[int, np.ndarray]:
    warnings.warn("acl.util.numpy_contiguous_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
                  Warning, stacklevel=2)
    if not isinstance(array, np.ndarray):
        raise ValueError("needs an ndarray as argument")
    c = np.ascontiguousarray(array)
    return int(c.__array_interface__["data"][0]), c


def bytes_to_ptr(data: Any) -> int:
    """Address of the buffer inside a bytes object (writes through it mutate the bytes, as in pyACL)."""
    if not isinstance(data, bytes):
        raise ValueError("needs an byte as argument")
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


def ptr_to_bytes(ptr: int, size: int) -> bytes:
    if not isinstance(ptr, int) or not isinstance(size, int):
        raise TypeError("acl.util.ptr_to_bytes args parse failed")
    if ptr == 0 and size:
        raise ValueError("acl.util.ptr_to_bytes: ptr is 0 (NULL)")
    _check_host(ptr, size, "acl.util.ptr_to_bytes")
    return ctypes.string_at(ptr, size) if size else b""


def ptr_to_numpy(ptr: int, shape: Any, npy_type: int) -> np.ndarray:
    warnings.warn("acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead.",
                  Warning, stacklevel=2)
    if not isinstance(shape, tuple) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise TypeError("acl.util.ptr_to_numpy args parse failed")
    dtype = _npy_dtype(npy_type)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    _check_host(ptr, nbytes, "acl.util.ptr_to_numpy")
    rt = get_runtime()
    with rt.lock:
        h = rt.host.find(ptr)
    if h is not None and ptr + nbytes <= h.end:
        # malloc_host memory: a view that keeps the buffer alive, so the array stays valid after
        # acl.rt.free_host (with pyACL it would dangle; reading it could crash the interpreter).
        lo = ptr - h.start
        return h.buffer[lo : lo + nbytes].view(dtype).reshape(shape)
    buf = (ctypes.c_uint8 * nbytes).from_address(ptr) if nbytes else bytearray()
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


def start_thread(fn: Callable, args_list: Any) -> tuple[int, int]:
    """Start a thread running fn(args_list); returns (thread_id, ret) for subscribe_report."""
    t = threading.Thread(target=fn, args=(args_list,), daemon=True, name="acl-report")
    t.start()
    assert t.ident is not None
    _threads[t.ident] = t
    return t.ident, 0


def stop_thread(thread_id: int) -> int:
    t = _threads.pop(thread_id, None)
    if t is None:
        return 100000
    t.join(timeout=5.0)  # the thread ends when its loop sees the caller's stop flag
    return 0


__getattr__ = not_emulated("acl.util", [])

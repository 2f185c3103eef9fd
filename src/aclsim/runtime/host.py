"""Host memory: pinned allocations from malloc_host, and safe access to any host address.

pyACL programs pass real process addresses (numpy buffers, the buffer inside a `bytes` object)
to memcpy. We read and write them through ctypes, but only after checking that the whole range
is mapped with the needed permission, so a bad pointer is refused instead of crashing Python.
"""

from __future__ import annotations

import bisect
import ctypes
import errno
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
HOST_ALIGN = 64


@dataclass(eq=False)
class HostAllocation:
    """Memory from acl.rt.malloc_host (page-locked on real hardware)."""

    start: int
    size: int
    alloc_size: int
    buffer: np.ndarray = field(repr=False)  # keeps the memory alive
    serial: int = 0
    site: Any = None
    freed: bool = False

    @property
    def end(self) -> int:
        return self.start + self.alloc_size


class HostRegistry:
    """Live malloc_host allocations, looked up by address."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._live: dict[int, HostAllocation] = {}
        self._serial = 0

    def allocate(self, size: int) -> HostAllocation:
        alloc_size = (size + 31) // 32 * 32  # ApiImpl::HostMalloc rounds to 32, no padding
        raw = np.empty(alloc_size + HOST_ALIGN, dtype=np.uint8)
        shift = (-raw.ctypes.data) % HOST_ALIGN
        buf = raw[shift : shift + alloc_size]
        self._serial += 1
        h = HostAllocation(buf.ctypes.data, size, alloc_size, buf, self._serial)
        bisect.insort(self._starts, h.start)
        self._live[h.start] = h
        return h

    def find(self, addr: int) -> HostAllocation | None:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        h = self._live[self._starts[i]]
        return h if addr < h.end else None

    def get(self, addr: int) -> HostAllocation | None:
        """The allocation starting exactly at `addr`."""
        return self._live.get(addr)

    def release(self, h: HostAllocation) -> None:
        del self._live[h.start]
        del self._starts[bisect.bisect_left(self._starts, h.start)]
        h.freed = True

    def live(self) -> list[HostAllocation]:
        return [self._live[s] for s in self._starts]


class _Mappings:
    """Which host ranges are mapped, with what permissions (Linux: mincore + /proc/self/maps)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._segs: list[tuple[int, int, str]] = []
        self._starts: list[int] = []
        self._libc = None
        if sys.platform.startswith("linux"):
            self._libc = ctypes.CDLL(None, use_errno=True)
            self._libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
            self._libc.mincore.restype = ctypes.c_int

    def _refresh(self) -> None:
        segs = []
        try:
            with open("/proc/self/maps") as f:
                for line in f:
                    rng, perms = line.split(None, 2)[:2]
                    a, b = rng.split("-")
                    segs.append((int(a, 16), int(b, 16), perms))
        except OSError:
            segs = []
        segs.sort()
        self._segs = segs
        self._starts = [s[0] for s in segs]

    def _covered(self, addr: int, end: int, need: str) -> bool:
        pos = addr
        i = bisect.bisect_right(self._starts, pos) - 1
        while pos < end:
            if i < 0 or i >= len(self._segs):
                return False
            a, b, perms = self._segs[i]
            if not (a <= pos < b) or any(p not in perms for p in need):
                return False
            pos = b
            i += 1
        return True

    def _mincore_ok(self, addr: int, end: int) -> bool:
        if self._libc is None:
            return True
        lo = addr - addr % PAGE
        length = end - lo
        vec = ctypes.create_string_buffer((length + PAGE - 1) // PAGE)
        if self._libc.mincore(ctypes.c_void_p(lo), ctypes.c_size_t(length), vec) == 0:
            return True
        return ctypes.get_errno() != errno.ENOMEM

    def accessible(self, addr: int, nbytes: int, write: bool) -> bool:
        """True when [addr, addr + nbytes) is mapped readable (and writable if `write`)."""
        if addr < PAGE or nbytes < 0 or addr + nbytes > 1 << 57:
            return False
        if nbytes == 0:
            return True
        end = addr + nbytes
        need = "rw" if write else "r"
        with self._lock:
            if self._libc is None:
                return True
            if not self._covered(addr, end, need):
                self._refresh()
                if not self._covered(addr, end, need):
                    return False
            return self._mincore_ok(addr, end)


MAPPINGS = _Mappings()


def host_view(addr: int, nbytes: int) -> np.ndarray:
    """A writable uint8 numpy view of host memory (check `MAPPINGS.accessible` first)."""
    if nbytes == 0:
        return np.empty(0, dtype=np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(addr))

"""Host memory: pinned allocations from malloc_host, and safe access to any host address.

pyACL programs pass real process addresses (numpy buffers, the buffer inside a `bytes` object)
to memcpy. We read and write them through ctypes, but only after checking that the whole range
is mapped with the needed permission, so a bad pointer is refused instead of crashing Python.
"""

from __future__ import annotations

import bisect
import ctypes
import errno
import mmap
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
    """Memory from acl.rt.malloc_host (page-locked on real hardware): pages of its own, never shared
    with the Python heap, so a copy that strays from it cannot corrupt the interpreter."""

    start: int
    size: int
    alloc_size: int
    buffer: np.ndarray = field(repr=False)  # a view of its own mapping: keeps the pages alive
    serial: int = 0
    site: Any = None
    freed: bool = False

    @property
    def end(self) -> int:
        return self.start + self.alloc_size


QUARANTINE_BYTES = 256 << 20  # freed pinned memory kept off limits before its pages may be reused
QUARANTINE_COUNT = 4096


class HostRegistry:
    """Live malloc_host allocations, and freed ones in quarantine, looked up by address.

    Each allocation is an anonymous mapping of its own (rounded up to whole pages). free_host moves it
    to a bounded quarantine instead of unmapping it: while it is there, the runtime refuses any use of
    its addresses as a use after free. When the quarantine is full the oldest entry leaves it; its pages
    are unmapped once nothing (a queued copy, a numpy view from ptr_to_numpy) holds them any more.
    """

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._live: dict[int, HostAllocation] = {}
        self._serial = 0
        self._freed: dict[int, HostAllocation] = {}  # quarantine, oldest first
        self._freed_starts: list[int] = []
        self._freed_bytes = 0

    def allocate(self, size: int) -> HostAllocation:
        alloc_size = (size + 31) // 32 * 32  # ApiImpl::HostMalloc rounds to 32, no padding
        pages = -(-alloc_size // PAGE) * PAGE
        try:
            mm = mmap.mmap(-1, pages, flags=mmap.MAP_PRIVATE)
        except (OSError, OverflowError) as e:
            raise MemoryError(str(e)) from None
        buf = np.frombuffer(mm, dtype=np.uint8)[:alloc_size]
        self._serial += 1
        h = HostAllocation(buf.ctypes.data, size, alloc_size, buf, self._serial)
        bisect.insort(self._starts, h.start)
        self._live[h.start] = h
        return h

    def find(self, addr: int) -> HostAllocation | None:
        """The live allocation whose pages hold `addr`."""
        return _containing(self._starts, self._live, addr)

    def find_freed(self, addr: int) -> HostAllocation | None:
        """The quarantined (freed) allocation whose pages hold `addr`."""
        return _containing(self._freed_starts, self._freed, addr)

    def get(self, addr: int) -> HostAllocation | None:
        """The allocation starting exactly at `addr`."""
        return self._live.get(addr)

    def release(self, h: HostAllocation) -> None:
        del self._live[h.start]
        del self._starts[bisect.bisect_left(self._starts, h.start)]
        h.freed = True
        self._freed[h.start] = h
        bisect.insort(self._freed_starts, h.start)
        self._freed_bytes += h.alloc_size
        while self._freed and (self._freed_bytes > QUARANTINE_BYTES or len(self._freed) > QUARANTINE_COUNT):
            old = self._freed.pop(next(iter(self._freed)))
            del self._freed_starts[bisect.bisect_left(self._freed_starts, old.start)]
            self._freed_bytes -= old.alloc_size  # its pages go when the last view of old.buffer does

    def live(self) -> list[HostAllocation]:
        return [self._live[s] for s in self._starts]


def _containing(starts: list[int], table: dict[int, HostAllocation], addr: int) -> HostAllocation | None:
    i = bisect.bisect_right(starts, addr) - 1
    if i < 0:
        return None
    h = table[starts[i]]
    return h if addr < h.end else None


class _IoVec(ctypes.Structure):
    _fields_ = (("base", ctypes.c_void_p), ("len", ctypes.c_size_t))


# Mappings whose bytes must never be read or written as data: the kernel's [vvar] pages raise SIGBUS,
# [vsyscall] is execute-only, and a mapped device file may have side effects on access. Memory shared between
# processes is ordinary memory although its name starts with /dev/: POSIX shared memory (/dev/shm, what
# multiprocessing.shared_memory uses), a shared anonymous mapping ("/dev/zero (deleted)") and hugetlbfs.
_SPECIAL = ("[vvar", "[vsyscall]", "/dev/")
_PLAIN_DEV = ("/dev/shm/", "/dev/zero", "/dev/hugepages/")


def is_special_mapping(name: str) -> bool:
    """Whether a /proc/self/maps path names memory that is not plain data (kernel pages, a device file)."""
    return name.startswith(_SPECIAL) and not name.startswith(_PLAIN_DEV)


class _Mappings:
    """Which host ranges may be read or written (Linux: /proc/self/maps, mincore, process_vm_readv).

    The segment list is a cache: a range it does not cover makes it re-read the maps. A range it does
    cover is confirmed with the kernel before any byte is touched: mincore finds holes unmapped since,
    and the first byte of every cached segment in the range (and the range's last byte) is read with
    process_vm_readv (written back unchanged with process_vm_writev for a destination), which fails
    with EFAULT instead of faulting when a mapping was replaced or re-protected since the cache was made.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._segs: list[tuple[int, int, str, bool]] = []  # (start, end, perms, special)
        self._starts: list[int] = []
        self._libc = None
        self._pid = os.getpid()
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
            libc.mincore.restype = ctypes.c_int
            for name in ("process_vm_readv", "process_vm_writev"):
                f = getattr(libc, name)
                f.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                              ctypes.c_ulong]
                f.restype = ctypes.c_ssize_t
            self._libc = libc
            self._readv, self._writev = libc.process_vm_readv, libc.process_vm_writev
        # Reused buffers for the usual small cases (calls are serialised by self._lock).
        self._vec = ctypes.create_string_buffer(256)
        self._scratch = ctypes.create_string_buffer(8)
        self._local = (_IoVec * 8)(*[(ctypes.addressof(self._scratch) + k, 1) for k in range(8)])
        self._remote = (_IoVec * 8)(*[(0, 1)] * 8)

    def _refresh(self) -> None:
        segs = []
        try:
            with open("/proc/self/maps") as f:
                for line in f:
                    parts = line.split(None, 5)
                    a, b = parts[0].split("-")
                    name = parts[5].strip() if len(parts) > 5 else ""
                    segs.append((int(a, 16), int(b, 16), parts[1], is_special_mapping(name)))
        except OSError:
            segs = []
        segs.sort()
        self._segs = segs
        self._starts = [s[0] for s in segs]

    def _cover(self, addr: int, end: int, need: str) -> list[int] | None:
        """Start addresses (clipped to the range) of the cached segments covering [addr, end), or None."""
        pos, firsts = addr, []
        i = bisect.bisect_right(self._starts, pos) - 1
        while pos < end:
            if i < 0 or i >= len(self._segs):
                return None
            a, b, perms, special = self._segs[i]
            if not (a <= pos < b) or special or any(p not in perms for p in need):
                return None
            firsts.append(pos)
            pos = b
            i += 1
        return firsts

    def _mincore_ok(self, addr: int, end: int) -> bool:
        lo = addr - addr % PAGE
        length = end - lo
        pages = (length + PAGE - 1) // PAGE
        vec = self._vec if pages <= len(self._vec) else ctypes.create_string_buffer(pages)
        if self._libc.mincore(lo, length, vec) == 0:
            return True
        return ctypes.get_errno() != errno.ENOMEM

    def _probe(self, points: list[int], write: bool) -> bool:
        """Read one byte at each point through the kernel (and write it back for a destination)."""
        n = len(points)
        if n <= len(self._remote):
            local, remote = self._local, self._remote
        else:
            scratch = ctypes.create_string_buffer(n)
            local = (_IoVec * n)(*[(ctypes.addressof(scratch) + k, 1) for k in range(n)])
            remote = (_IoVec * n)()
        for k, p in enumerate(points):
            remote[k].base = p
        for k in range(0, n, 1024):  # IOV_MAX
            m = min(1024, n - k)
            lp, rp = ctypes.addressof(local) + 16 * k, ctypes.addressof(remote) + 16 * k
            if self._readv(self._pid, lp, m, rp, m, 0) != m:
                return False
            if write and self._writev(self._pid, lp, m, rp, m, 0) != m:
                return False
        return True

    def accessible(self, addr: int, nbytes: int, write: bool) -> bool:
        """True when [addr, addr + nbytes) is mapped readable (and writable if `write`) as plain memory."""
        if addr < PAGE or nbytes < 0 or addr + nbytes > 1 << 57:
            return False
        if nbytes == 0:
            return True
        end = addr + nbytes
        need = "rw" if write else "r"
        with self._lock:
            if self._libc is None:
                return True
            for fresh in (False, True):
                if fresh or (firsts := self._cover(addr, end, need)) is None:
                    self._refresh()
                    firsts = self._cover(addr, end, need)
                    if firsts is None:
                        return False
                if self._mincore_ok(addr, end) and self._probe([*firsts, end - 1], write):
                    return True
            return False


MAPPINGS = _Mappings()


def host_view(addr: int, nbytes: int) -> np.ndarray:
    """A writable uint8 numpy view of host memory (check `MAPPINGS.accessible` first)."""
    if nbytes == 0:
        return np.empty(0, dtype=np.uint8)
    return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(addr))

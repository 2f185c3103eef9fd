"""Device memory: one lazily committed address space per device, an allocator and its accounting.

Each device's memory is a memfd of the chip's full capacity (sparse: the kernel commits a page only when
a byte in it is first written, so allocating all 64 GiB of an Ascend910B1 costs nothing until it is
used). It is mapped twice:

- the **device range**, at a fixed address (`device_base(d)`, MAP_FIXED_NOREPLACE; elsewhere only when
  that range is taken), with no access rights: device addresses are real process addresses that C code
  can hold as `void*`, and host code that dereferences one faults, as it does on an NPU in EP mode;
- the **runtime's view** (`DeviceHeap.bytes`), mapped wherever the kernel likes: the runtime and the
  engines read and write device memory only through it (`runtime.gm`).

Native code that must dereference device pointers (natively compiled kernels) is given access to the
device range for the time it runs (docs/architecture.md, "Device memory in native code").
Device addresses are decoded in one place: `device_of(addr)` / `device_base(d)`.
"""

from __future__ import annotations

import bisect
import contextlib
import mmap
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import constants as C
from ..chips import ChipProfile, GiB, MiB
from ..errors import AclError, Code
from .devrange import (  # noqa: F401 - device_of / device_base are decoded there and re-exported here
    DEVICE_BASE,
    DEVICE_STRIDE,
    MAX_DEVICES,
    device_base,
    device_of,
    is_device_address,
    map_device,
    unmap_device,
)

FREED_RECORD = 4096  # freed allocations each heap remembers, to tell "freed" from "never allocated"

NORMAL_PAGE = 4096
HUGE_PAGE = 2 * MiB
HUGE1G_PAGE = GiB
HUGE_FIRST_THRESHOLD = 1 * MiB  # HUGE_FIRST requests of at most 1 MB use normal pages
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)  # Linux value; Python < 3.13 lacks the name
_MADV_REMOVE = getattr(mmap, "MADV_REMOVE", 9)  # frees a shared mapping's pages (MADV_DONTNEED does not)
_RELEASE_AT = 2 * MiB  # freed ranges at least this big are handed back to the OS


@dataclass(eq=False)
class Allocation:
    """One live (or just freed) device allocation."""

    device: int
    start: int  # device address
    size: int  # bytes the user asked for
    alloc_size: int  # bytes the runtime reserved for it (rounded up, + padding)
    page_kind: str  # "normal", "huge" or "huge1g"
    reserved: int  # bytes of device capacity it occupies (whole pages)
    policy: int
    api: str  # "malloc", "malloc_align32", "malloc_cached", "dvpp_malloc"
    offset: int  # offset in the device's backing store
    backing: np.ndarray = field(repr=False)  # the whole device's bytes (the runtime's view)
    serial: int = 0
    site: Any = None  # where it was allocated (filled in when observers want it)
    freed: bool = False
    views: dict | None = field(default=None, repr=False)  # typed views runtime.gm handed out, per (dtype, offset)

    @property
    def end(self) -> int:
        """One past the last byte the runtime reserved (start + alloc_size)."""
        return self.start + self.alloc_size

    @property
    def data(self) -> np.ndarray:
        """uint8 view of the allocation's alloc_size bytes."""
        return self.backing[self.offset : self.offset + self.alloc_size]

    def contains(self, addr: int, nbytes: int = 1) -> bool:
        return self.start <= addr and addr + nbytes <= self.end


def _align_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def padded_size(size: int, api: str, policy: int, chip: ChipProfile) -> int:
    """Bytes aclrtMalloc really reserves: ALIGN_UP(size, 32) + 32 (aclrtMalloc, api_ref 11-01)."""
    if api == "malloc_align32" or policy in (C.ACL_MEM_MALLOC_HUGE1G_ONLY, C.ACL_MEM_MALLOC_HUGE1G_ONLY_P2P):
        return _align_up(size, 32)
    return _align_up(size, 32) + chip.malloc_padding


def page_kind_for(policy: int, alloc_size: int) -> str:
    """Page kind a policy uses for a request (hicann/runtime docs/zh/api_ref/11-01_device_memory_malloc_and_free.md).

    Only the exact enum values select a page policy: aclMallocMemInner (hicann/runtime
    src/acl/aclrt_impl/memory.cpp) maps anything else, e.g. HUGE_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH,
    to RT_MEMORY_DEFAULT, the documented "outside the enum" rule below.
    """
    if policy in (C.ACL_MEM_MALLOC_HUGE1G_ONLY, C.ACL_MEM_MALLOC_HUGE1G_ONLY_P2P):
        return "huge1g"
    if policy in (C.ACL_MEM_MALLOC_HUGE_ONLY, C.ACL_MEM_MALLOC_HUGE_ONLY_P2P):
        return "huge"
    if policy in (C.ACL_MEM_MALLOC_NORMAL_ONLY, C.ACL_MEM_MALLOC_NORMAL_ONLY_P2P):
        return "normal"
    if policy in (C.ACL_MEM_MALLOC_HUGE_FIRST, C.ACL_MEM_MALLOC_HUGE_FIRST_P2P):
        return "huge" if alloc_size > HUGE_FIRST_THRESHOLD else "normal"
    # Outside the enum: "size >= 2 MB -> huge pages, else normal pages" (DOC-RT 11-01).
    return "huge" if alloc_size >= HUGE_PAGE else "normal"


PAGE_SIZE = {"normal": NORMAL_PAGE, "huge": HUGE_PAGE, "huge1g": HUGE1G_PAGE}


class _RangeAllocator:
    """Hands out aligned [offset, offset + size) ranges of a fixed span.

    Freed ranges of a given size are reused first (LIFO, like a caching driver), then the
    bump pointer, then a coalescing best-fit pass. Typical malloc/free pairs are O(1).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._top = 0
        self._free_blocks: dict[int, int] = {}  # offset -> size
        self._free_by_size: dict[int, list[int]] = {}

    def _add_free(self, off: int, size: int) -> None:
        if size <= 0:
            return
        if off + size == self._top:
            self._top = off
            return
        self._free_blocks[off] = size
        self._free_by_size.setdefault(size, []).append(off)

    def _take_free(self, off: int, size: int) -> None:
        del self._free_blocks[off]
        lst = self._free_by_size[size]
        lst.remove(off)
        if not lst:
            del self._free_by_size[size]

    def alloc(self, size: int, align: int) -> int | None:
        lst = self._free_by_size.get(size)
        if lst:
            for i in range(len(lst) - 1, -1, -1):
                off = lst[i]
                if off % align == 0:
                    del lst[i]
                    if not lst:
                        del self._free_by_size[size]
                    del self._free_blocks[off]
                    return off
        start = _align_up(self._top, align)
        if start + size <= self.capacity:
            gap_at, self._top = self._top, start + size
            if start > gap_at:
                self._free_blocks[gap_at] = start - gap_at
                self._free_by_size.setdefault(start - gap_at, []).append(gap_at)
            return start
        self._coalesce()
        return self._best_fit(size, align)

    def free(self, off: int, size: int) -> None:
        self._add_free(off, size)

    def _coalesce(self) -> None:
        blocks = sorted(self._free_blocks.items())
        merged: list[list[int]] = []
        for off, size in blocks:
            if merged and merged[-1][0] + merged[-1][1] == off:
                merged[-1][1] += size
            else:
                merged.append([off, size])
        if merged and merged[-1][0] + merged[-1][1] == self._top:
            self._top = merged.pop()[0]
        self._free_blocks = {}
        self._free_by_size = {}
        for off, size in merged:
            self._free_blocks[off] = size
            self._free_by_size.setdefault(size, []).append(off)

    def _best_fit(self, size: int, align: int) -> int | None:
        best = None
        for off, bsize in self._free_blocks.items():
            start = _align_up(off, align)
            if start + size <= off + bsize and (best is None or bsize < best[1]):
                best = (off, bsize, start)
        if best is None:
            start = _align_up(self._top, align)
            if start + size <= self.capacity:
                return self.alloc(size, align)
            return None
        off, bsize, start = best
        self._take_free(off, bsize)
        self._add_free(off, start - off)
        self._add_free(start + size, off + bsize - start - size)
        return start


class DeviceHeap:
    """Address space, allocator and per-page-kind accounting of one device."""

    def __init__(self, device_id: int, chip: ChipProfile) -> None:
        self.device_id = device_id
        self.chip = chip
        self.capacity = chip.memory_size
        try:
            self._fd, self._mm, self.base = map_device(device_id, self.capacity)
        except (OSError, OverflowError) as e:  # e.g. a virtual memory limit (ulimit -v) below the chip's memory
            raise AclError(
                Code.ERROR_RT_MEMORY_ALLOCATION,
                f"cannot reserve the {chip.memory_size / GiB:g} GiB address space of device {device_id} "
                f"({chip.name}): {e}. Is the process's virtual memory limited (`ulimit -v`)? Raise the limit, "
                "or emulate a chip with less memory (ACLSIM_SOC; `aclsim info` lists them)",
            ) from None
        self._unmap = weakref.finalize(self, unmap_device, self.base, self.capacity, self._fd)
        self.bytes = np.frombuffer(self._mm, dtype=np.uint8)
        self._ranges = _RangeAllocator(self.capacity)
        self._starts: list[int] = []
        self._live: dict[int, Allocation] = {}
        self._freed: deque[Allocation] = deque(maxlen=FREED_RECORD)
        self.used = {"normal": 0, "huge": 0, "huge1g": 0}
        self.peak_used = 0
        self._serial = 0

    # -- allocation ---------------------------------------------------------------------------
    def allocate(self, size: int, policy: int, api: str) -> Allocation:
        """Reserve device memory; raises AclError(207001) when the device is full."""
        alloc_size = padded_size(size, api, policy, self.chip)
        kind = page_kind_for(policy, alloc_size)
        if kind == "huge1g" and self.chip.arch != 2201:
            raise AclError(
                Code.ERROR_RT_FEATURE_NOT_SUPPORT,
                f"1 GB huge pages (policy {policy}) exist only on Atlas A2/A3 parts, not on {self.chip.name}",
            )
        page = PAGE_SIZE[kind]
        reserved = _align_up(alloc_size, page)
        if reserved > self.free_bytes(kind):
            raise AclError(Code.ERROR_RT_MEMORY_ALLOCATION, self._oom_text(size, reserved, kind))
        off = self._ranges.alloc(reserved, page)
        if off is None:
            raise AclError(Code.ERROR_RT_MEMORY_ALLOCATION, self._oom_text(size, reserved, kind) + " (fragmented)")
        self._serial += 1
        a = Allocation(
            device=self.device_id, start=self.base + off, size=size, alloc_size=alloc_size, page_kind=kind,
            reserved=reserved, policy=policy, api=api, offset=off, backing=self.bytes,
            serial=self._serial,
        )
        bisect.insort(self._starts, a.start)
        self._live[a.start] = a
        self.used[kind] += reserved
        used = self.used_bytes
        if used > self.peak_used:
            self.peak_used = used
        return a

    def _oom_text(self, size: int, reserved: int, kind: str) -> str:
        return (
            f"device {self.device_id} ({self.chip.name}) is out of memory: asked for {size} bytes "
            f"({reserved} bytes of {kind} pages), {self.free_bytes(kind)} bytes free of {self.capacity}"
        )

    def release(self, alloc: Allocation) -> None:
        """Give an allocation's pages back; its bytes stay readable until reused (like hardware)."""
        del self._live[alloc.start]
        i = bisect.bisect_left(self._starts, alloc.start)
        del self._starts[i]
        self.used[alloc.page_kind] -= alloc.reserved
        alloc.freed = True
        self._freed.append(alloc)
        if alloc.reserved >= _RELEASE_AT:
            self._mm.madvise(_MADV_REMOVE, alloc.offset, alloc.reserved)
        self._ranges.free(alloc.offset, alloc.reserved)

    def release_all(self) -> list[Allocation]:
        """Free everything (device reset); returns what was still allocated."""
        live = list(self._live.values())
        for a in live:
            self.release(a)
        return live

    # -- lookup -------------------------------------------------------------------------------
    def find(self, addr: int) -> Allocation | None:
        """The live allocation whose reserved bytes contain `addr`, if any."""
        a = self._live.get(addr)  # most lookups (free, whole-buffer copies) name a start exactly
        if a is not None:
            return a
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        a = self._live[self._starts[i]]
        return a if addr < a.end else None

    def neighbours(self, addr: int) -> tuple[Allocation | None, Allocation | None]:
        """The live allocations starting at or before `addr` and after it."""
        i = bisect.bisect_right(self._starts, addr)
        before = self._live[self._starts[i - 1]] if i > 0 else None
        after = self._live[self._starts[i]] if i < len(self._starts) else None
        return before, after

    def freed_at(self, addr: int) -> Allocation | None:
        """The most recently freed of the last FREED_RECORD allocations whose reserved bytes held `addr`."""
        for a in reversed(self._freed):
            if a.start <= addr < a.end:
                return a
        return None

    def live(self) -> list[Allocation]:
        return [self._live[s] for s in self._starts]

    def starts_array(self) -> tuple[np.ndarray, np.ndarray]:
        """Sorted starts and ends of live allocations (for vectorised lookups)."""
        s = np.fromiter(self._starts, dtype=np.uint64, count=len(self._starts))
        e = np.fromiter((self._live[x].end for x in self._starts), dtype=np.uint64, count=len(self._starts))
        return s, e

    def owns(self, addr: int) -> bool:
        return device_of(addr) == self.device_id

    # -- accounting ---------------------------------------------------------------------------
    @property
    def used_bytes(self) -> int:
        return self.used["normal"] + self.used["huge"] + self.used["huge1g"]

    def free_bytes(self, kind: str = "normal") -> int:
        """Free bytes usable by pages of `kind`.

        Model (inference; the reference gives no exact rule): one physical pool of 2 MiB chunks.
        Huge pages take whole chunks; normal pages are packed into chunks of their own.
        """
        if kind == "normal":
            return self.capacity - self.used_bytes
        chunks_in_use = self.used["huge"] + self.used["huge1g"] + _align_up(self.used["normal"], HUGE_PAGE)
        free = max(self.capacity - chunks_in_use, 0)
        if kind == "huge1g":
            return free // HUGE1G_PAGE * HUGE1G_PAGE
        return free

    def mem_info(self, attr: int) -> tuple[int, int]:
        """(free, total) for an aclrtMemAttr value; (0, 0) for memory this chip lacks."""
        hbm = self.chip.memory_kind == "HBM"
        total = self.capacity
        table = {
            C.ACL_MEM_NORMAL: ("normal", True), C.ACL_MEM_HUGE: ("huge", True),
            C.ACL_MEM_HUGE1G: ("huge1g", True), C.ACL_MEM_P2P_NORMAL: ("normal", True),
            C.ACL_MEM_P2P_HUGE: ("huge", True), C.ACL_MEM_P2P_HUGE1G: ("huge1g", True),
            C.ACL_HBM_MEM: ("all", True), C.ACL_HBM_MEM_HUGE: ("huge", True),
            C.ACL_HBM_MEM_NORMAL: ("normal", True), C.ACL_HBM_MEM_P2P_HUGE: ("huge", hbm),
            C.ACL_HBM_MEM_P2P_NORMAL: ("normal", hbm), C.ACL_HBM_MEM_HUGE1G: ("huge1g", hbm),
            C.ACL_HBM_MEM_P2P_HUGE1G: ("huge1g", hbm),
            C.ACL_DDR_MEM: ("all", not hbm), C.ACL_DDR_MEM_HUGE: ("huge", not hbm),
            C.ACL_DDR_MEM_NORMAL: ("normal", not hbm),
            C.ACL_DDR_MEM_P2P_HUGE: ("huge", False), C.ACL_DDR_MEM_P2P_NORMAL: ("normal", False),
        }
        # "If the hardware has no HBM, an HBM query is converted to the DDR query" (DOC-RT 11-01):
        # the HBM rows above stay valid on DDR parts except the P2P/1G ones.
        kind, present = table.get(attr, ("", False))
        if not present or (kind == "huge1g" and self.chip.arch != 2201):
            return 0, 0
        if kind == "huge1g":
            return self.free_bytes("huge1g"), total // HUGE1G_PAGE * HUGE1G_PAGE
        return self.free_bytes("normal" if kind == "all" else kind), total

    def close(self) -> None:
        self.bytes = np.empty(0, np.uint8)
        self._unmap()  # the device range goes now; its fixed addresses are free for the next heap
        with contextlib.suppress(BufferError):  # views still alive somewhere: leave the mapping to the GC
            self._mm.close()

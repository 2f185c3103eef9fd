"""The hardware-like out-of-bounds mode of `runtime.gm` (ACLSIM_OOB=hardware, `aclsim run --oob hardware`).

On an NPU a kernel access past its buffer does not fault while it stays in memory the allocator mapped: the
allocation's whole pages (aclrtMalloc), or the rest of a torch_npu caching-allocator segment. In this mode the
door lets such accesses through (reads see what is there, writes land there) and lists each source line once
at exit; by default they fault. Which bytes are mapped behind an allocation is said here (`mapped_end`,
`map_behind`), and `covered` answers whether accesses lie wholly in mapped memory.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import weakref
from typing import Any

import numpy as np

from .memory import Allocation, DeviceHeap
from .observe import user_site

OOB_MODES = ("fault", "hardware")


def oob_mode() -> str:
    """What a kernel access past its allocation does (ACLSIM_OOB): "fault" (default) or "hardware"."""
    mode = os.environ.get("ACLSIM_OOB", "fault").strip().lower() or "fault"
    if mode not in OOB_MODES:
        raise ValueError(f"ACLSIM_OOB={mode!r} is not an out-of-bounds mode; use fault (the default: the kernel "
                         "stops with the reason) or hardware (accesses inside memory the allocator maps proceed)")
    return mode


_BEHIND: weakref.WeakKeyDictionary[Allocation, int] = weakref.WeakKeyDictionary()


def map_behind(alloc: Allocation, nbytes: int) -> None:
    """Record that the real allocator maps `nbytes` from `alloc.start` (more than its own pages): e.g. a torch
    tensor is a block of a caching-allocator segment. Only the hardware out-of-bounds mode looks at it."""
    _BEHIND[alloc] = nbytes


def mapped_end(alloc: Allocation) -> int:
    """One past the last byte the real allocator maps behind `alloc`: its whole pages, or what `map_behind` said."""
    return alloc.start + max(alloc.reserved, _BEHIND.get(alloc, 0))


class _Strays:
    """Accesses the hardware out-of-bounds mode let through: one entry per source line, printed at exit."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sites: dict[tuple[str, int], list] = {}  # (file, line) -> [function, first text, count]

    def note(self, text: str) -> None:
        site = user_site(1)
        key = (site.filename, site.lineno) if site is not None else ("?", 0)
        with self.lock:
            hit = self.sites.get(key)
            if hit is None:
                self.sites[key] = [site.function if site is not None else "?", text, 1]
            else:
                hit[2] += 1

    def report(self) -> None:
        with self.lock:
            sites, self.sites = self.sites, {}
        if not sites:
            return
        n = sum(v[2] for v in sites.values())
        print(f"aclsim: warning: --oob hardware let {n} kernel access(es) past an allocation through, as the NPU "
              f"would (the default mode faults them; --check reports them as errors):", file=sys.stderr)
        for (file, line), (fn, text, count) in sites.items():
            times = f" ({count} times)" if count > 1 else ""
            print(f"  {file}:{line} in {fn}: {text}{times}", file=sys.stderr)


STRAYS = _Strays()
atexit.register(lambda: STRAYS.report())  # whichever list is current at exit (tests swap it)


def covered(heap: DeviceHeap, addrs: np.ndarray, nbytes: Any) -> np.ndarray:
    """Which accesses [addr, addr + nbytes) lie wholly in the union of the live allocations' mapped extents."""
    live = heap.live()
    if not live:
        return np.zeros(addrs.shape[0], bool)
    starts = np.fromiter((a.start for a in live), np.int64, len(live))
    reach = np.maximum.accumulate(np.fromiter((min(mapped_end(a), heap.base + heap.capacity) for a in live),
                                              np.int64, len(live)))
    gaps = np.concatenate(([0], np.cumsum(starts[1:] > reach[:-1])))  # uncovered gaps before each allocation
    last = addrs + np.asarray(nbytes, np.int64) - 1
    j0 = np.searchsorted(starts, addrs, side="right") - 1
    j1 = np.searchsorted(starts, last, side="right") - 1
    k0, k1 = np.maximum(j0, 0), np.maximum(j1, 0)
    return (j0 >= 0) & (addrs < reach[k0]) & (last < reach[k1]) & (gaps[k1] == gaps[k0])

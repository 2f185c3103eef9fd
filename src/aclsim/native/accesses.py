"""Accesses of a native kernel's checked build, as the sanitizer's KernelAccess events.

The checked build (kernels.c) records each access to device memory as part of a run: one place in the
code, one allocation, one kind (read, write, atomic), accesses `stride` bytes and `lane_stride` threads
apart, and whether a read was of bytes the launch had already written. When the launch ends (or faults),
the runs become one KernelAccess per (place, allocation, kind), with the byte offset and the thread of every
element, in an order the sanitizer's initcheck can trust: first the reads of bytes the launch had not
written (they see what was there before the kernel), then the writes. Reads of bytes the launch wrote
itself are left out: they can only race or fault where the write that preceded them already does.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.devrange import DEVICE_BASE, WINDOW_END
from ..runtime.gm import GlobalMemory
from .faults import coords

if TYPE_CHECKING:
    from ..runtime import Task
    from .kernel import NativeKernel

RECORD = np.dtype([("ra", "<u8"), ("off", "<i8"), ("stride", "<i8"), ("lane", "<u8"), ("lane_stride", "<i8"),
                   ("count", "<u4"), ("alloc", "<u4"), ("kind", "u1"), ("size", "u1"), ("satisfied", "u1"),
                   ("pad", "u1", (5,))])
READ, WRITE, ATOMIC = 0, 1, 2
_API = {READ: "load", WRITE: "store", ATOMIC: "atomic"}


class Table:
    """The allocations a checked launch may touch, sorted by address: the live ones, and the ones its pointer
    arguments held at the launch (queued work still uses memory freed before it runs, as on hardware)."""

    def __init__(self, gm: GlobalMemory, launched: set) -> None:
        seen = {id(a): a for a in (*gm.allocations(), *launched)}
        self.allocs = sorted(seen.values(), key=lambda a: a.start)
        self.start = np.array([a.start for a in self.allocs], np.uint64)
        self.size = np.array([a.size for a in self.allocs], np.uint64)
        self.end = np.array([a.end for a in self.allocs], np.uint64)
        self.lo, self.hi = DEVICE_BASE, WINDOW_END
        self.handle: Any = None  # the face's C-side state
        self.lines: dict[int, int | None] = {}
        self.records: list[np.ndarray] = []

    def add(self, recs: np.ndarray) -> None:
        """Keep a run's records until the launch ends."""
        if len(recs):
            self.records.append(recs)


_warned: set[str] = set()


def warn_unchecked(name: str) -> None:
    if name not in _warned:
        _warned.add(name)
        print(f"aclsim: warning: kernel {name} has no checked build (its file was not compiled by aclsim cc): "
              "the sanitizer does not see its accesses to device memory", file=sys.stderr)


def emit(gm: GlobalMemory, task: Task, k: NativeKernel, table: Table) -> None:
    """KernelAccess events for every record of the launch."""
    if not table.records:
        return
    recs = np.concatenate(table.records)
    table.records = []
    counts = recs["count"].astype(np.int64)
    task.work.bytes_read += int((counts * recs["size"])[recs["kind"] != WRITE].sum())
    task.work.bytes_written += int((counts * recs["size"])[recs["kind"] != READ].sum())
    recs = recs[(recs["kind"] != READ) | (recs["satisfied"] == 0)]
    if not gm.observed() or not len(recs):
        return
    phase = np.where(recs["kind"] != READ, 1, 0)  # reads before the writes
    order = np.lexsort((recs["ra"], recs["size"], recs["kind"], recs["alloc"], phase))
    recs, phase = recs[order], phase[order]
    key = np.stack([phase, recs["alloc"], recs["kind"], recs["size"], recs["ra"].astype(np.int64)], axis=1)
    cuts = np.flatnonzero(np.any(key[1:] != key[:-1], axis=1)) + 1
    describe = _describer(k)
    for group in np.split(recs, cuts):
        r0 = group[0]
        alloc = table.allocs[int(r0["alloc"])]
        size, kind = int(r0["size"]), int(r0["kind"])
        whole = _whole(group, size)
        if whole is not None:  # every element of a range: one span, no per-element arrays
            lo, hi = whole
            offs = lanes = None
        else:
            offs, lanes = _elements(group)
            lo, hi = int(offs.min()), int(offs.max()) + size
        gm.emit(task, alloc, kind != READ, lo, hi, size, offsets=offs, lanes=lanes,
                line=_line(k, table, int(r0["ra"])), api=_API[kind], describe=describe, atomic=kind == ATOMIC,
                core=None if k.simt else int(r0["lane"]))


WHOLE_FROM = 1 << 20  # groups of more accesses are checked for covering a whole range first


def _whole(group: np.ndarray, size: int) -> tuple[int, int] | None:
    """(lo, hi) when the group's accesses cover every element of [lo, hi) and nothing else (large kernels touch
    whole buffers: their accesses are reported as the range, without an array of every element)."""
    counts = group["count"].astype(np.int64)
    if counts.sum() < WHOLE_FROM or len(group) > WHOLE_FROM // 16:
        return None
    first = group["off"]
    last = first + (counts - 1) * group["stride"]
    lo, hi = int(np.minimum(first, last).min()), int(np.maximum(first, last).max()) + size
    if lo % size:
        return None
    hit = np.zeros((hi - lo) // size, bool)
    for off, stride, n in zip(first.tolist(), group["stride"].tolist(), counts.tolist(), strict=True):
        if (off - lo) % size or stride % size:
            return None
        a = (off - lo) // size
        b = a + stride // size * (n - 1)
        hit[min(a, b) : max(a, b) + 1 : max(abs(stride // size), 1)] = True
    return (lo, hi) if hit.all() else None


def _elements(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The byte offset and the global thread of every access of a group of runs."""
    counts = group["count"].astype(np.int64)
    run = np.repeat(np.arange(len(group)), counts)
    step = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    offs = group["off"][run] + step * group["stride"][run]
    lanes = group["lane"].astype(np.int64)[run] + step * group["lane_stride"][run]
    return offs, lanes


def _line(k: NativeKernel, table: Table, ra: int) -> int | None:
    """The kernel source line of an access (None when the place is in another file, e.g. a header)."""
    if ra not in table.lines:
        site = k.runner.where(ra)
        same = site is not None and k.source is not None and _same_file(site.filename, k.source)
        table.lines[ra] = site.lineno if same and site.lineno else None
    return table.lines[ra]


def _same_file(a: str, b: str) -> bool:
    import os

    return os.path.realpath(a) == os.path.realpath(b)


def _describer(k: NativeKernel) -> Any:
    if not k.simt:
        return lambda lane: f"core {int(lane)}"
    tpb = k.threads

    def describe(lane: int) -> str:
        b, t = divmod(int(lane), tpb)
        return f"block {coords(b, k.grid)} thread {coords(t, k.block)}"

    return describe

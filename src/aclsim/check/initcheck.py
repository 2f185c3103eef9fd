"""initcheck: device bytes read (by a copy or a kernel) before anything wrote them.

Every tracked allocation has a Shadow (check/shadow.py) of first-write indices. Indices come from
the order model, so a kernel that runs late (lazy scheduling) is judged at its launch position.
A read that finds unwritten bytes while earlier-submitted tasks have not run yet is deferred
until they have: they may still write those bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..runtime import Access, Allocation, DeviceReset, KernelAccess, LocalGarbage, Release, Task
from .describe import alloc_line, alloc_text, kernel_where, range_text
from .findings import Finding, Report, where
from .kspan import span_of
from .order import Order
from .shadow import Shadow

SUBS = 16  # access slots per program-order tick (a task's accesses are ordered inside its tick)


@dataclass
class _Read:
    """A read to judge: contiguous [lo, hi), or the element offsets `offs` (itemsize k)."""

    alloc: Allocation
    idx: int
    lo: int
    hi: int
    k: int
    offs: np.ndarray | None
    ctx: Any  # Access (host call / async copy) or KernelAccess
    lanes: np.ndarray | None = None  # thread of each element of `offs`


class InitCheck:
    """Bus observer for initcheck."""

    def __init__(self, report: Report, order: Order) -> None:
        self.report = report
        self.order = order
        self.shadows: dict[Allocation, Shadow] = {}
        self.deferred: list[_Read] = []
        self.zombies: list[Allocation] = []  # freed while earlier tasks may still touch them

    # ------------------------------------------------------------------ lifetime
    def on_malloc(self, a: Allocation) -> None:
        self.shadows[a] = Shadow(a.alloc_size)

    def on_free(self, rel: Release) -> None:
        a = rel.alloc
        if self.order.pending:  # queued work may still use it (lazy scheduling): judge it as if it ran first
            self.zombies.append(a)
        else:
            self.shadows.pop(a, None)

    def on_device_reset(self, reset: DeviceReset) -> None:
        for a in reset.leaked:
            self.shadows.pop(a, None)

    def _shadow(self, a: Allocation) -> Shadow | None:
        sh = self.shadows.get(a)
        if sh is None and not a.freed:  # allocated before checking started: assume written
            sh = self.shadows[a] = Shadow(a.alloc_size, written=True)
        return sh

    def _index(self, task: Task | None) -> int:
        if task is None:
            return self.order.host_tick * SUBS
        tc = self.order.clock_of(task)
        if tc is None:
            return self.order.tick * SUBS
        tc.subs = min(tc.subs + 1, SUBS - 1)
        return tc.tick * SUBS + tc.subs

    # ------------------------------------------------------------------ events
    def on_access(self, acc: Access) -> None:
        sh = self._shadow(acc.alloc)
        if sh is None:
            return
        idx = self._index(acc.task)
        if acc.write:
            sh.write_range(acc.lo, acc.hi, idx)
        else:
            self._judge(_Read(acc.alloc, idx, acc.lo, min(acc.hi, acc.alloc.size), 1, None, acc))

    def on_kernel_access(self, ka: KernelAccess) -> None:
        a = ka.alloc
        sh = self.shadows.get(a) or self._shadow(a)
        if sh is None:
            return
        idx = self._index(ka.task)
        k = ka.itemsize
        reads = not ka.write or (ka.atomic and ka.api != "atomic_exch")  # an atomic update reads the old value
        limit = a.size if reads else a.alloc_size  # reads past the size are memcheck's
        if ka.offsets is None or span_of(ka).contiguous:
            lo, hi = max(ka.lo, 0), min(ka.hi, limit)
            if reads and sh.unwritten_range(lo, hi, idx) is not None:
                self._judge(_Read(a, idx, lo, hi, k, None, ka, ka.lanes))
            if ka.write:
                sh.write_range(ka.lo, ka.hi, idx)
            return
        offs, lanes = np.asarray(ka.offsets, dtype=np.int64), ka.lanes
        if ka.lo < 0 or ka.hi > limit:
            inside = (offs >= 0) & (offs + k <= limit)
            offs, lanes = offs[inside], (None if lanes is None else np.asarray(lanes)[inside])
        if reads:
            self._judge(_Read(a, idx, 0, 0, k, offs, ka, lanes))
        if ka.write:
            sh.write_elements(offs, k, idx)

    def on_local_garbage(self, g: LocalGarbage) -> None:
        """An AI Core copied local-memory bytes nothing wrote: legal on hardware (the garbage moves), so a warning."""
        task = g.task
        self.report.add(Finding(
            "initcheck", "uninitialized-local-move",
            f"Uninitialized {g.pool} bytes moved: {g.api} copies {g.hi - g.lo} bytes of which some were never written",
            [f"at {kernel_where(task, g.line)} on core {g.core}",
             f"{g.pool} bytes {g.lo}..{g.hi - 1}: byte {g.bad} (and maybe more) was never written since the buffer "
             "was allocated, so the copy moves the garbage there",
             f"launched at {where(task.site)}"],
            "if the destination's bytes matter, compute or fill them first; to copy a tail shorter than 32 bytes "
            "use DataCopyPad (data_copy_pad)",
            ("uninitialized-local-move", task.name, g.line), (self.order.tick, g.line or 0), None,
            {"launch": task.site}, severity="warning",
        ))

    def on_task_done(self, task: Task) -> None:
        if self.deferred:
            self.resolve(final=False)
        if self.zombies and not self.order.pending:
            for a in self.zombies:
                self.shadows.pop(a, None)
            self.zombies.clear()

    # ------------------------------------------------------------------ judging reads
    def _judge(self, r: _Read, final: bool = False) -> None:
        sh = self.shadows.get(r.alloc)
        if sh is None:
            return
        if r.offs is None:
            bad = sh.unwritten_range(r.lo, r.hi, r.idx)
        else:
            bad = sh.unwritten_elements(r.offs, r.k, r.idx)
        if bad is None:
            return
        if not final and self.order.pending_before(r.idx // SUBS):
            self.deferred.append(r)
            return
        self._report(r, bad)

    def resolve(self, final: bool) -> None:
        """Judge deferred reads whose earlier tasks have all run (all of them when `final`)."""
        todo, self.deferred = self.deferred, []
        for r in todo:
            self._judge(r, final=final)

    def _report(self, r: _Read, bad: np.ndarray) -> None:
        a, ctx = r.alloc, r.ctx
        order = (r.idx // SUBS, r.idx % SUBS)
        if isinstance(ctx, KernelAccess):
            task, first = ctx.task, int(bad[0])
            if r.offs is not None:  # bad: positions into offs
                off, n, j = int(r.offs[first]), len(bad), first
            else:  # bad: byte offsets
                off = first - (first - ctx.lo) % r.k
                n, j = len(np.unique((bad - ctx.lo) // r.k)), (off - ctx.lo) // r.k
            details = [f"at {kernel_where(task, ctx.line)}"]
            if r.lanes is not None and ctx.describe is not None:
                details.append(f"by {ctx.describe(int(r.lanes[j]))}")
            elif ctx.core is not None:
                details.append(f"by block {ctx.core}")
            details += [f"address {a.start + off:#x} ({off} bytes into {alloc_text(a)}) was never written",
                        f"launched at {where(task.site)}", alloc_line(a)]
            self.report.add(Finding(
                "initcheck", "uninitialized-kernel-read", f"Uninitialized __global__ read of size {r.k} bytes",
                details, "write every element before the kernel reads it (memcpy the input in, acl.rt.memset it, "
                "or have an earlier kernel store it)",
                ("uninitialized-kernel-read", task.name, ctx.line), order, None,
                {"launch": task.site, "alloc": a.site}, count=n,
            ))
            return
        site = ctx.site
        self.report.add(Finding(
            "initcheck", "uninitialized-copy",
            f"Uninitialized read: {ctx.what} copies {len(bad)} bytes of device memory that nothing wrote",
            [f"call at {where(site)}", f"reads {range_text(a, r.lo, r.hi)}; the first unwritten byte is at "
             f"{a.start + int(bad[0]):#x} (offset {int(bad[0])})", f"{alloc_text(a)}, {alloc_line(a)}",
             "device memory from acl.rt.malloc is not initialised: these bytes are garbage"],
            "write the buffer before copying it out (an H2D copy, acl.rt.memset, or a kernel that stores it)",
            ("uninitialized-copy", (site.filename, site.lineno) if site else None), order,
            None, {"call": site, "alloc": a.site},
        ))

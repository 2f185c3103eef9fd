"""memcheck: out-of-bounds and misaligned kernel accesses, copies into the padding, bad frees,
use after free by host calls, and misaligned memcpy_async addresses."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Code
from ..runtime import (
    Access,
    Allocation,
    ApiCall,
    BadFree,
    CopyWork,
    DeviceReset,
    HostAllocation,
    KernelAccess,
    Refused,
    Release,
    Site,
    Task,
    is_device_address,
)
from .describe import alloc_line, alloc_text, called, kernel_where, range_text, task_text
from .findings import Finding, Report, line_of, where
from .kspan import element_offsets, span_of
from .order import Order

ASYNC_COPY_ALIGN = 64  # "src and dst must be 64-byte aligned" (aclrtMemcpyAsync, CANN 8.0 docs: hiascend.com aclcppdevg_03_0106)
_FREE_APIS = {"acl.rt.free", "acl.rt.free_host", "acl.media.dvpp_free"}


@dataclass
class Freed:
    """A released allocation, remembered until its addresses are handed out again."""

    start: int
    end: int
    size: int
    alloc_site: Site | None
    free_site: Site | None


class _FreedRanges:
    """Non-overlapping freed ranges, looked up by address."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._recs: dict[int, Freed] = {}

    def add(self, rec: Freed) -> None:
        self.reuse(rec.start, rec.end)
        bisect.insort(self._starts, rec.start)
        self._recs[rec.start] = rec

    def reuse(self, start: int, end: int) -> None:
        """Forget ranges overlapping [start, end): that memory belongs to a new allocation."""
        i = bisect.bisect_right(self._starts, start) - 1
        i = max(i, 0)
        while i < len(self._starts) and self._starts[i] < end:
            rec = self._recs[self._starts[i]]
            if rec.end > start:
                del self._recs[rec.start]
                del self._starts[i]
            else:
                i += 1

    def find(self, addr: int) -> Freed | None:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        rec = self._recs[self._starts[i]]
        return rec if addr < rec.end else None


class MemCheck:
    """Bus observer for memcheck."""

    tool = "memcheck"

    def __init__(self, report: Report, order: Order) -> None:
        self.report = report
        self.order = order
        self.freed = _FreedRanges()
        self.freed_host = _FreedRanges()
        self._faults: list[tuple[int, str]] = []  # errors already reported (identity)

    # ------------------------------------------------------------------ allocation lifetime
    def on_malloc(self, a: Allocation) -> None:
        self.freed.reuse(a.start, a.end)

    def on_free(self, rel: Release) -> None:
        a = rel.alloc
        self.freed.add(Freed(a.start, a.end, a.size, a.site, rel.site))

    def on_malloc_host(self, h: HostAllocation) -> None:
        self.freed_host.reuse(h.start, h.end)

    def on_free_host(self, rel: Release) -> None:
        h = rel.alloc
        self.freed_host.add(Freed(h.start, h.end, h.size, h.site, rel.site))

    def on_device_reset(self, reset: DeviceReset) -> None:
        for a in reset.leaked:  # reset released them: later use is use after free too
            self.freed.add(Freed(a.start, a.end, a.size, a.site, None))

    def on_bad_free(self, bf: BadFree) -> None:
        addr, api, reason, site = bf.addr, bf.api, bf.reason, bf.site
        host_api = api == "acl.rt.free_host"
        freed = (self.freed_host if host_api else self.freed).find(addr)
        order = (self.order.next_tick(),)
        code = int(Code.ERROR_RT_PARAM_INVALID)  # what the runtime returned for it
        ptr = _pointer_text(addr)
        pinned = bf.host_alloc if not host_api else None
        if freed is not None and freed.start == addr:
            first = where(freed.free_site) if freed.free_site else "by acl.rt.reset_device"
            self._add("double-free", f"Double free: {api}({ptr}) frees memory that was already freed",
                      [f"second free at {where(site)}", f"first freed at {first}",
                       f"allocated at {where(freed.alloc_site)} ({freed.size} bytes)"],
                      f"free each pointer once: drop the second {api} at {line_of(site)} "
                      "(or set the variable to 0 after freeing)",
                      site, order, code, {"free": site, "first_free": freed.free_site, "alloc": freed.alloc_site})
        elif pinned is not None:
            self._add("free-wrong-kind", f"Invalid free: {api} is given pinned host memory",
                      [f"at {where(site)}", f"the pointer came from acl.rt.malloc_host at {where(pinned.site)}"],
                      f"free host memory with acl.rt.free_host at {line_of(site)}", site, order, code, {"free": site})
        elif host_api and bf.device_alloc is not None:
            self._add("free-wrong-kind", f"Invalid free: acl.rt.free_host({ptr}) is given device memory",
                      [f"at {where(site)}", f"{ptr} came from acl.rt.malloc"],
                      f"free device memory with acl.rt.free at {line_of(site)}", site, order, code, {"free": site})
        else:
            inside = None if is_device_address(addr) else bf.host_alloc
            if is_device_address(addr):
                headline, why = f"Invalid free: {api}({ptr})", reason
            elif inside is not None:
                headline = f"Invalid free: {api} is given a pointer inside a pinned buffer"
                why = f"it is {addr - inside.start} bytes past the start of the buffer allocated at {where(inside.site)}"
            else:
                headline, why = f"Invalid free: {api} is given a pointer it never returned", "not a live allocation"
            self._add("invalid-free", headline, [f"at {where(site)}", why],
                      f"pass {api} exactly the pointer the matching malloc returned", site, order, code,
                      {"free": site})

    # ------------------------------------------------------------------ host calls
    def on_api(self, call: ApiCall) -> None:
        if not call.pointers:
            return
        if call.ret != 0:
            self._freed_pointer(call)
        elif call.name == "acl.rt.memcpy_async" and call.task is not None:
            self._async_alignment(call, call.task.work)

    def _freed_pointer(self, call: ApiCall) -> None:
        """A failed copy or fill given a pointer into freed device memory (freed records are dropped as
        soon as their addresses are allocated again, so a hit is never live memory)."""
        for _, addr in call.pointers:
            if not isinstance(addr, int) or not is_device_address(addr):
                continue
            rec = self.freed.find(addr)
            if rec is None:
                continue
            freed_at = where(rec.free_site) if rec.free_site else "by acl.rt.reset_device"
            self._add(
                "use-after-free", f"Use after free: {call.name} uses device memory that was freed",
                [f"call at {where(call.site)}",
                 f"address {addr:#x} is {addr - rec.start} bytes inside a freed allocation of size {rec.size} bytes",
                 f"freed at {freed_at}", f"allocated at {where(rec.alloc_site)}"],
                f"free the memory only after its last use: move the free after {line_of(call.site)}",
                call.site, (self.order.next_tick(),), call.ret,
                {"use": call.site, "free": rec.free_site, "alloc": rec.alloc_site},
            )
            return

    def _async_alignment(self, call: ApiCall, work: CopyWork) -> None:
        for r, arg in ((work.dst, "dst"), (work.src, "src")):
            addr = r.addr
            # Pageable host memory is copied synchronously through a staging buffer (CANN 8.5): no rule.
            if r.where != "unregistered" and addr % ASYNC_COPY_ALIGN:
                a = r.alloc
                into = (f"{addr - a.start} bytes into the {'device' if is_device_address(addr) else 'pinned host'} "
                        f"allocation made at {where(a.site)}") if a is not None else "outside any allocation"
                self._add(
                    "misaligned-copy", f"Misaligned address: acl.rt.memcpy_async {arg} is not 64-byte aligned",
                    [f"call at {where(call.site)}",
                     f"{arg}{f'={addr:#x}' if is_device_address(addr) else ''} is {into}; "
                     f"{addr % ASYNC_COPY_ALIGN} bytes past a 64-byte boundary",
                     "aclrtMemcpyAsync: the source and destination addresses must be 64-byte aligned"],
                    f"use offsets that are multiples of 64 from the malloc'd pointer, "
                    f"or the synchronous acl.rt.memcpy at {line_of(call.site)}",
                    call.site, (self.order.next_tick(),), int(Code.ERROR_RT_ADDR_UNALIGNED), {"call": call.site},
                    fold_extra=arg,
                )

    def on_refused(self, r: Refused) -> None:
        """A copy the runtime refused because it strays outside pinned host memory (so nothing was written)."""
        h = r.alloc
        order = (self.order.next_tick(),)
        code = int(Code.ERROR_RT_PARAM_INVALID if r.why == "host-overflow" else Code.ERROR_INVALID_PARAM)
        if r.why == "host-operand":
            self._add(
                "host-operand", f"Invalid operand: {r.api} is given host memory as {r.arg}",
                [f"call at {where(r.site)}",
                 f"{r.arg} is {r.nbytes} bytes of host memory, which the NPU cannot reach over PCIe",
                 "the runtime refused the call; nothing ran"],
                "pass a device buffer from acl.rt.malloc and copy the data to (or from) it with acl.rt.memcpy",
                r.site, order, code, {"call": r.site}, fold_extra=r.arg,
            )
            return
        if r.why == "host-overflow":
            off = r.addr - h.start
            self._add(
                "host-overflow", f"Invalid host copy: {r.api} {r.arg} runs past the end of a pinned host buffer",
                [f"call at {where(r.site)}",
                 f"{r.arg} is {off} bytes into a pinned buffer of {h.size} bytes and the call names {r.nbytes} bytes, "
                 f"{off + r.nbytes - h.size} bytes too many",
                 f"allocated at {where(h.site)}",
                 "the runtime refused the call; on hardware it would overwrite whatever follows the buffer"],
                f"copy at most {max(h.size - off, 0)} bytes at this offset, or malloc_host {off + r.nbytes} bytes",
                r.site, order, code, {"call": r.site, "alloc": h.site}, fold_extra=r.arg,
            )
            return
        rec = self.freed_host.find(r.addr)
        freed_at = where(rec.free_site) if rec is not None and rec.free_site else "by acl.rt.free_host"
        self._add(
            "use-after-free", f"Use after free: {r.api} uses pinned host memory that was freed",
            [f"call at {where(r.site)}",
             f"{r.arg} is {r.addr - h.start} bytes inside a freed pinned buffer of size {h.size} bytes",
             f"freed at {freed_at}", f"allocated at {where(h.site)}"],
            f"free the memory only after its last use: move acl.rt.free_host after {line_of(r.site)}",
            r.site, order, code, {"use": r.site, "free": rec.free_site if rec else None, "alloc": h.site},
            fold_extra=r.arg,
        )

    # ------------------------------------------------------------------ copies into the padding
    def on_access(self, acc: Access) -> None:
        a = acc.alloc
        if acc.hi <= a.size:
            return
        past = acc.hi - max(acc.lo, a.size)
        verb = "writes" if acc.write else "reads"
        tick = self.order.tick_of(acc.task)
        self._add(
            "copy-overflow",
            f"Invalid copy: {acc.what} {verb} {past} bytes past the end of the allocation",
            [f"call at {where(acc.site)}",
             f"{verb} {range_text(a, acc.lo, acc.hi)}, which ends {acc.hi - a.size} bytes after "
             f"{alloc_text(a)}",
             f"the runtime reserved {a.alloc_size} bytes (size rounded up + 32), so nothing failed; "
             "the bytes past the requested size belong to nobody",
             alloc_line(a)],
            f"copy at most {max(a.size - acc.lo, 0)} bytes at this offset, or malloc {acc.hi} bytes",
            acc.site, (tick,), None, {"call": acc.site, "alloc": a.site}, fold_extra=acc.write,
        )

    # ------------------------------------------------------------------ kernels
    def on_task_done(self, task: Task) -> None:
        """A device fault (e.g. an illegal address the engine refused): the launch fails with its code."""
        err = task.error
        if err is None or task.kind != "kernel" or any(e is err for e in self._faults):
            return  # later tasks dropped after a fault carry the same error object
        self._faults.append(err)
        if task.interrupted:
            return  # stopped by Ctrl-C, not a fault of the kernel
        code, msg = err
        tc = self.order.clock_of(task)
        call = called(task) is not None  # a model, operator, DVPP or BLAS call
        if call:
            fix = "the message says what the call's buffers or descriptions must be; correct them"
        elif task.error_cause:
            fix = "fix the kernel code at the line named above (the error is Python's, raised while the kernel ran)"
        else:
            fix = "fix the access named above (index, bounds check or alignment)"
        self._add(
            "device-fault", f"Device fault: {task_text(task) if call else 'kernel ' + task.name} stopped with an "
            "exception", [msg, f"{'queued' if call else 'launched'} at {where(task.site)}",
                          "the stream reports it at the next synchronize; later work on the stream is dropped"],
            fix, task.site, (tc.tick if tc else self.order.tick, 0), code, {"launch": task.site},
            fold=("device-fault", msg),
        )

    def on_kernel_access(self, ka: KernelAccess) -> None:
        if ka.lo < 0 or ka.hi > ka.alloc.size:
            self._kernel_oob(ka)
        k = ka.itemsize
        if k > 1 and (ka.lo % k if ka.offsets is None or span_of(ka).contiguous else (np.asarray(ka.offsets) % k).any()):
            self._kernel_misaligned(ka)

    def _kernel_site(self, ka: KernelAccess, bad: np.ndarray) -> tuple[int, str | None, int]:
        """(offset, thread description, count) of the first bad element."""
        offs = element_offsets(ka)
        idx = np.flatnonzero(bad(offs))
        first = int(idx[0]) if len(idx) else 0
        desc = None
        if ka.lanes is not None and ka.describe is not None and len(idx):
            desc = ka.describe(int(ka.lanes[first]))
        elif ka.core is not None:
            desc = f"block {ka.core}"
        return int(offs[first]), desc, len(idx)

    def _kernel_oob(self, ka: KernelAccess) -> None:
        a, k, task = ka.alloc, ka.itemsize, ka.task
        off, desc, n = self._kernel_site(ka, lambda o: (o < 0) | (o + k > a.size))
        if n == 0:
            return
        faults = off < 0 or off + k > a.alloc_size
        if off < 0:
            rel = f"{-off} bytes before"
        else:
            rel = f"{off - a.size} bytes after" if off >= a.size else "straddles the end of"
        note = (" (past the reserved bytes: the device faults)" if faults else
                " (inside the runtime's 32-byte padding: no fault, the data is just wrong)")
        op = "write" if ka.write else "read"
        tc = self.order.clock_of(task)
        details = [f"at {kernel_where(task, ka.line)}"]
        if desc:
            details.append(f"by {desc}")
        details += [f"address {a.start + off:#x} is out of bounds", f"and is {rel} {alloc_text(a)}{note}",
                    f"launched at {where(task.site)}", alloc_line(a)]
        self._add(
            f"oob-{op}", f"Invalid __global__ {op} of size {k} bytes", details,
            ("copy only the elements the buffer holds (a shorter last tile, or DataCopyPad for the tail)"
             if getattr(task.work, "cores", None) is not None else
             "guard the access with the element count (e.g. `if i < n:`) or launch only as many threads as elements"),
            task.site, (tc.tick if tc else self.order.tick, ka.line or 0),
            int(Code.ERROR_RT_AICORE_EXCEPTION) if faults else None,
            {"launch": task.site, "alloc": a.site}, count=n, fold=(f"oob-{op}", task.name, ka.line),
        )

    def _kernel_misaligned(self, ka: KernelAccess) -> None:
        a, k, task = ka.alloc, ka.itemsize, ka.task
        off, desc, n = self._kernel_site(ka, lambda o: o % k != 0)
        op = "write" if ka.write else "read"
        tc = self.order.clock_of(task)
        details = [f"at {kernel_where(task, ka.line)}"]
        if desc:
            details.append(f"by {desc}")
        details += [f"address {a.start + off:#x} is not {k}-byte aligned ({off} bytes into {alloc_text(a)})",
                    f"launched at {where(task.site)}"]
        self._add(
            f"misaligned-{op}", f"Misaligned __global__ {op} of size {k} bytes", details,
            f"index whole elements: a {k}-byte access needs an offset that is a multiple of {k}",
            task.site, (tc.tick if tc else self.order.tick, ka.line or 0), int(Code.ERROR_RT_AICORE_EXCEPTION),
            {"launch": task.site}, count=n, fold=(f"misaligned-{op}", task.name, ka.line),
        )

    # ------------------------------------------------------------------ helpers
    def _add(self, kind: str, headline: str, details: list[str], fix: str, site: Site | None, order: tuple,
             code: int | None, sites: dict, count: int = 1, fold: tuple | None = None, fold_extra: Any = None) -> None:
        loc = (site.filename, site.lineno) if site is not None else None
        self.report.add(Finding(
            self.tool, kind, headline, details, fix, fold or (kind, loc, fold_extra), order, code, sites, count,
        ))


def _pointer_text(addr: int) -> str:
    """A device address in hex; host addresses change from run to run, so reports name them generically."""
    return f"{addr:#x}" if is_device_address(addr) else "a host pointer"

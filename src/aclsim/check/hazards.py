"""racecheck, plus memcheck's use after free by queued device work: conflicting accesses that
the happens-before order (check/order.py) does not separate.

Per allocation we log host accesses (with the host clock at that moment) and device task
accesses (byte ranges). A new access is checked against the log, whichever side arrives first,
so the verdict is the same whether tasks run at submit (eager) or when the host waits (lazy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..runtime import Access, Allocation, DeviceReset, KernelAccess, Release, Site, Stream, Task
from .describe import alloc_line, alloc_text, memory_kind, range_text, rw, stream_arg, stream_name, task_text
from .findings import Finding, Report, line_of, short_path, where
from .order import Clock, Order, TaskClock


@dataclass
class HostRec:
    tick: int
    lo: int
    hi: int
    write: bool
    host: Clock  # what the host had waited for at that call
    site: Site | None
    what: str
    free: bool = False
    holds: TaskClock | None = None  # the blocking callback the call ran inside (later stream work waits for it)


@dataclass
class TaskRec:
    tc: TaskClock
    lo: int
    hi: int
    write: bool
    atomic: bool
    line: int | None


@dataclass
class _Log:
    host: list[HostRec] = field(default_factory=list)
    tasks: dict[Stream, list[TaskRec]] = field(default_factory=dict)  # per stream, in submission order


class Hazards:
    """Bus observer: reports races (racecheck) and frees under queued work (memcheck).

    A free is judged against a kernel by the kernel's pointer arguments (known at launch), not by
    its accesses (known only once it runs): queued work runs after the free in lazy mode.
    """

    def __init__(self, report: Report, order: Order, races: bool, frees: bool) -> None:
        self.report = report
        self.order = order
        self.races = races
        self.frees = frees
        self.logs: dict[Allocation, _Log] = {}
        self.kernels: dict[int, tuple[TaskClock, tuple[int, ...]]] = {}  # seq -> (clock, device pointer args)

    # ------------------------------------------------------------------ events
    def on_submit(self, task: Task) -> None:
        if task.kind == "kernel" and self.frees:
            tc = self.order.clock_of(task)
            ptrs = task.work.pointers
            if tc is not None and ptrs:
                self.kernels[task.seq] = (tc, ptrs)

    def on_access(self, acc: Access) -> None:
        if acc.task is None:
            o = self.order
            self._host(acc.alloc, HostRec(o.host_tick, acc.lo, acc.hi, acc.write, o.host_clock(acc.callback),
                                          acc.site, acc.what, holds=o.holding(acc.callback)))
        else:
            tc = self.order.clock_of(acc.task)
            if tc is not None:
                self._task(acc.alloc, TaskRec(tc, acc.lo, acc.hi, acc.write, False, None))

    on_host_access = on_access  # pinned host memory: host calls and copy tasks, judged the same way

    def on_kernel_access(self, ka: KernelAccess) -> None:
        tc = self.order.tasks.get(ka.task.seq)
        if tc is None:
            return
        log = self.logs.get(ka.alloc)
        if log is not None and not log.host and len(log.tasks) == 1:  # fast path: nothing else to compare with
            mine = log.tasks.get(tc.stream)
            last = mine[-1] if mine else None
            if last is not None and last.tc is tc and last.write == ka.write and last.atomic == ka.atomic:
                last.lo, last.hi = min(last.lo, max(ka.lo, 0)), max(last.hi, ka.hi)
                return
        self._task(ka.alloc, TaskRec(tc, max(ka.lo, 0), ka.hi, ka.write, ka.atomic, ka.line))

    def on_free(self, rel: Release) -> None:
        a, site = rel.alloc, rel.site
        for seq, (tc, ptrs) in list(self.kernels.items()):
            if self.order.host_covers(tc):
                del self.kernels[seq]
            elif any(a.start <= p < a.end for p in ptrs):
                h = HostRec(self.order.host_tick, 0, a.alloc_size, True, self.order.host, site, "acl.rt.free", True)
                self._found_host(a, h, TaskRec(tc, 0, a.size, False, False, None), uses=True)
        self._host(a, HostRec(self.order.host_tick, 0, a.alloc_size, True, self.order.host, site, "acl.rt.free",
                              free=True))

    def on_free_host(self, rel: Release) -> None:
        """free_host of pinned memory a queued copy still reads or writes (its log holds the copy's access)."""
        h = rel.alloc
        self._host(h, HostRec(self.order.host_tick, 0, h.alloc_size, True, self.order.host, rel.site,
                              "acl.rt.free_host", free=True))

    def on_device_reset(self, reset: DeviceReset) -> None:
        for a in reset.leaked:
            self.logs.pop(a, None)

    def on_host_wait(self, w: Any) -> None:
        if w.kind in ("stream", "event", "device"):
            self._prune()
            self.kernels = {seq: v for seq, v in self.kernels.items() if not self.order.host_covers(v[0])}

    # ------------------------------------------------------------------ checks
    def _host(self, a: Allocation, h: HostRec) -> None:
        log = self.logs.setdefault(a, _Log())
        for t in (t for recs in log.tasks.values() for t in recs):
            if _conflict(h, t) and not (h.free and t.tc.task.kind == "kernel") and not self._ordered(h, t):
                self._found_host(a, h, t)
        log.host.append(h)

    def _task(self, a: Allocation, t: TaskRec) -> None:
        log = self.logs.setdefault(a, _Log())
        kernel = t.tc.task.kind == "kernel"
        for h in log.host:
            if h.tick > t.tc.tick and _conflict(h, t) and not (h.free and kernel) and not self._ordered(h, t):
                self._found_host(a, h, t)
        if self.races:
            for s, recs in log.tasks.items():
                if s is t.tc.stream:
                    continue  # stream order separates them
                for u in recs:
                    if (_conflict(u, t) and not (u.atomic and t.atomic)
                            and not Order.before(u.tc, t.tc) and not Order.before(t.tc, u.tc)):
                        self._found_streams(a, u, t)
        mine = log.tasks.setdefault(t.tc.stream, [])
        last = mine[-1] if mine else None
        if last is not None and last.tc is t.tc and last.write == t.write and last.atomic == t.atomic:
            last.lo, last.hi = min(last.lo, t.lo), max(last.hi, t.hi)  # one hull per task and direction
            last.line = last.line if last.line is not None else t.line
        else:
            mine.append(t)

    def _ordered(self, h: HostRec, t: TaskRec) -> bool:
        """True when host call `h` and task `t` cannot overlap: the host had waited for `t`, or `h` ran
        inside a blocking callback that `t` comes after in stream order."""
        return self.order.host_covers(t.tc, h.host) or (h.holds is not None and Order.before(h.holds, t.tc))

    def _prune(self) -> None:
        """Forget what can no longer conflict with anything still to come."""
        pending = self.order.pending
        oldest = min((tc.tick for tc in pending.values()), default=None)
        for a in list(self.logs):
            log = self.logs[a]
            if oldest is None:
                log.host.clear()
                for s in list(log.tasks):
                    log.tasks[s] = [t for t in log.tasks[s] if not self.order.host_covers(t.tc)]
                    if not log.tasks[s]:
                        del log.tasks[s]
            else:
                log.host = [h for h in log.host if h.tick > oldest]
            if not log.tasks and not log.host:
                del self.logs[a]

    # ------------------------------------------------------------------ reports
    def _found_host(self, a: Allocation, h: HostRec, t: TaskRec, uses: bool = False) -> None:
        task, s = t.tc.task, t.tc.stream
        order = (max(h.tick, t.tc.tick), t.tc.tick, h.tick)
        verb = "was given a pointer into" if uses else rw(t.write)
        queued = f"{task_text(task, t.line)} {verb} it, queued on {stream_name(s)} at {where(task.site)}"
        fix_sync = f"call acl.rt.synchronize_stream({stream_arg(s)}) before {_at(h.site)}"
        if h.free:
            if not self.frees:
                return
            self.report.add(Finding(
                "memcheck", "use-after-free-queued",
                "Use after free: memory freed while queued device work still uses it",
                [f"freed at {where(h.site)}", queued, f"{alloc_text(a)}, {alloc_line(a)}",
                 f"{h.what} does not wait for queued tasks: the device touches memory that may already be reused"],
                fix_sync, ("use-after-free-queued", _loc(h.site), _loc(task.site)), order, None,
                {"free": h.site, "task": task.site, "alloc": a.site},
            ))
            return
        if not self.races:
            return
        self.report.add(Finding(
            "racecheck", "race-host-device",
            f"Race: host call {h.what} {rw(h.write)} {memory_kind(a)} that queued device work {rw(t.write)}",
            [f"host:   {h.what} {rw(h.write)} {range_text(a, h.lo, h.hi)} at {where(h.site)}",
             f"device: {queued}",
             f"nothing made the host wait for that work first, so the host sees "
             f"{'data the device has not written yet' if t.write and not h.write else 'a buffer the device is still using'}",
             f"{alloc_text(a)}, {alloc_line(a)}"],
            fix_sync, ("race-host-device", _loc(h.site), _loc(task.site)), order, None,
            {"host": h.site, "task": task.site, "alloc": a.site},
        ))

    def _found_streams(self, a: Allocation, u: TaskRec, t: TaskRec) -> None:
        first, second = (u, t) if u.tc.tick < t.tc.tick else (t, u)
        f_task, s_task = first.tc.task, second.tc.task
        kind = "write-write" if first.write and second.write else ("read-write" if second.write else "write-read")
        self.report.add(Finding(
            "racecheck", "race-stream-stream",
            f"Race ({kind}): two streams access the same {memory_kind(a)} with no event between them",
            [f"first:  {task_text(f_task, first.line)} {rw(first.write)} {range_text(a, first.lo, first.hi)} "
             f"on {stream_name(first.tc.stream)}, queued at {where(f_task.site)}",
             f"second: {task_text(s_task, second.line)} {rw(second.write)} {range_text(a, second.lo, second.hi)} "
             f"on {stream_name(second.tc.stream)}, queued at {where(s_task.site)}",
             "streams run concurrently on the device: the order of these accesses is undefined",
             f"{alloc_text(a)}, {alloc_line(a)}"],
            f"after {_at(f_task.site)} call acl.rt.record_event(event, {stream_arg(first.tc.stream)}), and before "
            f"{_at(s_task.site)} call acl.rt.stream_wait_event({stream_arg(second.tc.stream)}, event)",
            ("race-stream-stream", _loc(f_task.site), _loc(s_task.site)), (second.tc.tick, first.tc.tick), None,
            {"first": f_task.site, "second": s_task.site, "alloc": a.site},
        ))


def _conflict(x: HostRec | TaskRec, y: HostRec | TaskRec) -> bool:
    return (x.write or y.write) and x.lo < y.hi and y.lo < x.hi


def _loc(site: Site | None) -> tuple | None:
    return (site.filename, site.lineno) if site is not None else None


def _at(site: Site | None) -> str:
    return f"{short_path(site.filename)} {line_of(site)}" if site is not None else "that call"

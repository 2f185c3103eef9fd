"""Happens-before order of host calls and device tasks (vector clocks), independent of scheduling.

Edges: host program order; stream order; a task submitted after the host waited for X is ordered
after X; `stream_wait_event` orders a stream after the event's record task; host waits
(synchronize_stream/event/device, destroy_stream, a completed query, an implicit stream sync)
order the host after what they waited for. A device task's position is its stream's counter; a
vector clock maps each stream to the last position known to come before.

Every event also gets a program-order index (`tick`): host calls in call order, a task's accesses
at the index of its submission, so findings sort the same however lazily tasks run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..runtime import HostWait, Stream, Task

Clock = dict  # Stream -> position; never mutated once shared


@dataclass(eq=False)
class TaskClock:
    """A submitted task as the order model sees it."""

    task: Task
    stream: Stream
    pos: int  # 1-based position in its stream
    vc: Clock  # positions (per stream) ordered before or at this task
    tick: int  # program-order index of the submission
    done: bool = False
    subs: int = 0  # access events seen so far (sub-order inside the task)


@dataclass
class Order:
    """The order model: one per checking session."""

    tick: int = 0
    host: Clock = field(default_factory=dict)  # what the host has waited for
    streams: dict[Stream, Clock] = field(default_factory=dict)  # each stream's clock after its last task
    tasks: dict[int, TaskClock] = field(default_factory=dict)  # task.seq -> clock
    pending: dict[int, TaskClock] = field(default_factory=dict)  # submitted, not finished
    last_done: dict[Stream, TaskClock] = field(default_factory=dict)
    records: dict[int, TaskClock] = field(default_factory=dict)  # event handle -> latest record task
    host_tick: int = 0  # program-order index of the host access or free being dispatched

    def next_tick(self) -> int:
        self.tick += 1
        return self.tick

    # ------------------------------------------------------------------ bus events
    def on_submit(self, task: Task) -> None:
        s = task.stream
        vc = dict(self.streams.get(s, {}))
        _join_into(vc, self.host)
        dep = self.tasks.get(task.dep.seq) if task.dep is not None else None
        if task.kind == "wait" and dep is not None:
            _join_into(vc, dep.vc)
        pos = vc.get(s, 0) + 1
        vc[s] = pos
        self.streams[s] = vc
        tc = TaskClock(task, s, pos, vc, self.next_tick())
        self.tasks[task.seq] = tc
        self.pending[task.seq] = tc
        if task.kind == "record":
            self.records[task.work.event] = tc

    def on_access(self, acc: Any) -> None:
        if acc.task is None:
            self.host_tick = self.next_tick()

    on_host_access = on_access  # pinned host memory: the same program order

    def on_free(self, rel: Any) -> None:
        self.host_tick = self.next_tick()

    on_free_host = on_free

    def on_task_done(self, task: Task) -> None:
        tc = self.pending.pop(task.seq, None)
        if tc is not None:
            tc.done = True
            self.last_done[tc.stream] = tc

    def on_host_wait(self, w: HostWait) -> None:
        """Blocking waits tick program order; a release waits for the work it drained; a query
        counts for the tasks it saw finished (a program that polls until COMPLETE is ordered)."""
        if w.kind in ("stream", "event", "device"):
            self.next_tick()
        if w.kind == "query":
            if w.stream is not None:
                done = self.last_done.get(w.stream)
                if done is not None:
                    self.wait_task(done)
            else:
                rec = self.records.get(w.event.handle)
                if rec is not None and rec.done:
                    self.wait_task(rec)
            return
        if w.stream is not None:
            self.wait_stream(w.stream)
        elif w.event is not None:
            rec = self.records.get(w.event.handle)
            if rec is not None and w.event.record is rec.task:
                self.wait_task(rec)
        elif w.device is not None:
            for s in list(self.streams):
                if s.device_id == w.device:
                    self.wait_stream(s)
        elif w.context is not None:
            for s in list(self.streams):
                if s.context is w.context:
                    self.wait_stream(s)
        if w.kind != "release" and not self.pending:
            self.forget_finished()

    # ------------------------------------------------------------------ queries
    def wait_stream(self, s: Stream) -> None:
        vc = self.streams.get(s)
        if vc is not None:
            self.host = _joined(self.host, vc)

    def wait_task(self, tc: TaskClock) -> None:
        self.host = _joined(self.host, tc.vc)

    def host_clock(self, callback: Task | None) -> Clock:
        """What a host call has waited for: the host's waits, and for a call made inside a callback
        everything its stream ran before the callback (the callback runs in stream order)."""
        tc = self.tasks.get(callback.seq) if callback is not None else None
        return self.host if tc is None else _joined(self.host, tc.vc)

    def holding(self, callback: Task | None) -> TaskClock | None:
        """The clock of a blocking callback a host call runs inside: its stream's later tasks wait for it."""
        if callback is None or not callback.work.blocking:
            return None
        return self.tasks.get(callback.seq)

    def clock_of(self, task: Task) -> TaskClock | None:
        return self.tasks.get(task.seq)

    def tick_of(self, task: Task | None) -> int:
        """Program-order index of an access: the host call's, or its task's submission."""
        if task is None:
            return self.host_tick
        tc = self.tasks.get(task.seq)
        return tc.tick if tc is not None else self.tick

    def host_covers(self, tc: TaskClock, host: Clock | None = None) -> bool:
        """True when the host (now, or at the snapshot `host`) has waited for `tc`."""
        return (self.host if host is None else host).get(tc.stream, 0) >= tc.pos

    @staticmethod
    def before(a: TaskClock, b: TaskClock) -> bool:
        """True when task `a` happens before task `b`."""
        return b.vc.get(a.stream, 0) >= a.pos

    def pending_before(self, tick: int) -> bool:
        """True when a task submitted before program index `tick` has not run yet."""
        return any(tc.tick < tick for tc in self.pending.values())

    def forget_finished(self) -> None:
        """Drop clocks of finished tasks the host waited for (event records and stream tails stay)."""
        keep = {tc.task.seq for tc in self.records.values()} | {tc.task.seq for tc in self.last_done.values()}
        for seq in [seq for seq, tc in self.tasks.items() if tc.done and self.host_covers(tc)]:
            if seq not in keep:
                del self.tasks[seq]


def _join_into(vc: dict, other: Clock) -> None:
    for s, p in other.items():
        if vc.get(s, 0) < p:
            vc[s] = p


def _joined(a: Clock, b: Clock) -> Clock:
    if all(a.get(s, 0) >= p for s, p in b.items()):
        return a
    out = dict(a)
    _join_into(out, b)
    return out

"""Streams and events (hicann/runtime docs/zh/api_ref/06_stream_management.md, 07_event_management.md): create/destroy/synchronize/query streams, launch device work,
record/wait/query events and the time between them.

A stream is an in-order queue of tasks (work.Task) run by the scheduler; an event marks a point in
a stream (its record task) with the device time it was reached.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .. import constants as C
from ..chips import ChipProfile
from ..errors import AclError, Code
from .handles import Handles
from .observe import Bus, HostWait, api, now, user_site
from .scheduler import Scheduler
from .work import EventWork, KernelWork, Task


class Stream:
    """An in-order queue of device tasks belonging to one context."""

    def __init__(self, handle: int, context: Any, is_default: bool = False, priority: int = 0, flags: int = 0):
        self.handle = handle
        self.context = context
        self.device_id: int = context.device_id
        self.is_default = is_default
        self.priority = priority
        self.flags = flags
        self.queue: deque[Task] = deque()
        self.clock = 0.0
        self.error: tuple[int, str] | None = None
        self.busy_thread: int | None = None
        self.destroyed = False
        self.subscriber: int | None = None  # thread id receiving launch_callback reports
        self.last_task: Task | None = None
        self.driver: Any = None  # the thread running its work for a wait with a timeout (scheduler.wait)

    def __repr__(self) -> str:
        return f"<Stream {self.handle:#x} dev{self.device_id}{' default' if self.is_default else ''}>"


class Event:
    """An event: marks a point in a stream, with the device time it was reached."""

    def __init__(self, handle: int, context: Any, flags: int = 0, new_mode: bool = False) -> None:
        self.handle = handle
        self.context = context
        self.flags = flags
        self.new_mode = new_mode  # created by create_event_ex_with_flag (the runtime's "new mode" event)
        self.record: Task | None = None
        self.destroyed = False

    @property
    def timestamp(self) -> float | None:
        r = self.record
        return r.end if r is not None and r.done else None


class StreamsRoom:
    """Runtime methods for streams, events and kernel launches."""

    chip: ChipProfile
    bus: Bus
    lock: Any
    handles: Handles
    scheduler: Scheduler
    devices: list[Any]
    _reports: dict[int, deque[Task]]
    report_access: Any  # copies.CopiesRoom.report_access

    def stream(self, handle: int, fn: str = "") -> Stream:
        """The stream for a pyACL handle (0 = the current context's default stream)."""
        ctx = self.current_context(fn)
        if handle == 0:
            return ctx.default_stream
        s = self.handles.lookup(handle, Stream, fn, "stream")
        if s.context is not ctx:
            raise AclError(
                Code.ERROR_RT_STREAM_CONTEXT,
                f"{fn}: stream {handle:#x} belongs to another context (device {s.device_id}); "
                "call acl.rt.set_context with its context first",
            )
        return s

    def _event(self, handle: int, fn: str) -> Event:
        return self.handles.lookup(handle, Event, fn, "event")

    # ------------------------------------------------------------------ streams
    @api("acl.rt.create_stream")
    def create_stream(self, priority: int = 0, flags: int = 0) -> Stream:
        with self.lock:
            ctx = self.current_context("acl.rt.create_stream")
            # The limit is per device (DOC-RT 07: 1984 on A2/A3), default streams of its contexts included.
            used = sum(len(c.streams) + 1 for c in self.devices[ctx.device_id].contexts)
            if used >= self.chip.max_streams:
                raise AclError(
                    Code.ERROR_RT_NO_STREAM_RESOURCE,
                    f"acl.rt.create_stream: {self.chip.name} allows {self.chip.max_streams} streams per device "
                    f"(default streams included) and device {ctx.device_id} has {used}; destroy some",
                )
            s = Stream(0, ctx, priority=priority, flags=flags)
            s.handle = self.handles.new(s)
            ctx.streams[s.handle] = s
            return s

    @api("acl.rt.destroy_stream")
    def destroy_stream(self, handle: int, force: bool = False) -> None:
        """aclrtDestroyStream waits for the stream's unfinished tasks; aclrtDestroyStreamForce discards them
        ("forcibly destroy Stream, discarding all tasks": the runtime samples' description of the API)."""
        fn = "acl.rt.destroy_stream_force" if force else "acl.rt.destroy_stream"
        with self.lock:
            if handle == 0:
                raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the default stream (0) cannot be destroyed")
            s = self.stream(handle, fn)
            t0 = now()
            if force:
                self.scheduler.discard(s)
                for q in self._reports.values():  # and the callbacks it posted that no thread has run yet
                    for t in [t for t in q if t.stream is s]:
                        q.remove(t)
            else:
                self.scheduler.drive(s)
            if self.bus.observers:
                self.bus.emit("host_wait", HostWait("release", user_site(), t0, now(), stream=s))
            s.destroyed = True
            s.context.streams.pop(s.handle, None)
            self.handles.drop(s.handle)

    def _take_stream_error(self, s: Stream) -> None:
        if s.error is not None:
            code, msg = s.error
            s.error = None
            raise AclError(code, msg)

    @api("acl.rt.synchronize_stream")
    def synchronize_stream(self, handle: int) -> None:
        self._synchronize_stream(handle, -1, "acl.rt.synchronize_stream")

    @api("acl.rt.synchronize_stream_with_timeout")
    def synchronize_stream_with_timeout(self, handle: int, timeout_ms: int) -> None:
        """aclrtSynchronizeStreamWithTimeout: -1 waits forever; > 0 gives up after that many ms with
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046) while the work goes on; 0 or < -1 is 107000
        (ApiErrorDecorator::StreamSynchronize, hicann/runtime)."""
        fn = "acl.rt.synchronize_stream_with_timeout"
        if timeout_ms == 0 or timeout_ms < -1:
            raise AclError(Code.ERROR_RT_PARAM_INVALID, f"{fn}: timeout {timeout_ms} is invalid; pass -1 (wait "
                           "forever) or a number of ms > 0")
        self._synchronize_stream(handle, timeout_ms, fn)

    def _synchronize_stream(self, handle: int, timeout_ms: int, fn: str) -> None:
        s = self.stream(handle, fn)
        t0 = now()
        if timeout_ms < 0:
            self.scheduler.drive(s)
        elif self.scheduler.wait([(s, None)], t0 + timeout_ms / 1000) is not None:
            self._timed_out(fn, timeout_ms, s, Code.ERROR_RT_STREAM_SYNC_TIMEOUT, HostWait("query", user_site(), t0,
                                                                                          now(), stream=s))
        if self.bus.observers:
            self.bus.emit("host_wait", HostWait("stream", user_site(), t0, now(), stream=s))
        with self.lock:
            self._take_stream_error(s)

    def _timed_out(self, fn: str, timeout_ms: int, s: Stream, code: Code, seen: HostWait) -> None:
        """A wait with a timeout gave up: the host saw what had finished (a query), the work goes on."""
        if self.bus.observers:
            self.bus.emit("host_wait", seen)
        head = s.queue[0] if s.queue else None
        what = ("nothing" if head is None else f"the blocking callback {head.name!r} (waiting for acl.rt.process_report"
                " on its report thread)" if head.kind == "callback" else f"{head.kind} {head.name!r}")
        raise AclError(code, f"{fn}: the work queued on {s!r} did not finish within {timeout_ms} ms: {what} is still "
                       "running on the device and goes on; a later synchronize waits for it again "
                       "(acl.rt.destroy_stream_force drops what is still queued behind it)")

    @api("acl.rt.stream_query")
    def stream_query(self, handle: int) -> int:
        s = self.stream(handle, "acl.rt.stream_query")
        t0 = now()
        self.scheduler.drive(s, steps=1, wait_callbacks=False)  # polling makes progress
        if self.bus.observers:  # the host saw what has finished
            self.bus.emit("host_wait", HostWait("query", user_site(), t0, now(), stream=s))
        with self.lock:
            return C.ACL_STREAM_STATUS_NOT_READY if s.queue else C.ACL_STREAM_STATUS_COMPLETE

    @api("acl.rt.stream_wait_event")
    def stream_wait_event(self, stream: int, event: int) -> Task:
        fn = "acl.rt.stream_wait_event"
        with self.lock:
            s = self.stream(stream, fn)
            e = self._event(event, fn)
            task = Task("wait", f"wait event {event:#x}", None, work=EventWork(e.handle), dep=e.record)
            if self.bus.observers:
                task.site = user_site()
            return self.scheduler.submit(s, task)

    @api("acl.rt.launch_kernel")
    def launch(self, stream: int | Stream, task: Task, fn: str = "kernel launch") -> Task:
        """Queue device work (a kernel, or a model/operator/DVPP/BLAS call) on a stream; the faces call this.

        The buffers the work declares (`KernelWork.buffers`) are reported to the observers as the task's
        reads and writes, ordered like a kernel's against frees, reuse and other streams."""
        with self.lock:
            s = stream if isinstance(stream, Stream) else self.stream(stream, fn)
            if s.destroyed:
                raise AclError(Code.ERROR_RT_INVALID_HANDLE, f"{fn}: the stream was destroyed")
            if self.bus.observers and task.site is None:
                task.site = user_site()
            self.scheduler.submit(s, task)
            work = task.work
            if self.bus.observers and type(work) is KernelWork:
                for b in work.buffers:
                    self.report_access(b.region, b.write, task, work.api or fn, task.site)
            return task

    # ------------------------------------------------------------------ events
    @api("acl.rt.create_event")
    def create_event(self, flags: int = 0, new_mode: bool = False) -> Event:
        """A new event; `new_mode` for create_event_ex_with_flag (ApiImpl::EventCreateEx)."""
        with self.lock:
            ctx = self.current_context("acl.rt.create_event")
            used = sum(len(c.events) for c in self.devices[ctx.device_id].contexts)
            if used >= self.chip.max_events:  # per device (DOC-RT 07: 65536 on A2/A3/950/310B)
                raise AclError(
                    Code.ERROR_RT_NO_EVENT_RESOURCE,
                    f"acl.rt.create_event: {self.chip.name} allows {self.chip.max_events} events per device and "
                    f"device {ctx.device_id} has {used}; destroy events you no longer use",
                )
            e = Event(0, ctx, flags, new_mode)
            e.handle = self.handles.new(e)
            ctx.events[e.handle] = e
            return e

    @api("acl.rt.destroy_event")
    def destroy_event(self, handle: int) -> None:
        with self.lock:
            e = self._event(handle, "acl.rt.destroy_event")
            e.destroyed = True
            e.context.events.pop(handle, None)
            self.handles.drop(handle)

    @api("acl.rt.record_event")
    def record_event(self, event: int, stream: int) -> Task:
        fn = "acl.rt.record_event"
        with self.lock:
            e = self._event(event, fn)
            s = self.stream(stream, fn)
            task = Task("record", f"record event {event:#x}", None, work=EventWork(e.handle))
            if self.bus.observers:
                task.site = user_site()
            e.record = task
            return self.scheduler.submit(s, task)

    @api("acl.rt.reset_event")
    def reset_event(self, event: int, stream: int) -> None:
        fn = "acl.rt.reset_event"
        with self.lock:
            e = self._event(event, fn)
            self.stream(stream, fn)
            e.record = None

    @api("acl.rt.query_event_status")
    def query_event_status(self, event: int) -> int:
        with self.lock:
            e = self._event(event, "acl.rt.query_event_status")
            r = e.record
        if r is None:
            # Event::QueryEventStatus (hicann/runtime src/runtime/core/src/event/event.cc): with no record,
            # "newMode return RT_EVENT_RECORDED oldMode return RT_EVENT_INIT"; aclrtQueryEventStatus maps
            # INIT to NOT_READY. Only create_event_ex_with_flag makes new-mode events (ApiImpl::EventCreateEx).
            return C.ACL_EVENT_RECORDED_STATUS_COMPLETE if e.new_mode else C.ACL_EVENT_RECORDED_STATUS_NOT_READY
        t0 = now()
        self.scheduler.drive(r.stream, until=r, steps=1, wait_callbacks=False)
        if self.bus.observers:
            self.bus.emit("host_wait", HostWait("query", user_site(), t0, now(), event=e))
        return C.ACL_EVENT_RECORDED_STATUS_COMPLETE if r.done else C.ACL_EVENT_RECORDED_STATUS_NOT_READY

    @api("acl.rt.synchronize_event")
    def synchronize_event(self, event: int) -> None:
        self._synchronize_event(event, -1, "acl.rt.synchronize_event")

    @api("acl.rt.synchronize_event_with_timeout")
    def synchronize_event_with_timeout(self, event: int, timeout_ms: int) -> None:
        """aclrtSynchronizeEventWithTimeout: -1 waits forever, >= 0 gives up after that many ms with
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT (507047); < -1 is 107000 (aclrtSynchronizeEventWithTimeoutImpl)."""
        fn = "acl.rt.synchronize_event_with_timeout"
        if timeout_ms < -1:
            raise AclError(Code.ERROR_RT_PARAM_INVALID, f"{fn}: timeout {timeout_ms} is invalid; pass -1 to wait "
                           "forever or a number of ms >= 0")
        self._synchronize_event(event, timeout_ms, fn)

    def _synchronize_event(self, event: int, timeout_ms: int, fn: str) -> None:
        with self.lock:
            e = self._event(event, fn)
            r = e.record
        t0 = now()
        if r is not None and timeout_ms < 0:
            self.scheduler.drive(r.stream, until=r)
        elif r is not None and self.scheduler.wait([(r.stream, r)], t0 + timeout_ms / 1000) is not None:
            self._timed_out(fn, timeout_ms, r.stream, Code.ERROR_RT_EVENT_SYNC_TIMEOUT,
                            HostWait("query", user_site(), t0, now(), event=e))
        if self.bus.observers:
            self.bus.emit("host_wait", HostWait("event", user_site(), t0, now(), event=e))

    @api("acl.rt.event_elapsed_time")
    def event_elapsed_time(self, start: int, end: int) -> float:
        """Milliseconds between two completed records (end - start; negative if end came first).

        Codes from Event::ElapsedTime (hicann/runtime event.cc) through errcode_manage.cc: an event with no
        record -> RT_ERROR_EVENT_RECORDER_NULL -> ACL_ERROR_RT_INTERNAL_ERROR (507000); a record the device
        has not reached has no timestamp -> RT_ERROR_EVENT_TIMESTAMP_INVALID (107006).
        """
        fn = "acl.rt.event_elapsed_time"
        with self.lock:
            a, b = self._event(start, fn), self._event(end, fn)
            for name, e in (("start", a), ("end", b)):
                if e.record is None:
                    raise AclError(
                        Code.ERROR_RT_INTERNAL_ERROR,
                        f"{fn}: the {name} event was never recorded (or was reset); call "
                        "acl.rt.record_event on it first",
                    )
            for name, e in (("start", a), ("end", b)):
                if not e.record.done:
                    raise AclError(
                        Code.ERROR_RT_EVENT_TIMESTAMP_INVALID,
                        f"{fn}: the {name} event's record has not run yet, so it has no timestamp; "
                        "call acl.rt.synchronize_event on it first",
                    )
            return (b.record.end - a.record.end) * 1000.0

"""Callbacks (hicann/runtime docs/zh/api_ref/06_stream_management.md: aclrtSubscribeReport,
aclrtLaunchCallback, aclrtProcessReport): subscribe_report, launch_callback, process_report.

A callback task, when the stream reaches it, is posted to the report queue of the thread that
subscribed to the stream; that thread runs it inside `process_report`. A blocking callback holds
its stream until it returned (the scheduler waits for `CallbackWork.processed`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any

from .. import constants as C
from ..errors import AclError, Code
from .observe import api, now
from .scheduler import Scheduler
from .work import CallbackWork, Task

_running = threading.local()  # .task: the callback task this (report) thread is running, if any


def running_callback() -> Task | None:
    """The launch_callback task whose function is running on this thread, or None."""
    return getattr(_running, "task", None)


class CallbacksRoom:
    """Runtime methods for host callbacks and their report threads."""

    lock: Any
    scheduler: Scheduler
    devices: list[Any]
    _reports: dict[int, deque[Task]]  # report thread id -> callbacks posted to it, in order

    @api("acl.rt.subscribe_report")
    def subscribe_report(self, thread_id: int, stream: int) -> None:
        fn = "acl.rt.subscribe_report"
        with self.lock:
            s = self.stream(stream, fn)
            if s.subscriber is not None:
                raise AclError(Code.ERROR_REPEAT_SUBSCRIBE, f"{fn}: the stream is already subscribed by thread {s.subscriber}")
            s.subscriber = thread_id

    @api("acl.rt.unsubscribe_report")
    def unsubscribe_report(self, thread_id: int, stream: int) -> None:
        fn = "acl.rt.unsubscribe_report"
        with self.lock:
            s = self.stream(stream, fn)
            if s.subscriber != thread_id:
                # pyACL's code table retires ACL_ERROR_STREAM_NOT_SUBSCRIBE (100034) for
                # ACL_ERROR_RT_STREAM_NO_CB_REG (107015), which the runtime returns now.
                raise AclError(
                    Code.ERROR_RT_STREAM_NO_CB_REG,
                    f"{fn}: thread {thread_id} is not subscribed to this stream"
                    + (f" (thread {s.subscriber} is)" if s.subscriber is not None else ""),
                )
            self.scheduler.drive(s)
            s.subscriber = None

    @api("acl.rt.launch_callback")
    def launch_callback(self, fn_: Callable, args: Any, block_type: int, stream: int) -> Task:
        fn = "acl.rt.launch_callback"
        if block_type not in (C.ACL_CALLBACK_NO_BLOCK, C.ACL_CALLBACK_BLOCK):  # checked first (aclrtLaunchCallbackImpl)
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: block_type must be 0 or 1, got {block_type}")
        with self.lock:
            s = self.stream(stream, fn)
            if s.subscriber is None:
                raise AclError(
                    Code.ERROR_RT_STREAM_NO_CB_REG,
                    f"{fn}: no thread is subscribed to this stream; call acl.rt.subscribe_report(thread_id, stream) first",
                )
            work = CallbackWork(fn_, args, block_type == C.ACL_CALLBACK_BLOCK, s.subscriber)
            task = Task("callback", getattr(fn_, "__name__", "callback"), None, work=work)
            return self.scheduler.submit(s, task)

    def _post_callback(self, task: Task) -> None:
        with self.lock:
            self._reports.setdefault(task.work.subscriber, deque()).append(task)
            self.lock.notify_all()

    def _run_inline(self, task: Task) -> None:
        """The waiting thread is the callback's report thread: run it here rather than deadlock."""
        with self.lock:
            q = self._reports.get(task.work.subscriber)
            if q is None or task not in q:
                return
            q.remove(task)
        with contextlib.suppress(AclError):  # a callback that raised: already printed; the wait goes on
            self._run_callback(task)

    def _run_callback(self, task: Task) -> None:
        """Run a callback on this (report) thread. An exception it raises is printed and reported with
        500000 by process_report; it never ends the report thread's loop (an emulator choice: pyACL prints
        the Python error of a failed callback and its report loop goes on)."""
        work = task.work
        work.runner = threading.get_ident()  # lets a wait from inside the callback be refused
        outer, _running.task = running_callback(), task
        try:
            work.fn(work.args)
        except Exception as e:
            print(f"aclsim: the callback {task.name!r} launched with acl.rt.launch_callback raised:", file=sys.stderr)
            traceback.print_exception(e, file=sys.stderr)
            raise AclError(
                Code.ERROR_INTERNAL_ERROR,
                f"acl.rt.process_report: the callback {task.name!r} raised {type(e).__name__}: {e} "
                "(traceback on stderr); the stream goes on",
            ) from None
        finally:
            _running.task = outer
            self.scheduler.complete_callback(task)

    def _take_report(self, me: int) -> Task | None:
        q = self._reports.get(me)
        return q.popleft() if q else None

    @api("acl.rt.process_report")
    def process_report(self, timeout_ms: int) -> None:
        """Run one callback posted to this thread, waiting up to `timeout_ms` (-1: forever).

        Codes as aclrtProcessReportImpl (hicann/runtime src/acl/aclrt_impl) and rtProcessReport:
        timeout 0 or < -1 -> 100000; a thread subscribed to nothing -> ACL_ERROR_RT_THREAD_SUBSCRIBE (107012);
        no callback in time -> ACL_ERROR_RT_REPORT_TIMEOUT (507012). pyACL's code table retires the older
        100035/100036 for these two.
        """
        fn = "acl.rt.process_report"
        if timeout_ms == 0 or timeout_ms < -1:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: timeout {timeout_ms} is invalid; pass -1 to wait forever or a number of ms > 0",
            )
        me = threading.current_thread().ident  # (registers foreign threads, so their liveness is known)
        with self.lock:
            mine = [s for d in self.devices for c in d.contexts for s in c.all_streams() if s.subscriber == me]
            if not mine:
                raise AclError(
                    Code.ERROR_RT_THREAD_SUBSCRIBE,
                    f"{fn}: this thread ({me}) is not subscribed to any stream; call "
                    "acl.rt.subscribe_report(thread_id, stream) with this thread's id first",
                )
        deadline = None if timeout_ms < 0 else now() + timeout_ms / 1000
        while True:
            with self.lock:
                task = self._take_report(me)
            if task is None:
                for s in mine:  # polling makes progress: let the device reach the next callback
                    self.scheduler.drive(s, steps=1, wait_callbacks=False)
                with self.lock:
                    task = self._take_report(me)
                    if task is None:
                        remaining = None if deadline is None else deadline - now()
                        if remaining is not None and remaining <= 0:
                            raise AclError(Code.ERROR_RT_REPORT_TIMEOUT, f"{fn}: no callback within {timeout_ms} ms")
                        self.lock.wait(0.01 if remaining is None else min(0.01, remaining))
                        continue
            self._run_callback(task)
            return

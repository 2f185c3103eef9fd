"""The scheduler: runs each stream's queued tasks in order, as events allow.

Execution model: device work is queued per stream and runs in stream order, and only as event
waits allow. In the default "lazy" mode the device does not run ahead of the host: queued work
executes when the host waits on it or polls it (synchronize, query, destroy). So a program that
forgets to synchronize reads stale data deterministically, as it can on hardware. "eager" mode
runs each task as soon as it is submitted (ACLSIM_SCHEDULE=eager).

Every task carries a modeled device clock: it starts no earlier than it was submitted, than the
previous task on its stream ended, or than the event it waits for; it lasts as long as the
emulator took to run it.

A wait with a timeout (`wait`: synchronize_*_with_timeout) must return on time whatever the work is (a
kernel that never ends, a blocking callback nobody processes), so it does not run the work on the
waiting thread: a driver thread of the stream ("the device") runs it, without the runtime lock while a
task's body runs, and the host waits for it until the deadline. On a timeout the work goes on running,
as on the device; a later wait picks it up, a teardown (`close`) stops waiting for it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from ..errors import AclError, Code
from .observe import Bus, EventWait, now
from .work import CallbackWork, KernelFault, Task


def _thread_alive(ident: int | None) -> bool:
    return any(t.ident == ident for t in threading.enumerate())


def _blocking_callback(task: Task) -> CallbackWork | None:
    w = task.work
    return w if type(w) is CallbackWork and w.blocking else None


class Scheduler:
    """Runs queued tasks when the host waits or polls (or at submit in eager mode)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.cv = threading.Condition(threading.RLock())
        self.mode = os.environ.get("ACLSIM_SCHEDULE", "lazy").lower()
        if self.mode not in ("lazy", "eager"):
            raise ValueError(f"ACLSIM_SCHEDULE must be 'lazy' or 'eager', got {self.mode!r}")
        self._seq = 0
        self._waiting = 0  # threads in _wait: notify only when someone listens (notify_all costs ~1 us)
        self.post_callback: Callable[[Task], None] | None = None  # set by the runtime
        self.run_inline: Callable[[Task], None] | None = None  # runs a callback on its own report thread
        self.closing = False  # the runtime is torn down: waits stop waiting for driver threads
        self._local = threading.local()  # .driver: this thread is a stream's driver (runs task bodies unlocked)

    def _wait(self) -> None:
        """Wait (holding cv) for another thread's progress; polls, so a missed notify costs at most 50 ms."""
        self._waiting += 1
        try:
            self.cv.wait(0.05)
        finally:
            self._waiting -= 1

    def _notify(self) -> None:
        if self._waiting:
            self.cv.notify_all()

    def submit(self, stream: Any, task: Task) -> Task:
        with self.cv:
            self._seq += 1
            task.seq = self._seq
            task.stream = stream
            task.submit_time = now()
            stream.queue.append(task)
            stream.last_task = task
            if self.bus.observers:
                self.bus.emit("submit", task)
            if self.mode == "eager":
                self.drive(stream, wait_callbacks=False)
        return task

    def drive(
        self, stream: Any, until: Task | None = None, steps: int | None = None, wait_callbacks: bool = True
    ) -> None:
        """Run `stream`'s tasks in order until `until` is done, the queue is empty or `steps` ran."""
        me = threading.get_ident()
        with self.cv:
            while stream.queue and not (until is not None and until.done):
                if self.closing and (stream.busy_thread not in (None, me) or self._driving()):
                    return  # teardown: a driver thread may run a task that never ends; nobody waits for it
                if stream.busy_thread is not None and stream.busy_thread != me:
                    if steps is not None or not wait_callbacks:
                        return  # a poll: another thread is running this stream, so it progresses anyway
                    head = stream.queue[0]
                    if _blocking_callback(head) is not None:
                        self._check_callback_can_finish(stream, head)  # that thread may wait for us
                        if self._run_mine(head):
                            continue
                    self._wait()
                    continue
                task = stream.queue[0]
                if task.kind == "wait" and task.dep is not None and not task.dep.done:
                    self.drive(task.dep.stream, task.dep, wait_callbacks=wait_callbacks)
                    if not task.dep.done:
                        return  # blocked behind a callback nobody has processed yet
                    continue
                cb = _blocking_callback(task)
                pending_cb = cb is not None and not cb.processed
                if pending_cb and not wait_callbacks and stream.error is None:
                    if not task.posted:
                        self._post(task)
                    return
                if steps is not None:
                    if steps <= 0:
                        return
                    steps -= 1
                outer, stream.busy_thread = stream.busy_thread, me  # a callback may drive its stream again
                try:
                    self._execute(stream, task, wait_callbacks)
                except BaseException:  # KeyboardInterrupt, SystemExit: the task ended, failed; the host goes on
                    if task.done and stream.queue and stream.queue[0] is task:
                        stream.queue.popleft()
                        self._notify()
                    raise
                finally:
                    stream.busy_thread = outer
                if not task.done:
                    return  # a blocking callback still pending and we may not wait
                stream.queue.popleft()
                self._notify()

    # ------------------------------------------------------------------ waits with a deadline
    def wait(self, targets: list[tuple[Any, Task | None]], deadline: float) -> Any | None:
        """Wait (host clock `deadline`) for each (stream, task) target: the task done, or with task None the
        stream's queue empty, while driver threads run the work (all streams at once, as the device does).
        Returns None, or the first stream whose work did not finish in time (the work goes on). AclError when
        the work can never finish (a blocking callback whose report thread is gone), as `drive` raises it."""
        with self.cv:
            drivers = {id(s): self._driver(s, until) for s, until in targets if not self._reached(s, until)}
        for stream, until in targets:
            driver = drivers.get(id(stream))
            while not self._reached(stream, until):
                remaining = deadline - now()
                if remaining <= 0:
                    return stream
                head = stream.queue[0] if stream.queue else None
                if head is not None and self._run_mine(head):
                    continue
                assert driver is not None
                if not driver.is_alive():
                    if driver.error is not None:
                        raise driver.error
                    with self.cv:
                        driver = self._driver(stream, until)  # it stopped short (e.g. teardown began): again
                driver.finished.wait(min(remaining, 0.01))
        return None

    @staticmethod
    def _reached(stream: Any, until: Task | None) -> bool:
        return until.done if until is not None else not stream.queue

    def _driver(self, stream: Any, until: Task | None) -> _Driver:
        """The stream's driver thread, started if none is running (holding cv)."""
        d = stream.driver
        if d is None or not d.is_alive():
            d = stream.driver = _Driver(self, stream, until)
            d.start()
        return d

    def _driving(self) -> bool:
        return getattr(self._local, "driver", False)

    def _run_mine(self, head: Task) -> bool:
        """Run `head` here if it is a posted blocking callback whose report thread is this one (a thread waiting
        for its own callback would otherwise wait forever)."""
        cb = _blocking_callback(head)
        if (cb is None or cb.processed or not head.posted or cb.subscriber != threading.get_ident()
                or self.run_inline is None):
            return False
        self.run_inline(head)
        return True

    def _run_body(self, task: Task) -> None:
        """Run the task's work; on a driver thread without the runtime lock, so the host can go on (and the
        work can call into the runtime) while it runs."""
        assert task.fn is not None
        if not self._driving():
            task.fn(task)
            return
        saved = self.cv._release_save()  # type: ignore[attr-defined]  # (all recursion levels of the RLock)
        try:
            task.fn(task)
        finally:
            self.cv._acquire_restore(saved)  # type: ignore[attr-defined]

    @staticmethod
    def _check_callback_can_finish(stream: Any, task: Task) -> None:
        """Refuse to wait for a blocking callback that can never finish (the wait would hang forever).

        Two cases, both a deadlock on hardware: the waiting thread is the one running the callback
        (the callback synchronizes, destroys or resets its own stream), or the subscribed report
        thread has exited, so no process_report will ever run it. aclsim reports them instead of
        hanging (an emulator choice: CANN documents neither).
        """
        cb = task.work
        assert type(cb) is CallbackWork
        if cb.processed:
            return  # it ran; the thread waiting on it is about to move on
        runner = cb.runner
        if runner == threading.get_ident():
            raise AclError(
                Code.ERROR_RT_PARAM_INVALID,
                f"{stream!r} cannot finish while its blocking callback {task.name!r} runs, and this call was "
                "made from inside that callback (it would wait for itself: a deadlock on hardware); "
                "synchronize after the callback returns, or launch the callback with block_type 0",
            )
        sub = cb.subscriber
        if runner is None and sub != threading.get_ident() and not _thread_alive(sub):
            raise AclError(
                Code.ERROR_RT_STREAM_SYNC_TIMEOUT,
                f"{stream!r} waits for blocking callback {task.name!r}, but its report thread {sub} has exited "
                "(or never existed), so no acl.rt.process_report will run it; keep the subscribed thread "
                "calling process_report until the stream is synchronized",
            )

    def discard(self, stream: Any) -> None:
        """Drop the stream's queued tasks unrun (a task being run, e.g. the callback calling this, finishes).

        A dropped task counts as done, so event waits and synchronizes that name it do not wait forever;
        observers get its `task_done` (with `task.discarded` set) so their bookkeeping closes.
        """
        with self.cv:
            dropped = list(stream.queue)[0 if stream.busy_thread is None else 1 :]
            for task in dropped:
                task.start = task.end = max(task.submit_time, stream.clock)
                task.done = True
                task.keep = None
                task.discarded = True
                stream.queue.remove(task)
                if self.bus.observers:
                    self.bus.emit("task_done", task)
            self._notify()

    def _post(self, task: Task) -> None:
        task.posted = True
        assert self.post_callback is not None
        self.post_callback(task)

    def _execute(self, stream: Any, task: Task, wait_callbacks: bool) -> None:
        start = max(task.submit_time, stream.clock)
        if task.dep is not None and task.dep.done:
            start = max(start, task.dep.end)
            if self.bus.observers:
                self.bus.emit("event_wait", EventWait(task, task.dep))
        task.start = start
        if stream.error is not None and task.kind not in ("record", "wait"):
            task.error = stream.error  # the stream faulted: later work is dropped until it is reported
        elif task.kind == "callback":
            if not task.posted:
                self._post(task)
            cb = _blocking_callback(task)
            if cb is not None:
                while not cb.processed and wait_callbacks:
                    self._check_callback_can_finish(stream, task)
                    if cb.subscriber == threading.get_ident() and self.run_inline is not None:
                        self.run_inline(task)
                        continue
                    self._wait()
                if not cb.processed:
                    return
        elif task.fn is not None:
            t0 = now()
            try:
                self._run_body(task)
            except KernelFault as e:
                task.error = (e.code, str(e))
                stream.error = task.error
                cause = e.__cause__
                if isinstance(cause, Exception) and not isinstance(cause, KernelFault):
                    task.error_cause = type(cause).__name__
            except Exception as e:  # any failure of device work is a device fault
                task.error = (int(Code.ERROR_RT_INTERNAL_ERROR), f"{task.name}: {type(e).__name__}: {e}")
                stream.error = task.error
                task.error_cause = type(e).__name__
            except BaseException as e:
                # Interrupted part way (Ctrl-C in a synchronize): running it again would apply the blocks that
                # already ran twice, so the task ends here, failed, and the stream reports it at its next wait.
                task.error = (int(Code.ERROR_RT_INTERNAL_ERROR),
                              f"{task.name} was interrupted ({type(e).__name__}) while it ran: its results are "
                              "partial, and later work on the stream was dropped; launch it again")
                stream.error = task.error
                task.interrupted = True
                task.exec_time = now() - t0
                self._finish(stream, task)
                raise
            task.exec_time = now() - t0
        self._finish(stream, task)

    def _finish(self, stream: Any, task: Task) -> None:
        task.end = task.start + task.exec_time
        stream.clock = task.end
        task.done = True
        task.keep = None
        if self.bus.observers or self.bus.listeners:  # light listeners too: `aclsim run` names failed work
            self.bus.emit("task_done", task)

    def complete_callback(self, task: Task) -> None:
        """Mark a callback task as processed by its report thread."""
        with self.cv:
            task.work.processed = True
            self._notify()


class _Driver(threading.Thread):
    """Runs a stream's queued work for a wait with a timeout (the device side of that wait)."""

    def __init__(self, scheduler: Scheduler, stream: Any, until: Task | None) -> None:
        super().__init__(name=f"aclsim-device-{stream.handle:#x}", daemon=True)  # never holds the process up
        self.scheduler, self.stream, self.until = scheduler, stream, until
        self.error: BaseException | None = None
        self.finished = threading.Event()

    def run(self) -> None:
        self.scheduler._local.driver = True
        try:
            self.scheduler.drive(self.stream, self.until)
        except BaseException as e:  # handed to the waiting host (an AclError), or the end of this thread
            self.error = e
        finally:
            self.finished.set()

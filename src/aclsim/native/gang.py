"""The AI Cores of a native Ascend C launch, run one at a time, handing over when one must wait.

The cores of a launch run in parallel on the chip; aclsim runs their bodies one after another on the
launching thread, which gives the same result whenever the cores never wait for each other. A core that
waits (SyncAll, cross-core flags: kernel code calls `aclsim_core_wait(ready, arg)`, see docs/c.md) hands
over: to the first suspended core whose wait is now satisfied, else to the next core not started yet (on a
thread of its own, so that the waiting core keeps its stack, Python frames included), else, when no core
can run, the first suspended core's wait can never be satisfied (on hardware the launch hangs): it returns
False and the kernel faults naming what it waited for. One core runs at any time and the order never
depends on timing, so runs are deterministic (the semantics of the Python engine's scheduler).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

_here = threading.local()  # the gang and slot of the core this thread runs


class Gang:
    """Runs `body(slot)` for slots 0 .. count - 1; `wait(ready)` suspends the running core."""

    def __init__(self, count: int, body: Callable[[int], None]) -> None:
        self.count = count
        self.body = body
        self.cv = threading.Condition()
        self.started = 0
        self.finished = 0
        self.suspended: list[tuple[int, Callable[[], bool]]] = []  # in the order they suspended
        self.turn: int | None = None  # the suspended slot that may run now
        self.doomed: set[int] = set()
        self.error: BaseException | None = None
        self.helpers: list[threading.Thread] = []

    def run(self) -> None:
        """Run every core; re-raise the first core's failure."""
        self._serve()
        with self.cv:
            self.cv.wait_for(lambda: self.finished == self.count)
        for t in self.helpers:
            t.join()
        if self.error is not None:
            raise self.error

    def _serve(self) -> None:
        """This thread runs cores until it handed the turn over (or nothing is left)."""
        while True:
            with self.cv:
                slot = self._choose()
            if slot is None:
                return
            _here.gang, _here.slot = self, slot
            try:
                self.body(slot)
            except BaseException as e:  # the launching thread re-raises it
                with self.cv:
                    self.error = self.error or e
            finally:
                _here.gang = None
                with self.cv:
                    self.finished += 1
                    self.cv.notify_all()

    def _choose(self) -> int | None:
        """(lock held) The slot this thread starts now, or None after handing the turn to a suspended core."""
        if self.error is not None:  # a core failed: start no other, release the waiting ones one by one
            self.finished += self.count - self.started
            self.started = self.count
            if self.suspended:
                self.doomed.update(s for s, _ in self.suspended)
                self._give(self.suspended[0][0])
            self.cv.notify_all()
            return None
        ready = next((s for s, ok in self.suspended if ok()), None)
        if ready is not None:
            self._give(ready)
            return None
        if self.started < self.count:
            self.started += 1
            return self.started - 1
        if self.suspended:  # nobody can run and somebody waits: that wait is never satisfied
            self.doomed.add(self.suspended[0][0])
            self._give(self.suspended[0][0])
        return None

    def _give(self, slot: int) -> None:
        self.turn = slot
        self.cv.notify_all()

    def wait(self, slot: int, ready: Callable[[], bool]) -> bool:
        """Suspend core `slot` until `ready()`; False when no core can ever make it true (or one failed)."""
        if ready():
            return True
        with self.cv:
            self.suspended.append((slot, ready))
            if self.started < self.count and not any(ok() for s, ok in self.suspended if s != slot):
                self.turn = None
                t = threading.Thread(target=self._serve, name=f"aclsim-core-{self.started}", daemon=True)
                self.helpers.append(t)
                t.start()
            else:
                self._choose()
            self.cv.wait_for(lambda: self.turn == slot)
            self.turn = None
            self.suspended = [(s, ok) for s, ok in self.suspended if s != slot]
            if slot in self.doomed:
                self.doomed.discard(slot)
                return False
        return True


def current() -> tuple[Gang, int] | None:
    """The gang and slot of the core running on this thread, if any."""
    gang = getattr(_here, "gang", None)
    return (gang, _here.slot) if gang is not None else None

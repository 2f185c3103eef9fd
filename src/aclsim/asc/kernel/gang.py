"""The cores of one launch, run one at a time in a fixed order, handing over when one must wait.

On the chip the cores of a launch run in parallel. A kernel whose cores never wait for each other
computes the same in any order, so aclsim runs them one after another on the launching thread. A
core that must wait for another (`cross_core_wait_flag`, `sync_all`: sync/crosscore.py) hands over: to
the first suspended core whose wait is now satisfied, else to the next core not yet started, which
gets a thread of its own. Exactly one core runs at any time and the choice never depends on timing,
so a run is deterministic. When no core can run and some are suspended, their waits can never be
satisfied (on hardware the launch hangs): the first suspended core faults with a message naming
what it waits for and where the cores it waits on are.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np


class _Abort(BaseException):
    """Unwinds a suspended core after another core of the launch faulted."""


class KernelReturn(BaseException):
    """Ends the running core's body there, as a `return` in the kernel function would."""


class Gang:
    """Runs `body(slot)` for the cores 0 .. count - 1 of a launch; `wait` suspends the running core."""

    def __init__(self, count: int, body: Callable[[int], None]) -> None:
        self.count = count
        self.body = body  # one core's kernel body; raises the core's fault
        self.cv = threading.Condition()
        self.next = 0  # index of the next core to start
        self.turn: Any = None  # the suspended core that holds the right to run
        self.waits: dict[Any, Callable[[], bool]] = {}  # suspended cores (in suspension order) -> "may resume"
        self.doomed: set[Any] = set()  # suspended cores told to fault (deadlock) or unwind (abort)
        self.error: BaseException | None = None
        self.finished = False
        self.threads: list[threading.Thread] = []

    def run(self) -> None:
        """Run every core (on this thread while none waits); re-raise the first core's fault."""
        self._work()
        with self.cv:
            self.cv.wait_for(lambda: self.finished)
        for t in self.threads:
            t.join()
        if self.error is not None:
            raise self.error

    def _thread(self) -> None:
        with np.errstate(all="ignore"):  # as the launching thread: the vector unit yields inf/nan silently
            self._work()

    def _work(self) -> None:
        """Holding the right to run, with no core on this thread: start cores until handing over."""
        while True:
            with self.cv:
                if not self._pass_on():
                    return
                slot = self.next
                self.next += 1
            try:
                self.body(slot)
            except _Abort:
                pass
            except BaseException as e:  # the launching thread re-raises it
                with self.cv:
                    self.error = self.error or e

    def _pass_on(self) -> bool:
        """With the lock held by the running thread: True if it should start the next core itself;
        else the right to run went to a suspended core, or everything is over."""
        if self.error is not None:  # unwind the suspended cores one by one, then stop
            if self.waits:
                self._hand(next(iter(self.waits)), doom=True)
                return False
        else:
            ready = self._ready()
            if ready is not None:
                self._hand(ready)
                return False
            if self.next < self.count:
                return True
            if self.waits:  # nobody can run, somebody waits: that wait can never be satisfied
                self._hand(next(iter(self.waits)), doom=True)
                return False
        self.finished = True
        self.cv.notify_all()
        return False

    def _ready(self) -> Any:
        return next((c for c, ok in self.waits.items() if ok()), None)

    def _hand(self, core: Any, doom: bool = False) -> None:
        if doom:
            self.doomed.add(core)
        self.turn = core
        self.cv.notify_all()

    def wait(self, core: Any, ok: Callable[[], bool]) -> bool:
        """Suspend the running `core` until `ok()`; False when it never will be (no core can run), in
        which case the caller faults. Raises _Abort when another core faulted meanwhile."""
        if ok():
            return True
        with self.cv:
            self.waits[core] = ok
            if self._ready() is None and self.next < self.count:
                t = threading.Thread(target=self._thread, name=f"aclsim-core-{self.next}", daemon=True)
                self.threads.append(t)
                self.turn = None
                t.start()  # the new thread starts the next core
            else:
                self._pass_on()
            self.cv.wait_for(lambda: self.turn is core)
            del self.waits[core]
            if core in self.doomed:
                self.doomed.discard(core)
                if self.error is not None:
                    raise _Abort
                return False
        return True

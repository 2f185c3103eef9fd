"""A one-line progress display for long device work, on a terminal only.

A watcher thread looks a few times a second at what runs: device tasks that are executing (a stream is
busy with its first task: `Runtime.executing()`) and synchronous copies in progress (the runtime's typed
`copy_start` / `copy_end` events, `CopyInFlight`, which the watcher hears as a light listener of the bus).
Once one has run longer than `after` seconds it shows its name, size and elapsed time, and the fraction
done when the kernel engine reports `task.work.progress = (done, total)`. Uses `rich` when it is
installed, else a plain carriage-return line. Silent when not a TTY.

Listening lightly turns on no record the runtime builds for observers, so the watcher adds no cost to
API calls. While a line is shown the watcher also subscribes for `task_done`: the host thread that
finishes the task erases the line before it returns to the program, so the program's next print never
lands on (or under) a stale line. A copy's line goes when its `copy_end` arrives or at the next poll.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from ..runtime import CopyInFlight, KernelWork, current_runtime
from ..runtime.observe import Bus, now
from .units import fmt_bytes


def describe_task(task: Any) -> str:
    w = task.work
    done = None
    if type(w) is KernelWork:
        if w.cores is not None:
            shape = f" on {w.cores} cores"
        elif w.grid is not None:
            shape = f" grid {tuple(w.grid)} block {tuple(w.block or ())}"
        else:
            shape = ""
        text = f"kernel {task.name}{shape}"
        done = w.progress
    else:
        nbytes = getattr(w, "nbytes", None)
        text = task.name + (f" {fmt_bytes(nbytes)}" if nbytes is not None else "")
    if done is not None and done[1]:
        text += f" {100 * done[0] / done[1]:.0f}%"
    return text


def _describe_copy(rec: CopyInFlight) -> str:
    return f"{rec.api.rsplit('.', 1)[-1]} {fmt_bytes(rec.nbytes)}"


class _PlainLine:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown = False

    def show(self, text: str) -> None:
        self.out.write("\r\x1b[K" + text)
        self.out.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self.shown = False


class _RichLine:
    def __init__(self, out: TextIO) -> None:
        from rich.console import Console

        self.console = Console(file=out)
        self.status: Any = None

    def show(self, text: str) -> None:
        if self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def clear(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


def _line(out: TextIO) -> _PlainLine | _RichLine:
    try:
        return _RichLine(out)
    except ImportError:
        return _PlainLine(out)


class ProgressWatcher:
    """Shows long-running device work on `out` when it is a terminal."""

    def __init__(self, out: TextIO | None = None, after: float = 2.0, interval: float = 0.25) -> None:
        self.out = out if out is not None else sys.stderr
        self.after = after
        self.interval = interval
        self._first_seen: dict[Any, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # orders showing the line (watcher) and erasing it (host thread)
        self._line: _PlainLine | _RichLine | None = None
        self._shown: set[Any] = set()  # identities of the work on the line
        self._bus: Bus | None = None  # the bus whose task_done we listen to while a line is shown
        self._heard: Bus | None = None  # the bus we listen to lightly, for copies in flight
        self._copies: dict[int, CopyInFlight] = {}  # copies in flight, by id of their record

    @property
    def active(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start watching, unless `out` is not a terminal."""
        isatty = getattr(self.out, "isatty", None)
        if self._thread is not None or not (isatty and isatty()):
            return
        self._line = _line(self.out)
        self._thread = threading.Thread(target=self._run, name="aclsim-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if self._heard is not None:
            self._heard.unlisten(self)
            self._heard = None

    def _hear(self) -> None:
        """Listen lightly to the runtime the program made (a new one after reset_runtime) for copies in flight."""
        rt = current_runtime()
        if rt is not None and rt.bus is not self._heard:
            if self._heard is not None:
                self._heard.unlisten(self)
            self._heard = rt.bus
            self._copies = {}
            rt.bus.listen(self)

    def on_copy_start(self, rec: CopyInFlight) -> None:
        """Bus event, in the host thread starting a synchronous copy or fill."""
        self._copies[id(rec)] = rec

    def on_copy_end(self, rec: CopyInFlight) -> None:
        """Bus event, in the host thread that finished it: its line (if shown) goes now."""
        self._copies.pop(id(rec), None)
        with self._lock:
            if id(rec) in self._shown:
                self._clear()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                self._refresh()
        finally:
            with self._lock:
                self._clear()

    def _refresh(self) -> None:
        text, keys = self.line(now(), self.running())
        with self._lock:
            if text:
                self._listen()
                # The work may have ended since running() looked: show the line only if all of it
                # still runs now that we listen, so a task_done will erase it.
                text = text if keys <= {key for key, _ in self.running()} else ""
            if text:
                assert self._line is not None
                self._line.show(text)
                self._shown = keys
            else:
                self._clear()

    def on_task_done(self, task: Any) -> None:
        """Bus event, in the host thread that ran `task`: erase the line if it shows `task`."""
        with self._lock:
            if task in self._shown:
                self._clear()

    def _listen(self) -> None:
        rt = current_runtime()
        if self._bus is None and rt is not None:
            self._bus = rt.bus
            self._bus.subscribe(self)

    def _clear(self) -> None:
        if self._line is not None:
            self._line.clear()
        self._shown = set()
        if self._bus is not None:
            self._bus.unsubscribe(self)
            self._bus = None

    def running(self) -> list[tuple[Any, Callable[[], str]]]:
        """(identity, describe()) of device work executing right now."""
        found: list[tuple[Any, Callable[[], str]]] = []
        # Only look at a runtime the program has already created: making one here would fix its
        # configuration (ACLSIM_*) before the program had a chance to set it.
        self._hear()
        rt = current_runtime()
        try:
            for task in rt.executing() if rt is not None else ():
                found.append((task, functools.partial(describe_task, task)))
        except (RuntimeError, IndexError):  # the host changed the structures under us: try next time
            pass
        for key, rec in list(self._copies.items()):
            found.append((key, functools.partial(_describe_copy, rec)))
        return found

    def line(self, t: float, running: list[tuple[Any, Callable[[], str]]]) -> tuple[str, set[Any]]:
        """The line to show at time `t` for `running` ('' when nothing has run longer than `after`),
        and the identities of the work it covers."""
        seen = {key: self._first_seen.get(key, t) for key, _ in running}
        self._first_seen = seen
        long = [(t - seen[key], key, describe) for key, describe in running if t - seen[key] >= self.after]
        if not long:
            return "", set()
        elapsed, _, describe = max(long, key=lambda x: x[0])
        more = f" (+{len(long) - 1} more)" if len(long) > 1 else ""
        return f"aclsim: {describe()} running for {elapsed:.0f} s{more}", {key for _, key, _ in long}

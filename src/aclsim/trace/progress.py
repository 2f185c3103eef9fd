"""A one-line progress display for long device work, on a terminal only.

A watcher thread looks at the runtime a few times a second (it subscribes to nothing, so it adds
no cost to API calls): device tasks that are executing (a stream is busy with its first task)
and synchronous copies in progress (a host thread inside `Runtime.memcpy`/`memset`/`memcpy2d`).
Once one has run longer than `after` seconds it shows its name, size and elapsed time, and the
fraction done when the kernel engine reports `task.info["progress"] = (done, total)`.
Uses `rich` when it is installed, else a plain carriage-return line. Silent when not a TTY.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, TextIO

from ..runtime import Runtime, core
from ..runtime.observe import now
from .units import fmt_bytes

# Code objects of the runtime's synchronous copy methods -> how many bytes their frame moves.
_SYNC_COPIES = {
    inspect.unwrap(Runtime.memcpy).__code__: lambda f: f.get("count", 0),
    inspect.unwrap(Runtime.memset).__code__: lambda f: f.get("count", 0),
    inspect.unwrap(Runtime.memcpy2d).__code__: lambda f: f.get("width", 0) * f.get("height", 0),
}


def describe_task(task: Any) -> str:
    info = task.info
    if task.kind == "kernel":
        if "cores" in info:
            shape = f" on {info['cores']} cores"
        elif "grid" in info:
            shape = f" grid {tuple(info['grid'])} block {tuple(info.get('block', ()))}"
        else:
            shape = ""
        text = f"kernel {task.name}{shape}"
    else:
        text = task.name + (f" {fmt_bytes(info['bytes'])}" if "bytes" in info else "")
    done = info.get("progress")
    if done is not None and done[1]:
        text += f" {100 * done[0] / done[1]:.0f}%"
    return text


def _describe_copy(frame: FrameType, size: Callable[[dict], int]) -> str:
    return f"{frame.f_code.co_name} {fmt_bytes(size(frame.f_locals))}"


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

    @property
    def active(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start watching, unless `out` is not a terminal."""
        isatty = getattr(self.out, "isatty", None)
        if self._thread is not None or not (isatty and isatty()):
            return
        self._thread = threading.Thread(target=self._run, name="aclsim-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        line = _line(self.out)
        try:
            while not self._stop.wait(self.interval):
                text = self.poll()
                if text:
                    line.show(text)
                else:
                    line.clear()
        finally:
            line.clear()

    def running(self) -> list[tuple[Any, Callable[[], str]]]:
        """(identity, describe()) of device work executing right now."""
        found: list[tuple[Any, Callable[[], str]]] = []
        # Only look at a runtime the program has already created: making one here would fix its
        # configuration (ACLSIM_*) before the program had a chance to set it.
        rt = core._RUNTIME
        try:
            for dev in rt.devices if rt is not None else ():
                for ctx in list(dev.contexts):
                    for s in [ctx.default_stream, *list(ctx.streams.values())]:
                        if s.busy_thread is not None and s.queue:
                            task = s.queue[0]
                            found.append((task, functools.partial(describe_task, task)))
        except (RuntimeError, IndexError):  # the host changed the structures under us: try next time
            pass
        for tid, frame in sys._current_frames().items():
            f = frame
            while f is not None:
                size = _SYNC_COPIES.get(f.f_code)
                if size is not None:
                    found.append(((tid, id(f)), functools.partial(_describe_copy, f, size)))
                    break
                f = f.f_back
        return found

    def poll(self) -> str:
        """The line to show now ('' when nothing has run longer than `after`)."""
        t = now()
        running = self.running()
        seen = {key: self._first_seen.get(key, t) for key, _ in running}
        self._first_seen = seen
        long = [(t - seen[key], describe) for key, describe in running if t - seen[key] >= self.after]
        if not long:
            return ""
        elapsed, describe = max(long, key=lambda x: x[0])
        more = f" (+{len(long) - 1} more)" if len(long) > 1 else ""
        return f"aclsim: {describe()} running for {elapsed:.0f} s{more}"

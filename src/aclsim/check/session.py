"""A checking session: the tools subscribed to the runtime's bus, and the final report."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import Any, TextIO

from ..runtime import get_runtime
from .findings import Finding, Report
from .hazards import Hazards
from .initcheck import InitCheck
from .kindcheck import KindCheck
from .leakcheck import LeakCheck
from .memcheck import MemCheck
from .multicore import MultiCore
from .order import Order
from .synccheck import SyncCheck

TOOLS = ("memcheck", "racecheck", "initcheck", "leakcheck")
# msSanitizer's synccheck judges the synchronisation inside an AI Core; here an unpaired wait_flag always
# faults and pipe hazards (the missing set_flag/wait_flag pairs) are racecheck's, so the name selects racecheck
ALIASES = {"synccheck": "racecheck"}


def parse_tools(spec: str) -> list[str]:
    """`"all"` or a comma-separated subset of TOOLS, in canonical order; ValueError otherwise."""
    names = {ALIASES.get(n, n) for n in (t.strip().lower() for t in spec.split(",")) if n}
    if not names:
        raise ValueError("no sanitizer tool given; use --check all or a list like memcheck,leakcheck")
    if "all" in names:
        return list(TOOLS)
    unknown = sorted(names - set(TOOLS))
    if unknown:
        raise ValueError(f"unknown sanitizer tool {', '.join(map(repr, unknown))}; choose from {', '.join(TOOLS)} or all "
                         "(synccheck is racecheck)")
    return [t for t in TOOLS if t in names]


class Session:
    """Tools listening on the runtime from construction until `stop()` (or `finish()`, which also reports)."""

    def __init__(self, tools: list[str], error_exitcode: int | None = None, json_path: str | None = None,
                 out: TextIO | None = None) -> None:
        self.tools = tools
        self.error_exitcode = error_exitcode
        self.json_path = json_path
        self.out = out
        self.report = Report(tools)
        self.order = Order()
        self.initcheck = InitCheck(self.report, self.order) if "initcheck" in tools else None
        self.leakcheck = LeakCheck(self.report) if "leakcheck" in tools else None
        observers: list[Any] = [self.order]
        if "memcheck" in tools:
            observers += [MemCheck(self.report, self.order), MultiCore(self.report, self.order)]
        if "memcheck" in tools or "racecheck" in tools:
            observers.append(Hazards(self.report, self.order, races="racecheck" in tools, frees="memcheck" in tools))
        if "racecheck" in tools:
            observers.append(SyncCheck(self.report, self.order))
        observers += [o for o in (self.initcheck, self.leakcheck) if o is not None]
        observers.append(KindCheck(self.report, self.order))
        self.observer = _Dispatch(observers, self.report, self.order)
        self.finished = False
        self.json_failed = False
        get_runtime().bus.subscribe(self.observer)

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings

    def stop(self, end: str = "process exit", interrupted: str | None = None) -> None:
        """Let queued device work run (as the device would), judge what is left, stop listening.

        Allocations still live are leaks at `end` (the moment named in their reports). When the
        program was `interrupted` (e.g. "SIGTERM"), the queued work is not run and live allocations
        are not judged: the report keeps what was found until then. A Ctrl-C while the queued work
        runs does the same, then propagates (`finish` keeps it to write the report).
        """
        if self.finished:
            return
        self.finished = True
        rt = get_runtime()
        stopped: KeyboardInterrupt | None = None
        try:
            if interrupted is None:
                rt.settle()
        except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM under `aclsim run` (raised as KeyboardInterrupt("SIGTERM"))
            stopped, interrupted = e, str(e) or "SIGINT"
        with _signals_held():
            self.report.interrupted = interrupted
            if self.initcheck is not None:
                self.initcheck.resolve(final=interrupted is None)
            if self.leakcheck is not None and interrupted is None:
                self.leakcheck.report_live(end)
            rt.bus.unsubscribe(self.observer)
        if stopped is not None:
            raise stopped

    def finish(self, interrupted: str | None = None) -> int | None:
        """Stop, print the report (stderr), write the JSON file; the exit code to use when errors were found.

        `interrupted` names the signal that stopped the program (see `stop`).
        """
        if self.finished:
            return self._override()
        with contextlib.suppress(KeyboardInterrupt):  # stopped early: the report says so, and is what is awaited
            self.stop(interrupted=interrupted)
        with _signals_held():  # a second Ctrl-C must not cut the report short
            self.report.write_text(self.out or sys.stderr)
            if self.json_path:
                try:
                    self.report.write_json(self.json_path)
                except OSError as e:  # (written whole or not at all: nothing truncated is left behind)
                    print(f"aclsim: cannot write the sanitizer report to {self.json_path}: {e}",
                          file=self.out or sys.stderr)
                    self.json_failed = True
        return self._override()

    def _override(self) -> int | None:
        """The exit status to use: --error-exitcode when errors were found, 1 when the JSON report could not be
        written, None to keep the program's own."""
        if self.report.error_count and self.error_exitcode is not None:
            return self.error_exitcode
        return 1 if self.json_failed else None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ignore SIGINT and SIGTERM for a moment (while the report is written); main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


class _Dispatch:
    """The one bus observer of a session: each `on_<event>` calls the tools handling it, in order.

    It defines only the events some tool handles, so `bus.wants("kernel_access")` stays false
    (and kernels stay unobserved) when no kernel-side tool is on. A tool that fails does not
    break the program: the failure becomes an `internal-error` finding.
    """

    def __init__(self, tools: list[Any], report: Report, order: Order) -> None:
        lock = threading.RLock()  # events arrive from any host thread; the tools see them one at a time
        names = sorted({n for t in tools for n in dir(t) if n.startswith("on_")})
        for name in names:
            setattr(self, name, _chain([getattr(t, name) for t in tools if hasattr(t, name)], report, order, lock))


def _chain(handlers: list[Any], report: Report, order: Order, lock: threading.RLock) -> Any:
    def call(record: Any) -> None:
        with lock:
            _call_each(handlers, record, report, order)

    return call


def _call_each(handlers: list[Any], record: Any, report: Report, order: Order) -> None:
    for h in handlers:
        try:
            h(record)
        except Exception as e:  # a checker bug must not change the program's behaviour
            where = f"{type(h.__self__).__name__}.{h.__name__}"
            report.add(Finding(
                "aclsim", "internal-error", f"Internal sanitizer error in {where}: {type(e).__name__}: {e}",
                ["".join(traceback.format_exception(e, limit=-3)).rstrip()],
                "findings may be incomplete; please report this with the program that triggers it",
                ("internal-error", where, type(e).__name__), (order.tick,),
            ))

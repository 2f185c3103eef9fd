"""A tracing session: what `aclsim run --trace/--summary` starts before the program and finishes after."""

from __future__ import annotations

import sys
from typing import TextIO

from ..runtime import get_runtime
from .chrome import write
from .faults import FaultNotice
from .model import CostModel
from .progress import ProgressWatcher
from .recorder import Recorder
from .summary import render
from .timeline import Timeline, build


class TraceSession:
    """Records the run (when a trace or a summary is wanted), shows progress on a terminal and notes device
    work that failed (`self.faults.line()`, for `aclsim run` to print when the program exited 0)."""

    def __init__(self, trace_path: str | None = None, summary: bool = False, out: TextIO | None = None) -> None:
        self.trace_path = trace_path
        self.summary = summary
        self.out = out if out is not None else sys.stderr
        self.recorder: Recorder | None = None
        rt = get_runtime()
        self.faults = FaultNotice()
        rt.bus.listen(self.faults)  # light: turns no record on
        if trace_path or summary:
            CostModel.for_chip(rt.chip)  # a bad ACLSIM_MODEL* override fails now, not after the program ran
            self.recorder = Recorder()
            rt.bus.subscribe(self.recorder)
        self.progress = ProgressWatcher(self.out)
        self.progress.start()

    def __enter__(self) -> TraceSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    def timeline(self) -> Timeline:
        """What was recorded so far, as spans."""
        assert self.recorder is not None, "this session records nothing (no trace_path, no summary)"
        chip = get_runtime().chip
        return build(self.recorder, chip, CostModel.for_chip(chip))

    def finish(self) -> int | None:
        """Stop recording, write the trace and print the summary; 1 when the trace cannot be written."""
        self.progress.stop()
        bus = get_runtime().bus
        if self.faults in bus.listeners:
            bus.unlisten(self.faults)
        if self.recorder is None or self.recorder not in get_runtime().bus.observers:
            return None  # recording nothing, or finished already
        get_runtime().bus.unsubscribe(self.recorder)
        tl = self.timeline()
        status = None
        if self.trace_path:
            try:
                write(tl, self.trace_path)
                print(f"aclsim: trace written to {self.trace_path} (open it in https://ui.perfetto.dev)", file=self.out)
            except OSError as e:
                print(f"aclsim: cannot write the trace to {self.trace_path}: {e}", file=self.out)
                status = 1
        if self.summary:
            print(render(tl), file=self.out)
        return status


def start_session(trace_path: str | None = None, summary: bool = False) -> TraceSession:
    """Start recording; call `.finish()` when done, or use it as `with start_session("t.json"): ...`."""
    try:
        return TraceSession(trace_path, summary)
    except ValueError as e:  # a bad ACLSIM_MODEL* override (or ACLSIM_SOC)
        raise SystemExit(f"aclsim run: {e}") from None

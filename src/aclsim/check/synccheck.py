"""racecheck's pipe hazards inside an AI Core: UB bytes two pipes touch with nothing ordering them.

The pipes of an AI Core (MTE2 moves GM -> UB, V computes, MTE3 moves UB -> GM, S is the scalar
unit) run concurrently; each runs its own instructions in order, and only `set_flag(X_Y)` /
`wait_flag(X_Y)`, `pipe_barrier(PIPE_ALL)` and the queue events the framework inserts (enque, deque,
alloc_tensor, free_tensor) order one pipe after another. A pipe reading bytes another pipe wrote
(RAW), or writing bytes another pipe read or wrote (WAR, WAW), with no such order between the two is
a race on hardware, which aclsim's in-order execution hides. msSanitizer reports it as
"Potential RAW hazard detected at UB" with both pipes and lines (user guide, racecheck report:
`PIPE_V Write at ... add_custom.cpp:520` / `PIPE_MTE3 Read at ...`); npuchk calls it ErrorSync2.

Order is tracked with vector clocks, one per pipe: an access of pipe p is the t-th instruction of
p; pipe q has seen it when q's clock holds p >= t. set_flag snapshots the setting pipe's clock,
the matching wait_flag (first in, first out per event and id) joins it into the waiting pipe's;
PIPE_ALL and queue operations join every clock (inference: a queue operation orders the buffer's
producer and consumer through the framework's events; joining every pipe never reports a race the
framework's events prevent, at the price of missing one that crosses it on other bytes). Accesses of
one pipe never race each other (pipe_barrier of one pipe needs no modelling). The scalar unit issues
every instruction in program order and stalls on its own waits and loads, so an instruction of any
pipe comes after every earlier wait_flag(X_S) and get_value (inference from the in-order scalar
unit); a set_value is not ordered that way: a store reaches UB late, which is why S_V, S_MTE2 and
S_MTE3 events exist. Each UB byte keeps, per
pipe, its latest write and its latest read (a pipe's own accesses are in order, so the latest one
tells whether another pipe has seen them all; a write that overwrote another pipe's bytes without
order was reported then). Kernels in auto-synchronisation mode (LocalTensorAuto,
`insert_sync=True`) send no records: the compiler places their synchronisation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..runtime import PipeAccess, PipeSync, Task
from .describe import kernel_where
from .findings import Finding, Report, where
from .order import Order

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
_INDEX = {p: i for i, p in enumerate(PIPES)}
_S = _INDEX["S"]
_ROLES = {"RAW": ("Write", "Read"), "WAR": ("Read", "Write"), "WAW": ("Write", "Write")}  # (earlier, later) access


@dataclass
class _Core:
    """Clocks and UB shadow of the core a launch is running (cores run one after another)."""

    key: tuple[int, int]  # (task.seq, core)
    size: int = 0
    vc: np.ndarray = field(default_factory=lambda: _clocks())
    s_read: int = 0  # S's clock at its latest get_value: what every later-issued instruction comes after
    issued: np.ndarray | None = None  # what every instruction issued now comes after (None: recompute)
    flags: dict[tuple[str, str, int], list[np.ndarray]] = field(default_factory=dict)
    # per pipe and UB byte, the index (in `accesses`) of the pipe's latest write / read of it, -1 for none
    writes: dict[int, np.ndarray] = field(default_factory=dict)
    reads: dict[int, np.ndarray] = field(default_factory=dict)
    accesses: list[PipeAccess] = field(default_factory=list)
    ids: dict[int, list[int]] = field(default_factory=dict)  # pipe -> index of its t-th access at [t - 1]

    def grow(self, hi: int) -> None:
        if hi <= self.size:
            return
        n, self.size = self.size, max(hi, 2 * self.size, 4096)
        for table in (self.writes, self.reads):
            for p, last in table.items():
                table[p] = np.concatenate([last, np.full(self.size - n, -1, np.int32)])

    def shadow(self, table: dict[int, np.ndarray], pipe: int) -> np.ndarray:
        last = table.get(pipe)
        if last is None:
            last = table[pipe] = np.full(self.size, -1, np.int32)
        return last

    def after(self, pipe: int, known: int) -> int:
        """Accesses of `pipe` with an index above this are not among the first `known` ones."""
        return self.ids[pipe][known - 1] if known else -1


def _issue(st: _Core, pipe: int) -> np.ndarray:
    """Pipe `pipe`'s clock once the scalar unit has issued its next instruction."""
    vc = st.vc[pipe]
    if pipe != _S:
        if st.issued is None:
            st.issued = st.vc[_S].copy()
            st.issued[_S] = st.s_read
        np.maximum(vc, st.issued, out=vc)
    return vc


def _clocks() -> np.ndarray:
    """One vector clock per pipe: row p, column r = how many of r's accesses p has seen."""
    return np.zeros((len(PIPES), len(PIPES)), np.int64)


class SyncCheck:
    """Bus observer: unsynchronised pipe accesses to the same UB bytes of one core."""

    tool = "racecheck"

    def __init__(self, report: Report, order: Order) -> None:
        self.report = report
        self.order = order
        self.core: _Core | None = None

    def _state(self, task: Task, core: int) -> _Core:
        key = (task.seq, core)
        st = self.core
        if st is None or st.key != key:
            st = self.core = _Core(key)
        return st

    def on_pipe_sync(self, s: PipeSync) -> None:
        st = self._state(s.task, s.core)
        if s.kind == "set":
            st.flags.setdefault((s.src, s.dst, s.event_id), []).append(_issue(st, _INDEX[s.src]).copy())
        elif s.kind == "wait":
            pending = st.flags.get((s.src, s.dst, s.event_id))
            if pending:  # (a wait with no set faults the kernel in the engine)
                vc = _issue(st, _INDEX[s.dst])
                np.maximum(vc, pending.pop(0), out=vc)
                st.issued = None
        elif s.kind == "queue" or (s.kind == "barrier" and s.src == "ALL"):
            st.vc[:] = st.vc.max(axis=0)
            st.issued = None

    def on_pipe_access(self, a: PipeAccess) -> None:
        if a.hi <= a.lo:
            return
        st = self._state(a.task, a.core)
        st.grow(a.hi)
        q = _INDEX[a.pipe]
        known = _issue(st, q)
        lo, hi = a.lo, a.hi
        for table, kind in ((st.writes, "WAW" if a.write else "RAW"), (st.reads, "WAR")):
            if kind == "WAR" and not a.write:
                break
            for p, last in table.items():
                if p != q:
                    seg = last[lo:hi]
                    after = st.after(p, known[p])
                    if seg.max() > after:
                        self._report(a, st, seg, after, kind)
        ident = len(st.accesses)
        st.accesses.append(a)
        st.shadow(st.writes if a.write else st.reads, q)[lo:hi] = ident
        st.ids.setdefault(q, []).append(ident)
        known[q] += 1
        if q == _S:
            if not a.write:
                st.s_read = known[q]
            st.issued = None

    def on_task_done(self, task: Task) -> None:
        if self.core is not None and self.core.key[0] == task.seq:
            self.core = None

    def _report(self, b: PipeAccess, st: _Core, seg: np.ndarray, after: int, kind: str) -> None:
        """`seg`: the earlier pipe's latest access index per byte of b's range; those above `after` race b."""
        first = int(np.argmax(seg > after))
        a = st.accesses[int(seg[first])]
        n = int((seg == seg[first]).sum())
        lo = b.lo + first
        task = b.task
        event = f"{a.pipe}_{b.pipe}"
        first_op, then_op = _ROLES[kind]
        lines = [
            f"PIPE_{a.pipe} {first_op} by {a.api} at {kernel_where(task, a.line)}",
            f"PIPE_{b.pipe} {then_op} by {b.api} at {kernel_where(task, b.line)}",
            f"{n} bytes from UB offset {lo:#x} in block {b.core} (aiv) of kernel {task.name}: nothing orders "
            f"PIPE_{b.pipe} after PIPE_{a.pipe}, so on hardware it may run first; aclsim runs in program order and "
            "hides it",
            f"launched at {where(task.site)}",
        ]
        if a.api.startswith("AscendC::") or b.api.startswith("AscendC::"):  # a kernel in C++ (kernel_operator.h)
            fix = (f"AscendC::SetFlag<AscendC::HardEvent::{event}>(eventId) after line {a.line} and "
                   f"AscendC::WaitFlag<AscendC::HardEvent::{event}>(eventId) before line {b.line} "
                   "(or pass the tensor through a queue: EnQue / DeQue)")
        else:
            fix = (f"asc.set_flag(asc.HardEvent.{event}, event_id) after line {a.line} and "
                   f"asc.wait_flag(asc.HardEvent.{event}, event_id) before line {b.line} "
                   "(or pass the tensor through a queue: enque / deque)")
        self.report.add(Finding(
            self.tool, f"pipe-{kind.lower()}-hazard",
            f"Potential {kind} hazard detected at UB: PIPE_{b.pipe} {then_op.lower()}s UB bytes PIPE_{a.pipe} "
            f"{first_op.lower()}s, with no synchronisation between them",
            lines, fix,
            ("pipe-hazard", kind, task.name, getattr(task.work, "source", None), a.pipe, a.line, b.pipe, b.line),
            (self.order.tick, a.line or 0, b.line or 0), None, {"launch": task.site},
        ))

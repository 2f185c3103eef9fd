"""Turn a Recorder's raw records into tracks of spans, flow arrows and memory counters.

Host spans are the API calls of each host thread, the time the host spent waiting for the device
inside them ("host-wait", also when a call waits implicitly), a kernel launch is drawn as
"launch NAME", and device work queued outside any API call gets a zero-length "launch" span. Device spans
follow the runtime's modeled device clock (`task.start` .. `task.end`). A synchronous
memcpy/memset queues no task: it is drawn on its context's default stream over the host call.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..chips import ChipProfile
from .model import CostModel
from .recorder import Call, Recorder, Submit
from .units import fmt_bytes

StreamKey = tuple[int, int, int]  # (device, context handle, stream handle)


@dataclass(eq=False, slots=True)
class Span:
    """One slice on a track: host thread (`thread`) or device stream (`stream`, `lane`)."""

    name: str
    cat: str  # api, sync, host-wait, memcpy, memset, kernel, record, wait, callback, launch
    t0: float
    t1: float
    thread: int | None = None
    stream: StreamKey | None = None
    lane: int = 0  # > 0 only when a synchronous copy overlaps queued work on the same stream
    site: str | None = None  # host calls: where the program made them
    ret: int = 0  # host calls: the ACL return code
    seq: int | None = None  # the device task's number (device spans and launches)
    info: dict[str, Any] = field(default_factory=dict)  # device spans: bytes, direction, grid, block, cores...
    emulator: float = 0.0  # device spans: measured seconds
    modeled: float | None = None  # device spans: modeled NPU seconds
    error: str | None = None  # device spans: the fault it raised


@dataclass
class Timeline:
    """Everything a trace or a summary shows, in perf_counter seconds."""

    origin: float  # the trace's time zero
    chip: ChipProfile
    model: CostModel
    threads: dict[int, str]
    host: list[Span] = field(default_factory=list)
    device: list[Span] = field(default_factory=list)
    flows: list[tuple[Span, float, Span]] = field(default_factory=list)  # (from span, at time, to span)
    memory: dict[int, list[tuple[float, int]]] = field(default_factory=dict)  # device -> (time, bytes in use)
    syncs: list[tuple[str, float, float, int, str]] = field(default_factory=list)  # host waits
    never_ran: list[Submit] = field(default_factory=list)

    @functools.cached_property
    def streams(self) -> list[StreamKey]:
        """Device streams in display order: by device, default streams first, then first use."""
        first: dict[StreamKey, float] = {}
        for s in self.device:
            first.setdefault(s.stream, s.t0)
        return sorted(first, key=lambda k: (k[0], k[2] != 0, first[k]))

    def stream_label(self, key: StreamKey) -> str:
        dev, ctx, handle = key
        if handle:
            return f"stream {handle:#x}"
        contexts = {k[1] for k in self.streams if k[0] == dev and k[2] == 0}
        return "default stream" + (f" (context {ctx:#x})" if len(contexts) > 1 else "")


_CATEGORY = {
    "acl.rt.memcpy": "memcpy", "acl.rt.memcpy_async": "memcpy", "acl.rt.memcpy2d": "memcpy",
    "acl.rt.memcpy2d_async": "memcpy", "acl.rt.memset": "memset", "acl.rt.memset_async": "memset",
    "acl.rt.record_event": "record", "acl.rt.stream_wait_event": "wait", "acl.rt.launch_callback": "callback",
}


def _host_category(name: str) -> str:
    if name.startswith("launch "):
        return "launch"
    return "sync" if "synchronize" in name else _CATEGORY.get(name, "api")


def _device_name(kind: str, name: str, info: dict) -> str:
    if kind in ("memcpy", "memset") and "bytes" in info:
        return f"{name} {fmt_bytes(info['bytes'])}"
    return name


def build(rec: Recorder, chip: ChipProfile, model: CostModel) -> Timeline:
    """Spans, flows and counters for everything `rec` saw."""
    tl = Timeline(rec.origin, chip, model, dict(rec.threads), syncs=list(rec.syncs))
    calls = sorted(rec.calls, key=lambda c: c.t0)
    sites: dict[Any, str] = {}
    by_thread: dict[int, list[tuple[Call, Span]]] = defaultdict(list)
    for c in calls:
        site = sites.get(c.site)
        if site is None and c.site is not None:
            site = sites[c.site] = str(c.site)
        span = Span(c.name, _host_category(c.name), c.t0, c.t1, thread=c.thread, site=site, ret=c.ret)
        tl.host.append(span)
        by_thread[c.thread].append((c, span))
        if c.work is not None:
            dev, ctx, kind, direction, nbytes = c.work
            info = {"bytes": nbytes, "direction": direction} if direction else {"bytes": nbytes}
            short = c.name.removeprefix("acl.rt.")
            name = _device_name(kind, f"{short} {direction}" if direction else short, info)
            dspan = _device_span(model, kind, name, c.t0, c.t1, c.t1 - c.t0, (dev, ctx, 0), info, None)
            tl.device.append(dspan)
            tl.flows.append((span, c.t0, dspan))
    for _, t0, t1, thread, what in rec.syncs:  # inside the call that waited (synchronize, or an implicit wait)
        tl.host.append(Span(f"wait for {what}", "host-wait", t0, t1, thread=thread))
    starts = {t: [c.t0 for c, _ in lst] for t, lst in by_thread.items()}
    reach = {t: list(itertools.accumulate((c.t1 for c, _ in lst), max)) for t, lst in by_thread.items()}

    by_seq: dict[int, Span] = {}
    for d in rec.done:
        span = _device_span(model, d.kind, _device_name(d.kind, d.name, d.info), d.start, d.end, d.exec_time,
                            d.stream, d.info, d.error)
        span.seq = d.seq
        by_seq[d.seq] = span
        tl.device.append(span)

    for sub in rec.submits:
        target = by_seq.get(sub.seq)
        if target is None:
            tl.never_ran.append(sub)
            continue
        host = _enclosing_call(by_thread.get(sub.thread, []), starts.get(sub.thread, []),
                               reach.get(sub.thread, []), sub.time)
        if host is None:  # queued outside any API call: a kernel launch
            host = Span(f"launch {sub.name}", "launch", sub.time, sub.time, thread=sub.thread, seq=sub.seq)
            tl.host.append(host)
        tl.flows.append((host, sub.time, target))
    for wait_seq, record_seq in rec.waits:
        src, dst = by_seq.get(record_seq), by_seq.get(wait_seq)
        if src is not None and dst is not None:
            tl.flows.append((src, src.t0, dst))

    _assign_lanes(tl.device)
    used: dict[int, int] = defaultdict(int)
    for dev in sorted({s.stream[0] for s in tl.device} | {m[1] for m in rec.memory}):
        tl.memory[dev] = [(rec.origin, 0)]
    for t, dev, delta in sorted(rec.memory):
        used[dev] += delta
        tl.memory[dev].append((t, used[dev]))
    return tl


def _device_span(
    model: CostModel, kind: str, name: str, t0: float, t1: float, emulator: float, stream: StreamKey,
    info: dict, error: tuple[int, str] | None,
) -> Span:
    modeled = _modeled(model, kind, tuple(info.items()))
    return Span(name, kind, t0, t1, stream=stream, info=info, emulator=emulator, modeled=modeled,
                error=None if error is None else f"{error[0]}: {error[1]}")


@functools.lru_cache(maxsize=4096)
def _modeled(model: CostModel, kind: str, info: tuple) -> float | None:
    """Modeled time, memoized: a loop launches the same kernel with the same shape many times."""
    return model.task_time(kind, dict(info))


def _enclosing_call(calls: list[tuple[Call, Span]], starts: list[float], reach: list[float], t: float) -> Span | None:
    """The innermost API call of one thread running at time `t`.

    `calls` are sorted by start; `reach[j]` is the latest end among calls[0..j], so the search
    stops as soon as no earlier call can still be running (usually at once).
    """
    j = bisect.bisect_right(starts, t) - 1
    while j >= 0 and reach[j] >= t:
        c, span = calls[j]
        if c.t1 >= t:
            return span
        j -= 1
    return None


def _assign_lanes(spans: list[Span]) -> None:
    """Give overlapping spans of one stream separate lanes (only synchronous copies can overlap)."""
    ends: dict[StreamKey, list[float]] = defaultdict(list)
    for s in sorted(spans, key=lambda s: (s.t0, s.t1)):
        lanes = ends[s.stream]
        for i, end in enumerate(lanes):
            if end <= s.t0:
                s.lane, lanes[i] = i, s.t1
                break
        else:
            s.lane = len(lanes)
            lanes.append(s.t1)

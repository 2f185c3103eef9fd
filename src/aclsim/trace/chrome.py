"""Write a Timeline as a Chrome trace-event JSON file (opens in ui.perfetto.dev and chrome://tracing).

Layout: process 1 is the host with one thread track per host thread; process 100 + d is NPU d
with one thread track per stream and a counter track of device memory in use. Spans are
complete events ("X"), arrows from a host call to the device work it queued are flow events
("s" bound to the host slice, "f" with "bp": "e" bound to the enclosing device slice), and all
timestamps are microseconds since the trace started.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .. import __version__
from .timeline import Span, StreamKey, Timeline

HOST_PID = 1
DEVICE_PID = 100


def _us(t: float, origin: float) -> float:
    return round((t - origin) * 1e6, 3)


def events(tl: Timeline) -> list[dict[str, Any]]:
    """The traceEvents list for `tl`."""
    o = tl.origin
    out: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": HOST_PID, "tid": 0, "args": {"name": f"host (pid {os.getpid()})"}},
        {"ph": "M", "name": "process_sort_index", "pid": HOST_PID, "tid": 0, "args": {"sort_index": 0}},
    ]
    threads = sorted({s.thread for s in tl.host}, key=lambda t: (tl.threads.get(t) != "MainThread", t))
    host_tid = {t: i + 1 for i, t in enumerate(threads)}
    for t, tid in host_tid.items():
        out.append({"ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": tid,
                    "args": {"name": f"host thread {tl.threads.get(t, t)}"}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": HOST_PID, "tid": tid, "args": {"sort_index": tid}})

    devices = sorted({k[0] for k in tl.streams()} | set(tl.memory))
    for d in devices:
        out.append({"ph": "M", "name": "process_name", "pid": DEVICE_PID + d, "tid": 0,
                    "args": {"name": f"NPU {d} ({tl.chip.name})"}})
        out.append({"ph": "M", "name": "process_sort_index", "pid": DEVICE_PID + d, "tid": 0,
                    "args": {"sort_index": 1 + d}})
    tracks: dict[tuple[StreamKey, int], int] = {}
    for key in tl.streams():
        for lane in sorted({s.lane for s in tl.device if s.stream == key}):
            tid = len(tracks) + 1
            tracks[(key, lane)] = tid
            name = tl.stream_label(key) + (f" (overlapping copies {lane})" if lane else "")
            out.append({"ph": "M", "name": "thread_name", "pid": DEVICE_PID + key[0], "tid": tid, "args": {"name": name}})
            out.append({"ph": "M", "name": "thread_sort_index", "pid": DEVICE_PID + key[0], "tid": tid,
                        "args": {"sort_index": tid}})

    def where(s: Span) -> tuple[int, int]:
        if s.stream is None:
            return HOST_PID, host_tid[s.thread]
        return DEVICE_PID + s.stream[0], tracks[(s.stream, s.lane)]

    for s in (*tl.host, *tl.device):
        pid, tid = where(s)
        ts = _us(s.t0, o)
        out.append({"ph": "X", "name": s.name, "cat": s.cat, "ts": ts, "dur": round(_us(s.t1, o) - ts, 3),
                    "pid": pid, "tid": tid, "args": s.args})
    for i, (src, at, dst) in enumerate(tl.flows, 1):
        pid, tid = where(src)
        out.append({"ph": "s", "name": "queued", "cat": "flow", "id": i, "ts": _us(at, o), "pid": pid, "tid": tid})
        pid, tid = where(dst)
        out.append({"ph": "f", "bp": "e", "name": "queued", "cat": "flow", "id": i, "ts": _us(dst.t0, o),
                    "pid": pid, "tid": tid})
    counter = f"{tl.chip.memory_kind} in use"
    for d, points in tl.memory.items():
        for t, used in points:
            out.append({"ph": "C", "name": counter, "pid": DEVICE_PID + d, "tid": 0, "ts": _us(t, o),
                        "args": {"bytes": used}})
    return out


def write(tl: Timeline, path: str) -> None:
    """Write `tl` to `path` as {"traceEvents": [...], ...}."""
    doc = {
        "traceEvents": events(tl),
        "displayTimeUnit": "ms",
        "otherData": {"generator": f"aclsim {__version__}", "soc": tl.chip.name, "cost_model": tl.model.as_dict()},
    }
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))

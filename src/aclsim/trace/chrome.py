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
from collections.abc import Iterator
from typing import Any

from .. import __version__
from ..files import write_atomic
from .timeline import Span, StreamKey, Timeline

HOST_PID = 1
DEVICE_PID = 100  # + device id
# Perfetto names threads by tid alone, so tids are unique across processes: host threads count from
# 1, device tracks from DEVICE_TID; process-wide events (names, counters) leave tid out (tid = pid).
DEVICE_TID = 100_000
_compact = json.JSONEncoder(separators=(",", ":")).encode


def _members(**fields: Any) -> str:
    """The JSON members (no braces) of the fields that are not None."""
    return _compact({k: v for k, v in fields.items() if v is not None})[1:-1]


def _object(*members: str) -> str:
    return "{" + ",".join(m for m in members if m) + "}"


def _metadata(tl: Timeline, host_tid: dict[int, int], tracks: dict[tuple[StreamKey, int], int]) -> list[dict]:
    """Process and thread names and their display order."""
    out: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": HOST_PID, "args": {"name": f"host (pid {os.getpid()})"}},
        {"ph": "M", "name": "process_sort_index", "pid": HOST_PID, "args": {"sort_index": 0}},
    ]
    for t, tid in host_tid.items():
        out.append({"ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": tid,
                    "args": {"name": f"host thread {tl.threads.get(t, t)}"}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": HOST_PID, "tid": tid, "args": {"sort_index": tid}})
    for d in sorted({k[0] for k, _ in tracks} | set(tl.memory)):
        out.append({"ph": "M", "name": "process_name", "pid": DEVICE_PID + d, "args": {"name": f"NPU {d} ({tl.chip.name})"}})
        out.append({"ph": "M", "name": "process_sort_index", "pid": DEVICE_PID + d, "args": {"sort_index": 1 + d}})
    for (key, lane), tid in tracks.items():
        name = tl.stream_label(key) + (f" (overlapping copies {lane})" if lane else "")
        out.append({"ph": "M", "name": "thread_name", "pid": DEVICE_PID + key[0], "tid": tid, "args": {"name": name}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": DEVICE_PID + key[0], "tid": tid,
                    "args": {"sort_index": tid}})
    return out


def events(tl: Timeline) -> Iterator[str]:
    """The trace events of `tl`, each as one JSON object (formatted directly: traces get large)."""
    o = tl.origin
    threads = sorted({s.thread for s in tl.host}, key=lambda t: (tl.threads.get(t) != "MainThread", t))
    host_tid = {t: i + 1 for i, t in enumerate(threads)}
    lanes: dict[StreamKey, set[int]] = {}
    for s in tl.device:
        lanes.setdefault(s.stream, set()).add(s.lane)
    tracks: dict[tuple[StreamKey, int], int] = {}
    for key in tl.streams:
        for lane in sorted(lanes[key]):
            tracks[(key, lane)] = DEVICE_TID + len(tracks)
    for m in _metadata(tl, host_tid, tracks):
        yield _compact(m)

    def where(s: Span) -> tuple[int, int]:
        if s.stream is None:
            return HOST_PID, host_tid[s.thread]
        return DEVICE_PID + s.stream[0], tracks[(s.stream, s.lane)]

    details: dict[Any, str] = {}  # what spans share (call site, kernel shape), encoded once

    def args(s: Span) -> str:
        seq = f'"seq":{s.seq}' if s.seq is not None else ""
        if s.stream is None:
            key: Any = (s.site, s.ret)
            shared = details.get(key)
            if shared is None:
                shared = details[key] = _members(site=s.site, ret=s.ret or None)
            return _object(shared, seq)
        key = (s.modeled, s.error, *s.info.items())
        shared = details.get(key)
        if shared is None:
            modeled = None if s.modeled is None else round(s.modeled * 1e6, 3)
            shared = details[key] = _members(modeled_npu_us=modeled, **s.info, error=s.error)
        return _object(f'"emulator_us":{s.emulator * 1e6:.3f}', shared, seq)

    # Each flow end follows its slice in the file: at equal timestamps Perfetto binds a flow to the
    # slice most recently opened on its track.
    outgoing: dict[int, list[tuple[int, float]]] = {}
    incoming: dict[int, list[int]] = {}
    for i, (src, at, dst) in enumerate(tl.flows, 1):
        outgoing.setdefault(id(src), []).append((i, at))
        incoming.setdefault(id(dst), []).append(i)
    heads: dict[tuple, str] = {}  # the fixed part of a slice: name, category, track
    for s in (*tl.host, *tl.device):
        pid, tid = where(s)
        key = (s.name, s.cat, pid, tid)
        head = heads.get(key)
        if head is None:
            head = heads[key] = f'{{"ph":"X","name":{json.dumps(s.name)},"cat":"{s.cat}","pid":{pid},"tid":{tid},'
        a, b = round((s.t0 - o) * 1e6, 3), round((s.t1 - o) * 1e6, 3)
        yield f'{head}"ts":{a:.3f},"dur":{b - a:.3f},"args":{args(s)}}}'
        for i in incoming.get(id(s), ()):
            yield f'{{"ph":"f","bp":"e","name":"queued","cat":"flow","id":{i},"ts":{a:.3f},"pid":{pid},"tid":{tid}}}'
        for i, at in outgoing.get(id(s), ()):
            yield (f'{{"ph":"s","name":"queued","cat":"flow","id":{i},"ts":{(at - o) * 1e6:.3f},"pid":{pid},'
                   f'"tid":{tid}}}')
    counter = json.dumps(f"{tl.chip.memory_kind} in use")
    for d, points in tl.memory.items():
        for t, used in points:
            yield f'{{"ph":"C","name":{counter},"pid":{DEVICE_PID + d},"ts":{(t - o) * 1e6:.3f},"args":{{"bytes":{used}}}}}'


def write(tl: Timeline, path: str) -> None:
    """Write `tl` to `path` as {"traceEvents": [...], ...}, one event per line."""
    other = {"generator": f"aclsim {__version__}", "soc": tl.chip.name, "cost_model": tl.model.as_dict()}
    text = '{"displayTimeUnit":"ms","otherData":' + json.dumps(other) + ',"traceEvents":[\n'
    text += ",\n".join(events(tl)) + "\n]}\n"
    write_atomic(path, text)  # a full disk leaves no truncated, invalid JSON behind

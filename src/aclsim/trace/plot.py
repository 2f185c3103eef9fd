"""A static Gantt picture of a Chrome trace file (needs matplotlib: `pip install 'aclsim[plot]'`).

Reads complete events ("X") as bars, one row per (process, thread) track in the trace's sort
order, flow events ("s"/"f") as arrows and counter events ("C") as step lines under the bars.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections import defaultdict
from typing import Any

from ..files import write_atomic

COLORS = {
    "api": "#9e9e9e", "sync": "#e53935", "host-wait": "#b71c1c", "memcpy": "#1e88e5", "memset": "#00acc1", "kernel": "#43a047",
    "record": "#8e24aa", "wait": "#ab47bc", "launch": "#212121", "callback": "#6d4c41",
}
OTHER = "#fb8c00"
MAX_ARROWS = 300


class TraceFormatError(ValueError):
    """The file is not a Chrome trace-event JSON document, or has nothing to draw."""


class OutputFormatError(ValueError):
    """matplotlib cannot write an image in the format the output file's extension asks for."""


def load_events(path: str) -> list[dict[str, Any]]:
    """The traceEvents of a JSON trace (object form or bare array)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except ValueError as e:
        raise TraceFormatError(f"{path} is not JSON: {e}") from None
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        raise TraceFormatError(f"{path} has no traceEvents list: not a Chrome trace-event file")
    return [e for e in evs if isinstance(e, dict)]


def _tracks(evs: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """(pid, tid, label) of every track with spans, in display order."""
    pname: dict[int, str] = {}
    tname: dict[tuple[int, int], str] = {}
    psort: dict[int, float] = {}
    tsort: dict[tuple[int, int], float] = {}
    for e in evs:
        if e.get("ph") != "M":
            continue
        pid, tid, args = e.get("pid", 0), e.get("tid", 0), e.get("args", {})
        name = e.get("name")
        if name == "process_name":
            pname[pid] = str(args.get("name", pid))
        elif name == "thread_name":
            tname[(pid, tid)] = str(args.get("name", tid))
        elif name == "process_sort_index":
            psort[pid] = args.get("sort_index", 0)
        elif name == "thread_sort_index":
            tsort[(pid, tid)] = args.get("sort_index", 0)
    keys = {(e.get("pid", 0), e.get("tid", 0)) for e in evs if e.get("ph") == "X"}
    ordered = sorted(keys, key=lambda k: (psort.get(k[0], k[0]), k[0], tsort.get(k, k[1]), k[1]))
    return [(p, t, f"{pname.get(p, f'pid {p}')}\n{tname.get((p, t), f'tid {t}')}") for p, t in ordered]


def _window(start_ms: float | None, end_ms: float | None) -> str:
    if start_ms is None:
        return f"before --end {end_ms:g} ms"
    if end_ms is None:
        return f"after --start {start_ms:g} ms"
    return f"between --start {start_ms:g} ms and --end {end_ms:g} ms"


def plot(
    path: str, output: str, title: str | None = None, width: float = 12.0,
    start_ms: float | None = None, end_ms: float | None = None,
) -> tuple[float, float]:
    """Draw the trace at `path` into the image file `output` (format from its extension).

    `start_ms`/`end_ms` limit the picture to a window of the trace's time axis. Returns the window
    drawn, in ms since the trace started.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.patches import Patch

    ext = os.path.splitext(output)[1].removeprefix(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if ext not in formats:
        raise OutputFormatError(
            f"cannot write {output}: the format follows the file's extension, and matplotlib writes "
            f"{', '.join(sorted(formats))}" + (f", not {ext!r}" if ext else "")
        )
    evs = load_events(path)
    if not any(e.get("ph") == "X" for e in evs):
        raise TraceFormatError(f"{path} has no complete ('X') events to draw")
    lo_us = -math.inf if start_ms is None else start_ms * 1e3
    hi_us = math.inf if end_ms is None else end_ms * 1e3
    inside = [e for e in evs if e.get("ph") != "X" or (e["ts"] + e.get("dur", 0) >= lo_us and e["ts"] <= hi_us)]
    tracks = _tracks(inside)
    if not tracks:
        first = min(e["ts"] for e in evs if e.get("ph") == "X") / 1e3
        last = max(e["ts"] + e.get("dur", 0) for e in evs if e.get("ph") == "X") / 1e3
        raise TraceFormatError(
            f"{path} has nothing to draw {_window(start_ms, end_ms)}: its events span {first:.3f} ms to "
            f"{last:.3f} ms since the trace started (omit --start/--end to draw everything)"
        )
    evs = inside
    row = {(p, t): i for i, (p, t, _) in enumerate(tracks)}
    spans = [e for e in evs if e.get("ph") == "X"]
    if end_ms is None:
        end_ms = max(e["ts"] + e.get("dur", 0) for e in spans) / 1e3
    if start_ms is None:
        start_ms = min(e["ts"] for e in spans) / 1e3
    min_w = (end_ms - start_ms) * 0.002  # zero-length spans (launches, event records) stay visible

    counters: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    for e in evs:
        if e.get("ph") == "C":
            for key, value in e.get("args", {}).items():
                counters[(e.get("pid", 0), f"{e.get('name', '')} ({key})")].append((e["ts"] / 1e3, value))

    n = len(tracks)
    heights = [max(n * 0.55, 1.5)] + ([1.0] if counters else [])
    fig, axes = plt.subplots(len(heights), 1, figsize=(width, sum(heights) + 1.0), sharex=True,
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    ax = axes[0][0]
    depth, parents = _depths(spans)
    bars: dict[tuple[str, int, int], list[tuple[float, float]]] = defaultdict(list)
    for e in spans:
        key = (COLORS.get(e.get("cat", ""), OTHER), row[(e.get("pid", 0), e.get("tid", 0))], depth[id(e)])
        bars[key].append((e["ts"] / 1e3, max(e.get("dur", 0) / 1e3, min_w)))
    for (color, r, d), xr in bars.items():  # nested slices (a wait inside its call) drawn inset, on top
        inset = min(d, 2) * 0.12
        ax.broken_barh(xr, (r - 0.35 + inset, 0.7 - 2 * inset), facecolors=color, edgecolor="white",
                       linewidth=0.3, zorder=2 + d)
    ax.set_xlim(start_ms - (end_ms - start_ms) * 0.01, end_ms + (end_ms - start_ms) * 0.01)
    lo, hi = ax.get_xlim()
    char_ms = (hi - lo) * (7 * 0.7 / 72 * fig.dpi) / ax.get_window_extent().width  # one 7-pt character
    for e in spans:
        w = e.get("dur", 0) / 1e3
        fits = int(w / char_ms) - 1
        if fits >= 4 and id(e) not in parents:  # a slice with slices inside shows their names
            name = e["name"] if len(e["name"]) <= fits else e["name"][: fits - 1] + "…"
            ax.text(e["ts"] / 1e3 + w / 2, row[(e.get("pid", 0), e.get("tid", 0))], name, ha="center",
                    va="center", fontsize=7, color="white", clip_on=True, zorder=10 + depth[id(e)])

    starts = {e.get("id"): e for e in evs if e.get("ph") == "s"}
    arrows = 0
    for e in evs:
        s = starts.get(e.get("id")) if e.get("ph") == "f" else None
        if s is None or arrows >= MAX_ARROWS:
            continue
        a, b = row.get((s.get("pid", 0), s.get("tid", 0))), row.get((e.get("pid", 0), e.get("tid", 0)))
        if a is not None and b is not None:
            ax.annotate("", xy=(e["ts"] / 1e3, b - 0.35 * (1 if b > a else -1)),
                        xytext=(s["ts"] / 1e3, a + 0.35 * (1 if b > a else -1)),
                        arrowprops={"arrowstyle": "->", "color": "#616161", "lw": 0.6, "alpha": 0.7})
            arrows += 1

    ax.set_yticks(range(n), [label for _, _, label in tracks], fontsize=8)
    ax.set_ylim(n - 0.5, -0.5)
    ax.grid(axis="x", linestyle=":", alpha=0.5)
    used = sorted({e.get("cat", "") for e in spans})
    ax.legend(handles=[Patch(color=COLORS.get(c, OTHER), label=c or "other") for c in used], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_title(title or path, fontsize=10)
    if counters:
        cax = axes[1][0]
        for (pid, name), pts in sorted(counters.items()):
            pts.sort()
            xs = [x for x, _ in pts] + [end_ms]
            ys = [y / 2**20 if "bytes" in name else y for _, y in pts]
            ys.append(ys[-1])
            label = name.replace("(bytes)", "(MiB)")
            cax.step(xs, ys, where="post", label=f"{_process_name(tracks, pid)}: {label}")
        cax.set_ylabel("MiB" if any("bytes" in k for _, k in counters) else "value", fontsize=8)
        cax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        cax.grid(linestyle=":", alpha=0.5)
    axes[-1][0].set_xlabel("time since the trace started (ms)")
    fig.tight_layout()
    image = io.BytesIO()  # whole or not at all: written beside `output`, then renamed over it
    fig.savefig(image, dpi=150, format=ext)
    plt.close(fig)
    write_atomic(output, image.getvalue())
    return start_ms, end_ms


def _depths(spans: list[dict[str, Any]]) -> tuple[dict[int, int], set[int]]:
    """Nesting depth of each slice within its track (id(event) -> 0 for top level), and the ids of
    slices that contain another."""
    by_track: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for e in spans:
        by_track[(e.get("pid", 0), e.get("tid", 0))].append(e)
    depth: dict[int, int] = {}
    parents: set[int] = set()
    for track in by_track.values():
        stack: list[tuple[float, int]] = []  # (end, id) of the slices enclosing the current one
        for e in sorted(track, key=lambda e: (e["ts"], -e.get("dur", 0))):
            a, b = e["ts"], e["ts"] + e.get("dur", 0)
            while stack and not (stack[-1][0] >= b and (stack[-1][0] > a or a == b)):
                stack.pop()
            depth[id(e)] = len(stack)
            if stack:
                parents.add(stack[-1][1])
            stack.append((b, id(e)))
    return depth, parents


def _process_name(tracks: list[tuple[int, int, str]], pid: int) -> str:
    for p, _, label in tracks:
        if p == pid:
            return label.split("\n")[0]
    return f"pid {pid}"

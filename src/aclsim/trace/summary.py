"""The `aclsim run --summary` report: kernels, copies by direction, peak memory, host waits."""

from __future__ import annotations

from collections import defaultdict

from .timeline import Span, Timeline
from .units import fmt_bytes, fmt_time


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned first column, right-aligned others."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = [f"{{:<{widths[0]}}}"] + [f"{{:>{w}}}" for w in widths[1:]]
    return ["  " + "  ".join(f.format(c) for f, c in zip(fmt, r, strict=True)) for r in [header, *rows]]


def _rate(nbytes: int, seconds: float | None) -> str:
    return f"{nbytes / seconds / 1e9:.3g} GB/s" if seconds else "-"


def render(tl: Timeline) -> str:
    """The summary as text."""
    lines = [f"== aclsim summary ({tl.chip.name}; times: emulator measured / modeled NPU) =="]

    kernels: dict[str, list[Span]] = defaultdict(list)
    copies: dict[str, list[Span]] = defaultdict(list)
    for s in tl.device:
        if s.cat == "kernel":
            kernels[s.name].append(s)
        elif s.cat == "memset":
            copies["memset"].append(s)
        elif s.cat == "memcpy":
            copies[s.info.get("direction") or "H2H"].append(s)

    if kernels:
        rows = []
        for name, spans in sorted(kernels.items(), key=lambda kv: -sum(s.emulator for s in kv[1])):
            emu = sum(s.emulator for s in spans)
            mod = sum(s.modeled or 0.0 for s in spans)
            n = len(spans)
            rows.append([name, str(n), fmt_time(emu), fmt_time(emu / n), fmt_time(mod), fmt_time(mod / n)])
        lines.append("Kernels")
        lines += _table(["name", "launches", "total", "mean", "modeled total", "modeled mean"], rows)
    else:
        lines.append("Kernels: none ran")

    if copies:
        rows = []
        for direction in ("H2D", "D2H", "D2D", "memset"):
            spans = copies.get(direction)
            if not spans:
                continue
            nbytes = sum(s.info.get("bytes", 0) for s in spans)
            emu = sum(s.emulator for s in spans)
            mod = sum(s.modeled or 0.0 for s in spans)
            rows.append([direction, str(len(spans)), fmt_bytes(nbytes), fmt_time(emu), _rate(nbytes, emu),
                         fmt_time(mod), _rate(nbytes, mod)])
        lines.append("Copies")
        lines += _table(["direction", "count", "bytes", "time", "bandwidth", "modeled time", "modeled bandwidth"],
                        rows)
    else:
        lines.append("Copies: none")

    if tl.memory:
        rows = [[f"NPU {d}", fmt_bytes(max(u for _, u in pts)), fmt_bytes(tl.chip.memory_size)]
                for d, pts in sorted(tl.memory.items())]
        lines.append("Device memory")
        lines += _table(["device", "peak in use", "capacity"], rows)

    waited = sum(t1 - t0 for _, t0, t1, _, _ in tl.syncs)
    kinds: dict[str, int] = defaultdict(int)
    for kind, *_ in tl.syncs:
        kinds[kind] += 1
    detail = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    lines.append(f"Host waiting in synchronize: {fmt_time(waited)} in {len(tl.syncs)} call(s)"
                 + (f" ({detail})" if detail else ""))
    if tl.never_ran:
        names = sorted({s.name for s in tl.never_ran})
        lines.append(f"Never ran: {len(tl.never_ran)} queued task(s) ({', '.join(names[:5])}"
                     f"{', ...' if len(names) > 5 else ''}) were still waiting when tracing stopped: "
                     "nothing synchronized their streams")
    return "\n".join(lines)

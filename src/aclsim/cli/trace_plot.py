"""`aclsim trace-plot trace.json -o timeline.png`: a static Gantt picture of a trace (needs matplotlib)."""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace-plot", help="draw a trace file as a PNG/SVG/PDF timeline",
        description="Draw a Chrome trace-event file (from `aclsim run --trace`) as a static timeline: one row "
        "per host thread and device stream, arrows from host calls to the device work they queued, and "
        "device memory in use. Needs matplotlib (pip install 'aclsim[plot]').",
    )
    p.add_argument("trace", help="trace file written by aclsim run --trace")
    p.add_argument("-o", "--output", help="image file to write (default: the trace's name with .png)")
    p.add_argument("--title", help="title above the picture (default: the trace's file name)")
    p.add_argument("--width", type=float, default=12.0, help="figure width in inches (default 12)")
    p.add_argument("--start", type=float, metavar="MS", help="draw from this time (ms since the trace started)")
    p.add_argument("--end", type=float, metavar="MS", help="draw up to this time (ms since the trace started)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..trace.plot import TraceFormatError, plot

    output = args.output or os.path.splitext(args.trace)[0] + ".png"
    try:
        plot(args.trace, output, title=args.title, width=args.width, start_ms=args.start, end_ms=args.end)
    except ImportError as e:
        if (e.name or "").partition(".")[0] != "matplotlib":
            raise
        print("aclsim trace-plot needs matplotlib: pip install 'aclsim[plot]' (or pip install matplotlib)",
              file=sys.stderr)
        return 2
    except (OSError, TraceFormatError) as e:
        print(f"aclsim trace-plot: {e}", file=sys.stderr)
        return 2
    print(f"aclsim: wrote {output}")
    return 0

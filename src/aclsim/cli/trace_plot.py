"""`aclsim trace-plot trace.json -o timeline.png`: a static Gantt picture of a trace (needs matplotlib)."""

from __future__ import annotations

import argparse
import os
import sys

INSTALL_HINT = "pip install matplotlib (or pip install -e '.[plot]' in a checkout of aclsim)"

DESCRIPTION = f"""\
Draw a Chrome trace-event file (from `aclsim run --trace`) as a static timeline: one row per
host thread and device stream, arrows from host calls to the device work they queued, and
device memory in use. The image format follows the -o file's extension (png, svg, pdf, ...).
Needs matplotlib: {INSTALL_HINT}.
"""

EPILOG = """\
examples:
  aclsim run --trace out.json my_prog.py
  aclsim trace-plot out.json -o timeline.png           (the whole run; prints the times it spans)
  aclsim trace-plot out.json -o zoom.svg --start 120 --end 180

--start/--end are milliseconds since the trace started; omit them to draw everything.
Drawing the whole run first prints the span to choose a window from.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace-plot", help="draw a trace file as a PNG/SVG/PDF timeline", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("trace", help="trace file written by aclsim run --trace")
    p.add_argument(
        "-o", "--output",
        help="image file to write, format from its extension: png, svg, pdf, ... (default: the trace's name with "
        ".png; .png is added to a name without an extension)",
    )
    p.add_argument("--title", help="title above the picture (default: the trace's file name)")
    p.add_argument("--width", type=float, default=12.0, help="figure width in inches (default 12)")
    p.add_argument("--start", type=float, metavar="MS", help="draw from this time (ms since the trace started)")
    p.add_argument("--end", type=float, metavar="MS", help="draw up to this time (ms since the trace started)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..trace.plot import OutputFormatError, TraceFormatError, plot

    output = args.output or os.path.splitext(args.trace)[0] + ".png"
    if not os.path.splitext(output)[1]:
        output += ".png"  # what matplotlib would write anyway: name the file we really wrote
    try:
        start, end = plot(args.trace, output, title=args.title, width=args.width, start_ms=args.start,
                          end_ms=args.end)
    except ImportError as e:
        if (e.name or "").partition(".")[0] != "matplotlib":
            raise
        print(f"aclsim trace-plot needs matplotlib: {INSTALL_HINT}", file=sys.stderr)
        return 2
    except (OSError, TraceFormatError, OutputFormatError) as e:
        print(f"aclsim trace-plot: {e}", file=sys.stderr)
        return 2
    print(f"aclsim: wrote {output} ({start:.3f} ms to {end:.3f} ms since the trace started)")
    return 0

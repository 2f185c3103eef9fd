"""The `aclsim` command line. Each subcommand lives in its own module with `register(sub)`."""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys

# Subcommand modules, in the order `--help` lists them.
COMMANDS = ["demo", "run", "explain", "info", "trace_plot", "atc", "cc", "home"]

EPILOG = """\
examples:
  aclsim demo                         run the article's square kernel, step by step
  aclsim run my_pyacl_program.py      run a pyACL program unmodified (import acl -> aclsim)
  aclsim cc prog.c -o prog && aclsim run ./prog   build and run a C/C++ AscendCL program
  aclsim run --check all prog.py      find memory bugs (leaks, races, out-of-bounds, ...)
  aclsim run --trace out.json prog.py write a timeline; aclsim trace-plot out.json -o t.png draws it
  aclsim explain 107002               what an ACL return code means and how to fix it
  aclsim info                         the emulated devices (npu-smi style) and the configuration
  aclsim atc --model=m.onnx --framework=5 --output=m --soc_version=Ascend310P3   an .om for acl.mdl

environment: ACLSIM_SOC, ACLSIM_DEVICES, ACLSIM_SCHEDULE, ACLSIM_CHECK (details: aclsim run --help).
Each command has --help; docs/ (the MkDocs site: mkdocs serve) explains the
execution model and every tool.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aclsim",
        description="Run and check Huawei Ascend CANN code (pyACL, SIMT kernels, Ascend C) without an NPU.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from .. import __version__

    p.add_argument("--version", action="version", version=f"aclsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            continue
        mod.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv and not argv[0].startswith("-"):
        _check_command(parser, argv[0])
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. `aclsim explain --all | head`: the reader left, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _check_command(parser: argparse.ArgumentParser, name: str) -> None:
    """Refuse an unknown subcommand with the closest known ones (argparse only lists them all)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if name in sub.choices:
        return
    close = difflib.get_close_matches(name, list(sub.choices), n=2, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    parser.error(f"unknown command {name!r}{hint} (commands: {', '.join(sub.choices)})")

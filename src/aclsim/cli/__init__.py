"""The `aclsim` command line. Each subcommand lives in its own module with `register(sub)`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Subcommand modules, in the order `--help` lists them.
COMMANDS = ["demo", "run", "explain", "info", "trace_plot", "atc"]

EPILOG = """\
examples:
  aclsim demo                         run the article's square kernel, step by step
  aclsim run my_pyacl_program.py      run a pyACL program unmodified (import acl -> aclsim)
  aclsim run --check all prog.py      find memory bugs (leaks, races, out-of-bounds, ...)
  aclsim run --trace out.json prog.py write a timeline; aclsim trace-plot out.json -o t.png draws it
  aclsim explain 107002               what an ACL return code means and how to fix it
  aclsim info                         the emulated devices (npu-smi style) and the configuration
  aclsim atc --model=m.onnx --framework=5 --output=m --soc_version=Ascend310P3   an .om for acl.mdl

environment: ACLSIM_SOC, ACLSIM_DEVICES, ACLSIM_SCHEDULE, ACLSIM_CHECK (details: aclsim run --help).
Each command has --help; the README explains the execution model and every tool.
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
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. `aclsim explain --all | head`: the reader left, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1

"""`aclsim run ./prog`: run a compiled C/C++ AscendCL program on the emulated runtime.

The program runs as a child process with the options in its environment (ACLSIM_CHECK, ACLSIM_SOC,
ACLSIM_DEVICES, ACLSIM_SCHEDULE, ACLSIM_RUN_MODE, ACLSIM_OOB and ACLSIM_RUN_OPTIONS); libascendcl starts the sanitizer and the timeline
inside it (`aclsim.capi.process`) and, at its exit, writes the reports and a status file from which the
exit code is chosen exactly as for a Python program: --error-exitcode wins when errors were found.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile


def is_native(path: str) -> bool:
    """True for an ELF executable."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def run_native(args: argparse.Namespace) -> int:
    from ..capi.home import home
    from ..chips import get_profile

    env = dict(os.environ)
    try:
        if args.soc:
            env["ACLSIM_SOC"] = get_profile(args.soc).name
        if args.devices is not None:
            if not 1 <= args.devices <= 64:
                raise ValueError(f"--devices must be between 1 and 64, got {args.devices}")
            env["ACLSIM_DEVICES"] = str(args.devices)
        if args.check:
            from ..check.session import parse_tools

            parse_tools(args.check)
            env["ACLSIM_CHECK"] = args.check
    except ValueError as e:
        print(f"aclsim run: {e}", file=sys.stderr)
        return 2
    for value, var in ((args.schedule, "ACLSIM_SCHEDULE"), (args.run_mode, "ACLSIM_RUN_MODE"), (args.oob, "ACLSIM_OOB")):
        if value:
            env[var] = value
    lib64 = str(home() / "lib64")  # programs built by their own build files find libascendcl here
    env["LD_LIBRARY_PATH"] = lib64 + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    fd, status_file = tempfile.mkstemp(prefix="aclsim-run-", suffix=".json")
    os.close(fd)
    env["ACLSIM_RUN_OPTIONS"] = json.dumps({
        "error_exitcode": args.error_exitcode, "json": args.json, "trace": args.trace, "summary": args.summary,
        "status_file": status_file, "check_flag": bool(args.check),
    })
    prog = args.script if os.sep in args.script else os.path.join(".", args.script)
    try:
        child = subprocess.Popen([prog, *args.args], env=env)
        old = signal.signal(signal.SIGTERM, lambda s, f: child.send_signal(s))  # a CI timeout reaches the program
        try:
            while True:
                try:
                    code = child.wait()
                    break
                except KeyboardInterrupt:  # the terminal sent SIGINT to the program too
                    continue
        finally:
            signal.signal(signal.SIGTERM, old)
        try:
            with open(status_file) as f:
                status = json.load(f)
        except (OSError, ValueError):
            status = {}
    except OSError as e:
        print(f"aclsim run: cannot run {args.script}: {e}", file=sys.stderr)
        return 126
    finally:
        os.unlink(status_file)
    if code < 0:
        print(f"aclsim run: {args.script} was killed by {signal.Signals(-code).name}", file=sys.stderr)
        code = 128 - code
    if status.get("fault") and code == 0:  # the program went on as if nothing failed (see trace/faults.py)
        print(status["fault"], file=sys.stderr)
    if status.get("found") is not None:
        return int(status["found"])
    trace_status = status.get("trace_status")
    return trace_status if trace_status is not None and code == 0 else code

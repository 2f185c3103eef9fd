"""Sanitizer for the host/device memory model: memcheck, racecheck, initcheck, leakcheck.

Turn it on with `aclsim run --check all prog.py`, `ACLSIM_CHECK=all`, `pytest --aclsim-check=all`
or in code with `aclsim.check.enable("memcheck,leakcheck")`. Findings print at the end of the run
(compute-sanitizer style), optionally also as JSON. The wrong-memcpy-kind check is always on.
"""

from __future__ import annotations

import atexit
import os
import sys

from .findings import Finding, Report
from .session import TOOLS, Session, parse_tools

__all__ = ["TOOLS", "Finding", "Report", "Session", "enable", "start_session"]


def start_session(tools: str, error_exitcode: int | None = None, json_path: str | None = None,
                  source: str = "--check") -> Session:
    """Start checking (used by `aclsim run --check`); exits with status 2 on an unknown tool name.

    `source` names where `tools` came from (`--check` or `ACLSIM_CHECK`) in that error.
    """
    try:
        names = parse_tools(tools)
    except ValueError as e:
        print(f"aclsim: {source}: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    return Session(names, error_exitcode, json_path)


def enable(tools: str | None = None, json_path: str | None = None) -> Session:
    """Start checking from inside a program; the report prints at interpreter exit.

    `tools` defaults to $ACLSIM_CHECK or "all". Call `session.finish()` to report earlier.
    """
    session = Session(parse_tools(tools or os.environ.get("ACLSIM_CHECK") or "all"), json_path=json_path)
    atexit.register(session.finish)
    return session

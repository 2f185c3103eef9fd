"""Sanitizer tools (memcheck, racecheck, initcheck, leakcheck). Placeholder until issue 4 lands."""

from __future__ import annotations

from typing import Any


def start_session(tools: str, error_exitcode: int | None = None, json_path: str | None = None) -> Any:
    raise SystemExit("aclsim: --check is not available yet in this build")

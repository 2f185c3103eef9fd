"""Sanitizer findings: folding duplicates, the stderr report and the JSON file.

The text format follows compute-sanitizer / msSanitizer: every line starts with `=========`, each
error is a block (class headline, details, `fix:` line) and the run ends with `LEAK SUMMARY` and
`ERROR SUMMARY`. Blocks are sorted by the program-order index of their first occurrence, so a
program gives the same report whatever the scheduling mode.

Severity follows msSanitizer: ERROR for deterministic faults, WARNING for risks that depend on
how the program synchronises (multi-core corruption). Warnings print with a `WARNING:` headline
and a `WARNING SUMMARY` line; like compute-sanitizer's racecheck warnings they are not counted in
`ERROR SUMMARY` and do not trigger `--error-exitcode` or fail a test under the pytest plugin.
"""

from __future__ import annotations

import io
import json
import os
import sys
import sysconfig
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import Code
from ..files import write_atomic
from ..runtime.observe import Site

PREFIX = "========= "
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})


@dataclass
class Finding:
    """One error class instance; `fold` identifies duplicates, `order` sorts the report."""

    tool: str  # memcheck, racecheck, initcheck, leakcheck, kindcheck
    kind: str  # machine-readable class, e.g. "oob-write", "double-free"
    headline: str
    details: list[str]
    fix: str
    fold: tuple
    order: tuple
    code: int | None = None  # ACL code a real runtime would return, if any
    sites: dict[str, Site | None] = field(default_factory=dict)  # role -> Python site
    count: int = 1
    nbytes: int = 0  # leaked bytes (leakcheck)
    severity: str = "error"  # or "warning" (msSanitizer's WARNING level)

    def lines(self) -> list[str]:
        head = f"WARNING: {self.headline}" if self.severity == "warning" else self.headline
        out = [head, *("    " + d for d in self.details)]
        if self.count > 1:
            out.append(f"    seen {self.count} times")
        if self.code is not None:
            out.append(f"    ACL code: {_code_name(self.code)}")
        out.append(f"    fix: {self.fix}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool, "class": self.kind, "severity": self.severity, "message": self.headline,
            "details": self.details,
            "fix": self.fix, "acl_code": self.code, "count": self.count,
            "sites": {role: site_json(s) for role, s in self.sites.items() if s is not None},
        }


class Report:
    """Collects findings (folded) and renders them."""

    def __init__(self, tools: list[str]) -> None:
        self.tools = tools
        self._by_fold: dict[tuple, Finding] = {}
        self.interrupted: str | None = None  # the signal that stopped the program before the end, if any

    def add(self, f: Finding) -> None:
        old = self._by_fold.get(f.fold)
        if old is None:
            self._by_fold[f.fold] = f
            return
        old.count += f.count
        old.nbytes += f.nbytes
        if f.order < old.order:  # keep the program-order-first instance as the example
            f.count, f.nbytes = old.count, old.nbytes
            self._by_fold[f.fold] = f

    @property
    def findings(self) -> list[Finding]:
        return sorted(self._by_fold.values(), key=lambda f: (f.order, f.tool, f.kind, repr(f.fold)))

    @property
    def error_count(self) -> int:
        return sum(f.severity == "error" for f in self._by_fold.values())

    @property
    def warning_count(self) -> int:
        return sum(f.severity == "warning" for f in self._by_fold.values())

    def write_text(self, out: TextIO = sys.stderr) -> None:
        out.write(f"{PREFIX}ACLSIM CHECK ({', '.join(self.tools)})\n")
        if self.interrupted:
            out.write(f"{PREFIX}INTERRUPTED by {self.interrupted}: what was found until then (device work still "
                      "queued was not run)\n")
        for f in self.findings:
            for line in f.lines():
                out.write(PREFIX + line + "\n")
            out.write(PREFIX.rstrip() + "\n")
        leaks = [f for f in self._by_fold.values() if f.tool == "leakcheck"]
        if "leakcheck" in self.tools:
            nbytes, n = sum(f.nbytes for f in leaks), sum(f.count for f in leaks)
            out.write(f"{PREFIX}LEAK SUMMARY: {nbytes} bytes leaked in {n} allocation{'s' * (n != 1)}\n")
        n = self.warning_count
        if n:
            out.write(f"{PREFIX}WARNING SUMMARY: {n} warning{'s' * (n != 1)} (not counted as errors)\n")
        n = self.error_count
        out.write(f"{PREFIX}ERROR SUMMARY: {n} error{'s' * (n != 1)}\n")
        out.flush()

    def text(self) -> str:
        buf = io.StringIO()
        self.write_text(buf)
        return buf.getvalue()

    def write_json(self, path: str) -> None:
        leaks = [f for f in self._by_fold.values() if f.tool == "leakcheck"]
        doc = {
            "tools": self.tools,
            "errors": [f.to_json() for f in self.findings if f.severity == "error"],
            "error_count": self.error_count,
            "warnings": [f.to_json() for f in self.findings if f.severity == "warning"],
            "warning_count": self.warning_count,
            "leaked_bytes": sum(f.nbytes for f in leaks),
            "leaked_allocations": sum(f.count for f in leaks),
        }
        if self.interrupted:
            doc["interrupted"] = self.interrupted
        write_atomic(path, json.dumps(doc, indent=2) + "\n")  # whole or not at all (a full disk, a CI timeout)


def _code_name(code: int) -> str:
    try:
        return f"{Code(code).acl_name} ({code})"
    except ValueError:
        return str(code)


def short_path(filename: str) -> str:
    """A path relative to the working directory when it lies below it (stable across machines)."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


def where(site: Site | None) -> str:
    """`file:line in function` for a call site, or a placeholder."""
    if site is None:
        return "(site unknown: checking started later)"
    return f"{short_path(site.filename)}:{site.lineno} in {site.function}"


def line_of(site: Site | None) -> str:
    return f"line {site.lineno}" if site is not None else "the call"


def user_stack(site: Site | None) -> list[str]:
    """The user's frames of a site (innermost first), without aclsim's and runpy's frames."""
    if site is None:
        return [where(None)]
    frames = []
    for filename, lineno, function in site.stack or ((site.filename, site.lineno, site.function),):
        if filename.startswith((_PKG_DIR, *_LIBRARY_DIRS)) or filename.startswith("<frozen"):
            break  # the program's own frames end where aclsim, runpy or a library (pytest, ...) calls it
        frames.append(f"{short_path(filename)}:{lineno} in {function}")
    return frames or [where(site)]


def site_json(site: Site) -> dict[str, Any]:
    return {"file": short_path(site.filename), "line": site.lineno, "function": site.function}

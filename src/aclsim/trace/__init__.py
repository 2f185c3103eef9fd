"""Timeline and run summary: a Chrome/Perfetto trace of host calls and device work, built on the runtime bus.

`start_session(trace_path, summary)` starts recording; `.finish()` writes the trace and prints the
summary. `aclsim run --trace out.json --summary prog.py` does both around a program.
"""

from __future__ import annotations

from .model import CostModel
from .session import TraceSession, start_session

__all__ = ["CostModel", "TraceSession", "start_session"]

"""`asc.lib.runtime` as pyasc host code uses it (`rt.current_stream()`, `rt.synchronize()`).

Absolute imports on purpose: under `aclsim run` this file may be loaded as `asc.lib.runtime`.
"""

from __future__ import annotations

from aclsim.errors import AclError, withdraw
from aclsim.runtime import Context, Stream, get_runtime


def current_context(what: str) -> Context:
    """This thread's context; pyasc's runtime opens device 0 when the script chose none."""
    rt = get_runtime()
    try:
        return rt.current_context(what)
    except AclError as e:
        withdraw(e)  # only a probe: acl.get_recent_err_msg() must not report it
        rt.set_device(0)
        return rt.current_context(what)


def _context_stream() -> Stream:
    return current_context("asc.lib.runtime").default_stream


def current_stream() -> Stream:
    """The current context's default stream (what `kernel[n, rt.current_stream()]` launches on)."""
    return _context_stream()


def synchronize() -> None:
    """Wait for all work on the current device."""
    _context_stream()
    get_runtime().synchronize_device()

"""`asc.lib.runtime` as pyasc host code uses it (`rt.current_stream()`, `rt.synchronize()`).

Absolute imports on purpose: under `aclsim run` this file may be loaded as `asc.lib.runtime`.
"""

from __future__ import annotations

from aclsim.asc.coverage import module_getattr
from aclsim.errors import AclError
from aclsim.runtime import Stream, get_runtime

__getattr__ = module_getattr("asc.lib.runtime")  # pyasc names aclsim lacks say so at the call site


def _context_stream() -> Stream:
    rt = get_runtime()
    try:
        return rt.current_context("asc.lib.runtime").default_stream
    except AclError:
        rt.set_device(0)  # pyasc's runtime opens device 0 when the script chose none
        return rt.current_context("asc.lib.runtime").default_stream


def current_stream() -> Stream:
    """The current context's default stream (what `kernel[n, rt.current_stream()]` launches on)."""
    return _context_stream()


def synchronize() -> None:
    """Wait for all work on the current device."""
    _context_stream()
    get_runtime().synchronize_device()

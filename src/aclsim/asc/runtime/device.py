"""The device a pyasc program runs on: pyasc's runtime opens device 0 when the script chose none."""

from __future__ import annotations

from aclsim.errors import AclError
from aclsim.runtime import Context, get_runtime


def current_context(what: str) -> Context:
    """This thread's context; pyasc's runtime opens device 0 when the script chose none."""
    rt = get_runtime()
    try:
        return rt.current_context(what)
    except AclError:  # only a probe (an AclError records no message): open device 0
        rt.set_device(0)
        return rt.current_context(what)

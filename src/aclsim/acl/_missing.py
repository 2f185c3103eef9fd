"""What pyACL has and aclsim does not emulate: a call that says so, never a silent no-op.

Each pyACL module of the face ends with `__getattr__ = not_emulated("acl.x", RULES)`. A name that matches
a rule is a pyACL function whose result shape is known: calling it returns what pyACL returns on failure
(`ret`, `(0, ret)`, or a 0 handle) with ACL_ERROR_API_NOT_SUPPORT (200001), puts the reason in
`acl.get_recent_err_msg()` and warns at the call site. Any other missing name raises AttributeError
naming the module and saying aclsim does not emulate it.
"""

from __future__ import annotations

import re
import types
import warnings
from collections.abc import Callable
from typing import Any

from ..errors import Code, error_text, record_error

R = object()  # stands for the return code in a failure template


class NotEmulatedWarning(UserWarning):
    """A pyACL call aclsim does not emulate was made (it returned ACL_ERROR_API_NOT_SUPPORT)."""


# (name pattern, what the call returns on failure, why). Shapes from the pyACL API reference.
Rule = tuple[str, tuple, str]

_HANDLE = (0,)  # create_* calls return only a handle: 0 (NULL) on failure
_RET = (R,)


def _stub(qualname: str, template: tuple, why: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        msg = f"{qualname} is not emulated by aclsim: {why}"
        record_error(error_text(Code.ERROR_API_NOT_SUPPORT, msg))  # for acl.get_recent_err_msg()
        warnings.warn(msg, NotEmulatedWarning, stacklevel=2)
        out = tuple(int(Code.ERROR_API_NOT_SUPPORT) if v is R else v for v in template)
        return out[0] if len(out) == 1 else out

    call.__name__ = call.__qualname__ = qualname
    call.__doc__ = f"Not emulated by aclsim ({why})."
    return call


def not_emulated(module: str, rules: list[Rule]) -> Callable[[str], Any]:
    """A module-level `__getattr__` for the pyACL module `module`."""
    compiled = [(re.compile(p), t, w) for p, t, w in rules]

    def __getattr__(name: str) -> Any:
        if not name.startswith("__"):
            for pat, template, why in compiled:
                if pat.fullmatch(name):
                    return _stub(f"{module}.{name}", template, why)
        raise AttributeError(
            f"module '{module}' has no attribute '{name}': aclsim does not emulate it (or pyACL has no such "
            "function); docs/pyacl.md and docs/models.md ('What is emulated') list what is emulated"
        )

    return __getattr__


def unemulated_module(name: str, why: str, rules: list[Rule]) -> types.ModuleType:
    """A whole pyACL sub-module aclsim does not emulate (e.g. acl.prof)."""
    mod = types.ModuleType(name, f"`{name}` is not emulated by aclsim: {why}")
    mod.__getattr__ = not_emulated(name, [(p, t, why) for p, t, _ in rules])  # type: ignore[method-assign]
    return mod


# Generic pyACL shapes: create_* returns a handle; destroy_/set_/start/stop/init/finalize return ret;
# get_* and query_* return (value, ret).
def generic(why: str) -> list[Rule]:
    return [
        (r"(\w+_)?create_\w+", _HANDLE, why),
        (r"(\w+_)?(destroy|set|start|stop|init|finalize|send|subscribe|unsubscribe)(_\w+)?", _RET, why),
        (r"(\w+_)?(get|query|predict)_\w+", (0, R), why),
        (r"\w+_async", _RET, why),
    ]

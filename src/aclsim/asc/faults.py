"""Faults of Ascend C kernels: the errors, and the message that names the kernel, the core, the API and the line.

Exactly one core of a launch runs at any time (kernel/gang.py: cores that wait for each other hand
over), and the scheduler runs one task at a time, so the running core is one slot here, set by the launch
(`set_running`) and read by pyasc's face (`running`: pyasc's calls name no core) and by the fault message. Every
check that fails calls `fail`, which raises `KernelFault` naming the kernel, the core, the API call and
the kernel source line: the launch's stream then reports 507015 (ACL_ERROR_RT_AICORE_EXCEPTION) with
that message. A pyasc API aclsim does not emulate raises `NotEmulatedError` (507899).
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

from aclsim.errors import AclError, Code
from aclsim.runtime import FOREIGN_CALLER, KernelFault, Site, user_site

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class AscError(AclError):
    """A kernel launched synchronously (with host numpy arrays) faulted; code 507015."""

    def __init__(self, message: str) -> None:
        super().__init__(Code.ERROR_RT_AICORE_EXCEPTION, message)


class AscWarning(UserWarning):
    """Legal Ascend C that does not do what it looks like (e.g. a data_copy length rounded down)."""


_running: Any = None  # the core (aicore.core.Core) whose kernel body runs, set by the launch


def set_running(core: Any) -> None:
    """The launch starts (or resumes) `core`'s body on this thread; None when it stops."""
    global _running
    _running = core


def running(api: str) -> Any:
    """The running core, for a call that names none (pyasc's); outside a kernel, a RuntimeError telling how to
    launch one."""
    core = _running
    if core is None:
        raise RuntimeError(f"asc.{api} can only run inside a kernel: decorate the function with @asc.jit "
                           "and launch it with kernel[core_num](args...)")
    return core


def running_or_none() -> Any:
    """The running core, or None on the host."""
    return _running


def short(path: str) -> str:
    """`path` relative to the working directory when that is shorter."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if len(rel) < len(path) else path


def where(site: Site | None) -> str:
    """' (at file:line in function)' for a kernel source site."""
    if site is None:
        return ""
    return f" (at {short(site.filename)}:{site.lineno} in {site.function})"


def pyasc_name(api: str) -> str:
    """How pyasc's face spells an API in messages: `asc.<api>`."""
    return f"asc.{api}"


def spelled(api: str) -> str:
    """The API as the running kernel's language spells it (its launch's `spell`: pyasc's `asc.add`, C++'s
    `AscendC::Add`)."""
    core = _running
    return core.launch.spell(api) if core is not None else pyasc_name(api)


def message(api: str, text: str, site: Site | None = None, located: bool = True) -> str:
    """'kernel: core i of n: asc.api: text (at file:line in fn)' (without the location if not `located`)."""
    core = _running
    head = f"{core.kernel}: {core.name}: " if core is not None else ""
    at = where(site if site is not None else user_site()) if located else ""
    return f"{head}{spelled(api)}: {text}{at}"


class ForeignPlace:
    """Where native kernel code called the API (a return address), resolved to (file, line) only when a message
    needs it: a lookup in the program's debug info costs far more than the call it describes."""

    __slots__ = ("ra",)

    def __init__(self, ra: Any) -> None:
        self.ra = ra

    def __getitem__(self, i: int) -> Any:
        resolve = type(FOREIGN_CALLER).resolve
        site = resolve(self.ra) if resolve is not None else None
        return (site.filename, site.lineno)[i] if site is not None else ("<native code>", 0)[i]


def caller(depth: int = 2) -> tuple[str, int] | ForeignPlace:
    """(file, line) of the kernel code `depth` frames up from the caller (2: the caller of the API function); for
    an API called from native code (no kernel frame there), the native caller's place."""
    f = sys._getframe(depth)
    if f.f_code.co_filename.startswith(PKG_DIR):
        ra = FOREIGN_CALLER.ra
        place = _places.get(ra)
        if place is None:  # one object per call site: a queue call makes no garbage to collect
            if len(_places) >= 4096:
                _places.clear()
            place = _places[ra] = ForeignPlace(ra)
        return place
    return f.f_code.co_filename, f.f_lineno


_places: dict[Any, ForeignPlace] = {}


def fail(api: str, text: str, site: Site | None = None) -> NoReturn:
    """Fault the running kernel: the message names the core, the API call and the source line."""
    raise KernelFault(message(api, text, site))


def name_of(obj: Any) -> str | None:
    """The name of a kernel variable bound to `obj`, searched in the kernel's frames (error paths only)."""
    f = sys._getframe(1)
    while f is not None:
        if not f.f_code.co_filename.startswith(PKG_DIR):
            for k, v in f.f_locals.items():
                if v is obj:
                    return k
        f = f.f_back
    return None


class UnsupportedDataType(KernelFault, ValueError):
    """An element type pyasc has no name for (bfloat16, bool) given to an instruction: pyasc refuses the kernel when
    it compiles it with "Unsupported DataType name: ..." (a ValueError); here the instruction refuses it at the call
    (`table.refuse_types`), and a launch with host arrays raises it as `AscDataTypeError`."""

    def __init__(self, api: str, text: str) -> None:
        super().__init__(message(api, text))


class AscDataTypeError(AscError, ValueError):
    """A kernel launched with host arrays used an element type pyasc cannot compile (code 507015, and a ValueError as
    pyasc's compile error is)."""


class NotEmulatedError(KernelFault, AttributeError):
    """A pyasc API aclsim does not emulate (ACL_ERROR_RT_FEATURE_NOT_SUPPORT when raised in a kernel)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, Code.ERROR_RT_FEATURE_NOT_SUPPORT)


def not_emulated(api: str) -> NotEmulatedError:
    """The error for a pyasc API (`asc.X` spelled as the user wrote it) that aclsim lacks, with the call site."""
    core = _running
    head = f"{core.kernel}: core {core.idx} of {core.num}: " if core is not None else ""
    if core is not None and core.launch.spell is not pyasc_name and api.startswith("asc."):  # a native face's call
        name, _, rest = api[4:].partition(" ")
        return NotEmulatedError(f"{head}{core.launch.spell(name)}{' ' + rest if rest else ''} is not emulated by "
                                f"aclsim (yet){where(user_site())}")
    return NotEmulatedError(f"{head}{api} is a pyasc API that aclsim does not emulate (yet){where(user_site())}")


for _public in (AscError, AscWarning, NotEmulatedError):  # tracebacks name them by their public import path
    _public.__module__ = "aclsim.asc"

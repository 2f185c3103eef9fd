"""aclsim: run and check Huawei Ascend CANN code (pyACL, SIMT kernels, Ascend C) on any CPU.

The Pythonic face lives here (`Device`, `Stream`, `Event`, `DeviceArray`, `AclError`);
the pyACL facade is `aclsim.acl`; kernels are written with `aclsim.simt` and `aclsim.asc`.

PYTEST_DONT_REWRITE: under `aclsim run pytest ...` this package is imported before pytest loads its
plugin (aclsim.check.pytest_plugin); the marker keeps pytest from warning that it cannot rewrite it.
"""

from __future__ import annotations

import importlib
from typing import Any

from .api import Device, DeviceArray, Event, Stream, current_device, empty, to_device, zeros
from .errors import AclError, Code
from .runtime import get_runtime, reset_runtime

__version__ = "0.1.0"


def configure(soc: str | None = None, devices: int | None = None) -> None:
    """Start a fresh runtime emulating `devices` devices of chip `soc` (e.g. "Ascend310P3").

    Everything allocated before is released. Without arguments, ACLSIM_SOC / ACLSIM_DEVICES apply.
    """
    reset_runtime(soc, devices)


# Submodules reachable as attributes of `aclsim` without importing them first (`aclsim.check.enable(...)`),
# loaded on first use so `import aclsim` stays as fast as before (PEP 562 module __getattr__).
_LAZY_SUBMODULES = frozenset({"acl", "asc", "check", "constants", "simt", "trace"})


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AclError", "Code", "Device", "DeviceArray", "Event", "Stream", "configure", "current_device", "empty",
    "get_runtime", "to_device", "zeros",
]

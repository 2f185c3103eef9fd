"""`asc.runtime.config` (pyasc `python/asc/runtime/config.py`): backend and SoC selection.

Both backends run on the emulator. `set_platform` switches the emulated chip when `soc_version`
names one aclsim models (this starts a fresh runtime, as choosing a platform does before any
allocation) and makes `device_id` current. Absolute imports: this file may load as `asc.runtime.config`.
"""

from __future__ import annotations

from enum import Enum

from aclsim.asc.coverage import module_getattr
from aclsim.runtime import get_runtime, reset_runtime

__getattr__ = module_getattr("asc.runtime.config")  # pyasc names aclsim lacks say so at the call site


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"


def set_platform(backend: Backend | str, soc_version: Platform | str | None = None, device_id: int | None = None,
                 check: bool = True) -> None:
    """Select the backend (both emulate) and optionally the chip and the device."""
    Backend(backend)
    if soc_version is not None:
        name = soc_version.value if isinstance(soc_version, Platform) else str(soc_version)
        if get_runtime().chip.name != name:
            reset_runtime(name)
    if device_id is not None:
        get_runtime().set_device(device_id)

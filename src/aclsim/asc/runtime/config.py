"""`asc.runtime.config` (pyasc `python/asc/runtime/config.py`): backend and SoC selection.

Both backends run on the emulator. `set_platform` switches the emulated chip when `soc_version`
names one aclsim models (this starts a fresh runtime, as choosing a platform does before any
allocation) and makes `device_id` current. Absolute imports: this file may load as `asc.runtime.config`.
"""

from __future__ import annotations

from enum import Enum

from aclsim.asc.coverage import NotEmulatedError, module_getattr
from aclsim.chips import PROFILES
from aclsim.runtime import get_runtime, reset_runtime

__getattr__ = module_getattr("asc.runtime.config")  # pyasc names aclsim lacks say so at the call site


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    """pyasc's SoC names; aclsim models the Ascend910B1..B4 profiles (and Ascend310P3 via ACLSIM_SOC)."""

    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    """Which cores a kernel runs on (`@asc.jit(kernel_type=...)`)."""

    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


def set_platform(backend: Backend | str, soc_version: Platform | str | None = None, device_id: int | None = None,
                 check: bool = True) -> None:
    """Select the backend (both emulate) and optionally the chip and the device."""
    Backend(backend)
    if soc_version is not None:
        name = soc_version.value if isinstance(soc_version, Platform) else str(soc_version)
        if name not in PROFILES:
            raise NotEmulatedError(f"set_platform: aclsim has no chip profile for {name} (yet); it models "
                                   f"{', '.join(sorted(PROFILES))}")
        if get_runtime().chip.name != name:
            reset_runtime(name)
    if device_id is not None:
        get_runtime().set_device(device_id)

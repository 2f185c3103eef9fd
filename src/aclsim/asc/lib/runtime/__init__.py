"""`asc.lib.runtime` as pyasc host code uses it: streams, devices, `device_info` and the `support` enums.

Absolute imports on purpose: under `aclsim run` this package may be loaded as `asc.lib.runtime`.
"""

from __future__ import annotations

from aclsim.asc.coverage import module_getattr
from aclsim.asc.runtime.config import Platform
from aclsim.asc.runtime.device import current_context
from aclsim.runtime import Stream, get_runtime

from . import support
from .support import CoreType, DeviceInfoType, DeviceModuleType

__getattr__ = module_getattr("asc.lib.runtime")  # pyasc names aclsim lacks say so at the call site


def _context_stream() -> Stream:
    return current_context("asc.lib.runtime").default_stream


def current_stream() -> Stream:
    """The current context's default stream (what `kernel[n, rt.current_stream()]` launches on)."""
    return _context_stream()


def synchronize() -> None:
    """Wait for all work on the current device."""
    _context_stream()
    get_runtime().synchronize_device()


def device_count() -> int:
    """Number of emulated devices."""
    return get_runtime().device_count()


def current_device() -> int:
    """The device the current context is on (device 0 is opened if none was chosen)."""
    _context_stream()
    return get_runtime().get_device()


def set_device(device_id: int) -> None:
    get_runtime().set_device(int(device_id))


def current_platform() -> str:
    """The emulated SoC's name (`ACLSIM_SOC` or `aclsim run --soc`)."""
    return get_runtime().chip.name


def get_soc_version() -> Platform | str:
    """The emulated SoC as pyasc's `config.Platform` (pyasc's `interface.get_soc_version`); its name
    for a chip pyasc has no member for (Ascend310P3)."""
    name = get_runtime().chip.name
    try:
        return Platform(name)
    except ValueError:
        return name


def is_available() -> bool:
    """The emulated runtime is always there."""
    return True


def device_info(module_type: DeviceModuleType, info_type: DeviceInfoType, device_id: int | None = None) -> int:
    """Core counts of the emulated chip: AI Cores (cube cores on separated parts), vector cores.

    Only the core-count queries are answered; the others have no meaning on the emulator.
    """
    module = DeviceModuleType(getattr(module_type, "value", module_type))
    info = DeviceInfoType(getattr(info_type, "value", info_type))
    if device_id is not None and not 0 <= int(device_id) < device_count():
        raise ValueError(f"device_info: device {device_id} does not exist ({device_count()} emulated devices)")
    chip = get_runtime().chip
    if info is DeviceInfoType.INFO_TYPE_CUBE_NUM or (
            info is DeviceInfoType.INFO_TYPE_CORE_NUM and module is DeviceModuleType.RT_MODULE_TYPE_AICORE):
        return chip.ai_cores
    if info is DeviceInfoType.INFO_TYPE_CORE_NUM and module is DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE:
        return chip.vector_cores
    raise ValueError(f"device_info({module.name}, {info.name}): aclsim answers the core counts only "
                     "(RT_MODULE_TYPE_AICORE or RT_MODULE_TYPE_VECTOR_CORE with INFO_TYPE_CORE_NUM, INFO_TYPE_CUBE_NUM)")


__all__ = [
    "CoreType", "DeviceInfoType", "DeviceModuleType", "current_context", "current_device", "current_platform", "current_stream",
    "device_count", "device_info", "get_soc_version", "is_available", "set_device", "support", "synchronize",
]

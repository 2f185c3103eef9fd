"""The emulated AscendCL runtime: the single source of truth every face goes through.

`core.py` lists the rooms (one module per chapter of the runtime API).
"""

from .copies import Region
from .core import Runtime, current_runtime, get_runtime, reset_runtime
from .devices import Context, DeviceState
from .host import HostAllocation
from .kernel_events import KernelAccess, KernelSync, LocalGarbage, PipeAccess, PipeSync
from .memory import DEVICE_BASE, Allocation, DeviceHeap, device_of, is_device_address
from .observe import (
    FOREIGN_CALLER,
    Access,
    ApiCall,
    BadFree,
    Bus,
    CopyInFlight,
    DeviceReset,
    EventWait,
    HostCopy,
    HostWait,
    KindMismatch,
    Refused,
    Release,
    Site,
    user_site,
)
from .streams import Event, Stream
from .work import BufferUse, CallbackWork, CopyWork, EventWork, KernelFault, KernelWork, Task

__all__ = [
    "DEVICE_BASE",
    "FOREIGN_CALLER",
    "Access",
    "Allocation",
    "ApiCall",
    "BadFree",
    "BufferUse",
    "Bus",
    "CallbackWork",
    "Context",
    "CopyInFlight",
    "CopyWork",
    "DeviceHeap",
    "DeviceReset",
    "DeviceState",
    "Event",
    "EventWait",
    "EventWork",
    "HostAllocation",
    "HostCopy",
    "HostWait",
    "KernelAccess",
    "KernelFault",
    "KernelSync",
    "KernelWork",
    "KindMismatch",
    "LocalGarbage",
    "PipeAccess",
    "PipeSync",
    "Refused",
    "Region",
    "Release",
    "Runtime",
    "Site",
    "Stream",
    "Task",
    "current_runtime",
    "device_of",
    "get_runtime",
    "is_device_address",
    "reset_runtime",
    "user_site",
]

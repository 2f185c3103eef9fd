"""The emulated AscendCL runtime: the single source of truth every face goes through."""

from .core import Context, Region, Runtime, get_runtime, reset_runtime
from .memory import DEVICE_BASE, Allocation, DeviceHeap
from .observe import Access, ApiCall, Bus, KernelAccess, Site, user_site
from .streams import Event, KernelFault, Stream, Task

__all__ = [
    "DEVICE_BASE",
    "Access",
    "Allocation",
    "ApiCall",
    "Bus",
    "Context",
    "DeviceHeap",
    "Event",
    "KernelAccess",
    "KernelFault",
    "Region",
    "Runtime",
    "Site",
    "Stream",
    "Task",
    "get_runtime",
    "reset_runtime",
    "user_site",
]

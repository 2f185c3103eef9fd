"""Memory (hicann/runtime docs/zh/api_ref/11-01_device_memory_malloc_and_free.md,
11-02_host_memory_management.md): malloc/free, malloc_host/free_host, get_mem_info, pointer attributes.

The heap itself (address space, allocator, accounting) is `memory.DeviceHeap`; pinned host memory
is `host.HostRegistry`. This room validates the calls, picks the heap and tells observers.
"""

from __future__ import annotations

from typing import Any

from .. import constants as C
from ..errors import AclError, Code
from .host import HostAllocation, HostRegistry
from .memory import PAGE_SIZE, Allocation, device_of
from .observe import BadFree, Bus, Release, api, user_site

ULONG_MAX = (1 << 64) - 1


class MemoryRoom:
    """Runtime methods that allocate, free and describe memory."""

    bus: Bus
    lock: Any
    host: HostRegistry
    devices: list[Any]

    def find_allocation(self, addr: int) -> Allocation | None:
        """The live device allocation containing `addr` (any device), or None."""
        d = device_of(addr)
        if d is None or d >= len(self.devices) or self.devices[d].heap is None:
            return None
        return self.devices[d].heap.find(addr)

    @api("acl.rt.malloc")
    def malloc(self, size: int, policy: int, api_name: str = "malloc") -> Allocation:
        fn = f"acl.rt.{api_name}" if api_name != "dvpp_malloc" else "acl.media.dvpp_malloc"
        if size == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: size must be > 0, got 0; pass the number of bytes to allocate")
        if size > ULONG_MAX - 64:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: size {size} overflows when rounded up (a negative size wraps to a huge unsigned value)",
            )
        with self.lock:
            ctx = self.current_context(fn)
            heap = self._heap(self.devices[ctx.device_id])
            a = heap.allocate(size, policy, api_name)
            if self.bus.observers:
                a.site = user_site()
                self.bus.emit("malloc", a)
            return a

    @api("acl.rt.free")
    def free(self, addr: int, api_name: str = "acl.rt.free") -> None:
        if addr == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{api_name}: dev_ptr is 0 (NULL)")
        with self.lock:
            a = self.find_allocation(addr)
            if a is None or a.start != addr:
                reason = self._bad_free_reason(addr, a, device_api=True)
                if self.bus.observers:
                    self.bus.emit("bad_free", BadFree(addr, api_name, reason, user_site(), a, self.host.find(addr)))
                raise AclError(Code.ERROR_RT_PARAM_INVALID, f"{api_name}: {reason}")
            self.devices[a.device].heap.release(a)
            if self.bus.observers:
                self.bus.emit("free", Release(a, user_site()))

    def _bad_free_reason(self, addr: int, inside: Any, device_api: bool) -> str:
        if inside is not None:
            return f"{addr:#x} is {addr - inside.start} bytes inside the allocation at {inside.start:#x}; free its start address"
        if device_api and self.host.find(addr) is not None:
            return f"{addr:#x} is host memory from acl.rt.malloc_host; free it with acl.rt.free_host"
        if not device_api and self.find_allocation(addr) is not None:
            return f"{addr:#x} is device memory from acl.rt.malloc; free it with acl.rt.free"
        kind = "device" if device_api else "host"
        return (
            f"{addr:#x} is not a live {kind} allocation (already freed, or never returned by "
            f"{'acl.rt.malloc' if device_api else 'acl.rt.malloc_host'})"
        )

    # ------------------------------------------------------------------ host memory (api_ref 11-02)
    @api("acl.rt.malloc_host")
    def malloc_host(self, size: int) -> HostAllocation:
        if size == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, "acl.rt.malloc_host: size must be > 0, got 0")
        if size > ULONG_MAX - 64:
            raise AclError(Code.ERROR_INVALID_PARAM, f"acl.rt.malloc_host: size {size} is too large")
        with self.lock:
            self.current_context("acl.rt.malloc_host")
            try:
                h = self.host.allocate(size)
            except (MemoryError, ValueError):  # numpy refuses sizes beyond its maximum with ValueError
                raise AclError(
                    Code.ERROR_RT_MEMORY_ALLOCATION, f"acl.rt.malloc_host: the host cannot provide {size} bytes"
                ) from None
            if self.bus.observers:
                h.site = user_site()
                self.bus.emit("malloc_host", h)
            return h

    @api("acl.rt.free_host")
    def free_host(self, addr: int) -> None:
        if addr == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, "acl.rt.free_host: host_ptr is 0 (NULL)")
        with self.lock:
            h = self.host.get(addr)
            if h is None:
                inside = self.host.find(addr)
                reason = self._bad_free_reason(addr, inside, device_api=False)
                if self.bus.observers:
                    self.bus.emit("bad_free", BadFree(addr, "acl.rt.free_host", reason, user_site(),
                                                      self.find_allocation(addr), inside))
                raise AclError(Code.ERROR_RT_PARAM_INVALID, f"acl.rt.free_host: {reason}")
            # Queued tasks that use it hold their own reference to h.buffer: no corruption.
            self.host.release(h)
            if self.bus.observers:
                self.bus.emit("free_host", Release(h, user_site()))

    # ------------------------------------------------------------------ memory info (aclrtGetMemInfo)
    @api("acl.rt.get_mem_info")
    def get_mem_info(self, attr: int) -> tuple[int, int]:
        ctx = self.current_context("acl.rt.get_mem_info")
        if not 0 <= attr <= C.ACL_MEM_P2P_HUGE1G:
            raise AclError(Code.ERROR_INVALID_PARAM, f"acl.rt.get_mem_info: attr {attr} is not an aclrtMemAttr (0..17)")
        with self.lock:
            return self._heap(self.devices[ctx.device_id]).mem_info(attr)

    @api("acl.rt.pointer_get_attributes")
    def pointer_attributes(self, addr: int) -> dict:
        if addr == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, "acl.rt.pointer_get_attributes: ptr is 0 (NULL)")
        with self.lock:
            a = self.find_allocation(addr)
            if a is not None:
                return {"location": {"id": a.device, "type": C.ACL_MEM_LOCATION_TYPE_DEVICE},
                        "page_size": PAGE_SIZE[a.page_kind], "rsv": 0}
            if self.host.find(addr) is not None:
                return {"location": {"id": 0, "type": C.ACL_MEM_LOCATION_TYPE_HOST}, "page_size": 4096, "rsv": 0}
            return {"location": {"id": 0, "type": C.ACL_MEM_LOCATION_TYPE_UNREGISTERED}, "page_size": 0, "rsv": 0}

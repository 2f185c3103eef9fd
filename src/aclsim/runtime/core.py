"""The runtime: devices, contexts, memory, streams, events. The single source of truth.

Every face (the pyACL facade `aclsim.acl`, the Pythonic API, the kernel modules) calls these
methods. They raise `AclError` carrying the documented ACL code and change nothing on failure.
Sources for each rule: `shared/reference/aclrt-runtime.md` (section numbers in comments).
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import constants as C
from ..chips import ChipProfile, device_count_from_env, get_profile, profile_from_env
from ..errors import AclError, Code
from .host import MAPPINGS, HostAllocation, HostRegistry, host_view
from .memory import DEVICE_BASE, DEVICE_STRIDE, PAGE_SIZE, Allocation, DeviceHeap
from .observe import Access, ApiCall, Bus, now, user_site
from .streams import Event, Scheduler, Stream, Task

ULONG_MAX = (1 << 64) - 1
_H2D, _D2H, _D2D, _H2H = C.ACL_MEMCPY_HOST_TO_DEVICE, C.ACL_MEMCPY_DEVICE_TO_HOST, C.ACL_MEMCPY_DEVICE_TO_DEVICE, 0


def api(name: str) -> Callable:
    """Decorate a Runtime method: report the call (name, args, result, times) to observers."""

    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(self: Runtime, *args: Any) -> Any:
            if not self.bus.observers:
                return fn(self, *args)
            t0 = now()
            ret = 0
            try:
                return fn(self, *args)
            except AclError as e:
                ret = e.code
                raise
            finally:
                self.bus.emit("api", ApiCall(name, args, ret, t0, now(), site=user_site()))

        return wrapper

    return deco


@dataclass(eq=False)
class Context:
    handle: int
    device_id: int
    is_default: bool
    default_stream: Stream = field(init=False, repr=False)
    streams: dict[int, Stream] = field(default_factory=dict, repr=False)
    events: dict[int, Event] = field(default_factory=dict, repr=False)
    destroyed: bool = False


@dataclass(eq=False)
class DeviceState:
    id: int
    chip: ChipProfile
    heap: DeviceHeap | None = None
    refcount: int = 0
    default_context: Context | None = None
    contexts: list[Context] = field(default_factory=list)
    peers: set[int] = field(default_factory=set)


@dataclass
class Region:
    """A validated byte range: device memory, acl host memory or other (pageable) host memory."""

    addr: int
    nbytes: int
    where: str  # "device", "host", "unregistered"
    alloc: Allocation | HostAllocation | None

    @property
    def is_device(self) -> bool:
        return self.where == "device"

    def view(self) -> np.ndarray:
        if self.where == "device":
            lo = self.addr - self.alloc.start
            return self.alloc.data[lo : lo + self.nbytes]
        if isinstance(self.alloc, HostAllocation):
            lo = self.addr - self.alloc.start
            return self.alloc.buffer[lo : lo + self.nbytes]
        return host_view(self.addr, self.nbytes)


class _Thread(threading.local):
    context: Context | None = None


class Runtime:
    """Process-wide emulated AscendCL runtime."""

    def __init__(self, soc: str | None = None, devices: int | None = None) -> None:
        self.chip = get_profile(soc) if soc else profile_from_env()
        n = devices if devices is not None else device_count_from_env()
        self.devices = [DeviceState(i, self.chip) for i in range(n)]
        self.bus = Bus()
        self.scheduler = Scheduler(self.bus)
        self.scheduler.post_callback = self._post_callback
        self.scheduler.run_inline = self._run_inline
        self.lock = self.scheduler.cv
        self.host = HostRegistry()
        self._tls = _Thread()
        self._handles = itertools.count(0x5A0000001000, 0x40)
        self._objects: dict[int, Any] = {}  # handle -> Context | Stream | Event
        self.init_count = 0
        self.finalized = False
        self._reports: dict[int, deque[Task]] = {}

    # ------------------------------------------------------------------ helpers
    def _new_handle(self, obj: Any) -> int:
        h = next(self._handles)
        self._objects[h] = obj
        return h

    def _device(self, device_id: int) -> DeviceState:
        if not 0 <= device_id < len(self.devices):
            raise AclError(
                Code.ERROR_RT_INVALID_DEVICEID,
                f"device id {device_id} is invalid: this machine emulates {len(self.devices)} device(s) "
                f"(ids 0..{len(self.devices) - 1}); set ACLSIM_DEVICES for more",
            )
        return self.devices[device_id]

    def _heap(self, dev: DeviceState) -> DeviceHeap:
        if dev.heap is None:
            dev.heap = DeviceHeap(dev.id, dev.chip)
        return dev.heap

    def current_context(self, fn: str = "") -> Context:
        ctx = self._tls.context
        if ctx is None or ctx.destroyed:
            raise AclError(
                Code.ERROR_RT_CONTEXT_NULL,
                f"{fn}: this thread has no current context; call acl.rt.set_device(id) "
                "or acl.rt.set_context(ctx) in this thread first (Pythonic face: `with aclsim.Device(id):`)",
            )
        return ctx

    def _lookup(self, handle: int, kind: type, fn: str, what: str) -> Any:
        obj = self._objects.get(handle)
        if not isinstance(obj, kind) or obj.destroyed:
            raise AclError(
                Code.ERROR_RT_INVALID_HANDLE if handle else Code.ERROR_INVALID_PARAM,
                f"{fn}: {what} {handle:#x} is not a live {kind.__name__.lower()} handle"
                + (" (it is 0/NULL)" if not handle else " (destroyed or never created)"),
            )
        return obj

    def stream(self, handle: int, fn: str = "") -> Stream:
        """The stream for a pyACL handle (0 = the current context's default stream)."""
        ctx = self.current_context(fn)
        if handle == 0:
            return ctx.default_stream
        s = self._lookup(handle, Stream, fn, "stream")
        if s.context is not ctx:
            raise AclError(
                Code.ERROR_RT_STREAM_CONTEXT,
                f"{fn}: stream {handle:#x} belongs to another context (device {s.device_id}); "
                "call acl.rt.set_context with its context first",
            )
        return s

    def _event(self, handle: int, fn: str) -> Event:
        return self._lookup(handle, Event, fn, "event")

    def find_allocation(self, addr: int) -> Allocation | None:
        """The live device allocation containing `addr` (any device), or None."""
        if addr < DEVICE_BASE:
            return None
        d = (addr - DEVICE_BASE) // DEVICE_STRIDE
        if d >= len(self.devices) or self.devices[d].heap is None:
            return None
        return self.devices[d].heap.find(addr)

    def region(self, addr: int, nbytes: int, write: bool, fn: str, arg: str) -> Region:
        """Validate [addr, addr + nbytes) as device or host memory; AclError otherwise."""
        if addr >= DEVICE_BASE:
            a = self.find_allocation(addr)
            if a is None:
                raise AclError(
                    Code.ERROR_INVALID_PARAM,
                    f"{fn}: {arg}={addr:#x} is not inside any live device allocation (freed, or never allocated)",
                )
            if addr + nbytes > a.end:
                raise AclError(
                    Code.ERROR_RT_PARAM_INVALID,
                    f"{fn}: {arg}={addr:#x} + {nbytes} bytes runs {addr + nbytes - a.end} bytes past the end of the "
                    f"allocation at {a.start:#x} (requested {a.size} bytes, {a.alloc_size} reserved); "
                    "copy fewer bytes or allocate more",
                )
            return Region(addr, nbytes, "device", a)
        h = self.host.find(addr)
        if h is not None and addr + nbytes <= h.end:
            return Region(addr, nbytes, "host", h)
        if not MAPPINGS.accessible(addr, nbytes, write):
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: {arg}={addr:#x} is neither device memory nor {'writable' if write else 'readable'} host "
                f"memory for {nbytes} bytes; pass a pointer from acl.rt.malloc, acl.rt.malloc_host "
                "or acl.util.bytes_to_ptr/numpy_to_ptr",
            )
        return Region(addr, nbytes, "unregistered", None)

    def _emit_access(self, r: Region, write: bool, task: Task | None, what: str, site: Any) -> None:
        if r.is_device:
            lo = r.addr - r.alloc.start
            self.bus.emit("access", Access(r.alloc, lo, lo + r.nbytes, write, task, site, what))

    # ------------------------------------------------------------------ lifecycle (§4.8)
    @api("acl.init")
    def init(self, config_path: str | None = None) -> None:
        with self.lock:
            if config_path:
                try:
                    with open(config_path) as f:
                        text = f.read()
                except OSError as e:
                    raise AclError(Code.ERROR_INVALID_FILE, f"acl.init: cannot read config {config_path!r}: {e}") from None
                if text.strip():
                    try:
                        json.loads(text)
                    except ValueError as e:
                        raise AclError(Code.ERROR_PARSE_FILE, f"acl.init: {config_path!r} is not valid JSON: {e}") from None
            if self.init_count > 0:
                self.init_count += 1
                raise AclError(
                    Code.ERROR_REPEAT_INITIALIZE,
                    "acl.init: already initialised (harmless; call acl.init once per process)",
                )
            self.init_count = 1
            self.finalized = False

    @api("acl.finalize")
    def finalize(self) -> None:
        with self.lock:
            if self.finalized:
                raise AclError(Code.ERROR_REPEAT_FINALIZE, "acl.finalize: already finalized")
            self.init_count = 0
            self.finalized = True
            self.bus.emit("finalize")

    # ------------------------------------------------------------------ devices (§4.9)
    @property
    def device_count(self) -> int:
        return len(self.devices)

    def _new_context(self, dev: DeviceState, is_default: bool) -> Context:
        self._heap(dev)
        ctx = Context(0, dev.id, is_default)
        ctx.handle = self._new_handle(ctx)
        ctx.default_stream = Stream(0, ctx, is_default=True)
        dev.contexts.append(ctx)
        return ctx

    @api("acl.rt.set_device")
    def set_device(self, device_id: int) -> None:
        with self.lock:
            dev = self._device(device_id)
            if dev.default_context is None:
                dev.default_context = self._new_context(dev, True)
            dev.refcount += 1
            self._tls.context = dev.default_context

    @api("acl.rt.reset_device")
    def reset_device(self, device_id: int, force: bool = False) -> None:
        with self.lock:
            dev = self._device(device_id)
            if dev.refcount == 0:
                # Runtime::PrimaryContextRelease (hicann/runtime runtime.cc): decrementing a zero reference
                # count (or a force reset of it) returns RT_ERROR_CONTEXT_DEL -> 507007.
                raise AclError(
                    Code.ERROR_RT_CONTEXT_RELEASE_ERROR,
                    f"acl.rt.reset_device: device {device_id} is not set in this process "
                    "(each reset_device must match an earlier set_device)",
                )
            if force or dev.refcount == 1:
                self._drain(dev.contexts)  # may fail (a callback that cannot finish): then nothing changed
                dev.refcount = 0
                self._release_device(dev)
            else:
                dev.refcount -= 1

    def _drain(self, contexts: list[Context]) -> None:
        """Run every queued task of these contexts' streams (what destroy/reset wait for)."""
        for ctx in contexts:
            for s in [*ctx.streams.values(), ctx.default_stream]:
                self.scheduler.drive(s)

    def _release_device(self, dev: DeviceState) -> None:
        for ctx in list(dev.contexts):
            self._destroy_context(ctx)
        dev.default_context = None
        dev.peers.clear()
        if dev.heap is not None:
            leaked = dev.heap.live()
            if self.bus.observers:
                self.bus.emit("device_reset", dev.id, leaked)
            dev.heap.release_all()

    @api("acl.rt.get_device")
    def get_device(self) -> int:
        return self.current_context("acl.rt.get_device").device_id

    @api("acl.rt.synchronize_device")
    def synchronize_device(self) -> None:
        ctx = self.current_context("acl.rt.synchronize_device")
        t0 = now()
        with self.lock:
            dev = self.devices[ctx.device_id]
            errors = []
            for c in dev.contexts:
                for s in [c.default_stream, *c.streams.values()]:
                    self.scheduler.drive(s)
                    if s.error is not None:
                        errors.append(s.error)
                        s.error = None
        if self.bus.observers:
            self.bus.emit("sync", "device", dev.id, user_site(), t0, now())
        if errors:
            raise AclError(*errors[0])

    # Peer access follows aclrtDeviceCanAccessPeerImpl / aclrtDeviceEnablePeerAccessImpl /
    # aclrtDeviceDisablePeerAccessImpl (hicann/runtime src/acl/aclrt_impl/memory.cpp): flags != 0 ->
    # ACL_ERROR_FEATURE_UNSUPPORTED before anything else, then the current device, then device == peer -> 100000.
    def can_access_peer(self, device_id: int, peer_id: int) -> int:
        if device_id == peer_id:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                "acl.rt.device_can_access_peer: device_id and peer_device_id must differ",
            )
        self._device(device_id)
        self._device(peer_id)
        return 1

    def _peer_of_current(self, fn: str, peer_id: int) -> Context:
        ctx = self.current_context(fn)
        if peer_id == ctx.device_id:
            raise AclError(
                Code.ERROR_INVALID_PARAM, f"{fn}: peer {peer_id} is the current device; pass another device"
            )
        self._device(peer_id)
        return ctx

    @api("acl.rt.device_enable_peer_access")
    def enable_peer_access(self, peer_id: int, flags: int) -> None:
        fn = "acl.rt.device_enable_peer_access"
        if flags != 0:
            raise AclError(Code.ERROR_FEATURE_UNSUPPORTED, f"{fn}: flags is reserved and must be 0, got {flags}")
        ctx = self._peer_of_current(fn, peer_id)
        with self.lock:
            self.devices[ctx.device_id].peers.add(peer_id)

    @api("acl.rt.device_disable_peer_access")
    def disable_peer_access(self, peer_id: int) -> None:
        fn = "acl.rt.device_disable_peer_access"
        ctx = self._peer_of_current(fn, peer_id)
        with self.lock:
            peers = self.devices[ctx.device_id].peers
            if peer_id not in peers:
                raise AclError(
                    Code.ERROR_RT_PARAM_INVALID,
                    f"{fn}: peer access to device {peer_id} was not enabled",
                )
            peers.discard(peer_id)

    # ------------------------------------------------------------------ contexts (§4.9)
    @api("acl.rt.create_context")
    def create_context(self, device_id: int) -> Context:
        with self.lock:
            ctx = self._new_context(self._device(device_id), False)
            self._tls.context = ctx
            return ctx

    def _context(self, handle: int, fn: str) -> Context:
        """A live context handle. NULL -> 100000 (ACL_REQUIRES_NOT_NULL in aclrtDestroyContextImpl and
        aclrtSetCurrentContextImpl); a handle that is no live context -> 107002, as ApiImpl::ContextDestroy's
        CHECK_CONTEXT_VALID_WITH_RETURN(ctx, RT_ERROR_CONTEXT_NULL) returns (hicann/runtime api_impl.cc). For
        set_context we assume the same check (inference: ApiImpl::ContextSetCurrent itself does not validate)."""
        if handle == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: context is 0 (NULL)")
        ctx = self._objects.get(handle)
        if not isinstance(ctx, Context) or ctx.destroyed:
            raise AclError(
                Code.ERROR_RT_CONTEXT_NULL,
                f"{fn}: {handle:#x} is not a live context (destroyed, released by reset_device, or never "
                "created); pass a handle from acl.rt.create_context or acl.rt.get_context",
            )
        return ctx

    @api("acl.rt.destroy_context")
    def destroy_context(self, handle: int) -> None:
        fn = "acl.rt.destroy_context"
        with self.lock:
            ctx = self._context(handle, fn)
            if ctx.is_default:
                # ApiImpl::ContextDestroy: "Can not destroy primary ctx." -> RT_ERROR_CONTEXT_NULL (107002).
                raise AclError(
                    Code.ERROR_RT_CONTEXT_NULL,
                    f"{fn}: this is device {ctx.device_id}'s default context; release it with acl.rt.reset_device",
                )
            self._destroy_context(ctx)

    def _destroy_context(self, ctx: Context) -> None:
        self._drain([ctx])
        for s in [*ctx.streams.values(), ctx.default_stream]:
            s.destroyed = True
            self._objects.pop(s.handle, None)
        for e in ctx.events.values():
            e.destroyed = True
            self._objects.pop(e.handle, None)
        ctx.streams.clear()
        ctx.events.clear()
        ctx.destroyed = True
        self._objects.pop(ctx.handle, None)
        self.devices[ctx.device_id].contexts.remove(ctx)
        if self._tls.context is ctx:
            self._tls.context = None

    @api("acl.rt.set_context")
    def set_context(self, handle: int) -> None:
        with self.lock:
            self._tls.context = self._context(handle, "acl.rt.set_context")

    @api("acl.rt.get_context")
    def get_context(self) -> Context:
        return self.current_context("acl.rt.get_context")

    # ------------------------------------------------------------------ device memory (§4.1, §4.2)
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
                    self.bus.emit("bad_free", addr, api_name, reason, user_site())
                raise AclError(Code.ERROR_RT_PARAM_INVALID, f"{api_name}: {reason}")
            self.devices[a.device].heap.release(a)
            if self.bus.observers:
                self.bus.emit("free", a, user_site())

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

    # ------------------------------------------------------------------ host memory (§4.3)
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
                reason = self._bad_free_reason(addr, self.host.find(addr), device_api=False)
                if self.bus.observers:
                    self.bus.emit("bad_free", addr, "acl.rt.free_host", reason, user_site())
                raise AclError(Code.ERROR_RT_PARAM_INVALID, f"acl.rt.free_host: {reason}")
            # Queued tasks that use it hold their own reference to h.buffer: no corruption (§5.4).
            self.host.release(h)
            if self.bus.observers:
                self.bus.emit("free_host", h, user_site())

    # ------------------------------------------------------------------ memset / memcpy (§4.4-4.6)
    def _check_counts(self, fn: str, count: int, dest_max: int) -> None:
        if dest_max == 0 or count > dest_max:
            raise AclError(
                Code.ERROR_RT_PARAM_INVALID,
                f"{fn}: count {count} is larger than the destination's max size {dest_max}; "
                "pass the destination buffer's size as dest_max and copy at most that many bytes",
            )

    @staticmethod
    def _check_kind(fn: str, kind: int) -> None:
        if not 0 <= kind <= 5:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: kind {kind} is not a valid copy kind here; use ACL_MEMCPY_HOST_TO_DEVICE (1), "
                "DEVICE_TO_HOST (2), DEVICE_TO_DEVICE (3), HOST_TO_HOST (0) or DEFAULT (4)",
            )

    def _direction(self, fn: str, kind: int, dst: Region, src: Region) -> int:
        self._check_kind(fn, kind)
        actual = _actual_direction(dst, src)
        given = _H2D if kind == C.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE else kind
        if given not in (C.ACL_MEMCPY_DEFAULT, actual) and self.bus.observers:
            # The current runtime corrects the kind from the pointers (MemcpyKindAutoCorrect).
            self.bus.emit("kind_mismatch", fn, kind, actual, user_site())
        if actual == _D2D and dst.alloc.device != src.alloc.device:
            a, b = src.alloc.device, dst.alloc.device
            if b not in self.devices[a].peers and a not in self.devices[b].peers:
                raise AclError(
                    Code.ERROR_RT_PARAM_INVALID,
                    f"{fn}: copy between device {a} and device {b} needs peer access; call "
                    f"acl.rt.device_enable_peer_access({b}, 0) with device {a} current first",
                )
        return actual

    @api("acl.rt.memcpy")
    def memcpy(self, dst: int, dest_max: int, src: int, count: int, kind: int) -> None:
        fn = "acl.rt.memcpy"
        if count == 0:
            return
        self._null_check(fn, dst=dst, src=src)
        self._check_kind(fn, kind)
        self._check_counts(fn, count, dest_max)
        if dst == src:
            return
        with self.lock:
            self.current_context(fn)
            d = self.region(dst, count, True, fn, "dst")
            s = self.region(src, count, False, fn, "src")
            self._direction(fn, kind, d, s)
            if self.bus.observers:
                site = user_site()
                self._emit_access(s, False, None, fn, site)
                self._emit_access(d, True, None, fn, site)
            np.copyto(d.view(), s.view())

    @api("acl.rt.memset")
    def memset(self, addr: int, max_count: int, value: int, count: int) -> None:
        fn = "acl.rt.memset"
        if count == 0:
            return
        self._null_check(fn, dev_ptr=addr)
        self._check_counts(fn, count, max_count)
        with self.lock:
            self.current_context(fn)
            r = self.region(addr, count, True, fn, "dev_ptr")
            if self.bus.observers:
                self._emit_access(r, True, None, fn, user_site())
            r.view().fill(value & 0xFF)

    def _null_check(self, fn: str, **ptrs: int) -> None:
        for name, p in ptrs.items():
            if p == 0:
                raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: {name} is 0 (NULL)")

    def _submit_copy(
        self, stream: Stream, name: str, d: Region, s: Region | None, run: Callable[[Task], None], nbytes: int, fn: str
    ) -> Task:
        """Queue device work `run` that writes `d` (reading `s` when it is a copy) on `stream`."""
        site = user_site() if self.bus.observers else None
        task = Task(
            "memset" if s is None else "memcpy", name, run, bytes=nbytes,
            direction=None if s is None else _DIR_NAMES[_actual_direction(d, s)], site=site,
        )
        self.scheduler.submit(stream, task)
        if self.bus.observers:
            for r, w in ((s, False), (d, True)):
                if r is not None:
                    self._emit_access(r, w, task, fn, site)
        return task

    def _queue_copy(self, st: Stream, pageable: bool, submit: Callable[[], Task]) -> Task:
        """Queue a copy with `submit()`. With pageable (unregistered) host memory the call returns only after
        the copy ran (CANN 8.5 docs), an implicit stream synchronize: the stream's earlier work runs before
        the copy is queued, so a wait that fails (a stuck callback) leaves no copy behind to write into host
        memory the caller may free."""
        if not pageable:
            return submit()
        t0 = now()
        self.scheduler.drive(st)
        task = submit()
        self.scheduler.drive(st, until=task)
        if self.bus.observers:
            self.bus.emit("sync", "stream", st, user_site(), t0, now())
        return task

    @api("acl.rt.memcpy_async")
    def memcpy_async(self, dst: int, dest_max: int, src: int, count: int, kind: int, stream: int) -> Task | None:
        fn = "acl.rt.memcpy_async"
        if count == 0:
            return None
        self._null_check(fn, dst=dst, src=src)
        self._check_kind(fn, kind)
        self._check_counts(fn, count, dest_max)
        with self.lock:
            st = self.stream(stream, fn)
            d = self.region(dst, count, True, fn, "dst")
            s = self.region(src, count, False, fn, "src")
            direction = self._direction(fn, kind, d, s)
            _check_async_kind(fn, kind, d, s)
            if direction == _H2H:
                raise AclError(
                    Code.ERROR_RT_FEATURE_NOT_SUPPORT,
                    f"{fn}: an asynchronous host-to-host copy is not supported; use acl.rt.memcpy",
                )
            dv, sv = d.view(), s.view()
            return self._queue_copy(
                st, "unregistered" in (d.where, s.where),
                lambda: self._submit_copy(st, f"memcpy_async {_DIR_NAMES[direction]}", d, s,
                                          lambda t: np.copyto(dv, sv), count, fn),
            )

    @api("acl.rt.memset_async")
    def memset_async(self, addr: int, max_count: int, value: int, count: int, stream: int) -> Task | None:
        fn = "acl.rt.memset_async"
        if count == 0:
            return None
        self._null_check(fn, dev_ptr=addr)
        self._check_counts(fn, count, max_count)
        with self.lock:
            st = self.stream(stream, fn)
            r = self.region(addr, count, True, fn, "dev_ptr")
            view, byte = r.view(), value & 0xFF
            return self._queue_copy(
                st, r.where == "unregistered",
                lambda: self._submit_copy(st, "memset_async", r, None, lambda t: view.fill(byte), count, fn),
            )

    def _check_2d(
        self, fn: str, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int
    ) -> None:
        """CheckMemcpy2dParam (hicann/runtime src/acl/aclrt_impl/memory.cpp): NULL pointers, a zero width or
        height, width > a pitch, and any kind but H2D, D2H, D2D or DEFAULT are 100000."""
        self._null_check(fn, dst=dst, src=src)
        if width == 0 or height == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: width and height must be > 0 (got {width} x {height})")
        if width > dpitch or width > spitch:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: width {width} must not exceed dpitch {dpitch} or spitch {spitch}",
            )
        if kind not in (_H2D, _D2H, _D2D, C.ACL_MEMCPY_DEFAULT):
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: kind {kind} is not valid for a 2-D copy; use ACL_MEMCPY_HOST_TO_DEVICE (1), "
                "DEVICE_TO_HOST (2), DEVICE_TO_DEVICE (3) or DEFAULT (4)",
            )

    def _regions_2d(
        self, fn: str, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int
    ) -> tuple[Region, Region]:
        d = self.region(dst, dpitch * (height - 1) + width, True, fn, "dst")
        s = self.region(src, spitch * (height - 1) + width, False, fn, "src")
        return d, s

    @api("acl.rt.memcpy2d")
    def memcpy2d(self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int) -> None:
        fn = "acl.rt.memcpy2d"
        self._check_2d(fn, dst, dpitch, src, spitch, width, height, kind)
        with self.lock:
            self.current_context(fn)
            d, s = self._regions_2d(fn, dst, dpitch, src, spitch, width, height)
            self._direction(fn, kind, d, s)
            if self.bus.observers:
                site = user_site()
                self._emit_access(s, False, None, fn, site)
                self._emit_access(d, True, None, fn, site)
            _copy_2d(d.view(), dpitch, s.view(), spitch, width, height)

    @api("acl.rt.memcpy2d_async")
    def memcpy2d_async(
        self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, stream: int
    ) -> Task:
        fn = "acl.rt.memcpy2d_async"
        self._check_2d(fn, dst, dpitch, src, spitch, width, height, kind)
        with self.lock:
            st = self.stream(stream, fn)
            d, s = self._regions_2d(fn, dst, dpitch, src, spitch, width, height)
            direction = self._direction(fn, kind, d, s)
            if direction == _H2H:
                raise AclError(Code.ERROR_RT_FEATURE_NOT_SUPPORT, f"{fn}: asynchronous host-to-host copy is not supported")
            dv, sv = d.view(), s.view()

            def submit() -> Task:
                return self._submit_copy(st, f"memcpy2d_async {_DIR_NAMES[direction]}", d, s,
                                         lambda t: _copy_2d(dv, dpitch, sv, spitch, width, height), width * height, fn)

            return self._queue_copy(st, "unregistered" in (d.where, s.where), submit)

    # ------------------------------------------------------------------ memory info (§4.7)
    @api("acl.rt.get_mem_info")
    def get_mem_info(self, attr: int) -> tuple[int, int]:
        ctx = self.current_context("acl.rt.get_mem_info")
        if not 0 <= attr <= C.ACL_MEM_P2P_HUGE1G:
            raise AclError(Code.ERROR_INVALID_PARAM, f"acl.rt.get_mem_info: attr {attr} is not an aclrtMemAttr (0..17)")
        with self.lock:
            return self._heap(self.devices[ctx.device_id]).mem_info(attr)

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

    # ------------------------------------------------------------------ streams (§4.9)
    @api("acl.rt.create_stream")
    def create_stream(self, priority: int = 0, flags: int = 0) -> Stream:
        with self.lock:
            ctx = self.current_context("acl.rt.create_stream")
            if len(ctx.streams) + 1 >= self.chip.max_streams:
                raise AclError(
                    Code.ERROR_RT_NO_STREAM_RESOURCE,
                    f"acl.rt.create_stream: {self.chip.name} allows {self.chip.max_streams} streams; destroy some",
                )
            s = Stream(0, ctx, priority=priority, flags=flags)
            s.handle = self._new_handle(s)
            ctx.streams[s.handle] = s
            return s

    @api("acl.rt.destroy_stream")
    def destroy_stream(self, handle: int, force: bool = False) -> None:
        """aclrtDestroyStream waits for the stream's unfinished tasks; aclrtDestroyStreamForce discards them
        ("forcibly destroy Stream, discarding all tasks": the runtime samples' description of the API)."""
        fn = "acl.rt.destroy_stream_force" if force else "acl.rt.destroy_stream"
        with self.lock:
            if handle == 0:
                raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: the default stream (0) cannot be destroyed")
            s = self.stream(handle, fn)
            if force:
                self.scheduler.discard(s)
                for q in self._reports.values():  # and the callbacks it posted that no thread has run yet
                    for t in [t for t in q if t.stream is s]:
                        q.remove(t)
            else:
                self.scheduler.drive(s)
            s.destroyed = True
            s.context.streams.pop(s.handle, None)
            self._objects.pop(s.handle, None)

    def _take_stream_error(self, s: Stream) -> None:
        if s.error is not None:
            code, msg = s.error
            s.error = None
            raise AclError(code, msg)

    @api("acl.rt.synchronize_stream")
    def synchronize_stream(self, handle: int) -> None:
        s = self.stream(handle, "acl.rt.synchronize_stream")
        t0 = now()
        self.scheduler.drive(s)
        if self.bus.observers:
            self.bus.emit("sync", "stream", s, user_site(), t0, now())
        with self.lock:
            self._take_stream_error(s)

    @api("acl.rt.stream_query")
    def stream_query(self, handle: int) -> int:
        s = self.stream(handle, "acl.rt.stream_query")
        self.scheduler.drive(s, steps=1, wait_callbacks=False)  # polling makes progress
        with self.lock:
            return C.ACL_STREAM_STATUS_NOT_READY if s.queue else C.ACL_STREAM_STATUS_COMPLETE

    @api("acl.rt.stream_wait_event")
    def stream_wait_event(self, stream: int, event: int) -> Task:
        fn = "acl.rt.stream_wait_event"
        with self.lock:
            s = self.stream(stream, fn)
            e = self._event(event, fn)
            dep = e.record
            task = Task("wait", f"wait event {event:#x}", None, dep=dep, event=e.handle)
            if self.bus.observers:
                task.site = user_site()
            return self.scheduler.submit(s, task)

    def launch(self, stream: int | Stream, task: Task, fn: str = "kernel launch") -> Task:
        """Queue device work (a kernel) on a stream; the kernel faces call this."""
        with self.lock:
            s = stream if isinstance(stream, Stream) else self.stream(stream, fn)
            if s.destroyed:
                raise AclError(Code.ERROR_RT_INVALID_HANDLE, f"{fn}: the stream was destroyed")
            if self.bus.observers and task.site is None:
                task.site = user_site()
            return self.scheduler.submit(s, task)

    # ------------------------------------------------------------------ callbacks
    @api("acl.rt.subscribe_report")
    def subscribe_report(self, thread_id: int, stream: int) -> None:
        fn = "acl.rt.subscribe_report"
        with self.lock:
            s = self.stream(stream, fn)
            if s.subscriber is not None:
                raise AclError(Code.ERROR_REPEAT_SUBSCRIBE, f"{fn}: the stream is already subscribed by thread {s.subscriber}")
            s.subscriber = thread_id

    @api("acl.rt.unsubscribe_report")
    def unsubscribe_report(self, thread_id: int, stream: int) -> None:
        fn = "acl.rt.unsubscribe_report"
        with self.lock:
            s = self.stream(stream, fn)
            if s.subscriber != thread_id:
                # pyACL's code table retires ACL_ERROR_STREAM_NOT_SUBSCRIBE (100034) for
                # ACL_ERROR_RT_STREAM_NO_CB_REG (107015), which the runtime returns now.
                raise AclError(
                    Code.ERROR_RT_STREAM_NO_CB_REG,
                    f"{fn}: thread {thread_id} is not subscribed to this stream"
                    + (f" (thread {s.subscriber} is)" if s.subscriber is not None else ""),
                )
            self.scheduler.drive(s)
            s.subscriber = None

    @api("acl.rt.launch_callback")
    def launch_callback(self, fn_: Callable, args: Any, block_type: int, stream: int) -> Task:
        fn = "acl.rt.launch_callback"
        if block_type not in (C.ACL_CALLBACK_NO_BLOCK, C.ACL_CALLBACK_BLOCK):  # checked first (aclrtLaunchCallbackImpl)
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: block_type must be 0 or 1, got {block_type}")
        with self.lock:
            s = self.stream(stream, fn)
            if s.subscriber is None:
                raise AclError(
                    Code.ERROR_RT_STREAM_NO_CB_REG,
                    f"{fn}: no thread is subscribed to this stream; call acl.rt.subscribe_report(thread_id, stream) first",
                )
            task = Task("callback", getattr(fn_, "__name__", "callback"), None, callback=fn_, args=args,
                        block=block_type == C.ACL_CALLBACK_BLOCK, subscriber=s.subscriber)
            return self.scheduler.submit(s, task)

    def _post_callback(self, task: Task) -> None:
        with self.lock:
            self._reports.setdefault(task.info["subscriber"], deque()).append(task)
            self.lock.notify_all()

    def _run_inline(self, task: Task) -> None:
        """The waiting thread is the callback's report thread: run it here rather than deadlock."""
        with self.lock:
            q = self._reports.get(task.info["subscriber"])
            if q is None or task not in q:
                return
            q.remove(task)
        self._run_callback(task)

    def _run_callback(self, task: Task) -> None:
        task.info["runner"] = threading.get_ident()  # lets a wait from inside the callback be refused
        try:
            task.info["callback"](task.info["args"])
        finally:
            self.scheduler.complete_callback(task)

    def _take_report(self, me: int) -> Task | None:
        q = self._reports.get(me)
        return q.popleft() if q else None

    @api("acl.rt.process_report")
    def process_report(self, timeout_ms: int) -> None:
        """Run one callback posted to this thread, waiting up to `timeout_ms` (-1: forever).

        Codes as aclrtProcessReportImpl (hicann/runtime src/acl/aclrt_impl) and rtProcessReport:
        timeout 0 or < -1 -> 100000; a thread subscribed to nothing -> ACL_ERROR_RT_THREAD_SUBSCRIBE (107012);
        no callback in time -> ACL_ERROR_RT_REPORT_TIMEOUT (507012). pyACL's code table retires the older
        100035/100036 for these two.
        """
        fn = "acl.rt.process_report"
        if timeout_ms == 0 or timeout_ms < -1:
            raise AclError(
                Code.ERROR_INVALID_PARAM,
                f"{fn}: timeout {timeout_ms} is invalid; pass -1 to wait forever or a number of ms > 0",
            )
        me = threading.current_thread().ident  # (registers foreign threads, so their liveness is known)
        with self.lock:
            mine = [s for d in self.devices for c in d.contexts for s in [c.default_stream, *c.streams.values()]
                    if s.subscriber == me]
            if not mine:
                raise AclError(
                    Code.ERROR_RT_THREAD_SUBSCRIBE,
                    f"{fn}: this thread ({me}) is not subscribed to any stream; call "
                    "acl.rt.subscribe_report(thread_id, stream) with this thread's id first",
                )
        deadline = None if timeout_ms < 0 else now() + timeout_ms / 1000
        while True:
            with self.lock:
                task = self._take_report(me)
            if task is None:
                for s in mine:  # polling makes progress: let the device reach the next callback
                    self.scheduler.drive(s, steps=1, wait_callbacks=False)
                with self.lock:
                    task = self._take_report(me)
                    if task is None:
                        remaining = None if deadline is None else deadline - now()
                        if remaining is not None and remaining <= 0:
                            raise AclError(Code.ERROR_RT_REPORT_TIMEOUT, f"{fn}: no callback within {timeout_ms} ms")
                        self.lock.wait(0.01 if remaining is None else min(0.01, remaining))
                        continue
            self._run_callback(task)
            return

    # ------------------------------------------------------------------ events (§4.9)
    @api("acl.rt.create_event")
    def create_event(self, flags: int = 0, new_mode: bool = False) -> Event:
        """A new event; `new_mode` for create_event_ex_with_flag (ApiImpl::EventCreateEx)."""
        with self.lock:
            ctx = self.current_context("acl.rt.create_event")
            e = Event(0, ctx, flags, new_mode)
            e.handle = self._new_handle(e)
            ctx.events[e.handle] = e
            return e

    @api("acl.rt.destroy_event")
    def destroy_event(self, handle: int) -> None:
        with self.lock:
            e = self._event(handle, "acl.rt.destroy_event")
            e.destroyed = True
            e.context.events.pop(handle, None)
            self._objects.pop(handle, None)

    @api("acl.rt.record_event")
    def record_event(self, event: int, stream: int) -> Task:
        fn = "acl.rt.record_event"
        with self.lock:
            e = self._event(event, fn)
            s = self.stream(stream, fn)
            task = Task("record", f"record event {event:#x}", None, event=e.handle)
            if self.bus.observers:
                task.site = user_site()
            e.record = task
            return self.scheduler.submit(s, task)

    @api("acl.rt.reset_event")
    def reset_event(self, event: int, stream: int) -> None:
        fn = "acl.rt.reset_event"
        with self.lock:
            e = self._event(event, fn)
            self.stream(stream, fn)
            e.record = None

    @api("acl.rt.query_event_status")
    def query_event_status(self, event: int) -> int:
        with self.lock:
            e = self._event(event, "acl.rt.query_event_status")
            r = e.record
        if r is None:
            # Event::QueryEventStatus (hicann/runtime src/runtime/core/src/event/event.cc): with no record,
            # "newMode return RT_EVENT_RECORDED oldMode return RT_EVENT_INIT"; aclrtQueryEventStatus maps
            # INIT to NOT_READY. Only create_event_ex_with_flag makes new-mode events (ApiImpl::EventCreateEx).
            return C.ACL_EVENT_RECORDED_STATUS_COMPLETE if e.new_mode else C.ACL_EVENT_RECORDED_STATUS_NOT_READY
        self.scheduler.drive(r.stream, until=r, steps=1, wait_callbacks=False)
        return C.ACL_EVENT_RECORDED_STATUS_COMPLETE if r.done else C.ACL_EVENT_RECORDED_STATUS_NOT_READY

    @api("acl.rt.synchronize_event")
    def synchronize_event(self, event: int) -> None:
        with self.lock:
            e = self._event(event, "acl.rt.synchronize_event")
            r = e.record
        t0 = now()
        if r is not None:
            self.scheduler.drive(r.stream, until=r)
        if self.bus.observers:
            self.bus.emit("sync", "event", e, user_site(), t0, now())

    def event_elapsed_time(self, start: int, end: int) -> float:
        """Milliseconds between two completed records (end - start; negative if end came first).

        Codes from Event::ElapsedTime (hicann/runtime event.cc) through errcode_manage.cc: an event with no
        record -> RT_ERROR_EVENT_RECORDER_NULL -> ACL_ERROR_RT_INTERNAL_ERROR (507000); a record the device
        has not reached has no timestamp -> RT_ERROR_EVENT_TIMESTAMP_INVALID (107006).
        """
        fn = "acl.rt.event_elapsed_time"
        with self.lock:
            a, b = self._event(start, fn), self._event(end, fn)
            for name, e in (("start", a), ("end", b)):
                if e.record is None:
                    raise AclError(
                        Code.ERROR_RT_INTERNAL_ERROR,
                        f"{fn}: the {name} event was never recorded (or was reset); call "
                        "acl.rt.record_event on it first",
                    )
            for name, e in (("start", a), ("end", b)):
                if not e.record.done:
                    raise AclError(
                        Code.ERROR_RT_EVENT_TIMESTAMP_INVALID,
                        f"{fn}: the {name} event's record has not run yet, so it has no timestamp; "
                        "call acl.rt.synchronize_event on it first",
                    )
            return (b.record.end - a.record.end) * 1000.0

    # ------------------------------------------------------------------ teardown
    def shutdown(self) -> None:
        """Release every device (used between tests and at interpreter exit)."""
        with self.lock:
            for dev in self.devices:
                if dev.contexts or dev.refcount:
                    try:
                        self._drain(dev.contexts)
                    except Exception:  # a callback that can never run, or one that raised: teardown goes on
                        for ctx in dev.contexts:
                            for st in [*ctx.streams.values(), ctx.default_stream]:
                                self.scheduler.discard(st)
                    dev.refcount = 0
                    self._release_device(dev)
            for dev in self.devices:
                if dev.heap is not None:
                    dev.heap.close()
                    dev.heap = None


_DIR_NAMES = {_H2H: "H2H", _H2D: "H2D", _D2H: "D2H", _D2D: "D2D"}


def _actual_direction(dst: Region, src: Region) -> int:
    """The copy kind the pointers really call for."""
    return (_D2D if src.is_device else _H2D) if dst.is_device else (_D2H if src.is_device else _H2H)

# MemcpyKindReviseMap of ApiErrorDecorator::MemcpyKindAutoCorrect (hicann/runtime api_error.cc), used by
# aclrtMemcpyAsync: when one side is host memory acl did not allocate ("unregistered"), the kind passed must
# be one of these, else RT_ERROR_INVALID_VALUE (107000). Keys: (src, dst) locations. When both sides are acl
# memory the runtime forces the kind from the pointers instead, and DEFAULT (4) is always resolved.
_ASYNC_KINDS = {
    ("unregistered", "device"): (_H2D, _D2D),
    ("device", "unregistered"): (_D2H, _D2D),
    ("host", "unregistered"): (_H2H, _H2D),
    ("unregistered", "host"): (_H2H, _D2H),
    ("unregistered", "unregistered"): (_H2H, _H2D, _D2H, _D2D),
}


def _check_async_kind(fn: str, kind: int, dst: Region, src: Region) -> None:
    allowed = _ASYNC_KINDS.get((src.where, dst.where))
    if allowed is None or kind not in (_H2H, _H2D, _D2H, _D2D) or kind in allowed:
        return
    names = ", ".join(f"{_DIR_NAMES[k]} ({k})" for k in allowed)
    raise AclError(
        Code.ERROR_RT_PARAM_INVALID,
        f"{fn}: kind {_DIR_NAMES[kind]} ({kind}) cannot copy {src.where} memory to {dst.where} memory; "
        f"pass one of {names} or ACL_MEMCPY_DEFAULT (4)",
    )


def _copy_2d(dst: np.ndarray, dpitch: int, src: np.ndarray, spitch: int, width: int, height: int) -> None:
    dv = np.lib.stride_tricks.as_strided(dst, shape=(height, width), strides=(dpitch, 1))
    sv = np.lib.stride_tricks.as_strided(src, shape=(height, width), strides=(spitch, 1))
    np.copyto(dv, sv)


_RUNTIME: Runtime | None = None
_RUNTIME_LOCK = threading.Lock()


def get_runtime() -> Runtime:
    """The process-wide runtime, created on first use from the environment."""
    global _RUNTIME
    if _RUNTIME is None:
        with _RUNTIME_LOCK:
            if _RUNTIME is None:
                _RUNTIME = Runtime()
    return _RUNTIME


def reset_runtime(soc: str | None = None, devices: int | None = None) -> Runtime:
    """Tear the runtime down and start a fresh one (tests, `aclsim.configure`)."""
    global _RUNTIME
    with _RUNTIME_LOCK:
        old = _RUNTIME
        if old is not None:
            old.shutdown()
        _RUNTIME = Runtime(soc, devices)
        if old is not None:
            for o in old.bus.observers:
                _RUNTIME.bus.subscribe(o)
        return _RUNTIME


def process_is_exiting() -> None:
    """atexit hook: tell observers (leak check) the process ends."""
    if _RUNTIME is not None and _RUNTIME.bus.observers:
        _RUNTIME.bus.emit("exit")


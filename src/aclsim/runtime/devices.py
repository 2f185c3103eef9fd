"""Devices and contexts (hicann/runtime docs/zh/api_ref/02_initialization_and_deinitialization.md,
04_device_management.md, 05_context_management.md): acl.init/finalize, set/reset_device, contexts, peers.

Each device has one lazily created heap, a reference-counted default context and the contexts
made with create_context; each host thread has a current context (handles.ThreadState).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..chips import ChipProfile
from ..errors import AclError, Code
from .handles import Handles, ThreadState
from .memory import DeviceHeap
from .observe import Bus, DeviceReset, HostWait, api, now, user_site
from .scheduler import Scheduler
from .streams import Event, Stream

# Called with exiting=False before a device is reset and True before the process ends: faces that own
# memory by garbage collection (api.DeviceArray) give it back first, so it is never judged a leak.
TEARDOWN_HOOKS: list[Callable[[bool], None]] = []


@dataclass(eq=False)
class Context:
    handle: int
    device_id: int
    is_default: bool
    default_stream: Stream = field(init=False, repr=False)
    streams: dict[int, Stream] = field(default_factory=dict, repr=False)
    events: dict[int, Event] = field(default_factory=dict, repr=False)
    destroyed: bool = False

    def all_streams(self) -> list[Stream]:
        return [self.default_stream, *self.streams.values()]


@dataclass(eq=False)
class DeviceState:
    id: int
    chip: ChipProfile
    heap: DeviceHeap | None = None
    refcount: int = 0
    default_context: Context | None = None
    contexts: list[Context] = field(default_factory=list)
    peers: set[int] = field(default_factory=set)


class DevicesRoom:
    """Runtime methods for the process, devices and contexts."""

    chip: ChipProfile
    devices: list[DeviceState]
    bus: Bus
    scheduler: Scheduler
    lock: Any
    handles: Handles
    _tls: ThreadState
    init_count: int
    finalized: bool

    # ------------------------------------------------------------------ lookups
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

    def has_context(self) -> bool:
        """True when this thread has a live current context (a probe: records no error message)."""
        ctx = self._tls.context
        return ctx is not None and not ctx.destroyed

    def _context(self, handle: int, fn: str) -> Context:
        """A live context handle. NULL -> 100000 (ACL_REQUIRES_NOT_NULL in aclrtDestroyContextImpl and
        aclrtSetCurrentContextImpl); a handle that is no live context -> 107002, as ApiImpl::ContextDestroy's
        CHECK_CONTEXT_VALID_WITH_RETURN(ctx, RT_ERROR_CONTEXT_NULL) returns (hicann/runtime api_impl.cc). For
        set_context we assume the same check (inference: ApiImpl::ContextSetCurrent itself does not validate)."""
        if handle == 0:
            raise AclError(Code.ERROR_INVALID_PARAM, f"{fn}: context is 0 (NULL)")
        ctx = self.handles.get(handle)
        if not isinstance(ctx, Context) or ctx.destroyed:
            raise AclError(
                Code.ERROR_RT_CONTEXT_NULL,
                f"{fn}: {handle:#x} is not a live context (destroyed, released by reset_device, or never "
                "created); pass a handle from acl.rt.create_context or acl.rt.get_context",
            )
        return ctx

    # ------------------------------------------------------------------ lifecycle (aclInit/aclFinalize)
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

    # ------------------------------------------------------------------ devices (api_ref 04)
    @property
    def device_count(self) -> int:
        return len(self.devices)

    def _new_context(self, dev: DeviceState, is_default: bool) -> Context:
        self._heap(dev)
        ctx = Context(0, dev.id, is_default)
        ctx.handle = self.handles.new(ctx)
        ctx.default_stream = Stream(0, ctx, is_default=True)
        dev.contexts.append(ctx)
        return ctx

    @api("acl.rt.set_device")
    def set_device(self, device_id: int) -> None:
        with self.lock:
            dev = self._device(device_id)
            if dev.default_context is None:
                self._heap(dev)  # may fail (207001): then nothing changed
                dev.default_context = self._new_context(dev, True)
            dev.refcount += 1
            self._tls.context = dev.default_context

    @api("acl.rt.reset_device")
    def reset_device(self, device_id: int, force: bool = False) -> None:
        for hook in TEARDOWN_HOOKS:
            hook(False)
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
                t0 = now()
                self._drain(dev.contexts)  # may fail (a callback that cannot finish): then nothing changed
                if self.bus.observers:
                    self.bus.emit("host_wait", HostWait("release", user_site(), t0, now(), device=dev.id))
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
                self.bus.emit("device_reset", DeviceReset(dev.id, leaked))
            dev.heap.release_all()

    @api("acl.rt.get_device")
    def get_device(self) -> int:
        return self.current_context("acl.rt.get_device").device_id

    @api("acl.rt.synchronize_device")
    def synchronize_device(self) -> None:
        self._synchronize_device(-1, "acl.rt.synchronize_device")

    @api("acl.rt.synchronize_device_with_timeout")
    def synchronize_device_with_timeout(self, timeout_ms: int) -> None:
        """aclrtSynchronizeDeviceWithTimeout: -1 waits forever, >= 0 gives up after that many ms with
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046); < -1 is 107000 (aclrtSynchronizeDeviceWithTimeoutImpl)."""
        fn = "acl.rt.synchronize_device_with_timeout"
        if timeout_ms < -1:
            raise AclError(Code.ERROR_RT_PARAM_INVALID, f"{fn}: timeout {timeout_ms} is invalid; pass -1 (wait "
                           "forever) or a number of ms >= 0")
        self._synchronize_device(timeout_ms, fn)

    def _synchronize_device(self, timeout_ms: int, fn: str) -> None:
        ctx = self.current_context(fn)
        t0 = now()
        dev = self.devices[ctx.device_id]
        errors = []
        if timeout_ms >= 0:  # each stream's work runs on its driver thread; the host waits for all until then
            with self.lock:
                streams = [(s, None) for c in dev.contexts for s in c.all_streams()]
            late = self.scheduler.wait(streams, t0 + timeout_ms / 1000)
            if late is not None:
                self._timed_out(fn, timeout_ms, late, Code.ERROR_RT_STREAM_SYNC_TIMEOUT,
                                HostWait("query", user_site(), t0, now(), stream=late))
        with self.lock:
            for c in dev.contexts:
                for s in c.all_streams():
                    self.scheduler.drive(s)
                    if s.error is not None:
                        errors.append(s.error)
                        s.error = None
        if self.bus.observers:
            self.bus.emit("host_wait", HostWait("device", user_site(), t0, now(), device=dev.id))
        if errors:
            raise AclError(*errors[0])

    # Peer access follows aclrtDeviceCanAccessPeerImpl / aclrtDeviceEnablePeerAccessImpl /
    # aclrtDeviceDisablePeerAccessImpl (hicann/runtime src/acl/aclrt_impl/memory.cpp): flags != 0 ->
    # ACL_ERROR_FEATURE_UNSUPPORTED before anything else, then the current device, then device == peer -> 100000.
    @api("acl.rt.device_can_access_peer")
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

    # ------------------------------------------------------------------ contexts (api_ref 05)
    @api("acl.rt.create_context")
    def create_context(self, device_id: int) -> Context:
        with self.lock:
            ctx = self._new_context(self._device(device_id), False)
            self._tls.context = ctx
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
            t0 = now()
            self._drain([ctx])
            if self.bus.observers:
                self.bus.emit("host_wait", HostWait("release", user_site(), t0, now(), context=ctx))
            self._destroy_context(ctx)

    def _destroy_context(self, ctx: Context) -> None:
        """Drop a context whose streams the caller has drained (or discarded)."""
        for s in ctx.all_streams():
            s.destroyed = True
            self.handles.drop(s.handle)
        for e in ctx.events.values():
            e.destroyed = True
            self.handles.drop(e.handle)
        ctx.streams.clear()
        ctx.events.clear()
        ctx.destroyed = True
        self.handles.drop(ctx.handle)
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

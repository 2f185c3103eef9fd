"""The runtime: one object, assembled from its rooms. The single source of truth.

Every face (the pyACL facade `aclsim.acl`, the Pythonic API, the kernel engines) calls methods of
the process-wide `Runtime`. They raise `AclError` carrying the documented ACL code and change
nothing on failure. Where each chapter of the AscendCL runtime API lives:

  devices.py      acl.init/finalize, devices, contexts, peer access
  allocations.py  malloc/free, malloc_host/free_host, get_mem_info, pointer attributes
  copies.py       memcpy/memset (sync and async, 1-D and 2-D) and the copy-kind rules
  streams.py      streams, events, kernel launches
  callbacks.py    launch_callback, subscribe_report, process_report
  handles.py      handle tables and the per-thread current context
  memory.py       the device heap (address space, allocator, accounting, address decoding)
  host.py         pinned host memory and safe access to host addresses
  gm.py           the door kernel engines use to reach device memory
  scheduler.py    runs queued tasks in stream order; work.py: tasks and their typed descriptions
  observe.py      the event bus and the typed records observers receive

Sources for the rules: the AscendCL API reference (hicann/runtime docs/zh/api_ref/, named in each module), its
headers (include/external/acl/) and pyACL's source (python/pyACL/).
"""

from __future__ import annotations

import threading
from collections import deque

from ..chips import device_count_from_env, get_profile, profile_from_env
from .allocations import MemoryRoom
from .callbacks import CallbacksRoom
from .copies import CopiesRoom
from .devices import TEARDOWN_HOOKS, DevicesRoom, DeviceState
from .handles import Handles, ThreadState
from .host import HostRegistry
from .observe import Bus
from .scheduler import Scheduler
from .streams import StreamsRoom
from .work import Task


class Runtime(DevicesRoom, MemoryRoom, CopiesRoom, StreamsRoom, CallbacksRoom):
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
        self.handles = Handles()
        self._tls = ThreadState()
        self.init_count = 0
        self.finalized = False
        self._reports: dict[int, deque[Task]] = {}

    def settle(self) -> None:
        """Let every stream's queued work run, as the device would (callbacks nobody processes are skipped)."""
        for dev in self.devices:
            for ctx in list(dev.contexts):
                for s in ctx.all_streams():
                    self.scheduler.drive(s, wait_callbacks=False)

    def idle(self) -> bool:
        """True when no stream of any device has queued work left."""
        return not any(s.queue for dev in self.devices for ctx in dev.contexts for s in ctx.all_streams())

    def executing(self) -> list[Task]:
        """Tasks a stream is running right now: a lock-free snapshot for pollers (the progress line).

        Raises RuntimeError or IndexError when the host changes the structures meanwhile; try again later.
        """
        return [s.queue[0] for dev in self.devices for ctx in list(dev.contexts) for s in ctx.all_streams()
                if s.busy_thread is not None and s.queue and not s.queue[0].done]

    def shutdown(self) -> None:
        """Release every device (used between tests and at interpreter exit)."""
        self.scheduler.closing = True  # work a timed-out wait left running on a driver thread is not waited for
        with self.lock:
            for dev in self.devices:
                if dev.contexts or dev.refcount:
                    try:
                        self._drain(dev.contexts)
                    except Exception:  # a callback that can never run, or one that raised: teardown goes on
                        for ctx in dev.contexts:
                            for st in ctx.all_streams():
                                self.scheduler.discard(st)
                    dev.refcount = 0
                    self._release_device(dev)
            for dev in self.devices:
                if dev.heap is not None:
                    dev.heap.close()
                    dev.heap = None


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


def current_runtime() -> Runtime | None:
    """The process-wide runtime if the program has made one (never creates it)."""
    return _RUNTIME


def process_is_exiting() -> None:
    """atexit hook: let faces give back what they own, then tell observers (leak check) the process ends."""
    if _RUNTIME is not None:
        for hook in TEARDOWN_HOOKS:
            hook(True)
        if _RUNTIME.bus.observers:
            _RUNTIME.bus.emit("exit")

"""A stand-in for `torch_npu` under `aclsim run`: torch's "npu" device is host memory.

On an Ascend machine `torch_npu` (loaded by torch's device-backend autoload) adds the "npu"
device, and pyasc programs create their tensors with `device="npu"`. Here the NPU is emulated in
host memory, so an "npu" tensor is a CPU tensor: a torch function mode rewrites `device="npu"` /
`"npu:N"` arguments and `.to("npu")` to "cpu", and `Tensor.npu()` returns the tensor. Kernel
launches then copy such tensors like any host tensor; in the hardware out-of-bounds mode the memory
the caching allocator maps behind an "npu" tensor is modelled too (`stage`). `torch.npu` (also
`torch_npu.npu`) is the device module over aclsim's runtime: devices, synchronize, streams, events
and memory statistics (`NPU_NAMES`). Only active when `aclsim run` finds torch installed and the
real torch_npu absent; nothing here runs otherwise (torch is not imported).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from ..errors import AclError
from ..runtime import get_runtime
from ..runtime import oob as _oob

_ACTIVE: list[Any] = []  # the installed mode, once


def _is_npu(device: Any) -> bool:
    text = device if isinstance(device, str) else None
    if text is None and type(device).__name__ == "device":  # torch.device("npu:1") (the renamed privateuse1)
        text = str(device)
    return text is not None and (text == "npu" or text.startswith("npu:"))


# ------------------------------------------------------------------------------------------- torch.npu
_tls = threading.local()  # this thread's current torch.npu stream (None: the device's default stream)


def _index(device: Any, fn: str) -> int | None:
    """The device index of a torch.npu `device` argument: None, an int, "npu", "npu:N" or a torch.device."""
    if device is None:
        return None
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    text = str(device)
    if text == "npu":
        return None
    if text.startswith("npu:") and text[4:].isdigit():
        return int(text[4:])
    raise ValueError(f"torch.npu.{fn}: {device!r} is not an NPU device; pass an index, 'npu' or 'npu:N'")


def _call(fn: str, action: Any) -> Any:
    """Run a runtime call; an ACL error is a RuntimeError, as torch_npu raises them."""
    try:
        return action()
    except AclError as e:
        raise RuntimeError(f"torch.npu.{fn}: {e}") from None


def _context() -> Any:
    """This thread's runtime context; device 0 is opened when the program chose none (torch_npu's lazy init)."""
    rt = get_runtime()
    try:
        return rt.current_context("torch.npu")
    except AclError:  # only a probe (an AclError made records no message)
        rt.set_device(0)
        return rt.current_context("torch.npu")


def _on(device: Any, fn: str) -> int:
    """The device a call with a `device` argument is about (the current one for None), checked."""
    d = _index(device, fn)
    n = get_runtime().device_count
    d = _context().device_id if d is None else d
    if not 0 <= d < n:
        raise RuntimeError(f"torch.npu.{fn}: invalid device {d}: {n} device(s) are emulated (ACLSIM_DEVICES)")
    return d


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def init() -> None:
    _context()


def device_count() -> int:
    return get_runtime().device_count


def set_device(device: Any) -> None:
    d = _index(device, "set_device")
    _call("set_device", lambda: get_runtime().set_device(0 if d is None else d))
    _tls.stream = None


def current_device() -> int:
    return _context().device_id


def synchronize(device: Any = None) -> None:
    """Wait for everything queued on the device (kernel launches, copies), as aclrtSynchronizeDevice."""
    _on(device, "synchronize")
    _call("synchronize", get_runtime().synchronize_device)


def get_device_name(device: Any = None) -> str:
    _on(device, "get_device_name")
    return get_runtime().chip.name


class _Properties:
    def __init__(self, d: int) -> None:
        rt = get_runtime()
        self.name = rt.chip.name
        self.total_memory = rt.chip.memory_size
        self.index = d

    def __repr__(self) -> str:
        return f"_NPUDeviceProperties(name='{self.name}', total_memory={self.total_memory >> 20}MB)"


def get_device_properties(device: Any = None) -> _Properties:
    return _Properties(_on(device, "get_device_properties"))


class Stream:
    """torch.npu.Stream: a runtime stream of the current device (`npu_stream` is its handle, as pyACL's)."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        _on(device, "Stream")
        self._rt = _call("Stream", lambda: get_runtime().create_stream(int(priority)))
        self.device_index = self._rt.device_id

    @classmethod
    def _of(cls, s: Any) -> Stream:
        obj = cls.__new__(cls)
        obj._rt, obj.device_index = s, s.device_id
        return obj

    @property
    def npu_stream(self) -> int:
        return self._rt.handle

    def synchronize(self) -> None:
        _call("Stream.synchronize", lambda: get_runtime().synchronize_stream(self._rt.handle))

    def query(self) -> bool:
        return _call("Stream.query", lambda: get_runtime().stream_query(self._rt.handle)) == 0

    def wait_event(self, event: Event) -> None:
        _call("Stream.wait_event", lambda: get_runtime().stream_wait_event(self._rt.handle, event._handle()))

    def wait_stream(self, stream: Stream) -> None:
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other._rt is self._rt

    def __hash__(self) -> int:
        return hash(id(self._rt))

    def __repr__(self) -> str:
        return f"<torch.npu.Stream device=npu:{self.device_index} npu_stream={self.npu_stream:#x}>"


def current_stream(device: Any = None) -> Stream:
    """The stream torch.npu.stream(...) selected, else the device's default stream (npu_stream 0)."""
    d = _on(device, "current_stream")
    s = getattr(_tls, "stream", None)
    if s is not None and s.device_index == d:
        return s
    return default_stream(d)


def default_stream(device: Any = None) -> Stream:
    d = _on(device, "default_stream")
    ctx = _context()
    if ctx.device_id != d:
        raise RuntimeError(f"torch.npu.default_stream: device {d} is not the current device {ctx.device_id}; "
                           "call torch.npu.set_device first")
    return Stream._of(ctx.default_stream)


def set_stream(stream: Stream) -> None:
    _tls.stream = stream


@contextlib.contextmanager
def stream(s: Stream | None) -> Iterator[None]:
    """Make `s` the current stream inside the block (torch.npu.stream)."""
    old = getattr(_tls, "stream", None)
    if s is not None:
        _tls.stream = s
    try:
        yield
    finally:
        _tls.stream = old


class Event:
    """torch.npu.Event: a runtime event, created at its first record (as torch's lazily created events)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self._rt: Any = None

    def _handle(self) -> int:
        if self._rt is None:
            self._rt = _call("Event", lambda: get_runtime().create_event())
        return self._rt.handle

    def record(self, stream: Stream | None = None) -> None:
        s = current_stream() if stream is None else stream
        _call("Event.record", lambda: get_runtime().record_event(self._handle(), s.npu_stream))

    def wait(self, stream: Stream | None = None) -> None:
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        if self._rt is None:
            return True  # never recorded: complete, as torch says
        from .. import constants as C

        status = _call("Event.query", lambda: get_runtime().query_event_status(self._rt.handle))
        return status == C.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def synchronize(self) -> None:
        if self._rt is not None:
            _call("Event.synchronize", lambda: get_runtime().synchronize_event(self._rt.handle))

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds between this event and `end` on the modelled device clock."""
        if not (self.enable_timing and end.enable_timing):
            raise RuntimeError("torch.npu.Event.elapsed_time: both events need enable_timing=True")
        return _call("Event.elapsed_time", lambda: get_runtime().event_elapsed_time(self._handle(), end._handle()))


# Memory statistics: the runtime's device memory (acl.rt.malloc allocations and the copies kernel launches stage
# "npu" tensors in). The stand-in keeps "npu" tensors in host memory, so they are not counted themselves.
# "allocated" counts the bytes requested, "reserved" the whole pages the runtime holds (and the peaks).


def _heap(device: Any, fn: str) -> Any:
    return get_runtime().devices[_on(device, fn)].heap


def memory_allocated(device: Any = None) -> int:
    heap = _heap(device, "memory_allocated")
    return 0 if heap is None else sum(a.size for a in heap.live())


def memory_reserved(device: Any = None) -> int:
    heap = _heap(device, "memory_reserved")
    return 0 if heap is None else heap.used_bytes


def max_memory_reserved(device: Any = None) -> int:
    heap = _heap(device, "max_memory_reserved")
    return 0 if heap is None else heap.peak_used


max_memory_allocated = max_memory_reserved


def reset_peak_memory_stats(device: Any = None) -> None:
    heap = _heap(device, "reset_peak_memory_stats")
    if heap is not None:
        heap.peak_used = heap.used_bytes


reset_max_memory_allocated = reset_peak_memory_stats


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of the device, as acl.rt.get_mem_info(ACL_HBM_MEM)."""
    from .. import constants as C

    _on(device, "mem_get_info")
    return _call("mem_get_info", lambda: get_runtime().get_mem_info(C.ACL_HBM_MEM))


def memory_stats(device: Any = None) -> dict[str, int]:
    return {"allocated_bytes.all.current": memory_allocated(device),
            "reserved_bytes.all.current": memory_reserved(device),
            "reserved_bytes.all.peak": max_memory_reserved(device)}


def empty_cache() -> None:
    """Nothing to give back: aclsim has no caching allocator for "npu" tensors (they live in host memory)."""


def manual_seed(seed: int) -> None:
    import torch

    torch.manual_seed(seed)  # "npu" tensors are CPU tensors here: their generator is the CPU one


manual_seed_all = manual_seed


def set_compile_mode(jit_compile: bool = False) -> None:
    """torch_npu's operator compile mode: it changes how fast operators start on a real NPU, not what they
    compute, so there is nothing to emulate."""


NPU_NAMES = ("is_available", "is_initialized", "init", "device_count", "set_device", "current_device",
             "synchronize", "get_device_name", "get_device_properties", "Stream", "Event", "current_stream",
             "default_stream", "set_stream", "stream", "memory_allocated", "memory_reserved",
             "max_memory_allocated", "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
             "mem_get_info", "memory_stats", "empty_cache", "manual_seed", "manual_seed_all", "set_compile_mode")


def _npu_module() -> ModuleType:
    """`torch.npu`: the names above, and a clear AttributeError for what aclsim does not emulate."""
    mod = ModuleType("torch.npu", "torch_npu's device module, emulated by aclsim over its runtime")
    here = sys.modules[__name__]
    for name in NPU_NAMES:
        setattr(mod, name, getattr(here, name))

    def missing(name: str) -> Any:
        raise AttributeError(f"torch.npu.{name} is not emulated by aclsim's torch_npu stand-in (it has: "
                             f"{', '.join(NPU_NAMES)})")

    mod.__getattr__ = missing  # type: ignore[attr-defined]
    return mod


npu = _npu_module()


# --------------------------------------------------------------------------------- caching allocator
_MIN_BLOCK, _SMALL_SIZE, _SMALL_BUFFER = 512, 1 << 20, 2 << 20
_LARGE_BUFFER, _MIN_LARGE_ALLOC, _ROUND_LARGE = 20 << 20, 10 << 20, 2 << 20


def segment_bytes(nbytes: int) -> int:
    """The segment torch_npu's caching allocator maps for a tensor of `nbytes` (get_allocation_size in
    Ascend/pytorch torch_npu/csrc/core/npu/NPUCachingAllocator.cpp): a block of <= 1 MiB comes from a
    2 MiB segment, up to 10 MiB from a 20 MiB one, larger ones are rounded up to 2 MiB."""
    size = max(_MIN_BLOCK, -(-nbytes // _MIN_BLOCK) * _MIN_BLOCK)
    if size <= _SMALL_SIZE:
        return _SMALL_BUFFER
    if size < _MIN_LARGE_ALLOC:
        return _LARGE_BUFFER
    return -(-size // _ROUND_LARGE) * _ROUND_LARGE


def stage(arg: Any, alloc: Any) -> None:
    """A kernel launch copied the host array `arg` to device memory `alloc`. When `arg` is an "npu" tensor of
    this stand-in, the memory behind it on an NPU is the rest of its caching-allocator segment (modelled as the
    tensor being the segment's first block): the hardware out-of-bounds mode lets accesses there through."""
    torch = sys.modules.get("torch") if _ACTIVE else None
    if torch is not None and isinstance(arg, torch.Tensor):
        _oob.map_behind(alloc, segment_bytes(alloc.size))


def activate() -> None:
    """Make "npu" mean host memory in torch calls (idempotent; imports torch)."""
    if _ACTIVE:
        return
    import torch
    from torch.overrides import TorchFunctionMode

    class NpuIsHost(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            if _is_npu(kwargs.get("device")):
                kwargs = {**kwargs, "device": "cpu"}
            if args and _is_npu(args[-1]) and getattr(func, "__name__", "") == "to":
                args = (*args[:-1], "cpu")
            return func(*args, **kwargs)

    mode = NpuIsHost()
    mode.__enter__()  # stays on for the rest of the program
    _ACTIVE.append(mode)
    if not hasattr(torch.Tensor, "npu"):
        torch.Tensor.npu = lambda self, *a, **k: self  # type: ignore[attr-defined]
    with contextlib.suppress(RuntimeError):  # torch.device("npu:0") then parses (already renamed: leave it)
        torch.utils.rename_privateuse1_backend("npu")
    torch.npu = npu  # type: ignore[attr-defined]
    sys.modules["torch.npu"] = npu


class _AfterTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Runs `activate()` right after the program imports torch."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "torch" or _ACTIVE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        real = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> ModuleType | None:
                return real.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                real.exec_module(module)
                activate()

        spec.loader = Loader()
        return spec


def install() -> None:
    """Under `aclsim run`: provide `torch_npu` and activate the "npu" device when torch is imported."""
    sys.modules.setdefault("torch_npu", sys.modules[__name__])
    if "torch" in sys.modules:
        activate()
    elif not any(isinstance(f, _AfterTorch) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterTorch())

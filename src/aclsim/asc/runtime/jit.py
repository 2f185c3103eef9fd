"""`@asc.jit` kernels and their launch: `kernel[core_num](*args)` / `kernel[core_num, stream](*args)`.

As pyasc's `runtime/jit.py` + `launcher.py`: host arrays (numpy, torch CPU tensors, DLPack /
array-interface / buffer objects; `hostargs.py`) are copied to device memory before the launch,
the launch is synchronised, and every array is copied back (the call raises `AscError` if the
kernel faulted). Anything that is neither memory nor a plain value is refused at the launch. With device
arguments only (`DeviceArray`, `asc.GlobalAddress(ptr, dtype)`), the launch is queued on the stream like
any device task and the host waits with `synchronize_stream`, as after an Ascend C `<<<>>>` launch.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from aclsim import constants as C
from aclsim.errors import AclError
from aclsim.runtime import KernelWork, Stream, Task, get_runtime
from aclsim.runtime.gm import array_of, has_array_interface
from aclsim.runtime.work import pointers_in

from .. import faults, torch_npu
from ..cube.mix import mix_ratio
from ..faults import AscDataTypeError, AscError, UnsupportedDataType
from ..kernel.launch import Launch
from ..memory.gm import GlobalAddress
from ..table import PYASC_UNNAMED
from ..types.dtypes import from_numpy
from .device import current_context
from .hostargs import ACCEPTED, by_value, host_view
from .rewrite import iterate_loops

MAX_BLOCKS = 65535  # blockDim range of a kernel launch: [1, 65535] (Ascend C programming guide, "核函数")


class ConstExpr:
    """Annotation for compile-time constants (`tile_length: asc.ConstExpr[int]`); values pass through."""

    def __class_getitem__(cls, item: Any) -> type[ConstExpr]:
        return cls



class JITFunction:
    """A kernel: `kernel[core_num](*args)` launches it; called inside a kernel it is a plain helper."""

    def __init__(self, fn: Callable, **options: Any) -> None:
        self.fn = iterate_loops(fn)  # `with mm.iterate() as count:` loops, as pyasc compiles it
        self.options = options
        self.signature = inspect.signature(fn)
        functools.update_wrapper(self, fn)

    def __getitem__(self, launch_options: Any) -> Callable[..., None]:
        opts = launch_options if isinstance(launch_options, tuple) else (launch_options,)
        if not 1 <= len(opts) <= 2:
            raise TypeError(f"launch with {self.fn.__name__}[core_num] or {self.fn.__name__}[core_num, stream]")
        core_num = opts[0]
        if not isinstance(core_num, int | np.integer) or not 1 <= core_num <= MAX_BLOCKS:
            raise ValueError(f"core_num must be an integer in 1..{MAX_BLOCKS}, got {core_num!r}")
        return functools.partial(self._launch, int(core_num), opts[1] if len(opts) == 2 else None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if faults.running_or_none() is None:
            name = self.fn.__name__
            raise TypeError(f"{name} is a kernel: launch it with {name}[core_num](...) or {name}[core_num, stream](...)")
        return self.fn(*args, **kwargs)

    def _launch(self, core_num: int, stream: Any, *args: Any, **kwargs: Any) -> None:
        rt = get_runtime()
        current_context("kernel launch")  # a script that never chose a device gets device 0
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        hosts: list[tuple[np.ndarray, Any]] = []
        try:
            values = tuple(self._device_arg(name, v, hosts) for name, v in bound.arguments.items())
            launch = Launch(self.fn, core_num, values)
            launch.kernel_type = self.options.get("kernel_type")
            launch.options = self.options
            launch.mix, launch.aic_body, launch.all_aic = mix_ratio(self.fn, self.options, launch.chip)
            launch.core_num *= launch.mix  # a mix block's body runs on each of its AIVs
            # reports print the kernel's file:line
            work = KernelWork("asc", source=self.fn.__code__.co_filename, cores=launch.core_num,
                              cube_cores=launch.blocks if launch.mix > 1 or launch.aic_body else None,
                              pointers=pointers_in(values))
            task = Task("kernel", self.fn.__name__, launch.run, work=work, keep=values)
            handle = _stream_handle(stream)
            rt.launch(handle, task, fn=f"{self.fn.__name__}[{core_num}]")
            if not hosts:
                _track(task, f"{self.fn.__name__}[{core_num}]")
                return
            try:
                rt.synchronize_stream(handle if isinstance(handle, int) else handle.handle)
            except AclError as e:
                cause = launch.error.__cause__ if launch.error is not None else None
                kind = AscDataTypeError if isinstance(launch.error, UnsupportedDataType) else AscError
                raise kind(e.message) from cause
            for view, alloc in hosts:
                if view.nbytes and view.flags.writeable:  # read-only inputs are not copied back
                    out = view if view.flags.c_contiguous else np.empty(view.shape, view.dtype)
                    rt.memcpy(out.ctypes.data, out.nbytes, alloc.start, out.nbytes, C.ACL_MEMCPY_DEVICE_TO_HOST)
                    if out is not view:
                        np.copyto(view, out)
        finally:
            # last staged first: the heap reuses freed ranges last-in first-out, so the next launch's arguments
            # get the same address order (a later argument above an earlier one, as a caching allocator places
            # tensors made one after another, which is what bytes written past the last one may land behind)
            for _, alloc in reversed(hosts):
                rt.free(alloc.start)

    def _device_arg(self, name: str, v: Any, hosts: list) -> Any:
        """What the kernel receives for argument `name`: host arrays are copied to device memory."""
        if isinstance(v, GlobalAddress):
            return v
        if has_array_interface(v):
            ref = array_of(v)
            return GlobalAddress(ref.addr, _element_type(name, ref.dtype))
        plain, value = by_value(v)
        if plain and not isinstance(v, np.ndarray):
            if self.signature.parameters[name].annotation in (GlobalAddress, "asc.GlobalAddress", "GlobalAddress"):
                hint = " so the kernel knows its element type" if isinstance(v, int) else ""
                raise TypeError(f"kernel argument {name!r} is a GM address, not a {type(v).__name__}: pass "
                                f"asc.GlobalAddress(ptr, dtype), a DeviceArray or a host array (numpy, torch){hint}")
            return value
        view = host_view(name, v)
        if view is None:
            raise TypeError(f"kernel argument {name!r}: a {type(v).__module__}.{type(v).__qualname__} cannot be "
                            f"passed to a kernel; accepted: {ACCEPTED}")
        dt = _element_type(name, view.dtype)
        rt = get_runtime()
        alloc = rt.malloc(max(view.nbytes, 1), C.ACL_MEM_MALLOC_HUGE_FIRST)
        hosts.append((view, alloc))
        torch_npu.stage(v, alloc)  # an "npu" tensor: the memory its caching allocator maps behind it
        if view.nbytes:
            src = np.ascontiguousarray(view)
            rt.memcpy(alloc.start, src.nbytes, src.ctypes.data, src.nbytes, C.ACL_MEMCPY_HOST_TO_DEVICE)
        return GlobalAddress(alloc.start, dt)


class UnsupportedArgumentType(TypeError, ValueError):
    """An array argument of an element type no kernel can take. A type pyasc cannot name either (bool) fails with
    the message pyasc's compiler gives at the launch (a ValueError, hicann/pyasc `language/core/dtype.py`)."""


def _element_type(name: str, dtype: np.dtype) -> Any:
    """The Ascend C element type of a host or device array argument; else an error naming the argument."""
    try:
        return from_numpy(dtype)
    except TypeError as e:
        kind = np.dtype(dtype).name if isinstance(dtype, np.dtype) else str(dtype)
        said = f"Unsupported DataType name: {kind} ({e})" if kind in PYASC_UNNAMED else str(e)
        raise UnsupportedArgumentType(f"kernel argument {name!r}: {said}") from None


_PENDING: list[tuple[Task, str]] = []  # launches queued with device memory only, until they run


def _track(task: Task, label: str) -> None:
    """Remember a queued launch so that exiting before it ran is reported."""
    if not _PENDING:
        atexit.register(_report_never_ran)
    _PENDING[:] = [p for p in _PENDING if not p[0].done]
    _PENDING.append((task, label))


def _report_never_ran() -> None:
    """atexit: say which queued kernel launches never ran (nothing synchronized their stream)."""
    left = [label for task, label in _PENDING if not task.done]
    _PENDING.clear()
    if left:
        print(f"aclsim: the program exited with {len(left)} kernel launch(es) that never ran: {', '.join(left)}. "
              "A launch with device memory is queued on its stream; synchronize it (asc.lib.runtime.synchronize(), "
              "acl.rt.synchronize_stream(stream) or stream.synchronize()) to run it and see its results.",
              file=sys.stderr)


def _stream_handle(stream: Any) -> Any:
    """A pyACL handle (int) or a runtime Stream for `rt.launch` (from those, None, or an `aclsim.Stream`)."""
    if stream is None:
        return 0
    if isinstance(stream, Stream | int):
        return stream
    return getattr(stream, "handle", stream)  # anything else: rt.launch reports the bad handle


def jit(fn: Callable | None = None, **options: Any) -> Any:
    """Decorate a kernel: `@asc.jit` or `@asc.jit(**options)` (options are accepted and ignored)."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)

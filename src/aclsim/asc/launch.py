"""`@asc.jit` kernels and their launch: `kernel[core_num](*args)` / `kernel[core_num, stream](*args)`.

As pyasc's `runtime/jit.py` + `launcher.py`: host arrays (numpy, torch CPU tensors, DLPack /
array-interface / buffer objects; `hostargs.py`) are copied to device memory before the launch,
the launch is synchronised, and every array is copied back (the call raises `AscError` if the
kernel faulted). Anything that is neither memory nor a plain value is refused at the launch. With device arguments only (`DeviceArray`,
`asc.GlobalAddress(ptr, dtype)`), the launch is queued on the stream like any device task and
the host waits with `synchronize_stream`, as after an Ascend C `<<<>>>` launch.

The kernel body is ordinary Python run once per core, one core after another (a core that waits
for another hands over: gang.py), each core with its own freshly garbage-filled UB (as TIK's
debugger fills local buffers with random bytes).
"""

from __future__ import annotations

import atexit
import functools
import inspect
import linecache
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import constants as C
from ..errors import AclError
from ..runtime import KernelFault, KernelWork, Site, Stream, Task, get_runtime
from ..runtime.gm import GlobalMemory, array_of, has_array_interface
from ..runtime.observe import now
from ..runtime.work import pointers_in
from . import context as ctx
from . import torch_npu
from .context import AscError, Core, Pool, pool_geometry
from .crosscore import check_cross_flags
from .cube import mix_ratio
from .dtypes import from_numpy
from .gang import Gang, KernelReturn
from .hostargs import ACCEPTED, by_value, host_view
from .lib.runtime import current_context
from .rewrite import iterate_loops
from .sync import check_flags
from .tensors import GlobalAddress

MAX_BLOCKS = 65535  # numBlocks range of a kernel launch (reference §2.1)
_GARBAGE: dict[int, np.ndarray] = {}  # seed -> the bytes local memories start with


class ConstExpr:
    """Annotation for compile-time constants (`tile_length: asc.ConstExpr[int]`); values pass through."""

    def __class_getitem__(cls, item: Any) -> type[ConstExpr]:
        return cls


class Launch:
    """What the cores of one launch share: kernel, arguments, chip, observers, counters."""

    def __init__(self, fn: Callable, core_num: int, args: tuple) -> None:
        rt = get_runtime()
        self.fn = fn
        self.name: str = fn.__name__
        self.core_num = core_num
        self.args = args
        self.chip = rt.chip
        self.gm = GlobalMemory(rt)  # the door to GM for every core of the launch
        self.observe = False
        self.watch = False  # the sanitizer wants pipe accesses to UB (asc/pipes.py)
        self.bus = rt.bus
        self.task: Task | None = None
        self.started = 0.0  # host clock when the device began running the launch (get_system_cycle)
        self.warned: set = set()
        self.bytes_read = 0
        self.bytes_written = 0
        self.error: BaseException | None = None
        self.kernel_type: Any = None  # @asc.jit(kernel_type=...), read by ascend_is_aic/aiv
        self.spare: dict[str, list[Pool]] = {}  # local memories of cores that returned, for the next ones
        self.options: dict[str, Any] = {}  # @asc.jit options (matmul_cube_only=True: the cores are AICs)
        self.blocks = core_num  # blocks launched (kernel[blocks]); core_num counts the cores running the body
        self.mix = 1  # AIVs per launched block (2 for mix kernels: cube.mix_ratio)
        self.aic_body = False  # each block's AIC runs the body too (explicit MIX_AIC_1_1 / MIX_AIC_1_2)
        self.all_aic = False  # every core is a cube core (AIC_ONLY, matmul_cube_only=True, ...)
        self.live: dict[int, Core] = {}  # slot -> core, while it runs (kept once cores synchronise)
        self.synced = False  # a core used cross-core synchronisation (crosscore.py): keep every core
        self.done = bytearray()  # per slot: the core's body returned
        self.gang: Gang | None = None
        self.cores_started = 0  # cores started so far (the task's progress)
        self.arrivals: dict[Any, list[Any]] = {}  # cross-core signal -> [rounds released, {core: clock per set}]
        self.cube_flops = 0  # whole-fractal Cube work of mmad, for the modeled time

    def fresh_pool(self, name: str) -> Pool:
        """A local memory for a core starting a block: one a returned core left (refilled), else a new one."""
        spare = self.spare.get(name)
        if spare:
            p = spare.pop()
            p.refill(self.garbage(p.size))
        else:
            size, usable = pool_geometry(name, self.chip)
            p = Pool(name, size, usable, self.garbage(size))
        p.watch = self.watch and name == "UB"
        return p

    @property
    def count(self) -> int:
        """Cores running the body: per block its AIVs, and its AIC when that runs the body too."""
        return self.core_num if self.all_aic else self.blocks * (self.mix + self.aic_body)

    def core(self, slot: int) -> Core:
        """The core in run order `slot` (per block: its AIC if it runs the body, then its AIVs), made on
        first use: a launch of many blocks holds only the cores that are running."""
        core = self.live.get(slot)
        if core is None:
            if self.all_aic:
                core = Core(self, slot, aic=True)
            else:
                g, r = divmod(slot, self.mix + self.aic_body)
                if self.aic_body and r == 0:
                    core = Core(self, g, aic=True, uid=self.core_num + g)
                else:
                    core = Core(self, g * self.mix + r - self.aic_body)
            core.returned = bool(self.done[slot])
            self.live[slot] = core
        return core

    @property
    def cores(self) -> list[Core]:
        """Every core of the launch (cross-core synchronisation: at most a chip's worth)."""
        return [self.core(s) for s in range(self.count)]

    def garbage(self, size: int) -> np.ndarray:
        """Random bytes that fresh local memory starts with (seed: ACLSIM_SEED, default 0)."""
        seed = int(os.environ.get("ACLSIM_SEED", "0"))
        g = _GARBAGE.get(seed)
        if g is None or g.size < size:
            g = _GARBAGE[seed] = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
        return g

    @property
    def end_site(self) -> Site:
        """The kernel's `def` line, where end-of-kernel checks (leaks, unpaired flags) point."""
        code = self.fn.__code__
        line = code.co_firstlineno
        while linecache.getline(code.co_filename, line).lstrip().startswith("@"):
            line += 1
        return Site(code.co_filename, line, f"{self.name}, when it returned")

    def run(self, task: Task) -> None:
        """The device side: run every core of the launch in turn."""
        self.task = task
        self.started = now()
        self.observe = self.gm.observed()
        # with insert_sync the compiler places every synchronisation: nothing for synccheck to judge
        self.watch = self.bus.wants("pipe_access") and not self.options.get("insert_sync")
        self.done = bytearray(self.count)
        self.gang = Gang(self.count, self._run_core)
        try:
            with np.errstate(all="ignore"):  # the vector unit yields inf/nan silently
                self.gang.run()
            check_cross_flags(self)
        finally:
            task.work.bytes_read = self.bytes_read
            task.work.bytes_written = self.bytes_written
            task.work.cube_flops = self.cube_flops

    def _run_core(self, slot: int) -> None:
        core = ctx.CORE = self.core(slot)
        self.task.work.progress = (self.cores_started, self.count)
        self.cores_started += 1
        try:
            self.fn(*self.args)
            if core.pipe is not None:
                core.pipe.check_leaks(self)
            check_flags(core, self)
        except KernelReturn:
            pass
        except KernelFault as e:
            self.error = e
            raise
        except Exception as e:  # a Python error in the kernel body faults the core like a trap
            self.error = e
            raise KernelFault(ctx.message("kernel", f"{type(e).__name__}: {e}", _raise_site(e))) from e
        finally:
            ctx.CORE = None
            core.returned = True
            self.done[slot] = 1
            for name, pool in core.pools.items():
                self.spare.setdefault(name, []).append(pool)
            if not self.synced:
                del self.live[slot]


def _raise_site(e: BaseException) -> Site | None:
    """The innermost kernel-source frame of an exception's traceback."""
    site = None
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not code.co_filename.startswith(ctx.PKG_DIR):
            site = Site(code.co_filename, tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return site


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
        if ctx.CORE is None:
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
                raise AscError(e.message) from cause
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


def _element_type(name: str, dtype: np.dtype) -> Any:
    """The Ascend C element type of a host or device array argument; TypeError naming the argument."""
    try:
        return from_numpy(dtype)
    except TypeError as e:
        raise TypeError(f"kernel argument {name!r}: {e}") from None


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

"""`@simt.kernel` / `@simt.device` and kernel launches: `kernel[grid, block, stream](*args)`.

A launch is ordinary device work: it is queued on its stream as a Task and runs when the host
synchronizes (or at submit in eager mode). It runs in chunks of whole blocks; each chunk executes
the compiled kernel once over all of its lanes.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
from typing import Any

import numpy as np

from ..runtime import KernelFault, KernelWork, Task, get_runtime
from ..runtime.gm import GlobalMemory, address_of, has_array_interface
from . import arrays, compiler, front, jit, reference
from .lang import PtrType, SimtError, dim3, params_of
from .launchctx import LaunchContext, UserRaise
from .memory import PtrArg

MAX_THREADS_PER_BLOCK = 2048  # GetSimtMaxThreadNum: "maximum number of SIMT threads ... (2048 currently)"
CHUNK_LANES = 1 << 20  # lanes per chunk: bounds the size of every temporary array
# Kernels with loops make many passes over their temporaries: smaller chunks keep them in the CPU's
# L2 cache (measured: a 2^20 shared-memory scan runs ~1.5x faster than with 2^18-lane chunks), while
# straight-line kernels take larger chunks, which save Python work per chunk (measured at 2^22
# threads: square 1.26x -> 1.14x numpy with 2^20 instead of 2^18 lanes, and no loss with temporaries).
LOOP_CHUNK_LANES = 1 << 16
CHUNK_SHARED_BYTES = 64 << 20  # and the shared memory of the blocks of a chunk
CHUNK_LOCAL_BYTES = 64 << 20  # and the local arrays of its threads
_U32_MAX = (1 << 32) - 1


def _dims(v: Any, what: str) -> tuple[int, int, int]:
    if isinstance(v, (int, np.integer)):
        t: tuple = (int(v),)
    elif isinstance(v, (tuple, list, dim3)):
        t = tuple(v)
    else:
        raise SimtError(f"kernel launch: {what} must be an int, a tuple of up to 3 ints or simt.dim3, got {v!r}")
    if not 1 <= len(t) <= 3 or not all(isinstance(x, (int, np.integer)) for x in t):
        raise SimtError(f"kernel launch: {what} must have 1 to 3 integer dimensions, got {v!r}")
    t = tuple(int(x) for x in t) + (1,) * (3 - len(t))
    if not all(1 <= x <= _U32_MAX for x in t):
        raise SimtError(f"kernel launch: every {what} dimension must be between 1 and {_U32_MAX}, got {t}")
    return t  # type: ignore[return-value]


class Kernel:
    """A `@simt.kernel`: launch it with `kernel[grid, block](*args)` or `kernel[grid, block, stream](*args)`."""

    def __init__(self, fn: Any, declared: dict[str, Any] | None = None, bound: dict[str, Any] | None = None,
                 rules: str = "c") -> None:
        """`bound`: parameters fixed to compile-time values (the cuda face's tuple arguments); the launch
        passes the others. `rules`: the typing rules, "c" (simt) or "numba" (the cuda face)."""
        self.fn = fn
        self.bound = bound or {}
        self.rules = rules
        self.name = fn.__name__
        self.file = _source_file(fn)
        # as written (simt.Array parameters); `declared` is given by specializations (aclsim.cuda)
        self.declared = params_of(fn, "kernel", require=True) if declared is None else declared
        self.param_types = arrays.launch_types(self.declared)  # as launched (arrays: pointer + extents)
        self.expands = len(self.declared) != len(self.param_types)  # array parameters become several values
        # How each launch value is taken: a pointer, a user scalar (checked and converted), or an array's
        # shape/stride value computed by expand_args (already an exact int64).
        self.plan = [(name, t, "ptr" if isinstance(t, PtrType) else "extent" if name not in self.declared else "value")
                     for name, t in self.param_types.items()]
        self.compiled: compiler.Compiled | None = None
        self._refusal: SimtError | None = None  # a refused kernel is refused again without recompiling
        self.raised: UserRaise | None = None  # the last launch's own raise, if it raised
        self._launchers: dict[Any, Launcher] = {}
        functools.update_wrapper(self, fn)

    def compile(self) -> compiler.Compiled:
        """Compile now (launches do it on first use); raises SimtError for unsupported constructs."""
        if self.compiled is None:
            if self._refusal is not None:
                raise self._refusal.with_traceback(None) from None
            try:
                self.compiled = compiler.Compiler(self.rules).build(front.Source(self.fn, "kernel", self.bound),
                                                                    "kernel", self.declared)
            except SimtError as e:  # the message names the kernel line: the compiler's frames would only bury it
                self._refusal = e
                raise e.with_traceback(None) from None
        return self.compiled

    @property
    def source(self) -> str:
        """The generated vectorized Python (for the curious)."""
        return self.compile().source

    def __getitem__(self, config: Any) -> Launcher:
        try:
            hit = self._launchers.get(config)
        except TypeError:  # unhashable (e.g. a list): no caching
            hit = None
        if hit is not None:
            return hit
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
            raise SimtError(f"launch as {self.name}[grid, block](...) or {self.name}[grid, block, stream](...) "
                            f"(or {self.name}[grid, block, stream, dynamic_shared_bytes](...))")
        launcher = Launcher(self, *config)
        if len(self._launchers) < 16:  # each keeps its geometry caches
            with contextlib.suppress(TypeError):
                self._launchers[config] = launcher
        return launcher

    def __call__(self, *args: Any) -> None:
        raise SimtError(f"a kernel needs a launch configuration: {self.name}[grid, block](...)")


def kernel(fn: Any) -> Kernel:
    """Decorator: a SIMT kernel written as per-thread Python."""
    return Kernel(fn)


class Launcher:
    """A kernel with its launch configuration; calling it queues the launch."""

    def __init__(self, k: Kernel, grid: Any, block: Any, stream: Any = 0, shared_bytes: Any = 0) -> None:
        self.kernel = k
        self.grid = _dims(grid, "grid")
        self.block = _dims(block, "block")
        tpb = self.block[0] * self.block[1] * self.block[2]
        if tpb > MAX_THREADS_PER_BLOCK:
            raise SimtError(
                f"kernel launch: a block of {self.block} has {tpb} threads; at most {MAX_THREADS_PER_BLOCK} per block"
            )
        self.stream = getattr(stream, "handle", stream) if not _is_runtime_stream(stream) else stream
        if self.stream is None:
            self.stream = 0
        # The size of the block's dynamic shared memory (numba's 4th launch value; `<<<g, b, bytes>>>` in C).
        if not isinstance(shared_bytes, (int, np.integer)) or isinstance(shared_bytes, bool) or shared_bytes < 0:
            raise SimtError(f"kernel launch: the dynamic shared memory size must be a byte count >= 0, got {shared_bytes!r}")
        self.shared_bytes = int(shared_bytes)
        self.context: LaunchContext | None = None
        self.what = f"{k.name}[...] launch"

    def __call__(self, *args: Any) -> Task:
        k = self.kernel
        compiled = k.compiled or k.compile()
        if compiled.grid_sync:
            self._check_cooperative()
        if len(args) != len(k.declared):
            raise SimtError(f"kernel {k.name} takes {len(k.declared)} arguments, got {len(args)}")
        if k.expands:
            args = tuple(arrays.expand_args(k.name, k.declared, args))
        rt = get_runtime()
        gm = GlobalMemory(rt)
        # Pointers resolve at launch: queued work still uses memory freed before it runs, as on hardware.
        vals = [PtrArg(gm, name, _convert(k.name, name, t, a), t.dtype) if how == "ptr"
                else a if how == "extent" else _convert(k.name, name, t, a)
                for (name, t, how), a in zip(k.plan, args, strict=False)]
        C = self.context
        if C is None:
            C = self.context = LaunchContext(k.name, k.file, self.grid, self.block, self.shared_bytes,
                                             signed=compiled.rules == "numba")

        compiled_jit = jit.select(k, compiled, C.nblocks * C.tpb)

        def run(task: Task) -> None:
            if os.environ.get("ACLSIM_SIMT_ENGINE") == "reference":  # the oracle: every thread, one at a time
                reference.execute(gm, task, C, k, vals)
                return
            # The compiled path when nobody observes the kernel's accesses (it reports no events); it
            # hands the launch back (memory restored) wherever the numpy engine must decide.
            if compiled_jit is not None and not gm.observed() and compiled_jit.run(task, C, vals, compiled.written):
                return
            try:
                _execute(gm, task, C, compiled, vals)
            except UserRaise as e:  # the kernel's own raise: kept for the face that raises it on the host
                k.raised = e
                raise

        # the pointers the door placed in a live allocation at submit (what frees must be ordered against)
        ptrs = tuple(v.addr for v in vals if type(v) is PtrArg and v.alloc is not None)
        work = KernelWork("simt", source=k.file, grid=self.grid, block=self.block, pointers=ptrs)
        return rt.launch(self.stream, Task("kernel", k.name, run, work=work, keep=args), self.what)

    def _check_cooperative(self) -> None:
        """A grid sync needs every block resident at once (a cooperative launch), checked before queueing."""
        rt = get_runtime()
        chip = rt.devices[rt.get_device()].chip
        tpb = self.block[0] * self.block[1] * self.block[2]
        # Assumption (no public figure): a vector core keeps MAX_THREADS_PER_BLOCK SIMT threads resident.
        limit = chip.vector_cores * max(1, MAX_THREADS_PER_BLOCK // tpb)
        blocks = self.grid[0] * self.grid[1] * self.grid[2]
        if blocks > limit:
            raise SimtError(
                f"kernel {self.kernel.name} syncs the whole grid (this_grid().sync()), so all its blocks must be "
                f"resident at once: {blocks} blocks of {tpb} threads, at most {limit} on {chip.name} "
                f"({chip.vector_cores} vector cores x {max(1, MAX_THREADS_PER_BLOCK // tpb)} blocks); "
                "use fewer blocks with a grid-stride loop")


def _is_runtime_stream(s: Any) -> bool:
    from ..runtime import Stream as RtStream

    return isinstance(s, RtStream)


def _convert(kname: str, name: str, t: Any, a: Any) -> Any:
    """A launch argument as the kernel receives it: device address (int) or typed scalar."""
    if isinstance(t, PtrType):
        if has_array_interface(a):
            return address_of(a)
        if isinstance(a, np.ndarray):
            raise SimtError(
                f"kernel {kname}: argument '{name}' is a host numpy array; copy it to the device first "
                "(aclsim.to_device(a) or acl.rt.malloc + acl.rt.memcpy) and pass the device pointer"
            )
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool) and 0 <= int(a) <= (1 << 64) - 1:
            return int(a)
        raise SimtError(f"kernel {kname}: argument '{name}' must be a device address (int) or DeviceArray, got {a!r}")
    if not isinstance(a, (int, float, bool, complex, np.integer, np.floating, np.bool_, np.complexfloating)):
        raise SimtError(f"kernel {kname}: argument '{name}' must be a number ({t}), got {type(a).__name__}")
    if t.kind in "iu":
        if isinstance(a, (float, np.floating)) and not float(a).is_integer():
            raise SimtError(f"kernel {kname}: argument '{name}' = {a!r} is not an integer ({t})")
        info = np.iinfo(t)
        if not info.min <= int(a) <= info.max:
            raise SimtError(f"kernel {kname}: argument '{name}' = {a} does not fit {t} [{info.min}, {info.max}]")
        return t.type(int(a))
    return t.type(a)


def _execute(gm: GlobalMemory, task: Task, C: LaunchContext, compiled: compiler.Compiled, vals: list) -> None:
    """The device side of a launch: run every chunk of blocks."""
    C.begin(gm, task)
    ptrs = [v for v in vals if type(v) is PtrArg]
    if len(ptrs) > 1:  # a load through one pointer must not alias an allocation the kernel writes through another
        written = {id(p.alloc) for p in ptrs if p.name in compiled.written and p.alloc is not None}
        for p in ptrs:
            p.copy = id(p.alloc) in written
    elif ptrs:
        ptrs[0].copy = False
    per_chunk = C.nblocks  # a grid sync needs every block in the same chunk
    if not compiled.grid_sync:
        shared = max(compiled.shared_bytes + C.dyn_shared_bytes, 1)
        lanes = LOOP_CHUNK_LANES if compiled.iterates else CHUNK_LANES
        local = max(compiled.local_bytes * C.tpb, 1)
        per_chunk = max(1, min(lanes // C.tpb, CHUNK_SHARED_BYTES // shared, CHUNK_LOCAL_BYTES // local))
    _run_chunks(task, C, compiled.pyfunc, vals, per_chunk)
    task.work.bytes_read = C.bytes_read
    task.work.bytes_written = C.bytes_written


@np.errstate(all="ignore")  # as a decorator: cheaper per call than entering a new errstate
def _run_chunks(task: Task, C: LaunchContext, fn: Any, vals: list, per_chunk: int) -> None:
    for b0 in range(0, C.nblocks, per_chunk):
        task.work.progress = (b0, C.nblocks)
        C.set_chunk(b0, min(per_chunk, C.nblocks - b0))
        try:
            fn(C, *vals)
        except KernelFault:
            raise
        except Exception as e:
            raise KernelFault(f"kernel '{C.name}' failed at {C.where(C.line)}: {type(e).__name__}: {e}") from e


def _source_file(fn: Any) -> str:
    try:
        return inspect.getsourcefile(fn) or "<unknown>"
    except TypeError:
        return "<unknown>"

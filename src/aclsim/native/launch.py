"""Launches of natively compiled kernels: checked when they are queued, run when their task runs.

A face (the C face: `aclsim.capi.kernels`) describes a launch as a `NativeKernel` whose `runner` runs the
compiled code; `submit` queues it on its stream as a typed KernelWork task, like every other launch, so the
scheduler (lazy or eager), the sanitizer, the timeline and the summary treat it alike. When the task runs:
- SIMT kernels run their blocks in chunks (each chunk one call into the compiled code; chunks grow while
  they are quick, so progress shows and Ctrl-C stops between them);
- Ascend C kernels run one body per AI Core as the Ascend C engine runs its cores (`aclsim.asc`: its launch, its
  gang scheduler for SyncAll and cross-core flags, each core's local memories: the compiled body works on the
  core's real UB, and the API calls it makes run the engine's instructions on that core);
- under the sanitizer (someone observes kernel accesses) the runner uses the kernel's checked build, which
  bounds every access to device memory and records it; the records become KernelAccess events (accesses.py).
A fault stops the launch: the stream reports 507015 with the fault's text at its next synchronize.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from ..errors import AclError, Code
from ..runtime import KernelFault, KernelWork, Site, Task, get_runtime
from ..runtime.devrange import kernel_access
from ..runtime.gm import GlobalMemory
from . import accesses, faults
from .kernel import KINDS, NativeKernel

MAX_THREADS = 2048  # SIMT API "核函数配置": __launch_bounds__(N) with N in 1..2048
DEFAULT_BOUNDS = 1024  # "若未配置__launch_bounds__，最大线程数默认为1024"
MAX_BLOCKS = 65535  # Ascend C: numBlocks in [1, 65535] ("SIMD-BuiltIn关键字", 核函数配置)
MAX_GRID = (1 << 32) - 1
CHUNK_SECONDS = 0.02  # a chunk of SIMT blocks grows while it runs faster than this
FIRST_CHUNK_THREADS = 1 << 16  # the first chunk's threads (a call into the compiled code costs ~10 us)


class _Keep:
    """Frees the launch's arguments when the task lets go of it (it ran, or was dropped unrun)."""

    def __init__(self, k: NativeKernel) -> None:
        self.k = k

    def __del__(self) -> None:
        self.k.runner.release()


_warned: set[tuple[str, str]] = set()


def submit(k: NativeKernel, stream: int) -> Task:
    """Check a launch and queue it on `stream`; raises AclError (the launch's code) when it cannot run."""
    rt = get_runtime()
    chip = rt.devices[rt.get_device()].chip
    what = f"kernel launch {k.name}"
    _check_shape(k, what)
    if k.simt and not chip.simt and (k.name, chip.name) not in _warned:
        _warned.add((k.name, chip.name))
        print(f"aclsim: warning: {k.name} is a SIMT kernel; SIMT programming needs an Ascend 950 chip and "
              f"{chip.name} has none: aclsim runs it anyway (choose the chip with aclsim run --soc Ascend950PR_9589)",
              file=sys.stderr)
    gm = GlobalMemory(rt)
    launched = {a for p in k.pointers if (a := gm.find(p)) is not None}
    work = KernelWork("simt" if k.simt else "asc", source=k.source,
                      grid=k.grid if k.simt else None, block=k.block if k.simt else None,
                      cores=None if k.simt else _core_count(k), pointers=tuple(p for p in k.pointers if gm.find(p)),
                      cube_cores=k.blocks if k.kind == "mix" else None)
    keep = _Keep(k)

    def run(task: Task) -> None:
        _run(task, k, launched, keep)

    return rt.launch(stream, Task("kernel", k.name, run, work=work, keep=keep), what)


def _check_shape(k: NativeKernel, what: str) -> None:
    bad = Code.ERROR_RT_PARAM_INVALID
    if k.kind not in KINDS:
        raise AclError(bad, f"{what}: unknown kernel kind {k.kind!r}")
    if k.simt:
        if not all(1 <= d <= MAX_GRID for d in (*k.grid, *k.block)):
            raise AclError(bad, f"{what}: every grid and block dimension must be between 1 and {MAX_GRID}, "
                                f"got grid {k.grid} and block {k.block}")
        bound = k.max_threads or DEFAULT_BOUNDS
        if k.threads > min(bound, MAX_THREADS):
            given = (f"its __launch_bounds__({k.max_threads})" if k.max_threads else
                     f"the {DEFAULT_BOUNDS} a kernel without __launch_bounds__ may start")
            raise AclError(bad, f"{what}: a block of {k.block} has {k.threads} threads, more than {given}; "
                                f"declare the kernel __launch_bounds__(N) with N >= {k.threads} (at most "
                                f"{MAX_THREADS}) or launch fewer threads per block")
    elif not 1 <= k.blocks <= MAX_BLOCKS:
        raise AclError(bad, f"{what}: numBlocks must be between 1 and {MAX_BLOCKS}, got {k.blocks}")


def _core_count(k: NativeKernel) -> int:
    return k.blocks * 3 if k.kind == "mix" else k.blocks


def _run(task: Task, k: NativeKernel, launched: set, keep: _Keep) -> None:
    rt = get_runtime()
    gm = GlobalMemory(rt)
    chip = rt.devices[task.stream.device_id].chip
    table = None
    if gm.observed():
        if k.runner.checked():
            table = accesses.Table(gm, launched)
        else:
            accesses.warn_unchecked(k.name)
    spans = [(a.start, a.end) for a in {*gm.allocations(), *launched}]
    try:
        with kernel_access(spans):
            if k.simt:
                _run_blocks(task, k, gm, chip.ub_size, table)
            else:
                _run_cores(task, k, gm, chip.ub_size, table)
    finally:  # the launch's accesses, also those before a fault
        if table is not None:
            accesses.emit(gm, task, k, table)


def _run_blocks(task: Task, k: NativeKernel, gm: GlobalMemory, ub_size: int, table: accesses.Table | None) -> None:
    n = k.blocks
    first, chunk = 0, max(1, FIRST_CHUNK_THREADS // k.threads)
    while first < n:
        count = min(chunk, n - first)
        task.work.progress = (first, n)
        t0 = time.perf_counter()
        fault = k.runner.run(first=first, count=count, ub_size=ub_size, table=table)
        if table is not None:
            table.add(k.runner.records(table))
        if fault is not None:
            raise KernelFault(faults.describe(k, fault, gm))
        first += count
        if time.perf_counter() - t0 < CHUNK_SECONDS:
            chunk *= 2
    task.work.progress = (n, n)


def _run_cores(task: Task, k: NativeKernel, gm: GlobalMemory, ub_size: int, table: accesses.Table | None) -> None:
    """The AI Cores of an Ascend C kernel, run by the Ascend C engine: each core's compiled body on that core."""
    from ..asc.engine import TABLE
    from ..asc.kernel.launch import Launch

    sub_block = TABLE["GetSubBlockIdx"].run

    def body(core: Any) -> None:
        ub = core.pool("UB")
        fault = k.runner.run(core=core.idx, core_num=core.num, sub_block=sub_block(core),
                             sub_blocks=1 if core.aic else core.launch.mix, is_aic=core.aic, ub_size=ub.size,
                             ub=ub.bytes.ctypes.data, table=table)
        if table is not None:
            table.add(k.runner.records(table))
        if fault is not None:
            raise KernelFault(faults.describe(k, fault, gm))

    defined = Site(k.source, k.line or 0, k.name) if k.source else None
    Launch.native(k.name, k.blocks, k.kind, body, defined, k.spell or (lambda api: api), k.dyn_ubuf).run(task)


def core_wait(ready: Any) -> bool:
    """Kernel code of an AI Core waits until `ready()` (SyncAll, cross-core flags): the Ascend C engine's gang."""
    from ..asc import faults as asc_faults

    core = asc_faults.running_or_none()
    if core is None:
        raise RuntimeError("aclsim_core_wait called outside a running AI Core")
    return core.launch.wait(core, ready)

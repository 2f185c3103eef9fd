"""One launch of an Ascend C kernel body on the cores of the emulated chip.

The kernel body is ordinary Python run once per core, one core after another (a core that waits
for another hands over: gang.py), each core with its own freshly garbage-filled UB (as TIK's
debugger fills local buffers with random bytes).
"""

from __future__ import annotations

import linecache
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from aclsim.runtime import KernelFault, Site, Task, get_runtime
from aclsim.runtime.gm import GlobalMemory
from aclsim.runtime.observe import now

from .. import faults
from ..aicore.core import Core
from ..aicore.pool import Pool, pool_geometry
from ..memory.tpipe import check_leaks
from ..sync.crosscore import check_cross_flags
from ..sync.flags import check_flags
from .gang import Gang, KernelReturn

_GARBAGE: dict[int, np.ndarray] = {}  # seed -> the bytes local memories start with


# What runs the cores of a launch (`Launch.kind`): per launched block its AIVs (mix), whether the block's AIC runs
# the body too (aic_body), whether every core is an AIC (all_aic). `aicore` (an Ascend C `__global__ __aicore__`
# kernel with no other qualifier) runs on vector cores as pyasc's default launch does; `mix` is `__mix__(1, 2)`.
KINDS = {"aicore": (1, False, False), "vector": (1, False, False), "cube": (1, False, True), "mix": (2, True, False)}


class Launch:
    """What the cores of one launch share: kernel, arguments, chip, observers, counters.

    `fn(*args)` is one core's body: a pyasc kernel, or (`Launch.native`) a function running natively compiled code
    for the running core (`faults.running_or_none()`).
    """

    def __init__(self, fn: Callable, core_num: int, args: tuple, name: str | None = None) -> None:
        rt = get_runtime()
        self.fn = fn
        self.name: str = name or fn.__name__
        self.defined: Site | None = None  # where the kernel is defined, when not in fn's code (native kernels)
        self.spell: Callable[[str], str] = faults.pyasc_name  # how faults spell an API (pyasc: asc.<api>)
        self.dyn_ub = 0  # bytes at the top of each UB that native code owns (a native launch's dynamic UB)
        self.core_num = core_num
        self.args = args
        self.chip = rt.chip
        self.gm = GlobalMemory(rt)  # the door to GM for every core of the launch
        self.observe = False
        self.watch = False  # the sanitizer wants pipe accesses to UB (aicore/pipes.py)
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
        self.mix = 1  # AIVs per launched block (2 for mix kernels: cube/mix.py)
        self.aic_body = False  # each block's AIC runs the body too (explicit MIX_AIC_1_1 / MIX_AIC_1_2)
        self.all_aic = False  # every core is a cube core (AIC_ONLY, matmul_cube_only=True, ...)
        self.live: dict[int, Core] = {}  # slot -> core, while it runs (kept once cores synchronise)
        self.synced = False  # a core used cross-core synchronisation (sync/crosscore.py): keep every core
        self.done = bytearray()  # per slot: the core's body returned
        self.gang: Gang | None = None
        self.cores_started = 0  # cores started so far (the task's progress)
        self.arrivals: dict[Any, list[Any]] = {}  # cross-core signal -> [rounds released, {core: clock per set}]
        self.cube_flops = 0  # whole-fractal Cube work of mmad, for the modeled time

    @classmethod
    def native(cls, name: str, blocks: int, kind: str, body: Callable[[Core], None], defined: Site | None,
               spell: Callable[[str], str], dyn_ub: int = 0) -> Launch:
        """A launch of a natively compiled Ascend C kernel: `body(core)` runs the compiled body on the running core;
        `kind` (KINDS) says which cores run it, `defined` where the kernel is, `spell` how faults name its API,
        `dyn_ub` the bytes at the top of each UB the launch gave its code (`extern __ubuf__ T x[]`: zeroed, out of
        TPipe's reach, read and written by its VF calls: vector/vf.py)."""

        def run_core() -> None:
            body(faults.running_or_none())

        launch = cls(run_core, blocks, (), name)
        launch.mix, launch.aic_body, launch.all_aic = KINDS[kind]
        launch.core_num = blocks * launch.mix
        launch.defined = defined
        launch.spell = spell
        launch.dyn_ub = dyn_ub
        return launch

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
        if self.dyn_ub and name == "UB":  # the native code's own UB, zeroed by it
            p.usable = min(p.usable, p.size - self.dyn_ub)
            p.mark(p.size - self.dyn_ub, p.size)
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
        if self.defined is not None:
            return Site(self.defined.filename, self.defined.lineno, f"{self.name}, when it returned")
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

    def wait(self, core: Core, ok: Callable[[], bool]) -> bool:
        """Suspend the running `core` until `ok()` (gang.py); False when it never will be. When this returns, `core`
        is the running core again."""
        got = self.gang.wait(core, ok)
        faults.set_running(core)
        return got

    def _run_core(self, slot: int) -> None:
        core = self.core(slot)
        faults.set_running(core)
        self.task.work.progress = (self.cores_started, self.count)
        self.cores_started += 1
        try:
            self.fn(*self.args)
            check_leaks(core, self)
            check_flags(core, self)
        except KernelReturn:
            pass
        except KernelFault as e:
            self.error = e
            raise
        except Exception as e:  # a Python error in the kernel body faults the core like a trap
            self.error = e
            raise KernelFault(faults.message("kernel", f"{type(e).__name__}: {e}", _raise_site(e))) from e
        finally:
            faults.set_running(None)
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
        if not code.co_filename.startswith(faults.PKG_DIR):
            site = Site(code.co_filename, tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return site



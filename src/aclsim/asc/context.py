"""The AI Core a kernel body is running on: its index, local memories and bookkeeping, plus errors.

Exactly one core of a launch runs at any time (gang.py: cores that wait for each other hand over),
and the scheduler runs one task at a time, so the running core is a module global (`CORE`). Every check that fails calls `fail`, which
raises `KernelFault` naming the kernel, the core, the API call and the kernel source line: the
launch's stream then reports 507015 (ACL_ERROR_RT_AICORE_EXCEPTION) with that message.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from ..chips import ChipProfile
from ..errors import AclError, Code
from ..runtime import KernelFault, Site, user_site
from ..runtime.gm import Span

if TYPE_CHECKING:
    from .tpipe import TPipe

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class AscError(AclError):
    """A kernel launched synchronously (with host numpy arrays) faulted; code 507015."""

    def __init__(self, message: str) -> None:
        super().__init__(Code.ERROR_RT_AICORE_EXCEPTION, message)


class AscWarning(UserWarning):
    """Legal Ascend C that does not do what it looks like (e.g. a data_copy length rounded down)."""


class Pool:
    """One on-chip memory of a core (UB, L1, L0A, L0B, L0C, BT = BiasTable).

    `bytes` holds the contents (garbage until written, as on hardware), `written` one flag byte per
    byte (1 = written since it was allocated), `usable` what TPipe.init_buffer may carve, `top` the
    next free offset. Flags go from 1 back to 0 only through `unwrite` (and `refill`), which bump
    `epoch`: a check that found bytes written stays true while the epoch is unchanged (the vector
    operand memo of `tensors.Checked` relies on this).
    """

    __slots__ = ("bytes", "epoch", "name", "size", "top", "usable", "watch", "written", "wview")

    def __init__(self, name: str, size: int, usable: int, garbage: np.ndarray) -> None:
        self.name = name
        self.size = size
        self.usable = usable
        self.bytes = garbage[:size].copy()
        self.written = bytearray(size)
        self.wview = np.frombuffer(self.written, dtype=np.uint8)  # the flags as numpy, for strided checks
        self.top = 0
        self.epoch = 0

    def refill(self, garbage: np.ndarray) -> None:
        """Back to the state of a fresh core (the next block of a launch reuses the memory)."""
        np.copyto(self.bytes, garbage[: self.size])
        self.wview.fill(0)
        self.epoch += 1
        self.top = 0
        self.watch = False  # the sanitizer wants its pipe accesses (asc/pipes.py); set per core by the launch


    def unwrite(self, lo: int, hi: int) -> None:
        """Mark bytes [lo, hi) never written (a fresh allocation holds nothing meaningful)."""
        self.written[lo:hi] = ZEROS[: hi - lo]
        self.epoch += 1


ONES = memoryview(b"\x01" * (1 << 20))
ZEROS = memoryview(bytes(1 << 20))


def pool_geometry(name: str, chip: ChipProfile) -> tuple[int, int]:
    """(size, usable bytes) of a local memory on `chip` (reference §1.2 and kernel_utils_constants.h)."""
    if name == "UB":
        return chip.ub_size, chip.ub_usable
    size = {"L1": chip.l1_size, "L0A": chip.l0a_size, "L0B": chip.l0b_size, "L0C": chip.l0c_size,
            "BT": chip.bt_size}[name]
    return size, size


class Core:
    """State of one AI Core while it runs one block of a kernel."""

    def __init__(self, launch: Any, idx: int, aic: bool = False, uid: int | None = None) -> None:
        self.launch = launch  # launch.Launch: kernel name, block count, chip, task, observers
        self.kernel: str = launch.name
        self.idx = idx  # get_block_idx(): the block on an AIC, the logical AIV on a vector core
        self.aic = aic  # a cube core (ascend_is_aic())
        self.num: int = launch.blocks if aic else launch.core_num
        self.uid = idx if uid is None else uid  # distinct among all cores of the launch (observers' core id)
        self.group = idx if aic else idx // launch.mix  # the block: one AIC and its AIVs
        self.returned = False  # the body returned (or faulted): gang.py
        self.xflags: dict[Any, int] = {}  # cross-core flag counters (crosscore.py)
        self.xclocks: dict[Any, list[dict[int, int]]] = {}  # per flag: the setters' clocks of each count
        self.epoch = 0  # synchronisation epoch and vector clock, for the sanitizer (runtime KernelSync)
        self.clock: dict[int, int] = {}
        self.deq_scalar = 0  # set_fix_pipe_pre_quant_flag: data_copy's L0C -> GM quantisation parameter
        self.fmatrix: tuple[int, int, tuple[int, ...]] | None = None  # load3d FMATRIX register (img2col.py)
        self.pad_bits = 0  # load3d padding register (img2col.py)
        self.l1_boundary = 0  # set_load_data_boundary: img2col reads wrap here (img2col.py)
        self.waiting: str | None = None  # the cross-core wait it is suspended in, and where
        self.wait_site: Site | None = None
        self.chip: ChipProfile = launch.chip
        self.pools: dict[str, Pool] = {}
        self.pipe: TPipe | None = None
        self.pos_live = [0] * 12  # live (allocated, not freed) queue tensors per TPosition
        self.flags: dict[tuple[int, int], int] = {}  # (HardEvent, event id) -> set_flag minus wait_flag
        self.atomic: tuple[str, Any, Any] | None = None  # (API, numpy ufunc, DataType) while set_atomic_* is on
        self.vmask: Any = None  # the vector mask register (mask.MaskRegister), made on first use
        self.auto: Any = None  # the UB arena of LocalTensorAuto tensors (auto.Arena), made on first use
        self.addr_types: dict[int, Any] = {}  # UB address -> element type of the tensor get_phy_addr read it from
        self.rsvd_cnt = 0  # elements the last gather_mask kept (the RSVD_CNT register)
        self.aipp: Any = None  # the AIPP registers set_aipp_functions latched (aipp._Registers)

    @property
    def name(self) -> str:
        """'core i of n', or 'AIC i of n' for the cube core of a mix launch's block."""
        return f"{'AIC' if self.aic and self.launch.aic_body else 'core'} {self.idx} of {self.num}"

    def pool(self, name: str) -> Pool:
        p = self.pools.get(name)
        if p is None:
            p = self.pools[name] = self.launch.fresh_pool(name)
        return p

    def emit_gm(
        self, where: Any, lo: int, hi: int, write: bool, itemsize: int, api: str, offsets: Any = None,
    ) -> None:
        """Tell observers (sanitizer) which GM bytes this core moved; only called when observed.

        `where`, lo, hi and offsets are as `GlobalTensor.region` returned them: an allocation and offsets
        from its start, or the door's Span over several allocations and offsets in its bytes.
        """
        site = user_site()
        kw = {"core": self.uid, "line": site.lineno if site else None, "api": api,
              "atomic": write and self.atomic is not None, "epoch": self.epoch}
        gm = self.launch.gm
        if isinstance(where, Span):
            gm.emit_span(self.launch.task, where, write, lo - where.off, hi - where.off, itemsize,
                         offsets=None if offsets is None else offsets - where.off, **kw)
        else:
            gm.emit(self.launch.task, where, write, lo, hi, itemsize, offsets=offsets, **kw)


CORE: Core | None = None


def current(api: str) -> Core:
    """The running core; outside a kernel, a RuntimeError telling how to launch one."""
    core = CORE
    if core is None:
        raise RuntimeError(f"asc.{api} can only run inside a kernel: decorate the function with @asc.jit "
                           "and launch it with kernel[core_num](args...)")
    return core


def get_block_idx() -> int:
    """Index of the block this core runs (0 .. get_block_num() - 1)."""
    return current("get_block_idx").idx


def get_block_num() -> int:
    """Number of blocks the kernel was launched with."""
    return current("get_block_num").num


def short(path: str) -> str:
    """`path` relative to the working directory when that is shorter."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if len(rel) < len(path) else path


def where(site: Site | None) -> str:
    """' (at file:line in function)' for a kernel source site."""
    if site is None:
        return ""
    return f" (at {short(site.filename)}:{site.lineno} in {site.function})"


def message(api: str, text: str, site: Site | None = None, located: bool = True) -> str:
    """'kernel: core i of n: asc.api: text (at file:line in fn)' (without the location if not `located`)."""
    core = CORE
    head = f"{core.kernel}: {core.name}: " if core is not None else ""
    at = where(site if site is not None else user_site()) if located else ""
    return f"{head}asc.{api}: {text}{at}"


def fail(api: str, text: str, site: Site | None = None) -> NoReturn:
    """Fault the running kernel: the message names the core, the API call and the source line."""
    raise KernelFault(message(api, text, site))


def name_of(obj: Any) -> str | None:
    """The name of a kernel variable bound to `obj`, searched in the kernel's frames (error paths only)."""
    f = sys._getframe(1)
    while f is not None:
        if not f.f_code.co_filename.startswith(PKG_DIR):
            for k, v in f.f_locals.items():
                if v is obj:
                    return k
        f = f.f_back
    return None

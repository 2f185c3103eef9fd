"""One AI Core while it runs one block of a kernel: its index, its local memories and its registers."""

from __future__ import annotations

from typing import Any, TypeVar

from aclsim.chips import ChipProfile
from aclsim.runtime import user_site
from aclsim.runtime.gm import Span

from .pool import Pool

T = TypeVar("T")


class Register:
    """A register of one unit holding one value (`None` until first set); each unit subclasses it per register,
    and `Core.state` keeps one instance per core."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Any = None


class Core:
    """One AI Core while it runs one block of a kernel: who it is, its local memories, and the state each
    unit keeps on it.

    A unit's registers and bookkeeping (the vector mask, the FMATRIX, the atomic mode, the queues, the
    cross-core flag counters...) are a class of that unit's own module, made on first use by `state(cls)`
    and found again under that class: the core knows none of them. `sync_epoch` and `clock` are the core's
    synchronisation epoch and vector clock, which observers receive with its accesses (runtime KernelSync).
    """

    __slots__ = ("aic", "chip", "clock", "group", "idx", "kernel", "launch", "num", "pools", "returned",
                 "sync_epoch", "uid", "units")

    def __init__(self, launch: Any, idx: int, aic: bool = False, uid: int | None = None) -> None:
        self.launch = launch  # kernel.launch.Launch: kernel name, block count, chip, task, observers
        self.kernel: str = launch.name
        self.idx = idx  # get_block_idx(): the block on an AIC, the logical AIV on a vector core
        self.aic = aic  # a cube core (ascend_is_aic())
        self.num: int = launch.blocks if aic else launch.core_num
        self.uid = idx if uid is None else uid  # distinct among all cores of the launch (observers' core id)
        self.group = idx if aic else idx // launch.mix  # the block: one AIC and its AIVs
        self.returned = False  # the body returned (or faulted): kernel/gang.py
        self.sync_epoch = 0
        self.clock: dict[int, int] = {}
        self.chip: ChipProfile = launch.chip
        self.pools: dict[str, Pool] = {}
        self.units: dict[type, Any] = {}

    def state(self, kind: type[T]) -> T:
        """The core's instance of a unit's state class `kind` (made with `kind()` on first use)."""
        s = self.units.get(kind)
        if s is None:
            s = self.units[kind] = kind()
        return s

    @property
    def name(self) -> str:
        """'core i of n', or 'AIC i of n' for the cube core of a mix launch's block."""
        return f"{'AIC' if self.aic and self.launch.aic_body else 'core'} {self.idx} of {self.num}"

    def pool(self, name: str) -> Pool:
        """Local memory `name` ("UB", "L1", "L0A", "L0B", "L0C", "BT"), made fresh on first use."""
        p = self.pools.get(name)
        if p is None:
            p = self.pools[name] = self.launch.fresh_pool(name)
            p.core = self
        return p

    def emit_gm(
        self, where: Any, lo: int, hi: int, write: bool, itemsize: int, api: str, offsets: Any = None,
        atomic: bool = False,
    ) -> None:
        """Tell observers (sanitizer) which GM bytes this core moved; only called when observed.

        `where`, lo, hi and offsets are as `GlobalTensor.region` returned them: an allocation and offsets
        from its start, or the door's Span over several allocations and offsets in its bytes; `atomic` a
        write that accumulates (set_atomic_add/max/min).
        """
        site = user_site()
        kw = {"core": self.uid, "line": site.lineno if site else None, "api": api,
              "atomic": atomic, "epoch": self.sync_epoch}
        gm = self.launch.gm
        if isinstance(where, Span):
            gm.emit_span(self.launch.task, where, write, lo - where.off, hi - where.off, itemsize,
                         offsets=None if offsets is None else offsets - where.off, **kw)
        else:
            gm.emit(self.launch.task, where, write, lo, hi, itemsize, offsets=offsets, **kw)



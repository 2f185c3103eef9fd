"""One AI Core while it runs one block of a kernel: its index, its local memories and its registers."""

from __future__ import annotations

from typing import Any

from aclsim.chips import ChipProfile
from aclsim.runtime import Site, user_site
from aclsim.runtime.gm import Span

from .pool import Pool


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
        self.pipe: Any = None  # memory.tpipe.TPipe
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



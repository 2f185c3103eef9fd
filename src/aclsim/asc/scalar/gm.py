"""The scalar unit's own GM accesses: reads and writes that bypass the data cache, scalar atomics, and the cache
and memory barriers around them.

- `ReadGmByPassDCache` / `WriteGmByPassDCache`: one element straight from / to GM (Ascend C scalar API).
- `AtomicAdd` / `AtomicMax` / `AtomicMin` / `AtomicExch` / `AtomicCas` on one GM element, returning the value it
  held (CANN `kernel_operator_atomic_intf.h`; the types of its dav_3510 implementation: Add takes int32,
  uint32, int64, uint64 and float; Max/Min the same; Exch and Cas uint32 and uint64). Integers wrap.
- `DataCacheCleanAndInvalid` / `DataSyncBarrier`: aclsim models no data cache and runs every access in program
  order, so scalar GM accesses are visible to every core as soon as they happen: these check their operands and
  have nothing more to do.
The accesses are reported to the sanitizer as the scalar unit's (atomics as atomic).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..memory.gm import GlobalTensor, polled
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import DataType
from ..types.enums import CacheLine, DcciDst, MemDsbT

ADD_TYPES = ("int32", "uint32", "int64", "uint64", "float32")
SWAP_TYPES = ("uint32", "uint64")


def _element(core: Any, g: GlobalTensor, api: str, write: bool, atomic: bool = False) -> np.ndarray:
    """A one-element view of `g`'s first element, its access reported."""
    if not isinstance(g, GlobalTensor):
        raise TypeError(f"{api}: the address must be a GM tensor, got {type(g).__name__}")
    dt: DataType = g.dtype
    buf, off, where = g.region(dt.itemsize, api)
    if core.launch.observe:
        core.emit_gm(where, off, off + dt.itemsize, write, dt.itemsize, api, atomic=atomic)
    if not write:
        polled(core, buf, off, dt.itemsize, api)
    return buf[off : off + dt.itemsize].view(dt.np)


def _typed(core: Any, g: GlobalTensor, api: str, types: tuple[str, ...]) -> np.ndarray:
    if not isinstance(g, GlobalTensor):
        raise TypeError(f"{api}: the address must be a GM tensor, got {type(g).__name__}")
    if g.dtype.name not in types:
        fail(api, f"takes {', '.join(types)}, got {g.dtype.name}")
    return _element(core, g, api, True, atomic=True)


@instruction("ReadGmByPassDCache", "", "scalar", "S", note="C++ only (pyasc 1.1.1 has no name for it)")
def read_gm_by_pass_dcache(core: Any, addr: GlobalTensor) -> Any:
    """The element at `addr`, read from GM (not through the data cache)."""
    return _element(core, addr, "ReadGmByPassDCache", False)[0]


@instruction("WriteGmByPassDCache", "", "scalar", "S", note="C++ only (pyasc 1.1.1 has no name for it)")
def write_gm_by_pass_dcache(core: Any, addr: GlobalTensor, value: Any) -> None:
    """Store `value` at `addr` in GM (not through the data cache)."""
    _element(core, addr, "WriteGmByPassDCache", True)[0] = value


def _update(core: Any, api: str, addr: GlobalTensor, types: tuple[str, ...], new: Any) -> Any:
    cell = _typed(core, addr, api, types)
    old = cell[0].copy()
    with np.errstate(over="ignore"):
        cell[0] = new(old)
    return old


@instruction("AtomicAdd", "", "scalar", "S", ADD_TYPES, note="C++ only; CANN implements it for Ascend 950")
def atomic_add(core: Any, addr: GlobalTensor, value: Any) -> Any:
    """*addr += value, atomically; the old value."""
    return _update(core, "AtomicAdd", addr, ADD_TYPES, lambda old: old + old.dtype.type(value))


@instruction("AtomicMax", "", "scalar", "S", ADD_TYPES, note="C++ only; CANN implements it for Ascend 950")
def atomic_max(core: Any, addr: GlobalTensor, value: Any) -> Any:
    """*addr = max(*addr, value), atomically; the old value."""
    return _update(core, "AtomicMax", addr, ADD_TYPES, lambda old: max(old, old.dtype.type(value)))


@instruction("AtomicMin", "", "scalar", "S", ADD_TYPES, note="C++ only; CANN implements it for Ascend 950")
def atomic_min(core: Any, addr: GlobalTensor, value: Any) -> Any:
    """*addr = min(*addr, value), atomically; the old value."""
    return _update(core, "AtomicMin", addr, ADD_TYPES, lambda old: min(old, old.dtype.type(value)))


@instruction("AtomicExch", "", "scalar", "S", SWAP_TYPES, note="C++ only; CANN implements it for Ascend 950")
def atomic_exch(core: Any, addr: GlobalTensor, value: Any) -> Any:
    """*addr = value, atomically; the old value."""
    return _update(core, "AtomicExch", addr, SWAP_TYPES, lambda old: old.dtype.type(value))


@instruction("AtomicCas", "", "scalar", "S", SWAP_TYPES, note="C++ only; CANN implements it for Ascend 950")
def atomic_cas(core: Any, addr: GlobalTensor, compare: Any, value: Any) -> Any:
    """*addr = value if *addr == compare, atomically; the old value."""
    return _update(core, "AtomicCas", addr, SWAP_TYPES,
                   lambda old: old.dtype.type(value) if old == old.dtype.type(compare) else old)


@instruction("DataCacheCleanAndInvalid", "data_cache_clean_and_invalid", "scalar",
             note="no data cache is modelled: checks its operands")
def data_cache_clean_and_invalid(core: Any, entire_type: int, dst: Any, dcci_dst: int | None = None) -> None:
    """Write back and drop the data cache's lines of `dst` (or all of it): nothing to do without a cache model."""
    api = "data_cache_clean_and_invalid"
    CacheLine(int(entire_type))
    if dcci_dst is not None:
        DcciDst(int(dcci_dst))
    if not isinstance(dst, GlobalTensor | LocalTensor):
        raise TypeError(f"asc.{api}: dst must be a GlobalTensor or LocalTensor, got {type(dst).__name__}")
    if isinstance(dst, GlobalTensor) and int(entire_type) == CacheLine.SINGLE_CACHE_LINE:
        dst.region(dst.dtype.itemsize, api)  # the line's address must be device memory


@instruction("DataSyncBarrier", "data_sync_barrier", "scalar", note="program order: checks its operand")
def data_sync_barrier(core: Any, arg0: int) -> None:
    """Wait until the core's earlier memory accesses of kind `arg0` (MemDsbT) completed: they have, here."""
    MemDsbT(int(arg0))

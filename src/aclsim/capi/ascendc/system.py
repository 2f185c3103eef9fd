"""Handlers of the system, scalar, debugging and synchronisation calls of kernel_operator.h (ASCEND_IS_AIC,
printf, DumpTensor, assert, SetFlag/WaitFlag, PipeBarrier, SyncAll, cross-core flags)."""

from __future__ import annotations

import ctypes
from typing import Any

from ...asc.engine import TABLE
from ...asc.faults import fail
from ...asc.memory.gm import GlobalTensor
from ...asc.memory.local import LocalTensor
from .operands import DTYPES, from_bits, gm, local, to_bits
from .ops import handles


def text(ptr: int) -> str:
    """The NUL-terminated string at address `ptr` (the program's own memory)."""
    return ctypes.string_at(ptr).decode(errors="replace") if ptr else ""


def signed(n: int, bits: int = 64) -> int:
    """A word as the signed integer it was in C."""
    return n - ((n >> (bits - 1)) << bits)


def _plain(key: str) -> Any:
    run = TABLE[key].run

    def handler(core: Any, *words: Any) -> Any:
        return run(core)

    return handler


handles("IsAic")(_plain("ASCEND_IS_AIC"))
for _op in ("VfCall", "GetReduceRepeatSumSpr", "GetReduceRepeatMaxMinSpr", "GetSystemCycle", "InitSocState", "Trap",
            "ResetMask", "SetMaskCount", "SetMaskNorm", "SetAtomicNone", "GetMrgSortResult", "GetGatherMaskRemainCount",
            "SetNextTaskStart", "WaitPreTaskEnd"):
    handles(_op)(_plain(_op))


@handles("Print")
def _print(core: Any, ptr: int, *words: Any) -> None:
    """printf: the text is formatted by the C++ side (C's own rules), printed by the engine."""
    TABLE["PRINTF"].run(core, text(ptr))


@handles("AssertFailed")
def _assert(core: Any, what: int, msg: int, *words: Any) -> None:
    """assert(expr[, fmt, ...]) whose expression is false: the message is printed and the core stops."""
    said = text(msg)
    fail("assert", f"assertion failed: {text(what)}" + (f": {said}" if said else ""))


@handles("DumpLocal")
def _dump_local(core: Any, w: int, desc: int, count: int, *words: Any) -> None:
    TABLE["DumpTensor"].run(core, local(core, w), desc, count)


@handles("DumpGlobal")
def _dump_global(core: Any, w: int, desc: int, count: int, *words: Any) -> None:
    TABLE["DumpTensor"].run(core, gm(core, w), desc, count)


@handles("DumpAddress")
def _dump_address(core: Any, addr: int, code: int, desc: int, count: int, *words: Any) -> None:
    """asc_dump_*: the address is in one of the core's local memories (the pool's real bytes) or in GM."""
    dt = DTYPES[code]
    for pool in core.pools.values():
        base = pool.bytes.ctypes.data
        if base <= addr < base + pool.size:
            t = LocalTensor.at(core, pool.name, addr - base, dt, max(1, (base + pool.size - addr) // dt.itemsize))
            TABLE["DumpTensor"].run(core, t, desc, count)
            return
    TABLE["DumpTensor"].run(core, GlobalTensor.at(core, addr, dt, count), desc, count)


@handles("PrintTimeStamp")
def _time_stamp(core: Any, desc: int, *words: Any) -> None:
    TABLE["PrintTimeStamp"].run(core, desc)


@handles("ScalarCast")
def _scalar_cast(core: Any, spec: int, bits: int, *rest: Any) -> float:
    """ScalarCast<float, U, roundMode>(value) (real entry): `spec` = U's aclDataType | roundMode << 8, `bits` the
    float's bits."""
    value = ctypes.c_float.from_buffer_copy((bits & 0xFFFFFFFF).to_bytes(4, "little")).value
    return float(TABLE["ScalarCast"].run(core, value, DTYPES[spec & 0xFF], spec >> 8))


@handles("ScalarCountLeadingZero")
def _clz(core: Any, value: int, *words: Any) -> int:
    return TABLE["ScalarCountLeadingZero"].run(core, value)


@handles("ScalarGetCountOfValue")
def _count_of(core: Any, value: int, bit: int, *words: Any) -> int:
    return TABLE["ScalarGetCountOfValue"].run(core, value, bit)


@handles("ScalarGetSFFValue")
def _sff(core: Any, value: int, bit: int, *words: Any) -> int:
    return TABLE["ScalarGetSFFValue"].run(core, value, bit)


@handles("CountBitsCntSameAsSignBit")
def _sign_bits(core: Any, value: int, *words: Any) -> int:
    return TABLE["CountBitsCntSameAsSignBit"].run(core, signed(value))


@handles("NotEmulated")
def _not_emulated(core: Any, name: int, why: int, *words: Any) -> None:
    """An API kernel_operator.h declares that aclsim does not emulate: the call faults and says so."""
    reason = text(why)
    fail(text(name), "not emulated by aclsim" + (f": {reason}" if reason else ""))


# ------------------------------------------------------------------------------------------ synchronisation
@handles("SetFlag")
def _set_flag(core: Any, event: int, event_id: int, *words: Any) -> None:
    TABLE["SetFlag"].run(core, event, event_id)


@handles("WaitFlag")
def _wait_flag(core: Any, event: int, event_id: int, *words: Any) -> None:
    TABLE["WaitFlag"].run(core, event, event_id)


@handles("PipeBarrier")
def _barrier(core: Any, pipe: int, *words: Any) -> None:
    TABLE["PipeBarrier"].run(core, pipe)


@handles("SyncAll")
def _sync_all(core: Any, gm_w: int, ub_w: int, used: int, aiv_only: int, *words: Any) -> None:
    """SyncAll<isAIVOnly>() (hard) or SyncAll(gmWorkspace, ubWorkspace, usedCores) (soft)."""
    TABLE["SyncAll"].run(core, gm(core, gm_w) if gm_w else None, local(core, ub_w) if ub_w else None, used,
                         bool(aiv_only))


@handles("IBSet")
def _ib_set(core: Any, gm_w: int, ub_w: int, block: int, event: int, aiv_only: int, *words: Any) -> None:
    TABLE["IBSet"].run(core, gm(core, gm_w), local(core, ub_w), signed(block), signed(event), bool(aiv_only))


@handles("IBWait")
def _ib_wait(core: Any, gm_w: int, ub_w: int, block: int, event: int, aiv_only: int, *words: Any) -> None:
    TABLE["IBWait"].run(core, gm(core, gm_w), local(core, ub_w), signed(block), signed(event), bool(aiv_only))


_ORDER = ("InitDetermineComputeWorkspace", "WaitPreBlock", "NotifyNextBlock")


@handles("BlockOrder")
def _block_order(core: Any, gm_w: int, ub_w: int, which: int, *words: Any) -> None:
    """InitDetermineComputeWorkspace (0), WaitPreBlock (1), NotifyNextBlock (2)."""
    TABLE[_ORDER[which]].run(core, gm(core, gm_w), local(core, ub_w))


_SCALAR_GM = ("ReadGmByPassDCache", "WriteGmByPassDCache", "AtomicAdd", "AtomicMax", "AtomicMin", "AtomicExch",
              "AtomicCas")


@handles("ScalarGm")
def _scalar_gm(core: Any, addr: int, code: int, what: int, v1: int, v2: int, *words: Any) -> int:
    """The scalar unit's GM accesses (detail::scalar_gm): one element at `addr`; values and result as bits."""
    g = GlobalTensor.at(core, addr, code, 1)
    run = TABLE[_SCALAR_GM[what]].run
    args = [from_bits(v, code) for v in (v1, v2)[: 0 if what == 0 else 2 if what == 6 else 1]]
    out = run(core, g, *args)
    return 0 if out is None else to_bits(out, code)


@handles("DataSyncBarrier")
def _dsb(core: Any, arg: int, *words: Any) -> None:
    TABLE["DataSyncBarrier"].run(core, arg)


@handles("DataCacheClean")
def _dcci(core: Any, entire: int, w: int, dst: int, form: int, *words: Any) -> None:
    """DataCacheCleanAndInvalid: form bit 0: dcciDst given, bit 1: a LocalTensor."""
    t = local(core, w) if form & 2 else gm(core, w)
    TABLE["DataCacheCleanAndInvalid"].run(core, entire, t, dst if form & 1 else None)


@handles("CrossCoreSetFlag")
def _cc_set(core: Any, flag: int, mode: int, pipe: int, *words: Any) -> None:
    TABLE["CrossCoreSetFlag"].run(core, flag, mode, pipe)


@handles("CrossCoreWaitFlag")
def _cc_wait(core: Any, flag: int, mode: int, pipe: int, *words: Any) -> None:
    TABLE["CrossCoreWaitFlag"].run(core, flag, mode, pipe)

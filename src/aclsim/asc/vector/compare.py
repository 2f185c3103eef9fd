"""`compare`, `compare_scalar` and `select` (count and mask/repeat forms; pyasc `basic/vec_cmpsel.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..aicore.core import Register
from ..faults import fail
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.enums import CMPMODE, SelMode
from . import masked
from .elementwise import ARITH, FLOAT, check_types, count_of, flexible, scalar_value
from .lanes import gather, mark, read_lanes
from .repeat import Repeat

_CMP = {CMPMODE.LT: np.less, CMPMODE.GT: np.greater, CMPMODE.EQ: np.equal, CMPMODE.LE: np.less_equal,
        CMPMODE.GE: np.greater_equal, CMPMODE.NE: np.not_equal}


def _compare(core: Any, api: str, dst: LocalTensor, srcs: tuple[LocalTensor, ...], cmp_mode: int, n: int | Repeat,
             fn: Callable) -> None:
    """Both forms of compare/compare_scalar (CANN `kernel_operator_vec_cmp_impl.h`, dav_c220): int32 compares
    for EQ only; the count form compares whole 256-byte repeats, so the count must fill them."""
    mode = CMPMODE(cmp_mode)
    dt = srcs[0].dtype
    if dt.name == "int32" and mode != CMPMODE.EQ:
        fail(api, f"int32 operands compare with CMPMODE.EQ only, got CMPMODE.{mode.name}")
    if dst.dtype.itemsize != 1:
        fail(api, f"dst must be uint8/int8 (one bit per element), got {dst.dtype.name}")
    if type(n) is Repeat:
        masked.compare(core, api, dst, srcs, n, fn)
        return
    if n * dt.itemsize % 256:
        fail(api, f"{n} x {dt.name} = {n * dt.itemsize} bytes is not a multiple of 256: the count form compares "
                  "whole repeats of 256 bytes and would leave the tail uncompared")
    packed = np.packbits(fn(*[t.read(n, api) for t in srcs]), bitorder="little")
    dst.write(packed.size, api)[...] = packed.view(dst.dtype.np)


@instruction("Compare", "compare", "vector", "V", ARITH,
             note="count and mask/repeat forms into dst (the cmpMask-register form is not emulated)")
def compare(core: Any, dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, cmp_mode: int, n: int | Repeat) -> None:
    """Bit i of dst (LSB first) = src0[i] <cmp_mode> src1[i]."""
    api = "compare"
    if type(n) is not Repeat and not count_of(api, n):
        return
    check_types(core, api, ARITH, src0.dtype, src1)
    _compare(core, api, dst, (src0, src1), cmp_mode, n, _CMP[CMPMODE(cmp_mode)])


class CmpMask(Register):
    """The CMPMASK register of a core: 16 bytes (128 bits) a register-form compare writes, get_cmp_mask reads and
    set_cmp_mask loads."""


@instruction("Compare(cmpMask)", "compare", "vector", "V", ARITH,
             note="the register form: one repeat's bits into the CMPMASK register")
def compare_to_mask(core: Any, src0: LocalTensor, src1: LocalTensor, cmp_mode: int, rep: Repeat) -> None:
    """Bit i of the CMPMASK register = lane i of src0 <cmp_mode> lane i of src1, for one repeat (CANN Compare
    page: the form without dst compares one repeat; CANN's A2 Compare ignores the mask, see masked.py)."""
    api = "compare"
    mode = CMPMODE(cmp_mode)
    dt = src0.dtype
    check_types(core, api, ARITH, dt, src1)
    if dt.name == "int32" and mode != CMPMODE.EQ:
        fail(api, f"int32 operands compare with CMPMODE.EQ only, got CMPMODE.{mode.name}")
    on = np.ones((1, 256 // dt.itemsize), bool)
    (b0, r0), (b1, r1) = rep.strides[1:]
    bits = _CMP[mode](read_lanes(api, src0, on, b0, r0), read_lanes(api, src1, on, b1, r1))
    core.state(CmpMask).value = np.packbits(bits, bitorder="little").tobytes().ljust(16, b"\0")


@instruction("GetCmpMask", "get_cmp_mask", "vector", "V")
def get_cmp_mask(core: Any, dst: LocalTensor) -> None:
    """The CMPMASK register's 16 bytes into dst (written by a register-form compare or set_cmp_mask)."""
    api = "get_cmp_mask"
    value = core.state(CmpMask).value
    if value is None:
        fail(api, "the CMPMASK register was never written: compare(src0, src1, cmp_mode, mask, repeat_params) or "
                  "set_cmp_mask first")
    raw = dst.reinterpret_cast(np.uint8)
    idx = np.arange(16)
    mark(raw, idx, api)
    raw.arr[idx] = np.frombuffer(value, np.uint8)


@instruction("SetCmpMask", "set_cmp_mask", "vector", "V")
def set_cmp_mask(core: Any, src: LocalTensor) -> None:
    """Load the CMPMASK register from the first 16 bytes of src."""
    core.state(CmpMask).value = gather(src.reinterpret_cast(np.uint8), np.arange(16), "set_cmp_mask").tobytes()


_SWAPPED = {CMPMODE.LT: CMPMODE.GT, CMPMODE.GT: CMPMODE.LT, CMPMODE.LE: CMPMODE.GE, CMPMODE.GE: CMPMODE.LE,
            CMPMODE.EQ: CMPMODE.EQ, CMPMODE.NE: CMPMODE.NE}


@instruction("CompareScalar", "compare_scalar", "vector", "V", ARITH)
def compare_scalar(core: Any, dst: LocalTensor, src0: LocalTensor, scalar: Any, cmp_mode: int, n: int | Repeat,
                   scalar_first: bool = False) -> None:
    """Bit i of dst = src0[i] <cmp_mode> scalar (`scalar <cmp_mode> src0[i]` when `scalar_first`, the flexible
    scalar position of CANN's Compares on Ascend 950; `scalar` may be a LocalTensor's first element there)."""
    api = "compare_scalar"
    if type(n) is not Repeat and not count_of(api, n):
        return
    check_types(core, api, ARITH, src0.dtype)
    flexible(core, api, scalar_first, scalar)
    mode = CMPMODE(cmp_mode)
    if scalar_first:  # s < x is x > s: the same instruction with the mode mirrored
        mode = _SWAPPED[mode]
    fn, value = _CMP[mode], scalar_value(api, scalar, src0.dtype)
    _compare(core, api, dst, (src0,), mode, n, lambda x: fn(x, value))


@instruction("Select", "select", "vector", "V", FLOAT,
             note="count and mask/repeat forms with a sel_mask tensor (the cmpMask-register form is not emulated)")
def select(core: Any, dst: LocalTensor, sel_mask: LocalTensor, src0: Any, src1: Any, sel_mode: int,
           n: int | Repeat, scalar_first: bool = False) -> None:
    """dst[i] = src0[i] where bit i of sel_mask is 1, else src1[i] (or the scalar src1 in
    VSEL_TENSOR_SCALAR_MODE; the scalar src0 there when `scalar_first`, the flexible scalar position of Ascend 950,
    where the scalar may be a LocalTensor's first element); VSEL_CMPMASK_SPR reuses one repeat's bits."""
    api = "select"
    if type(n) is not Repeat and not count_of(api, n):
        return
    mode = SelMode(sel_mode)
    dt = dst.dtype
    if mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
        flexible(core, api, scalar_first, src0 if scalar_first else src1)
        if scalar_first:
            check_types(core, api, FLOAT, dt, src1)
            src0 = scalar_value(api, src0, dt)
        else:
            check_types(core, api, FLOAT, dt, src0)
            src1 = scalar_value(api, src1, dt)
    else:
        check_types(core, api, FLOAT, dt, src0, src1)
    if type(n) is Repeat:
        masked.select(core, api, dst, sel_mask, src0, src1, mode, n)
        return
    count = n
    other = src1.read(count, api) if isinstance(src1, LocalTensor) else src1
    # VSEL_CMPMASK_SPR: one repeat's bits (the cmpMask register), again in every repeat (masked.py)
    lanes = 256 // dt.itemsize
    nbits = lanes if mode == SelMode.VSEL_CMPMASK_SPR and count > lanes else count
    raw = sel_mask.reinterpret_cast(np.uint8).read(-(-nbits // 8), api)
    bits = np.resize(np.unpackbits(raw, count=nbits, bitorder="little").astype(bool), count)
    a = src0.read(count, api) if isinstance(src0, LocalTensor) else src0
    np.copyto(dst.write(count, api), np.where(bits, a, other))

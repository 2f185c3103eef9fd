"""Mask/repeat forms of the instructions whose operands differ in width: `cast`, `compare`,
`compare_scalar` and `select` (their count forms are in vector.py).

- cast: "当源操作数和目的操作数位数不同时，计算输入参数以数据类型的字节较大的为准" (pyasc `cast.md`): a
  repeat covers 256 bytes of the wider type; each operand's blocks hold 32 bytes of its own type and
  follow its own strides of the UnaryRepeatParams.
- compare / compare_scalar: repeat r's lanes are compared and the results stored as bits, LSB first
  ("dst按照小端顺序排序成二进制结果", `compare.md`), bit r * lanes + i for lane i, one repeat's bits after
  the other's (the dst strides of the repeat parameters do not apply to a bit result: inference).
  Lanes the mask leaves out get bit 0 (inference: the bits are stored in whole bytes).
- select: modes VSEL_TENSOR_TENSOR_MODE and VSEL_TENSOR_SCALAR_MODE consume sel_mask's bits
  continuously (bit r * lanes + i); VSEL_CMPMASK_SPR takes one repeat's worth of bits and reuses them
  in every repeat ("selMask中有效数据的个数存在限制", `select.md`; reuse is the inference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .dtypes import uint8
from .enums import SelMode
from .repeat import Repeat, gather, lane_grid, read_lanes, write_lanes
from .tensors import LocalTensor


def cast(api: str, dst: LocalTensor, src: LocalTensor, rep: Repeat, convert: Callable[[np.ndarray], np.ndarray]
         ) -> None:
    """dst lanes = convert(src lanes) over the lanes the call enables."""
    on = lane_grid(api, rep, max(src.dtype.itemsize, dst.dtype.itemsize))
    if not on.any():
        return
    (db, dr), (sb, sr) = rep.strides
    write_lanes(api, dst, on, db, dr, convert(read_lanes(api, src, on, sb, sr)))


def compare(api: str, srcs: Sequence[LocalTensor], rep: Repeat, predicate: Callable[..., np.ndarray]) -> np.ndarray:
    """The result bits (one per lane, repeat after repeat; 0 where the mask leaves a lane out)."""
    on = lane_grid(api, rep, srcs[0].dtype.itemsize)
    bits = np.zeros(on.shape, bool)
    if on.any():
        bits[on] = predicate(*[read_lanes(api, t, on, *s) for t, s in zip(srcs, rep.strides[1:], strict=True)])
    return bits.ravel()


def select(api: str, dst: LocalTensor, sel_mask: LocalTensor, src0: LocalTensor, src1: Any, mode: SelMode,
           rep: Repeat) -> None:
    """dst lane = src0 lane where its sel_mask bit is 1, else the src1 lane (or the scalar src1)."""
    isz = dst.dtype.itemsize
    on = lane_grid(api, rep, isz)
    if not on.any():
        return
    repeats, lanes = on.shape
    nbits = lanes if mode == SelMode.VSEL_CMPMASK_SPR else repeats * lanes
    raw = gather(sel_mask.reinterpret_cast(uint8), np.arange(-(-nbits // 8)), api)
    pick = np.unpackbits(raw, count=nbits, bitorder="little").astype(bool)
    pick = np.broadcast_to(pick, on.shape) if mode == SelMode.VSEL_CMPMASK_SPR else pick.reshape(on.shape)
    d, s0, s1 = rep.strides
    a = read_lanes(api, src0, on, *s0)
    b = read_lanes(api, src1, on, *s1) if isinstance(src1, LocalTensor) else dst.dtype.np.type(src1)
    write_lanes(api, dst, on, *d, np.where(pick[on], a, b))

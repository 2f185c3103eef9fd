"""Mask/repeat forms of the instructions whose operands differ in width: `cast`, `compare`,
`compare_scalar` and `select` (their count forms are in cast.py and compare.py).

- cast: "当源操作数和目的操作数位数不同时，计算输入参数以数据类型的字节较大的为准" (pyasc `cast.md`): a
  repeat covers 256 bytes of the wider type; each operand's blocks hold 32 bytes of its own type and
  follow its own strides of the UnaryRepeatParams.
- compare / compare_scalar: the results are bits, LSB first ("dst按照小端顺序排序成二进制结果", `compare.md`).
  CANN's A2 implementation (`impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h`) ignores the mask
  argument, so every lane of every repeat is compared; a source block's bits (16 for 16-bit data, 8 for
  32-bit) land at the dst position the block would have in a dst of the source type, so the default
  strides (1, 8) pack the repeats back to back, as the count form's repeat loop there assumes.
- select: modes VSEL_TENSOR_TENSOR_MODE and VSEL_TENSOR_SCALAR_MODE consume sel_mask's bits
  continuously (bit r * lanes + i, inference); VSEL_CMPMASK_SPR loads one repeat's worth of bits into the
  cmpMask register (`set_cmpmask(sel)` in CANN's `kernel_operator_vec_cmpsel_impl.h`) and every repeat
  reads them again ("selMask中有效数据的个数存在限制", `select.md`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..memory.local import LocalTensor
from ..types.dtypes import uint8
from ..types.enums import SelMode
from .lanes import gather, mark, read_lanes, write_lanes
from .repeat import BLOCK, Repeat, lane_grid


def cast(core: Any, api: str, dst: LocalTensor, src: LocalTensor, rep: Repeat, convert: Callable[[np.ndarray], np.ndarray]
         ) -> None:
    """dst lanes = convert(src lanes) over the lanes the call enables."""
    on = lane_grid(core, api, rep, max(src.dtype.itemsize, dst.dtype.itemsize))
    if not on.any():
        return
    (db, dr), (sb, sr) = rep.strides
    write_lanes(api, dst, on, db, dr, convert(read_lanes(api, src, on, sb, sr)))


def compare(core: Any, api: str, dst: LocalTensor, srcs: Sequence[LocalTensor], rep: Repeat,
            predicate: Callable[..., np.ndarray]) -> None:
    """Every lane of every repeat compared (CANN's A2 Compare ignores the mask argument); the bits of source
    block b of repeat r are bytes `(r * dst_rep_stride + b * dst_blk_stride) * epb / 8` of dst."""
    if not rep.times:
        return
    epb = BLOCK // srcs[0].dtype.itemsize
    on = np.ones((rep.times, 8 * epb), bool)
    bits = predicate(*[read_lanes(api, t, on, *s) for t, s in zip(srcs, rep.strides[1:], strict=True)])
    packed = np.packbits(bits.reshape(rep.times, 8, epb), axis=-1, bitorder="little")  # epb / 8 bytes a block
    blk, stride = rep.strides[0]
    per = epb // 8
    at = np.arange(rep.times)[:, None] * stride + np.arange(8) * blk
    idx = (at[..., None] * per + np.arange(per)).ravel()
    mark(dst, idx, api)
    dst.arr[idx] = packed.ravel().view(dst.dtype.np)


def select(core: Any, api: str, dst: LocalTensor, sel_mask: LocalTensor, src0: Any, src1: Any, mode: SelMode,
           rep: Repeat) -> None:
    """dst lane = src0 lane where its sel_mask bit is 1, else the src1 lane (or the scalar src1)."""
    isz = dst.dtype.itemsize
    on = lane_grid(core, api, rep, isz)
    if not on.any():
        return
    repeats, lanes = on.shape
    nbits = lanes if mode == SelMode.VSEL_CMPMASK_SPR else repeats * lanes
    raw = gather(sel_mask.reinterpret_cast(uint8), np.arange(-(-nbits // 8)), api)
    pick = np.unpackbits(raw, count=nbits, bitorder="little").astype(bool)
    pick = np.broadcast_to(pick, on.shape) if mode == SelMode.VSEL_CMPMASK_SPR else pick.reshape(on.shape)
    d, s0, s1 = rep.strides
    # a scalar operand (src1, or src0 in the flexible position) arrives as a value of dst's type (compare.select)
    a = read_lanes(api, src0, on, *s0) if isinstance(src0, LocalTensor) else src0
    b = read_lanes(api, src1, on, *s1) if isinstance(src1, LocalTensor) else src1
    write_lanes(api, dst, on, *d, np.where(pick[on], a, b))

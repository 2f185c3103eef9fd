"""`bilinear_interpolation`: gather 32-byte blocks by offset, scale them, accumulate them into dst.

Semantics from the Ascend C API reference (BilinearInterpolation) and pyasc's
`asc.language.basic.bilinear_interpolation.md`: vertical iteration v runs `h_repeat` horizontal
iterations k = v * h_repeat + h. Iteration k reads 8 uint32 byte offsets `src0_offset[8k .. 8k+7]`,
each the start of a 32-byte block of src0 (16 float16 values), multiplies block b by `src1[k]`
(repeat_mode False) or `src1[8k + b]` (repeat_mode True), and writes the 8 blocks to dst (h = 0) or
adds them to it (h > 0), block b at `b * dst_blk_stride` blocks from the vertical iteration's start,
which is `v * v_r_offset` elements from dst. The mask selects lanes of the 128 (8 blocks x 16);
lanes it leaves out are not written. Products and sums round to float16 at every step, as the
vector unit computes in the operand type. Offsets must be 32-byte multiples: each names a data block;
v_r_offset must be a whole number of blocks (CANN's A2 BilinearInterpolationCalc,
`impl/basic_api/dav_c220/kernel_operator_vec_bilinearinterpolation_impl.h`, divides it into blocks).
That implementation also uses shared_tmp_buffer for h_repeat * v_repeat * 256 bytes of gathered blocks
plus 32 bytes per src1 element; aclsim needs no scratch and checks only that the buffer is live.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import float16, uint8, uint32
from .gather import gather_blocks
from .lanes import gather, mark
from .mask import MaskRegister, lane_flags, normal_bits

EPB = 16  # float16 elements per 32-byte block


@instruction("BilinearInterpolation", "bilinear_interpolation", "vector", "V", ("float16",))
def bilinear_interpolation(core: Any, dst: LocalTensor, src0: LocalTensor, src0_offset: LocalTensor, src1: LocalTensor,
                           mask: Any, h_repeat: int, repeat_mode: bool, dst_blk_stride: int, v_r_offset: int,
                           v_repeat: int, shared_tmp_buffer: LocalTensor) -> None:
    """dst (per vertical iteration) = sum over horizontal iterations of 8 gathered src0 blocks times src1."""
    api = "bilinear_interpolation"
    for name, t, want in (("dst", dst, float16), ("src0", src0, float16), ("src1", src1, float16),
                          ("src0_offset", src0_offset, uint32), ("shared_tmp_buffer", shared_tmp_buffer, uint8)):
        if not isinstance(t, LocalTensor):
            raise TypeError(f"asc.{api}: {name} must be a LocalTensor, got {type(t).__name__}")
        if t.dtype is not want:
            fail(api, f"{name} must be {want.name} on this chip, got {t.dtype.name}")
    h, v, blk, vro = int(h_repeat), int(v_repeat), int(dst_blk_stride), int(v_r_offset)
    for name, value, top in (("h_repeat", h, 255), ("v_repeat", v, 255), ("dst_blk_stride", blk, 0xFFFF),
                             ("v_r_offset", vro, 0xFFFF)):
        if not 0 <= value <= top:
            fail(api, f"{name} must be in 0..{top}, got {value}")
    if vro % EPB:  # CANN's A2 implementation turns it into a repeat stride of vROffset * 2 / 32 blocks
        fail(api, f"v_r_offset = {vro} elements is not a multiple of 16 (one 32-byte block of float16)")
    reg = core.state(MaskRegister)
    bits = reg.bits = normal_bits(api, mask, 2)
    shared_tmp_buffer.span(1, api)  # scratch: live and aligned; its contents do not matter
    if h == 0 or v == 0:
        return
    k = v * h
    x = gather_blocks(api, src0, src0_offset, 8 * k).reshape(v, h, 8, EPB)
    w = gather(src1, np.arange(8 * k if repeat_mode else k), api)
    w = w.reshape(v, h, 8, 1) if repeat_mode else w.reshape(v, h, 1, 1)
    prod = x * w  # float16, rounded as the hardware rounds each product
    acc = prod[:, 0].copy()
    for i in range(1, h):
        acc += prod[:, i]
    on = lane_flags(bits, 128).reshape(8, EPB)
    lanes = (np.arange(8)[:, None] * (blk * EPB) + np.arange(EPB))[on]
    d_idx = (np.arange(v)[:, None] * vro + lanes[None, :]).ravel()
    mark(dst, d_idx, api)
    dst.arr[d_idx] = acc[:, on].ravel()

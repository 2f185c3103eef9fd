"""`asc.adv.rmsnorm` (Ascend C RmsNorm) and its tiling struct `asc.adv.RmsNormTiling`.

pyasc 1.1.1 form: `rmsnorm(dst, src, gamma, epsilon, tiling, temp_buffer=None, basic_block=False)`.
The source is [B, S, H] with B, S, H from the tiling (`b_length`, `s_length`, `h_length`; H is
32-byte aligned, padded from `original_h_length`): per row, dst = src / sqrt(sum(src**2) *
reciprocal_of_h_length + epsilon) * gamma, computed in float (Ascend C RmsNorm page, 高阶API/归一化操作).
Padding columns take part in the sum, as on the device. The temporary buffer holds at least
GetRmsNormMinTmpSize ((H, twice for half, + 8) floats). pyasc has no host helper for this tiling, so
the kernel fills it; an empty tiling would make the device divide by sqrt(epsilon) silently, so it is
refused here instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..types.struct import Field, Struct
from .operands import check_temp, disjoint, of_types, same_type, tensor


class RmsNormTiling(Struct):
    """RmsNormTiling (pyasc `adv/tiling.py`): the [B, S, H] shape and how the host split it."""

    b_length = Field(np.int32, 0)
    s_length = Field(np.int32, 0)
    h_length = Field(np.int32, 0)
    original_h_length = Field(np.int32, 0)
    reciprocal_of_h_length = Field(np.float32, 0.0)
    main_bsh_length = Field(np.int32, 0)
    main_bs_length = Field(np.int32, 0)
    main_bs_length_align = Field(np.int32, 0)
    loop_round = Field(np.int32, 0)
    input_tail_pos = Field(np.int32, 0)
    tail_bsh_length = Field(np.int32, 0)
    tail_bs_length = Field(np.int32, 0)


def rmsnorm(dst: Any, src: Any, gamma: Any, epsilon: float, tiling: RmsNormTiling, temp_buffer: Any = None,
            basic_block: bool = False) -> None:
    """dst[r, :] = src[r, :] / sqrt(mean_H(src[r, :]**2) + epsilon) * gamma for every row r of [B*S, H]."""
    api = "adv.rmsnorm"
    dst, src, gamma = tensor(api, "dst", dst), tensor(api, "src", src), tensor(api, "gamma", gamma)
    if not isinstance(tiling, RmsNormTiling):
        raise TypeError(f"asc.adv.rmsnorm: tiling must be an asc.adv.RmsNormTiling, got {type(tiling).__name__}")
    same_type(api, dst, src, gamma)
    of_types(api, src, ("float16", "float32"))
    rows, h = int(tiling.b_length) * int(tiling.s_length), int(tiling.h_length)
    recip = float(tiling.reciprocal_of_h_length)
    if rows <= 0 or h <= 0 or recip <= 0:
        fail(api, f"the tiling has no shape (b_length {tiling.b_length}, s_length {tiling.s_length}, h_length "
                  f"{tiling.h_length}, reciprocal_of_h_length {recip}): fill them (reciprocal_of_h_length = "
                  "1 / original_h_length) as Ascend C's GetRmsNormTilingInfo does")
    if (h * src.dtype.itemsize) % 32:
        fail(api, f"h_length ({h} x {src.dtype.name}) must be a multiple of 32 bytes (pad H, keep "
                  "original_h_length the real length)")
    if basic_block and not (h % 64 == 0 and h < 2048 and rows % 8 == 0):
        fail(api, f"basic_block=True needs H a multiple of 64 below 2048 and B*S a multiple of 8, got [{rows}, {h}]")
    n = rows * h
    for t, c in ((dst, n), (src, n), (gamma, h)):
        t.bounds(c, api)
    disjoint(api, dst, h, gamma)  # "dstLocal和gammaLocal的Tensor空间不允许复用"
    if dst.lo != src.lo or dst.buf.pool is not src.buf.pool:  # dst may be src itself, not part of it
        disjoint(api, dst, n, src)
    need = (h * (2 if src.dtype.itemsize == 2 else 1) + 8) * 4  # GetRmsNormMinTmpSize (rmsnorm_tiling_impl.cpp)
    check_temp(api, temp_buffer, need, *((t, c * t.dtype.itemsize) for t, c in ((dst, n), (src, n), (gamma, h))))
    x = src.read(n, api).astype(np.float32).reshape(rows, h)
    g = gamma.read(h, api).astype(np.float32)
    eps = np.float32(src.dtype.np.type(epsilon))  # epsilon has the source's type
    scale = np.float32(1) / np.sqrt(np.square(x).sum(axis=1, keepdims=True, dtype=np.float32) * np.float32(recip) + eps)
    dst.write(n, api)[...] = (x * scale * g).ravel()

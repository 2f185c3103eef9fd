"""`asc.adv.softmax` (Ascend C SoftMax, ND) and its tiling struct `asc.adv.SoftmaxTiling`.

pyasc 1.1.1 form: `softmax(dst, sum, max, src, tiling, temp_buffer=None, reuse_source=False,
basic_block=False, data_format_nz=False)`. pyasc passes no SoftMaxShapeInfo, so, as Ascend C does
for an empty one, the shape is the source's ShapeInfo (`src.set_shape_info(...)`): the last dimension
is k (32-byte aligned), the others multiply to m. Per row: max = rowmax(src), sum = rowsum(e**(src - max)),
dst = e**(src - max) / sum, computed in float. `sum` and `max` hold each row's value repeated over one
32-byte block (8 floats or 16 halves); they are float for a half source or the source's type.
The temporary buffer holds at least GetSoftMaxMinTmpSize ((32 / sizeof(T) + k + 64) floats on
Atlas A2/A3). The tiling only splits the work: SoftmaxConfig's default `isCheckTiling` makes the API recompute it
when it does not fit the shape, so any SoftmaxTiling (even an empty one) gives the same result.
Sources: Ascend C SoftMax page (asc-devkit docs, 高阶API/激活函数/SoftMax接口/SoftMax.md).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..faults import fail, not_emulated
from ..memory.local import LocalTensor
from ..types.struct import Field, Struct
from .operands import apart, check_temp, disjoint, of_types, tensor

BLOCK = 32


class SoftmaxTiling(Struct):
    """SoftMaxTiling (int32 fields, pyasc `adv/tiling.py`): how the host split the [m, k] source."""

    src_m = Field(np.int32, 0)
    src_k = Field(np.int32, 0)
    src_size = Field(np.int32, 0)
    out_max_m = Field(np.int32, 0)
    out_max_k = Field(np.int32, 0)
    out_max_size = Field(np.int32, 0)
    split_m = Field(np.int32, 0)
    split_k = Field(np.int32, 0)
    split_size = Field(np.int32, 0)
    reduce_m = Field(np.int32, 0)
    reduce_k = Field(np.int32, 0)
    reduce_size = Field(np.int32, 0)
    range_m = Field(np.int32, 0)
    tail_m = Field(np.int32, 0)
    tail_split_size = Field(np.int32, 0)
    tail_reduce_size = Field(np.int32, 0)


def rows(api: str, src: LocalTensor) -> tuple[int, int]:
    """(m, k) of the source from its ShapeInfo: k the last dimension, m the product of the others."""
    dims = src.get_shape_info().dims
    if not dims:
        fail(api, "the source has no shape: call src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (m, k)))) "
                  "first (pyasc passes no SoftMaxShapeInfo, so the API reads the source tensor's ShapeInfo)")
    k, m = dims[-1], math.prod(dims[:-1])
    if (k * src.dtype.itemsize) % BLOCK:
        fail(api, f"the last dimension ({k} x {src.dtype.name}) must be a multiple of 32 bytes")
    return m, k


def _basic_block(api: str, m: int, k: int, itemsize: int) -> None:
    """basic_block=True is only allowed for shapes the SoftMax page calls basic blocks."""
    if not (256 // itemsize <= k < 2048 and k % 64 == 0 and m % 8 == 0):
        fail(api, f"basic_block=True needs a basic-block shape (last dimension a multiple of 64 in "
                  f"[{256 // itemsize}, 2048), the other dimensions a multiple of 8), got [{m}, {k}]")


def softmax(dst: Any, sum: Any, max: Any, src: Any, tiling: SoftmaxTiling, temp_buffer: Any = None,
            reuse_source: bool = False, basic_block: bool = False, data_format_nz: bool = False) -> None:
    """Row softmax of the [m, k] source into dst, with each row's sum and max."""
    api = "adv.softmax"
    dst, s, mx, src = (tensor(api, n, t) for n, t in (("dst", dst), ("sum", sum), ("max", max), ("src", src)))
    if not isinstance(tiling, SoftmaxTiling):
        raise TypeError(f"asc.adv.softmax: tiling must be an asc.adv.SoftmaxTiling, got {type(tiling).__name__}")
    if data_format_nz:
        raise not_emulated("asc.adv.softmax with data_format_nz=True (NZ layout)")
    of_types(api, src, ("float16", "float32"))
    if dst.dtype is not src.dtype:
        fail(api, f"dst ({dst.dtype.name}) and src ({src.dtype.name}) must have one element type")
    if s.dtype is not mx.dtype or s.dtype.name not in {src.dtype.name, "float32"}:
        fail(api, f"sum ({s.dtype.name}) and max ({mx.dtype.name}) must both be {src.dtype.name}"
                  + (" or both float32" if src.dtype.itemsize == 2 else ""))
    m, k = rows(api, src)
    if basic_block:
        _basic_block(api, m, k, src.dtype.itemsize)
    n, per_row = m * k, BLOCK // s.dtype.itemsize
    if dst.lo != src.lo or dst.buf.pool is not src.buf.pool:  # dst may be src itself (documented), not part of it
        disjoint(api, dst, n, src)
    stats = (("sum", s, m * per_row * s.dtype.itemsize), ("max", mx, m * per_row * mx.dtype.itemsize))
    apart(api, *stats, ("dst", dst, n * dst.dtype.itemsize))
    apart(api, *stats, ("src", src, n * src.dtype.itemsize))
    need = (BLOCK // src.dtype.itemsize + k + 64) * 4  # GetSoftMaxMinTmpSize on Atlas A2/A3 (softmax_tiling.cpp)
    check_temp(api, temp_buffer, need, *((t, c * t.dtype.itemsize) for t, c in
                                      ((dst, n), (src, n), (s, m * per_row), (mx, m * per_row))))
    x = src.read(n, api).astype(np.float32).reshape(m, k)
    row_max = x.max(axis=1, keepdims=True)
    e = np.exp(x - row_max)
    row_sum = e.sum(axis=1, keepdims=True, dtype=np.float32)
    dst.write(n, api)[...] = (e / row_sum).ravel()
    s.write(m * per_row, api)[...] = np.broadcast_to(row_sum, (m, per_row)).ravel()
    mx.write(m * per_row, api)[...] = np.broadcast_to(row_max, (m, per_row)).ravel()

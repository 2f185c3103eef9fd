"""Reductions: `reduce_sum/max/min` (count and mask/repeat forms), `whole_reduce_*`, `block_reduce_*`,
`pair_reduce_sum`, `repeat_reduce_sum`.

Semantics from pyasc `basic/vec_reduce.py` and its docs (`asc.language.basic.whole_reduce_max.md`,
`whole_reduce_sum.md`, `block_reduce_sum.md`, `pair_reduce_sum.md`, `repeat_reduce_sum.md`,
`reduce_max.md`); float16 and float32 on A2/A3. A repeat reads the lanes its mask enables from 8
data blocks (block stride, repeat stride in 32-byte blocks, as every mask/repeat instruction):

- whole_reduce_* / repeat_reduce_sum: one result per repeat at `r * dst_rep_stride` results; a
  max/min result is [value, index] (ReduceOrder picks the order, or value only, or a uint32 index
  only), the index being the lane within the repeat, stored in the bits of a dst element.
- block_reduce_*: one result per data block, 8 per repeat at `r * dst_rep_stride * 8` elements.
- pair_reduce_sum: lanes (2i, 2i+1) summed, half a repeat per repeat at `r * dst_rep_stride` half-repeats.
- Sums add pairwise as a binary tree and float16 partial sums saturate at +-65504 (documented for
  WholeReduceSum/RepeatReduceSum). Pairs, blocks with no enabled lane leave dst unchanged (documented
  for PairReduceSum on A2/A3; inferred for the block reductions). Ties pick the first lane (inference).
- reduce_* in mask/repeat form reduce every enabled lane of every repeat (block stride 1) into dst[0]
  (dst[1] = index with cal_index); the index is the element's offset in src, `r * src_rep_stride * 32 /
  sizeof(T) + lane` (CANN's A2 ReduceImplThirdStep, `impl/basic_api/dav_c220/kernel_operator_vec_reduce_impl.h`).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LocalTensor
from .elementwise import check_types
from .mask import lanes_per_repeat
from .repeat import BLOCK, lane_grid, lane_index, mark, read_lanes, repeat_of

FLOAT = ("float16", "float32")
_BITS = {2: np.uint16, 4: np.uint32}


class ReduceOrder(IntEnum):
    """Where whole_reduce_max/min put the value and the index (pyasc `core/enums.py`)."""

    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


def _lanes(api: str, dst: LocalTensor, src: LocalTensor, mask: Any, times: Any, blk: Any, stride: Any,
           is_set_mask: Any) -> tuple[np.ndarray, np.ndarray]:
    """(values, enabled) as (repeat, lane) arrays of a mask/repeat source; disabled lanes hold 0."""
    check_types(api, FLOAT, src.dtype, dst)
    rep = repeat_of(api, mask, times, [(blk, stride)], is_set_mask)
    isz = src.dtype.itemsize
    on = lane_grid(api, rep, isz)
    vals = np.zeros(on.shape, src.dtype.np)
    if on.any():
        vals[on] = read_lanes(api, src, on, *rep.strides[0])
    return vals, on


def _tree_sum(x: np.ndarray) -> np.ndarray:
    """Pairwise sums over the last axis (zero-padded to a power of two); float16 saturates at +-65504.

    float16 levels add in float32 and round to float16, which is how numpy's own float16 add rounds.
    """
    dt = x.dtype
    half = dt == np.float16
    n = x.shape[-1]
    width = 1 << max(n - 1, 0).bit_length()
    x = x.astype(np.float32) if half else x
    if width != n:
        x = np.concatenate([x, np.zeros((*x.shape[:-1], width - n), x.dtype)], axis=-1)
    while x.shape[-1] > 1:
        x = x[..., 0::2] + x[..., 1::2]
        if half:
            np.clip(x, -65504, 65504, out=x)
            x = x.astype(np.float16).astype(np.float32)
    return x[..., 0].astype(dt)


def _extreme(vals: np.ndarray, on: np.ndarray, is_max: bool) -> tuple[np.ndarray, np.ndarray]:
    """(value, first index) of the max/min over the enabled entries of the last axis."""
    fill = -np.inf if is_max else np.inf
    masked = np.where(on, vals, vals.dtype.type(fill))
    i = masked.argmax(axis=-1) if is_max else masked.argmin(axis=-1)
    return np.take_along_axis(vals, i[..., None], -1)[..., 0], i


def _put(api: str, dst: LocalTensor, idx: np.ndarray, values: np.ndarray, align: int) -> None:
    if idx.size:
        mark(dst, idx, api, align)
        dst.arr[idx] = values


# ------------------------------------------------------------------------------- whole / repeat
def whole_reduce_sum(dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, dst_rep_stride: int,
                     src_blk_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """dst[r * dst_rep_stride] = the sum of repeat r's enabled lanes."""
    _sums("whole_reduce_sum", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
          is_set_mask)


def _sums(api: str, dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, dst_rep_stride: int,
          src_blk_stride: int, src_rep_stride: int, is_set_mask: bool) -> None:
    vals, _ = _lanes(api, dst, src, mask, repeat_time, src_blk_stride, src_rep_stride, is_set_mask)
    _put(api, dst, np.arange(vals.shape[0]) * int(dst_rep_stride), _tree_sum(vals), dst.dtype.itemsize)


def repeat_reduce_sum(dst: LocalTensor, src: LocalTensor, repeat_time: int, mask: int, dst_blk_stride: int,
                      src_blk_stride: int, dst_rep_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """whole_reduce_sum with a continuous mask (dst_blk_stride has no effect, as documented)."""
    api = "repeat_reduce_sum"
    if isinstance(mask, list | tuple):
        raise TypeError(f"asc.{api}: the mask is a count of leading lanes (an int), got {mask!r}")
    _sums(api, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, is_set_mask)


def _whole_extreme(api: str, is_max: bool, dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int,
                   dst_rep_stride: int, src_blk_stride: int, src_rep_stride: int, order: int,
                   is_set_mask: bool) -> None:
    o = ReduceOrder(order)
    vals, on = _lanes(api, dst, src, mask, repeat_time, src_blk_stride, src_rep_stride, is_set_mask)
    value, index = _extreme(vals, on, is_max)
    r = np.arange(vals.shape[0]) * int(dst_rep_stride)
    isz = dst.dtype.itemsize
    if o == ReduceOrder.ORDER_ONLY_VALUE:
        _put(api, dst, r, value, isz)
    elif o == ReduceOrder.ORDER_ONLY_INDEX:
        _put(api, dst.reinterpret_cast(np.uint32), r, index.astype(np.uint32), 4)
    else:  # value and index side by side, the index in the bits of a dst element
        bits = dst.reinterpret_cast(_BITS[isz])
        pair = np.stack([value.view(_BITS[isz]), index.astype(_BITS[isz])], axis=1)
        if o == ReduceOrder.ORDER_INDEX_VALUE:
            pair = pair[:, ::-1]
        _put(api, bits, (2 * r[:, None] + np.arange(2)).ravel(), pair.ravel(), 2 * isz)


def whole_reduce_max(dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, dst_rep_stride: int,
                     src_blk_stride: int, src_rep_stride: int, order: int = ReduceOrder.ORDER_VALUE_INDEX,
                     is_set_mask: bool = True) -> None:
    """Per repeat, the max of the enabled lanes and its lane index, stored as `order` says."""
    _whole_extreme("whole_reduce_max", True, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
                   src_rep_stride, order, is_set_mask)


def whole_reduce_min(dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, dst_rep_stride: int,
                     src_blk_stride: int, src_rep_stride: int, order: int = ReduceOrder.ORDER_VALUE_INDEX,
                     is_set_mask: bool = True) -> None:
    """Per repeat, the min of the enabled lanes and its lane index, stored as `order` says."""
    _whole_extreme("whole_reduce_min", False, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride,
                   src_rep_stride, order, is_set_mask)


# ------------------------------------------------------------------------------- block / pair
def _grouped(api: str, group: int, how: str, dst: LocalTensor, src: LocalTensor, repeat: int, mask: Any,
             dst_rep_stride: int, src_blk_stride: int, src_rep_stride: int, is_set_mask: bool, unit: int,
             align: int) -> None:
    """Reduce each run of `group` lanes to one value; groups with no enabled lane leave dst unchanged."""
    vals, on = _lanes(api, dst, src, mask, repeat, src_blk_stride, src_rep_stride, is_set_mask)
    repeats, lanes = vals.shape
    vals, on = vals.reshape(repeats, -1, group), on.reshape(repeats, -1, group)
    out = _tree_sum(vals) if how == "sum" else _extreme(vals, on, how == "max")[0]
    idx = np.arange(repeats)[:, None] * (int(dst_rep_stride) * unit) + np.arange(lanes // group)
    some = on.any(axis=2)
    _put(api, dst, idx[some], out[some], align)


def block_reduce_sum(dst: LocalTensor, src: LocalTensor, repeat: int, mask: Any, dst_rep_stride: int,
                     src_blk_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """dst[r * dst_rep_stride * 8 + b] = the sum of data block b of repeat r."""
    isz = src.dtype.itemsize
    _grouped("block_reduce_sum", BLOCK // isz, "sum", dst, src, repeat, mask, dst_rep_stride, src_blk_stride,
             src_rep_stride, is_set_mask, 8, 8 * isz)


def block_reduce_max(dst: LocalTensor, src: LocalTensor, repeat: int, mask: Any, dst_rep_stride: int,
                     src_blk_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """dst[r * dst_rep_stride * 8 + b] = the max of data block b of repeat r."""
    isz = src.dtype.itemsize
    _grouped("block_reduce_max", BLOCK // isz, "max", dst, src, repeat, mask, dst_rep_stride, src_blk_stride,
             src_rep_stride, is_set_mask, 8, 8 * isz)


def block_reduce_min(dst: LocalTensor, src: LocalTensor, repeat: int, mask: Any, dst_rep_stride: int,
                     src_blk_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """dst[r * dst_rep_stride * 8 + b] = the min of data block b of repeat r."""
    isz = src.dtype.itemsize
    _grouped("block_reduce_min", BLOCK // isz, "min", dst, src, repeat, mask, dst_rep_stride, src_blk_stride,
             src_rep_stride, is_set_mask, 8, 8 * isz)


def pair_reduce_sum(dst: LocalTensor, src: LocalTensor, repeat_time: int, mask: Any, dst_rep_stride: int,
                    src_blk_stride: int, src_rep_stride: int, is_set_mask: bool = True) -> None:
    """dst[r * dst_rep_stride * lanes / 2 + i] = src lane 2i + lane 2i+1 of repeat r."""
    lanes = lanes_per_repeat(src.dtype.itemsize)
    _grouped("pair_reduce_sum", 2, "sum", dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride,
             src_rep_stride, is_set_mask, lanes // 2, BLOCK)


# ------------------------------------------------------------------------------- reduce_*
def _count(count: int, cal_index: bool = False) -> tuple:
    return count, cal_index


def _masked(mask: Any, repeat_time: int, src_rep_stride: int, cal_index: bool = False) -> tuple:
    return mask, repeat_time, src_rep_stride, cal_index


def _reduce(api: str, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, args: tuple, kwargs: dict) -> None:
    masked = len(args) >= 3 or "mask" in kwargs or "repeat_time" in kwargs
    binder = _masked if masked else _count
    try:
        got = binder(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"asc.{api}: {str(e).replace(binder.__name__ + '()', '')}; the forms are (dst, src, "
                        "shared_tmp_buffer, count[, cal_index]) and (..., mask, repeat_time, src_rep_stride"
                        "[, cal_index])") from None
    cal_index = got[-1]
    if api == "reduce_sum" and cal_index:
        raise TypeError("asc.reduce_sum takes no cal_index")
    if not isinstance(tmp, LocalTensor):
        raise TypeError(f"asc.{api}: shared_tmp_buffer must be a LocalTensor")
    dt = src.dtype
    if masked:
        vals, on = _lanes(api, dst, src, got[0], got[1], 1, got[2], True)
        if not on.any():
            return
    else:
        count = int(got[0])
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        if count == 0:
            return  # a NOP on A2/A3
        check_types(api, FLOAT, dt, dst)
        vals = src.read(count, api)
        on = np.ones(count, bool)
    tmp.span(1, api)  # the work buffer must be live and aligned; its contents are scratch
    if api == "reduce_sum":  # masked: a tree per repeat, then over the repeats' sums
        dst.write(1, api)[0] = _tree_sum(_tree_sum(vals)) if masked else vals.sum(dtype=dt.np)
        return
    value, i = _extreme(vals.ravel(), on.ravel(), api == "reduce_max")
    if masked:  # the element offset in src: repeat r starts r * src_rep_stride blocks in
        i = lane_index(on.shape, 1, int(got[2]), dt.itemsize).ravel()[i]
    out = dst.write(2 if cal_index else 1, api)
    out[0] = value
    if cal_index:  # the index is stored in the second element's bits; reinterpret_cast to read it
        out[1:2].view(_BITS[dt.itemsize])[0] = i


def reduce_sum(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[0] = the sum of the first `count` elements, or of the enabled lanes of every repeat."""
    _reduce("reduce_sum", dst, src, shared_tmp_buffer, args, kwargs)


def reduce_max(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[0] = the max (dst[1] = its index with cal_index) of `count` elements or of the enabled lanes."""
    _reduce("reduce_max", dst, src, shared_tmp_buffer, args, kwargs)


def reduce_min(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[0] = the min (dst[1] = its index with cal_index) of `count` elements or of the enabled lanes."""
    _reduce("reduce_min", dst, src, shared_tmp_buffer, args, kwargs)

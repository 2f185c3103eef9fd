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
from ..table import instruction
from .elementwise import check_types, count_of
from .lanes import lane_index, mark, read_lanes
from .mask import lanes_per_repeat
from .repeat import BLOCK, Repeat, lane_grid

FLOAT = ("float16", "float32")
_BITS = {2: np.uint16, 4: np.uint32}


class ReduceOrder(IntEnum):
    """Where whole_reduce_max/min put the value and the index (pyasc `core/enums.py`)."""

    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


def _lanes(core: Any, api: str, dst: LocalTensor, src: LocalTensor, rep: Repeat) -> tuple[np.ndarray, np.ndarray]:
    """(values, enabled) as (repeat, lane) arrays of a mask/repeat source (`rep.strides`: the source's); disabled
    lanes hold 0."""
    check_types(core, api, FLOAT, src.dtype, dst)
    isz = src.dtype.itemsize
    on = lane_grid(core, api, rep, isz)
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
@instruction("WholeReduceSum", "whole_reduce_sum", "vector", "V", FLOAT)
def whole_reduce_sum(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int) -> None:
    """dst[r * dst_rep_stride] = the sum of repeat r's enabled lanes (`rep.strides`: the source's)."""
    _sums(core, "whole_reduce_sum", dst, src, rep, dst_rep_stride)


def _sums(core: Any, api: str, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int) -> None:
    vals, _ = _lanes(core, api, dst, src, rep)
    _put(api, dst, np.arange(vals.shape[0]) * int(dst_rep_stride), _tree_sum(vals), dst.dtype.itemsize)


@instruction("RepeatReduceSum", "repeat_reduce_sum", "vector", "V", FLOAT)
def repeat_reduce_sum(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int) -> None:
    """whole_reduce_sum with a continuous mask (a count of leading lanes)."""
    _sums(core, "repeat_reduce_sum", dst, src, rep, dst_rep_stride)


def _whole_extreme(core: Any, api: str, is_max: bool, dst: LocalTensor, src: LocalTensor, rep: Repeat,
                   dst_rep_stride: int, order: int) -> None:
    o = ReduceOrder(order)
    vals, on = _lanes(core, api, dst, src, rep)
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


@instruction("WholeReduceMax", "whole_reduce_max", "vector", "V", FLOAT)
def whole_reduce_max(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int,
                     order: int = ReduceOrder.ORDER_VALUE_INDEX) -> None:
    """Per repeat, the max of the enabled lanes and its lane index, stored as `order` says."""
    _whole_extreme(core, "whole_reduce_max", True, dst, src, rep, dst_rep_stride, order)


@instruction("WholeReduceMin", "whole_reduce_min", "vector", "V", FLOAT)
def whole_reduce_min(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int,
                     order: int = ReduceOrder.ORDER_VALUE_INDEX) -> None:
    """Per repeat, the min of the enabled lanes and its lane index, stored as `order` says."""
    _whole_extreme(core, "whole_reduce_min", False, dst, src, rep, dst_rep_stride, order)


# ------------------------------------------------------------------------------- block / pair
def _grouped(core: Any, api: str, group: int, how: str, dst: LocalTensor, src: LocalTensor, rep: Repeat,
             dst_rep_stride: int, unit: int, align: int) -> None:
    """Reduce each run of `group` lanes to one value; groups with no enabled lane leave dst unchanged."""
    vals, on = _lanes(core, api, dst, src, rep)
    repeats, lanes = vals.shape
    vals, on = vals.reshape(repeats, -1, group), on.reshape(repeats, -1, group)
    out = _tree_sum(vals) if how == "sum" else _extreme(vals, on, how == "max")[0]
    idx = np.arange(repeats)[:, None] * (int(dst_rep_stride) * unit) + np.arange(lanes // group)
    some = on.any(axis=2)
    _put(api, dst, idx[some], out[some], align)


def _block(key: str, api: str, how: str) -> Any:
    def run(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int) -> None:
        isz = src.dtype.itemsize
        _grouped(core, api, BLOCK // isz, how, dst, src, rep, dst_rep_stride, 8, 8 * isz)

    run.__name__ = run.__qualname__ = api
    run.__doc__ = f"dst[r * dst_rep_stride * 8 + b] = the {how} of data block b of repeat r."
    return instruction(key, api, "vector", "V", FLOAT)(run)


block_reduce_sum = _block("BlockReduceSum", "block_reduce_sum", "sum")
block_reduce_max = _block("BlockReduceMax", "block_reduce_max", "max")
block_reduce_min = _block("BlockReduceMin", "block_reduce_min", "min")


@instruction("PairReduceSum", "pair_reduce_sum", "vector", "V", FLOAT)
def pair_reduce_sum(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat, dst_rep_stride: int) -> None:
    """dst[r * dst_rep_stride * lanes / 2 + i] = src lane 2i + lane 2i+1 of repeat r."""
    lanes = lanes_per_repeat(src.dtype.itemsize)
    _grouped(core, "pair_reduce_sum", 2, "sum", dst, src, rep, dst_rep_stride, lanes // 2, BLOCK)


# ------------------------------------------------------------------------------- reduce_*
def _reduce(core: Any, api: str, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, n: int | Repeat,
            cal_index: bool) -> None:
    dt = src.dtype
    masked = type(n) is Repeat
    if masked:
        vals, on = _lanes(core, api, dst, src, n)
        if not on.any():
            return
    else:
        if not count_of(api, n):
            return
        check_types(core, api, FLOAT, dt, dst)
        vals = src.read(n, api)
        on = np.ones(n, bool)
    tmp.span(1, api)  # the work buffer must be live and aligned; its contents are scratch
    regs = core.state(ReduceRegisters)
    if api == "reduce_sum":  # masked: a tree per repeat, then over the repeats' sums
        out = dst.write(1, api)
        out[0] = _tree_sum(_tree_sum(vals)) if masked else vals.sum(dtype=dt.np)
        regs.acc = int(out[:1].view(_BITS[dt.itemsize])[0])
        return
    value, i = _extreme(vals.ravel(), on.ravel(), api == "reduce_max")
    if masked:  # the element offset in src: repeat r starts r * src_rep_stride blocks in
        i = lane_index(on.shape, 1, n.strides[0][1], dt.itemsize).ravel()[i]
    out = dst.write(2 if cal_index else 1, api)
    out[0] = value
    regs.max_min = int(out[:1].view(_BITS[dt.itemsize])[0]) | int(i) << 32
    if cal_index:  # the index is stored in the second element's bits; reinterpret_cast to read it
        out[1:2].view(_BITS[dt.itemsize])[0] = i


class ReduceRegisters:
    """A core's reduction registers: ACC_VAL (the bits of the last ReduceSum's sum) and MAX_MIN_CNT (the last
    ReduceMax/ReduceMin's value bits, its index in the upper 32 bits); None until one ran."""

    def __init__(self) -> None:
        self.acc: int | None = None
        self.max_min: int | None = None


@instruction("GetReduceRepeatSumSpr", "", "vector", "S", note="the ACC_VAL register as its 64 bits")
def get_reduce_repeat_sum_spr(core: Any) -> int:
    """The sum the last ReduceSum computed, as the ACC_VAL register holds it (its bits; CANN
    GetReduceRepeatSumSpr reads them as T)."""
    acc = core.state(ReduceRegisters).acc
    if acc is None:
        fail("GetReduceRepeatSumSpr", "no ReduceSum ran on this core yet: the register holds nothing")
    return acc


@instruction("GetReduceRepeatMaxMinSpr", "", "vector", "S", note="the MAX_MIN_CNT register as its 64 bits")
def get_reduce_repeat_max_min_spr(core: Any) -> int:
    """The value (low bits) and index (bits 32-63) the last ReduceMax/ReduceMin found (CANN
    GetReduceRepeatMaxMinSpr splits them)."""
    v = core.state(ReduceRegisters).max_min
    if v is None:
        fail("GetReduceRepeatMaxMinSpr", "no ReduceMax or ReduceMin ran on this core yet: the register holds nothing")
    return v


@instruction("ReduceSum", "reduce_sum", "vector", "V", FLOAT)
def reduce_sum(core: Any, dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, n: int | Repeat) -> None:
    """dst[0] = the sum of the first `n` elements, or of the enabled lanes of every repeat (block stride 1)."""
    _reduce(core, "reduce_sum", dst, src, shared_tmp_buffer, n, False)


@instruction("ReduceMax", "reduce_max", "vector", "V", FLOAT)
def reduce_max(core: Any, dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, n: int | Repeat,
               cal_index: bool = False) -> None:
    """dst[0] = the max (dst[1] = its index with cal_index) of `n` elements or of the enabled lanes."""
    _reduce(core, "reduce_max", dst, src, shared_tmp_buffer, n, cal_index)


@instruction("ReduceMin", "reduce_min", "vector", "V", FLOAT)
def reduce_min(core: Any, dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, n: int | Repeat,
               cal_index: bool = False) -> None:
    """dst[0] = the min (dst[1] = its index with cal_index) of `n` elements or of the enabled lanes."""
    _reduce(core, "reduce_min", dst, src, shared_tmp_buffer, n, cal_index)

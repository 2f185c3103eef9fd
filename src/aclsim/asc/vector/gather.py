"""Index-driven data movement: `gather`, `scatter` (byte offsets per element) and `gather_mask` (keep the
elements a bit pattern selects, packed).

Semantics from pyasc `basic/vec_gather.py`, `vec_gather_mask.py`, `vec_scatter.py` and their docs
(`asc.language.basic.gather.md`, `gather_mask.md`, `scatter.md`):

- gather: dst[i] = the src element at byte `src_base + src_offset[i]` from src; scatter: the dst element at
  byte `dst_base + dst_offset[i]` from dst = src[i]. Scatter exists on Atlas inference chips (310P) only:
  CANN's A2/A3 ScatterImpl reports it unsupported (`impl/basic_api/dav_c220/
  kernel_operator_vec_scatter_impl.h`). Offsets are uint32 and must be multiples of the element size. Count
  form: the first `count` elements. Mask/repeat form: repeat r covers the lanes the mask enables of 8
  contiguous blocks of dst (gather) or src (scatter), `r * rep_stride` blocks from its start; the offsets are
  read one per lane, repeat after repeat (offset r * lanes + i for lane i: inference, the offsets tensor is
  consumed contiguously). Scatter writes land in order, so the last of several writes to one element wins.
- gatherb: whole 32-byte blocks at uint32 byte offsets (multiples of 32), 8 per repeat.
- gather_mask, normal mode (reduce_mode False): repeat r reads the 256 bytes of src0 at `r * src0_repeat_stride`
  blocks (blocks `src0_block_stride` apart) and keeps the lanes whose pattern bit is 1,
  writing the kept elements one after another from dst[0]; it returns how many it kept. The pattern is a
  built-in code 1..7 or a uint16 (16-bit data) / uint32 (32-bit data) tensor whose bits, LSB first, are
  consumed per repeat from `r * src1_repeat_stride` blocks. The instruction leaves the mask register in NORMAL
  mode ("接口内部执行结束后会设置为Normal模式"). Counter mode (reduce_mode True) means different things on different chips
  and is not emulated.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ..aicore.core import Register
from ..faults import fail, not_emulated
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import uint16, uint32
from .elementwise import check_types, count_of
from .lanes import gather as take
from .lanes import lane_index, mark
from .mask import MaskRegister, lanes_per_repeat, reset_mask
from .repeat import BLOCK, Repeat, lane_grid

B16_32 = ("float16", "float32", "int16", "uint16", "int32", "uint32")


class RsvdCnt(Register):
    """The RSVD_CNT register of a core: how many elements the last gather_mask kept."""


class GatherMaskMode(IntEnum):
    """gather_mask's mode; DEFAULT is the only one (reserved for later use)."""

    DEFAULT = 0


@dataclass
class GatherMaskParams:
    """Strides of gather_mask: src0 block and repeat strides and the pattern's repeat stride (32-byte blocks)."""

    src0_block_stride: int = 1
    repeat_times: int = 1
    src0_repeat_stride: int = 0
    src1_repeat_stride: int = 0


def _elements(core: Any, api: str, data: LocalTensor, offsets: LocalTensor, base: Any, n: int | Repeat
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """(indices into the data tensor, element positions of the other operand) of a gather or scatter call."""
    if not isinstance(offsets, LocalTensor) or offsets.dtype is not uint32:
        raise TypeError(f"asc.{api}: the offsets must be a uint32 LocalTensor")
    isz = data.dtype.itemsize
    if type(n) is Repeat:
        on = lane_grid(core, api, n, isz)
        if not on.any():
            return None
        positions = lane_index(on.shape, *n.strides[0], isz)[on]
        slots = np.flatnonzero(on.ravel())
    elif count_of(api, n):
        positions = slots = np.arange(n)
    else:
        return None
    byte = int(base) + take(offsets, slots, api).astype(np.int64)
    odd = byte % isz != 0
    if odd.any():
        i = int(np.argmax(odd))
        fail(api, f"base + offset[{int(slots[i])}] = {int(byte[i])} bytes is not a multiple of the "
                  f"{isz}-byte element size")
    if (byte < 0).any():
        fail(api, "base + offset must be >= 0")
    return byte // isz, positions


@instruction("Gather", "gather", "vector", "V", B16_32)
def gather(core: Any, dst: LocalTensor, src: LocalTensor, src_offset: LocalTensor, src_base: int,
           n: int | Repeat) -> None:
    """dst[i] = src at byte src_base + src_offset[i]: the first `n` elements, or the lanes of a mask/repeat call
    (its stride: dst's repeat stride)."""
    api = "gather"
    check_types(core, api, B16_32, dst.dtype, src)
    got = _elements(core, api, src, src_offset, src_base, n)
    if got is None:
        return
    idx, positions = got
    values = take(src, idx, api)
    mark(dst, positions, api)
    dst.arr[positions] = values


@instruction("Scatter", "scatter", "vector", "V", B16_32, note="Atlas inference chips (310P) only, as in CANN")
def scatter(core: Any, dst: LocalTensor, src: LocalTensor, dst_offset: LocalTensor, dst_base: int,
            n: int | Repeat) -> None:
    """dst at byte dst_base + dst_offset[i] = src[i]: the first `n` elements, or the lanes of a mask/repeat call
    (its stride: src's repeat stride)."""
    api = "scatter"
    chip = core.chip
    if chip.separated:  # dav_c220's ScatterImpl is ASCENDC_REPORT_NOT_SUPPORT; dav_m200 (310P) has vscatter
        fail(api, f"Scatter is not supported on {chip.name} (CANN implements it for Atlas inference chips such as "
                  "Ascend310P3 only)")
    check_types(core, api, B16_32, dst.dtype, src)
    got = _elements(core, api, dst, dst_offset, dst_base, n)
    if got is None:
        return
    idx, positions = got
    values = take(src, positions, api)
    mark(dst, idx, api)
    dst.arr[idx] = values  # in order: the last write to an element wins


@dataclass
class GatherRepeatParams:
    """gatherb's destination strides in 32-byte blocks: between the 8 blocks of a repeat and between repeats."""

    dst_blk_stride: int = 1
    dst_rep_stride: int = 8


def gather_blocks(api: str, src: LocalTensor, offset: LocalTensor, count: int) -> np.ndarray:
    """(count, elements per block) values of the src blocks at the first `count` byte offsets of `offset`
    (uint32, multiples of 32: each names a data block)."""
    if not isinstance(offset, LocalTensor) or offset.dtype is not uint32:
        raise TypeError(f"asc.{api}: the offsets must be a uint32 LocalTensor")
    byte = take(offset, np.arange(count), api).astype(np.int64)
    bad = byte % BLOCK != 0
    if bad.any():
        i = int(np.argmax(bad))
        fail(api, f"offset[{i}] = {int(byte[i])} is not a multiple of 32: offsets name 32-byte blocks")
    epb = BLOCK // src.dtype.itemsize
    return take(src, ((byte // src.dtype.itemsize)[:, None] + np.arange(epb)).ravel(), api).reshape(count, epb)


@instruction("Gatherb", "gatherb", "vector", "V", ("uint16", "uint32"))
def gatherb(core: Any, dst: LocalTensor, src0: LocalTensor, offset: LocalTensor, rep: Repeat) -> None:
    """Repeat r copies the 8 src0 blocks at byte offsets offset[8r .. 8r+7] to dst blocks
    `r * dst_rep_stride + b * dst_blk_stride` (pyasc `gatherb.md`; repeat_time is 1..255). uint16/uint32
    only, and the mask register is reset to every lane, as CANN's A2 GatherbImpl does
    (`impl/basic_api/dav_c220/kernel_operator_vec_gather_impl.h`)."""
    api = "gatherb"
    check_types(core, api, ("uint16", "uint32"), dst.dtype, src0)
    reset_mask(core)
    if rep.times == 0:
        fail(api, "repeat_time must be in 1..255, got 0")
    isz = dst.dtype.itemsize
    values = gather_blocks(api, src0, offset, 8 * rep.times)
    di = lane_index((rep.times, 8 * (BLOCK // isz)), *rep.strides[0], isz).ravel()
    mark(dst, di, api)
    dst.arr[di] = values.ravel()


_BUILT_IN = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}  # code: (period, phase)


@instruction("GatherMask", "gather_mask", "vector", "V", B16_32, note="normal mode (reduce_mode=False); COUNTER mode "
             "not emulated")
def gather_mask(core: Any, dst: LocalTensor, src0: LocalTensor, src1_pattern: Any, reduce_mode: bool, mask: int,
                params: GatherMaskParams, gather_mask_mode: int = GatherMaskMode.DEFAULT) -> int:
    """Keep the src0 elements the pattern selects, packed from dst[0]; returns how many were kept."""
    api = "gather_mask"
    check_types(core, api, B16_32, dst.dtype, src0)
    GatherMaskMode(gather_mask_mode)
    if reduce_mode:
        raise not_emulated("asc.gather_mask with reduce_mode=True (COUNTER mode)")
    isz = dst.dtype.itemsize
    lanes = lanes_per_repeat(isz)
    rep = Repeat.of(api, 0, params.repeat_times, [(params.src0_block_stride, params.src0_repeat_stride),
                                                  (0, params.src1_repeat_stride)])
    core.state(MaskRegister).counter = False
    times = rep.times
    if isinstance(src1_pattern, LocalTensor):
        want = uint16 if isz == 2 else uint32
        if src1_pattern.dtype is not want:
            raise TypeError(f"asc.{api}: for {dst.dtype.name} data the pattern tensor must be {want.name}, got "
                            f"{src1_pattern.dtype.name}")
        words = lanes // (8 * isz)  # pattern elements per repeat
        per = rep.strides[1][1] * BLOCK // isz
        widx = (np.arange(times)[:, None] * per + np.arange(words)).ravel()
        raw = take(src1_pattern, widx, api) if times else np.zeros(0, want.np)
        keep = np.unpackbits(raw.view(np.uint8), bitorder="little").reshape(times, lanes).astype(bool)
    else:
        code = int(src1_pattern)
        if code not in _BUILT_IN:
            fail(api, f"a built-in pattern is 1..7, got {code}")
        period, phase = _BUILT_IN[code]
        keep = np.broadcast_to(np.arange(lanes) % period == phase, (times, lanes))
    sidx = lane_index(keep.shape, *rep.strides[0], isz)[keep]
    kept = core.state(RsvdCnt).value = int(sidx.size)
    if kept:
        values = take(src0, sidx, api)
        out = np.arange(kept)
        mark(dst, out, api)
        dst.arr[out] = values
    return kept


@instruction("GetGatherMaskRemainCount", "get_gather_mask_remain_count", "vector")
def get_gather_mask_remain_count(core: Any) -> int:
    """How many elements the last gather_mask kept (CANN's A2 implementation reads the RSVD_CNT register)."""
    return core.state(RsvdCnt).value or 0

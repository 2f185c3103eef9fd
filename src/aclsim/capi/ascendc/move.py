"""Handlers of data movement: DataCopy in its forms (count, DataCopyParams, slices, Nd2Nz), DataCopyPad and the
atomic modes of GM stores. Each GM/local operand is a word and a flag bit saying which it is (`flags` bit 0:
dst is GM, bit 1: src is GM)."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ...asc.engine import TABLE
from ...asc.move.slices import DataCopyEnhancedParams, SliceInfo
from ...asc.types.cube_params import Nd2NzParams
from ...asc.types.params import DataCopyExtParams, DataCopyPadExtParams, DataCopyParams
from .operands import DTYPES, gm, local, tensor
from .ops import handles
from .system import signed

_COPY = TABLE["DataCopy"].run
_BLOCKED = TABLE["DataCopy(DataCopyParams)"].run
_PAD = TABLE["DataCopyPad"].run


def operands(core: Any, dst: int, src: int, flags: int) -> tuple[Any, Any]:
    return tensor(core, dst, bool(flags & 1)), tensor(core, src, bool(flags & 2))


@handles("DataCopy")
def _copy(core: Any, dst: int, src: int, count: int, flags: int, *words: Any) -> None:
    """DataCopy(dst, src, count)."""
    _COPY(core, gm(core, dst) if flags & 1 else local(core, dst), gm(core, src) if flags & 2 else local(core, src),
          count)


def copy_params(p: int) -> DataCopyParams:
    """DataCopyParams {blockCount, blockLen, srcStride, dstStride} (uint16 each, lowest first)."""
    return DataCopyParams(p & 0xFFFF, (p >> 16) & 0xFFFF, (p >> 32) & 0xFFFF, (p >> 48) & 0xFFFF)


_FIELDS7 = ctypes.c_uint64 * 7


@handles("DataCopyEnhanced")
def _enhanced(core: Any, dst: int, src: int, p: int, flags: int, fields: int, *words: Any) -> None:
    """DataCopy(dst, src, DataCopyParams, DataCopyEnhancedParams): `fields` points at its 7 fields as uint64."""
    d, s = operands(core, dst, src, flags)
    TABLE["DataCopy(DataCopyEnhancedParams)"].run(core, d, s, copy_params(p),
                                                   DataCopyEnhancedParams(*_FIELDS7.from_address(fields)))


@handles("DataCopyParams")
def _blocked(core: Any, dst: int, src: int, p: int, flags: int, *words: Any) -> None:
    """DataCopy(dst, src, DataCopyParams{blockCount, blockLen, srcStride, dstStride})."""
    d, s = operands(core, dst, src, flags)
    _BLOCKED(core, d, s, copy_params(p))


def pad_value(bits: int, code: int) -> Any:
    """A padding value given as the element's bits."""
    dt = DTYPES[code]
    raw = np.array([bits], np.uint64).view(np.uint8)[: dt.itemsize]
    if dt.name == "bfloat16":
        return float(np.array([int(bits & 0xFFFF) << 16], np.uint32).view(np.float32)[0])
    return raw.view(dt.np)[0].item()


@handles("DataCopyPad")
def _pad(core: Any, dst: int, src: int, p1: int, p2: int, pad: int, flags: int) -> None:
    """DataCopyPad(dst, src, DataCopyExtParams (p1: blockCount | blockLen << 16; p2: srcStride | dstStride << 32)
    [, DataCopyPadExtParams (pad: isPad | leftPadding << 8 | rightPadding << 16 | given << 24 | value bits << 32)]);
    flags bit 2: the older DataCopyParams (p1 its packed fields)."""
    d, s = operands(core, dst, src, flags)
    if flags & 4:
        params: Any = copy_params(p1)
    else:
        params = DataCopyExtParams(p1 & 0xFFFF, (p1 >> 16) & 0xFFFFFFFF, p2 & 0xFFFFFFFF, p2 >> 32)
    pad_params = None
    if pad >> 24 & 1:
        pad_params = DataCopyPadExtParams(d.dtype, bool(pad & 1), (pad >> 8) & 0xFF, (pad >> 16) & 0xFF,
                                          pad_value(pad >> 32, d.dtype.code))
    _PAD(core, d, s, params, pad_params)


_SLICE = ctypes.c_uint32 * 5


def slices(ptr: int, n: int) -> list[SliceInfo]:
    """`n` SliceInfo {startIndex, endIndex, stride, burstLen, shapeValue} (uint32 each) at address `ptr`."""
    return [SliceInfo(*_SLICE.from_address(ptr + 20 * i)) for i in range(n)]


@handles("DataCopySlice")
def _slice(core: Any, dst: int, src: int, dst_slices: int, src_slices: int, dims: int, flags: int) -> None:
    """DataCopy(dst, src, dstSliceInfo[], srcSliceInfo[], dimValue)."""
    d, s = operands(core, dst, src, flags)
    TABLE["DataCopy(SliceInfo)"].run(core, d, s, slices(dst_slices, dims), slices(src_slices, dims), dims)


_FIELDS8 = ctypes.c_uint64 * 8


@handles("DataCopyNd2Nz")
def _nd2nz(core: Any, dst: int, src: int, fields: int, flags: int, *words: Any) -> None:
    """DataCopy(dst, src, Nd2NzParams): `fields` the address of its eight fields as uint64."""
    d, s = operands(core, dst, src, flags)
    TABLE["DataCopy(Nd2NzParams)"].run(core, d, s, Nd2NzParams(*_FIELDS8.from_address(fields)))


@handles("SetPadValue")
def _pad_value(core: Any, value: int, integral: int, _c: int, _d: int, _e: int, real: Any) -> None:
    """SetPadValue(value): an integer in word a (b = 1), a floating-point value as the scalar."""
    TABLE["SetPadValue"].run(core, signed(value) if integral else real)


@handles("SetAtomicAdd")
def _atomic_add(core: Any, code: int, *words: Any) -> None:
    TABLE["SetAtomicAdd"].run(core, DTYPES[code])


@handles("SetAtomicMax")
def _atomic_max(core: Any, code: int, *words: Any) -> None:
    TABLE["SetAtomicMax"].run(core, DTYPES[code])


@handles("SetAtomicMin")
def _atomic_min(core: Any, code: int, *words: Any) -> None:
    TABLE["SetAtomicMin"].run(core, DTYPES[code])

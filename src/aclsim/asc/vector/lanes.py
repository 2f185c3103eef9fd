"""Checked element access of vector operands by index: the lanes a mask/repeat call selects (`read_lanes`,
`write_lanes`), and `gather` / `mark` for the instructions that address elements one by one."""

from __future__ import annotations

import numpy as np

from ..aicore.pipes import access
from ..faults import fail
from ..memory.local import LocalTensor
from .mask import lanes_per_repeat
from .repeat import BLOCK


def lane_index(shape: tuple[int, int], blk: int, stride: int, itemsize: int) -> np.ndarray:
    """(repeat, lane) -> element index of an operand whose blocks hold 32 bytes of its own element type."""
    repeats, lanes = shape
    epb = BLOCK // itemsize
    lane = np.arange(lanes)
    return np.arange(repeats)[:, None] * (stride * epb) + (lane // epb) * (blk * epb) + lane % epb


def _contiguous(t: LocalTensor, on: np.ndarray, blk: int, stride: int) -> bool:
    """Whether the enabled lanes are the operand's first on.size elements in order."""
    return blk == 1 and stride * (BLOCK // t.dtype.itemsize) == on.shape[1] and bool(on.all())


def read_lanes(api: str, t: LocalTensor, on: np.ndarray, blk: int, stride: int) -> np.ndarray:
    """The operand's values at the enabled lanes of `on` (repeat, lane), in lane order, checked as `gather`."""
    if _contiguous(t, on, blk, stride):
        return t.read(on.size, api)
    return gather(t, lane_index(on.shape, blk, stride, t.dtype.itemsize)[on], api)


def write_lanes(api: str, t: LocalTensor, on: np.ndarray, blk: int, stride: int, values: np.ndarray) -> None:
    """Store `values` at the operand's enabled lanes of `on` and mark them written, checked as `mark`."""
    if _contiguous(t, on, blk, stride):
        t.write(on.size, api)[...] = values
        return
    idx = lane_index(on.shape, blk, stride, t.dtype.itemsize)[on]
    mark(t, idx, api)
    t.arr[idx] = values


def indices(repeats: int, total: int, flags: np.ndarray | None, blk: int, stride: int, itemsize: int) -> np.ndarray:
    """Element indices (from the operand's start) one operand touches, repeat after repeat."""
    epb = BLOCK // itemsize
    lanes = flags.size if flags is not None else lanes_per_repeat(itemsize)
    lane = np.arange(lanes)
    block, within = lane // epb, lane % epb
    if flags is not None:
        block, within = block[flags], within[flags]
    per = block * (blk * epb) + within
    idx = (np.arange(repeats)[:, None] * (stride * epb) + per[None, :]).ravel()
    return idx if flags is not None else idx[:total]


def _span(t: LocalTensor, idx: np.ndarray, api: str, align: int = BLOCK) -> np.ndarray:
    """The operand's written-flags as (elements, itemsize) after the liveness, size, alignment and UB checks."""
    n = int(idx.max()) + 1
    t.bounds(n, api)
    if t.lo % align:
        if align == BLOCK:
            t.misaligned(api)
        fail(api, f"the tensor starts at {t.buf.pool.name} offset {t.lo}, not {align}-byte aligned as this operand "
                  "must be")
    pool = t.buf.pool
    if pool.name != "UB":
        t.not_ub(api)
    isz = t.dtype.itemsize
    return pool.marks(t.lo, (n, isz))


def _watched(t: LocalTensor, last: int, write: bool, api: str) -> None:
    """Tell the sanitizer V touches the operand's bytes up to element `last` (the gaps of strides included)."""
    pool = t.buf.pool
    if pool.watch:
        access("V", pool, t.lo, t.lo + (last + 1) * t.dtype.itemsize, write, api)


def gather(t: LocalTensor, idx: np.ndarray, api: str) -> np.ndarray:
    """Source elements at `idx`, checked to be live, in bounds and written."""
    flags = _span(t, idx, api)
    if t.buf.pool.unwritten(t.lo, t.lo + flags.size) >= 0:  # some byte up to the last index is unwritten
        ok = flags[idx].all(axis=1)
        if not ok.all():
            k = int(idx[int(np.argmin(ok))])
            t.uninit(api, t.lo + k * t.dtype.itemsize, int(idx.max()) + 1)
    _watched(t, len(flags) - 1, False, api)
    return t.arr[idx]


def mark(t: LocalTensor, idx: np.ndarray, api: str, align: int = BLOCK) -> None:
    """Check destination elements at `idx` (the tensor aligned to `align` bytes) and mark them written."""
    _span(t, idx, api, align)[idx] = 1
    _watched(t, int(idx.max()), True, api)

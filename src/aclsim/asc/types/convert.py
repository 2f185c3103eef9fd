"""Number conversions with the rounding modes of Ascend C's `RoundMode`: float -> float16, float32 -> bfloat16,
numbers -> integer types (rounded, saturated). The vector unit's `cast`, the scalar unit's `scalar_cast` and the
converting instructions share them."""

from __future__ import annotations

import numpy as np

from .bf16 import round_bits
from .enums import RoundMode


def _pick(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, mode: RoundMode, odd_hi: np.ndarray) -> np.ndarray:
    """Choose between the neighbours lo <= x <= hi (float64 arrays) by rounding mode."""
    if mode == RoundMode.CAST_FLOOR:
        return lo
    if mode == RoundMode.CAST_CEIL:
        return hi
    if mode == RoundMode.CAST_TRUNC:
        return np.where(x < 0, hi, lo)
    if mode == RoundMode.CAST_ODD:
        return np.where(lo == hi, lo, np.where(odd_hi, hi, lo))
    dlo, dhi = x - lo, hi - x
    if mode == RoundMode.CAST_ROUND:  # nearest, ties away from zero
        return np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(x < 0, lo, hi)))
    raise AssertionError(mode)


def to_f16(x: np.ndarray, mode: RoundMode) -> np.ndarray:
    near = x.astype(np.float16)
    if mode in (RoundMode.CAST_NONE, RoundMode.CAST_RINT):
        return near
    xd = x.astype(np.float64)
    nd = near.astype(np.float64)
    lo = np.where(nd > xd, np.nextafter(near, np.float16(-np.inf)), near)
    hi = np.where(nd < xd, np.nextafter(near, np.float16(np.inf)), near)
    odd_hi = (hi.view(np.uint16) & 1).astype(bool)
    return _pick(xd, lo.astype(np.float64), hi.astype(np.float64), mode, odd_hi).astype(np.float16)


def to_bf16(x: np.ndarray, mode: RoundMode) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16) with the given rounding."""
    if mode in (RoundMode.CAST_NONE, RoundMode.CAST_RINT):
        return round_bits(x)
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    t = u & 0xFFFF0000  # truncated toward zero
    exact = t == u
    away = np.where(exact, t, t + 0x10000)  # next magnitude up, same sign
    neg = (u >> 31).astype(bool)
    lo_bits = np.where(neg, away, t)
    hi_bits = np.where(neg, t, away)
    f = u.view(np.float32).astype(np.float64)
    lo, hi = lo_bits.view(np.float32).astype(np.float64), hi_bits.view(np.float32).astype(np.float64)
    odd_hi = ((hi_bits >> 16) & 1).astype(bool)
    chosen = _pick(f, lo, hi, mode, odd_hi).astype(np.float32)
    return (chosen.view(np.uint32) >> 16).astype(np.uint16)


INT_ROUND = {
    RoundMode.CAST_NONE: np.rint, RoundMode.CAST_RINT: np.rint, RoundMode.CAST_FLOOR: np.floor,
    RoundMode.CAST_CEIL: np.ceil, RoundMode.CAST_TRUNC: np.trunc,
    RoundMode.CAST_ROUND: lambda v: np.trunc(v + np.copysign(0.5, v)),
}


def to_int(x: np.ndarray, dt: np.dtype, mode: RoundMode) -> np.ndarray:
    """Numbers -> integer type `dt`, rounded as `mode` says and saturated to its range (the vector unit's,
    the scalar unit's and the converting instructions' float -> integer casts)."""
    info = np.iinfo(dt)
    return np.clip(INT_ROUND[mode](x.astype(np.float64)), info.min, info.max).astype(dt)

"""Shape of one kernel access event, computed once and shared by the tools that look at it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runtime import KernelAccess


@dataclass
class Span:
    """`contiguous`: the elements are exactly [lo, hi) in steps of itemsize (no offsets to look at)."""

    contiguous: bool


_last: tuple[KernelAccess, Span] | None = None


def span_of(ka: KernelAccess) -> Span:
    """Classify `ka` (cached for the event being dispatched: every tool sees the same object)."""
    global _last
    if _last is not None and _last[0] is ka:
        return _last[1]
    k = ka.itemsize
    if ka.offsets is None:
        s = Span(True)
    else:
        n = len(ka.offsets)
        s = Span(
            n > 0 and (ka.hi - ka.lo) == n * k and int(ka.offsets[0]) == ka.lo
            and (n == 1 or bool((np.diff(ka.offsets) == k).all()))
        )
    _last = (ka, s)
    return s


def element_offsets(ka: KernelAccess) -> np.ndarray:
    """Byte offset of every element (materialised only when a report needs one)."""
    if ka.offsets is not None:
        return np.asarray(ka.offsets, dtype=np.int64)
    return np.arange(ka.lo, ka.hi - ka.itemsize + 1, ka.itemsize, dtype=np.int64)

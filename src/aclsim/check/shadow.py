"""Shadow memory for initcheck: the program-order index of the first write of every byte.

Whole-range writes and reads (copies, memsets, contiguous kernel accesses) are kept as a short
list of runs `[lo, hi, index]`, so their cost does not grow with the buffer. Element-wise kernel
stores switch an allocation to a dense int32 array holding `IMAX - index` per byte (0 = never
written; np.zeros is committed lazily by the OS).
"""

from __future__ import annotations

import numpy as np

IMAX = int(np.iinfo(np.int32).max)
MAX_RUNS = 64
BEFORE_ALL = -1  # index of writes that happened before checking started


class Shadow:
    """First-write indices of the bytes of one allocation."""

    __slots__ = ("dense", "runs", "size")

    def __init__(self, size: int, written: bool = False) -> None:
        self.size = size
        self.runs: list[list[int]] = [[0, size, BEFORE_ALL]] if written else []  # sorted, disjoint
        self.dense: np.ndarray | None = None

    # ------------------------------------------------------------------ writes
    def write_range(self, lo: int, hi: int, index: int) -> None:
        lo, hi = max(lo, 0), min(hi, self.size)
        if lo >= hi:
            return
        if self.dense is not None:
            view = self.dense[lo:hi]
            np.maximum(view, IMAX - index, out=view)
            return
        for r in self.runs:
            if r[0] <= lo and hi <= r[1] and r[2] <= index:
                return  # already written earlier: the first write stands
        out: list[list[int]] = []
        pos = lo
        for r in self.runs:
            if r[1] <= lo or r[0] >= hi:
                out.append(r)
                continue
            if r[0] < lo:
                out.append([r[0], lo, r[2]])
            if r[0] > pos:
                out.append([pos, r[0], index])
            a, b = max(r[0], lo), min(r[1], hi)
            out.append([a, b, min(r[2], index)])
            pos = b
            if r[1] > hi:
                out.append([hi, r[1], r[2]])
        if pos < hi:
            out.append([pos, hi, index])
        out.sort()
        merged: list[list[int]] = []
        for r in out:
            if merged and merged[-1][1] == r[0] and merged[-1][2] == r[2]:
                merged[-1][1] = r[1]
            else:
                merged.append(r)
        self.runs = merged
        if len(merged) > MAX_RUNS:
            self._densify()

    def write_elements(self, offs: np.ndarray, k: int, index: int) -> None:
        """Element-wise store of k bytes at each offset (offsets already inside the allocation)."""
        if self.dense is None:
            self._densify()
        assert self.dense is not None
        value = IMAX - index
        if k > 1 and self.size % k == 0 and not (offs % k).any():
            rows, idx = self.dense.reshape(-1, k), offs // k
            rows[idx] = np.maximum(rows[idx], value)
            return
        idx = (offs[:, None] + np.arange(k)).ravel() if k > 1 else offs
        self.dense[idx] = np.maximum(self.dense[idx], value)

    def _densify(self) -> None:
        dense = np.zeros(self.size, dtype=np.int32)
        for lo, hi, index in self.runs:
            dense[lo:hi] = IMAX - index
        self.dense, self.runs = dense, []

    # ------------------------------------------------------------------ reads
    def unwritten_range(self, lo: int, hi: int, index: int) -> np.ndarray | None:
        """Byte offsets in [lo, hi) not written before program index `index`, or None if all were."""
        lo, hi = max(lo, 0), min(hi, self.size)
        if lo >= hi:
            return None
        if self.dense is not None:
            view = self.dense[lo:hi]
            if view.min() > IMAX - index:
                return None
            return lo + np.flatnonzero(view <= IMAX - index)
        for a, b, i in self.runs:
            if a <= lo and hi <= b and i < index:
                return None  # one earlier write covers it all
        bad, pos = [], lo
        for a, b, i in self.runs:
            if b <= lo or a >= hi:
                continue
            if a > pos:
                bad.append((pos, a))
            if i >= index:
                bad.append((max(a, lo), min(b, hi)))
            pos = min(b, hi)
        if pos < hi:
            bad.append((pos, hi))
        if not bad:
            return None
        return np.concatenate([np.arange(a, b, dtype=np.int64) for a, b in bad])

    def unwritten_elements(self, offs: np.ndarray, k: int, index: int) -> np.ndarray | None:
        """Positions (into `offs`) of elements with a byte not written before `index`, or None."""
        if offs.size == 0:
            return None
        if self.dense is None:
            good: list[list[int]] = []
            for a, b, i in self.runs:
                if i < index:
                    if good and good[-1][1] == a:
                        good[-1][1] = b
                    else:
                        good.append([a, b])
            if not good:
                return np.arange(offs.size)
            starts = np.array([a for a, _ in good], dtype=np.int64)
            ends = np.array([b for _, b in good], dtype=np.int64)
            j = np.searchsorted(starts, offs, side="right") - 1
            ok = (j >= 0) & (offs + k <= ends[np.maximum(j, 0)])
            return None if ok.all() else np.flatnonzero(~ok)
        if k == 1:
            vals = self.dense[offs][:, None]
        elif self.size % k == 0 and not (offs % k).any():
            vals = self.dense.reshape(-1, k)[offs // k]
        else:
            vals = self.dense[offs[:, None] + np.arange(k)]
        if vals.min() > IMAX - index:
            return None
        return np.flatnonzero((vals <= IMAX - index).any(axis=1))

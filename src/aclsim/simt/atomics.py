"""Atomic read-modify-write over many lanes at once, with exactly serialized results.

Lanes are applied in lane order: the lane that comes first updates first, so every lane gets
the old value it would see if the lanes ran one after another, and the final memory value is
that serial result (for floats too: each step rounds as a single atomic add would).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# op -> ufunc combining (old, value); "exch", "cas", "inc" and "dec" are special. nanmax/nanmin ignore a
# NaN operand (numba's atomic.nanmax: numpy's nanmax of the two), max/min propagate it.
UFUNCS = {
    "add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "nanmax": np.fmax, "nanmin": np.fmin,
}
_SERIAL = ("cas", "inc", "dec")  # no accumulate: chains of these run one update at a time
_BIG_GROUP = 16  # groups with more lanes than this are accumulated one by one, the rest in rounds


def apply(op: str, old: Any, v: Any, cmp: Any = None) -> Any:
    """The new value of an element holding `old` after one atomic `op` with value v (cas: compare cmp).

    inc/dec are CUDA's atomicInc/atomicDec (numba's atomic.inc/dec): inc wraps to 0 once old >= v,
    dec to v when old is 0 or above v."""
    if op == "exch":
        return v
    if op == "cas":
        return np.where(old == cmp, v, old)
    if op == "inc":
        return np.where(old >= v, 0, old + 1).astype(np.result_type(old), copy=False)
    if op == "dec":
        return np.where((old == 0) | (old > v), v, old - 1).astype(np.result_type(old), copy=False)
    return UFUNCS[op](old, v)


def _chain(op: str, first: Any, v: np.ndarray, cmp: np.ndarray | None) -> np.ndarray:
    """Old values seen by a chain of updates to one address starting from `first`."""
    if op == "exch":
        return np.concatenate(([first], v[:-1])).astype(v.dtype, copy=False)
    if op in _SERIAL:
        out = np.empty(v.shape[0], v.dtype)
        cur = first
        for i in range(v.shape[0]):
            out[i] = cur
            cur = apply(op, cur, v[i], cmp[i] if cmp is not None else None)[()]
        return out
    run = UFUNCS[op].accumulate(np.concatenate(([first], v[:-1])).astype(v.dtype, copy=False), dtype=v.dtype)
    return run


def serial_apply(arr: np.ndarray, k: np.ndarray, v: np.ndarray, op: str, cmp: np.ndarray | None = None) -> np.ndarray:
    """Apply `arr[k[i]] = op(arr[k[i]], v[i])` for i in order; return each lane's old value."""
    n = k.shape[0]
    if n == 0:
        return np.empty(0, arr.dtype)
    order = np.argsort(k, kind="stable")
    s = k[order]
    start = np.empty(n, bool)
    start[0] = True
    np.not_equal(s[1:], s[:-1], out=start[1:])
    if start.all():  # every lane hits its own element: one vectorized step
        old = arr[k]
        arr[k] = apply(op, old, v, cmp)
        return old
    sv = v[order]
    sc = cmp[order] if cmp is not None else None
    old_sorted = np.empty(n, arr.dtype)
    firsts = np.flatnonzero(start)
    sizes = np.diff(np.append(firsts, n))
    pos = np.arange(n)
    rank = pos - np.repeat(firsts, sizes)
    if op in ("add", "sub") and arr.dtype.kind in "iu":
        # Integer sums wrap exactly, so a global running sum gives every prefix within a group.
        sv2 = sv if op == "add" else np.negative(sv)
        cs = np.cumsum(sv2, dtype=arr.dtype)
        excl = cs - sv2
        base = np.repeat(excl[firsts], sizes)
        old_sorted[:] = np.repeat(arr[s[firsts]], sizes) + (excl - base)
        last = firsts + sizes - 1
        arr[s[firsts]] = old_sorted[last] + sv2[last]
    else:
        big = sizes > _BIG_GROUP
        for g in np.flatnonzero(big):  # long chains on one address: accumulate along the chain
            a, b = firsts[g], firsts[g] + sizes[g]
            old_sorted[a:b] = _chain(op, arr[s[a]], sv[a:b], sc[a:b] if sc is not None else None)
            arr[s[a]] = apply(op, old_sorted[b - 1 : b], sv[b - 1 : b], sc[b - 1 : b] if sc is not None else None)[0]
        rounds_of = np.repeat(~big, sizes)
        if rounds_of.any():
            sel_rank = np.where(rounds_of, rank, -1)
            for r in range(int(sel_rank.max()) + 1):  # lanes of rank r touch distinct addresses
                p = np.flatnonzero(sel_rank == r)
                addr = s[p]
                old = arr[addr]
                old_sorted[p] = old
                arr[addr] = apply(op, old, sv[p], sc[p] if sc is not None else None)
    out = np.empty(n, arr.dtype)
    out[order] = old_sorted
    return out


def as_values(v: Any, n: int, dtype: np.dtype) -> np.ndarray:
    """A length-n array of v (already cast to dtype) for the active lanes."""
    if isinstance(v, np.ndarray) and v.ndim:
        return v
    return np.full(n, v, dtype)

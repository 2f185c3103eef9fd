"""`LocalTensorAuto`: UB tensors placed by the compiler, as in pyasc's auto-synchronisation mode.

pyasc (`core/tensor.py`, `python/test/kernels/insert_sync`) lets a kernel write
`asc.LocalTensorAuto(dtype, shape)` without a TPipe or queues: the compiler places the tensor in UB,
frees it after its last use and inserts the pipe synchronisation (`@asc.jit(insert_sync=True)` is
implied). Here instructions run in program order, so no synchronisation is needed; the memory comes
from the top of the usable UB downwards (TPipe buffers grow from the bottom and may not meet it)
and returns when the last view of the tensor is dropped, the closest Python has to "after its last
use". Fresh memory holds garbage: reading it before writing is an error as for any tensor.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

from .. import faults
from ..aicore.pool import Pool
from ..faults import fail
from ..types.dtypes import as_dtype
from ..types.enums import TPosition
from .local import FIXED, Buffer, LocalTensor


class Arena:
    """The auto tensors' part of one core's UB: `[low, usable)`, reused first-fit."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.low = pool.usable
        self.free: list[tuple[int, int]] = []  # (offset, size) of released blocks inside [low, usable)

    def take(self, size: int, api: str) -> int:
        for i, (lo, n) in enumerate(self.free):
            if n >= size:
                if n == size:
                    del self.free[i]
                else:
                    self.free[i] = (lo + size, n - size)
                return lo
        if self.low - size < self.pool.top:
            used = self.pool.usable - self.low - sum(n for _, n in self.free)
            fail(api, f"UB is full: {size} bytes more do not fit beside {used} bytes of live LocalTensorAuto tensors "
                      f"and {self.pool.top} bytes of TPipe buffers ({self.pool.usable} usable)")
        self.low -= size
        return self.low

    def give(self, lo: int, size: int) -> None:
        self.free.append((lo, size))
        self.free.sort()
        merged: list[tuple[int, int]] = []  # coalesce neighbours, or a loop's allocations fragment the UB
        for blo, n in self.free:
            if merged and merged[-1][0] + merged[-1][1] == blo:
                merged[-1] = (merged[-1][0], merged[-1][1] + n)
            else:
                merged.append((blo, n))
        self.free = merged
        while self.free and self.free[0][0] == self.low:  # give the bottom back to TPipe
            self.low += self.free.pop(0)[1]


def arena(core: Any) -> Arena:
    """The core's arena of LocalTensorAuto tensors (made on first use; TPipe.init_buffer stops below it)."""
    a = core.units.get(Arena)
    if a is None:
        a = core.units[Arena] = Arena(core.pool("UB"))
    return a


class LocalTensorAuto(LocalTensor):
    """`asc.LocalTensorAuto(dtype, shape)`: a UB tensor of prod(shape) elements, no queue needed."""

    __slots__ = ()

    def __init__(self, dtype: Any, shape: Any, core: Any = None) -> None:
        api = "LocalTensorAuto"
        core = core if core is not None else faults.running(api)
        dt = as_dtype(dtype)
        count = math.prod(int(d) for d in shape) if isinstance(shape, list | tuple) else int(shape)
        if count <= 0:
            fail(api, f"the shape must have at least one element, got {shape!r}")
        size = -(-count * dt.itemsize // 32) * 32
        a = arena(core)
        lo = a.take(size, api)
        b = Buffer(a.pool, lo, size, None, 0, TPosition.VECCALC, FIXED)
        a.pool.unwrite(lo, lo + size)
        a.pool.watch = False  # the compiler inserts this core's synchronisation from here on: nothing to judge
        weakref.finalize(b, a.give, lo, size)
        t = b.tensor(dt)
        self.dtype, self.buf, self.gen, self.lo, self.arr = dt, b, t.gen, lo, t.arr[:count]
        self.end = lo + count * dt.itemsize

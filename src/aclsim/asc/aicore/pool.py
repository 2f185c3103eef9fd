"""The local memories of a core (UB, L1, L0A, L0B, L0C, BiasTable): contents and written-flags."""

from __future__ import annotations

from typing import Any

import numpy as np

from aclsim.chips import ChipProfile

ONES = memoryview(b"\x01" * (1 << 20))
ZEROS = memoryview(bytes(1 << 20))
_U8 = np.dtype(np.uint8)


class Pool:
    """One on-chip memory of a core (UB, L1, L0A, L0B, L0C, BT = BiasTable).

    `bytes` holds the contents (garbage until written, as on hardware), `usable` what TPipe.init_buffer may
    carve, `top` the next free offset, `core` the core it belongs to (observers name it), `watch` whether the
    sanitizer wants its pipe accesses (aicore/pipes.py).

    The pool also keeps one written-flag per byte (1 = written since it was allocated), reached only through
    its methods: `unwritten` finds a byte never written, `mark` and `marks` set flags, `flags` reads them.
    Flags go from 1 back to 0 only through `unwrite`, `set_flags` and `refill`, which start a new `epoch` (read it
    anywhere, change it nowhere else: a test holds the code to both): a check that found bytes written stays true
    while the epoch is unchanged (the operand memo of `memory.local.Checked` relies on this).
    """

    __slots__ = ("_flags", "_written", "bytes", "core", "epoch", "name", "size", "top", "usable", "watch")

    def __init__(self, name: str, size: int, usable: int, garbage: np.ndarray) -> None:
        self.name = name
        self.size = size
        self.usable = usable
        self.bytes = garbage[:size].copy()
        self._written = bytearray(size)
        self._flags = np.frombuffer(self._written, dtype=np.uint8)  # the flags as numpy, for strided views
        self.top = 0
        self.epoch = 0  # read it anywhere; only this class changes it
        self.core: Any = None
        self.watch = False

    def refill(self, garbage: np.ndarray) -> None:
        """Back to the state of a fresh core (the next block of a launch reuses the memory)."""
        np.copyto(self.bytes, garbage[: self.size])
        self._flags.fill(0)
        self.epoch += 1
        self.top = 0
        self.watch = False

    def unwritten(self, lo: int, hi: int) -> int:
        """The first byte of [lo, hi) never written, or -1."""
        return self._written.find(0, lo, hi)

    def mark(self, lo: int, hi: int) -> None:
        """Mark bytes [lo, hi) written."""
        w = self._written
        if w.find(0, lo, hi) >= 0:  # (a memchr: cheaper than marking bytes already marked)
            w[lo:hi] = ONES[: hi - lo]

    def unwrite(self, lo: int, hi: int) -> None:
        """Mark bytes [lo, hi) never written (a fresh allocation holds nothing meaningful)."""
        self._written[lo:hi] = ZEROS[: hi - lo]
        self.epoch += 1

    def flags(self, offset: int = 0, shape: Any = None, strides: Any = None, dtype: Any = _U8) -> np.ndarray:
        """A read-only view of the written-flags (`np.ndarray(shape, dtype, flags, offset, strides)`; the whole
        memory as bytes by default)."""
        v = self._flags if shape is None else np.ndarray(shape, dtype, self._flags, offset, strides)
        v = v.view()
        v.flags.writeable = False
        return v

    def marks(self, offset: int, shape: Any, strides: Any = None, dtype: Any = _U8) -> np.ndarray:
        """A writable view of the written-flags for marking bytes written: assign ones (of `dtype`'s width) only."""
        return np.ndarray(shape, dtype, self._flags, offset, strides)

    def set_flags(self, offset: int, shape: Any, strides: Any, values: Any) -> None:
        """Copy written-flags (from another memory, as a move carries them): a 0 among them starts a new epoch."""
        np.ndarray(shape, _U8, self._flags, offset, strides)[...] = values
        if not np.all(values):
            self.epoch += 1


def pool_geometry(name: str, chip: ChipProfile) -> tuple[int, int]:
    """(size, usable bytes) of a local memory on `chip` (`ub_usable`: the UB less what Ascend C reserves,
    kernel_utils_constants.h in hicann/asc-devkit)."""
    if name == "UB":
        return chip.ub_size, chip.ub_usable
    size = {"L1": chip.l1_size, "L0A": chip.l0a_size, "L0B": chip.l0b_size, "L0C": chip.l0c_size,
            "BT": chip.bt_size}[name]
    return size, size

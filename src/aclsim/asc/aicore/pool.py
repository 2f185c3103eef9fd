"""The local memories of a core (UB, L1, L0A, L0B, L0C, BiasTable): contents and written-flags."""

from __future__ import annotations

import numpy as np

from aclsim.chips import ChipProfile


class Pool:
    """One on-chip memory of a core (UB, L1, L0A, L0B, L0C, BT = BiasTable).

    `bytes` holds the contents (garbage until written, as on hardware), `written` one flag byte per
    byte (1 = written since it was allocated), `usable` what TPipe.init_buffer may carve, `top` the
    next free offset. Flags go from 1 back to 0 only through `unwrite` (and `refill`), which bump
    `epoch`: a check that found bytes written stays true while the epoch is unchanged (the vector
    operand memo of `tensors.Checked` relies on this).
    """

    __slots__ = ("bytes", "epoch", "name", "size", "top", "usable", "watch", "written", "wview")

    def __init__(self, name: str, size: int, usable: int, garbage: np.ndarray) -> None:
        self.name = name
        self.size = size
        self.usable = usable
        self.bytes = garbage[:size].copy()
        self.written = bytearray(size)
        self.wview = np.frombuffer(self.written, dtype=np.uint8)  # the flags as numpy, for strided checks
        self.top = 0
        self.epoch = 0

    def refill(self, garbage: np.ndarray) -> None:
        """Back to the state of a fresh core (the next block of a launch reuses the memory)."""
        np.copyto(self.bytes, garbage[: self.size])
        self.wview.fill(0)
        self.epoch += 1
        self.top = 0
        self.watch = False  # the sanitizer wants its pipe accesses (asc/pipes.py); set per core by the launch


    def unwrite(self, lo: int, hi: int) -> None:
        """Mark bytes [lo, hi) never written (a fresh allocation holds nothing meaningful)."""
        self.written[lo:hi] = ZEROS[: hi - lo]
        self.epoch += 1


ONES = memoryview(b"\x01" * (1 << 20))
ZEROS = memoryview(bytes(1 << 20))


def pool_geometry(name: str, chip: ChipProfile) -> tuple[int, int]:
    """(size, usable bytes) of a local memory on `chip` (reference §1.2 and kernel_utils_constants.h)."""
    if name == "UB":
        return chip.ub_size, chip.ub_usable
    size = {"L1": chip.l1_size, "L0A": chip.l0a_size, "L0B": chip.l0b_size, "L0C": chip.l0c_size,
            "BT": chip.bt_size}[name]
    return size, size


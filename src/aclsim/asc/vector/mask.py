"""The vector mask register: `set_vector_mask`, `reset_mask`, `set_mask_count`, `set_mask_norm`.

Semantics from pyasc's docs (`docs/python-api/language/generated/asc.language.basic.set_vector_mask.md`
and `copy.md`) and the Ascend C API reference (SetVectorMask, hicann/asc-devkit docs): one repeat of a vector
instruction covers 256 bytes, i.e. 128 lanes of a 16-bit type or 64 of a 32-bit type. In NORMAL mode
the register holds one bit per lane (lane i active when bit i is 1; `mask_low` is lanes 0..63,
`mask_high` lanes 64..127); in COUNTER mode it holds how many elements the whole instruction
processes and the repeat count is derived from it. A core starts, and `reset_mask` returns it, with
every lane on (inference: the documented default of reset_mask, "全1").
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..faults import fail
from ..table import instruction
from ..types.dtypes import as_dtype
from ..types.enums import MaskMode

FULL = (1 << 128) - 1
MASK_PLACEHOLDER = 0  # the mask argument of an instruction called with is_set_mask=False


class MaskRegister:
    """Mode (NORMAL/COUNTER) and value: lane bits in NORMAL mode, an element count in COUNTER mode."""

    __slots__ = ("bits", "count", "counter")

    def __init__(self) -> None:
        self.counter = False
        self.bits = FULL
        self.count = 0


def lanes_per_repeat(itemsize: int) -> int:
    """Elements one repeat (256 bytes) covers; masks address at most 128 lanes."""
    return 256 // itemsize if itemsize > 1 else 128


@functools.lru_cache(maxsize=256)
def lane_flags(bits: int, lanes: int) -> np.ndarray:
    """Boolean per lane of a repeat for a NORMAL-mode mask value."""
    return np.array([(bits >> i) & 1 for i in range(lanes)], dtype=bool)


def normal_bits(api: str, mask: Any, itemsize: int) -> int:
    """Validate a NORMAL-mode mask argument (int: the first `mask` lanes; list: [low, high] bit words)."""
    lanes = lanes_per_repeat(itemsize)
    if isinstance(mask, list | tuple):
        words = [int(w) for w in mask]
        if not 1 <= len(words) <= 2 or any(not 0 <= w < 1 << 64 for w in words):
            fail(api, f"a bit mask is a list of one or two 64-bit words [low, high], got {mask!r}")
        # bits past the lanes a repeat has select nothing: pyasc's own tests pass [2**64-1] * 2 for float32
        bits = (words[0] | (words[1] << 64 if len(words) == 2 else 0)) & ((1 << lanes) - 1)
        if not bits:
            fail(api, f"the bit mask {mask!r} enables none of the {lanes} lanes of a {itemsize * 8}-bit repeat")
        return bits
    n = int(mask)
    if not 1 <= n <= lanes:
        fail(api, f"mask = {n} is out of range: a repeat of a {itemsize * 8}-bit type has 1..{lanes} lanes")
    return (1 << n) - 1


@instruction("SetVectorMask", "set_vector_mask", "vector")
def set_vector_mask(core: Any, length: int, dtype: Any, mode: int = MaskMode.NORMAL) -> None:
    """Set the mask to the first `length` lanes (NORMAL mode) or to `length` elements (COUNTER mode)."""
    _set(core, "set_vector_mask", MaskMode(mode), length, None, as_dtype(dtype).itemsize)


@instruction("SetVectorMask(maskHigh, maskLow)", "set_vector_mask", "vector")
def set_vector_mask_bits(core: Any, mask_high: int, mask_low: int, dtype: Any, mode: int = MaskMode.NORMAL) -> None:
    """Set the mask's lane bits: `mask_low` lanes 0..63, `mask_high` lanes 64..127 (NORMAL mode); in COUNTER mode
    `mask_low` is the element count. The words go into the register as they are, so the register's mode decides
    what they mean whatever `mode` says (CANN's A2/A3 implementation writes them unchanged: its own examples set
    a count with the NORMAL default after SetMaskCount)."""
    MaskMode(mode)
    reg_mode = MaskMode.COUNTER if core.state(MaskRegister).counter else MaskMode.NORMAL
    _set(core, "set_vector_mask", reg_mode, mask_low, mask_high, as_dtype(dtype).itemsize)


def _set(core: Any, api: str, mode: MaskMode, low: int, high: int | None, itemsize: int) -> None:
    reg = core.state(MaskRegister)
    if (mode == MaskMode.COUNTER) != reg.counter:
        now, call = ("COUNTER", "set_mask_norm") if reg.counter else ("NORMAL", "set_mask_count")
        fail(api, f"mode=MaskMode.{mode.name} but the mask register is in {now} mode: call asc.{call}() first, "
                  "or the value is read with the other meaning")
    if mode == MaskMode.COUNTER:
        n = int(low)  # the high word does not count in COUNTER mode
        if n < 0:
            fail(api, f"the element count must be >= 0, got {n}")
        reg.count = n
    elif high is None:
        reg.bits = normal_bits(api, int(low), itemsize)
    else:
        reg.bits = normal_bits(api, [int(low), int(high)], itemsize)


@instruction("ResetMask", "reset_mask", "vector")
def reset_mask(core: Any) -> None:
    """Every lane on again."""
    reg = core.state(MaskRegister)
    reg.bits = FULL
    reg.count = 0


@instruction("SetMaskCount", "set_mask_count", "vector")
def set_mask_count(core: Any) -> None:
    """COUNTER mode: the mask is the number of elements the whole instruction processes."""
    core.state(MaskRegister).counter = True


@instruction("SetMaskNorm", "set_mask_norm", "vector")
def set_mask_norm(core: Any) -> None:
    """NORMAL mode: the mask selects lanes within each repeat."""
    core.state(MaskRegister).counter = False

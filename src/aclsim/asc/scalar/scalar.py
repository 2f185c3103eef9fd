"""Scalar-unit functions (pyasc `basic/scalar.py` and their docs): `scalar_cast`,
`scalar_count_leading_zero`, `scalar_get_count_of_value`, `scalar_get_sff_value`,
`count_bits_cnt_same_as_sign_bit`; and `get_task_ratio` (pyasc `basic/sys_var.py`).

Bit functions read their argument as the 64 bits of a uint64_t (int64_t for the sign-bit count), so a
negative Python int is taken in two's complement, as the C parameter would receive it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..table import instruction
from ..types.convert import to_f16, to_int
from ..types.dtypes import as_dtype
from ..types.enums import RoundMode

BITS = 64
_MASK = (1 << BITS) - 1

# ScalarCast's (target type -> rounding modes) table, pyasc scalar_cast.md ("ScalarCast的精度转换规则与Cast保持一致")
_CAST_MODES = {
    "float16": (RoundMode.CAST_ODD,),
    "int32": (RoundMode.CAST_ROUND, RoundMode.CAST_CEIL, RoundMode.CAST_FLOOR, RoundMode.CAST_RINT),
}


@instruction("ScalarCast", "scalar_cast", "scalar", "S")
def scalar_cast(core: Any, value_in: float, dtype: Any, round_mode: int) -> Any:
    """A float32 scalar converted to float16 (CAST_ODD) or int32 (CAST_ROUND/CEIL/FLOOR/RINT)."""
    api = "scalar_cast"
    dt = as_dtype(dtype)
    mode = RoundMode(round_mode)
    modes = _CAST_MODES.get(dt.name)
    if modes is None or mode not in modes:
        table = "; ".join(f"float32 -> {t}: {', '.join(m.name for m in ms)}" for t, ms in _CAST_MODES.items())
        fail(api, f"float32 -> {dt.name} with {mode.name} is not a ScalarCast conversion ({table})")
    x = np.array([value_in], np.float32)
    if dt.name == "float16":
        return to_f16(x, mode)[0]
    return to_int(x, np.dtype(np.int32), mode)[0]


def _u64(value_in: Any) -> int:
    return int(value_in) & _MASK


def _bit(api: str, count_value: Any) -> int:
    if count_value not in (0, 1):
        fail(api, f"count_value must be 0 or 1, got {count_value!r}")
    return int(count_value)


@instruction("ScalarCountLeadingZero", "scalar_count_leading_zero", "scalar", "S")
def scalar_count_leading_zero(core: Any, value_in: int) -> int:
    """Zeros above the highest 1 bit of a uint64 (64 for 0)."""
    return BITS - _u64(value_in).bit_length()


@instruction("ScalarGetCountOfValue", "scalar_get_count_of_value", "scalar", "S")
def scalar_get_count_of_value(core: Any, value_in: int, count_value: int) -> int:
    """How many of the 64 bits equal count_value (0 or 1)."""
    api = "scalar_get_count_of_value"
    ones = _u64(value_in).bit_count()
    return ones if _bit(api, count_value) else BITS - ones


@instruction("ScalarGetSFFValue", "scalar_get_sff_value", "scalar", "S")
def scalar_get_sff_value(core: Any, value_in: int, count_value: int) -> int:
    """Position of the first bit equal to count_value (0 or 1) from the least significant bit; -1 if none."""
    api = "scalar_get_sff_value"
    v = _u64(value_in) if _bit(api, count_value) else ~_u64(value_in) & _MASK
    return (v & -v).bit_length() - 1


@instruction("CountBitsCntSameAsSignBit", "count_bits_cnt_same_as_sign_bit", "scalar", "S")
def count_bits_cnt_same_as_sign_bit(core: Any, value_in: int) -> int:
    """Consecutive bits below the sign bit of an int64 that equal it; -1 for 0 and -1 (all bits equal)."""
    v = _u64(value_in)
    if v in (0, _MASK):
        return -1
    if v >> (BITS - 1):
        v = ~v & _MASK  # count ones below a set sign bit as zeros below a clear one
    return BITS - 1 - v.bit_length()


@instruction("GetTaskRation", "get_task_ratio", "system")
def get_task_ratio(core: Any) -> int:
    """AIVs (or AICs) per AI Core of the launch: 2 on the AIVs of a 1:2 mix kernel, else 1 (always 1 on a
    coupled chip), pyasc get_task_ratio.md."""
    return core.launch.mix

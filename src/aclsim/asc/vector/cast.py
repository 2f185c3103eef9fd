"""`cast`: convert a tensor into another element type with a rounding mode (count and mask/repeat forms).

Signature: pyasc `basic/vec_vconv.py`; conversions and modes per chip: CANN's CastIntrinsicsImpl overloads
(`impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.convert import INT_ROUND, to_bf16, to_f16, to_int
from ..types.dtypes import DataType, bfloat16
from ..types.enums import RoundMode
from . import masked
from .elementwise import count_of
from .repeat import Repeat

_ROUNDING = frozenset({RoundMode.CAST_RINT, RoundMode.CAST_FLOOR, RoundMode.CAST_CEIL, RoundMode.CAST_ROUND,
                       RoundMode.CAST_TRUNC})
_NONE = frozenset({RoundMode.CAST_NONE})
_NO_ODD = _ROUNDING | _NONE
# (src, dst) -> the round modes A2/A3 convert with: CANN's CastIntrinsicsImpl overloads and CheckCastDatatype
# (`impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h`); any other pair or mode is refused there.
A2_CASTS: dict[tuple[str, str], frozenset[RoundMode]] = {
    ("float16", "int32"): _ROUNDING, ("float16", "int16"): _ROUNDING, ("float16", "float32"): _NONE,
    ("float16", "int8"): _NO_ODD, ("float16", "uint8"): _NO_ODD,
    ("float32", "float32"): _ROUNDING, ("float32", "int32"): _ROUNDING, ("float32", "float16"): frozenset(RoundMode),
    ("float32", "int64"): _ROUNDING, ("float32", "int16"): _ROUNDING, ("float32", "bfloat16"): _ROUNDING,
    ("bfloat16", "float32"): _NONE, ("bfloat16", "int32"): _ROUNDING,
    ("uint8", "float16"): _NONE, ("int8", "float16"): _NONE, ("int16", "float16"): _NO_ODD, ("int16", "float32"): _NONE,
    ("int32", "float32"): _NO_ODD, ("int32", "int16"): _NONE, ("int32", "int64"): _NONE,
    ("int32", "float16"): frozenset(RoundMode),  # vconv_deq: the mode is not used
    ("int64", "int32"): _NONE, ("int64", "float32"): _ROUNDING,
}


def _cast_supported(core: Any, api: str, sd: DataType, dd: DataType, mode: RoundMode) -> None:
    chip = core.chip
    if not chip.separated:
        return  # the Atlas inference (310P) conversion table is not modeled: every pair converts
    modes = A2_CASTS.get((sd.name, dd.name))
    if modes is None:
        fail(api, f"{sd.name} -> {dd.name} is not a conversion {chip.name} has")
    if mode not in modes:
        fail(api, f"{sd.name} -> {dd.name} does not take RoundMode.{mode.name} on {chip.name} (it takes "
                  f"{', '.join(m.name for m in sorted(modes))})")


@instruction("Cast", "cast", "vector", "V")
def cast(core: Any, dst: LocalTensor, src: LocalTensor, round_mode: int, n: int | Repeat) -> None:
    """Convert `src` into `dst`'s type, rounding by `round_mode`, the first `n` elements or the lanes of a
    mask/repeat call (masked.py).

    CAST_NONE rounds to nearest even when precision is lost; float -> integer saturates (inference:
    the vector unit's conversions saturate rather than wrap); CAST_ODD applies to float narrowing.
    """
    api = "cast"
    if type(n) is not Repeat and not count_of(api, n):
        return
    mode = RoundMode(round_mode)
    sd, dd = src.dtype, dst.dtype
    _cast_supported(core, api, sd, dd, mode)
    if dd.is_float is False and sd.is_float and mode == RoundMode.CAST_ODD:
        fail(api, "CAST_ODD applies to float narrowing only")

    def convert(raw: np.ndarray) -> np.ndarray:
        x = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32) if sd is bfloat16 else raw
        if dd is bfloat16:
            return to_bf16(x, mode)
        if dd.name == "float16" and x.dtype.itemsize > 2 and x.dtype.kind == "f":
            return to_f16(x, mode)
        if dd is sd and dd.is_float:  # float32 -> float32: round to an integral value (vconv_f322f32r/f/c/a/z)
            return INT_ROUND[mode](x.astype(np.float64)).astype(dd.np)
        if dd.is_float:
            return x.astype(dd.np)
        if x.dtype.kind == "f":
            return to_int(x, dd.np, mode)
        info = np.iinfo(dd.np)
        return np.clip(x.astype(np.int64), info.min, info.max).astype(dd.np)

    if type(n) is Repeat:
        masked.cast(core, api, dst, src, n, convert)
        return
    out = convert(src.read(n, api))
    dst.write(n, api)[...] = out


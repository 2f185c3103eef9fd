"""bfloat16 values through `ml_dtypes` (optional: `pip install aclsim[bf16]`).

`asc.bfloat16` data is stored as its 16-bit patterns (dtypes.py). Where the Atlas A2/A3 hardware
computes in bfloat16 the result is the float32 computation rounded to the nearest even bfloat16:
GM accumulation under `set_atomic_add/max/min(asc.bfloat16)` (SetAtomicType lists bfloat16_t on
A2/A3), scalar `get_value`/`set_value`, and host arrays of ml_dtypes or torch bfloat16 passed to a
launch. The vector unit's arithmetic instructions (add, mul, ...) take no bfloat16 on A2/A3 (Ascend C
Add page: half/int16_t/int32_t/float): kernels cast to float32 first, as on the NPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail

INSTALL = "pip install aclsim[bf16]"


def ml_bfloat16(api: str | None = None) -> Any:
    """numpy's bfloat16 scalar type from ml_dtypes; a clear error naming the extra when it is missing."""
    try:
        import ml_dtypes
    except ImportError:
        text = f"bfloat16 values need the ml_dtypes package: {INSTALL}"
        if api is None:
            raise ImportError(text) from None
        fail(api, text)
    return ml_dtypes.bfloat16


def round_bits(x: Any) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), rounded to the nearest even, in plain numpy (no ml_dtypes):
    what the Cube's and the vector unit's float32 -> bfloat16 conversions give; a NaN stays a quiet NaN of
    the same sign."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, (u >> 16).astype(np.uint16) | 0x40, r)


def values(bits: np.ndarray, api: str | None = None) -> np.ndarray:
    """bfloat16 bit patterns viewed as ml_dtypes bfloat16 values (same memory)."""
    return bits.view(np.uint16).view(ml_bfloat16(api))


def bits(x: Any, api: str | None = None) -> np.ndarray:
    """Values rounded to the nearest even bfloat16, as 16-bit patterns."""
    return np.asarray(x, np.float32).astype(ml_bfloat16(api)).view(np.uint16)


def accumulate(api: str, fn: np.ufunc, gm: np.ndarray, ub: np.ndarray) -> None:
    """gm = fn(gm, ub) on bfloat16 patterns, computed in float32 and rounded once."""
    g = values(gm, api)
    g[...] = fn(g.astype(np.float32), values(ub, api).astype(np.float32)).astype(g.dtype)

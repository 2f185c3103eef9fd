"""UB -> GM stores and the atomic mode of the MTE3 path: `set_atomic_add/max/min/none`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..aicore.core import Register
from ..faults import fail
from ..table import instruction
from ..types import bf16
from ..types.dtypes import as_dtype, bfloat16


class AtomicMode(Register):
    """The atomic mode of a core's UB -> GM stores: (API, numpy ufunc, DataType) while set_atomic_* is on."""


def atomic_on(core: Any) -> bool:
    """Whether `core`'s UB -> GM stores accumulate (set_atomic_add/max/min)."""
    return core.state(AtomicMode).value is not None


def store(core: Any, gm: np.ndarray, ub: np.ndarray, dt: Any, api: str) -> None:
    """UB -> GM bytes of `core`: a plain store, or a read-modify-write while set_atomic_* is on."""
    mode = core.units.get(AtomicMode)  # (not state(): this runs for every store)
    atomic = mode.value if mode is not None else None
    if atomic is None:
        gm[...] = ub
        return
    mode, fn, adt = atomic
    if adt is not dt:
        fail(api, f"{mode}({adt.name}) is on but the data is {dt.name}: the atomic type must match what is "
                  "copied out")
    if dt is bfloat16:
        bf16.accumulate(api, fn, gm, ub)
        return
    g = gm.view(dt.np)
    fn(g, ub.view(dt.np), out=g)


@instruction("SetAtomicAdd", "set_atomic_add", "move")
def set_atomic_add(core: Any, dtype: Any) -> None:
    """Following UB -> GM copies add into GM instead of overwriting (cores may then overlap)."""
    _set_atomic(core, "set_atomic_add", np.add, dtype)


@instruction("SetAtomicMax", "set_atomic_max", "move")
def set_atomic_max(core: Any, dtype: Any) -> None:
    """Following UB -> GM copies keep the maximum of GM and the data."""
    _set_atomic(core, "set_atomic_max", np.maximum, dtype)


@instruction("SetAtomicMin", "set_atomic_min", "move")
def set_atomic_min(core: Any, dtype: Any) -> None:
    """Following UB -> GM copies keep the minimum of GM and the data."""
    _set_atomic(core, "set_atomic_min", np.minimum, dtype)


@instruction("SetAtomicNone", "set_atomic_none", "move")
def set_atomic_none(core: Any) -> None:
    """Back to plain UB -> GM stores."""
    core.state(AtomicMode).value = None


def _set_atomic(core: Any, api: str, fn: Any, dtype: Any) -> None:
    dt = as_dtype(dtype)
    types = ("float16", "float32", "int16", "int32", "int8") + (("bfloat16",) if core.chip.separated else ())
    if dt.name not in types:  # SetAtomicType: A2/A3 add bfloat16_t
        fail(api, f"{dt.name} is not supported on {core.chip.name} ({', '.join(types)})")
    if dt is bfloat16:
        bf16.ml_bfloat16(api)
    core.state(AtomicMode).value = (api, fn, dt)



"""Per-thread random numbers with numba's names: an xoroshiro128+ generator per state.

States are an (n, 2) uint64 device array (s0, s1 per state) made on the host by
`create_xoroshiro128p_states(n, seed)`; in a kernel, `xoroshiro128p_uniform_float32(states, i)`
advances state i and returns a number in [0, 1), `..._normal_float32` a standard normal
(Box-Muller on two uniforms). The generator step and the float conversions follow the
published xoroshiro128+ (Blackman & Vigna) as numba's cuda.random does; the states are seeded
with splitmix64 per state rather than numba's jump-ahead, so sequences are independent but not
bit-identical to numba's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import arrays
from .ops import val

_U64 = np.uint64
KINDS = ("uniform_float32", "uniform_float64", "normal_float32", "normal_float64")


def seed_states(n: int, seed: int, start: int = 0) -> np.ndarray:
    """(n, 2) uint64 states from splitmix64 of seed (never all zero); states start, start + 1, ..."""
    with np.errstate(over="ignore"):
        k = (np.arange(2 * start + 1, 2 * (start + n) + 1, dtype=_U64) * _U64(0x9E3779B97F4A7C15)) + _U64(seed & (2**64 - 1))
        z = (k ^ (k >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
        z ^= z >> _U64(31)
    s = z.reshape(n, 2)
    s[(s == 0).all(axis=1), 0] = 1
    return s


def _rotl(x: np.ndarray, k: int) -> np.ndarray:
    return (x << _U64(k)) | (x >> _U64(64 - k))


def _next(C: Any, m: Any, states: Any, index: Any, line: int) -> np.ndarray:
    """One xoroshiro128+ step of state `index` in every active lane (the state is stored back)."""
    i = val(index)
    s0 = np.asarray(arrays.load(C, states, (i, 0), m, line), _U64)
    s1 = np.asarray(arrays.load(C, states, (i, 1), m, line), _U64)
    with np.errstate(over="ignore"):
        out = s0 + s1
        s1 = s1 ^ s0
        arrays.store(C, states, (i, 0), _rotl(s0, 24) ^ s1 ^ (s1 << _U64(16)), m, line)
        arrays.store(C, states, (i, 1), _rotl(s1, 37), m, line)
    return out


def draw(C: Any, m: Any, kind: str, states: Any, index: Any, line: int) -> Any:
    """xoroshiro128p_<kind>(states, index) in every active lane."""
    def unit() -> np.ndarray:
        r = _next(C, m, states, index, line)
        if kind.endswith("32"):
            return ((r >> _U64(40)).astype(np.float32) * np.float32(2.0**-24))
        return (r >> _U64(11)).astype(np.float64) * 2.0**-53

    if kind.startswith("uniform"):
        return unit()
    u1, u2 = unit(), unit()
    ft = u1.dtype.type
    u1 = np.where(u1 == 0, ft(2.0**-53 if ft is np.float64 else 2.0**-24), u1)  # log(0) guard
    return (np.sqrt(ft(-2) * np.log(u1)) * np.cos(ft(2 * np.pi) * u2)).astype(ft)

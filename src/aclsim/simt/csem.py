"""C arithmetic of one thread, on scalars: division, remainder and shifts with every edge case defined.

These functions are the scalar definition of what `/`, `//`, `%`, `<<` and `>>` compute in a kernel
(the numpy engine's vector form is `ops.binop`; the tests compare both). They are plain Python over
numpy scalars, so the per-thread reference executor calls them as they are and the numba JIT compiles
the very same functions (`jitlib`). Operands arrive already converted to the C result type; `z` is
that type's 0 (every branch returns the type of its operands: numba would unify a uint64 with an int
literal as float64).

Where C leaves a result undefined, it is the one numpy's integer loops give (so every engine agrees):
a zero divisor gives 0 for `//` and `%` (and for `/`, the truncation of numpy's 0: 1 for a negative
dividend), `MIN / -1` wraps to MIN, `MIN % -1` is 0, and a shift count outside [0, bits) gives 0
(sign fill for `>>` of a negative signed value).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class OutOfRange(Exception):
    """A position outside the pointer's own allocation, or a zero range step: the numpy engine decides."""


def idiv(a: Any, b: Any, z: Any) -> Any:
    """Signed a / b: numpy's floor division corrected toward zero (C truncation)."""
    if b == 0:
        return z + 1 if a < 0 else z
    if b == -1:
        return z - a
    q = a // b
    if a - q * b != 0 and (a < 0) != (b < 0):
        q += 1
    return q


def udiv(a: Any, b: Any, z: Any) -> Any:
    """Unsigned a / b and a // b."""
    return z if b == 0 else a // b


def ifloordiv(a: Any, b: Any, z: Any) -> Any:
    """Signed a // b (floor division, numpy's np.floor_divide)."""
    if b == 0:
        return z
    if b == -1:
        return z - a
    return a // b


def imod(a: Any, b: Any, z: Any) -> Any:
    """Signed a % b: C's remainder (the sign of the dividend; np.fmod), 0 for b in (0, -1)."""
    if b == 0 or b == -1:
        return z
    r = a % b
    return r - b if r != 0 and (a < 0) != (b < 0) else r


def pymod(a: Any, b: Any, z: Any) -> Any:
    """Signed a % b as Python (and numba) compute it: the sign of the divisor; 0 for a zero divisor."""
    return z if b == 0 else a % b


def umod(a: Any, b: Any, z: Any) -> Any:
    """Unsigned a % b."""
    return z if b == 0 else a % b


def wdiv(a: Any, b: Any) -> Any:
    """a / b of two Python ints (C int literals): truncating, 0 for a zero divisor."""
    if b == 0:
        return 0
    q = abs(np.int64(a)) // abs(np.int64(b))
    return q if (a < 0) == (b < 0) else -q


def wmod(a: Any, b: Any) -> Any:
    """a % b of two Python ints: the sign of the dividend, 0 for a zero divisor."""
    if b == 0:
        return 0
    x, y = np.int64(a), np.int64(b)
    r = x % y
    return r - y if r != 0 and (x < 0) != (y < 0) else r


def fdiv(a: float, b: float) -> float:
    """a / b of two Python floats (doubles): IEEE results instead of Python's ZeroDivisionError."""
    if b != 0:
        return a / b
    if a != 0:
        return math.copysign(math.inf, a)
    return math.nan


def shl(a: Any, b: Any, bits: int) -> Any:
    """a << b in a `bits`-wide type: counts outside [0, bits) give 0 (numpy's npy_lshift)."""
    ok = 0 <= b < bits
    r = a << (b if ok else b - b)  # (a count past the width is undefined in LLVM: never shifted by)
    return r if ok else r ^ r


def shr(a: Any, b: Any, bits: int) -> Any:
    """Signed a >> b: arithmetic; the sign fills for counts outside [0, bits)."""
    ok = 0 <= b < bits
    r = a >> (b if ok else b - b)
    if ok:
        return r
    return (r ^ r) - 1 if a < 0 else r ^ r


def ushr(a: Any, b: Any, bits: int) -> Any:
    """Unsigned a >> b: counts of `bits` or more give 0."""
    ok = b < bits
    r = a >> (b if ok else b - b)
    return r if ok else r ^ r


def chk(j: Any, n: int) -> Any:
    """An element position inside the pointer's own allocation [0, n), or OutOfRange."""
    if j < 0 or j >= n:
        raise OutOfRange()
    return j


def nonzero_step(s: Any) -> Any:
    """A range step; a zero step is left to the numpy engine, which reports it."""
    if s == 0:
        raise OutOfRange()
    return s


SCALAR_OPS = (idiv, udiv, ifloordiv, imod, umod, wdiv, wmod, fdiv, shl, shr, ushr, chk, nonzero_step, pymod)

"""C typing rules for kernel values: usual arithmetic conversions, weak Python literals, casts.

A kernel value is a Python int/float/bool (a *weak* literal that adopts the other operand's type,
like a C literal would after promotion), a numpy scalar (uniform across threads) or a 1-D numpy
array over the launch's lanes. Two typed operands combine as in C: integers narrower than 32 bits
and bools promote to int32, signed/unsigned of equal rank give unsigned (int32 + uint32 -> uint32),
an integer with a float gives the float type, two floats give the wider (float16 stays float16).
Extensions where C would use double: a Python float literal never widens a float32/float16 operand,
and a float with an integer gives float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class _Weak:
    """The type of a Python literal (never equal to a numpy dtype, unlike the strings "int"/"float")."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"weak {self.name}"


WEAK_INT = _Weak("int")  # a Python int / bool
WEAK_FLOAT = _Weak("float")  # a Python float
WEAK_COMPLEX = _Weak("complex")  # a Python complex (1j)
C64 = np.dtype(np.complex64)

I32 = np.dtype(np.int32)
U32 = np.dtype(np.uint32)
I64 = np.dtype(np.int64)
F32 = np.dtype(np.float32)
BOOL = np.dtype(np.bool_)

_INT32_MIN, _INT32_SPAN = -(1 << 31), 1 << 32


def dtype_of(v: Any) -> Any:
    """np.dtype of a typed value, WEAK_INT / WEAK_FLOAT for Python literals."""
    t = type(v)
    if t is np.ndarray:
        return v.dtype
    if t is int or t is bool:
        return WEAK_INT
    if t is float:
        return WEAK_FLOAT
    if t is complex:
        return WEAK_COMPLEX
    if isinstance(v, np.generic):
        return v.dtype
    raise TypeError(f"a {t.__name__} is not a kernel value (numbers, loads and thread indices are)")


def _int_promote(d: np.dtype) -> np.dtype:
    if d.kind == "b" or (d.kind in "iu" and d.itemsize < 4):
        return I32
    return d


def _c_common(a: np.dtype, b: np.dtype) -> np.dtype:
    """C's usual arithmetic conversions for two typed operands (complex: C99's, the wider precision)."""
    if a.kind == "c" or b.kind == "c":
        prec = max(x.itemsize // (2 if x.kind == "c" else 1) for x in (a, b) if x.kind in "fc")
        return np.dtype(np.complex128) if prec >= 8 else C64
    if a.kind == "f" or b.kind == "f":
        if a.kind == "f" and b.kind == "f":
            return a if a.itemsize >= b.itemsize else b
        return a if a.kind == "f" else b
    a, b = _int_promote(a), _int_promote(b)
    if a == b:
        return a
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    u, s = (a, b) if a.kind == "u" else (b, a)
    if u.itemsize >= s.itemsize:
        return u
    return s  # the signed type is wider and holds every unsigned value


_COMMON: dict[tuple[Any, Any], Any] = {}


def common_type(da: Any, db: Any) -> Any:
    """Result type of a binary operation on operands of types da, db (dtypes or weak markers)."""
    key = (da, db)
    r = _COMMON.get(key)
    if r is None:
        if da is WEAK_INT and db is WEAK_INT:
            r = WEAK_INT
        elif type(da) is _Weak and type(db) is _Weak:
            r = WEAK_COMPLEX if WEAK_COMPLEX in (da, db) else WEAK_FLOAT
        elif type(da) is _Weak:
            r = _weak_with(da, db)
        elif type(db) is _Weak:
            r = _weak_with(db, da)
        else:
            r = _c_common(da, db)
        _COMMON[key] = r
    return r


def binop_type(op: str, da: Any, db: Any) -> Any:
    """The C result type of `a <op> b` for operands of types da, db (TypeError where C has no such
    operation): the common type, except a shift, whose type is its left operand's (promoted)."""
    rt = common_type(da, db)
    if op in ("lshift", "rshift"):
        if da is WEAK_FLOAT or db is WEAK_FLOAT or (type(rt) is not _Weak and rt.kind == "f"):
            raise TypeError("shift operands must be integers")
        if da is WEAK_INT:
            return WEAK_INT if db is WEAK_INT else I32
        return common_type(da, WEAK_INT)
    if rt is WEAK_COMPLEX and op not in ("add", "sub", "mul", "truediv", "pow"):
        raise TypeError(f"'{op}' is not defined on complex numbers")
    if op in ("and", "or", "xor") and type(rt) is not _Weak and rt.kind in "fc":
        raise TypeError("bitwise operators need integer operands")
    return rt


def _weak_with(weak: str, d: np.dtype) -> np.dtype:
    if weak is WEAK_INT:
        return d if d.kind in "fc" else _int_promote(d)
    if weak is WEAK_FLOAT:
        return d if d.kind in "fc" else F32
    # a complex literal: the complex type of d's precision (float32 and integers: complex64)
    return d if d.kind == "c" else np.dtype(np.complex128) if d == np.float64 else C64


def wrap_int32(v: int) -> int:
    """A Python int result of literal arithmetic, wrapped like C int (two's complement)."""
    if _INT32_MIN <= v < -_INT32_MIN:
        return v
    return (v - _INT32_MIN) % _INT32_SPAN + _INT32_MIN


def cast(v: Any, dt: np.dtype) -> Any:
    """Convert a kernel value to dtype `dt` as a C conversion would (integers wrap)."""
    t = type(v)
    if t is np.ndarray:
        if v.dtype == dt:
            return v
        return (v.real if v.dtype.kind == "c" and dt.kind != "c" else v).astype(dt)  # C: complex -> real part
    if t is complex:
        return dt.type(v) if dt.kind == "c" else cast(v.real, dt)
    if t is int or t is bool:
        if dt.kind in "iu":
            bits = dt.itemsize * 8
            v &= (1 << bits) - 1
            if dt.kind == "i" and v >= 1 << (bits - 1):
                v -= 1 << bits
        return dt.type(v)
    if t is float:
        if dt.kind in "iu":
            return np.array(v).astype(dt)[()]
        return dt.type(v)
    if v.dtype == dt:
        return v
    if v.dtype.kind == "c" and dt.kind != "c":
        v = v.real
    return np.array(v).astype(dt)[()]


def default_dtype(d: Any) -> np.dtype:
    """The dtype a weak literal takes when it has to be stored per lane (C `int` / `float`)."""
    if d is WEAK_INT:
        return I32
    if d is WEAK_FLOAT:
        return F32
    if d is WEAK_COMPLEX:
        return C64
    return d


def numba_dtype(obj: Any) -> np.dtype | None:
    """The numpy dtype of one of numba's scalar types (`numba.float32`, `numba.types.int64`, ...), else None.

    Recognized without importing numba: its Number/Boolean types print as numpy's names."""
    if not type(obj).__module__.startswith("numba.") or (not hasattr(obj, "bitwidth") and str(obj) != "bool"):
        return None
    try:
        d = np.dtype(str(obj))
    except TypeError:
        return None
    return d if d.kind in "biufc" else None


def element_dtype(obj: Any) -> np.dtype | None:
    """The element type an array declaration names: a numpy type or dtype, its name, or a numba type."""
    d = numba_dtype(obj)
    if d is not None:
        return d
    try:
        return np.dtype(obj)
    except TypeError:
        return None


def scalar_dtype(annotation: Any) -> np.dtype | None:
    """dtype for a scalar parameter annotation (np.uint32, int -> int32, float -> float32, a numba type), or None."""
    nd = numba_dtype(annotation)
    if nd is not None:
        return nd
    if annotation is int:
        return I32
    if annotation is float:
        return F32
    if annotation is bool:
        return BOOL
    try:
        d = np.dtype(annotation)
    except TypeError:
        return None
    if not isinstance(annotation, type) or d.kind not in "biufc":
        return None
    return d

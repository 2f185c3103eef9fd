"""numba's typing for the numba.cuda face: arithmetic result types, kernel signatures, launch arguments.

Arithmetic (`binop_type`, `common_type`): a Python int is an int64, a float a float64 and a complex a
complex128 (numba types literals so, with no value-based narrowing); integers compute 64 bits wide
(int64 when either operand is signed, else uint64: numba's choose_result_int); an integer with a float
gives numpy's result type (int64 with float32: float64); `/` of integers is float64; `//` and `%` are
Python's (floor, the divisor's sign). The C rules of `@simt.kernel` are in ctype.

A `@cuda.jit("void(float32[:], int32)")` signature fixes a kernel's parameter types as numba's does:
arrays by element type and number of dimensions (the layout, `[::1]`, is not needed here), scalars by
type, so a Python int passed for an `int32` parameter is an int32 in the kernel. Signatures are read
from numba's strings (with its short names: f4, i8, u1, b1, c8, ...) or numba's own type objects
(`numba.void(numba.float32[:])`), recognized without importing numba.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .ctype import WEAK_COMPLEX, WEAK_FLOAT, WEAK_INT, _Weak, numba_dtype
from .lang import ArrayType, SimtError

I64, U64, F64, C128, BOOL = (np.dtype(t) for t in (np.int64, np.uint64, np.float64, np.complex128, np.bool_))
_LITERAL = {WEAK_INT: I64, WEAK_FLOAT: F64, WEAK_COMPLEX: C128}


_COMMON: dict[tuple[Any, Any], Any] = {}


def common_type(da: Any, db: Any) -> Any:
    """The type two operands combine to under numba's rules (two literals stay a literal)."""
    key = (da, db)
    r = _COMMON.get(key)
    if r is None:
        if type(da) is _Weak and type(db) is _Weak:
            r = WEAK_COMPLEX if WEAK_COMPLEX in (da, db) else WEAK_FLOAT if WEAK_FLOAT in (da, db) else WEAK_INT
        else:
            a, b = _LITERAL.get(da, da), _LITERAL.get(db, db)
            if a.kind == "b" and b.kind == "b":
                r = BOOL
            elif a.kind in "biu" and b.kind in "biu":  # numba's integer ops: 64 bits, signed if either is
                r = I64 if "i" in (a.kind, b.kind) or "b" in (a.kind, b.kind) else U64
            else:
                r = np.result_type(a, b)
        _COMMON[key] = r
    return r


def binop_type(op: str, da: Any, db: Any) -> Any:
    """numba's result type of `a <op> b` (TypeError where numba has no such operation)."""
    rt = common_type(da, db)
    if type(rt) is _Weak:
        return rt
    if op == "truediv" and rt.kind in "biu":
        return F64
    if op in ("lshift", "rshift", "and", "or", "xor") and rt.kind not in "biu":
        raise TypeError(f"'{op}' needs integer operands")
    if rt.kind == "b" and op not in ("and", "or", "xor"):
        return I64
    if rt.kind == "c" and op in ("floordiv", "mod"):
        raise TypeError(f"'{op}' is not defined on complex numbers")
    return rt


CAST = {int: I64, float: F64, complex: C128, bool: BOOL}  # int(x), float(x), ... under numba's rules


# numba's names of scalar types (numba.core.types.__init__: the aliases) -> numpy names.
_ALIASES = {
    "b1": "bool", "boolean": "bool", "bool_": "bool", "bool": "bool",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32",
    "u8": "uint64", "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128",
    "intp": "int64", "uintp": "uint64", "intc": "int32", "uintc": "uint32", "byte": "uint8", "char": "int8",
    "uchar": "uint8", "short": "int16", "ushort": "uint16", "int_": "int64", "uint": "uint64", "long_": "int64",
    "ulong": "uint64", "longlong": "int64", "ulonglong": "uint64", "float_": "float32", "double": "float64",
    "float": "float64", "int": "int64", "complex": "complex128",
}


def _scalar(name: str) -> np.dtype:
    name = _ALIASES.get(name, name)
    try:
        d = np.dtype(name)
    except TypeError:
        d = None
    if d is None or d.kind not in "biufc":
        raise SimtError(f"cuda.jit: the type {name!r} in a signature is not a scalar type aclsim knows")
    return d


def _split(text: str) -> list[str]:
    """Split at the commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out]


def _arg_from_text(text: str) -> Any:
    m = re.fullmatch(r"(\w+)\s*(?:\[(.*)\])?", text)
    if m is None:
        raise SimtError(f"cuda.jit: cannot read the argument type {text!r} of a signature")
    d = _scalar(m.group(1))
    if m.group(2) is None:
        return d
    return ArrayType(d, len(_split(m.group(2))))


def _arg_from_numba(t: Any) -> Any:
    if hasattr(t, "ndim") and hasattr(t, "dtype"):  # numba's Array type
        d = numba_dtype(t.dtype)
        if d is None:
            raise SimtError(f"cuda.jit: arrays of {t.dtype} are not emulated by aclsim")
        return ArrayType(d, t.ndim)
    d = numba_dtype(t)
    if d is None:
        raise SimtError(f"cuda.jit: the argument type {t} of a signature is not emulated by aclsim")
    return d


def parse_signatures(sig: Any) -> list[tuple[Any, ...]]:
    """The parameter types of each signature given to cuda.jit (a string, a numba signature, a tuple of
    argument types, or a list of those)."""
    return [args for args, _ in parse_full(sig)]


def parse_full(sig: Any) -> list[tuple[tuple[Any, ...], np.dtype | None]]:
    """(parameter types, return type or None for void/unspecified) of each signature."""
    if isinstance(sig, list):
        return [s for one in sig for s in parse_full(one)]
    if isinstance(sig, str):
        m = re.fullmatch(r"\s*(\w*)\s*\((.*)\)\s*", sig, re.S)
        if m is None:
            raise SimtError(f"cuda.jit: cannot read the signature {sig!r}; write it as 'void(float32[:], int32)'")
        ret = m.group(1)
        return [(tuple(_arg_from_text(a) for a in _split(m.group(2))),
                 None if ret in ("", "void", "none") else _scalar(ret))]
    if isinstance(sig, tuple):
        return [(tuple(_arg_from_numba(a) if not isinstance(a, str) else _arg_from_text(a) for a in sig), None)]
    if hasattr(sig, "args"):  # numba's Signature
        ret = getattr(sig, "return_type", None)
        return [(tuple(_arg_from_numba(a) for a in sig.args),
                 None if ret is None or str(ret) in ("none", "void") else _arg_from_numba(ret))]
    if type(sig).__module__.startswith("numba."):  # a bare type: one argument
        return [((_arg_from_numba(sig),), None)]
    raise SimtError(f"cuda.jit: cannot read the signature {sig!r}")


def best(signatures: list[tuple[Any, ...]], launch: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The signature numba would pick for arguments typed `launch`: arrays must agree exactly; among
    those, the most scalars of exactly their type, then the most converted safely (first on ties)."""
    scored = []
    for sig in signatures:
        if not matches(sig, launch):
            continue
        exact = safe = 0
        for t, a in zip(sig, launch, strict=True):
            if isinstance(t, np.dtype) and isinstance(a, np.dtype):
                exact += t == a
                safe += bool(np.can_cast(a, t, "safe"))
        scored.append((exact, safe, -len(scored), sig))
    return max(scored, key=lambda x: x[:3])[3] if scored else None


def matches(types: tuple[Any, ...], launch: tuple[Any, ...]) -> bool:
    """Whether arguments typed `launch` (by typeof) can be passed to parameters of `types`: arrays must
    agree exactly, a scalar converts to any scalar type (numba casts it)."""
    if len(types) != len(launch):
        return False
    for t, a in zip(types, launch, strict=True):
        if isinstance(t, ArrayType) != isinstance(a, ArrayType):
            return False
        if isinstance(t, ArrayType) and t != a:
            return False
    return True


class Static:
    """A launch argument numba types by value here (a tuple or named tuple of numbers): the kernel is
    specialized with the parameter bound to it, as a constant."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = (type(value), _key(value))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Static) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"{type(self.value).__name__}{self.value!r}"


def _key(v: Any) -> Any:
    if isinstance(v, tuple):
        return (type(v), tuple(_key(x) for x in v))
    return (type(v), v)


def is_constant_tuple(v: Any) -> bool:
    """A tuple (named or not, nested) of numbers: what a kernel can take by value."""
    if isinstance(v, tuple):
        return all(is_constant_tuple(x) for x in v)
    return isinstance(v, (bool, int, float, complex, np.number, np.bool_))

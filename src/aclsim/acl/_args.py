"""pyACL's calling convention: PyArg_ParseTuple formats, `(value..., ret)` returns, no raising.

Each pyACL function is declared with its C format string (e.g. "kkkki" for memcpy, from
`python/pyACL/rt/*.cpp`). Wrong types raise `TypeError("acl.rt.<fn> args parse failed")` as
the real module does; an ACL error becomes the trailing return code.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

from ..errors import AclError

_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1


def _convert(code: str, v: Any) -> Any:
    """One argument per CPython's getargs rules; raises TypeError/OverflowError on mismatch."""
    if code in "kK":  # unsigned long (long): ints only, masked, no overflow check
        if not isinstance(v, int):
            raise TypeError
        return v & _U64
    if code == "I":  # unsigned int: __index__, masked
        return operator.index(v) & _U32
    if code == "i":  # int: __index__, range-checked
        n = operator.index(v)
        if not -(1 << 31) <= n < 1 << 31:
            raise OverflowError
        return n
    if code == "L":
        n = operator.index(v)
        if not -(1 << 63) <= n < 1 << 63:
            raise OverflowError
        return n
    if code == "s":
        if not isinstance(v, str):
            raise TypeError
        return v
    if code == "f":
        return float(v) if not isinstance(v, str) else _fail_type()
    return v  # "O"


def _fail_type() -> Any:
    raise TypeError


def parse(name: str, fmt: str, args: tuple) -> list:
    """Convert `args` per `fmt` ("|" starts optional ones)."""
    required, _, optional = fmt.partition("|")
    if not len(required) <= len(args) <= len(required) + len(optional):
        raise TypeError(f"{name} args parse failed")
    try:
        return [_convert(c, a) for c, a in zip(required + optional, args, strict=False)]
    except (TypeError, OverflowError, ValueError):
        raise TypeError(f"{name} args parse failed") from None


def pyacl(name: str, fmt: str, fail: tuple | None = None) -> Callable:
    """Wrap a face function: parse args like pyACL, turn AclError into its return code.

    `fail` is what precedes the code on failure: None for a bare `ret` function,
    e.g. (0,) for `(ptr, ret)` or (0, 0) for `(free, total, ret)`.
    """

    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs:
                raise TypeError(f"{name}() takes no keyword arguments")
            vals = parse(name, fmt, args)
            try:
                out = fn(*vals)
            except AclError as e:
                return e.code if fail is None else (*fail, e.code)
            if fail is None:
                return 0
            return (*out, 0) if isinstance(out, tuple) else (out, 0)

        wrapper.__qualname__ = name
        return wrapper

    return deco

"""pyACL's calling convention: PyArg_ParseTuple formats, `(value..., ret)` returns, no raising.

Each pyACL function is declared with its C format string (e.g. "kkkki" for memcpy, from
`python/pyACL/rt/*.cpp`). Wrong types raise `TypeError("acl.rt.<fn> args parse failed")` as
the real module does; an ACL error becomes the trailing return code. A function without arguments
(format "") ignores any it is given: pyACL's wrappers of those never parse their argument tuple
(e.g. WrapAclRtSynchronizeDevice in hicann/runtime python/pyACL/rt/rt_synchronize.cpp), so
`acl.rt.synchronize_device(0)` is a plain synchronize_device.
"""

from __future__ import annotations

import functools
import operator
import threading
from collections.abc import Callable
from typing import Any

from ..errors import AclError, record_error

_last = threading.local()  # this thread's last failing code, for acl.rt.peek_at_last_error / get_last_error
_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1


def _ulong(v: Any) -> int:  # "k"/"K": ints only (bool included), masked, no overflow check
    if not isinstance(v, int):
        raise TypeError
    return v & _U64


def _uint(v: Any) -> int:  # "I": __index__, masked
    return operator.index(v) & _U32


def _signed(bits: int) -> Any:  # "i"/"L": __index__, range-checked
    lo, hi = -(1 << (bits - 1)), 1 << (bits - 1)

    def conv(v: Any) -> int:
        n = operator.index(v)
        if not lo <= n < hi:
            raise OverflowError
        return n

    return conv


def _str(v: Any) -> str:  # "s": str only (None refused)
    if not isinstance(v, str):
        raise TypeError
    return v


def _float(v: Any) -> float:  # "f"
    if isinstance(v, str):
        raise TypeError
    return float(v)


_CONVERTERS = {"k": _ulong, "K": _ulong, "I": _uint, "i": _signed(32), "L": _signed(64), "s": _str, "f": _float,
               "O": lambda v: v}


def count_error(lo: int, hi: int, given: int) -> TypeError:
    """CPython's own wording for a wrong argument count (getargs.c, a format without a function name): what a
    pyACL wrapper that does not replace PyArg_ParseTuple's error raises (acl.util.start_thread)."""
    how = "exactly" if lo == hi else "at least" if given < lo else "at most"
    n = lo if given < lo else hi
    return TypeError(f"function takes {how} {n} argument{'' if n == 1 else 's'} ({given} given)")


def parser(name: str, fmt: str, cpython_count: bool = False) -> Callable[[tuple], list]:
    """A function converting an argument tuple per `fmt` ("|" starts optional ones), as CPython's getargs
    would; the format is compiled once per face function (this is on every call's path).

    "" accepts (and ignores) any positional arguments, as pyACL's argument-less wrappers do. A wrong count
    is "<name> args parse failed", or CPython's own message with `cpython_count`."""
    if not fmt:
        return lambda args: []
    required, _, optional = fmt.partition("|")
    convs = tuple(_CONVERTERS[c] for c in required + optional)
    lo, hi = len(required), len(convs)

    def parse(args: tuple) -> list:
        if not lo <= len(args) <= hi:
            raise count_error(lo, hi, len(args)) if cpython_count else TypeError(f"{name} args parse failed")
        try:
            return [conv(a) for conv, a in zip(convs, args, strict=False)]
        except (TypeError, OverflowError, ValueError):
            raise TypeError(f"{name} args parse failed") from None

    return parse


def pyacl(name: str, fmt: str, fail: tuple | None = None) -> Callable:
    """Wrap a face function: parse args like pyACL, turn AclError into its return code.

    `fail` is what precedes the code on failure: None for a bare `ret` function,
    e.g. (0,) for `(ptr, ret)` or (0, 0) for `(free, total, ret)`.
    """

    parse = parser(name, fmt)

    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs:
                raise TypeError(f"{name}() takes no keyword arguments")
            vals = parse(args)
            try:
                out = fn(*vals)
            except AclError as e:  # the pyACL boundary: the code is returned, the message kept for get_recent_err_msg
                _last.code = e.code
                record_error(str(e))
                return e.code if fail is None else (*fail, e.code)
            if fail is None:
                return 0
            return (*out, 0) if isinstance(out, tuple) else (out, 0)

        wrapper.__qualname__ = name
        return wrapper

    return deco


def last_error(clear: bool) -> int:
    """The code of this thread's last failed pyACL call (0 if none); `clear` resets it."""
    code = getattr(_last, "code", 0)
    if clear:
        _last.code = 0
    return code

"""pyasc's call forms of vector instructions, turned into the engine's typed operands.

Count form: `op(dst, src..., count[, is_set_mask])`, the first `count` elements. Mask/repeat form: `op(dst,
src..., mask, repeat_times, repeat_params[, is_set_mask])` (duplicate: `..., dst_block_stride,
dst_repeat_stride[, is_set_mask]`), given to the engine as one `Repeat`. pyasc's keyword names are accepted
(pyasc `python/asc/language/basic/vec_binary.py` and its neighbours, hicann/pyasc).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ... import faults
from ...table import Instruction
from ...vector.repeat import Repeat

running = faults.running  # the core a call runs on (pyasc's calls name none); outside a kernel a RuntimeError


def _count_form(count: int, is_set_mask: bool = True) -> int:
    return count


def _repeat_form(mask: Any, repeat_times: int, repeat_params: Any, is_set_mask: bool = True) -> tuple:
    return mask, repeat_times, repeat_params, is_set_mask


def _dup_form(mask: Any, repeat_times: int, dst_block_stride: int, dst_repeat_stride: int,
              is_set_mask: bool = True) -> tuple:
    return mask, repeat_times, ((dst_block_stride, dst_repeat_stride),), is_set_mask


REPEAT_KEYS = frozenset(("mask", "repeat_times", "repeat_params", "dst_block_stride", "dst_repeat_stride"))


def form(api: str, args: tuple, kwargs: dict, params: type | None) -> Any:
    """The count, or the Repeat, of a call's form arguments.

    `params` is the repeat-parameter class the instruction takes (None: duplicate's explicit strides).
    """
    if len(args) == 1 and not kwargs:  # the count form, the hot path
        return args[0]
    is_repeat = len(args) >= 3 or not REPEAT_KEYS.isdisjoint(kwargs)
    binder = (_dup_form if params is None else _repeat_form) if is_repeat else _count_form
    try:
        got = binder(*args, **kwargs)
    except TypeError as e:
        tail = ("mask, repeat_times, dst_block_stride, dst_repeat_stride" if params is None
                else f"mask, repeat_times, {params.__name__}")
        raise TypeError(f"asc.{api}: {str(e).replace('_form()', '')}; the forms are (..., count[, is_set_mask]) "
                        f"and (..., {tail}[, is_set_mask])") from None
    if not is_repeat:
        return got
    mask, times, rp, is_set_mask = got
    if params is None:
        return Repeat.of(api, mask, times, rp, is_set_mask)
    return repeat(api, mask, times, rp, params, is_set_mask)


CALLS: dict[tuple, Repeat] = {}  # (mask, repeat_times, params type and fields, is_set_mask) -> its Repeat


def repeat(api: str, mask: Any, times: Any, rp: Any, params: type, is_set_mask: Any = True) -> Repeat:
    """The Repeat of `(mask, repeat_times, repeat_params[, is_set_mask])`; `rp` must be a `params`."""
    if type(rp) is not params and not isinstance(rp, params):
        raise TypeError(f"asc.{api}: repeat_params must be asc.{params.__name__}, got {type(rp).__name__}")
    kind = type(mask)
    key = (mask if kind is int else tuple(mask) if kind is list or kind is tuple else None, times, params,
           *rp.__dict__.values(), is_set_mask)
    r = CALLS.get(key)
    if r is None:
        r = Repeat.of(api, mask, times, rp.strides(), is_set_mask)
        if key[0] is not None and len(CALLS) < 4096:
            CALLS[key] = r
    return r


def direct(ins: Instruction) -> Callable[..., Any]:
    """pyasc's function for an instruction it calls as the engine does, less the core: `f(*operands)`."""
    run, api = ins.run, ins.api

    def face(*args: Any, **kwargs: Any) -> Any:
        return run(running(api), *args, **kwargs)

    return named(face, ins)


def named(face: Callable[..., Any], ins: Instruction, signature: inspect.Signature | None = None) -> Callable[..., Any]:
    """`face` with the instruction's pyasc name and docstring (and the engine's signature less the core)."""
    face.__name__ = face.__qualname__ = ins.api
    face.__doc__ = ins.run.__doc__
    if signature is None and face.__code__.co_flags & inspect.CO_VARARGS and face.__code__.co_argcount == 0:
        sig = inspect.signature(ins.run)
        signature = sig.replace(parameters=list(sig.parameters.values())[1:])
    if signature is not None:
        face.__signature__ = signature  # type: ignore[attr-defined]
    face.instruction = ins  # type: ignore[attr-defined]
    return face

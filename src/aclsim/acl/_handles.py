"""Opaque pyACL handles (data buffers, datasets, descriptions, attributes) as ints, like C pointers."""

from __future__ import annotations

import itertools
import threading
from typing import Any, TypeVar

from ..errors import AclError, Code

T = TypeVar("T")

_lock = threading.Lock()
_next = itertools.count(0x7A0000001000, 0x40)  # apart from the runtime's context/stream/event handles
_objects: dict[int, Any] = {}


def new(obj: Any) -> int:
    with _lock:
        h = next(_next)
        _objects[h] = obj
    return h


def get(handle: int, kind: type[T], fn: str, what: str) -> T:
    """The live object behind `handle`; AclError 100000 (the C API's NULL/invalid-pointer check) otherwise."""
    obj = _objects.get(handle)
    if not isinstance(obj, kind):
        raise AclError(Code.ERROR_INVALID_PARAM,
                       f"{fn}: {what} {handle:#x} is not a live {what} (0/NULL, destroyed or of another kind)")
    return obj


def find(handle: int, kind: type[T]) -> T | None:
    obj = _objects.get(handle)
    return obj if isinstance(obj, kind) else None


def drop(handle: int) -> None:
    with _lock:
        _objects.pop(handle, None)

"""Handle tables and the per-thread current context.

pyACL passes contexts, streams and events as plain ints. The runtime hands out handles from one
table (never reused), looks them up with the codes the runtime returns for bad handles, and keeps
each host thread's current context.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from ..errors import AclError, Code


class Handles:
    """int handle -> live runtime object (Context, Stream or Event)."""

    def __init__(self) -> None:
        self._next = itertools.count(0x5A0000001000, 0x40)
        self._objects: dict[int, Any] = {}

    def new(self, obj: Any) -> int:
        h = next(self._next)
        self._objects[h] = obj
        return h

    def get(self, handle: int) -> Any:
        return self._objects.get(handle)

    def drop(self, handle: int) -> None:
        self._objects.pop(handle, None)

    def lookup(self, handle: int, kind: type, fn: str, what: str) -> Any:
        """The live object of type `kind` behind `handle`; NULL -> 100000, anything else -> 107000-class code."""
        obj = self._objects.get(handle)
        if not isinstance(obj, kind) or obj.destroyed:
            raise AclError(
                Code.ERROR_RT_INVALID_HANDLE if handle else Code.ERROR_INVALID_PARAM,
                f"{fn}: {what} {handle:#x} is not a live {kind.__name__.lower()} handle"
                + (" (it is 0/NULL)" if not handle else " (destroyed or never created)"),
            )
        return obj


class ThreadState(threading.local):
    """What each host thread has of its own: its current context."""

    context: Any = None

"""`acl.media`: the DVPP memory calls (DVPP buffers are ordinary device memory here)."""

from __future__ import annotations

from ..runtime import get_runtime
from ._args import pyacl


@pyacl("acl.media.dvpp_malloc", "k", fail=(0,))
def dvpp_malloc(size: int) -> int:
    return get_runtime().malloc(size, 0, "dvpp_malloc").start


@pyacl("acl.media.dvpp_free", "k")
def dvpp_free(dev_ptr: int) -> None:
    get_runtime().free(dev_ptr, "acl.media.dvpp_free")

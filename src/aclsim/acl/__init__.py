"""pyACL-compatible facade: `import acl` under `aclsim run` resolves to this module.

Layout as pyACL: top-level functions plus `acl.rt`, `acl.util`, `acl.media`. Every call returns
the ACL code (or `(value..., ret)`), never raises for an ACL error; wrong Python types raise
`TypeError("acl.<mod>.<fn> args parse failed")`.
"""

from __future__ import annotations

from ..errors import take_recent_errors
from ..runtime import get_runtime
from . import media, rt, util
from ._args import pyacl

__all__ = ["finalize", "get_recent_err_msg", "get_soc_name", "get_version", "init", "media", "rt", "util"]


def init(*args: object) -> int:
    """acl.init([config_path]) -> ret."""
    return _init(*args)


@pyacl("acl.init", "|s")
def _init(config_path: str | None = None) -> None:
    get_runtime().init(config_path or None)


@pyacl("acl.finalize", "")
def finalize() -> None:
    get_runtime().finalize()


@pyacl("acl.finalize_reference", "", fail=(0,))
def finalize_reference() -> int:
    rt_ = get_runtime()
    if rt_.init_count > 1:
        rt_.init_count -= 1
        return rt_.init_count
    rt_.finalize()
    return 0


def get_recent_err_msg() -> str | None:
    """This thread's error messages since the last call, newest first; None if there are none."""
    return take_recent_errors()


def get_soc_name() -> str | None:
    return get_runtime().chip.name


@pyacl("acl.get_version", "", fail=(0, 0, 0))
def get_version() -> tuple[int, int, int]:
    return (1, 0, 0)

"""pyACL-compatible facade: `import acl` under `aclsim run` resolves to this module.

Layout as pyACL: top-level functions plus `acl.rt`, `acl.util`, `acl.media`. Every call returns
the ACL code (or `(value..., ret)`), never raises for an ACL error; wrong Python types raise
`TypeError("acl.<mod>.<fn> args parse failed")`.
"""

from __future__ import annotations

import datetime
import os
import sys

from ..errors import take_recent_errors
from ..runtime import get_runtime
from . import blas, mdl, media, op, rt, util
from ._args import parser, pyacl
from ._missing import R, generic, not_emulated, unemulated_module
from .buffers import (
    create_data_buffer,
    create_tensor_desc,
    data_type_size,
    destroy_data_buffer,
    destroy_tensor_desc,
    get_data_buffer_addr,
    get_data_buffer_size,
    get_data_buffer_size_v2,
    get_data_type_size,
    get_tensor_desc_dim,
    get_tensor_desc_dim_range,
    get_tensor_desc_dim_v2,
    get_tensor_desc_element_count,
    get_tensor_desc_format,
    get_tensor_desc_name,
    get_tensor_desc_num_dims,
    get_tensor_desc_size,
    get_tensor_desc_type,
    set_tensor_const,
    set_tensor_desc_name,
    set_tensor_dynamic_input,
    set_tensor_format,
    set_tensor_place_ment,
    set_tensor_shape,
    set_tensor_shape_range,
    set_tensor_storage_format,
    set_tensor_storage_shape,
    update_data_buffer,
)

__all__ = [
    "app_log", "blas", "create_data_buffer", "create_tensor_desc", "data_type_size", "destroy_data_buffer",
    "destroy_tensor_desc", "finalize", "get_data_buffer_addr", "get_data_buffer_size", "get_data_buffer_size_v2",
    "get_data_type_size", "get_recent_err_msg", "get_soc_name", "get_tensor_desc_dim", "get_tensor_desc_dim_range",
    "get_tensor_desc_dim_v2", "get_tensor_desc_element_count", "get_tensor_desc_format", "get_tensor_desc_name",
    "get_tensor_desc_num_dims", "get_tensor_desc_size", "get_tensor_desc_type", "get_version", "init", "mdl",
    "media", "op", "rt", "set_tensor_const", "set_tensor_desc_name", "set_tensor_dynamic_input",
    "set_tensor_format", "set_tensor_place_ment", "set_tensor_shape", "set_tensor_shape_range",
    "set_tensor_storage_format", "set_tensor_storage_shape", "update_data_buffer", "util",
]

# Sub-modules pyACL has that aclsim does not emulate at all (PyInit_acl in pyACL's py_init_acl.cpp).
prof = unemulated_module("acl.prof", "profiling needs the real device's counters", generic(""))
fv = unemulated_module("acl.fv", "feature-vector retrieval is not emulated", generic(""))
himpi = unemulated_module("acl.himpi", "the HiMPI media interface is not emulated", generic(""))

# The pyACL sub-modules, for `import acl.<name>` under `aclsim run`.
SUBMODULES = ("rt", "util", "media", "mdl", "op", "blas", "prof", "fv", "himpi")


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


_LOG_LEVELS = {0: "DEBUG", 1: "INFO", 2: "WARNING", 3: "ERROR"}  # aclLogLevel


def app_log(*args: object) -> None:
    """acl.app_log(log_level, message): an application log line, written to stderr.

    CANN writes it to the plog files; aclsim prints it in the same shape when the level is at or above
    ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error, CANN's default 3; 4 = off).
    """
    level, message = parser("acl.app_log", "is")(args)
    f = sys._getframe(1)
    write_app_log(level, message, f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}", "python")


def write_app_log(level: int, message: str, where: str, app: str) -> None:
    """One application log line `[LEVEL] APP(pid,app):time [where]message` (the C face's aclAppLog too)."""
    name = _LOG_LEVELS.get(level)
    if name is None:
        return
    try:
        threshold = int(os.environ.get("ASCEND_GLOBAL_LOG_LEVEL", "3"))
    except ValueError:
        threshold = 3
    if level < threshold:
        return
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H:%M:%S.%f")
    stamp = f"{stamp[:-3]}.{stamp[-3:]}"
    print(f"[{name}] APP({os.getpid()},{app}):{stamp} [{where}]{message}", file=sys.stderr, flush=True)


__getattr__ = not_emulated("acl", [
    (r"get_device_capability", (0, R), "aclsim emulates the calls docs/pyacl.md lists"),
])

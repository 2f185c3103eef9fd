"""`aclsim home`: a directory laid out like a CANN install, for build files written against one.

    <home>/include/acl/...            the AscendCL headers
    <home>/lib64/libascendcl.so       (and libacl_dvpp.so, libacl_op_compiler.so, libacl_cblas.so)
    <home>/runtime/include, runtime/lib64, runtime/lib64/stub, acllib/..., x86_64-linux/...   the same, where
                                      Ascend/samples' CMakeLists look (DDK_PATH / NPU_HOST_LIB)
    <home>/lib64/cmake/ascendcl/ascendcl-config.cmake   find_package(ascendcl) -> target ascendcl::ascendcl
                                      (also under share/cmake, where CMake looks on every distribution)
    <home>/set_env.sh                 exports ASCEND_HOME_PATH, DDK_PATH, NPU_HOST_LIB, LD_LIBRARY_PATH

It lives next to the built library (one per build), so it always matches the headers and the library.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

from .build import INCLUDE, LIB_ALIASES, library_path

_CMAKE = """\
# aclsim: CMake package for AscendCL (find_package(ascendcl)); made by `aclsim home`.
get_filename_component(_ACLSIM_HOME "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ascendcl_INCLUDE_DIRS "${_ACLSIM_HOME}/include")
set(ascendcl_LIBRARIES "${_ACLSIM_HOME}/lib64/libascendcl.so")
if(NOT TARGET ascendcl::ascendcl)
  add_library(ascendcl::ascendcl SHARED IMPORTED)
  set_target_properties(ascendcl::ascendcl PROPERTIES
    IMPORTED_LOCATION "${_ACLSIM_HOME}/lib64/libascendcl.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_ACLSIM_HOME}/include")
endif()
set(ascendcl_FOUND TRUE)
"""

_ENV = """\
# aclsim: source this as CANN's set_env.sh is sourced (`. $(aclsim home)/set_env.sh`).
export ASCEND_HOME_PATH={home}
export ASCEND_TOOLKIT_HOME={home}
export DDK_PATH={home}
export NPU_HOST_LIB={home}/lib64
export LD_LIBRARY_PATH={home}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}
"""


def home() -> Path:
    """The install-like directory (made on first use)."""
    lib = library_path()
    root = lib.parent.parent / "home"
    if (root / "set_env.sh").exists():
        return root
    tmp = root.with_name(f"home.tmp{os.getpid()}")
    (tmp / "lib64" / "cmake" / "ascendcl").mkdir(parents=True, exist_ok=True)
    _link(INCLUDE, tmp / "include")
    for name in LIB_ALIASES:
        _link(lib.parent / name, tmp / "lib64" / name)
    (tmp / "lib64" / "cmake" / "ascendcl" / "ascendcl-config.cmake").write_text(_CMAKE)
    arch = f"{platform.machine()}-linux"
    for prefix in ("runtime", "acllib", "compiler", arch, f"{arch}/runtime"):
        (tmp / prefix).mkdir(parents=True, exist_ok=True)
        _link(tmp / "include", tmp / prefix / "include", relative_to=tmp)
        _link(tmp / "lib64", tmp / prefix / "lib64", relative_to=tmp)
    _link(tmp / "lib64", tmp / "lib64" / "stub", relative_to=tmp)
    (tmp / "share" / "cmake").mkdir(parents=True, exist_ok=True)
    _link(tmp / "lib64" / "cmake" / "ascendcl", tmp / "share" / "cmake" / "ascendcl", relative_to=tmp)
    (tmp / "set_env.sh").write_text(_ENV.format(home=root))
    try:
        os.replace(tmp, root)
    except OSError:  # another process made it first
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return root


def _link(target: Path, link: Path, relative_to: Path | None = None) -> None:
    if link.is_symlink() or link.exists():
        return
    dest = os.path.relpath(target, link.parent) if relative_to is not None else str(target)
    os.symlink(dest, link)

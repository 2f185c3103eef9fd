"""`aclsim home`: a directory laid out like a CANN install, for build files written against one.

    <home>/include/acl/...            the AscendCL headers
    <home>/lib64/libascendcl.so       (and libacl_dvpp.so, libacl_op_compiler.so, libacl_cblas.so)
    <home>/runtime/include, runtime/lib64, runtime/lib64/stub, acllib/..., x86_64-linux/...   the same, where
                                      Ascend/samples' CMakeLists look (DDK_PATH / NPU_HOST_LIB)
    <home>/lib64/cmake/ascendcl/ascendcl-config.cmake   find_package(ascendcl) -> target ascendcl::ascendcl
                                      (also under share/cmake, where CMake looks on every distribution)
    <home>/share/cmake/ASC/           find_package(ASC) + project(... LANGUAGES ASC): CMake's ASC language (.asc
                                      files), compiled by <home>/bin/aclsim-asc (aclsim cc), as CANN's asc-devkit
                                      CMakeLists expect
    <home>/set_env.sh                 exports ASCEND_HOME_PATH, DDK_PATH, NPU_HOST_LIB, LD_LIBRARY_PATH,
                                      CMAKE_PREFIX_PATH

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
export CMAKE_PREFIX_PATH={home}${{CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}}
"""

# CMake's ASC language (find_package(ASC) before project(... LANGUAGES ASC CXX), as asc-devkit's examples do):
# .asc sources compile with aclsim cc (bisheng's NPU options are accepted and ignored); a target with .asc
# objects links libascendcl whichever language links it.
_ASC_CONFIG = """\
# aclsim: find_package(ASC) -> CMake's ASC language (.asc files compiled by aclsim cc); made by `aclsim home`.
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}/modules")
set(ASC_FOUND TRUE)
"""
_ASC_MODULES = {
    "CMakeDetermineASCCompiler.cmake": """\
if(NOT CMAKE_ASC_COMPILER)
  set(CMAKE_ASC_COMPILER "{compiler}")
endif()
mark_as_advanced(CMAKE_ASC_COMPILER)
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")
configure_file("${{CMAKE_CURRENT_LIST_DIR}}/CMakeASCCompiler.cmake.in"
               "${{CMAKE_PLATFORM_INFO_DIR}}/CMakeASCCompiler.cmake" @ONLY)
""",
    "CMakeASCCompiler.cmake.in": """\
set(CMAKE_ASC_COMPILER "@CMAKE_ASC_COMPILER@")
set(CMAKE_ASC_COMPILER_ID "aclsim")
set(CMAKE_ASC_COMPILER_LOADED 1)
set(CMAKE_ASC_SOURCE_FILE_EXTENSIONS asc)
set(CMAKE_ASC_LINKER_PREFERENCE 40)
set(CMAKE_ASC_LINKER_PREFERENCE_PROPAGATES 1)
set(CMAKE_ASC_OUTPUT_EXTENSION .o)
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")
set(CMAKE_ASC_IMPLICIT_LINK_LIBRARIES ascendcl "-Wl,-rpath,{lib}")
set(CMAKE_ASC_IMPLICIT_LINK_DIRECTORIES "{lib}")
""",
    "CMakeASCInformation.cmake": """\
set(CMAKE_ASC_OUTPUT_EXTENSION .o)
set(CMAKE_INCLUDE_FLAG_ASC "-I")
set(CMAKE_ASC_COMPILE_OPTIONS_PIC -fPIC)
set(CMAKE_ASC_COMPILE_OPTIONS_PIE -fPIE)
set(CMAKE_SHARED_LIBRARY_CREATE_ASC_FLAGS -shared)
set(CMAKE_SHARED_LIBRARY_SONAME_ASC_FLAG "-Wl,-soname,")
set(CMAKE_SHARED_LIBRARY_RUNTIME_ASC_FLAG "-Wl,-rpath,")
set(CMAKE_SHARED_LIBRARY_RUNTIME_ASC_FLAG_SEP ":")
set(CMAKE_EXECUTABLE_RUNTIME_ASC_FLAG "-Wl,-rpath,")
set(CMAKE_EXECUTABLE_RUNTIME_ASC_FLAG_SEP ":")
set(CMAKE_ASC_FLAGS_DEBUG_INIT "-g")
set(CMAKE_ASC_FLAGS_RELEASE_INIT "-O2")
set(CMAKE_ASC_COMPILE_OBJECT "<CMAKE_ASC_COMPILER> <DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>")
set(CMAKE_ASC_LINK_EXECUTABLE
    "<CMAKE_ASC_COMPILER> <FLAGS> <CMAKE_ASC_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
set(CMAKE_ASC_CREATE_SHARED_LIBRARY
    "<CMAKE_ASC_COMPILER> <CMAKE_SHARED_LIBRARY_ASC_FLAGS> <LINK_FLAGS> <CMAKE_SHARED_LIBRARY_CREATE_ASC_FLAGS> <SONAME_FLAG><TARGET_SONAME> -o <TARGET> <OBJECTS> <LINK_LIBRARIES>")
set(CMAKE_ASC_CREATE_STATIC_LIBRARY "<CMAKE_AR> qc <TARGET> <LINK_FLAGS> <OBJECTS>" "<CMAKE_RANLIB> <TARGET>")
set(CMAKE_ASC_INFORMATION_LOADED 1)
""",
    "CMakeTestASCCompiler.cmake": """\
set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")
""",
}


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
    _asc_language(tmp, root, lib.parent)
    try:
        os.replace(tmp, root)
    except OSError:  # another process made it first
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return root


def _asc_language(tmp: Path, root: Path, lib: Path) -> None:
    """CMake's ASC language under share/cmake/ASC (and lib64/cmake/ASC), compiled by bin/aclsim-asc."""
    import sys

    (tmp / "bin").mkdir(exist_ok=True)
    compiler = tmp / "bin" / "aclsim-asc"
    compiler.write_text(f'#!/bin/sh\n# aclsim: the ASC compiler (bisheng\'s role): aclsim cc\nexec "{sys.executable}" -m aclsim cc "$@"\n')
    compiler.chmod(0o755)
    modules = tmp / "share" / "cmake" / "ASC" / "modules"
    modules.mkdir(parents=True, exist_ok=True)
    (modules.parent / "ASCConfig.cmake").write_text(_ASC_CONFIG)
    for name, text in _ASC_MODULES.items():
        (modules / name).write_text(text.format(compiler=root / "bin" / "aclsim-asc", lib=lib) if "{" in text
                                    and name.endswith(".cmake") else text.replace("{lib}", str(lib)))
    _link(modules.parent, tmp / "lib64" / "cmake" / "ASC", relative_to=tmp)


def _link(target: Path, link: Path, relative_to: Path | None = None) -> None:
    if link.is_symlink() or link.exists():
        return
    dest = os.path.relpath(target, link.parent) if relative_to is not None else str(target)
    os.symlink(dest, link)

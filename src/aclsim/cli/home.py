"""`aclsim home`: print a directory laid out like a CANN install (headers, libascendcl.so, CMake config)."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Print a directory laid out like a CANN install, so C/C++ programs and their own build files
(CMakeLists, Makefiles, Ascend/samples' build scripts) build against aclsim's AscendCL:

  export ASCEND_HOME_PATH=$(aclsim home)            # or: . $(aclsim home)/set_env.sh
  export DDK_PATH=$ASCEND_HOME_PATH NPU_HOST_LIB=$ASCEND_HOME_PATH/lib64

It holds include/acl/*.h, lib64/libascendcl.so (and the names samples link: libacl_dvpp.so,
libacl_op_compiler.so), runtime/ and acllib/ mirrors of both, lib64/cmake/ascendcl (find_package)
and set_env.sh. Programs built this way run with `aclsim run ./prog` (or directly, with
LD_LIBRARY_PATH from set_env.sh). The library is built on first use (a few seconds, once).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("home", help="print a CANN-like install directory (headers, libascendcl.so) for build files",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..capi.home import home

    try:
        print(home())
    except Exception as e:  # no compiler, no libpython: say what is missing
        print(f"aclsim home: cannot build libascendcl.so: {e}", file=sys.stderr)
        return 1
    return 0

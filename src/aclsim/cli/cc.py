"""`aclsim cc`: compile and link C/C++ AscendCL programs against aclsim (a g++/gcc driver, like bisheng for CANN)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

DESCRIPTION = """\
Compile and link C and C++ programs that use AscendCL (`#include "acl/acl.h"`) against aclsim:
runs g++ (C++17; gcc for C-only builds) with aclsim's include directory, links libascendcl with an
rpath, and always keeps debug info (-g) so sanitizer reports name file:line. Every other option goes to
the compiler as given; compiler errors print as the compiler prints them.
"""

EPILOG = """\
examples:
  aclsim cc memflow.c -o memflow && aclsim run ./memflow
  aclsim cc -O2 -Iinc src/main.cpp src/utils.cpp -o out/main
  aclsim cc -c util.cpp -o util.o          (compile only: no link options added)

sources: .c (C), .cpp .cc .cxx .C (C++), .asc (Ascend C: host code compiles as C++ today; kernels are
the next step). CC / CXX choose the compilers.
"""

CXX_EXT = (".cpp", ".cc", ".cxx", ".C", ".c++", ".asc")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cc", help="compile and link a C/C++ AscendCL program against aclsim",
                       description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       add_help=False, prefix_chars="+")  # every -option belongs to the compiler
    p.add_argument("args", nargs=argparse.REMAINDER, help="compiler arguments: [-O2] [-g] [-I..] [-D..] [-L.. -l..] "
                   "FILES... -o PROG")
    p.set_defaults(func=run, parser=p)


def compiler_command(argv: list[str]) -> list[str]:
    """The compiler command line `aclsim cc ARGV` runs."""
    from ..capi import INCLUDE, library_path

    sources = [a for a in argv if not a.startswith("-") and os.path.splitext(a)[1] in (*CXX_EXT, ".c")]
    cxx = any(os.path.splitext(s)[1] in CXX_EXT for s in sources) or not sources
    compiler = (os.environ.get("CXX") or "g++") if cxx else (os.environ.get("CC") or "gcc")
    cmd = [compiler]
    if cxx and not any(a.startswith("-std=") for a in argv):
        cmd.append("-std=c++17")
    cmd += ["-g", f"-I{INCLUDE}"]
    cmd += prepare_sources(argv)
    if not any(a in ("-c", "-E", "-S", "-M", "-MM") for a in argv):
        lib = library_path().parent
        cmd += [f"-L{lib}", "-lascendcl", f"-Wl,-rpath,{lib}"]
    return cmd


def prepare_sources(argv: list[str]) -> list[str]:
    """The compiler arguments for the sources: Ascend C (.asc) files compile as C++.

    This is where kernel syntax (`<<<...>>>` launches) will be rewritten before compiling.
    """
    out = []
    for a in argv:
        if a.endswith(".asc") and not a.startswith("-"):
            out += ["-x", "c++", a, "-x", "none"]
        else:
            out.append(a)
    return out


def run(args: argparse.Namespace) -> int:
    argv = list(args.args)
    if argv in (["-h"], ["--help"]):
        args.parser.print_help()
        return 0
    if not argv:
        print("aclsim cc: name the sources, e.g. `aclsim cc prog.c -o prog` (see aclsim cc --help)", file=sys.stderr)
        return 2
    try:
        cmd = compiler_command(argv)
    except Exception as e:  # the library could not be built (no compiler, no libpython)
        print(f"aclsim cc: cannot build libascendcl.so: {e}", file=sys.stderr)
        return 1
    if shutil.which(cmd[0]) is None:
        print(f"aclsim cc: no C/C++ compiler: {cmd[0]} is not on PATH (install g++, or set CXX/CC)", file=sys.stderr)
        return 127
    return subprocess.run(cmd, check=False).returncode

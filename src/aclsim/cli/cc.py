"""`aclsim cc`: compile and link C/C++ AscendCL programs and kernels against aclsim (a g++/gcc driver, like
bisheng for CANN).

Sources with kernel syntax (every `.asc`, and C++ files with `<<<`, `__global__`, `__ubuf__`...) are
preprocessed with aclsim's kernel headers, rewritten into plain C++ (`aclsim.capi.rewrite`) and compiled
twice: the program's object, and its checked build (the same code with every memory access instrumented:
GCC's AddressSanitizer pass in callback mode, calling libascendcl) which the object carries inside it and
`aclsim run --check` loads. So --check is chosen when the program runs, and a program runs at full speed
without it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DESCRIPTION = """\
Compile and link C and C++ programs that use AscendCL (`#include "acl/acl.h"`) and kernels (Ascend C and
SIMT `.asc` files) against aclsim: runs g++ (C++17; gcc for C-only builds) with aclsim's include directory,
links libascendcl with an rpath, and always keeps debug info (-g) so reports name file:line. Kernel launches
(`k<<<...>>>(args)`) and `__ubuf__` variables are rewritten into plain C++ first, and each file with kernels
also gets a checked build for `aclsim run --check`. Every other option goes to the compiler as given;
compiler errors print as the compiler prints them, on your source's lines.
"""

EPILOG = """\
examples:
  aclsim cc memflow.c -o memflow && aclsim run ./memflow
  aclsim cc square.asc -o square && aclsim run ./square
  aclsim cc -O2 -Iinc src/main.cpp src/kernel.asc -o out/main
  aclsim cc -c util.cpp -o util.o          (compile only: no link options added)

sources: .c (C), .cpp .cc .cxx .C (C++), .asc (Ascend C and SIMT kernels with their host code).
bisheng's NPU options (--npu-arch=..., --enable-simt, -dc, --cce-...) are accepted and ignored. CMake projects
with `project(... LANGUAGES ASC CXX)` build against `aclsim home` (find_package(ASC); see docs/c.md).
CC / CXX choose the compilers.
"""

CXX_EXT = (".cpp", ".cc", ".cxx", ".C", ".c++", ".asc")
SOURCE_EXT = (*CXX_EXT, ".c")
# options whose value is the next argument
WITH_VALUE = {"-o", "-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-x", "-L", "-l", "-MF", "-MT",
              "-MQ", "-Xlinker", "-imacros", "--param"}
LINK_ONLY = ("-l", "-L", "-Wl,", "-shared", "-static", "-pie", "-no-pie", "-rdynamic", "-pthread")
# bisheng's NPU options (CANN's compiler): they choose what the NPU runs; aclsim runs every kernel on the CPU
BISHENG_ONLY = ("--npu-arch", "--enable-simt", "-dc", "-rdc", "--cce-", "-lineinfo", "--sanitizer", "--npu-soc",
                "-Xaicore", "--aicore-")
CHECKED_FLAGS = ["-fPIC", "-shared", "-fsanitize=kernel-address", "--param", "asan-instrumentation-with-call-threshold=0",
                 "--param", "asan-stack=0", "--param", "asan-globals=0", "-Wl,-Bsymbolic"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cc", help="compile and link C/C++ AscendCL programs and kernels against aclsim",
                       description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       add_help=False, prefix_chars="+")  # every -option belongs to the compiler
    p.add_argument("args", nargs=argparse.REMAINDER, help="compiler arguments: [-O2] [-g] [-I..] [-D..] [-L.. -l..] "
                   "FILES... -o PROG")
    p.set_defaults(func=run, parser=p)


def _split(argv: list[str]) -> tuple[list[int], list[str]]:
    """(indexes of the source files in argv, the options that are not sources, output or mode)."""
    sources, flags = [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in WITH_VALUE and i + 1 < len(argv):
            if a != "-o":
                flags += [a, argv[i + 1]]
            i += 2
            continue
        if not a.startswith("-") and os.path.splitext(a)[1] in SOURCE_EXT:
            sources.append(i)
        elif a not in ("-c", "-S", "-E") and not a.startswith("-o"):
            flags.append(a)
        i += 1
    return sources, flags


def _output(argv: list[str]) -> str | None:
    for i, a in enumerate(argv):
        if a == "-o" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("-o") and len(a) > 2:
            return a[2:]
    return None


def _compile_flags(flags: list[str]) -> list[str]:
    """The options that matter for compiling (not linking)."""
    out, i = [], 0
    while i < len(flags):
        a = flags[i]
        if a in ("-L", "-l", "-Xlinker"):
            i += 2
            continue
        if not a.startswith(LINK_ONLY):
            out.append(a)
        i += 1
    return out


def _needs_rewrite(path: str) -> bool:
    if path.endswith(".asc"):
        return True
    if os.path.splitext(path)[1] not in CXX_EXT:
        return False
    from ..capi.rewrite import needs_rewrite

    try:
        return needs_rewrite(Path(path).read_text(errors="replace"))
    except OSError:
        return False  # the compiler says it is missing


class Build:
    """One `aclsim cc` command: the kernel sources it rewrites, then the compiler command it runs."""

    def __init__(self, argv: list[str]) -> None:
        from ..capi import INCLUDE

        argv = [a for a in argv if not a.startswith(BISHENG_ONLY)]
        self.argv = argv
        self.include = INCLUDE
        self.sources, self.flags = _split(argv)
        names = [argv[i] for i in self.sources]
        self.cxx = any(os.path.splitext(s)[1] in CXX_EXT for s in names) or not names
        self.cxx_compiler = os.environ.get("CXX") or "g++"
        self.compiler = self.cxx_compiler if self.cxx else (os.environ.get("CC") or "gcc")
        self.compile_only = any(a in ("-c", "-S", "-E", "-M", "-MM") for a in argv)
        self.preprocess_only = any(a in ("-E", "-M", "-MM") for a in argv)
        self.std = [] if any(a.startswith("-std=") for a in argv) else ["-std=c++17"]

    def base(self, compiler: str | None = None) -> list[str]:
        cmd = [compiler or self.compiler]
        if (compiler or self.compiler) == self.cxx_compiler:
            cmd += self.std
        return [*cmd, "-g", f"-I{self.include}"]

    def run(self) -> int:
        if shutil.which(self.compiler) is None:
            print(f"aclsim cc: no C/C++ compiler: {self.compiler} is not on PATH (install g++, or set CXX/CC)",
                  file=sys.stderr)
            return 127
        kernels = [] if self.preprocess_only else [i for i in self.sources if _needs_rewrite(self.argv[i])]
        tmp = Path(tempfile.mkdtemp(prefix="aclsim-cc-"))
        try:
            argv = list(self.argv)
            single = len(self.sources) == 1
            for i in kernels:
                src = self.argv[i]
                if self.compile_only:
                    out = _output(self.argv) if single else None
                    obj = out or Path(src).with_suffix(".o").name
                else:
                    obj = str(tmp / f"{len(list(tmp.iterdir()))}-{Path(src).stem}.o")
                code = self._kernel_source(src, obj, tmp)
                if code:
                    return code
                argv[i] = "" if self.compile_only else obj
            argv = [a for a in argv if a != ""]
            if self.compile_only and len(kernels) == len(self.sources) and self.sources:
                return 0
            if self.compile_only and kernels:  # the other sources still compile; -o named the one we built
                argv = _drop_output(argv)
            return subprocess.run(self.command(argv), check=False).returncode
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def command(self, argv: list[str]) -> list[str]:
        """The compiler command for `argv` (sources not rewritten, objects), with aclsim's options."""
        cmd = self.base()
        for a in argv:  # .asc files the rewriter did not take (-E): compile as C++
            cmd += ["-x", "c++", a, "-x", "none"] if a.endswith(".asc") and not a.startswith("-") else [a]
        if not self.compile_only:
            from ..capi import library_path

            lib = library_path().parent
            cmd += [f"-L{lib}", "-lascendcl", f"-Wl,-rpath,{lib}"]
        return cmd

    def _kernel_source(self, src: str, obj: str, tmp: Path) -> int:
        """Rewrite one kernel source, build its checked build, and compile it (embedding the checked build)."""
        from ..capi.rewrite import RewriteError, rewrite

        # large local arrays probe their pages, so a thread that overflows its stack hits the guard page below it
        flags = [*_compile_flags(self.flags), "-fstack-clash-protection"]
        pp = [*self.base(self.cxx_compiler), "-E", "-D__ACLSIM_REWRITE__", "-include", "aclsim/kernel.h", *flags]
        stem = f"{hashlib.sha256(os.path.abspath(src).encode()).hexdigest()[:12]}-{Path(src).stem}"
        plain, twin = tmp / f"{stem}.ii", tmp / f"{stem}.twin.ii"
        for extra, path in (([], plain), (["-D__ACLSIM_TWIN__"], twin)):
            r = subprocess.run([*pp, *extra, "-x", "c++", src, "-o", str(path)], check=False)
            if r.returncode:
                return r.returncode
            try:
                text, _ = rewrite(path.read_text(errors="surrogateescape"), src)
            except RewriteError as e:
                print(f"{src}: error: {e}", file=sys.stderr)
                return 1
            path.write_text(text, errors="surrogateescape")
        opt = [a for a in flags if a.startswith("-O")] or ["-O1"]
        checked = tmp / f"{stem}.checked.so"
        r = subprocess.run([*self.base(self.cxx_compiler), *flags, *opt, *CHECKED_FLAGS, str(twin), "-o", str(checked)],
                           check=False, capture_output=True, text=True)
        if r.returncode == 0:
            with open(plain, "a") as f:
                f.write(_embed(checked, stem, src))
        else:  # the program's own compile below shows real errors; a checked build alone failing is a warning
            first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:200])
            plain_ok = subprocess.run([*self.base(self.cxx_compiler), *flags, "-fsyntax-only", str(plain)],
                                      check=False, capture_output=True).returncode == 0
            if plain_ok:
                print(f"aclsim cc: warning: the checked build of {src} does not compile, so aclsim run --check will "
                      f"not see its kernels' memory accesses: {first}", file=sys.stderr)
        return subprocess.run([*self.base(self.cxx_compiler), *flags, "-c", str(plain), "-o", obj],
                              check=False).returncode


def _drop_output(argv: list[str]) -> list[str]:
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif not (a.startswith("-o") and len(a) > 2):
            out.append(a)
    return out


def _embed(image: Path, stem: str, src: str) -> str:
    """C++ appended to a rewritten unit: its checked build inside the object, registered at start-up."""
    sym = "aclsim_checked_" + "".join(c if c.isalnum() else "_" for c in stem)
    path = str(image).replace("\\", "\\\\").replace('"', '\\"')
    return (
        f'\n__asm__(".pushsection .rodata.aclsim_checked,\\"a\\",%progbits\\n.balign 64\\n'
        f'.globl {sym}\\n.hidden {sym}\\n{sym}:\\n.incbin \\"{path}\\"\\n'
        f'.globl {sym}_end\\n.hidden {sym}_end\\n{sym}_end:\\n.popsection\\n");\n'
        f'extern "C" const char {sym}[], {sym}_end[];\n'
        f"static const int {sym}_registered = aclsim_register_twin({sym}, (uint64_t)({sym}_end - {sym}), "
        f'"{src.replace(chr(92), "/").replace(chr(34), "")}");\n'
    )


def run(args: argparse.Namespace) -> int:
    argv = list(args.args)
    if argv in (["-h"], ["--help"]):
        args.parser.print_help()
        return 0
    if not argv:
        print("aclsim cc: name the sources, e.g. `aclsim cc prog.c -o prog` (see aclsim cc --help)", file=sys.stderr)
        return 2
    try:
        build = Build(argv)
        if not build.compile_only:
            from ..capi import library_path

            library_path()
    except Exception as e:  # the library could not be built (no compiler, no libpython)
        print(f"aclsim cc: cannot build libascendcl.so: {e}", file=sys.stderr)
        return 1
    return build.run()

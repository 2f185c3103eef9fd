"""Build libascendcl.so: the AscendCL C API, each function a thin C wrapper over a Python adapter.

The library is a cffi *embedding* module: a C shared library whose functions are written in Python. The
first call from a C program starts an interpreter inside that program (libpython is linked in), imports
`aclsim.capi.adapter` and runs every later call on the same runtime the pyACL face uses.

How the library is made (once per set of sources, Python and cffi version, cached):
1. the headers of `include/acl/` are preprocessed (`gcc -E`) and parsed (pycparser, cffi's own parser) into
   the list of every function they declare, with parameter names and types;
2. for each function `F` the C source gets `F(args) { return aclsim_py_F(__builtin_return_address(0), args); }`
   (compiled against the real headers, so a wrapper that does not match its prototype does not build), and
   cffi's embedding API gets `aclsim_py_F`, which the adapter implements in Python (or answers
   ACL_ERROR_API_NOT_SUPPORT for a function aclsim does not emulate);
3. cffi compiles it with gcc into `<cache>/capi-<hash>/lib64/libascendcl.so`, under a file lock, so parallel
   first uses (test workers, CI) build it once.

The cache is `$ACLSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/aclsim`, else `~/.cache/aclsim`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..files import cache_root

HERE = Path(__file__).resolve().parent
INCLUDE = HERE / "include"
HEADERS = ("acl/acl.h", "acl/acl_op_compiler.h", "acl/ops/acl_dvpp.h", "acl/ops/acl_cblas.h")
KERNEL_ABI = INCLUDE / "aclsim" / "kernel_abi.h"
# the library's own C, in this order (ascendc/abi.c: the entry points of kernel_operator.h)
_C_SOURCES = (HERE / "shim.c", HERE / "native.h", HERE / "kernels.c", HERE / "ascendc" / "abi.c")
LIB_NAME = "libascendcl.so"
# Names samples link against (`-lascendcl`, and the DVPP / op-compiler libraries CANN ships apart; asc-devkit's
# kernel examples add the tiling, platform, registration and logging libraries).
LIB_ALIASES = ("libascendcl.so", "libacl_dvpp.so", "libacl_op_compiler.so", "libacl_cblas.so", "libtiling_api.so",
               "libplatform.so", "libregister.so", "libunified_dlog.so", "libgraph_base.so", "libacl_rt.so")


@dataclass(frozen=True)
class CFunction:
    """One function of the headers: C return type, name, parameters as (type text, name)."""

    name: str
    ret: str
    params: tuple[tuple[str, str], ...]
    variadic: bool = False
    arrays: tuple[str, ...] = ()  # parameters declared as arrays (`T x[]`)

    def signature(self, name: str | None = None, extra: str = "") -> str:
        ps = [extra] if extra else []
        ps += [_declare(t, n) for t, n in self.params]
        return f"{self.ret} {name or self.name}({', '.join(ps) or 'void'})"


def _declare(ctype: str, name: str) -> str:
    """`int64_t (*)[2]` + `r` -> `int64_t (*r)[2]`; `void *` + `p` -> `void * p`."""
    if "(*)" in ctype:
        return ctype.replace("(*)", f"(*{name})", 1)
    return f"{ctype} {name}"




def _sources_digest() -> str:
    import cffi

    h = hashlib.sha256()
    for p in [*sorted(INCLUDE.rglob("*.h")), *sorted(INCLUDE.rglob("*.def")), Path(__file__), *_C_SOURCES, HERE / "home.py"]:
        h.update(str(p.relative_to(HERE)).encode())
        h.update(p.read_bytes())
    h.update(f"{sys.version}|{cffi.__version__}|{sys.prefix}|{HERE}".encode())
    return h.hexdigest()[:16]


def build_dir() -> Path:
    return cache_root() / f"capi-{_sources_digest()}"


def library_path(quiet: bool = True) -> Path:
    """The path of libascendcl.so, built first if this version of the sources has not been built yet."""
    out = build_dir()
    lib = out / "lib64" / LIB_NAME
    if lib.exists():
        return lib
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not lib.exists():
            _build(out, quiet)
    return lib


def parse_headers() -> list[CFunction]:
    """Every function the headers declare (pycparser over `gcc -E` of the headers)."""
    from pycparser import c_ast, c_generator, c_parser

    text = _preprocess()
    ast = c_parser.CParser().parse(text, "acl.h")
    gen = c_generator.CGenerator()
    funcs: dict[str, CFunction] = {}
    for node in ast.ext:
        if not (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl)):
            continue
        fd = node.type
        ret = gen.visit(c_ast.Typename(None, [], None, _strip_names(fd.type))).strip()
        params, variadic, arrays = [], False, []
        for i, p in enumerate(fd.args.params if fd.args else []):
            if isinstance(p, c_ast.EllipsisParam):
                variadic = True
                continue
            if isinstance(p, c_ast.Typename) and gen.visit(p).strip() == "void":
                continue
            name = p.name or f"arg{i}"
            t = p.type
            if isinstance(t, c_ast.ArrayDecl):  # `T x[]` / `T x[][2]` decay to pointers
                t = c_ast.PtrDecl([], t.type)
                arrays.append(name)
            params.append((gen.visit(c_ast.Typename(None, [], None, _strip_names(t))).strip(), name))
        funcs[node.name] = CFunction(node.name, ret, tuple(params), variadic, tuple(arrays))
    return list(funcs.values())


def _strip_names(t):
    """A copy of a declarator with its identifier removed, so the generator prints an abstract type."""
    import copy

    from pycparser import c_ast

    t = copy.deepcopy(t)
    node = t
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = None
    return t


def _preprocess() -> str:
    src = "".join(f'#include "{h}"\n' for h in HEADERS)
    r = subprocess.run(
        [_cc(), "-E", "-P", "-DACLSIM_PARSING", "-I", str(INCLUDE), "-x", "c", "-"],
        input=src, capture_output=True, text=True, check=False,
    )
    if r.returncode:
        raise RuntimeError(f"preprocessing aclsim's headers failed:\n{r.stderr}")
    # pycparser knows no compiler built-ins: keep declarations from our headers only (no system typedefs
    # beyond the fixed-width integers, declared below).
    lines = [ln for ln in r.stdout.splitlines() if not ln.startswith("typedef") or "acl" in ln or "{" in ln]
    return _BUILTIN_TYPES + "\n".join(_only_acl(lines))


def _only_acl(lines: list[str]) -> list[str]:
    """Drop everything before the first line of our own headers (system header contents)."""
    for i, ln in enumerate(lines):
        if "ACL_RT_SUCCESS" in ln:
            return lines[i:]
    return lines


_BUILTIN_TYPES = """
typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long uint64_t; typedef unsigned long size_t; typedef unsigned long uintptr_t;
"""


def _cc() -> str:
    return os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc") or "gcc"


def _type_decls() -> str:
    """The headers' types (typedefs, enums, structs) for cffi's cdef: declarations without constants or functions."""
    from pycparser import c_ast, c_generator, c_parser

    ast = c_parser.CParser().parse(_preprocess(), "acl.h")
    gen = c_generator.CGenerator()
    out = []
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef):
            if node.name in {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                             "uint64_t", "size_t", "uintptr_t"}:
                continue
            out.append(gen.visit(node) + ";")
        elif isinstance(node, c_ast.Decl) and isinstance(node.type, (c_ast.Struct, c_ast.Enum)):
            out.append(gen.visit(node) + ";")
    return "\n".join(out)


def _build(out: Path, quiet: bool) -> None:
    import cffi

    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise RuntimeError(
            f"this Python ({sys.executable}) has no shared libpython (it was built without --enable-shared), "
            "which libascendcl.so embeds to run C programs; use a Python that has one (distribution packages "
            "and python.org builds do; with pyenv: PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install ...)")

    funcs = parse_headers()
    ffi = cffi.FFI()
    ffi.cdef(_type_decls() + "\n" + _SHIM_CDEF + _abi_cdef() + (HERE / "native.h").read_text())
    embedded = [f.signature(f"aclsim_py_{f.name}", "void *ra") + ";" for f in funcs if not f.variadic]
    ffi.embedding_api("\n".join([
        "void aclsim_py__app_log(void *ra, int level, const char *func, const char *file, uint32_t line, "
        "const char *msg);",
        "int aclsim_py__host_fault(uintptr_t addr, uintptr_t pc, int write, void **frames, int nframes);",
        "void aclsim_py__at_exit(void);",
        "int aclsim_py__launch(void *ra, aclsim_kernel *k);",
        "int aclsim_py__core_wait(void *ready, void *arg);",
        "int aclsim_py__soc(const char *soc, aclsim_soc_info *out);",
        "uint64_t aclsim_py__gm(int op, size_t size, void *ptr);",
        *embedded,
    ]))
    wrappers = []
    for f in funcs:
        if f.variadic:
            continue
        args = ", ".join(["__builtin_return_address(0)", *(n for _, n in f.params)])
        call = f"return aclsim_py_{f.name}({args});" if f.ret != "void" else f"aclsim_py_{f.name}({args});"
        body = f"ACLSIM_BOOT(); {call}"
        wrappers.append(f"ACL_FUNC_VISIBILITY {f.signature()} {{ {body} }}")
    source = "\n".join([
        "#include <stdint.h>",
        *(f'#include "{h}"' for h in HEADERS),
        '#include "aclsim/kernel_abi.h"',
        "#include <stdarg.h>",
        "/*ACLSIM_BOOT*/",
        "static void aclsim_py__app_log(void *ra, int level, const char *func, const char *file, uint32_t line, "
        "const char *msg);",
        "static int aclsim_py__host_fault(uintptr_t addr, uintptr_t pc, int write, void **frames, int nframes);",
        "static void aclsim_py__at_exit(void);",
        *(f"static {f.signature(f'aclsim_py_{f.name}', 'void *ra')};" for f in funcs if not f.variadic),
        *(p.read_text() for p in _C_SOURCES),
        *wrappers,
    ])
    import site

    site_dirs = [p for p in [*site.getsitepackages(), site.getusersitepackages()] if os.path.isdir(p)]
    boot = _BOOT % {"src": _c_string(str(HERE.parent.parent)), "sites": _c_string(json.dumps(site_dirs))}
    source = source.replace("/*ACLSIM_BOOT*/", boot)
    manifest = [{"name": f.name, "ret": f.ret, "params": [list(p) for p in f.params], "arrays": list(f.arrays)}
                for f in funcs if not f.variadic]
    ffi.embedding_init_code(_INIT_CODE)
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    ffi.set_source(
        "_aclsim_capi", source, include_dirs=[str(INCLUDE)],
        extra_compile_args=["-fvisibility=hidden", "-O2", "-g"],
        extra_link_args=[f"-Wl,-rpath,{libdir}", f"-Wl,-soname,{LIB_NAME}"] if libdir else [f"-Wl,-soname,{LIB_NAME}"],
    )
    tmp = Path(tempfile.mkdtemp(prefix="capi-build-", dir=out.parent))
    try:
        stream = open(os.devnull, "w") if quiet else None  # noqa: SIM115
        try:
            old_out, old_err = os.dup(1), os.dup(2)
            if stream is not None:  # distutils prints compiler lines on fd 1/2
                os.dup2(stream.fileno(), 1)
                os.dup2(stream.fileno(), 2)
            try:
                built = ffi.compile(tmpdir=str(tmp), target=LIB_NAME, verbose=False)
            finally:
                os.dup2(old_out, 1)
                os.dup2(old_err, 2)
                os.close(old_out)
                os.close(old_err)
        finally:
            if stream is not None:
                stream.close()
        stage = tmp / "stage"
        (stage / "lib64").mkdir(parents=True)
        shutil.copy2(built, stage / "lib64" / LIB_NAME)
        for alias in LIB_ALIASES[1:]:
            os.symlink(LIB_NAME, stage / "lib64" / alias)
        (stage / "functions.json").write_text(json.dumps(manifest))
        if out.exists():
            shutil.rmtree(out)
        os.replace(stage, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_SHIM_CDEF = """
int aclsim_c_embedded(void);
void aclsim_c_register_exit(void);
void aclsim_c_install_fault_handler(uintptr_t lo, uintptr_t hi);
int aclsim_twins_load(const char *dir, char *err, size_t errlen);
int aclsim_twin_lookup(const char *key, void **thread, void **block, void **slots);
"""

def _abi_cdef() -> str:
    """The structs and enums of aclsim/kernel_abi.h (the kernel runtime's interface), as cffi's cdef takes them."""
    import re

    text = re.sub(r"/\*.*?\*/", "", KERNEL_ABI.read_text(), flags=re.S)
    decls = re.findall(r"^(?:typedef struct|enum) \w+ \{.*?\}[^;]*;", text, flags=re.S | re.M)
    return "\n" + "\n".join(decls) + "\n"

def _c_string(s: str) -> str:
    return json.dumps(s)  # a JSON string of ASCII-safe escapes is a valid C string literal


# Python starts on the first call, with this aclsim and its environment (a venv: cffi itself lives there) on
# sys.path before cffi's own start-up imports anything. pthread_once makes it one check per call.
_BOOT = r"""
#include <pthread.h>
static pthread_once_t aclsim_boot_once = PTHREAD_ONCE_INIT;
static int aclsim_embedded = 0;  /* 1: this library started Python (a C program); 0: loaded into Python */
int aclsim_c_embedded(void) { return aclsim_embedded; }
static void aclsim_boot(void) {
    if (Py_IsInitialized()) return;
    aclsim_embedded = 1;
    Py_InitializeEx(0);
    PyObject *m = PyImport_ImportModule("site");
    if (m) {
        PyObject *sys_path = PySys_GetObject("path");
        PyObject *src = PyUnicode_FromString(%(src)s);
        if (sys_path && src) PyList_Insert(sys_path, 0, src);
        Py_XDECREF(src);
        PyObject *r = PyObject_CallMethod(m, "main", NULL);
        Py_XDECREF(r);
        PyObject *json = PyImport_ImportModule("json");
        PyObject *dirs = json ? PyObject_CallMethod(json, "loads", "s", %(sites)s) : NULL;
        for (Py_ssize_t i = 0; dirs && i < PyList_Size(dirs); i++) {
            PyObject *x = PyObject_CallMethod(m, "addsitedir", "O", PyList_GetItem(dirs, i));
            Py_XDECREF(x);
        }
        Py_XDECREF(dirs);
        Py_XDECREF(json);
        Py_DECREF(m);
    }
    PyErr_Clear();
    PyEval_SaveThread();
}
#define ACLSIM_BOOT() pthread_once(&aclsim_boot_once, aclsim_boot)
"""

_INIT_CODE = """
from _aclsim_capi import ffi, lib
from aclsim.capi import adapter
adapter.bind(ffi, lib)
"""

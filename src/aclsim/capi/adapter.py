"""The C face: each AscendCL C function as a thin adapter over the pyACL face's function of the same call.

pyACL is a thin wrapper of the C API (`acl.rt.malloc(size, policy) -> (ptr, ret)` is
`aclrtMalloc(&ptr, size, policy)`), so the C face is its inverse: the input parameters become the
pyACL call's arguments (handles and pointers as ints, `const char *` as str), the values before `ret`
go to the out-parameters, and `ret` is returned. All rules (argument checks, codes, recent-error
messages, per-thread state) stay where the pyACL face and the runtime keep them; what is C-only lives
here: a NULL out-parameter is ACL_ERROR_INVALID_PARAM (the documented code) before anything runs, strings
returned to C stay alive, structs are filled field by field, and the caller's return address becomes
the call site reports name (`sites.py`).

Each adapter is generated once from the function's C declaration (build.py's manifest), as a small
Python function, so a call costs one Python frame plus the pyACL function it calls.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import acl
from ..errors import Code, error_text, record_error
from ..runtime.observe import FOREIGN_CALLER

# C name -> pyACL function, where the name does not follow aclrtFooBar -> acl.rt.foo_bar.
_RENAMED = {
    "aclrtSetCurrentContext": "rt.set_context",
    "aclrtGetCurrentContext": "rt.get_context",
    "aclrtUnSubscribeReport": "rt.unsubscribe_report",
    "aclrtGetVersion": "get_version",
    "aclrtGetSocName": "get_soc_name",
    "aclopExecWithHandle": "op.execute_with_handle",
}
_MODULES = (("aclrt", "rt."), ("aclmdl", "mdl."), ("acldvpp", "media.dvpp_"), ("aclblas", "blas."), ("aclop", "op."),
            ("acl", ""))
# Calls the pyACL face has whose C shape needs an adapter of its own, not written yet: in/out sizes, arrays
# whose length is the sum of another array. They answer "not emulated" rather than guess.
_UNWIRED = {"acldvppJpegEncodeAsync", "acldvppVpcBatchCropAsync"}
_STRUCTS_OUT = {"aclrtUtilizationInfo", "aclmdlIODims", "aclmdlBatch", "aclmdlHW", "aclrtPtrAttributes"}

_ffi: Any = None
_lib: Any = None
_NULL: Any = None
_tls = threading.local()  # strings handed to this thread's C code (aclGetRecentErrMsg)
_strings: dict[str, Any] = {}  # other strings returned to C: kept for the life of the process


def _snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", camel).lower()


def face_path(cname: str) -> str | None:
    """The pyACL name (`rt.malloc`) of the call a C function (`aclrtMalloc`) is."""
    path = _RENAMED.get(cname)
    if path is None:
        for prefix, module in _MODULES:
            if cname.startswith(prefix):
                return module + _snake(cname[len(prefix):])
    return path


C_NAMES: dict[str, str] = {}  # "acl.rt.malloc" -> "aclrtMalloc", for the reports a C program reads


def face_function(cname: str) -> Callable | None:
    """The pyACL function a C function adapts, or None when the pyACL face has none (not emulated)."""
    path = face_path(cname)
    if path is None:
        return None
    obj: Any = acl
    for part in path.split("."):
        obj = vars(obj).get(part) if hasattr(obj, "__dict__") else None  # never __getattr__'s not-emulated stubs
        if obj is None:
            return None
    return obj if callable(obj) else None


_COUNT = re.compile(r"^num[A-Z]|Count$|Num$")


def _kinds(fn: dict, ct: Any) -> list[str]:
    """Each parameter's kind (`_kind`), then arrays: a parameter declared `T x[]`, or a `const` pointer to
    numbers, after a count parameter (numInputs, dimsCount) is a list `a` (pyACL takes a list), and the count
    `n` is left out of the pyACL call (the list carries it)."""
    params = fn["params"]
    kinds = [_kind(t, c) for (t, _), c in zip(params, ct.args, strict=True)]
    for i, ((t, name), c) in enumerate(zip(params, ct.args, strict=True)):
        numbers = c.kind == "pointer" and c.item.kind in ("primitive", "array") and t.startswith("const")
        if name in fn.get("arrays", ()) or (numbers and c.item.cname != "char"):
            count = next((j for j in range(i - 1, -1, -1) if kinds[j] in "in" and _COUNT.search(params[j][1])), None)
            if count is not None:
                kinds[i], kinds[count] = "a", "n"
    return kinds


def _array(p: Any, n: int) -> list:
    """A C array of `n` handles, numbers or rows as the list pyACL takes."""
    if p == _NULL or n <= 0:
        return []
    item = _ffi.typeof(p).item
    if item.kind == "pointer":
        return [_addr(p[i]) for i in range(n)]
    if item.kind == "array":
        return [list(p[i]) for i in range(n)]
    return [p[i] for i in range(n)]


def _kind(ctype: str, ct: Any) -> str:
    """How a parameter crosses: i (number), f (float), s (string in), o (out slot), d (struct out), p (pointer)."""
    if ct.kind == "primitive" and ct.cname in ("float", "double"):
        return "f"
    if ct.kind in ("primitive", "enum"):
        return "i"
    if ct.kind != "pointer":
        return "p"
    item = ct.item
    if " ".join(ctype.split()).startswith("const"):
        return "s" if item.kind == "primitive" and item.cname == "char" else "p"
    if item.kind == "pointer" or (item.kind in ("primitive", "enum") and item.cname != "char"):
        return "o"
    if item.kind == "struct" and item.cname.removeprefix("struct ") in _STRUCTS_OUT:
        return "d"
    return "p"


# ----------------------------------------------------------------------------------- helpers the adapters call
def _null(fn: str, param: str) -> int:
    record_error(error_text(Code.ERROR_INVALID_PARAM,
                            f"{fn}: {param} is NULL; pass the address of a variable to receive the result"))
    return int(Code.ERROR_INVALID_PARAM)


def _addr(p: Any) -> int:
    return int(_ffi.cast("uintptr_t", p))


def _str(p: Any) -> str | None:
    return None if p == _NULL else _ffi.string(p).decode("utf-8", "replace")


def _cstr(s: str | None, per_thread: bool = False) -> Any:
    if s is None:
        return _NULL
    if per_thread:
        buf = _ffi.new("char[]", s.encode())
        _tls.msg = buf
        return buf
    buf = _strings.get(s)
    if buf is None:
        buf = _strings[s] = _ffi.new("char[]", s.encode())
    return buf


def _put(slot: Any, value: Any) -> None:
    """Write an out value: a number into `*slot`, a list into `slot[0..n)`."""
    if isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            slot[k] = v
    else:
        slot[0] = value


def _fill(struct: Any, value: Any) -> None:
    """Write a pyACL result dict into a C struct (a list of dicts into an array of structs): fields by C name
    or its snake_case, lists into arrays."""
    if isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            _fill(struct + k, v)
        return
    ctype = _ffi.typeof(struct[0]) if _ffi.typeof(struct).kind == "pointer" else _ffi.typeof(struct)
    target = struct[0] if _ffi.typeof(struct).kind == "pointer" else struct
    for fname, field in ctype.fields:
        v = value.get(fname, value.get(_snake(fname))) if isinstance(value, dict) else None
        if v is None:
            continue
        ft = field.type
        if ft.kind == "struct":
            _fill(getattr(target, fname), v)
        elif ft.kind == "array" and ft.item.kind == "primitive" and ft.item.cname == "char":
            setattr(target, fname, str(v).encode()[: ft.length - 1])
        elif ft.kind == "array" and isinstance(v, (list, tuple)):
            arr = getattr(target, fname)
            flat = [x for row in v for x in (row if isinstance(row, (list, tuple)) else [row])]
            if ft.item.kind == "array":
                for i, row in enumerate(v):
                    for j, x in enumerate(row):
                        arr[i][j] = x
            else:
                for i, x in enumerate(flat[: ft.length]):
                    arr[i] = x
        elif ft.kind in ("pointer", "array"):
            continue
        else:
            setattr(target, fname, v)


def _to_c(ret: str) -> Callable[[Any], Any]:
    """Converts a pyACL result into the C return type `ret`."""
    t = " ".join(ret.split())
    if t == "void":
        return lambda v: None
    if t == "const char *":
        return _cstr
    if "*" in t:
        return lambda v: _ffi.cast("void *", v or 0) if not isinstance(v, _ffi.CData) else v
    if t in ("float", "double"):
        return float
    return lambda v: int(v or 0)


# ----------------------------------------------------------------------------------- generating the adapters
def _generate(fn: dict, face: Callable, ctypes_: Any) -> Callable:
    """One Python function for one C function, written out as source (fast at call time)."""
    name, ret, params = fn["name"], fn["ret"], fn["params"]
    kinds = _kinds(fn, ctypes_)
    args = [f"a{i}" for i in range(len(params))]
    body = []
    for i, (k, (_, pname)) in enumerate(zip(kinds, params, strict=True)):
        if k in "od":
            body.append(f"if a{i} == NULL: return null({name!r}, {pname!r})")
    body.append("FOREIGN.ra = ra")
    call = []
    for i, k in enumerate(kinds):
        if k == "i" or k == "f":
            call.append(f"a{i}")
        elif k == "p":
            call.append(f"addr(a{i})")
        elif k == "s":
            call.append(f"cstr_in(a{i})")
        elif k == "a":
            count = max(j for j in range(i) if kinds[j] == "n")
            call.append(f"array(a{i}, a{count})")
    # A NULL string at the end means "not given" (aclInit(NULL) is acl.init()).
    s_tail = [i for i, k in enumerate(kinds) if k == "s"]
    if s_tail and s_tail[-1] == len(kinds) - 1 and all(k != "o" for k in kinds):
        body.append(f"r = f({', '.join(call[:-1])}) if a{len(kinds) - 1} == NULL else f({', '.join(call)})")
    else:
        body.append(f"r = f({', '.join(call)})")
    outs = [i for i, k in enumerate(kinds) if k in "od"]
    if ret.strip() == "aclError":
        if outs:
            body.append("if type(r) is int: return r")
            body.append("if r[-1] == 0:")
            for n, i in enumerate(outs):
                if kinds[i] == "d":
                    body.append(f"    fill(a{i}, r[{n}])")
                elif ctypes_.args[i].item.kind == "pointer":
                    body.append(f"    a{i}[0] = cast_ptr(r[{n}])")
                else:
                    body.append(f"    put(a{i}, r[{n}])")
            body.append("return r[-1]")
        else:
            body.append("return r if type(r) is int else r[-1]")
    else:
        body.append("return conv(r)")
    src = f"def {name}(ra, {', '.join(args)}):\n" + "\n".join("    " + ln for ln in body) + "\n"
    env = {"NULL": _NULL, "null": _null, "FOREIGN": FOREIGN_CALLER, "f": face, "addr": _addr, "cstr_in": _str,
           "fill": _fill, "array": _array, "put": _put, "cast_ptr": lambda v: _ffi.cast("void *", v), "conv": _to_c(ret)}
    exec(compile(src, __file__, "exec"), env)  # named after this file: call sites skip it as aclsim's own
    return env[name]


def _unsupported(fn: dict) -> Callable:
    name, ret = fn["name"], " ".join(fn["ret"].split())
    failed: Any = int(Code.ERROR_API_NOT_SUPPORT) if ret == "aclError" else (None if ret == "void" else 0)
    if "*" in ret:
        failed = None

    def impl(ra: Any, *args: Any) -> Any:
        FOREIGN_CALLER.ra = ra
        record_error(error_text(Code.ERROR_API_NOT_SUPPORT, f"{name} is not emulated by aclsim's C face (the call "
                                "changed nothing); docs/c.md lists what is"))
        return _NULL if failed is None and "*" in ret else failed

    return impl


_CUSTOM: dict[str, Callable[..., Any]] = {}


def custom(name: str) -> Callable[[Callable], Callable]:
    def deco(fn: Callable) -> Callable:
        _CUSTOM[name] = fn
        return fn

    return deco


@custom("aclFloat16ToFloat")
def _half_to_float(ra: Any, value: int) -> float:
    """aclFloat16 (IEEE half bits in a uint16_t) to float: C has no error channel here, so it must be exact."""
    return float(np.array([value & 0xFFFF], np.uint16).view(np.float16)[0])


@custom("aclFloatToFloat16")
def _float_to_half(ra: Any, value: float) -> int:
    """float to aclFloat16, rounding to nearest even as the CANN conversion does (inf and NaN kept)."""
    with np.errstate(over="ignore"):
        return int(np.array([value], np.float32).astype(np.float16).view(np.uint16)[0])


@custom("aclGetRecentErrMsg")
def _recent(ra: Any) -> Any:
    return _cstr(acl.get_recent_err_msg(), per_thread=True)


@custom("aclrtLaunchCallback")
def _launch_callback(ra: Any, fn: Any, user_data: Any, block_type: int, stream: Any) -> int:
    FOREIGN_CALLER.ra = ra
    if fn == _NULL:
        record_error(error_text(Code.ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is NULL; pass the function to call"))
        return int(Code.ERROR_INVALID_PARAM)
    return acl.rt.launch_callback(lambda _args: fn(user_data), None, block_type, _addr(stream))


@custom("aclrtSubscribeReport")
def _subscribe_report(ra: Any, thread_id: int, stream: Any) -> int:
    """As acl.rt.subscribe_report. A C report thread becomes known to the runtime when it first calls in
    (aclrtProcessReport): give a thread just created up to a second to do so, as samples subscribe right
    after pthread_create."""
    FOREIGN_CALLER.ra = ra
    deadline = time.monotonic() + 1.0
    while (thread_id != threading.get_ident() and time.monotonic() < deadline
           and not any(t.ident == thread_id for t in threading.enumerate())):
        time.sleep(0.001)
    return acl.rt.subscribe_report(thread_id, _addr(stream))


@custom("aclrtGetVersion")
def _version(ra: Any, major: Any, minor: Any, patch: Any) -> int:
    for p, n in ((major, "majorVersion"), (minor, "minorVersion"), (patch, "patchVersion")):
        if p == _NULL:
            return _null("aclrtGetVersion", n)
    *v, r = acl.get_version()
    if r == 0:
        major[0], minor[0], patch[0] = v
    return r


@custom("aclFinalizeReference")
def _finalize_reference(ra: Any, count: Any) -> int:
    FOREIGN_CALLER.ra = ra
    n, r = acl.finalize_reference()
    if r == 0 and count != _NULL:
        count[0] = n
    return r


@custom("aclmdlSetInputDynamicDims")
def _set_dyn_dims(ra: Any, model_id: int, dataset: Any, index: int, dims: Any) -> int:
    FOREIGN_CALLER.ra = ra
    if dims == _NULL:
        return _null("aclmdlSetInputDynamicDims", "dims")
    d = dims[0]
    value = {"name": _ffi.string(d.name).decode(), "dimCount": d.dimCount,
             "dims": [d.dims[i] for i in range(min(d.dimCount, 128))]}
    return acl.mdl.set_input_dynamic_dims(model_id, _addr(dataset), index, value)


@custom("aclrtGetDeviceInfo")
def _device_info(ra: Any, device: int, attr: int, value: Any) -> int:
    """aclrtGetDeviceInfo: a figure of the device's chip profile (SIMT figures only where the chip has SIMT)."""
    FOREIGN_CALLER.ra = ra
    if value == _NULL:
        return _null("aclrtGetDeviceInfo", "value")
    from ..runtime import get_runtime

    rt = get_runtime()
    if not 0 <= device < len(rt.devices):
        record_error(error_text(Code.ERROR_RT_INVALID_DEVICEID, f"aclrtGetDeviceInfo: device {device} does not "
                                f"exist ({len(rt.devices)} device(s); ACLSIM_DEVICES or aclsim run --devices sets how many)"))
        return int(Code.ERROR_RT_INVALID_DEVICEID)
    chip = rt.devices[device].chip
    simt = 1 if chip.simt else 0
    figures = {1: 4, 101: chip.ai_cores, 102: chip.ai_cores, 201: chip.vector_cores, 202: 32 * simt,
               203: 2048 * simt, 204: chip.ub_size, 205: ((1 << 31) - 1) * simt, 206: 65535 * simt, 207: 65535 * simt,
               208: ((1 << 31) - 1) * simt, 209: 2048 * simt, 210: 2048 * simt, 211: 2048 * simt, 212: 64 * simt,
               301: chip.memory_size, 302: chip.l2_size}
    if attr not in figures:
        record_error(error_text(Code.ERROR_INVALID_PARAM, f"aclrtGetDeviceInfo: attribute {attr} is not one aclsim "
                                "knows (acl/acl_rt.h lists the aclrtDevAttr values it answers)"))
        return int(Code.ERROR_INVALID_PARAM)
    value[0] = figures[attr]
    return 0


def _app_log(ra: Any, level: int, func: Any, file: Any, line: int, msg: Any) -> None:
    """aclAppLog / ACL_APP_LOG: the line names the C file and line the macro passed."""
    where = f"{os.path.basename(_str(file) or '?')}:{line}"
    acl.write_app_log(level, _str(msg) or "", where, _program())


def _program() -> str:
    try:
        return os.path.basename(os.readlink("/proc/self/exe"))
    except OSError:
        return "app"


# ----------------------------------------------------------------------------------- binding
def bind(ffi: Any, lib: Any) -> None:
    """Attach a Python implementation to every `aclsim_py_<name>` of the library (called by its init code)."""
    global _ffi, _lib, _NULL
    _ffi, _lib, _NULL = ffi, lib, ffi.NULL
    manifest = json.loads((Path(_library_dir(ffi)) / "functions.json").read_text())
    for fn in manifest:
        name = fn["name"]
        ret = " ".join(fn["ret"].split())
        error = int(Code.ERROR_INTERNAL_ERROR) if ret == "aclError" else None
        impl = _CUSTOM.get(name)
        if impl is None:
            face = None if name in _UNWIRED else face_function(name)
            if face is None:
                impl = _unsupported(fn)
            else:
                C_NAMES["acl." + face_path(name)] = name
                impl = _generate(fn, face, _c_type(ffi, fn))
        ffi.def_extern(name=f"aclsim_py_{name}", error=error, onerror=_on_error)(impl)
    ffi.def_extern(name="aclsim_py__app_log", onerror=_on_error)(_app_log)
    from . import process

    ffi.def_extern(name="aclsim_py__host_fault", error=-1, onerror=_on_error)(process.host_fault)
    ffi.def_extern(name="aclsim_py__at_exit", onerror=_on_error)(process.at_exit)
    from . import kernels

    kernels.bind(ffi, lib)
    process.start(ffi, lib, C_NAMES)


def _c_type(ffi: Any, fn: dict) -> Any:
    params = ", ".join(t for t, _ in fn["params"]) or "void"
    return ffi.typeof(f"{fn['ret']}(*)({params})")


def _library_dir(ffi: Any) -> str:
    """The directory holding the running libascendcl.so (its manifest lies one level up)."""
    from .sites import module_of

    addr = int(ffi.cast("uintptr_t", ffi.addressof(_lib, "aclsim_c_register_exit")))
    return str(Path(module_of(addr)[0]).resolve().parent.parent)


def _on_error(exc_type: type, exc: BaseException, tb: Any) -> None:
    """A Python exception inside an adapter: the C caller gets ACL_ERROR_INTERNAL_ERROR, stderr the traceback."""
    if isinstance(exc, SystemExit):
        return
    print("aclsim: internal error in the C face (the call returned ACL_ERROR_INTERNAL_ERROR):", file=sys.stderr)
    traceback.print_exception(exc_type, exc, tb)

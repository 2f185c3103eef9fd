"""What the numba JIT's generated code runs on (imported only when numba is installed).

- the scalar C arithmetic of `csem`, compiled by numba (the same functions the reference executor runs);
- `stopped(flag)`: a read of an interrupt flag that LLVM cannot hoist out of a loop, which every loop of a
  compiled kernel checks at its back edge (`Interrupted` ends the compiled call);
- `run_interruptible`: calls compiled code on a worker thread while the main thread waits, so that a
  Ctrl-C (which Python only sees between bytecodes, never inside compiled code) sets the flag and the
  kernel stops at its next back edge, as the numpy engine stops between statements;
- `build`: compiles a kernel's generated module, cached on disk (`cache_dir`) so that a second run of a
  program loads the machine code instead of compiling it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import math
import os
import queue
import sys
import threading
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

from ..files import cache_root
from . import csem

JitFault = csem.OutOfRange

_idiv, _udiv, _ifloordiv, _imod, _umod, _wdiv, _wmod, _fdiv, _shl, _shr, _ushr, _chk, _nonzero_step, _pymod = (
    numba.njit(cache=False)(f) for f in csem.SCALAR_OPS)


class Interrupted(Exception):
    """Raised by compiled code that saw the interrupt flag set at a loop's back edge."""


class Unplanned(Exception):
    """Raised by an interleaved loop compiled without its checked form, at a block its plan does not cover."""


@intrinsic
def stopped(typingctx: Any, flag: Any) -> Any:
    """Whether flag[0] (a uint8 array) is set, read behind a compiler barrier: a loop that checks it at
    every trip reads memory each time (a plain load of memory the loop never writes would be hoisted)."""
    sig = types.boolean(flag)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        builder.asm(ir.FunctionType(ir.VoidType(), []), "", "~{memory}", [], side_effect=True)
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        v = builder.load(data)
        return builder.icmp_unsigned("!=", v, v.type(0))

    return sig, codegen


_EXACT = float(1 << 49)  # products below it in magnitude are exact in float64, and so are sums of 8 of them


@numba.njit(cache=False)
def plan_ok(rows: Any, bx: Any, by: Any, bz: Any, x0: Any, x1: Any, y0: Any, y1: Any, z0: Any, z1: Any, k0: Any,
            k1: Any) -> bool:
    """Whether every row (c, coefficients of blockIdx.x/y/z, threadIdx.x/y/z and the loop counter, low,
    high) of an affine plan stays in [low, high] for these block indices, every thread of the box
    x0..x1, y0..y1, z0..z1 and every counter value of k0..k1 (its extremes are at the corners); exact:
    a term of 2^49 or more fails the row (jit.JitKernel.plan_arrays keeps c below it)."""
    ends = ((bx, bx), (by, by), (bz, bz), (x0, x1), (y0, y1), (z0, z1), (k0, k1))  # (float64)
    for r in range(rows.shape[0]):
        lo = hi = rows[r, 0]
        for a in range(7):
            c = rows[r, 1 + a]
            if c != 0.0:
                u, v = c * ends[a][0], c * ends[a][1]
                if abs(u) >= _EXACT or abs(v) >= _EXACT:
                    return False
                lo += u if u < v else v  # (not min() and max(): numba would compile them for it)
                hi += v if u < v else u
        if lo < rows[r, 8] or hi > rows[r, 9]:
            return False
    return True


# ---------------------------------------------------------------------------- interruptible calls
STOP = np.zeros(1, np.uint8)  # the flag compiled kernels check; set while the host handles a Ctrl-C
_jobs: queue.SimpleQueue = queue.SimpleQueue()
_worker: threading.Thread | None = None


def _serve() -> None:
    while True:
        fn, args, box, done = _jobs.get()
        try:
            box.append((True, fn(*args)))
        except BaseException as e:  # handed to the waiting thread
            box.append((False, e))
        done.set()


def run_interruptible(fn: Any, args: tuple) -> Any:
    """fn(*args) (compiled with nogil), stoppable by Ctrl-C: on the main thread the call runs on a worker
    while this thread waits, interruptibly; a KeyboardInterrupt sets STOP, waits for the kernel to leave
    at its next loop back edge, and propagates (the launch then fails once, as on the numpy engine)."""
    global _worker
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)  # signals reach only the main thread: nothing to wait for
    if _worker is None:
        _worker = threading.Thread(target=_serve, name="aclsim-simt-jit", daemon=True)
        _worker.start()
    box: list = []
    done = threading.Event()
    _jobs.put((fn, args, box, done))
    try:
        done.wait()
    except BaseException:
        STOP[0] = 1
        while not done.is_set():  # the kernel stops at its next loop trip: wait for it (a second Ctrl-C too)
            with contextlib.suppress(BaseException):
                done.wait(0.05)
        STOP[0] = 0
        raise
    ok, value = box[0]
    if not ok:
        raise value
    return value


# ---------------------------------------------------------------------------- compiling, cached on disk
def cache_dir() -> Path | None:
    """Where compiled kernels are kept: $ACLSIM_SIMT_JIT_CACHE ("0" or "off": nowhere), else
    simt-jit in aclsim's cache folder (~/.cache/aclsim/simt-jit)."""
    env = os.environ.get("ACLSIM_SIMT_JIT_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "no", "false") else Path(env).expanduser()
    return cache_root() / "simt-jit"


_HEADER = "from aclsim.simt.jitlib import *  # noqa\n"
_LIB = None  # the hash of what generated code depends on besides its own text


def _lib_stamp() -> str:
    """Versions and sources the compiled code depends on: any change makes new cache entries."""
    global _LIB
    if _LIB is None:
        from .. import __version__ as aclsim_version

        h = hashlib.sha256()
        for part in (aclsim_version, numba.__version__, np.__version__, sys.version):
            h.update(part.encode())
        for mod in (csem, sys.modules[__name__]):
            h.update(Path(mod.__file__).read_bytes())
        _LIB = h.hexdigest()
    return _LIB


def build(text: str, name: str, consts: dict[str, int]) -> Any:
    """The generated `_launch` (with these module constants) as a numba dispatcher, compiled on its
    first call; from the disk cache when an earlier process compiled the same code."""
    body = "".join(f"{k} = {v!r}\n" for k, v in consts.items()) + text
    options = dict(nogil=True, error_model="numpy")
    where = cache_dir()
    if where is not None:
        key = hashlib.sha256((_lib_stamp() + body).encode()).hexdigest()[:32]
        path = where / f"k_{key}.py"
        try:
            if not path.exists():
                where.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(f"# simt kernel {name}\n{_HEADER}{body}")
                os.replace(tmp, path)  # never rewritten: numba's cache index keys on the file's stamp
            spec = importlib.util.spec_from_file_location(f"aclsim_simt_jit_{key}", path)
            module = sys.modules.get(spec.name)
            if module is None:  # (numba's cache reloads the function's globals from the module by name)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules[spec.name] = module
            return numba.njit(cache=True, **options)(module._launch)
        except OSError:
            pass  # an unwritable cache: compile in memory
    env: dict[str, Any] = {}
    exec(compile(_HEADER + body, f"<simt jit {name}>", "exec"), env)
    return numba.njit(cache=False, **options)(env["_launch"])


__all__ = ["Interrupted", "JitFault", "Unplanned", "_chk", "_fdiv", "_idiv", "_ifloordiv", "_imod", "_nonzero_step",
           "_pymod", "_shl", "_shr", "_udiv", "_umod", "_ushr", "_wdiv", "_wmod", "math", "np", "plan_ok", "stopped"]

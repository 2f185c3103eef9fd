"""Kernel launches from C and C++: `aclsimLaunchKernel` (what `k<<<...>>>(args)` becomes) onto the native
engine (`aclsim.native`), and the engine's way back into the compiled code (`Runner`).

The program's launch hands libascendcl an `aclsim_kernel` (kernel_abi.h): the kernel's bodies, a copy of
its arguments, its shape and stream. This module describes it to the engine as a NativeKernel and runs it
through kernels.c when its task runs: `aclsim_native_run` for SIMT blocks or one AI Core, the checked build
(a shared object each translation unit built by aclsim cc carries) under the sanitizer.
"""

from __future__ import annotations

import sys
import threading
import weakref
from typing import Any

import numpy as np

from .. import native
from ..acl import _args as acl_args
from ..errors import AclError, record_error
from ..native import accesses
from ..native.faults import Fault
from ..runtime import FOREIGN_CALLER, Site
from . import ascendc, sites

_ffi: Any = None
_lib: Any = None
_twins = {"loaded": False, "error": ""}
_twin_lock = threading.Lock()


def bind(ffi: Any, lib: Any) -> None:
    global _ffi, _lib
    _ffi, _lib = ffi, lib
    ffi.def_extern(name="aclsim_py__launch", error=500000, onerror=_on_error)(_launch)
    ffi.def_extern(name="aclsim_py__core_wait", error=0, onerror=_on_error)(_core_wait)
    ffi.def_extern(name="aclsim_py__soc", error=-1, onerror=_on_error)(_soc)
    ffi.def_extern(name="aclsim_py__gm", error=0, onerror=_on_error)(_gm)


def _gm(op: int, size: int, ptr: Any) -> int:
    """The CPU twin's GmAlloc / GmFree: device memory of device 0 that host code may use too (the twin shares
    memory between the host and the kernels, as an RC-mode board does), set up on first use."""
    from .. import acl
    from ..runtime.devrange import set_host_access

    if op == 1:
        code = acl.rt.free(int(_ffi.cast("uintptr_t", ptr)))
        if code:
            print(f"aclsim: AscendC::GmFree failed ({code}): {acl.get_recent_err_msg()}", file=sys.stderr)
        return 0
    if acl.rt.get_context()[1] != 0:  # no runtime yet: the twin needs no aclInit/aclrtSetDevice
        acl.init()
        acl.rt.set_device(0)
    set_host_access(True)
    p, code = acl.rt.malloc(size, 0)
    if code:
        print(f"aclsim: AscendC::GmAlloc({size}) failed ({code}): {acl.get_recent_err_msg()}", file=sys.stderr)
        return 0
    return int(p)


def _soc(name: Any, out: Any) -> int:
    """The figures of a chip profile: the named one, else the current device's (else the emulated default)."""
    from ..chips import get_profile, profile_from_env
    from ..runtime import current_runtime

    if name != _ffi.NULL:
        try:
            chip = get_profile(_ffi.string(name).decode())
        except ValueError as e:
            print(f"aclsim: {e}", file=sys.stderr)
            return -1
    else:
        rt = current_runtime()
        chip = rt.chip if rt is not None else profile_from_env()
    out.name = chip.name.encode()[:63]
    out.arch, out.aic, out.aiv, out.separated = chip.arch, chip.ai_cores, chip.vector_cores, int(chip.separated)
    out.ub, out.l1, out.l0a, out.l0b, out.l0c = chip.ub_size, chip.l1_size, chip.l0a_size, chip.l0b_size, chip.l0c_size
    out.l2, out.hbm, out.bt = chip.l2_size, chip.memory_size, chip.bt_size
    return 0


def _on_error(exc_type: type, exc: BaseException, tb: Any) -> None:
    import traceback

    print("aclsim: internal error in a kernel launch:", file=sys.stderr)
    traceback.print_exception(exc_type, exc, tb)


def _launch(ra: Any, kp: Any) -> int:
    """aclsimLaunchKernel: queue the launch; the runtime owns `kp` from here when it returns 0."""
    FOREIGN_CALLER.ra = ra
    k = kp[0]
    kind = native.KINDS[k.kind] if k.kind < len(native.KINDS) else f"kind {k.kind}"
    entry = int(_ffi.cast("uintptr_t", k.entry))
    defined = sites.resolve(entry + 1) if entry else None  # the function's first instruction: its definition
    runner = _Runner(kp)
    spec = native.NativeKernel(
        name=_ffi.string(k.name).decode(errors="replace") if k.name != _ffi.NULL else "kernel",
        kind=kind, fibers=bool(k.fibers), grid=(k.grid.x, k.grid.y, k.grid.z),
        block=(k.block_dim.x, k.block_dim.y, k.block_dim.z), dyn_ubuf=int(k.dyn_ubuf), max_threads=int(k.max_threads),
        pointers=tuple(int(k.pointers[i]) for i in range(k.npointers)),
        source=defined.filename if defined is not None and defined.lineno else None,
        line=defined.lineno if defined is not None else None, runner=runner, spell=ascendc.spell)
    try:
        native.submit(spec, int(_ffi.cast("uintptr_t", k.stream)))
    except AclError as e:  # the launch does not run: <<<...>>> has no result, so say it (as CANN's log does)
        runner.owned = False  # the C side frees the arguments when the launch fails
        acl_args._last.code = e.code
        record_error(str(e))
        print(f"aclsim: kernel launch failed ({e.code}): {e.message}", file=sys.stderr)
        return int(e.code)
    return 0


def _core_wait(ready: Any, arg: Any) -> int:
    fn = _ffi.cast("int (*)(void *)", ready)
    try:
        return 1 if native.core_wait(lambda: bool(fn(arg))) else 0
    except BaseException as e:  # another core faulted meanwhile (the gang stops this one): the launch re-raises it
        ascendc.keep(e)
        return 0


def _load_twins() -> str:
    """Load the checked builds of every translation unit (once); an error text, or ''."""
    with _twin_lock:
        if not _twins["loaded"]:
            _twins["loaded"] = True
            from ..files import cache_root

            where = cache_root() / "checked"
            where.mkdir(parents=True, exist_ok=True)
            err = _ffi.new("char[]", 512)
            _lib.aclsim_twins_load(str(where).encode(), err, 512)
            _twins["error"] = _ffi.string(err).decode(errors="replace")
            if _twins["error"]:
                print(f"aclsim: warning: {_twins['error']}", file=sys.stderr)
    return str(_twins["error"])


class _Runner:
    """One launch's compiled code (the native engine's Runner)."""

    def __init__(self, kp: Any) -> None:
        self.kp = kp
        self.thread = kp.thread
        self.block = kp.block
        self.slots = _ffi.NULL
        self.owned = True

    def checked(self) -> bool:
        _load_twins()
        thread, block, slots = _ffi.new("void **"), _ffi.new("void **"), _ffi.new("void **")
        if not _lib.aclsim_twin_lookup(self.kp.key, thread, block, slots):
            return False
        self.thread = _ffi.cast("void (*)(void *)", thread[0])
        self.block = _ffi.cast("void (*)(void *, aclsim_thread *)", block[0])
        self.slots = _ffi.cast("void (*)(aclsim_slots *)", slots[0])
        return True

    def run(self, *, first: int = 0, count: int = 0, core: int = -1, core_num: int = 0, sub_block: int = 0,
            sub_blocks: int = 1, is_aic: bool = False, ub_size: int, ub: int = 0,
            table: accesses.Table | None) -> Fault | None:
        a = _ffi.new("aclsim_run_args *")
        a.k = self.kp
        a.thread = self.thread
        a.block = self.block
        a.slots = self.slots
        a.first, a.count = first, count
        a.core, a.core_num = core, core_num
        a.sub_block_idx, a.sub_block_num, a.is_aic = sub_block, sub_blocks, int(is_aic)
        a.ub_size = ub_size
        a.ub = _ffi.cast("void *", ub)
        a.check = self._check(table) if table is not None else _ffi.NULL
        out = _ffi.new("aclsim_fault *")
        if _lib.aclsim_native_run(a, out) == 0:
            return None
        pending = ascendc.take_pending()
        if pending is not None:  # an Ascend C call stopped the core: the engine's own fault says why
            raise pending
        return Fault(out.status, out.signo, out.write, out.size, out.addr, out.pc, out.block, out.thread, out.pc2,
                     out.thread2, _ffi.string(out.text).decode(errors="replace"))

    def _check(self, table: accesses.Table) -> Any:
        if table.handle is None:
            c = _ffi.new("aclsim_check *")
            arrays = [_ffi.from_buffer("uint64_t[]", x) for x in (table.start, table.size, table.end)]
            c.n = len(table.allocs)
            c.start, c.size, c.end = arrays
            c.lo, c.hi = table.lo, table.hi
            table.handle = (c, arrays)
            weakref.finalize(table, _lib.aclsim_check_free, c)
        return table.handle[0]

    def records(self, table: accesses.Table) -> np.ndarray:
        c = self._check(table)
        _lib.aclsim_check_flush(c)
        n = int(c.nlog)
        if not n:
            return np.zeros(0, accesses.RECORD)
        recs = np.frombuffer(_ffi.buffer(c.log, n * accesses.RECORD.itemsize), accesses.RECORD).copy()
        c.nlog = 0
        return recs

    def where(self, pc: int, returns: bool = True) -> Site | None:
        return sites.code_site(pc, returns) if pc else None

    def release(self) -> None:
        if self.owned and self.kp is not None:
            self.owned = False
            _lib.aclsim_kernel_free(self.kp)
            self.kp = None

"""Which pipe of the running core touches which UB bytes, and its sync points, told to the sanitizer.

On the AI Core each instruction runs on one pipe: `data_copy` GM -> UB on MTE2, UB -> GM on MTE3,
vector instructions on V (local -> local copies: `local_copy_pipe`),
`LocalTensor.get_value/set_value` on S (the Ascend C programming guide's pipes: hicann/asc-devkit docs). The pipes run
concurrently; only set_flag / wait_flag, pipe_barrier and the queue events order them. The emulator
runs everything in program order, so a missing synchronisation changes no result here: these
records let `check/synccheck.py` find it. Nothing is built unless an observer wants it: `Launch.run`
sets the UB pool's `watch` flag, and callers test it before calling in.
"""

from __future__ import annotations

import sys
from typing import Any

from aclsim.runtime import LocalGarbage, PipeAccess, PipeSync, user_site

from ..faults import PKG_DIR
from .pool import Pool


def _kernel_line() -> int | None:
    """The line of the innermost kernel-source frame (cheaper than a full `user_site`: no caller chain)."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(PKG_DIR):
        f = f.f_back
    if f is None:  # called from native code: its caller's line
        site = user_site(0)
        return site.lineno if site is not None else None
    return f.f_lineno


def local_copy_pipe(src: Pool, dst: Pool) -> str:
    """The pipe of a data_copy between two local memories: UB -> UB on V (`copy_ubuf_to_ubuf`), out of UB
    on MTE3 (`copy_ubuf_to_cbuf`), into UB from L1 on MTE1 (inference from the CCE intrinsics' pipes)."""
    if src.name == "UB":
        return "V" if dst.name == "UB" else "MTE3"
    return "MTE1"


def access(pipe: str, pool: Pool, lo: int, hi: int, write: bool, api: str) -> None:
    """Pipe `pipe` of the pool's core read (or wrote) bytes [lo, hi) of `pool` (only when `pool.watch`)."""
    core = pool.core
    core.launch.bus.emit("pipe_access", PipeAccess(core.launch.task, core.idx, pipe, pool.name, lo, hi, write,
                                                   _kernel_line(), core.launch.spell(api)))


def garbage(pool: Pool, lo: int, hi: int, bad: int, api: str) -> None:
    """A copy read bytes [lo, hi) of `pool` of which byte `bad` was never written. Hardware moves whatever the
    memory holds (a copy out of a 32-byte block whose tail the kernel never computed is common and legal), so
    this is no fault: the sanitizer is told (initcheck reports it as a warning)."""
    core = pool.core
    bus = core.launch.bus
    if bus.wants("local_garbage"):
        bus.emit("local_garbage", LocalGarbage(core.launch.task, core.idx, pool.name, lo, hi, bad, _kernel_line(),
                                               core.launch.spell(api)))


def sync(core: Any, kind: str, api: str, src: str = "", dst: str = "", event_id: int = 0) -> None:
    """A synchronisation point of `core` (an `aicore.core.Core`; see `runtime.PipeSync`), when its UB is watched."""
    if not core.launch.watch:
        return
    core.launch.bus.emit("pipe_sync", PipeSync(core.launch.task, core.idx, kind, src, dst, int(event_id),
                                               _kernel_line(), core.launch.spell(api)))

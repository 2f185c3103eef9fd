"""What a native kernel's fault says: the access, the thread, the source line and why, in the words of
the GM door (runtime/gm.py), so a fault reads the same whichever engine ran the kernel."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.gm import GlobalMemory
from ..runtime.memory import device_of

if TYPE_CHECKING:
    from .kernel import NativeKernel

SIGNAL, ILLEGAL, TRAP = 1, 2, 3  # Fault.status: a signal in kernel code; an access --check refused; a trap


@dataclass(frozen=True)
class Fault:
    """How a run of compiled kernel code ended early (kernels.c's aclsim_fault)."""

    status: int
    signo: int = 0
    write: int = -1  # 1 write, 0 read, 2 atomic, -1 unknown
    size: int = 0
    addr: int = 0
    pc: int = 0  # the faulting instruction, or the checked access's return address
    block: int = 0  # linear block (Ascend C: the core)
    thread: int = 0  # linear thread in the block
    pc2: int = 0  # barrier divergence: where the other thread waits
    thread2: int = 0
    text: str = ""


def coords(linear: int, dims: tuple[int, int, int]) -> tuple[int, int, int]:
    x, y = dims[0], dims[1]
    return linear % x, linear // x % y, linear // (x * y)


def who(k: NativeKernel, block: int, thread: int) -> str:
    if not k.simt:
        return f"core {block}"
    return f"block {coords(block, k.grid)} thread {coords(thread, k.block)}"


def describe(k: NativeKernel, f: Fault, gm: GlobalMemory) -> str:
    """The text the stream reports (aclGetRecentErrMsg, the sanitizer's device-fault finding)."""
    site = k.runner.where(f.pc, returns=f.status != SIGNAL) if f.pc else None
    at = f" at {site.filename}:{site.lineno}" if site is not None and site.lineno else ""
    by = f" by {who(k, f.block, f.thread)}"
    head = f"kernel '{k.name}': "
    if f.status == ILLEGAL:
        op = {0: "load", 1: "store", 2: "atomic"}.get(f.write, "access")
        return f"{head}illegal address {f.addr:#x} in a {f.size}-byte {op}{by}{at}: {_why(k, gm, f.addr, f.size)}"
    if f.status == SIGNAL:
        if f.text:  # the runtime knew better (a stack overflow)
            return f"{head}{f.text}{by}{at}"
        if f.signo in (signal.SIGSEGV, signal.SIGBUS):
            op = {0: " in a load", 1: " in a store"}.get(f.write, "")
            return f"{head}illegal address {f.addr:#x}{op}{by}{at}: {_why(k, gm, f.addr, 1)}"
        if f.signo == signal.SIGFPE:
            return f"{head}arithmetic exception (an integer division by zero or overflow){by}{at}"
        if f.signo == signal.SIGABRT:
            return f"{head}abort() was called (a failed assert prints its message above){by}{at}"
        return f"{head}{signal.Signals(f.signo).name} (an illegal instruction or a trap){by}{at}"
    if f.pc2:
        other = k.runner.where(f.pc2)
        if other is not None and other.lineno:
            at += f" (thread {coords(f.thread2, k.block)} waits at {other.filename}:{other.lineno})"
    return f"{head}{f.text}{by}{at}"


def _why(k: NativeKernel, gm: GlobalMemory, addr: int, size: int) -> str:
    """The door's reason, judged from the launch's pointer argument the address most plausibly came from."""
    if addr < 65536:
        return "the address is NULL (or near it): a pointer argument was never set"
    if device_of(addr) is None:
        return (f"{addr:#x} is not device memory (a host pointer, or memory the kernel does not own): kernels "
                "reach device memory only (aclrtMalloc)")
    below = [p for p in k.pointers if p <= addr and device_of(p) == device_of(addr) and gm.find(p) is not None]
    origin = max(below) if below else addr
    dtype: Any = np.dtype(f"u{size}") if size in (1, 2, 4, 8) else None
    return gm.check(addr, max(size, 1), origin, dtype).text or "no fault by the bounds rule (a race with a free?)"

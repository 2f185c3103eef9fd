"""What the native engine knows of one launch: the kernel's shape and kind, and the runner (the face's bridge
into the compiled code)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

KINDS = ("simt", "aicore", "vector", "cube", "mix")


class Runner(Protocol):
    """The compiled code of one launch, as the face runs it."""

    def run(self, *, first: int = 0, count: int = 0, core: int = -1, core_num: int = 0, sub_block: int = 0,
            sub_blocks: int = 1, is_aic: bool = False, ub_size: int, ub: int = 0, table: Any) -> Any:
        """Run SIMT blocks first .. first + count - 1, or the body of AI Core `core` (`ub`: the address of the core's
        UB, 0: the runner's own), recording accesses in `table` (an accesses.Table, or None); the faults.Fault that
        stopped it, or None. A fault whose cause the face knows better (an Ascend C call the engine refused) is
        raised as that cause instead."""

    def checked(self) -> bool:
        """Switch to the kernel's checked build (True), or say it has none (False)."""

    def records(self, table: Any) -> Any:
        """The access records of the runs since the last call (a numpy array of accesses.RECORD)."""

    def where(self, pc: int, returns: bool = True) -> Any:
        """The source place (runtime Site) of a return address (or, `returns` False, an instruction) in the
        kernel's code, or None; inside aclsim's own inlined headers, the place in the program that called them."""

    def release(self) -> None:
        """Free the launch's copy of its arguments."""


@dataclass
class NativeKernel:
    """One launch of a natively compiled kernel."""

    name: str
    kind: str  # one of KINDS
    fibers: bool  # the body synchronises threads: run them as fibers
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dyn_ubuf: int
    max_threads: int  # __launch_bounds__ (0: not given)
    pointers: tuple[int, ...]
    source: str | None  # the file defining the kernel
    line: int | None
    runner: Runner = field(repr=False)
    spell: Callable[[str], str] | None = None  # how the face's language names an Ascend C API in faults

    @property
    def simt(self) -> bool:
        return self.kind == "simt"

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

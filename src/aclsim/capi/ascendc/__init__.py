"""The C++ face of the Ascend C engine: what kernel_operator.h's calls do, through libascendcl.

Kernel code in C++ (`AscendC::DataCopy`, `TQue::AllocTensor`, `Add`, `Mmad`, `Matmul`...) calls one of three C
entry points of libascendcl (`include/ascendc/abi.h`, `abi.c` here) with an operation code and operand words;
they arrive here, are decoded into the engine's operands (`operands.py`) and run the instruction of the engine's
table on the running AI Core (the handlers: `system.py`, `memory.py`, `move.py`, `vector.py`, `cube.py`,
`matmul.py`, `host.py`). Nothing here decides what an instruction means: the checks, the semantics, the
findings and the cost are the engine's, as for pyasc kernels.

A call that faults keeps its exception here (`take_pending`) and tells libascendcl, which stops the core; the
launch (aclsim.native) re-raises it, so the stream reports the engine's own message.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from ...asc import faults
from ...runtime import FOREIGN_CALLER
from . import cube, host, matmul, memory, move, system, vector  # noqa: F401  (they register their handlers)
from .names import spell
from .ops import HANDLERS, OPS

_pending = threading.local()
_lib: Any = None


def bind(ffi: Any, lib: Any) -> None:
    """Implement libascendcl's Ascend C entry points (cffi embedding)."""
    global _lib
    _lib = lib
    table = _table()
    running = faults.running_or_none
    foreign = FOREIGN_CALLER

    def asc(op: int, a: int, b: int, c: int, d: int, e: int, f: int, ra: Any) -> int:
        foreign.ra = ra
        return table[op](running(), a, b, c, d, e, f) or 0

    def asc_scalar(op: int, a: int, b: int, c: int, d: int, e: int, s: float, ra: Any) -> int:
        foreign.ra = ra
        return table[op](running(), a, b, c, d, e, s) or 0

    def asc_real(op: int, a: int, b: int, ra: Any) -> float:
        foreign.ra = ra
        return float(table[op](running(), a, b))

    ffi.def_extern(name="aclsim_py__asc", error=0, onerror=_on_error)(asc)
    ffi.def_extern(name="aclsim_py__asc_scalar", error=0, onerror=_on_error)(asc_scalar)
    ffi.def_extern(name="aclsim_py__asc_real", error=0.0, onerror=_on_error)(asc_real)


def _table() -> list[Any]:
    """Handlers by operation code (with its forms); an operation without one says it is not emulated."""
    size = max([len(OPS) * 1, *(k + 1 for k in HANDLERS)])
    table: list[Any] = [None] * size
    for code, h in HANDLERS.items():
        table[code] = h
    for code, slot in enumerate(table):
        if slot is None:
            table[code] = _missing(code)
    return table


def _missing(code: int) -> Any:
    name = OPS[code & 0xFFF][0] if (code & 0xFFF) < len(OPS) else f"operation {code}"

    def handler(core: Any, *words: Any) -> None:
        faults.fail(name, f"this form of {name} is not emulated by aclsim's C++ face")

    return handler


def _on_error(exc_type: type, exc: BaseException, tb: Any) -> None:
    """A call raised: keep the exception for the launch and stop the core (or, outside a kernel, say why)."""
    if faults.running_or_none() is None and not isinstance(exc, faults.KernelFault):
        import traceback

        print("aclsim: internal error in an Ascend C call:", file=sys.stderr)
        traceback.print_exception(exc_type, exc, tb)
    elif faults.running_or_none() is None:
        print(f"aclsim: {exc}", file=sys.stderr)
    _pending.exc = exc
    _lib.aclsim_asc_fail()


def keep(exc: BaseException) -> None:
    """Another entry of the running core (the gang hook) raised: the launch re-raises `exc` when the core stops."""
    _pending.exc = exc


def take_pending() -> BaseException | None:
    """The exception of the call that stopped this thread's core, if one did (cleared)."""
    exc = getattr(_pending, "exc", None)
    _pending.exc = None
    return exc


__all__ = ["bind", "keep", "spell", "take_pending"]

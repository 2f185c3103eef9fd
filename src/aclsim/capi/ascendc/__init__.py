"""The C++ face of the Ascend C engine: what kernel_operator.h's calls do, through libascendcl.

Kernel code in C++ (`AscendC::DataCopy`, `TQue::AllocTensor`, `Add`, `Mmad`, `Matmul`...) calls one of three C
entry points of libascendcl (`include/ascendc/abi.h`, `abi.c` here) with an operation code and operand words;
they arrive here, are decoded into the engine's operands (`operands.py`) and run the instruction of the engine's
table on the running AI Core (the handlers: `system.py`, `memory.py`, `move.py`, `vector.py`, `cube.py`,
`matmul.py`, `host.py`). Nothing here decides what an instruction means: the checks, the semantics, the
findings and the cost are the engine's, as for pyasc kernels.

A call that faults keeps its exception here (`failed`, which abi.c calls before it stops the core); the
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


def _table() -> tuple[Any, ...]:
    """Handlers by operation code (with its forms); an operation without one says it is not emulated, and a code
    past the table (a kernel_operator.h of another aclsim) finds the last entry, which says that."""
    size = max([len(OPS) * 1, *(k + 1 for k in HANDLERS)])
    table: list[Any] = [None] * size
    for code, h in HANDLERS.items():
        table[code] = h
    for code, slot in enumerate(table):
        if slot is None:
            table[code] = _missing(code)
    return (*table, _unknown)


def _missing(code: int) -> Any:
    name = OPS[code & 0xFFF][0] if (code & 0xFFF) < len(OPS) else f"operation {code}"

    def handler(core: Any, *words: Any) -> None:
        faults.fail(name, f"this form of {name} is not emulated by aclsim's C++ face")

    return handler


def _unknown(core: Any, *words: Any) -> None:
    faults.fail("Ascend C", "the kernel was built against a kernel_operator.h this aclsim does not know (an operation "
                            "code past its table): rebuild it with this aclsim's `aclsim cc`")


# What ascendc/abi.c calls: the handler of each operation code, as h(core, words...) with the running core
ENTRIES = _table()


def failed(exc: BaseException) -> None:
    """A call raised (ascendc/abi.c stops the core next): keep the exception for the launch (outside a kernel,
    say why on stderr)."""
    if faults.running_or_none() is None and not isinstance(exc, faults.KernelFault):
        import traceback

        print("aclsim: internal error in an Ascend C call:", file=sys.stderr)
        traceback.print_exception(type(exc), exc, exc.__traceback__)
    elif faults.running_or_none() is None:
        print(f"aclsim: {exc}", file=sys.stderr)
    _pending.exc = exc


def keep(exc: BaseException) -> None:
    """Another entry of the running core (the gang hook) raised: the launch re-raises `exc` when the core stops."""
    _pending.exc = exc


def take_pending() -> BaseException | None:
    """The exception of the call that stopped this thread's core, if one did (cleared)."""
    exc = getattr(_pending, "exc", None)
    _pending.exc = None
    return exc


__all__ = ["ENTRIES", "FOREIGN_CALLER", "failed", "faults", "keep", "spell", "take_pending"]

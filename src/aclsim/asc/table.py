"""The instruction table: every Ascend C instruction aclsim emulates, each one engine function.

An instruction is a function `run(core, *operands)` in the module of its hardware unit (vector/, move/,
cube/, sync/, scalar/), registered here by the `@instruction(...)` decorator. It takes the core it runs on
and typed operands: local tensors (`memory.local.LocalTensor`: a pool, a byte offset, an element type and a
size), GM tensors (`memory.gm.GlobalTensor`: an address range reached through `aclsim.runtime.gm`), plain
scalars and parameter records (`types/`), and for the vector unit's mask/repeat form one `vector.repeat.Repeat`.
It makes every check (the element types declared here first), computes the result, reports the accesses
observers want (aicore/pipes.py, `Core.emit_gm`) and adds its cost (`Launch.bytes_read/written`,
`cube_flops`). Faces only adapt a language's call forms onto it: pyasc's in `language/basic/`, and a native
face can build the same operands from plain numbers (`LocalTensor.at`, `GlobalTensor.at`, `Repeat.packed`).

`TABLE` maps each instruction's key (its Ascend C name; an overload taking another parameter struct adds it
in parentheses, "DataCopy(Nd2NzParams)") to its `Instruction`; importing `aclsim.asc.engine` fills it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from .faults import UnsupportedDataType, fail
from .types.dtypes import DataType, as_dtype

F = TypeVar("F", bound=Callable[..., Any])

UNITS = ("vector", "move", "cube", "sync", "scalar", "system")
COSTS = ("gm", "cube")  # what an instruction adds to the launch's cost model: GM bytes moved, Cube flops


@dataclass(frozen=True)
class Instruction:
    """One row of the table.

    `key` is the Ascend C name (plus the overload's parameter struct in parentheses), `api` pyasc's name (faults
    say `asc.<api>`; "" for an instruction pyasc 1.1.1 has no name for, which only a native face calls), `unit`
    the hardware unit, `pipe` the pipe it issues on (None when the operands decide, as
    for DataCopy, or for scalar and system calls), `types` the element types it takes (None: any, or checked by
    the function itself), `cost` what it adds to the cost model, `note` what of it is not emulated.
    """

    key: str
    api: str
    unit: str
    pipe: str | None
    run: Callable[..., Any]
    types: tuple[DataType, ...] | None
    cost: str | None
    note: str

    @property
    def name(self) -> str:
        """The Ascend C name (the key without its overload)."""
        return self.key.split("(", 1)[0]

    def type_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.types or ())


TABLE: dict[str, Instruction] = {}


def instruction(key: str, api: str, unit: str, pipe: str | None = None, types: Iterable[Any] | None = None,
                cost: str | None = None, note: str = "") -> Callable[[F], F]:
    """Register the decorated engine function as instruction `key` (see `Instruction`); it is returned as is."""
    if unit not in UNITS or (cost is not None and cost not in COSTS):
        raise ValueError(f"instruction {key}: unit must be one of {UNITS}, cost one of {COSTS}")

    def register(run: F) -> F:
        if key in TABLE:
            raise ValueError(f"instruction {key} is registered twice")
        kinds = None if types is None else tuple(as_dtype(t) for t in types)
        TABLE[key] = Instruction(key, api, unit, pipe, run, kinds, cost, note)
        return run

    return register


def by_api(api: str) -> list[Instruction]:
    """The instructions pyasc's `asc.<api>` reaches (one per overload)."""
    return [ins for ins in TABLE.values() if ins.api == api]


# Element types pyasc cannot name (its DataType.to_ir knows the int, uint and float widths only): pyasc refuses
# a kernel using them when it compiles it, with this message (pyasc python/asc/language/core/dtype.py).
PYASC_UNNAMED = frozenset({"bfloat16", "bool"})


def refuse_types(core: Any, api: str, types: Iterable[DataType], dt: DataType, *others: Any) -> NoReturn:
    """Fault for operands an instruction does not take: mixed element types, or a type outside `types`.

    A type pyasc has no name for fails with pyasc's compile-time message ("Unsupported DataType name: ...") and
    is also a ValueError, as pyasc's is; any other with the types the chip takes.
    """
    for t in others:
        if t.dtype is not dt:
            fail(api, f"operands mix {dt.name} and {t.dtype.name}: convert one with asc.cast first")
    names = [t.name for t in types]
    chip = core.chip.name if core is not None else "this chip"
    if dt.name in PYASC_UNNAMED:
        raise UnsupportedDataType(api, f"Unsupported DataType name: {dt.name} (pyasc refuses it when it compiles "
                                       f"the kernel; {chip}'s asc.{api} takes {', '.join(names)}"
                                       + ("; cast bfloat16 to float32 first)" if dt.name == "bfloat16" else ")"))
    fail(api, f"{dt.name} is not supported on {chip} (supported: {', '.join(names)})")


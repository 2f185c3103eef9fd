"""Which pyasc 1.1.1 names aclsim emulates, the error for the ones it does not, and the table of docs/coverage/pyasc.md.

`pyasc_names.txt` (next to this file) lists every public name of the pyasc 1.1.1 wheel by module.
A name pyasc has and aclsim lacks raises `NotEmulatedError` ("asc.X is a pyasc API that aclsim
does not emulate (yet)") from the module `__getattr__` of the aclsim module standing in for it, with
the kernel source line; any other missing name stays a plain AttributeError (a typo).
`table()` is the Markdown table of docs/coverage/pyasc.md (docs/gen_pages.py writes it).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from collections.abc import Callable
from types import ModuleType

from .faults import NotEmulatedError, not_emulated
from .table import by_api

NAMES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyasc_names.txt")

# pyasc module -> the aclsim module that stands in for it (None: nothing emulated yet)
MODULES: dict[str, str | None] = {
    "asc": "aclsim.asc",
    "asc.language.adv": "aclsim.asc.adv",
    "asc.lib.runtime": "aclsim.asc.lib.runtime",
    "asc.lib.host": "aclsim.asc.lib.host",
    "asc.runtime.config": "aclsim.asc.runtime.config",
}
# how a pyasc module is reached from `import asc`
SPELLING = {"asc.language.adv": "asc.adv"}

# notes on the names that are no instruction (an instruction's note is its row of the instruction table)
NOTES: dict[str, str] = {
    "asc.DataCopyEnhancedParams": "normal block mode, no dequantisation/ReLU/padding (the rest is the Cube's path)",
    "asc.bfloat16": "storage, cast, duplicate, Cube inputs; atomic add/max/min, scalar access and host arrays via "
                    "ml_dtypes (aclsim[bf16]); no vector arithmetic, as on A2/A3",
    "asc.runtime.config.set_platform": "both backends run on the emulator",
    "asc.DataCopyCO12DstParams": "L0C -> GM; quantisation as fixpipe's except per-channel, ReLU",
    "asc.LoadData2DParamsV2": "refused on A2/A3 profiles (Ascend 950 only)",
    "asc.LoadData3DParamsV1": "refused on A2/A3 profiles (an Atlas training/inference chip form); not emulated on 310P",
    "asc.LoadData3DParamsV2": "channel_size a multiple of C0 (the small-channel forms are not emulated)",
    "asc.LoadData3DParamsV2Pro": "as LoadData3DParamsV2",
    "asc.language.adv.Matmul": "GM operands in ND",
    "asc.lib.host": "tiling computed from the chip profile",
    "asc.language.adv.softmax": "ND layout (data_format_nz=True not emulated)",
    "asc.language.adv.extract": "A2/A3 (score, index) records (region-proposal layout not emulated)",
}


@functools.cache
def pyasc_names() -> dict[str, dict[str, str]]:
    """pyasc module -> {name: kind}, in the order of the wheel's listing."""
    out: dict[str, dict[str, str]] = {}
    with open(NAMES_FILE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            module, name, kind = line.rstrip("\n").split("\t")
            out.setdefault(module, {})[name] = kind
    return out


def module_getattr(module: str, package: str | None = None) -> Callable[[str], object]:
    """A module `__getattr__` for the stand-in of pyasc `module` (the aclsim package `package`, whose subpackages,
    e.g. `asc.lib`, it imports on first use as pyasc's `import asc` makes them reachable)."""
    names = pyasc_names().get(module, {})  # a namespace of subpackages only (asc.lib) lists no names
    spelled = SPELLING.get(module, module)

    def __getattr__(name: str) -> object:
        if package is not None and not name.startswith("_") and importlib.util.find_spec(f"{package}.{name}"):
            return importlib.import_module(f"{package}.{name}")
        if name in names:
            raise not_emulated(f"{spelled}.{name}")
        raise AttributeError(f"module {spelled!r} has no attribute {name!r} (pyasc 1.1.1 has no such name either)")

    return __getattr__


def _stand_in(module: str) -> ModuleType | None:
    target = MODULES[module]
    if target is None:
        return None
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError:
        return None


def coverage() -> list[tuple[str, str, bool, str]]:
    """(pyasc module, name, emulated, note) for every pyasc 1.1.1 name: emulated when the stand-in module has it
    (every instruction of the table has its pyasc name there: a test holds the two together); the note of a name
    that is an instruction comes from the instruction table."""
    rows = []
    for module, names in pyasc_names().items():
        mod = _stand_in(module)
        for name in names:
            full = f"{module}.{name}"
            instructions = by_api(name) if module == "asc" else []
            note = "; ".join(dict.fromkeys(i.note for i in instructions if i.note)) or NOTES.get(full, NOTES.get(module, ""))
            rows.append((SPELLING.get(module, module), name, mod is not None and name in vars(mod), note))
    return rows


def table() -> str:
    """The coverage table of docs/coverage/pyasc.md (Markdown)."""
    rows = coverage()
    done = sum(r[2] for r in rows)
    lines = [f"{done} of {len(rows)} pyasc 1.1.1 names are emulated.", "",
             "| module | name | emulated | notes |", "|---|---|---|---|"]
    lines += [f"| `{m}` | `{n}` | {'yes' if ok else 'no'} | {note} |" for m, n, ok, note in rows]
    return "\n".join(lines) + "\n"


__all__ = ["NotEmulatedError", "coverage", "module_getattr", "not_emulated", "pyasc_names", "table"]

"""Which pyasc 1.1.1 names aclsim emulates, the error for the ones it does not, and the README table.

`pyasc_names.txt` (next to this file) lists every public name of the pyasc 1.1.1 wheel by module.
A name pyasc has and aclsim lacks raises `NotEmulatedError` ("asc.X is a pyasc API that aclsim
does not emulate (yet)") from the module `__getattr__` of the aclsim module standing in for it, with
the kernel source line; any other missing name stays a plain AttributeError (a typo).
`table()` is the Markdown table kept in the README.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from types import ModuleType

from .faults import NotEmulatedError, not_emulated

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

NOTES: dict[str, str] = {
    "asc.data_copy": "count, DataCopyParams, Nd2NzParams (GM -> L1) and DataCopyCO12DstParams (L0C -> GM) forms; "
                     "enhanced form with default enhancements; SliceInfo forms GM <-> UB with shape_value set",
    "asc.DataCopyEnhancedParams": "normal block mode, no dequantisation/ReLU/padding (the rest is the Cube's path)",
    "asc.bfloat16": "storage, cast, duplicate, Cube inputs; atomic add/max/min, scalar access and host arrays via "
                    "ml_dtypes (aclsim[bf16]); no vector arithmetic, as on A2/A3",
    "asc.runtime.config.set_platform": "both backends run on the emulator",
    "asc.load_data": "LoadData2DParams and img2col LoadData3DParamsV2/V2Pro forms (L1 -> L0A/L0B); small-channel "
                     "img2col not emulated; LoadData2DParamsV2 and LoadData3DParamsV1 refused (not on A2/A3)",
    "asc.fixpipe": "L0C -> GM; every A2/A3 QuantModes (scalar and per-channel), ReLU, channel split",
    "asc.DataCopyCO12DstParams": "L0C -> GM; quantisation as fixpipe's except per-channel, ReLU",
    "asc.LoadData2DParamsV2": "refused on A2/A3 profiles (Ascend 950 only)",
    "asc.LoadData3DParamsV1": "refused on A2/A3 profiles (an Atlas training/inference chip form); not emulated on 310P",
    "asc.LoadData3DParamsV2": "channel_size a multiple of C0 (the small-channel forms are not emulated)",
    "asc.LoadData3DParamsV2Pro": "as LoadData3DParamsV2",
    "asc.load_data_with_transpose": "1-, 2-, 4-byte types; V2's src_frac_gap inferred from its name",
    "asc.sync_all": "hard and soft forms; the soft form's GM workspace contents are not modeled",
    "asc.language.adv.Matmul": "GM operands in ND",
    "asc.lib.host": "tiling computed from the chip profile",
    "asc.language.adv.softmax": "ND layout (data_format_nz=True not emulated)",
    "asc.set_deq_scale": "the vdeq form stores the 16 groups in UB in a packing of aclsim's own",
    "asc.sort": "A2/A3 (score, index) records; on 310P region proposals, index not read",
    "asc.language.adv.extract": "A2/A3 (score, index) records (region-proposal layout not emulated)",
    "asc.compare": "count and mask/repeat forms into dst (the cmpMask-register form is not emulated)",
    "asc.select": "count and mask/repeat forms with a sel_mask tensor (the cmpMask-register form is not emulated)",
    "asc.gather_mask": "normal mode (reduce_mode=False); COUNTER mode not emulated",
    "asc.scatter": "Atlas inference chips (310P) only, as in CANN",
    "asc.set_aipp_functions": "dtc_round_mode (Atlas 200I/500 A2 only) not emulated; applied by load_image_to_local",
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


def module_getattr(module: str) -> Callable[[str], object]:
    """A module `__getattr__` for the stand-in of pyasc `module`."""
    names = pyasc_names()[module]
    spelled = SPELLING.get(module, module)

    def __getattr__(name: str) -> object:
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
    """(pyasc module, name, emulated, note) for every pyasc 1.1.1 name."""
    rows = []
    for module, names in pyasc_names().items():
        mod = _stand_in(module)
        for name in names:
            full = f"{module}.{name}"
            note = NOTES.get(full, NOTES.get(module, ""))
            rows.append((SPELLING.get(module, module), name, mod is not None and name in vars(mod), note))
    return rows


def table() -> str:
    """The README's coverage table (Markdown)."""
    rows = coverage()
    done = sum(r[2] for r in rows)
    lines = [f"{done} of {len(rows)} pyasc 1.1.1 names are emulated.", "",
             "| module | name | emulated | notes |", "|---|---|---|---|"]
    lines += [f"| `{m}` | `{n}` | {'yes' if ok else 'no'} | {note} |" for m, n, ok, note in rows]
    return "\n".join(lines) + "\n"


__all__ = ["NotEmulatedError", "coverage", "module_getattr", "not_emulated", "pyasc_names", "table"]

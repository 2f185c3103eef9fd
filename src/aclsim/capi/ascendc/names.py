"""How the C++ face names an API in the engine's messages: `AscendC::Add`, `AscendC::TQue::AllocTensor`.

The engine names APIs by pyasc's spelling (`add`, `TQue.alloc_tensor`, `data_copy`); an instruction of the table
takes its Ascend C name from the table (`bitwise_and` is `And`), anything else is the same words in C++'s case.
"""

from __future__ import annotations

from functools import lru_cache

from ...asc.engine import TABLE

_BY_API = {ins.api: ins.name for ins in TABLE.values()}
_PLAIN = {"kernel", "asc_vf_call"}  # not AscendC APIs: a kernel's own failure, a VF call


def _camel(word: str) -> str:
    return word if word[:1].isupper() else "".join(p[:1].upper() + p[1:] for p in word.split("_"))


@lru_cache(maxsize=1024)
def spell(api: str) -> str:
    """The C++ name of an API the engine names in pyasc's spelling."""
    if api in _PLAIN:
        return api
    if api in _BY_API:
        return f"AscendC::{_BY_API[api]}"
    return "AscendC::" + "::".join(_camel(p) for p in api.split("."))

"""The Ascend C engine as a whole: importing this module registers every unit's instructions in `TABLE`.

Faces (pyasc's in `language/`, a native one through a C ABI) take instructions from here: `TABLE[key].run(core,
*operands)`, `by_api(name)` for pyasc's spellings. See `table.py` for what an instruction is.
"""

from __future__ import annotations

from .cube import fixpipe, img2col, load, mmad
from .move import aipp, atomic, data_copy, layout, nd2nz, slices
from .scalar import debug, gm, scalar, soc, sysvar
from .sync import blocks, crosscore, flags
from .table import TABLE, UNITS, Instruction, by_api
from .vector import bilinear, cast, compare, elementwise, fused, gather, mask, reduce, sort, vf

MODULES = (fixpipe, img2col, load, mmad, aipp, atomic, data_copy, layout, nd2nz, slices, debug, gm, scalar, soc, sysvar,
         blocks, crosscore, flags, bilinear, cast, compare, elementwise, fused, gather, mask, reduce, sort, vf)
"""The modules whose @instruction functions fill the table."""



def markdown() -> str:
    """The instruction table as Markdown: key, pyasc name, unit, pipe, element types, cost, note."""
    lines = ["| instruction | pyasc | unit | pipe | element types | cost | note |", "|---|---|---|---|---|---|---|"]
    for key, ins in sorted(TABLE.items(), key=lambda kv: (UNITS.index(kv[1].unit), kv[0])):
        pyasc = f"`asc.{ins.api}`" if ins.api else "(C++ only)"
        lines.append(f"| `{key}` | {pyasc} | {ins.unit} | {ins.pipe or ''} | {', '.join(ins.type_names())} | "
                     f"{ins.cost or ''} | {ins.note} |")
    return "\n".join(lines) + "\n"


__all__ = ["MODULES", "TABLE", "Instruction", "by_api", "markdown"]

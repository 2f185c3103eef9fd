"""The Ascend C engine as a whole: importing this module registers every unit's instructions in `TABLE`.

Faces (pyasc's in `language/`, a native one through a C ABI) take instructions from here: `TABLE[key].run(core,
*operands)`, `by_api(name)` for pyasc's spellings. See `table.py` for what an instruction is.
"""

from __future__ import annotations

from .cube import fixpipe, img2col, load, mmad
from .move import aipp, atomic, data_copy, layout, nd2nz, slices
from .scalar import debug, scalar, sysvar
from .sync import crosscore, flags
from .table import TABLE, Instruction, by_api
from .vector import bilinear, cast, compare, elementwise, fused, gather, mask, reduce, sort

UNITS = (fixpipe, img2col, load, mmad, aipp, atomic, data_copy, layout, nd2nz, slices, debug, scalar, sysvar,
         crosscore, flags, bilinear, cast, compare, elementwise, fused, gather, mask, reduce, sort)
"""The modules whose @instruction functions fill the table."""

__all__ = ["TABLE", "UNITS", "Instruction", "by_api"]

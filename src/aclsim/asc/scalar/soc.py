"""`InitSocState`: a core's control registers to the values a kernel starts with.

CANN's InitSocState (hicann/asc-devkit `impl/basic_api/kernel_utils_base.h`, `InitSocStateImpl` for A2/A3):
atomic stores off, the vector mask in NORMAL mode with every lane enabled on an AIV; on an AIC the 3-D load
registers (L1 size, padding) cleared. Each core of an emulated launch starts with these values already, so
the call matters after a kernel changed them.
"""

from __future__ import annotations

from typing import Any

from ..cube.img2col import Load3D
from ..move.atomic import AtomicMode
from ..table import instruction
from ..vector.mask import MaskRegister


@instruction("InitSocState", "init_soc_state", "system")
def init_soc_state(core: Any) -> None:
    """Atomic mode off; NORMAL mask mode, all lanes (AIV); 3-D load registers reset (AIC)."""
    core.units.pop(AtomicMode, None)
    if core.aic:
        core.units.pop(Load3D, None)
    else:
        core.units[MaskRegister] = MaskRegister()

"""Handlers of the host-side tiling API (tiling/tiling_api.h): a tiling object is aclsim's
(aclsim.asc.lib.host, the one pyasc's face uses), each C++ method forwarded to the method of the same name."""

from __future__ import annotations

import ctypes
import re
from typing import Any

from ...asc.highlevel.tiling import FIELDS, TCubeTiling
from ...asc.lib import host
from ...chips import get_profile
from .ops import handles
from .system import signed, text

KINDS = (host.MatmulApiTiling, host.MultiCoreMatmulTiling, host.BatchMatmulTiling)
_objects: list[Any] = [None]  # host tiling objects by handle (host code: no core)

# matmul_tiling's C++ enum values where they differ from pyasc's: positions (TPosition::SPM = 12, TSCM = 13) and
# formats (CubeFormat::COLUMN_MAJOR = 8)
_POSITION = {12: host.TPosition.SPM, 13: host.TPosition.TSCM}
_FORMAT = {8: host.CubeFormat.COLUMN_MAJOR}
_TYPED = {"set_a_type", "set_b_type", "set_c_type", "set_bias_type"}


def _snake(name: str) -> str:
    """`SetAType` -> `set_a_type`, `GetBaseM` -> `get_base_m`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@handles("TilingNew")
def _new(core: Any, kind: int, soc: int, *words: Any) -> int:
    """A MatmulApiTiling (0), MultiCoreMatmulTiling (1) or BatchMatmulTiling (2) for the platform named `soc`."""
    platform = host.PlatformAscendC(get_profile(text(soc))) if soc else host.get_ascendc_platform()
    _objects.append(KINDS[kind](platform))
    return len(_objects) - 1


@handles("TilingCall")
def _call(core: Any, h: int, method: int, n: int, args: int, *words: Any) -> int:
    name = _snake(text(method))
    values = [signed(v) for v in (ctypes.c_int64 * max(n, 1)).from_address(args)][:n]
    if name in _TYPED:
        values[0] = _POSITION.get(values[0], values[0])
        values[1] = _FORMAT.get(values[1], values[1])
    got = getattr(_objects[h], name)(*values)
    if isinstance(got, tuple):  # GetCoreNum / GetSingleShape: three numbers, 20 bits each
        return sum((int(v) & 0xFFFFF) << (20 * i) for i, v in enumerate(got[:3]))
    return int(got or 0)


@handles("TilingGet")
def _get(core: Any, h: int, ptr: int, nfields: int, *words: Any) -> int:
    """GetTiling(TCubeTiling&): fill the program's struct (its int32 fields in CANN's order)."""
    tiling = TCubeTiling()
    rc = _objects[h].get_tiling(tiling)
    if rc == 0:
        out = (ctypes.c_int32 * nfields).from_address(ptr)
        for i, name in enumerate(FIELDS[:nfields]):
            out[i] = int(getattr(tiling, name))
    return rc

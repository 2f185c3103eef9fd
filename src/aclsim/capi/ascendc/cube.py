"""Handlers of the Cube unit: LoadData (2-D, 2-D v2, with transpose, 3-D), Mmad, Fixpipe and the L0C -> GM
DataCopy. Their parameter structs arrive as the address and count of their fields (uint64 each, in the order
of the engine's parameter records)."""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from ...asc.engine import TABLE
from ...asc.types.cube_params import (
    DataCopyCO12DstParams,
    FixpipeConfig,
    FixpipeParamsV220,
    LoadData2DParams,
    LoadData2DParamsV2,
    LoadData2dTransposeParams,
    LoadData3DParamsV2,
    MmadParams,
)
from .operands import gm, local, local_or_none, tensor
from .ops import handles
from .system import signed


def fields(ptr: int, n: int) -> list[int]:
    """`n` uint64 fields at address `ptr`."""
    return list((ctypes.c_uint64 * n).from_address(ptr))


@handles("LoadData2D")
def _load_2d(core: Any, dst: int, src: int, ptr: int, n: int, src_gm: int, *words: Any) -> None:
    p = LoadData2DParams(*fields(ptr, n))
    TABLE["LoadData(LoadData2DParams)"].run(core, local(core, dst), tensor(core, src, bool(src_gm)), p)


@handles("LoadData2DV2")
def _load_2d_v2(core: Any, dst: int, src: int, ptr: int, n: int, *words: Any) -> None:
    f = fields(ptr, n)
    f[4] = signed(f[4])
    TABLE["LoadData(LoadData2DParamsV2)"].run(core, local(core, dst), local(core, src), LoadData2DParamsV2(*f))


@handles("LoadDataWithTranspose")
def _load_transpose(core: Any, dst: int, src: int, ptr: int, n: int, *words: Any) -> None:
    p = LoadData2dTransposeParams(*fields(ptr, n))
    TABLE["LoadDataWithTranspose"].run(core, local(core, dst), local(core, src), p)


@handles("LoadData3DV2")
def _load_3d(core: Any, dst: int, src: int, ptr: int, n: int, *words: Any) -> None:
    f = fields(ptr, n)
    pads = tuple((f[0] >> (8 * i)) & 0xFF for i in range(4))
    pad_value = struct.unpack("<f", struct.pack("<I", f[15] & 0xFFFFFFFF))[0]
    p = LoadData3DParamsV2(pads, *f[1:14], bool(f[14]), pad_value, *(bool(x) for x in f[16:19]))
    TABLE["LoadData(LoadData3DParamsV2)"].run(core, local(core, dst), local(core, src), p)


@handles("Mmad")
def _mmad(core: Any, dst: int, fm: int, filt: int, bias: int, ptr: int, n: int) -> None:
    f = fields(ptr, n)
    f[4] = signed(f[4])
    p = MmadParams(*f[:3], bool(f[3]), f[4], *(bool(x) for x in f[5:8]), f[8], bool(f[9]), bool(f[10]))
    TABLE["Mmad"].run(core, local(core, dst), local(core, fm), local(core, filt), local_or_none(core, bias), p)


@handles("Fixpipe")
def _fixpipe(core: Any, dst: int, src: int, cbuf: int, ptr: int, n: int, config: int) -> None:
    """Fixpipe(dst GM, src L0C[, cbufWorkspace], FixpipeParamsV220) with the FixpipeConfig template argument."""
    f = fields(ptr, n)
    p = FixpipeParamsV220(*f[:9], bool(f[9]), f[10], bool(f[11]))
    TABLE["Fixpipe"].run(core, gm(core, dst), local(core, src), local_or_none(core, cbuf), p,
                         FixpipeConfig(config & 0xFF))


@handles("DataCopyL0C")
def _copy_l0c(core: Any, dst: int, src: int, ptr: int, n: int, *words: Any) -> None:
    f = fields(ptr, n)
    p = DataCopyCO12DstParams(*f[:6], bool(f[6]), bool(f[7]))
    TABLE["DataCopy(DataCopyCO12DstParams)"].run(core, gm(core, dst), local(core, src), p)


@handles("SetFixpipePreQuantFlag")
def _pre_quant(core: Any, config: int, *words: Any) -> None:
    TABLE["SetFixpipePreQuantFlag"].run(core, config)


@handles("SetFixpipeNz2ndFlag")
def _nz2nd(core: Any, nd_num: int, src_nd: int, dst_nd: int, *words: Any) -> None:
    TABLE["SetFixpipeNz2ndFlag"].run(core, nd_num, src_nd, dst_nd)


@handles("SetLoadDataPaddingValue")
def _pad_value(core: Any, *words: Any) -> None:
    TABLE["SetLoadDataPaddingValue"].run(core, words[-1])


@handles("SetLoadDataBoundary")
def _boundary(core: Any, boundary: int, *words: Any) -> None:
    TABLE["SetLoadDataBoundary"].run(core, boundary)

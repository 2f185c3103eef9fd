"""L1 -> L0A / L0B: `load_data` with LoadData2DParams (whole fractals) and `load_data_with_transpose`
(the 3D img2col forms: img2col.py). Layouts: mmad.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail, not_emulated
from ..memory.local import LocalTensor, pool_of, room
from ..table import instruction
from ..types.cube_params import (
    FRACTAL,
    LoadData2DParams,
    LoadData2DParamsV2,
    LoadData2dTransposeParams,
    LoadData2dTransposeParamsV2,
)


@instruction("LoadData(LoadData2DParams)", "load_data", "cube", "MTE1", note="LoadData2DParams and img2col "
             "LoadData3DParamsV2/V2Pro forms (L1 -> L0A/L0B); small-channel img2col not emulated; LoadData2DParamsV2 "
             "and LoadData3DParamsV1 refused (not on A2/A3)")
def load_data(core: Any, dst: LocalTensor, src: Any, params: LoadData2DParams) -> None:
    """Copy 512-byte fractals from L1 into L0A/L0B (the 3D img2col forms: img2col.py)."""
    api = "load_data"
    pool_of(dst, api, "dst", ("L0A", "L0B"))
    pool_of(src, api, "src", ("L1",))
    if dst.dtype is not src.dtype:
        fail(api, f"dst is {dst.dtype.name} but src is {src.dtype.name}: load_data moves one element type")
    rep, start = int(params.repeat_times), int(params.start_index)
    sstride, gap = int(params.src_stride), int(params.dst_gap)
    if not (0 <= rep <= 255 and 0 <= start <= 65535 and 0 <= sstride <= 65535 and 0 <= gap <= 65535):
        fail(api, f"LoadData2DParams(start_index={start}, repeat_times={rep}, src_stride={sstride}, dst_gap={gap}) "
                  "is out of range: repeat_times 0..255, the others 0..65535")
    if rep == 0:
        return
    if params.if_transpose and dst.dtype.itemsize != 2:
        fail(api, f"if_transpose transposes 16 x 16 fractals of 2-byte types; {dst.dtype.name} needs "
                  "load_data_with_transpose")
    s_lo = src.lo + start * FRACTAL
    s_hi = s_lo + ((rep - 1) * sstride + 1) * FRACTAL
    if s_hi > src.end:
        fail(api, f"reads fractals {start}..{start + (rep - 1) * sstride} ({rep} x 512 bytes, src_stride {sstride}) "
                  f"up to L1 byte {s_hi}, past the end of src at byte {src.end}")
    d_hi = dst.lo + ((rep - 1) * (1 + gap) + 1) * FRACTAL
    room(dst, d_hi - dst.lo, api, "dst", f"for {rep} fractals (dst_gap {gap})")
    sp, dp = src.buf.pool, dst.buf.pool
    d_geometry = (dst.lo, (rep, FRACTAL), ((1 + gap) * FRACTAL, 1))
    for arr_s in (sp.bytes, sp.flags()):
        s = np.ndarray((rep, FRACTAL), np.uint8, arr_s, s_lo, (sstride * FRACTAL, 1))
        if params.if_transpose:
            s = s.reshape(rep, 16, 16, 2).transpose(0, 2, 1, 3).reshape(rep, FRACTAL)
        _put(dp, arr_s is sp.bytes, d_geometry, s)


@instruction("LoadData(LoadData2DParamsV2)", "load_data", "cube", "MTE1", note="Ascend 950 only: not emulated")
def load_data_2d_v2(core: Any, dst: LocalTensor, src: Any, params: LoadData2DParamsV2) -> None:
    """Load2Dv2: refused, it exists only on Ascend 950PR/950DT (CANN Load2D page), where it is not emulated."""
    if core.chip.arch == 3510:
        raise not_emulated(f"asc.load_data with LoadData2DParamsV2 (Load2Dv2 of {core.chip.name})")
    fail("load_data", f"LoadData2DParamsV2 (Load2Dv2) exists only on Ascend 950PR/950DT (CANN Load2D page); "
                      f"{core.chip.name} loads with LoadData2DParams")


@instruction("LoadDataWithTranspose", "load_data_with_transpose", "cube", "MTE1",
             note="1-, 2-, 4-byte types; V2's src_frac_gap inferred from its name")
def load_data_with_transpose(core: Any, dst: LocalTensor, src: LocalTensor, params: Any) -> None:
    """`load_data_with_transpose(dst_l0, src_l1, LoadData2dTransposeParams(...))`: per repeat one square
    block of L1 transposed into L0A/L0B (CANN LoadDataWithTranspose page). 2-byte types: one 16 x 16
    fractal. 1-byte types: two 16 x 32 fractals stacked into a 32 x 32 square, transposed, split
    into its top and bottom 16 rows. 4-byte types: two 16 x 8 fractals side by side make a 16 x 16
    square, transposed, split into its left and right 8 columns (the page's figure is not in its
    text: the split mirrors the merge, first fractal = left half). The second destination fractal
    lies `dst_frac_gap` fractals after the first; the V2 form's `src_frac_gap` places the second
    source fractal likewise (inferred from its name: the page documents V1 only)."""
    api = "load_data_with_transpose"
    if not isinstance(params, LoadData2dTransposeParams | LoadData2dTransposeParamsV2):
        raise TypeError(f"asc.{api}(dst, src, asc.LoadData2dTransposeParams(...) or LoadData2dTransposeParamsV2(...))")
    pool_of(dst, api, "dst", ("L0A", "L0B"))
    pool_of(src, api, "src", ("L1",))
    if dst.dtype is not src.dtype:
        fail(api, f"dst is {dst.dtype.name} but src is {src.dtype.name}: the load moves one element type")
    isz = dst.dtype.itemsize
    nfrac = 1 if isz == 2 else 2
    rep, start, sstride = int(params.repeat_times), int(params.start_index), int(params.src_stride)
    gap, fgap = int(params.dst_gap), int(params.dst_frac_gap)
    sgap = int(getattr(params, "src_frac_gap", 0))
    text = (f"{type(params).__name__}(start_index={start}, repeat_times={rep}, src_stride={sstride}, "
            f"dst_gap={gap}, dst_frac_gap={fgap})")
    if not (0 <= rep <= 255 and min(start, sstride, gap, fgap, sgap) >= 0 and max(start, sstride, gap, fgap, sgap)
            <= 65535):
        fail(api, f"{text} is out of range: repeat_times 0..255, the others 0..65535")
    if rep == 0:
        return
    square = nfrac * FRACTAL  # the unit of start_index and src_stride: the merged square
    s_first, s_step = src.lo + start * square, sstride * square
    s_hi = s_first + (rep - 1) * s_step + ((nfrac - 1) * (1 + sgap) + 1) * FRACTAL
    if s_hi > src.end:
        fail(api, f"{text} reads L1 bytes up to {s_hi}, past the end of src at byte {src.end}")
    slots = (np.arange(rep)[:, None] * (1 + gap) + np.arange(nfrac)[None, :] * (1 + fgap)).ravel()
    if len(np.unique(slots)) < slots.size:
        fail(api, f"{text}: wrong fractal layout: the destination fractals of different repeats overlap "
                  f"({nfrac} fractals per repeat but repeats start only {1 + gap} fractals apart)")
    room(dst, (int(slots.max()) + 1) * FRACTAL, api, "dst", f"for {rep} repeats x {nfrac} fractals")
    sp, dp = src.buf.pool, dst.buf.pool
    d_geometry = (dst.lo, (rep, nfrac, FRACTAL), ((1 + gap) * FRACTAL, (1 + fgap) * FRACTAL, 1))
    for arr_s in (sp.bytes, sp.flags()):
        s = np.ndarray((rep, nfrac, FRACTAL), np.uint8, arr_s, s_first, (s_step, (1 + sgap) * FRACTAL, 1))
        if isz == 1:  # 32 x 32 bytes: rows of fractal 0 then fractal 1
            t = s.reshape(rep, 32, 32).transpose(0, 2, 1).reshape(rep, 2, FRACTAL)
        elif isz == 2:
            t = s.reshape(rep, 16, 16, 2).transpose(0, 2, 1, 3).reshape(rep, 1, FRACTAL)
        else:  # (rep, fractal f, row i, col j, byte) -> square[i][8f + j] -> transposed -> halves
            sq = s.reshape(rep, 2, 16, 8, isz).transpose(0, 2, 1, 3, 4).reshape(rep, 16, 16, isz)
            t = sq.transpose(0, 2, 1, 3).reshape(rep, 16, 2, 8, isz).transpose(0, 2, 1, 3, 4).reshape(rep, 2, FRACTAL)
        _put(dp, arr_s is sp.bytes, d_geometry, t)


def _put(pool: Any, data: bool, geometry: tuple, values: np.ndarray) -> None:
    """Store a load's bytes (`data`) or their written-flags, as the L1 source had them, at (offset, shape,
    strides) of L0."""
    if data:
        np.ndarray(geometry[1], np.uint8, pool.bytes, geometry[0], geometry[2])[...] = values
    else:
        pool.set_flags(*geometry, values)


# -- the Cube: L0A x L0B -> L0C --------------------------------------------------------------------

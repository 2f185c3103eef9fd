"""pyasc's Cube instructions (`asc.load_data` in its forms, `asc.load_data_with_transpose`, `asc.mmad`,
`asc.fixpipe` and the registers they read), sent to the instructions of the engine's table (aclsim.asc.cube).
Signatures: hicann/pyasc `python/asc/language/basic/mm.py`, `fixpipe.py`.
"""

from __future__ import annotations

from typing import Any

from ...engine import TABLE
from ...memory.local import LocalTensor
from ...types.cube_params import (
    FixpipeConfig,
    FixpipeParamsV220,
    LoadData2DParams,
    LoadData2DParamsV2,
    LoadData2dTransposeParams,
    LoadData2dTransposeParamsV2,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
    MmadParams,
)
from .forms import direct, running

_LOADS = {LoadData2DParams: "LoadData(LoadData2DParams)", LoadData2DParamsV2: "LoadData(LoadData2DParamsV2)",
          LoadData3DParamsV1: "LoadData(LoadData3DParamsV1)", LoadData3DParamsV2: "LoadData(LoadData3DParamsV2)",
          LoadData3DParamsV2Pro: "LoadData(LoadData3DParamsV2Pro)"}


def load_data(dst: LocalTensor, src: Any, params: Any) -> None:
    """`load_data(dst_l0, src_l1, LoadData2DParams(...))` (fractals), or an img2col form (LoadData3DParamsV2/V2Pro)."""
    key = next((k for t, k in _LOADS.items() if isinstance(params, t)), None)
    if key is None:
        raise TypeError(f"asc.load_data: {type(params).__name__} is not a load_data parameter struct (LoadData2DParams, "
                        "LoadData3DParamsV2, LoadData3DParamsV2Pro)")
    TABLE[key].run(running("load_data"), dst, src, params)


def load_data_with_transpose(dst: LocalTensor, src: LocalTensor, params: Any) -> None:
    """`load_data_with_transpose(dst_l0, src_l1, LoadData2dTransposeParams(...) or LoadData2dTransposeParamsV2(...))`."""
    api = "load_data_with_transpose"
    if not isinstance(params, LoadData2dTransposeParams | LoadData2dTransposeParamsV2):
        raise TypeError(f"asc.{api}(dst, src, asc.LoadData2dTransposeParams(...) or LoadData2dTransposeParamsV2(...))")
    TABLE["LoadDataWithTranspose"].run(running(api), dst, src, params)


def mmad(dst: LocalTensor, fm: LocalTensor, filter: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """`mmad(dst_l0c, a_l0a, b_l0b[, bias_bt], MmadParams(m, n, k, ...))`: C (+)= A @ B (+ bias)."""
    rest = list(args) + list(kwargs.values())
    bias = rest.pop(0) if len(rest) == 2 else None
    if len(rest) != 1 or not isinstance(rest[0], MmadParams):
        raise TypeError("asc.mmad(dst, fm, filter, params) or asc.mmad(dst, fm, filter, bias, params) with "
                        "asc.MmadParams")
    TABLE["Mmad"].run(running("mmad"), dst, fm, filter, bias, rest[0])


def fixpipe(dst: Any, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """`fixpipe(dst_gm, src_l0c[, cbuf_workspace], FixpipeParamsV220(...)[, config])`."""
    rest = list(args)
    cbuf = kwargs.pop("cbuf_workspace", None)
    if cbuf is None and rest and isinstance(rest[0], LocalTensor):
        cbuf = rest.pop(0)
    params = kwargs.pop("params", None) or kwargs.pop("intri_params", None) or (rest.pop(0) if rest else None)
    config = kwargs.pop("config", None) or (rest.pop(0) if rest else FixpipeConfig.cfg_row_major)
    if not isinstance(params, FixpipeParamsV220) or rest or kwargs:
        raise TypeError("asc.fixpipe(dst_gm, src_l0c[, cbuf_workspace], asc.FixpipeParamsV220(...)"
                        "[, asc.FixpipeConfig])")
    TABLE["Fixpipe"].run(running("fixpipe"), dst, src, cbuf, params, config() if callable(config) else config)


set_fix_pipe_pre_quant_flag, set_load_data_padding_value, set_load_data_boundary = (
    direct(TABLE[k]) for k in ("SetFixpipePreQuantFlag", "SetLoadDataPaddingValue", "SetLoadDataBoundary"))

"""pyasc's data movement (`asc.data_copy` in its forms, `asc.data_copy_pad`, the atomic modes, the layout
instructions and AIPP), each form sent to the instruction of the engine's table that carries it out.
Signatures: hicann/pyasc `python/asc/language/basic/data_copy.py`, `set_atomic.py`, `vec_transpose.py`.
"""

from __future__ import annotations

from typing import Any

from ...engine import TABLE
from ...memory.local import LocalTensor
from ...move.layout import TransDataTo5HDParams, TransposeParamsExt
from ...move.slices import DataCopyEnhancedParams
from ...types.cube_params import DataCopyCO12DstParams, Nd2NzParams
from ...types.dtypes import uint8
from ...types.params import DataCopyParams
from .forms import direct, running

_BY_PARAMS = {DataCopyParams: "DataCopy(DataCopyParams)", Nd2NzParams: "DataCopy(Nd2NzParams)",
              DataCopyCO12DstParams: "DataCopy(DataCopyCO12DstParams)"}
_COUNT = TABLE["DataCopy"].run


def data_copy(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """`data_copy(dst, src, count)`, `(dst, src, DataCopyParams)`, `(dst_l1, src_gm, Nd2NzParams)`,
    `(dst_gm, src_l0c, DataCopyCO12DstParams)`, `(dst, src, DataCopyParams, DataCopyEnhancedParams)` or
    `(dst, src, dst_slices, src_slices[, dim_value])`."""
    if len(args) == 1 and not kwargs and type(args[0]) is int:  # the count form: the hot path
        local = dst if type(dst) is LocalTensor else src  # the core its local memory belongs to: the running one
        _COUNT(local.buf.pool.core if type(local) is LocalTensor else running("data_copy"), dst, src, args[0])
        return
    if len(args) + len(kwargs) in (2, 3):
        _extended(dst, src, *args, **kwargs)
        return
    if len(args) + len(kwargs) != 1:
        raise TypeError("data_copy(dst, src, count), (dst, src, DataCopyParams[, DataCopyEnhancedParams]) or "
                        "(dst, src, dst_slices, src_slices[, dim_value])")
    param = args[0] if args else next(iter(kwargs.values()))
    key = _BY_PARAMS.get(type(param))
    if key is None:
        _COUNT(running("data_copy"), dst, src, int(param))
    else:
        TABLE[key].run(running("data_copy"), dst, src, param)


class _FormError(TypeError):
    """Arguments that bind to no form."""


def _enhanced_form(intri_params: Any = None, enhanced_params: Any = None) -> tuple:
    if intri_params is None or enhanced_params is None:
        raise _FormError("missing DataCopyParams or DataCopyEnhancedParams")
    return intri_params, enhanced_params


def _slice_form(slice_list1: Any = None, slice_list2: Any = None, dim_value: int = 1) -> tuple:
    if slice_list1 is None or slice_list2 is None:
        raise _FormError("missing a slice list")
    return slice_list1, slice_list2, dim_value


def _extended(dst: Any, src: Any, *args: Any, **kwargs: Any) -> None:
    """`data_copy(dst, src, intri_params, enhanced_params)` or `(dst, src, slice_list1, slice_list2[, dim_value])`
    (pyasc's parameter names; `params=` as in pyasc's data_copy example)."""
    if "params" in kwargs:
        kwargs["intri_params"] = kwargs.pop("params")
    first = args[0] if args else kwargs.get("slice_list1", kwargs.get("intri_params"))
    core = running("data_copy")
    try:
        if isinstance(first, list | tuple):
            TABLE["DataCopy(SliceInfo)"].run(core, dst, src, *_slice_form(*args, **kwargs))
            return
        params, enhanced = _enhanced_form(*args, **kwargs)
    except _FormError as e:
        raise TypeError(f"asc.data_copy: {e}; the forms are (dst, src, DataCopyParams, DataCopyEnhancedParams) and "
                        "(dst, src, dst_slices, src_slices[, dim_value])") from None
    if not isinstance(params, DataCopyParams) or not isinstance(enhanced, DataCopyEnhancedParams):
        raise TypeError("asc.data_copy(dst, src, DataCopyParams, DataCopyEnhancedParams)")
    TABLE["DataCopy(DataCopyEnhancedParams)"].run(core, dst, src, params, enhanced)


def data_copy_pad(dst: Any, src: Any, params: Any, pad_params: Any = None) -> None:
    """Copy `block_count` blocks of `block_len` bytes between GM and UB, padding each to 32 bytes in UB."""
    TABLE["DataCopyPad"].run(running("data_copy_pad"), dst, src, params, pad_params)


set_pad_value = direct(TABLE["SetPadValue"])
set_atomic_add, set_atomic_max, set_atomic_min, set_atomic_none = (
    direct(TABLE[k]) for k in ("SetAtomicAdd", "SetAtomicMax", "SetAtomicMin", "SetAtomicNone"))


def _ext(shared_tmp_buffer: LocalTensor, params: TransposeParamsExt) -> tuple:
    return shared_tmp_buffer, params


def transpose(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """`(dst, src)`: 16 x 16 transpose; `(dst, src, shared_tmp_buffer, params)`: TransposeParamsExt layouts."""
    core = running("transpose")
    if not args and not kwargs:
        TABLE["Transpose"].run(core, dst, src)
        return
    try:
        tmp, params = _ext(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"asc.transpose: {str(e).replace('_ext()', '')}; the forms are (dst, src) and "
                        "(dst, src, shared_tmp_buffer, params)") from None
    if not isinstance(tmp, LocalTensor) or tmp.dtype is not uint8:
        raise TypeError("asc.transpose: shared_tmp_buffer must be a uint8 LocalTensor")
    if not isinstance(params, TransposeParamsExt):
        raise TypeError(f"asc.transpose: params must be asc.TransposeParamsExt, got {type(params).__name__}")
    TABLE["Transpose(TransposeParamsExt)"].run(core, dst, src, tmp, params)


def trans_data_to_5hd(dst_or_list: Any, src_or_list: Any, params: TransDataTo5HDParams) -> None:
    """16 blocks in, 16 blocks out per repeat; each side a list of 16 LocalTensors, a list of 16 addresses or a
    uint64 LocalTensor of addresses."""
    api = "trans_data_to_5hd"
    if not isinstance(params, TransDataTo5HDParams):
        raise TypeError(f"asc.{api}: params must be asc.TransDataTo5HDParams, got {type(params).__name__}")
    TABLE["TransDataTo5HD"].run(running(api), dst_or_list, src_or_list, params)


def set_aipp_functions(*args: Any, **kwargs: Any) -> None:
    """`set_aipp_functions(src0, input_format, config)` or, for YUV420SP_U8, `(src0, src1, input_format, config)`."""
    names = ("src0", "src1", "input_format", "config") if len(args) + len(kwargs) == 4 else (
        "src0", "input_format", "config")
    if len(args) > len(names) or any(k not in names for k in kwargs):
        raise TypeError("asc.set_aipp_functions(src0, input_format, config) or (src0, src1, input_format, config)")
    got = dict(zip(names, args, strict=False)) | kwargs
    if set(got) != set(names):
        raise TypeError(f"asc.set_aipp_functions: missing {', '.join(n for n in names if n not in got)}")
    TABLE["SetAippFunctions"].run(running("set_aipp_functions"), got["src0"], got.get("src1"), got["input_format"],
                                  got["config"])


load_image_to_local = direct(TABLE["LoadImageToLocal"])

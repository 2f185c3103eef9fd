"""Ascend C kernels in Python with pyasc's names, run on the CPU at numpy speed.

Write the kernel as for Huawei's pyasc (`hicann/pyasc`): `@asc.jit`, `asc.GlobalTensor`,
`asc.TPipe`, `asc.TQue`, `asc.data_copy`, `asc.add`, ... and launch it with
`kernel[core_num](x, y, z, ...)` (numpy arrays are copied in and out) or
`kernel[core_num, stream](...)` with device memory. Under `aclsim run`, `import asc` gives this
module when the real pyasc is not installed. Each block runs with its own Unified Buffer sized
from the chip profile; the UB limits, alignment rules and tensor life cycle are enforced, and a
violation faults the launch with a message naming the core, the API call and the source line.
"""

from __future__ import annotations

import builtins

from . import adv
from .coverage import module_getattr
from .faults import AscError, AscWarning, NotEmulatedError
from .language.basic.cube import (
    fixpipe,
    load_data,
    load_data_with_transpose,
    mmad,
    set_fix_pipe_pre_quant_flag,
    set_load_data_boundary,
    set_load_data_padding_value,
)
from .language.basic.data_copy import (
    data_copy,
    data_copy_pad,
    load_image_to_local,
    set_aipp_functions,
    set_atomic_add,
    set_atomic_max,
    set_atomic_min,
    set_atomic_none,
    trans_data_to_5hd,
    transpose,
)
from .language.basic.sync import (
    cross_core_set_flag,
    cross_core_wait_flag,
    pipe_barrier,
    set_flag,
    sync_all,
    wait_flag,
)
from .language.basic.system import (
    ascend_is_aic,
    ascend_is_aiv,
    count_bits_cnt_same_as_sign_bit,
    dump_tensor,
    get_block_idx,
    get_block_num,
    get_data_block_size_in_bytes,
    get_sub_block_idx,
    get_sub_block_num,
    get_system_cycle,
    get_task_ratio,
    print_time_stamp,
    printf,
    property,
    scalar_cast,
    scalar_count_leading_zero,
    scalar_get_count_of_value,
    scalar_get_sff_value,
    trap,
)
from .language.basic.vector import (
    abs,
    add,
    add_deq_relu,
    add_relu,
    add_relu_cast,
    adds,
    axpy,
    bilinear_interpolation,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    block_reduce_max,
    block_reduce_min,
    block_reduce_sum,
    brcb,
    cast,
    cast_deq,
    compare,
    compare_scalar,
    copy,
    div,
    duplicate,
    exp,
    fused_mul_add,
    fused_mul_add_relu,
    gather,
    gather_mask,
    gatherb,
    get_gather_mask_remain_count,
    get_mrg_sort_result,
    get_sort_len,
    get_sort_offset,
    leaky_relu,
    ln,
    max,
    maxs,
    min,
    mins,
    mrg_sort,
    mrg_sort4,
    mul,
    mul_add_dst,
    mul_cast,
    muls,
    pair_reduce_sum,
    proposal_concat,
    proposal_extract,
    reciprocal,
    reduce_max,
    reduce_min,
    reduce_sum,
    relu,
    repeat_reduce_sum,
    reset_mask,
    rp_sort16,
    rsqrt,
    scatter,
    select,
    set_deq_scale,
    set_mask_count,
    set_mask_norm,
    set_vector_mask,
    shift_left,
    shift_right,
    sort,
    sort32,
    sqrt,
    sub,
    sub_relu,
    sub_relu_cast,
    whole_reduce_max,
    whole_reduce_min,
    whole_reduce_sum,
)
from .memory.auto import LocalTensorAuto
from .memory.gm import GlobalAddress, GlobalTensor
from .memory.local import LocalTensor
from .memory.tpipe import TBuf, TPipe, TQue, TQueBind, get_tpipe_ptr
from .move.aipp import (
    AippChannelPaddingParams,
    AippColorSpaceConvParams,
    AippDataTypeConvParams,
    AippInputFormat,
    AippPaddingParams,
    AippParams,
    AippSingleLineParams,
    AippSwapParams,
    LoadImageToLocalParams,
)
from .move.layout import TransDataTo5HDParams, TransposeParamsExt, TransposeType
from .move.slices import DataCopyEnhancedParams, SliceInfo
from .runtime.jit import ConstExpr, JITFunction, jit
from .scalar.sysvar import DEFAULT_C0_SIZE, ONE_BLK_SIZE, TOTAL_L0C_SIZE, TOTAL_L1_SIZE
from .types.cube_params import (
    CO2Layout,
    CubeFormat,
    DataCopyCO12DstParams,
    FixpipeConfig,
    FixpipeParamsV220,
    IterateOrder,
    LayoutMode,
    LoadData2DParams,
    LoadData2DParamsV2,
    LoadData2dTransposeParams,
    LoadData2dTransposeParamsV2,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
    MmadParams,
    Nd2NzParams,
    QuantModes,
)
from .types.dtypes import (
    DataType,
    bfloat16,
    float16,
    float32,
    float_,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .types.enums import CMPMODE, BlockMode, DeqScale, HardEvent, MaskMode, PipeID, RoundMode, SelMode, TPosition, pad_t
from .types.params import (
    BinaryRepeatParams,
    BrcbRepeatParams,
    CopyRepeatParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    UnaryRepeatParams,
)
from .types.shape import DataFormat, ShapeInfo, array, get_shape_size
from .vector.fused import VdeqInfo
from .vector.gather import GatherMaskMode, GatherMaskParams, GatherRepeatParams
from .vector.mask import MASK_PLACEHOLDER
from .vector.reduce import ReduceOrder
from .vector.sort import MrgSort4Info, MrgSortSrcList

range = builtins.range  # pyasc compiles asc.range loops; here they are Python loops
static_range = builtins.range  # pyasc unrolls it at compile time; here every loop is a Python loop


def ceildiv(a: int, b: int) -> int:
    """Integer division rounding up."""
    return -(-a // b)


__getattr__ = module_getattr("asc")  # pyasc names aclsim lacks: "asc.X is a pyasc API that aclsim does not emulate"


__all__ = [
    "CMPMODE",
    "DEFAULT_C0_SIZE",
    "MASK_PLACEHOLDER",
    "ONE_BLK_SIZE",
    "TOTAL_L0C_SIZE",
    "TOTAL_L1_SIZE",
    "AscError",
    "AscWarning",
    "BinaryRepeatParams",
    "BrcbRepeatParams",
    "ConstExpr",
    "CopyRepeatParams",
    "DataCopyExtParams",
    "DataCopyPadExtParams",
    "DataCopyPadParams",
    "DataCopyParams",
    "DataType",
    "GlobalAddress",
    "GlobalTensor",
    "HardEvent",
    "JITFunction",
    "LocalTensor",
    "LocalTensorAuto",
    "MaskMode",
    "NotEmulatedError",
    "PipeID",
    "RoundMode",
    "SelMode",
    "TBuf",
    "TPipe",
    "TPosition",
    "TQue",
    "TQueBind",
    "UnaryRepeatParams",
    "abs",
    "add",
    "add_relu",
    "adds",
    "ascend_is_aic",
    "ascend_is_aiv",
    "axpy",
    "bfloat16",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "brcb",
    "cast",
    "ceildiv",
    "compare",
    "compare_scalar",
    "copy",
    "data_copy",
    "data_copy_pad",
    "div",
    "dump_tensor",
    "duplicate",
    "exp",
    "float16",
    "float32",
    "float_",
    "fused_mul_add",
    "fused_mul_add_relu",
    "get_block_idx",
    "get_block_num",
    "get_data_block_size_in_bytes",
    "get_sub_block_idx",
    "get_sub_block_num",
    "get_system_cycle",
    "get_tpipe_ptr",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "jit",
    "leaky_relu",
    "ln",
    "max",
    "maxs",
    "min",
    "mins",
    "mul",
    "mul_add_dst",
    "muls",
    "pipe_barrier",
    "printf",
    "property",
    "range",
    "reciprocal",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "relu",
    "reset_mask",
    "rsqrt",
    "select",
    "set_atomic_add",
    "set_atomic_max",
    "set_atomic_min",
    "set_atomic_none",
    "set_flag",
    "set_mask_count",
    "set_mask_norm",
    "set_vector_mask",
    "shift_left",
    "shift_right",
    "sqrt",
    "static_range",
    "sub",
    "sub_relu",
    "trap",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "wait_flag",
]
__all__ += [  # the Cube path (cube.py, cube_types.py) and the high-level APIs (adv/)
    "CO2Layout", "CubeFormat", "FixpipeConfig", "FixpipeParamsV220", "IterateOrder", "LayoutMode", "LoadData2DParams",
    "MmadParams", "Nd2NzParams", "QuantModes", "adv", "fixpipe", "load_data", "mmad",
]
__all__ += ["DataFormat", "ShapeInfo", "array", "get_shape_size"]  # tensor shape metadata (shape.py)
__all__ += [  # converting instructions (fused.py)
    "DeqScale", "VdeqInfo", "add_deq_relu", "add_relu_cast", "cast_deq", "mul_cast", "set_deq_scale", "sub_relu_cast",
]
__all__ += [  # sorting (sort.py)
    "MrgSort4Info", "MrgSortSrcList", "get_mrg_sort_result", "get_sort_len", "get_sort_offset", "mrg_sort", "mrg_sort4",
    "proposal_concat", "proposal_extract", "rp_sort16", "sort", "sort32",
]
__all__ += [  # scalar unit (scalar.py)
    "count_bits_cnt_same_as_sign_bit", "get_task_ratio", "scalar_cast", "scalar_count_leading_zero",
    "scalar_get_count_of_value", "scalar_get_sff_value",
]
__all__ += ["BlockMode", "DataCopyEnhancedParams", "SliceInfo", "pad_t"]  # data_copy_ext.py
__all__ += ["print_time_stamp"]  # sysvar.py

__all__ += ["cross_core_set_flag", "cross_core_wait_flag", "sync_all"]  # cores waiting for each other (crosscore.py)
__all__ += ["LoadData2DParamsV2", "LoadData2dTransposeParams", "LoadData2dTransposeParamsV2",
            "load_data_with_transpose"]  # more Cube loads (cube.py)
__all__ += ["DataCopyCO12DstParams", "set_fix_pipe_pre_quant_flag"]  # L0C -> GM (fixpipe.py)
__all__ += ["TransDataTo5HDParams", "TransposeParamsExt", "TransposeType", "trans_data_to_5hd",  # layout.py
            "transpose"]
__all__ += ["bilinear_interpolation"]  # bilinear.py
__all__ += ["ReduceOrder", "block_reduce_max", "block_reduce_min", "block_reduce_sum", "pair_reduce_sum",  # reduce.py
            "repeat_reduce_sum", "whole_reduce_max", "whole_reduce_min", "whole_reduce_sum"]
__all__ += ["GatherMaskMode", "GatherMaskParams", "GatherRepeatParams", "gather", "gather_mask", "gatherb",  # gather.py
            "get_gather_mask_remain_count", "scatter"]
__all__ += ["LoadData3DParamsV1", "LoadData3DParamsV2", "LoadData3DParamsV2Pro",  # img2col loads (img2col.py)
            "set_load_data_boundary", "set_load_data_padding_value"]
__all__ += ["AippChannelPaddingParams", "AippColorSpaceConvParams", "AippDataTypeConvParams",  # aipp.py
            "AippInputFormat", "AippPaddingParams", "AippParams", "AippSingleLineParams", "AippSwapParams",
            "LoadImageToLocalParams", "load_image_to_local", "set_aipp_functions"]

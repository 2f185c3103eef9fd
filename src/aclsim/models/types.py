"""ACL data types (`aclDataType`) and formats (`aclFormat`), with their numpy and ONNX equivalents.

Values from CANN's `acl_base.h` (aclDataType, aclFormat); ONNX TensorProto element types from onnx.proto.
"""

from __future__ import annotations

import numpy as np

ACL_DT_UNDEFINED = -1
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8 = 0, 1, 2, 3, 4
ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64 = 6, 7, 8, 9, 10
ACL_DOUBLE, ACL_BOOL, ACL_STRING, ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16 = 11, 12, 13, 16, 17, 27

# aclDataType -> numpy dtype (bf16 has no numpy type: storage only, not listed)
NUMPY: dict[int, np.dtype] = {
    ACL_FLOAT: np.dtype(np.float32), ACL_FLOAT16: np.dtype(np.float16), ACL_INT8: np.dtype(np.int8),
    ACL_INT32: np.dtype(np.int32), ACL_UINT8: np.dtype(np.uint8), ACL_INT16: np.dtype(np.int16),
    ACL_UINT16: np.dtype(np.uint16), ACL_UINT32: np.dtype(np.uint32), ACL_INT64: np.dtype(np.int64),
    ACL_UINT64: np.dtype(np.uint64), ACL_DOUBLE: np.dtype(np.float64), ACL_BOOL: np.dtype(np.bool_),
    ACL_COMPLEX64: np.dtype(np.complex64), ACL_COMPLEX128: np.dtype(np.complex128),
}
SIZES: dict[int, int] = {**{k: v.itemsize for k, v in NUMPY.items()}, ACL_BF16: 2, ACL_STRING: 0}

# ONNX TensorProto.DataType <-> aclDataType
ONNX_TO_ACL: dict[int, int] = {1: ACL_FLOAT, 2: ACL_UINT8, 3: ACL_INT8, 4: ACL_UINT16, 5: ACL_INT16, 6: ACL_INT32,
                               7: ACL_INT64, 8: ACL_STRING, 9: ACL_BOOL, 10: ACL_FLOAT16, 11: ACL_DOUBLE,
                               12: ACL_UINT32, 13: ACL_UINT64, 14: ACL_COMPLEX64, 15: ACL_COMPLEX128, 16: ACL_BF16}
ACL_TO_ONNX = {v: k for k, v in ONNX_TO_ACL.items()}

# ATC --output_type / --input_type names
NAMES: dict[str, int] = {"FP32": ACL_FLOAT, "FP16": ACL_FLOAT16, "INT8": ACL_INT8, "UINT8": ACL_UINT8,
                         "INT32": ACL_INT32, "INT64": ACL_INT64, "BOOL": ACL_BOOL, "FP64": ACL_DOUBLE}

ACL_FORMAT_UNDEFINED = -1
ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0 = 0, 1, 2, 3
FORMATS: dict[str, int] = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NC1HWC0_C04": 12,
                           "HWCN": 16, "NDHWC": 27, "FRACTAL_NZ": 29, "NCDHW": 30, "NDC1HWC0": 32,
                           "FRACTAL_Z_3D": 33}


def numpy_dtype(acl_type: int) -> np.dtype:
    """The numpy dtype of an aclDataType; KeyError when numpy has none."""
    return NUMPY[acl_type]


def acl_type_of(dtype: np.dtype) -> int:
    for k, v in NUMPY.items():
        if v == dtype:
            return k
    raise KeyError(f"no aclDataType for numpy dtype {dtype}")

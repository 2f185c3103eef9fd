"""Tensor shape metadata (pyasc `core/types.py` ShapeInfo, `core/array.py` array, `core/enums.py` DataFormat).

`asc.ShapeInfo(asc.array(asc.int32, (rows, cols)))` describes a tensor's logical shape; a
LocalTensor/GlobalTensor carries one (`set_shape_info`/`get_shape_info`) for the high-level APIs
that read it, as Ascend C's SoftMax does when no SoftMaxShapeInfo is passed. `asc.array` is a small
fixed-length array of one element type; here a 1-D numpy array.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import IntEnum
from typing import Any

import numpy as np

from .dtypes import as_dtype

MAX_DIMS = 8  # Ascend C ShapeInfo holds up to K_MAX_SHAPE_DIM = 8 dimensions


class DataFormat(IntEnum):
    ND = 0
    NZ = 1
    NCHW = 2
    NC1HWC0 = 3
    NHWC = 4


def array(dtype: Any, length_or_values: int | Sequence[Any], fill_value: Any = None) -> np.ndarray:
    """`asc.array(dtype, n[, fill_value])` or `asc.array(dtype, values)`: a 1-D array of `dtype`."""
    dt = as_dtype(dtype)
    if isinstance(length_or_values, int | np.integer):
        n = int(length_or_values)
        if n <= 0:
            raise ValueError(f"asc.array: the length must be a positive integer, got {n}")
        return np.full(n, 0 if fill_value is None else fill_value, dt.np)
    if fill_value is not None:
        raise ValueError("asc.array: fill_value cannot be given together with initial values")
    return np.array(list(length_or_values), dt.np)


class ShapeInfo:
    """A tensor's shape (and original shape) in elements, outermost dimension first, and its data format."""

    __slots__ = ("data_format", "dims", "original_dims")

    def __init__(self, shape: Sequence[int] | None = None, original_shape: Sequence[int] | None = None,
                 data_format: DataFormat = DataFormat.ND) -> None:
        self.dims = _dims(shape, "shape")
        self.original_dims = _dims(original_shape, "original_shape") if original_shape is not None else self.dims
        self.data_format = DataFormat(data_format)

    def shape(self, dim: int) -> int:
        return _at(self.dims, dim)

    def original_shape(self, dim: int) -> int:
        return _at(self.original_dims, dim)

    def __repr__(self) -> str:
        return f"ShapeInfo({list(self.dims)}, {list(self.original_dims)}, {self.data_format.name})"


def _dims(shape: Sequence[int] | None, name: str) -> tuple[int, ...]:
    dims = () if shape is None else tuple(int(d) for d in shape)
    if len(dims) > MAX_DIMS or any(d < 0 for d in dims):
        raise ValueError(f"asc.ShapeInfo: {name} must be at most {MAX_DIMS} non-negative dimensions, got {dims}")
    return dims


def _at(dims: tuple[int, ...], dim: int) -> int:
    if not 0 <= int(dim) < len(dims):
        raise IndexError(f"asc.ShapeInfo: dimension {dim} of a {len(dims)}-dimensional shape")
    return dims[int(dim)]


class HasShapeInfo:
    """`set_shape_info`/`get_shape_info` of LocalTensor and GlobalTensor (the class declares the
    `shape_info` slot; tensors made without it have no shape yet)."""

    __slots__ = ()

    def set_shape_info(self, shape_info: ShapeInfo) -> None:
        if not isinstance(shape_info, ShapeInfo):
            raise TypeError(f"set_shape_info expects an asc.ShapeInfo, got {type(shape_info).__name__}")
        self.shape_info = shape_info

    def get_shape_info(self) -> ShapeInfo:
        """The shape set with set_shape_info (an empty ShapeInfo if none was)."""
        return getattr(self, "shape_info", None) or ShapeInfo()


def get_shape_size(shape_info: ShapeInfo) -> int:
    """The product of all dimensions (Ascend C GetShapeSize)."""
    return math.prod(shape_info.dims)

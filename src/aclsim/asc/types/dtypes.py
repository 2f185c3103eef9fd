"""Ascend C element types with pyasc's names (`asc.half`, `asc.float32`, ...) and `.sizeof()`.

Names follow pyasc `python/asc/language/__init__.py` (core.dtype exports). numpy has no
bfloat16: `asc.bfloat16` is stored as its raw 16-bit patterns (uint16); data moves and `cast`
to/from float32 handle it, vector arithmetic refuses it as the 910B vector unit does
(hicann/asc-devkit `docs/api/SIMD-API/基础API/Memory矢量计算/基础算术/Add.md` lists half/float/int16_t/int32_t: bfloat16 needs a Cast to float
first); host arrays of ml_dtypes' bfloat16
map to it and bf16.py computes what the hardware does compute in bfloat16.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# CANN's aclDataType values (acl/acl_base.h; the pyACL constants ACL_FLOAT, ACL_FLOAT16, ...)
ACL_CODES = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6, "uint16": 7, "uint32": 8,
             "int64": 9, "uint64": 10, "bfloat16": 27}


class DataType:
    """One element type: its pyasc name, numpy storage dtype and size in bytes."""

    __slots__ = ("code", "is_float", "itemsize", "name", "np")

    def __new__(cls, name: str, storage: Any = None, is_float: bool = False) -> DataType:
        if storage is None:  # `asc.DataType("int32")`: pyasc's spelling of the type by name
            return as_dtype(name)
        return super().__new__(cls)

    def __init__(self, name: str, storage: Any = None, is_float: bool = False) -> None:
        if storage is None:
            return  # an existing type, returned by __new__
        self.name = name
        self.np = np.dtype(storage)
        self.itemsize = self.np.itemsize
        self.is_float = is_float
        self.code = ACL_CODES[name]  # CANN's aclDataType value, how a native face names the type

    def sizeof(self) -> int:
        """Bytes per element (Ascend C `sizeof(T)`)."""
        return self.itemsize

    def __repr__(self) -> str:
        return f"asc.{self.name}"


float16 = DataType("float16", np.float16, True)
half = float16
float32 = DataType("float32", np.float32, True)
float_ = float32
bfloat16 = DataType("bfloat16", np.uint16, True)
int8 = DataType("int8", np.int8, False)
int16 = DataType("int16", np.int16, False)
int32 = DataType("int32", np.int32, False)
int_ = int32
int64 = DataType("int64", np.int64, False)
uint8 = DataType("uint8", np.uint8, False)
uint16 = DataType("uint16", np.uint16, False)
uint32 = DataType("uint32", np.uint32, False)
uint64 = DataType("uint64", np.uint64, False)

ALL: tuple[DataType, ...] = (float16, float32, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
_BY_NUMPY = {t.np: t for t in ALL if t is not bfloat16}


def from_numpy(dtype: Any) -> DataType:
    """The asc type stored like numpy `dtype` (ml_dtypes' bfloat16 included); TypeError for types Ascend C has
    no name for."""
    try:
        dt = np.dtype(dtype)
        return bfloat16 if dt.name == "bfloat16" else _BY_NUMPY[dt]
    except (KeyError, TypeError):
        names = ", ".join(t.name for t in ALL if t is not bfloat16)
        raise TypeError(f"numpy dtype {dtype!r} has no Ascend C element type; use one of {names}") from None


def as_dtype(value: Any) -> DataType:
    """Accept an asc type, a numpy dtype, a type name ("float16") or an aclDataType code (an int)."""
    if isinstance(value, DataType):
        return value
    if type(value) is int:
        for t in ALL:
            if t.code == value:
                return t
        raise TypeError(f"aclDataType {value} has no Ascend C element type aclsim knows")
    if isinstance(value, str):
        for t in ALL:
            if t.name == value:
                return t
        if value == "half":
            return float16
    return from_numpy(value)

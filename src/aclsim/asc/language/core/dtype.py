"""`asc.language.core.dtype.KnownTypes`: the element types by name, for `Field(dtype=KT.int32)`."""

from __future__ import annotations

from aclsim.asc.types import dtypes as _t


class KnownTypes:
    """Element types as attributes (pyasc `core/dtype.py`); `bool_` is stored as int8, as in pyasc."""

    int8 = _t.int8
    int16 = _t.int16
    int32 = _t.int32
    int64 = _t.int64
    uint8 = _t.uint8
    uint16 = _t.uint16
    uint32 = _t.uint32
    uint64 = _t.uint64
    float16 = _t.float16
    half = _t.half
    float32 = _t.float32
    float_ = _t.float_
    bfloat16 = _t.bfloat16
    bool_ = _t.int8
    int_ = _t.int32

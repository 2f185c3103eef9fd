"""Tiling structs passed to kernels (pyasc `core/struct.py`): `class Cfg(Struct): n = Field(dtype=KT.int32)`.

A struct holds typed values: assigning converts to the field's element type (an int32 field keeps
int32 values, as pyasc's ctypes layout does), nested structs go in `StructField`s. A kernel receives
it by value: `snapshot()` is the copy a launch passes, so later host changes do not reach a queued
kernel and kernel writes do not come back.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .dtypes import DataType, as_dtype

_MISSING = object()


class BaseField:
    """A named member of a Struct."""

    def __init__(self, default: Any = _MISSING, name: str | None = None) -> None:
        self.default = default
        self.name = name

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = self.name or name

    def convert(self, value: Any) -> Any:
        raise NotImplementedError

    def initial(self) -> Any:
        raise NotImplementedError


class Field(BaseField):
    """A scalar member of element type `dtype`."""

    def __init__(self, dtype: Any, default: Any = _MISSING, name: str | None = None) -> None:
        super().__init__(default, name)
        self.dtype: DataType = as_dtype(dtype)

    def convert(self, value: Any) -> Any:
        if isinstance(value, Struct):
            raise TypeError(f"field {self.name!r} holds a {self.dtype.name}, not a struct")
        return np.array([value]).astype(self.dtype.np)[0]  # converts and wraps as a ctypes field does

    def initial(self) -> Any:
        return self.convert(0 if self.default is _MISSING else self.default)


class StructField(BaseField):
    """A nested struct member."""

    def __init__(self, struct_cls: type[Struct], default: Any = None, name: str | None = None) -> None:
        super().__init__(default, name)
        self.struct_cls = struct_cls

    def convert(self, value: Any) -> Any:
        if not isinstance(value, self.struct_cls):
            raise TypeError(f"field {self.name!r} holds a {self.struct_cls.__name__}, got {type(value).__name__}")
        return value

    def initial(self) -> Any:
        return self.default.snapshot() if isinstance(self.default, Struct) else self.struct_cls()


class Struct:
    """Base class of tiling structs: declare members with Field / StructField."""

    fields: ClassVar[dict[str, BaseField]] = {}

    def __init_subclass__(cls, pack: int = 8, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found = {}
        for klass in reversed(cls.__mro__):
            found.update({v.name: v for v in vars(klass).values() if isinstance(v, BaseField)})
        cls.fields = found

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(self.fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}; fields: {sorted(self.fields)}")
        store = {name: f.initial() for name, f in self.fields.items()}
        object.__setattr__(self, "_values", store)
        for name, v in values.items():
            setattr(self, name, v)

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name in type(self).fields:
            return object.__getattribute__(self, "_values")[name]
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        f = type(self).fields.get(name)
        if f is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        self._values[name] = f.convert(value)

    def snapshot(self) -> Struct:
        """A deep copy: what a kernel launch passes by value."""
        copy = object.__new__(type(self))
        object.__setattr__(copy, "_values", {k: v.snapshot() if isinstance(v, Struct) else v
                                             for k, v in self._values.items()})
        return copy

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"{type(self).__name__}({inner})"

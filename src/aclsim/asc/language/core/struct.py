"""pyasc's `asc.language.core.struct`: tiling structs passed to kernels (`class Cfg(Struct): n = Field(dtype=KT.int32)`).

The structs themselves are `aclsim.asc.types.struct`; this module gives them pyasc's import path. Absolute imports:
under `aclsim run` this package may load as `asc.language.core`.
"""

from aclsim.asc.types.struct import BaseField, Field, Struct, StructField

__all__ = ["BaseField", "Field", "Struct", "StructField"]

"""`asc.adv.quant` (Ascend C AscendQuant, per-tensor) and `asc.adv.QuantConfig`.

pyasc 1.1.1 form: `quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False,
config=None)`: dst (int8) = round(src * scale + offset). As the Atlas A2/A3 kernel does it
(asc-devkit `ascend_quant_pre_impl.h`, and the AscendQuant page's "实现原理"): a float source, scale
and offset are first cast to half, then Muls and Adds run in half, and the half result is cast to
int8 rounding half to even ("四舍六入五成双"), saturating (as aclsim's Cast does). The temporary buffer
holds at least two repeats (512 bytes, GetAscendQuantMaxMinTmpSize's minValue). A QuantConfig with
`calc_count` and `work_local_size` set makes the count a compile-time constant: the kernel then
quantises `calc_count` elements whatever `count` says, and asserts `work_local_size` fits the buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..types.dtypes import int8
from .operands import of_types, prepare, tensor

QUANT_TMP = 2 * 256  # ascend_quant tiling: two repeats of 256 bytes


class QuantConfig:
    """AscendQuantConfig: `calc_count`, `offset_count`, `scale_count`, `work_local_size` (0: not fixed)."""

    __slots__ = ("calc_count", "offset_count", "scale_count", "work_local_size")

    def __init__(self, calc_count: int = 0, offset_count: int = 0, scale_count: int = 0,
                 work_local_size: int = 0) -> None:
        values = (calc_count, offset_count, scale_count, work_local_size)
        if any(int(v) < 0 for v in values):
            raise ValueError(f"asc.adv.QuantConfig: the fields are uint32, got {values}")
        self.calc_count, self.offset_count, self.scale_count, self.work_local_size = (int(v) for v in values)

    def __repr__(self) -> str:
        return (f"QuantConfig(calc_count={self.calc_count}, offset_count={self.offset_count}, "
                f"scale_count={self.scale_count}, work_local_size={self.work_local_size})")


def quant(dst: Any, src: Any, scale: float, offset: float, count: int | None = None, temp_buffer: Any = None,
          reuse_source: bool = False, config: QuantConfig | None = None) -> None:
    """dst[i] = int8(rint(half(src[i]) * half(scale) + half(offset))), saturated."""
    api = "adv.quant"
    dst, src = tensor(api, "dst", dst), tensor(api, "src", src)
    if dst.dtype is not int8:
        fail(api, f"dst must be an int8 tensor, got {dst.dtype.name}")
    of_types(api, src, ("float16", "float32"), "sources")
    if config is not None:
        if not isinstance(config, QuantConfig):
            raise TypeError(f"asc.adv.quant: config must be asc.adv.QuantConfig, got {type(config).__name__}")
        if config.calc_count > src.get_size():
            fail(api, f"config.calc_count {config.calc_count} is larger than the source's {src.get_size()} elements")
        if temp_buffer is not None and config.work_local_size > tensor(api, "temp_buffer", temp_buffer).get_size():
            fail(api, f"config.work_local_size {config.work_local_size} is larger than temp_buffer's "
                      f"{temp_buffer.get_size()} bytes")
        if config.calc_count and config.work_local_size:
            count = config.calc_count
    n = prepare(api, dst, (src,), count, temp_buffer, QUANT_TMP)
    if n == 0:
        return
    x = src.read(n, api).astype(np.float16)
    with np.errstate(all="ignore"):
        y = x * np.float16(scale) + np.float16(offset)  # Muls then Adds, each rounded to half
        dst.write(n, api)[...] = np.clip(np.rint(y.astype(np.float32)), -128, 127)

"""AIPP in Ascend C: `set_aipp_functions` configures the image preprocessor, `load_image_to_local` applies it.

Sources: the CANN asc-devkit pages SetAippFunctions / LoadImageToLocal, `kernel_struct_aipp.h`,
`impl/basic_api/kernel_reg.h` (SetAippFunctionsImpl: the configuration is only written to the AIPP
special registers) and the software model of the unit in `impl/basic_api/dav_3510/kernel_operator_mm_impl.h`
(LoadImageToLocalCalLoop0/1), which this module follows with numpy. So:

- `set_aipp_functions(src0[, src1], input_format, config)` moves no data: it latches the image address(es)
  and the configuration (later edits of the config objects change nothing). A plain `data_copy` is
  not affected by it; only `load_image_to_local` (GM -> L1, TPosition A1/B1, on MTE2) applies AIPP.
- `load_image_to_local(dst, LoadImageToLocalParams(...))` crops `horiz_size` x `vert_size` pixels at
  (`horiz_start_pos`, `vert_start_pos`) of a source `src_horiz_size` pixels wide, picks/swaps
  channels, optionally converts the colour space (3x3 matrix in 1/256 steps), converts the type
  (int8: `pixel - mean`, saturated; half: `(pixel - mean - min) * var`), pads the borders and writes
  HWC with the channels padded to 32 bytes (c_padding_mode 0) or to 4 (mode 1) with `c_padding_value`.

Not emulated: `dtc_round_mode` (configurable on Atlas 200I/500 A2 only) raises NotEmulatedError.
aclsim runs AIPP on any core of the launch (it does not model that A2 compiles both calls away on AIVs).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import Any

import numpy as np

from ..aicore.core import Register
from ..aicore.pipes import access
from ..faults import NotEmulatedError, fail, message
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor, pool_of
from ..table import instruction
from ..types.dtypes import DataType, as_dtype, float16, int8, uint8
from .data_copy import gm_rows


class AippInputFormat(IntEnum):
    """Source image formats (kernel_struct_aipp.h)."""

    YUV420SP_U8 = 0
    XRGB8888_U8 = 1
    RGB888_U8 = 4
    YUV400_U8 = 9


_BYTES_PER_PIXEL = {AippInputFormat.YUV420SP_U8: 1, AippInputFormat.XRGB8888_U8: 4, AippInputFormat.RGB888_U8: 3,
                    AippInputFormat.YUV400_U8: 1}  # in src0 (YUV420SP: the Y plane)
_SRC0_ALIGN = {AippInputFormat.YUV420SP_U8: 2, AippInputFormat.XRGB8888_U8: 4}  # SetAippFunctions constraints


def _check_range(owner: Any, name: str, lo: float, hi: float) -> None:
    value = getattr(owner, name)
    if not lo <= value <= hi:
        raise ValueError(f"asc.{type(owner).__name__}: {name}={value} is out of range {lo}..{hi}")


@dataclass
class AippPaddingParams:
    """Border padding: mode 0 constant (left/right only), 1 nearest row/column, 2 block copy, 3 mirrored block."""

    padding_mode: int = 0
    padding_value_ch0: int | float = 0
    padding_value_ch1: int | float = 0
    padding_value_ch2: int | float = 0
    padding_value_ch3: int | float = 0

    def __post_init__(self) -> None:
        _check_range(self, "padding_mode", 0, 3)


@dataclass
class AippSwapParams:
    """Channel swaps: R<->B (RGB888, XRGB8888), U<->V (YUV420SP), XRGB -> RGBX (XRGB8888)."""

    is_swap_rb: bool = False
    is_swap_uv: bool = False
    is_swap_ax: bool = False


@dataclass
class AippSingleLineParams:
    """Read one line of the source image only (the load's vert_size is then ignored)."""

    is_single_line_copy: bool = False


@dataclass
class AippDataTypeConvParams:
    """uint8 -> int8: `pixel - mean`; uint8 -> half: `(pixel - mean - min) * var` (per output channel)."""

    dtc_mean_ch0: int = 0
    dtc_mean_ch1: int = 0
    dtc_mean_ch2: int = 0
    dtc_min_ch0: float = 0.0
    dtc_min_ch1: float = 0.0
    dtc_min_ch2: float = 0.0
    dtc_var_ch0: float = 1.0
    dtc_var_ch1: float = 1.0
    dtc_var_ch2: float = 1.0
    dtc_round_mode: int = 0

    def __post_init__(self) -> None:
        for k in range(3):
            _check_range(self, f"dtc_mean_ch{k}", 0, 255)


@dataclass
class AippChannelPaddingParams:
    """Channels after the image's: padded to 32 bytes (mode 0) or to 4 channels (mode 1) with the value."""

    c_padding_mode: int = 0
    c_padding_value: int | float = 0

    def __post_init__(self) -> None:
        _check_range(self, "c_padding_mode", 0, 1)


@dataclass
class AippColorSpaceConvParams:
    """Colour-space conversion: out_k = (sum_c in_c * matrix[k][c] + 128) / 256; RGB -> YUV adds bias_out,
    YUV -> RGB subtracts bias_in from the input first."""

    is_enable_csc: bool = False
    csc_matrix_r0_c0: int = 0
    csc_matrix_r0_c1: int = 0
    csc_matrix_r0_c2: int = 0
    csc_matrix_r1_c0: int = 0
    csc_matrix_r1_c1: int = 0
    csc_matrix_r1_c2: int = 0
    csc_matrix_r2_c0: int = 0
    csc_matrix_r2_c1: int = 0
    csc_matrix_r2_c2: int = 0
    csc_bias_in_0: int = 0
    csc_bias_in_1: int = 0
    csc_bias_in_2: int = 0
    csc_bias_out_0: int = 0
    csc_bias_out_1: int = 0
    csc_bias_out_2: int = 0

    def __post_init__(self) -> None:
        for f in fields(self)[1:]:
            if f.name.startswith("csc_matrix"):
                _check_range(self, f.name, -32768, 32767)
            else:
                _check_range(self, f.name, 0, 255)


_SUB_PARAMS = ("padding_params", "swap_params", "single_line_params", "dtc_params", "c_padding_params", "csc_params")


class AippParams:
    """The whole AIPP configuration; `dtype` (asc.int8 or asc.float16) is the output element type."""

    def __init__(self, dtype: Any, padding_params: AippPaddingParams | None = None,
                 swap_params: AippSwapParams | None = None,
                 single_line_params: AippSingleLineParams | None = None,
                 dtc_params: AippDataTypeConvParams | None = None,
                 c_padding_params: AippChannelPaddingParams | None = None,
                 csc_params: AippColorSpaceConvParams | None = None) -> None:
        dt = as_dtype(dtype)
        if dt not in (int8, float16):
            raise TypeError(f"AippParams dtype must be asc.int8 or asc.float16, but got {dtype}")
        self.dtype: DataType = dt
        self.padding_params = padding_params or AippPaddingParams()
        self.swap_params = swap_params or AippSwapParams()
        self.single_line_params = single_line_params or AippSingleLineParams()
        self.dtc_params = dtc_params or AippDataTypeConvParams()
        self.c_padding_params = c_padding_params or AippChannelPaddingParams()
        self.csc_params = csc_params or AippColorSpaceConvParams()
        self.check()

    def check(self) -> None:
        """ValueError for a field out of its type's range (run again when set_aipp_functions latches them)."""
        for name in _SUB_PARAMS:
            sub = getattr(self, name)
            if hasattr(sub, "__post_init__"):
                sub.__post_init__()
        pad = self.padding_params
        for name, owner in [(f"padding_value_ch{k}", pad) for k in range(4)] + [("c_padding_value",
                                                                                   self.c_padding_params)]:
            value = getattr(owner, name)
            if self.dtype is int8 and not (float(value).is_integer() and -128 <= value <= 127):
                raise ValueError(f"asc.AippParams: {name}={value} is not an int8 (the output type)")


@dataclass
class LoadImageToLocalParams:
    """Crop and border sizes of `load_image_to_local`, in pixels (pyasc takes no `sid`: it is reserved)."""

    horiz_size: int = 2
    vert_size: int = 2
    horiz_start_pos: int = 0
    vert_start_pos: int = 0
    src_horiz_size: int = 2
    top_pad_size: int = 0
    bot_pad_size: int = 0
    left_pad_size: int = 0
    right_pad_size: int = 0


@dataclass
class _Registers:
    """What set_aipp_functions latched: the image planes (as uint8 GM views) and a copy of the config."""

    fmt: AippInputFormat
    src0: GlobalTensor
    src1: GlobalTensor | None
    config: AippParams


class Aipp(Register):
    """The AIPP registers of a core: the `_Registers` set_aipp_functions latched."""


def _bytes(g: GlobalTensor) -> GlobalTensor:
    """A uint8 view of GM at `g`'s address (the AIPP unit reads bytes whatever the tensor's type)."""
    b = g._at(0)
    b.dtype = uint8
    b.size = None
    return b


@instruction("SetAippFunctions", "set_aipp_functions", "move", note="dtc_round_mode (Atlas 200I/500 A2 only) not "
             "emulated; applied by load_image_to_local")
def set_aipp_functions(core: Any, src0: GlobalTensor, src1: GlobalTensor | None, input_format: Any,
                       config: AippParams) -> None:
    """Latch the image planes (`src1`: the UV plane of YUV420SP_U8, else None) and the AIPP configuration."""
    api = "set_aipp_functions"
    got = {"input_format": input_format}
    for role, g in (("src0", src0), ("src1", src1)):
        if g is not None and (not isinstance(g, GlobalTensor) or g.dtype is None):
            raise TypeError(f"asc.{api}: {role} must be a GlobalTensor with its buffer set, got {type(g).__name__}")
    try:
        fmt = AippInputFormat(got["input_format"])
    except ValueError:
        raise TypeError(f"asc.{api}: input_format must be an asc.AippInputFormat, got {got['input_format']!r}") from None
    if not isinstance(config, AippParams):
        raise TypeError(f"asc.{api}: config must be an asc.AippParams, got {type(config).__name__}")
    if config.dtc_params.dtc_round_mode:
        raise NotEmulatedError(message(api, f"AippDataTypeConvParams.dtc_round_mode="
                                                f"{config.dtc_params.dtc_round_mode} is configurable on Atlas 200I/500 "
                                                "A2 only (CANN SetAippFunctions page); aclsim does not emulate it"))
    if fmt is AippInputFormat.YUV420SP_U8 and src1 is None:
        fail(api, "YUV420SP_U8 reads the UV plane from src1: call set_aipp_functions(src0, src1, format, config)")
    align = _SRC0_ALIGN.get(fmt, 1)
    for role, g in (("src0", src0), ("src1", src1 if fmt is AippInputFormat.YUV420SP_U8 else None)):
        if g is not None and g.addr % align:
            fail(api, f"{role} at GM {g.addr:#x} is not {align}-byte aligned, as {fmt.name} requires")
    latched = copy.copy(config)  # the registers keep the values of now, whatever the program edits later
    for name in _SUB_PARAMS:
        setattr(latched, name, copy.copy(getattr(config, name)))
    latched.check()
    core.state(Aipp).value = _Registers(fmt, _bytes(src0), _bytes(src1) if fmt is AippInputFormat.YUV420SP_U8 else None, latched)


def _check_load(p: LoadImageToLocalParams, fmt: AippInputFormat, mode: int, vert: int, api: str) -> None:
    text = ", ".join(f"{f.name}={getattr(p, f.name)}" for f in fields(p))
    limits = [("horiz_size", 2, 4095), ("vert_size", 2, 4095), ("horiz_start_pos", 0, 4095),
              ("vert_start_pos", 0, 4095), ("src_horiz_size", 2, 4095)]
    limits += [(f"{side}_pad_size", 0, 32) for side in ("top", "bot", "left", "right")]
    for name, lo, hi in limits:
        if not lo <= int(getattr(p, name)) <= hi:
            fail(api, f"LoadImageToLocalParams({text}): {name} must be in {lo}..{hi}")
    odd = [n for n in ("horiz_start_pos",) + (("vert_start_pos", "src_horiz_size")
                                               if fmt is AippInputFormat.YUV420SP_U8 else ())
           if int(getattr(p, n)) % 2]
    if odd:
        fail(api, f"LoadImageToLocalParams({text}): {' and '.join(odd)} must be even for {fmt.name}")
    # The unit would read on into the next source row; no page allows it, so aclsim takes it for the bug it is.
    if int(p.horiz_start_pos) + int(p.horiz_size) > int(p.src_horiz_size):
        fail(api, f"LoadImageToLocalParams({text}): the crop ends at column {p.horiz_start_pos + p.horiz_size}, "
                  f"past the {p.src_horiz_size}-pixel source row")
    if mode >= 2 and (max(p.left_pad_size, p.right_pad_size) > p.horiz_size
                      or (max(p.top_pad_size, p.bot_pad_size) > vert)):
        fail(api, f"LoadImageToLocalParams({text}): padding mode {mode} copies the padding from the cropped "
                  f"image, so left/right pads must be <= horiz_size and top/bottom pads <= {vert} (its height)")


def _channels(core: Any, reg: _Registers, p: LoadImageToLocalParams, vert: int, api: str) -> np.ndarray:
    """The cropped pixels as (vert, horiz, 3 or 1) int64 source channel values, in output order after the swaps."""
    fmt, sw = reg.fmt, reg.config.swap_params
    horiz, x0, y0, w = int(p.horiz_size), int(p.horiz_start_pos), int(p.vert_start_pos), int(p.src_horiz_size)
    bpp = _BYTES_PER_PIXEL[fmt]
    px = gm_rows(core, reg.src0[(y0 * w + x0) * bpp:], vert, horiz * bpp, w * bpp, api, False)
    px = px.reshape(vert, horiz, bpp).astype(np.int64)
    if fmt is AippInputFormat.YUV420SP_U8:  # U, V: one pair per 2 x 2 pixels, rows of w bytes in src1
        rows, width = (vert - 1) // 2 + 1, (horiz - 1) // 2 * 2 + 2
        uv = gm_rows(core, reg.src1[(y0 // 2) * w + x0:], rows, width, w, api, False).astype(np.int64)
        pair = uv[np.arange(vert)[:, None, None] // 2, (np.arange(horiz) // 2 * 2)[None, :, None] + np.array([0, 1])]
        return np.concatenate([px, pair[..., ::-1] if sw.is_swap_uv else pair], axis=2)
    if fmt is AippInputFormat.YUV400_U8:
        return px
    # which source bytes make R, G, B (dav_3510 LoadImageToLocalCalLoop0; XRGB without is_swap_ax reads bytes 0..2)
    ax = fmt is AippInputFormat.XRGB8888_U8 and sw.is_swap_ax
    sel = [1, 2, 3] if ax else [0, 1, 2]
    return px[:, :, sel[::-1] if sw.is_swap_rb else sel]


def _csc(px: np.ndarray, reg: _Registers) -> np.ndarray:
    """Colour-space conversion of (.., 3 or 1) channels into 3, saturated to uint8 values."""
    c = reg.config.csc_params
    m = np.array([[getattr(c, f"csc_matrix_r{r}_c{k}") for k in range(3)] for r in range(3)], np.int64)
    if reg.fmt in (AippInputFormat.YUV420SP_U8, AippInputFormat.YUV400_U8):
        if px.shape[2] == 1:  # YUV400: U = V = 0 (dav_3510 model)
            px = np.concatenate([px, np.zeros_like(px), np.zeros_like(px)], axis=2)
        v = (px - np.array([c.csc_bias_in_0, c.csc_bias_in_1, c.csc_bias_in_2])) @ m.T + 128
        bias = 0
    else:
        v = px @ m.T + 128
        bias = np.array([c.csc_bias_out_0, c.csc_bias_out_1, c.csc_bias_out_2])
    # C integer division truncates toward zero; the software model then stores into uint8 (wrapping). The AIPP
    # unit saturates: aclsim clips to 0..255, like ATC's AIPP and the int8 conversion page.
    return np.clip(np.fix(v / 256).astype(np.int64) + bias, 0, 255)


def _convert(px: np.ndarray, cfg: AippParams) -> np.ndarray:
    """Data-type conversion per output channel (the dav_3510 model indexes mean/min/var by the source channel
    after a swap and overruns its 3-entry tables for XRGB -> RGBX; the output channel is what ATC's AIPP uses)."""
    d, n = cfg.dtc_params, px.shape[2]
    mean = np.array([d.dtc_mean_ch0, d.dtc_mean_ch1, d.dtc_mean_ch2][:n], np.int64)
    if cfg.dtype is int8:
        return np.clip(px - mean, -128, 127).astype(np.int8)
    mn = np.array([d.dtc_min_ch0, d.dtc_min_ch1, d.dtc_min_ch2][:n], np.float16)
    var = np.array([d.dtc_var_ch0, d.dtc_var_ch1, d.dtc_var_ch2][:n], np.float16)
    return ((px - mean).astype(np.float16) - mn) * var  # half arithmetic, rounded after each step


def _pad_index(n: int, before: int, size: int, after: int, mode: int) -> np.ndarray:
    """For each output row (or column) the image row it copies in padding modes 1..3 (identity inside)."""
    i = np.arange(n)
    inside = np.clip(i, before, before + size - 1)
    if mode == 1:
        return inside
    if mode == 2:
        return np.where(i < before, before + i, np.where(i >= before + size, i - after, i))
    return np.where(i < before, 2 * before - i - 1, np.where(i >= before + size, 2 * (before + size) - i - 1, i))


@instruction("LoadImageToLocal", "load_image_to_local", "move", "MTE2", cost="gm")
def load_image_to_local(core: Any, dst: LocalTensor, load_data_params: LoadImageToLocalParams) -> None:
    """Load a crop of the image set_aipp_functions configured into L1, preprocessed by AIPP."""
    api = "load_image_to_local"
    if not isinstance(load_data_params, LoadImageToLocalParams):
        raise TypeError(f"asc.{api}(dst, asc.LoadImageToLocalParams(...)), got {type(load_data_params).__name__}")
    pool_of(dst, api, "dst", ("L1",))
    reg: _Registers | None = core.state(Aipp).value
    if reg is None:
        fail(api, "no AIPP configuration on this core: call asc.set_aipp_functions(...) first")
    cfg, p = reg.config, load_data_params
    if dst.dtype is not cfg.dtype:
        fail(api, f"dst is {dst.dtype.name} but the AippParams output type is {cfg.dtype.name}")
    pad_mode = int(cfg.padding_params.padding_mode)
    vert = 1 if cfg.single_line_params.is_single_line_copy else int(p.vert_size)
    _check_load(p, reg.fmt, pad_mode, vert, api)
    horiz = int(p.horiz_size)
    top, bot = (0, 0) if pad_mode == 0 else (int(p.top_pad_size), int(p.bot_pad_size))  # mode 0: left/right only
    left, right = int(p.left_pad_size), int(p.right_pad_size)
    height, width = vert + top + bot, horiz + left + right
    cpad = 32 // cfg.dtype.itemsize if cfg.c_padding_params.c_padding_mode == 0 else 4
    nbytes = height * width * cpad * cfg.dtype.itemsize
    if dst.lo + nbytes > dst.end:
        fail(api, f"the {width} x {height} image with {cpad} channels needs {nbytes} bytes of L1 but dst holds only "
                  f"{dst.end - dst.lo} bytes (L1 tensor overflow)")
    px = _channels(core, reg, p, vert, api)
    if cfg.csc_params.is_enable_csc:
        px = _csc(px, reg)
    nch = px.shape[2]
    out = np.full((height, width, cpad), cfg.c_padding_params.c_padding_value, cfg.dtype.np)
    out[top:top + vert, left:left + horiz, :nch] = _convert(px, cfg)
    if pad_mode == 0:  # constant: channels 0..3 of the left and right borders
        pp = cfg.padding_params
        values = np.array([pp.padding_value_ch0, pp.padding_value_ch1, pp.padding_value_ch2,
                           pp.padding_value_ch3], cfg.dtype.np)[:cpad]
        out[:, :left, :4] = values
        out[:, left + horiz:, :4] = values
    else:
        rows, cols = _pad_index(height, top, vert, bot, pad_mode), _pad_index(width, left, horiz, right, pad_mode)
        out[:, :, :nch] = out[np.ix_(rows, cols)][:, :, :nch]
    pool = dst.buf.pool
    pool.bytes[dst.lo:dst.lo + nbytes] = out.reshape(-1).view(np.uint8)
    pool.mark(dst.lo, dst.lo + nbytes)
    if pool.watch:
        access("MTE2", pool, dst.lo, dst.lo + nbytes, True, api)

"""Enums and parameter structs of the Cube data path, with pyasc's names, fields and defaults.

From pyasc 1.1.1 `python/asc/language/core/types.py` (`Nd2NzParams`, `LoadData2DParams`,
`MmadParams`, `FixpipeParamsV220`, `FixpipeConfig`) and `core/enums.py` (`CubeFormat`,
`QuantModes`, `CO2Layout`, `LayoutMode`, `IterateOrder`); units follow the Ascend C API pages
quoted in pyasc's docstrings (`basic/utils.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class CubeFormat(IntEnum):
    """Layout of a Matmul operand in memory: row-major ND or fractal NZ."""

    ND = 0
    NZ = 1


class LayoutMode(IntEnum):
    """Batch layout of a Matmul operand (iterate_batch)."""

    NONE = 0
    NORMAL = 1
    BSNGD = 2
    SBNGD = 3
    BNGS1S2 = 4


class IterateOrder(IntEnum):
    """Order in which Matmul.iterate walks the base blocks of C."""

    ORDER_M = 0
    ORDER_N = 1
    UNDEF = 2


class QuantModes(IntEnum):
    """Fixpipe conversion of the L0C result on its way out."""

    NoQuant = 0
    F322F16 = 1
    F322BF16 = 2
    DEQF16 = 3
    VDEQF16 = 4
    QF322B8_PRE = 5
    VQF322B8_PRE = 6
    REQ8 = 7
    VREQ8 = 8


class CO2Layout(IntEnum):
    """Layout fixpipe writes: fractal NZ, or row-major ND (NZ2ND on)."""

    NZ = 0
    ROW_MAJOR = 1
    COLUMN_MAJOR = 2


@dataclass
class Nd2NzParams:
    """data_copy ND -> fractal NZ (GM -> L1). Counts are elements except the dst strides: C0 rows
    (32-byte blocks) between column blocks (`dst_nz_c0_stride`) and between rows (`dst_nz_n_stride`)."""

    nd_num: int = 1
    n_value: int = 0
    d_value: int = 0
    src_nd_matrix_stride: int = 0
    src_d_value: int = 0
    dst_nz_c0_stride: int = 0
    dst_nz_n_stride: int = 1
    dst_nz_matrix_stride: int = 0


@dataclass
class LoadData2DParams:
    """load_data L1 -> L0A/L0B: `repeat_times` 512-byte fractals from fractal `start_index`, the
    source `src_stride` fractals apart, the destination `dst_gap` fractals apart; `if_transpose`
    transposes each 16 x 16 fractal (2-byte types)."""

    start_index: int = 0
    repeat_times: int = 1
    src_stride: int = 0
    sid: int = 0
    dst_gap: int = 0
    if_transpose: bool = False
    addr_mode: int = 0


@dataclass
class LoadData2DParamsV2:
    """Load2Dv2 (m/k start positions and steps): an Ascend 950 interface (CANN Load2D page,
    "Load2Dv2接口": Ascend 950PR/950DT only); the A2/A3 profiles refuse it."""

    m_start_position: int = 0
    k_start_position: int = 0
    m_step: int = 0
    k_step: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    if_transpose: bool = False
    sid: int = 0


@dataclass
class LoadData2dTransposeParams:
    """load_data_with_transpose L1 -> L0A/L0B: `repeat_times` square blocks from block `start_index`
    (a block: one 16 x 16 fractal of 2-byte types, two 512-byte fractals otherwise), `src_stride`
    blocks apart; destinations `dst_gap` fractals apart between repeats (from the end of a repeat's
    first fractal) and `dst_frac_gap` fractals apart within one."""

    start_index: int = 0
    repeat_times: int = 1
    src_stride: int = 0
    dst_gap: int = 0
    dst_frac_gap: int = 0
    addr_mode: int = 0


@dataclass
class LoadData2dTransposeParamsV2:
    """The V2 form of load_data_with_transpose's parameters (adds `src_frac_gap`)."""

    start_index: int = 0
    repeat_times: int = 0
    src_stride: int = 0
    dst_gap: int = 0
    dst_frac_gap: int = 0
    src_frac_gap: int = 0
    addr_mode: int = 0


@dataclass
class MmadParams:
    """mmad C(m x n) = A(m x k) @ B(k x n): `cmatrix_init_val=False` (or the older `is_bias=True`)
    accumulates into what L0C holds instead of starting from zero."""

    m: int = 0
    n: int = 0
    k: int = 0
    is_bias: bool = False
    fm_offset: int = 0
    en_ssparse: bool = False
    en_winograd_a: bool = False
    en_winograd_b: bool = False
    unit_flag: int = 0
    cmatrix_source: bool = False
    cmatrix_init_val: bool = True


@dataclass
class FixpipeParamsV220:
    """fixpipe L0C -> GM: `n_size` x `m_size` of the NZ result, column blocks `src_stride` x 16
    elements apart in L0C; `dst_stride` is the GM row length in elements (row-major output)."""

    n_size: int = 0
    m_size: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    quant_pre: int = QuantModes.NoQuant
    deq_scalar: int = 0
    nd_num: int = 1
    src_nd_stride: int = 0
    dst_nd_stride: int = 0
    relu_en: bool = False
    unit_flag: int = 0
    is_channel_split: bool = False


@dataclass(frozen=True)
class FixpipeConfig:
    """`FixpipeConfig.cfg_row_major` (default: NZ -> ND on the way out) or `FixpipeConfig.cfg_nz`."""

    layout: int = CO2Layout.ROW_MAJOR

    @classmethod
    def cfg_nz(cls) -> FixpipeConfig:
        return cls(CO2Layout.NZ)

    @classmethod
    def cfg_row_major(cls) -> FixpipeConfig:
        return cls(CO2Layout.ROW_MAJOR)


@dataclass
class DataCopyCO12DstParams:
    """data_copy L0C -> GM (the fixpipe move as a data_copy): `n_size` x `m_size`, `dst_stride` (ND row
    length in elements with `nz2nd_en`, else 32-byte units between NZ blocks), `src_stride` (x 16
    elements between L0C column blocks), `quant_pre`, `relu_pre` (1: ReLU), `channel_split`."""

    n_size: int
    m_size: int
    dst_stride: int
    src_stride: int
    quant_pre: int = QuantModes.NoQuant
    relu_pre: int = 0
    channel_split: bool = False
    nz2nd_en: bool = False


@dataclass
class LoadData3DParamsV1:
    """The 3D (img2col) load of the Atlas training/inference chips; A2/A3 refuse it (CANN LoadData_3D
    page, product table; dav_c220 `kernel_operator_mm_impl.h` reports it unsupported)."""

    pad_list: tuple[int, int, int, int] = (0, 0, 0, 0)
    l1_h: int = 1
    l1_w: int = 1
    c1_index: int = 0
    fetch_filter_w: int = 0
    fetch_filter_h: int = 0
    left_top_w: int = 0
    left_top_h: int = 0
    stride_w: int = 1
    stride_h: int = 1
    filter_w: int = 1
    filter_h: int = 1
    dilation_filter_w: int = 1
    dilation_filter_h: int = 1
    jump_stride: int = 1
    repeat_mode: int = 0
    repeat_time: int = 1
    c_size: int = 0
    pad_value: int = 0


@dataclass
class LoadData3DParamsV2:
    """load_data L1 (NC1HWC0 feature map) -> L0A/L0B with img2col: the window of the expanded matrix
    (M: output positions, K: C1 x kernel positions x C0) from (`m_start_pt`, `k_start_pt`), `m_extension`
    x `k_extension` elements. `pad_list` is (left, right, top, bottom); pyasc's defaults."""

    pad_list: tuple[int, int, int, int] = (0, 0, 0, 0)
    l1_h: int = 1
    l1_w: int = 1
    channel_size: int = 1
    k_extension: int = 1
    m_extension: int = 1
    k_start_pt: int = 0
    m_start_pt: int = 0
    stride_w: int = 1
    stride_h: int = 1
    filter_w: int = 1
    filter_h: int = 1
    dilation_filter_w: int = 1
    dilation_filter_h: int = 1
    en_transpose: bool = False
    pad_value: float = 0
    filter_size_w: bool = False
    filter_size_h: bool = False
    f_matrix_ctrl: bool = False


@dataclass
class LoadData3DParamsV2Pro:
    """The packed form of LoadData3DParamsV2: `ext_config` = m_start << 48 | k_start << 32 | m_ext << 16 |
    k_ext, `filter_config` = dil_h << 40 | dil_w << 32 | filter_h << 24 | filter_w << 16 | stride_h << 8 |
    stride_w; the feature map shape, padding and pad value come from the registers the last
    LoadData3DParamsV2 load (or set_load_data_padding_value) set (CANN LoadData_3D page, table 5)."""

    channel_size: int = 0
    en_transpose: bool = False
    en_small_k: bool = False
    filter_size_w: bool = False
    filter_size_h: bool = False
    f_matrix_ctrl: bool = False
    ext_config: int = 0
    filter_config: int = 0x10101010101


FRACTAL = 512  # bytes of one 16 x C0 fractal


def c0(dt: Any) -> int:
    """Elements of type `dt` per 32-byte fractal row."""
    return 32 // dt.itemsize


def up(x: int, k: int) -> int:
    """`x` rounded up to a multiple of `k`."""
    return -(-x // k) * k

"""`asc.adv.TCubeTiling`: the Matmul tiling struct, fields as pyasc's `adv/tiling.py` (all int32)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..types.struct import Field, Struct

FIELDS = (
    "used_core_num", "m", "n", "k_a", "k_b", "single_core_m", "single_core_n", "single_core_k", "base_m", "base_n",
    "base_k", "depth_a1", "depth_b1", "step_m", "step_n", "is_bias", "trans_length", "iterate_order", "share_mode",
    "share_l1_size", "share_l0c_size", "share_ub_size", "batch_m", "batch_n", "single_batch_m", "single_batch_n",
    "step_k_a", "step_k_b", "depth_a_l1_cache_ub", "depth_b_l1_cache_ub", "db_l0a", "db_l0b", "db_l0c",
    "a_layout_info_b", "a_layout_info_s", "a_layout_info_n", "a_layout_info_g", "a_layout_info_d",
    "b_layout_info_b", "b_layout_info_s", "b_layout_info_n", "b_layout_info_g", "b_layout_info_d",
    "c_layout_info_b", "c_layout_info_s1", "c_layout_info_n", "c_layout_info_g", "c_layout_info_s2", "batch_num",
)


class TilingInt(int):
    """An int32 tiling field; pyasc kernels write `tiling.m.ceildiv(tiling.single_core_m)`."""

    def ceildiv(self, other: int) -> int:
        return -(-int(self) // int(other))


class TilingField(Field):
    """An int32 member read back as a TilingInt."""

    def __init__(self) -> None:
        super().__init__(np.int32, 0)

    def convert(self, value: Any) -> TilingInt:
        return TilingInt(int(super().convert(int(value))))


class TCubeTiling(Struct):
    """Matmul tiling: shapes (`m`, `n`, `k_a`), per-core (`single_core_*`) and per-step (`base_*`) blocks.
    Passed to a kernel by value, like every tiling struct."""

    locals().update({name: TilingField() for name in FIELDS})

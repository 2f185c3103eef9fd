"""`asc.adv.TCubeTiling`: the Matmul tiling struct, field names as pyasc's `adv/tiling.py`."""

from __future__ import annotations

from typing import Any

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


class TCubeTiling:
    """Matmul tiling: shapes (`m`, `n`, `k_a`), per-core (`single_core_*`) and per-step (`base_*`) blocks."""

    __slots__ = FIELDS

    def __init__(self, **fields: Any) -> None:
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise TypeError(f"TCubeTiling has no field(s) {', '.join(sorted(unknown))}")
        for name in FIELDS:
            setattr(self, name, fields.get(name, 0))

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, TilingInt(int(value)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)}" for f in FIELDS if getattr(self, f))
        return f"TCubeTiling({shown})"

"""pyasc's `asc.adv` (high-level APIs): the Matmul and its tiling struct."""

from __future__ import annotations

from .matmul import (
    Matmul,
    MatmulConfig,
    MatmulType,
    get_basic_config,
    get_ib_share_norm_config,
    get_mdl_config,
    get_mm_config,
    get_normal_config,
    get_special_basic_config,
    get_special_mdl_config,
    register_matmul,
)
from .sort import concat, extract
from .tiling import TCubeTiling

__all__ = [
    "Matmul", "MatmulConfig", "MatmulType", "TCubeTiling", "get_basic_config", "get_ib_share_norm_config",
    "get_mdl_config", "get_mm_config", "get_normal_config", "get_special_basic_config", "get_special_mdl_config",
    "register_matmul",
]
__all__ += ["concat", "extract"]  # sort.py

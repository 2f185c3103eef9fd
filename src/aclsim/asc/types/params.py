"""Parameter structs of the data-movement APIs (pyasc `python/asc/language/core/types.py`).

Units, from the Ascend C API pages (hicann/asc-devkit `docs/api/SIMD-API/基础API/Memory矢量计算/数据搬运/DataCopy_GMAndUB_highdim_split.md`,
`DataCopyPad_GMToUB.md`): in `DataCopyParams` (data_copy)
block_len and both strides count 32-byte data blocks; in `DataCopyExtParams` (data_copy_pad)
block_len is in bytes, the GM-side stride in bytes and the UB-side stride in 32-byte blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class DataCopyParams:
    """Blocked copy: `block_count` blocks of `block_len` 32-byte units, gaps in 32-byte units."""

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0


@dataclass
class DataCopyExtParams:
    """data_copy_pad geometry: block_len in bytes; strides: bytes on the GM side, 32 B blocks on UB."""

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    rsv: int = 0


@dataclass
class DataCopyPadExtParams:
    """Padding of each GM->UB block: `left_padding`/`right_padding` elements set to `padding_value`."""

    dtype: Any = None
    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: Any = 0


@dataclass
class DataCopyPadParams:
    """Older padding struct (no element type): same meaning as DataCopyPadExtParams."""

    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: Any = 0


# Repeat parameters of the mask/repeat form of vector instructions (pyasc `core/types.py`): block
# strides count 32-byte blocks between the 8 blocks of one repeat, repeat strides count 32-byte
# blocks between the starts of consecutive repeats (hicann/asc-devkit `docs/api/SIMD-API/基础API/Memory矢量计算/
# SIMD计算说明/`).
@dataclass
class BinaryRepeatParams:
    """Strides of dst, src0, src1 (default: contiguous repeats of 8 blocks)."""

    dst_blk_stride: int = 1
    src0_blk_stride: int = 1
    src1_blk_stride: int = 1
    dst_rep_stride: int = 8
    src0_rep_stride: int = 8
    src1_rep_stride: int = 8

    def strides(self) -> list[tuple[int, int]]:
        """(block stride, repeat stride) per operand: dst, src0, src1."""
        return [(self.dst_blk_stride, self.dst_rep_stride), (self.src0_blk_stride, self.src0_rep_stride),
                (self.src1_blk_stride, self.src1_rep_stride)]


@dataclass
class UnaryRepeatParams:
    """Strides of dst and src (also the scalar forms such as adds)."""

    dst_blk_stride: int = 1
    src_blk_stride: int = 1
    dst_rep_stride: int = 8
    src_rep_stride: int = 8

    def strides(self) -> list[tuple[int, int]]:
        """(block stride, repeat stride) per operand: dst, src."""
        return [(self.dst_blk_stride, self.dst_rep_stride), (self.src_blk_stride, self.src_rep_stride)]


@dataclass
class CopyRepeatParams:
    """Strides of `copy`: block strides dst_stride/src_stride, repeat strides dst/src_repeat_size."""

    dst_stride: int = 0
    src_stride: int = 0
    dst_repeat_size: int = 0
    src_repeat_size: int = 0

    def strides(self) -> list[tuple[int, int]]:
        """(block stride, repeat stride) per operand: dst, src."""
        return [(self.dst_stride, self.dst_repeat_size), (self.src_stride, self.src_repeat_size)]


@dataclass
class BrcbRepeatParams:
    """Strides of `brcb`'s destination blocks."""

    dst_blk_stride: int = 1
    dst_rep_stride: int = 8

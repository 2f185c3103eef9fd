"""Parameter structs of the data-movement APIs (pyasc `python/asc/language/core/types.py`).

Units, from the Ascend C API reference (`ascendc-device.md` §1.3): in `DataCopyParams` (data_copy)
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

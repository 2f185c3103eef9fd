"""data_copy's slice form (`SliceInfo`) and enhanced form (`DataCopyEnhancedParams`).

Slice form, `data_copy(dst, src, dst_slices, src_slices, dim_value=1)` (GM <-> UB; pyasc `basic/data_copy.py`,
Ascend C "切片数据搬运"). Dimension 0 is the contiguous one. Its SliceInfo cuts `[start_index, end_index]`
into bursts of `burst_len` 32-byte blocks separated by `stride` elements; higher dimensions select every
`stride + 1`-th index of `[start_index, end_index]`, `shape_value` being each dimension's length in
elements. The bursts of each selected line of src land in the same-numbered line of dst, dst's
dimension-0 stride separating them there. The arithmetic follows CANN's
`kernel_operator_data_copy_impl.h` (DataCopyGetPhyStartIndex, DataCopyGetOffsetList: one blocked DMA per
line, `(end - start + 1 + stride) / (burst elements + stride)` bursts) and the checks its CPU-debug
checker makes (`kernel_data_copy_slice_check.cpp`): src and dst bursts equal, the range a whole number
of bursts, the UB-side stride a multiple of 32 bytes, burst_len 1 above dimension 0.

Enhanced form, `data_copy(dst, src, DataCopyParams, DataCopyEnhancedParams)`: with the default
enhancements (normal block mode, no dequantisation, no ReLU, no padding) it is the blocked copy; the
other settings belong to the Cube's CO1 -> CO2 path and raise NotEmulatedError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..faults import fail, not_emulated
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.enums import BlockMode, DeqScale, pad_t
from ..types.params import DataCopyParams
from .atomic import store
from .data_copy import blocked, gm_rows, local_rows, same_type

BLOCK = 32
MAX_DIMS = 8  # CANN K_MAX_SHAPE_DIM


@dataclass
class SliceInfo:
    """One dimension of a slice: index range, gap (elements), burst (32-byte blocks, dimension 0), length."""

    start_index: int = 0
    end_index: int = BLOCK - 1  # pyasc / CANN default: ONE_BLK_SIZE - 1
    stride: int = 0
    burst_len: int = BLOCK  # pyasc / CANN default: ONE_BLK_SIZE
    shape_value: int = 0


@dataclass
class DataCopyEnhancedParams:
    """Enhancements of a blocked data_copy (pyasc core/types.py)."""

    block_mode: int = BlockMode.BLOCK_MODE_NORMAL
    deq_scale: int = DeqScale.DEQ_NONE
    deq_value_in: int = 0
    sid_store_mode_in: int = 0
    is_relu_in: bool = False
    pad_mode_in: int = pad_t.PAD_NONE
    pad_value_in: int = 0


@instruction("DataCopy(DataCopyEnhancedParams)", "data_copy", "move", cost="gm")
def copy_enhanced(core: Any, dst: Any, src: Any, params: DataCopyParams, enhanced: DataCopyEnhancedParams) -> None:
    """The blocked copy, for the enhancements that leave plain GM/UB moves unchanged."""
    plain = (BlockMode(enhanced.block_mode) == BlockMode.BLOCK_MODE_NORMAL and not enhanced.is_relu_in
             and DeqScale(enhanced.deq_scale) == DeqScale.DEQ_NONE and pad_t(enhanced.pad_mode_in) == pad_t.PAD_NONE)
    if not plain:
        raise not_emulated(f"asc.data_copy with {enhanced} (block modes, dequantisation, ReLU and padding are the "
                           "Cube's CO1 -> CO2 path)")
    blocked(core, dst, src, params)  # sid_store_mode only selects how the hardware multiplexes inputs


def _lines(slices: Sequence[SliceInfo], shape: list[int]) -> tuple[int, list[int]]:
    """(element index of the first burst, element offsets of every selected line after it), CANN's order:
    dimension 1 varies fastest."""
    start, size, offsets = slices[0].start_index, 1, [0]
    for dim in range(1, len(slices)):
        s = slices[dim]
        size *= shape[dim - 1]
        start += size * s.start_index
        count = (s.end_index - s.start_index + 1 + s.stride) // (1 + s.stride)
        offsets = [o + k * (1 + s.stride) * size for k in range(count) for o in offsets]
    return start, offsets


@instruction("DataCopy(SliceInfo)", "data_copy", "move", cost="gm")
def copy_slices(core: Any, dst: Any, src: Any, dst_slices: Sequence[SliceInfo], src_slices: Sequence[SliceInfo],
                dim_value: int = 1) -> None:
    """Move the sliced sub-tensor of src into the slices of dst (GM -> UB or UB -> GM)."""
    api = "data_copy"
    same_type(dst, src, api)
    n = int(dim_value)
    if not 1 <= n <= MAX_DIMS:
        fail(api, f"dim_value must be 1..{MAX_DIMS}, got {n}")
    dsl, ssl = list(dst_slices), list(src_slices)
    if len(dsl) < n or len(ssl) < n or not all(isinstance(s, SliceInfo) for s in dsl[:n] + ssl[:n]):
        raise TypeError(f"asc.data_copy: the slice forms take {n} asc.SliceInfo per operand (dim_value={n})")
    dsl, ssl = dsl[:n], ssl[:n]
    to_ub = isinstance(dst, LocalTensor)
    if to_ub == isinstance(src, LocalTensor) or not isinstance(dst if not to_ub else src, GlobalTensor):
        fail(api, "the slice forms move GM -> UB or UB -> GM")
    if ssl[0].shape_value == 0:
        fail(api, "SliceInfo.shape_value is 0: aclsim takes each dimension's length from shape_value (tensor "
                  "shape information is not emulated)")
    isz = dst.dtype.itemsize
    burst, gap = int(ssl[0].burst_len), int(ssl[0].stride)
    for d in range(n):
        if dsl[d].burst_len != ssl[d].burst_len:
            fail(api, f"dst and src burst_len differ in dimension {d} ({dsl[d].burst_len} vs {ssl[d].burst_len})")
        if d and ssl[d].burst_len != 1:
            fail(api, f"burst_len must be 1 above dimension 0, got {ssl[d].burst_len} in dimension {d}")
    per_slice = burst * BLOCK // isz + gap
    total = ssl[0].end_index - ssl[0].start_index + 1 + gap
    if burst < 1 or total % per_slice:
        fail(api, f"dimension 0 of src ([{ssl[0].start_index}, {ssl[0].end_index}], stride {gap}) is not a whole "
                  f"number of bursts of {burst} x 32 bytes")
    ub = dsl if to_ub else ssl
    if ub[0].stride * isz % BLOCK:
        fail(api, f"the UB-side stride of {ub[0].stride} elements is not a multiple of 32 bytes")
    rows, width = total // per_slice, burst * BLOCK
    s_start, s_lines = _lines(ssl, [s.shape_value for s in ssl])
    d_start, d_lines = _lines(dsl, [s.shape_value for s in dsl])
    if len(d_lines) < len(s_lines):
        fail(api, f"dst slices select {len(d_lines)} lines but src slices {len(s_lines)}")
    s_pitch, d_pitch = width + gap * isz, width + dsl[0].stride * isz
    for so, do in zip(s_lines, d_lines, strict=False):  # one blocked DMA per selected line, as CANN issues them
        s, d = src[s_start + so], dst[d_start + do]
        if to_ub:
            local_rows(d, rows, width, d_pitch, api, False, "MTE2")[...] = gm_rows(core, s, rows, width, s_pitch, api, False)
        else:
            store(core, gm_rows(core, d, rows, width, d_pitch, api, True), local_rows(s, rows, width, s_pitch, api, True, "MTE3"),
                   d.dtype, api)

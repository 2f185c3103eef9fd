"""pyasc's `asc.adv.concat` / `asc.adv.extract`: the data preparation around `asc.sort` (pyasc `adv/sort.py`).

On Atlas A2/A3 Sort reads the scores themselves, so Concat makes `concat` hold the first
`16 * repeat_time` elements of `src` (inference: Ascend C takes `concat` by non-const reference there;
aclsim copies the elements rather than re-pointing the caller's tensor) and Extract splits
`32 * repeat_time` (score, index) records (64 float32 / 128 float16 elements per repeat) into values
and uint32 indices. On the Atlas inference AI Core Concat writes the scores into the score field of
region proposals (16 per repeat).
"""

from __future__ import annotations

import numpy as np

from ..faults import not_emulated
from ..memory.local import LocalTensor
from ..vector.sort import (
    RP16,
    SORT32,
    float_operands,
    index_operand,
    proposal_concat,
    proposal_layout,
    read_records,
    repeat_count,
    scores_of,
)


def concat(dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, repeat_time: int) -> None:
    """Prepare `16 * repeat_time` scores of src for asc.sort."""
    api = "concat"
    float_operands(api, dst, src, tmp)
    tmp.span(1, api)
    core = dst.buf.pool.core
    if proposal_layout(core):
        proposal_concat(core, dst, src, repeat_time, 4)
        return
    n = repeat_count(api, repeat_time) * RP16
    if n:
        values = src.read(n, api).copy()
        dst.write(n, api)[...] = values


def extract(dst_value: LocalTensor, dst_index: LocalTensor, src: LocalTensor, repeat_time: int) -> None:
    """Split `32 * repeat_time` sorted (score, index) records into their scores and uint32 indices."""
    api = "extract"
    dt = float_operands(api, dst_value, src)
    index_operand(api, dst_index)
    if proposal_layout(dst_value.buf.pool.core):
        raise not_emulated("asc.adv.extract on the region-proposal layout (Atlas inference AI Core)")
    n = repeat_count(api, repeat_time) * SORT32
    if n:
        recs = read_records(src, 0, n, False, api)
        dst_value.write(n, api)[...] = scores_of(recs, dt, False)
        dst_index.write(n, api)[...] = np.ascontiguousarray(recs[:, 4:]).view(np.uint32).ravel()

"""Sorting instructions: `sort32`, `sort`, `mrg_sort` (`MrgSortSrcList`, `MrgSort4Info`,
`get_mrg_sort_result`), `get_sort_len`/`get_sort_offset`, and the region-proposal instructions
`proposal_concat`, `proposal_extract`, `rp_sort16`, `mrg_sort4`.

Signatures: pyasc `basic/proposal.py`, `core/types.py` (MrgSort4Info), `core/tensor.py` (MrgSortSrcList).
Memory layouts (Ascend C Sort / Sort32 / RpSort16 pages), one record per sorted element:

- Atlas A2/A3 ("score-index pairs"): 8 bytes, the score in the low bytes (float32: bytes 0..3; float16:
  bytes 0..1 with bytes 2..3 reserved, written as 0 here) and the uint32 index in bytes 4..7.
- Atlas inference (310P, "region proposals"): 8 elements of T, `[x1, y1, x2, y2, score, label, r0, r1]`.

Sorting is by score, largest first; equal scores keep their input order ("if i > j, score[j] is selected
first"). Sort32, MrgSort and Sort's pair layout exist on A2/A3 only; RpSort16, MrgSort4,
ProposalConcat/Extract on the Atlas inference AI Core only: each refuses the other chips by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..aicore.core import Register
from ..faults import fail
from ..memory.local import LocalTensor
from ..table import instruction
from ..types.dtypes import DataType, as_dtype
from .lanes import gather, mark
from .repeat import MAX_REPEAT

PAIR_BYTES = 8  # one (score, index) record on A2/A3
PROPOSAL = 8  # elements of one region proposal on the Atlas inference AI Core
SCORE = 4  # the score's element in a region proposal
SORT32 = 32  # scores Sort32 sorts per repeat
RP16 = 16  # proposals RpSort16 / ProposalConcat / ProposalExtract handle per repeat
MAX_QUEUE = 4095  # elements of one MrgSort queue
FLOAT = ("float16", "float32")


class MrgSortResult(Register):
    """The records the last mrg_sort / mrg_sort4 of a core took from each of its four queues."""


def proposal_layout(core: Any) -> bool:
    """Whether the running chip stores sort records as region proposals (the coupled Atlas inference parts)
    rather than score-index pairs (A2/A3, whose AI Cores are split into AIC and AIV)."""
    return not core.chip.separated


def _only(core: Any, api: str, proposals: bool) -> None:
    """Refuse an instruction that exists only with the other record layout."""
    if proposal_layout(core) != proposals:
        chip = core.chip
        where = "the Atlas inference AI Core (region proposals)" if proposals else "Atlas A2/A3"
        fail(api, f"{api} does not exist on {chip.name} ({chip.family}); it is an instruction of {where} only")


def repeat_count(api: str, repeat_time: Any) -> int:
    r = int(repeat_time)
    if not 0 <= r <= MAX_REPEAT:
        fail(api, f"repeat_time must be in 0..{MAX_REPEAT}, got {r}")
    return r


def float_operands(api: str, *tensors: LocalTensor) -> DataType:
    dt = tensors[0].dtype
    for t in tensors:
        if not isinstance(t, LocalTensor):
            raise TypeError(f"asc.{api}: operands must be LocalTensors, got {type(t).__name__}")
        if t.dtype is not dt:
            fail(api, f"operands mix {dt.name} and {t.dtype.name}")
    if dt.name not in FLOAT:
        fail(api, f"{dt.name} is not supported (float16, float32)")
    return dt


def index_operand(api: str, t: LocalTensor) -> None:
    if not isinstance(t, LocalTensor) or t.dtype.name != "uint32":
        got = t.dtype.name if isinstance(t, LocalTensor) else type(t).__name__
        fail(api, f"the index operand must be a uint32 LocalTensor, got {got}")


def record_elems(dt: DataType, proposals: bool) -> int:
    """Elements of type dt one sort record occupies."""
    return PROPOSAL if proposals else PAIR_BYTES // dt.itemsize


def read_records(t: LocalTensor, first: int, n: int, proposals: bool, api: str) -> np.ndarray:
    """Records first..first+n of t as an (n, record bytes) uint8 copy, checked to be written."""
    k = record_elems(t.dtype, proposals)
    return t[first * k].read(n * k, api).view(np.uint8).reshape(n, -1).copy()


def _write(t: LocalTensor, first: int, recs: np.ndarray, api: str) -> None:
    k = recs.shape[1] // t.dtype.itemsize
    t[first * k].write(recs.shape[0] * k, api).view(np.uint8)[...] = recs.ravel()


def scores_of(recs: np.ndarray, dt: DataType, proposals: bool) -> np.ndarray:
    if proposals:
        return recs.view(dt.np)[:, SCORE]
    return np.ascontiguousarray(recs[:, : dt.itemsize]).view(dt.np).ravel()


def _descending(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Order putting the largest score first, equal scores in input order."""
    return np.argsort(-scores.astype(np.float64), axis=axis, kind="stable")


def _pairs(scores: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(n, 8) records of scores and uint32 indices."""
    recs = np.zeros((scores.size, PAIR_BYTES), np.uint8)
    recs[:, : scores.dtype.itemsize] = scores.view(np.uint8).reshape(scores.size, -1)
    recs[:, 4:] = index.astype(np.uint32).view(np.uint8).reshape(-1, 4)
    return recs


@instruction("Sort32", "sort32", "vector", "V", FLOAT)
def sort32(core: Any, dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, repeat_time: int) -> None:
    """Sort each group of 32 scores of src0 (with their uint32 indices in src1) into (score, index) records."""
    api = "sort32"
    _only(core, api, False)
    float_operands(api, dst, src0)
    index_operand(api, src1)
    r = repeat_count(api, repeat_time)
    if r == 0:
        return
    n = r * SORT32
    scores, index = src0.read(n, api).reshape(r, SORT32), src1.read(n, api).reshape(r, SORT32)
    order = _descending(scores)
    recs = _pairs(np.take_along_axis(scores, order, 1).ravel(), np.take_along_axis(index, order, 1).ravel())
    _write(dst, 0, recs, api)


@instruction("Sort", "sort", "vector", "V", FLOAT, note="A2/A3 (score, index) records; on 310P region proposals, "
             "index not read")
def sort(core: Any, dst: LocalTensor, concat: LocalTensor, index: LocalTensor, tmp: LocalTensor, repeat_time: int,
         is_full_sort: bool = False) -> None:
    """Sort scores, largest first: each group of 32 (A2/A3) or 16 region proposals (Atlas inference), or all
    `repeat_time` groups together with is_full_sort. On A2/A3 concat holds the scores and index their
    uint32 indices; on the Atlas inference AI Core concat holds region proposals (index is not read:
    inference, the proposal's label carries it)."""
    api = "sort"
    if is_full_sort not in (True, False):
        raise TypeError(f"asc.sort: is_full_sort must be True or False, got {is_full_sort!r}")
    dt = float_operands(api, dst, concat, tmp)
    tmp.span(1, api)  # scratch: live, aligned; its contents are the instruction's own
    r = repeat_count(api, repeat_time)
    if r == 0:
        return
    if proposal_layout(core):
        n = r * RP16
        recs = read_records(concat, 0, n, True, api)
        keys = scores_of(recs, dt, True)
        order = _descending(keys) if is_full_sort else (
            _descending(keys.reshape(r, RP16)) + np.arange(r)[:, None] * RP16).ravel()
        _write(dst, 0, recs[order], api)
        return
    index_operand(api, index)
    n = r * SORT32
    scores, idx = concat.read(n, api), index.read(n, api)
    groups = 1 if is_full_sort else r
    order = (_descending(scores.reshape(groups, -1)) + np.arange(groups)[:, None] * (n // groups)).ravel()
    _write(dst, 0, _pairs(scores[order], idx[order]), api)


@instruction("GetSortLen", "get_sort_len", "vector")
def get_sort_len(core: Any, elem_count: int) -> int:
    """Elements of float32 that `elem_count` sort records occupy (pyasc emits GetSortLen<float>)."""
    return int(elem_count) * record_elems(as_dtype("float32"), proposal_layout(core))


@instruction("GetSortOffset", "get_sort_offset", "vector")
def get_sort_offset(core: Any, elem_offset: int) -> int:
    """Offset, in float32 elements, of sort record `elem_offset` (pyasc emits GetSortOffset<float>)."""
    return int(elem_offset) * record_elems(as_dtype("float32"), proposal_layout(core))


# ------------------------------------------------------------------------------- merge sort
class MrgSortSrcList:
    """Two to four sorted queues for mrg_sort / mrg_sort4: `MrgSortSrcList([dtype,] src1, src2[, src3, src4])`."""

    __slots__ = ("srcs",)

    def __init__(self, *args: Any) -> None:
        if args and not isinstance(args[0], LocalTensor):
            as_dtype(args[0])  # pyasc's newer spelling names the element type first
            args = args[1:]
        srcs = [a for a in args if a is not None]
        if not 2 <= len(srcs) <= 4 or not all(isinstance(s, LocalTensor) for s in srcs):
            raise TypeError("asc.MrgSortSrcList([dtype,] src1, src2[, src3[, src4]]): two to four LocalTensors")
        self.srcs: list[LocalTensor] = srcs


@dataclass
class MrgSort4Info:
    """Queue lengths (records, 0..4095 each), stop when one queue runs out, valid-queue bits, repeats."""

    element_lengths: Sequence[int]
    if_exhausted_suspension: bool = False
    valid_bit: int = 15
    repeat_times: int = 1


_VALID = {0b11: 2, 0b111: 3, 0b1111: 4}  # valid_bit -> queues merged


def _merge(core: Any, api: str, dst: LocalTensor, sort_list: MrgSortSrcList, lengths: Sequence[int], valid_bit: int,
           repeat_time: int, suspend: bool) -> tuple[int, ...]:
    """Merge the valid queues into dst, repeat after repeat; the records consumed from each queue."""
    if not isinstance(sort_list, MrgSortSrcList):
        raise TypeError(f"asc.{api}: the sources must be an asc.MrgSortSrcList, got {type(sort_list).__name__}")
    if suspend not in (True, False):
        raise TypeError(f"asc.{api}: is_exhausted_suspension must be True or False, got {suspend!r}")
    q = _VALID.get(int(valid_bit))
    if q is None:
        fail(api, f"valid_bit must be 0b11, 0b111 or 0b1111 (2, 3 or 4 queues), got {valid_bit}")
    if q > len(sort_list.srcs):
        fail(api, f"valid_bit {valid_bit:#b} enables {q} queues but the MrgSortSrcList holds {len(sort_list.srcs)}")
    lens = [int(n) for n in list(lengths)[:q]]
    if len(lens) < q or any(not 0 <= n <= MAX_QUEUE for n in lens):
        fail(api, f"element counts {list(lengths)} must give 0..{MAX_QUEUE} records for each of the {q} queues")
    srcs = sort_list.srcs[:q]
    dt = float_operands(api, dst, *srcs)
    proposals = proposal_layout(core)
    rec = record_elems(dt, proposals) * dt.itemsize
    total = sum(lens)
    span = (repeat_time - 1) * total  # records each operand moves on over the repeats before its last
    for s, n in zip(srcs, lens, strict=True):  # "不支持源操作数与目的操作数之间存在地址重叠"
        if s.buf.pool is dst.buf.pool and s.lo < dst.lo + (span + total) * rec and dst.lo < s.lo + (span + n) * rec:
            fail(api, f"dst ({dst.buf.pool.name} offset {dst.lo}) overlaps a source queue (offset {s.lo}): "
                      "the instruction does not allow it")
    used = tuple(lens)
    for r in range(repeat_time):  # each repeat moves every queue and dst on by the four queues' total length
        recs = np.concatenate([read_records(s, r * total, n, proposals, api) for s, n in zip(srcs, lens, strict=True)])
        queue = np.repeat(np.arange(q), lens)
        # a stable sort of the concatenated queues: the hardware's merge when each queue is sorted, as the
        # instruction requires; equal scores go to the lower queue first
        order = _descending(scores_of(recs, dt, proposals))
        if suspend and total:
            last = [int(np.flatnonzero(queue[order] == k).max()) if n else -1 for k, n in enumerate(lens)]
            order = order[: min(last) + 1]
            used = tuple(int((queue[order] == k).sum()) for k in range(q))
        if order.size:
            _write(dst, r * total, recs[order], api)
    return used + (0,) * (4 - q)


@instruction("MrgSort", "mrg_sort", "vector", "V", FLOAT)
def mrg_sort(core: Any, dst: LocalTensor, sort_list: MrgSortSrcList, params: MrgSort4Info) -> tuple[int, ...]:
    """Merge 2-4 sorted queues of (score, index) records, largest score first; returns the records taken from each
    queue (also kept for get_mrg_sort_result)."""
    api = "mrg_sort"
    _only(core, api, False)
    used = core.state(MrgSortResult).value = _merge(core, api, dst, sort_list, params.element_lengths,
                                                    params.valid_bit, repeat_count(api, params.repeat_times),
                                                    params.if_exhausted_suspension)
    return used


@instruction("MrgSort4", "mrg_sort4", "vector", "V", FLOAT)
def mrg_sort4(core: Any, dst: LocalTensor, src: MrgSortSrcList, params: MrgSort4Info) -> None:
    """Merge up to 4 sorted region-proposal queues, largest score first (Atlas inference AI Core)."""
    api = "mrg_sort4"
    _only(core, api, True)
    core.state(MrgSortResult).value = _merge(core, api, dst, src, params.element_lengths, params.valid_bit,
                                             repeat_count(api, params.repeat_times), params.if_exhausted_suspension)


@instruction("GetMrgSortResult", "get_mrg_sort_result", "vector")
def get_mrg_sort_result(core: Any) -> tuple[int, int, int, int]:
    """Records the last mrg_sort / mrg_sort4 took from each of its four queues."""
    got = core.state(MrgSortResult).value
    if got is None:
        fail("get_mrg_sort_result", "no mrg_sort ran on this core yet: the result registers hold garbage")
    return got


# ------------------------------------------------------------------------------- region proposals
def _proposal_index(repeat_time: int, mode_number: Any, api: str) -> np.ndarray:
    mode = int(mode_number)
    if not 0 <= mode <= 5:
        fail(api, f"mode_number must be 0..5 (x1, y1, x2, y2, score, label), got {mode}")
    return np.arange(repeat_time * RP16) * PROPOSAL + mode


@instruction("ProposalConcat", "proposal_concat", "vector", "V", FLOAT)
def proposal_concat(core: Any, dst: LocalTensor, src: LocalTensor, repeat_time: int, mode_number: int) -> None:
    """Write 16 consecutive elements of src per repeat into field `mode_number` of 16 region proposals."""
    api = "proposal_concat"
    _only(core, api, True)
    float_operands(api, dst, src)
    r = repeat_count(api, repeat_time)
    if r:
        idx = _proposal_index(r, mode_number, api)
        values = src.read(idx.size, api).copy()
        mark(dst, idx, api)
        dst.arr[idx] = values


@instruction("ProposalExtract", "proposal_extract", "vector", "V", FLOAT)
def proposal_extract(core: Any, dst: LocalTensor, src: LocalTensor, repeat_time: int, mode_number: int) -> None:
    """Gather field `mode_number` of 16 region proposals per repeat into consecutive elements of dst."""
    api = "proposal_extract"
    _only(core, api, True)
    float_operands(api, dst, src)
    r = repeat_count(api, repeat_time)
    if r:
        idx = _proposal_index(r, mode_number, api)
        values = gather(src, idx, api)
        dst.write(idx.size, api)[...] = values


@instruction("RpSort16", "rp_sort16", "vector", "V", FLOAT)
def rp_sort16(core: Any, dst: LocalTensor, src: LocalTensor, repeat_time: int) -> None:
    """Sort each group of 16 region proposals by score, largest first (dst may be src)."""
    api = "rp_sort16"
    _only(core, api, True)
    dt = float_operands(api, dst, src)
    r = repeat_count(api, repeat_time)
    if r:
        recs = read_records(src, 0, r * RP16, True, api)
        order = (_descending(scores_of(recs, dt, True).reshape(r, RP16)) + np.arange(r)[:, None] * RP16).ravel()
        _write(dst, 0, recs[order], api)

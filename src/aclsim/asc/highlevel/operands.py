"""Operand rules shared by the high-level (`asc.adv`) vector APIs: types, element counts, the shared
temporary buffer and the "no overlap" constraint their Ascend C pages state.

Every high-level API page says "不支持源操作数与目的操作数地址重叠" (source and destination must not
overlap; softmax is the documented exception) and "不支持sharedTmpBuffer与源操作数和目的操作数地址重叠"
(the temporary buffer overlaps neither). The minimum temporary size is what the API's host helper
`GetXxxMaxMinTmpSize` returns as `minValue` (asc-devkit `impl/adv_api/tiling/`); a smaller buffer
trips the API's `CheckTmpBufferSize` assertion on the device, so it is refused here.
"""

from __future__ import annotations

from typing import Any

from ..faults import fail
from ..memory.local import LocalTensor
from ..types.dtypes import uint8


def tensor(api: str, name: str, t: Any) -> LocalTensor:
    """`t`, checked to be a LocalTensor."""
    if not isinstance(t, LocalTensor):
        raise TypeError(f"asc.{api}: {name} must be a LocalTensor, got {type(t).__name__}")
    return t


def of_types(api: str, t: LocalTensor, types: tuple[str, ...], name: str = "operands") -> None:
    if t.dtype.name not in types:
        fail(api, f"{name} of type {t.dtype.name} are not supported (supported: {', '.join(types)})")


def same_type(api: str, *ts: LocalTensor) -> None:
    for t in ts[1:]:
        if t.dtype is not ts[0].dtype:
            fail(api, f"operands mix {ts[0].dtype.name} and {t.dtype.name}: they must have one element type")


def count_of(api: str, count: Any, *ts: LocalTensor) -> int:
    """The element count: `count`, or when omitted the whole first tensor ("源操作数Tensor全部参与计算")."""
    n = ts[0].get_size() if count is None else int(count)
    if n < 0:
        fail(api, f"count must be >= 0, got {n}")
    return n


def _overlaps(a: LocalTensor, a_bytes: int, b: LocalTensor, b_bytes: int) -> bool:
    return a.buf.pool is b.buf.pool and a.lo < b.lo + b_bytes and b.lo < a.lo + a_bytes


def disjoint(api: str, dst: LocalTensor, n: int, *srcs: LocalTensor) -> None:
    """dst's first n elements overlap no source's first n elements."""
    for s in srcs:
        if _overlaps(dst, n * dst.dtype.itemsize, s, n * s.dtype.itemsize):
            fail(api, f"dst (UB offset {dst.lo}) overlaps a source (UB offset {s.lo}) over {n} elements: "
                      f"asc.{api} does not support overlapping source and destination")


def apart(api: str, *operands: tuple[str, LocalTensor, int]) -> None:
    """No two of the (name, tensor, bytes used) operands overlap."""
    for i, (na, a, ab) in enumerate(operands):
        for nb, b, bb in operands[i + 1:]:
            if _overlaps(a, ab, b, bb):
                fail(api, f"{na} (UB offset {a.lo}, {ab} bytes) and {nb} (UB offset {b.lo}, {bb} bytes) overlap: "
                          "the API would overwrite one with the other")


def prepare(api: str, dst: LocalTensor, srcs: tuple[LocalTensor, ...], count: Any, tmp: Any, need: int) -> int:
    """The element count of a call after the count, overlap and temporary-buffer checks."""
    n = count_of(api, count, srcs[0])
    for t in (dst, *srcs):
        t.bounds(n, api)  # live and large enough, before the overlap rule looks at the extents
    disjoint(api, dst, n, *srcs)
    check_temp(api, tmp, need, *((t, n * t.dtype.itemsize) for t in (dst, *srcs)))
    return n


def check_temp(api: str, tmp: Any, need: int, *operands: tuple[LocalTensor, int]) -> None:
    """Check a shared temporary buffer: a live uint8 UB tensor of at least `need` bytes that overlaps
    none of `operands` ((tensor, bytes used))."""
    if tmp is None:
        return  # the API framework's own reserved space
    t = tensor(api, "temp_buffer", tmp)
    if t.dtype is not uint8:
        fail(api, f"temp_buffer must be a uint8 LocalTensor (LocalTensor<uint8_t>), got {t.dtype.name}")
    if t.get_length() < need:
        fail(api, f"temp_buffer holds {t.get_length()} bytes but asc.{api} needs at least {need} "
                  f"(the minValue of its host helper {_tmp_size_helper(api)})")
    t.span(need // t.dtype.itemsize, api)
    if t.buf.pool.name != "UB":
        t.not_ub(api)
    size = t.get_length()
    for op, nbytes in operands:
        if _overlaps(t, size, op, nbytes):
            fail(api, f"temp_buffer (UB offset {t.lo}, {size} bytes) overlaps an operand (UB offset {op.lo}): "
                      "the shared temporary buffer must not overlap the source or destination")


# host helpers whose names do not follow Get<Name>MaxMinTmpSize (asc-devkit impl/adv_api/tiling/)
_HELPERS = {"softmax": "GetSoftMaxMinTmpSize", "quant": "GetAscendQuantMaxMinTmpSize", "rmsnorm": "GetRmsNormMaxMinTmpSize"}


def _tmp_size_helper(api: str) -> str:
    """The Ascend C host helper that gives `api`'s temporary-buffer sizes, e.g. adv.tanh -> GetTanhMaxMinTmpSize."""
    name = api.rsplit(".", 1)[-1]
    return _HELPERS.get(name) or "Get" + "".join(p.capitalize() for p in name.split("_")) + "MaxMinTmpSize"

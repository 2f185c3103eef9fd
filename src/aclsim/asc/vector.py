"""Vector instructions in count form ("the first n elements"), on numpy views of the UB.

Arithmetic stays in the tensor's dtype (float16 in, float16 out). Supported element types follow
the 910B `[AICoreintrinsicDtypeMap]` (reference `ascendc-device.md` §2.3): add/sub/mul/max/min and
the scalar forms take float16/float32/int16/int32; div, exp, ln, sqrt, rsqrt, reciprocal take
float16/float32. Operands must be live, written, 32-byte aligned and large enough; dst may
overlap a source only completely (in place). `count == 0` is a NOP, as on A2/A3.
Signatures: pyasc `basic/vec_binary.py`, `vec_binary_scalar.py`, `vec_unary`, `vec_reduce.py`,
`vec_cmpsel.py`, `vec_vconv.py` (cast).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import context as ctx
from .context import fail
from .dtypes import DataType, bfloat16
from .enums import CMPMODE, RoundMode, SelMode
from .tensors import LocalTensor

ARITH = ("float16", "float32", "int16", "int32")
FLOAT = ("float16", "float32")


def _only_count(api: str, rest: tuple) -> None:
    if rest:
        raise TypeError(f"asc.{api}: only the count form (..., count) is emulated, not the mask/repeat form")


def _check_types(api: str, types: tuple[str, ...], dt: DataType, *others: LocalTensor) -> None:
    for t in others:
        if t.dtype is not dt:
            fail(api, f"operands mix {dt.name} and {t.dtype.name}: convert one with asc.cast first")
    if dt.name not in types:
        chip = ctx.CORE.chip.name if ctx.CORE else "this chip"
        fail(api, f"{dt.name} is not supported on {chip} (supported: {', '.join(types)})"
                  + ("; cast bfloat16 to float32 first" if dt is bfloat16 else ""))


def _overlap(api: str, dst: LocalTensor, src: LocalTensor, count: int) -> None:
    """dst and src may be the same elements (in place) but must not partially overlap."""
    d, s = dst.lo, src.lo
    if d != s:
        n = count * dst.dtype.itemsize
        if d < s + n and s < d + n and dst.buf.pool is src.buf.pool:
            fail(api, f"dst (offset {d}) partially overlaps a source (offset {s}) over {count} elements: "
                      "the hardware allows only full (in-place) overlap")


def _binary(api: str, fn: Callable, types: tuple[str, ...], dst: LocalTensor, a: LocalTensor, b: LocalTensor,
            count: int) -> None:
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = dst.dtype
    if a.dtype is not dt or b.dtype is not dt or dt.name not in types:
        _check_types(api, types, dt, a, b)
    x = a.read(count, api)
    y = b.read(count, api)
    _overlap(api, dst, a, count)
    _overlap(api, dst, b, count)
    fn(x, y, out=dst.write(count, api))


def add(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = src0[i] + src1[i] for the first `count` elements."""
    _only_count("add", rest)
    _binary("add", np.add, ARITH, dst, src0, src1, count)


def sub(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = src0[i] - src1[i]."""
    _only_count("sub", rest)
    _binary("sub", np.subtract, ARITH, dst, src0, src1, count)


def mul(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = src0[i] * src1[i]."""
    _only_count("mul", rest)
    _binary("mul", np.multiply, ARITH, dst, src0, src1, count)


def div(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = src0[i] / src1[i] (float types)."""
    _only_count("div", rest)
    _binary("div", np.divide, FLOAT, dst, src0, src1, count)


def max(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = max(src0[i], src1[i])."""
    _only_count("max", rest)
    _binary("max", np.maximum, ARITH, dst, src0, src1, count)


def min(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = min(src0[i], src1[i])."""
    _only_count("min", rest)
    _binary("min", np.minimum, ARITH, dst, src0, src1, count)


def _scalar(api: str, fn: Callable, dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, rest: tuple) -> None:
    _only_count(api, rest)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = dst.dtype
    if src.dtype is not dt or dt.name not in ARITH:
        _check_types(api, ARITH, dt, src)
    x = src.read(count, api)
    _overlap(api, dst, src, count)
    fn(x, dt.np.type(scalar), out=dst.write(count, api))


def adds(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = src[i] + scalar."""
    _scalar("adds", np.add, dst, src, scalar, count, rest)


def muls(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = src[i] * scalar."""
    _scalar("muls", np.multiply, dst, src, scalar, count, rest)


def maxs(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = max(src[i], scalar)."""
    _scalar("maxs", np.maximum, dst, src, scalar, count, rest)


def mins(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = min(src[i], scalar)."""
    _scalar("mins", np.minimum, dst, src, scalar, count, rest)


def _leaky(x: np.ndarray, alpha: Any, out: np.ndarray) -> None:
    np.copyto(out, np.where(x >= 0, x, x * alpha))


def leaky_relu(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = src[i] if src[i] >= 0 else src[i] * scalar."""
    _scalar("leaky_relu", _leaky, dst, src, scalar, count, rest)


def axpy(dst: LocalTensor, src: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = src[i] * scalar + dst[i] (computed in the tensors' type; the NPU may fuse it differently)."""
    api = "axpy"
    _only_count(api, rest)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = dst.dtype
    if src.dtype is not dt or dt.name not in FLOAT:
        _check_types(api, FLOAT, dt, src)
    x = src.read(count, api)
    acc = dst.read(count, api)
    _overlap(api, dst, src, count)
    np.add(x * dt.np.type(scalar), acc, out=dst.write(count, api))


def _rsqrt(x: np.ndarray, out: np.ndarray) -> None:
    np.sqrt(x, out=out)
    np.reciprocal(out, out=out)


def _relu(x: np.ndarray, out: np.ndarray) -> None:
    np.maximum(x, 0, out=out)


def _unary(api: str, fn: Callable, types: tuple[str, ...], dst: LocalTensor, src: LocalTensor, count: int,
           rest: tuple) -> None:
    _only_count(api, rest)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = dst.dtype
    if src.dtype is not dt or dt.name not in types:
        _check_types(api, types, dt, src)
    x = src.read(count, api)
    _overlap(api, dst, src, count)
    fn(x, out=dst.write(count, api))


def exp(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = e ** src[i]."""
    _unary("exp", np.exp, FLOAT, dst, src, count, rest)


def ln(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = log(src[i])."""
    _unary("ln", np.log, FLOAT, dst, src, count, rest)


def abs(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = |src[i]|."""
    _unary("abs", np.absolute, FLOAT, dst, src, count, rest)


def relu(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = max(src[i], 0)."""
    _unary("relu", _relu, ("float16", "float32", "int32"), dst, src, count, rest)


def sqrt(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = sqrt(src[i])."""
    _unary("sqrt", np.sqrt, FLOAT, dst, src, count, rest)


def rsqrt(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = 1 / sqrt(src[i])."""
    _unary("rsqrt", _rsqrt, FLOAT, dst, src, count, rest)


def reciprocal(dst: LocalTensor, src: LocalTensor, count: int, *rest: Any) -> None:
    """dst[i] = 1 / src[i]."""
    _unary("reciprocal", np.reciprocal, FLOAT, dst, src, count, rest)


def duplicate(dst: LocalTensor, scalar: Any, count: int, *rest: Any) -> None:
    """dst[i] = scalar for the first `count` elements."""
    api = "duplicate"
    _only_count(api, rest)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = dst.dtype
    types = ("float16", "float32", "bfloat16", "int16", "int32", "uint16", "uint32")
    if dt.name not in types:
        _check_types(api, types, dt)
    value = _to_bf16(np.array([scalar], np.float32), RoundMode.CAST_RINT)[0] if dt is bfloat16 else scalar
    dst.write(count, api)[...] = value


# ------------------------------------------------------------------------------- cast
def _pick(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, mode: RoundMode, odd_hi: np.ndarray) -> np.ndarray:
    """Choose between the neighbours lo <= x <= hi (float64 arrays) by rounding mode."""
    if mode == RoundMode.CAST_FLOOR:
        return lo
    if mode == RoundMode.CAST_CEIL:
        return hi
    if mode == RoundMode.CAST_TRUNC:
        return np.where(x < 0, hi, lo)
    if mode == RoundMode.CAST_ODD:
        return np.where(lo == hi, lo, np.where(odd_hi, hi, lo))
    dlo, dhi = x - lo, hi - x
    if mode == RoundMode.CAST_ROUND:  # nearest, ties away from zero
        return np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(x < 0, lo, hi)))
    raise AssertionError(mode)


def _to_f16(x: np.ndarray, mode: RoundMode) -> np.ndarray:
    near = x.astype(np.float16)
    if mode in (RoundMode.CAST_NONE, RoundMode.CAST_RINT):
        return near
    xd = x.astype(np.float64)
    nd = near.astype(np.float64)
    lo = np.where(nd > xd, np.nextafter(near, np.float16(-np.inf)), near)
    hi = np.where(nd < xd, np.nextafter(near, np.float16(np.inf)), near)
    odd_hi = (hi.view(np.uint16) & 1).astype(bool)
    return _pick(xd, lo.astype(np.float64), hi.astype(np.float64), mode, odd_hi).astype(np.float16)


def _to_bf16(x: np.ndarray, mode: RoundMode) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16) with the given rounding."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    if mode in (RoundMode.CAST_NONE, RoundMode.CAST_RINT):
        nan = (u & 0x7FFFFFFF) > 0x7F800000
        r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        return np.where(nan, (u >> 16).astype(np.uint16) | 0x40, r)
    t = u & 0xFFFF0000  # truncated toward zero
    exact = t == u
    away = np.where(exact, t, t + 0x10000)  # next magnitude up, same sign
    neg = (u >> 31).astype(bool)
    lo_bits = np.where(neg, away, t)
    hi_bits = np.where(neg, t, away)
    f = u.view(np.float32).astype(np.float64)
    lo, hi = lo_bits.view(np.float32).astype(np.float64), hi_bits.view(np.float32).astype(np.float64)
    odd_hi = ((hi_bits >> 16) & 1).astype(bool)
    chosen = _pick(f, lo, hi, mode, odd_hi).astype(np.float32)
    return (chosen.view(np.uint32) >> 16).astype(np.uint16)


_INT_ROUND = {
    RoundMode.CAST_NONE: np.rint, RoundMode.CAST_RINT: np.rint, RoundMode.CAST_FLOOR: np.floor,
    RoundMode.CAST_CEIL: np.ceil, RoundMode.CAST_TRUNC: np.trunc,
    RoundMode.CAST_ROUND: lambda v: np.trunc(v + np.copysign(0.5, v)),
}


def cast(dst: LocalTensor, src: LocalTensor, round_mode: int, count: int, *rest: Any) -> None:
    """Convert the first `count` elements of `src` into `dst`'s type, rounding by `round_mode`.

    CAST_NONE rounds to nearest even when precision is lost; float -> integer saturates (inference:
    the vector unit's conversions saturate rather than wrap); CAST_ODD applies to float narrowing.
    """
    api = "cast"
    _only_count(api, rest)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    mode = RoundMode(round_mode)
    sd, dd = src.dtype, dst.dtype
    raw = src.read(count, api)
    x = raw.view(np.uint16).astype(np.uint32) << 16 if sd is bfloat16 else raw
    if sd is bfloat16:
        x = x.view(np.float32)
    out = dst.write(count, api)
    if dd is bfloat16:
        out[...] = _to_bf16(x, mode)
    elif dd.name == "float16" and x.dtype.itemsize > 2 and (x.dtype.kind == "f"):
        out[...] = _to_f16(x, mode)
    elif dd.is_float:
        out[...] = x
    elif x.dtype.kind == "f":
        if mode == RoundMode.CAST_ODD:
            fail(api, "CAST_ODD applies to float narrowing only")
        info = np.iinfo(dd.np)
        out[...] = np.clip(_INT_ROUND[mode](x.astype(np.float64)), info.min, info.max)
    else:
        info = np.iinfo(dd.np)
        out[...] = np.clip(x.astype(np.int64), info.min, info.max)


# ------------------------------------------------------------------------------- reductions
def _reduce(api: str, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, count: int, cal_index: bool,
            rest: tuple) -> None:
    _only_count(api, rest)
    if count <= 0:
        if count < 0:
            fail(api, f"count must be >= 0, got {count}")
        return
    dt = src.dtype
    _check_types(api, FLOAT, dt, dst)
    if not isinstance(tmp, LocalTensor):
        raise TypeError(f"asc.{api}(dst, src, shared_tmp_buffer, count): shared_tmp_buffer must be a LocalTensor")
    tmp.span(1, api)  # the work buffer must be live and aligned; its contents are scratch
    x = src.read(count, api)
    if api == "reduce_sum":
        dst.write(1, api)[0] = x.sum(dtype=dt.np)
        return
    i = int(x.argmax() if api == "reduce_max" else x.argmin())
    out = dst.write(2 if cal_index else 1, api)
    out[0] = x[i]
    if cal_index:  # the index is stored in the second element's bits; reinterpret_cast to read it
        out[1:2].view(np.uint16 if dt.itemsize == 2 else np.uint32)[0] = i


def reduce_sum(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, count: int, *rest: Any) -> None:
    """dst[0] = sum of the first `count` elements of src."""
    _reduce("reduce_sum", dst, src, shared_tmp_buffer, count, False, rest)


def reduce_max(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, count: int, *rest: Any,
               cal_index: bool = False) -> None:
    """dst[0] = max of the first `count` elements (dst[1] = its index with cal_index)."""
    _reduce("reduce_max", dst, src, shared_tmp_buffer, count, cal_index, rest)


def reduce_min(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, count: int, *rest: Any,
               cal_index: bool = False) -> None:
    """dst[0] = min of the first `count` elements (dst[1] = its index with cal_index)."""
    _reduce("reduce_min", dst, src, shared_tmp_buffer, count, cal_index, rest)


# ------------------------------------------------------------------------------- compare / select
_CMP = {CMPMODE.LT: np.less, CMPMODE.GT: np.greater, CMPMODE.EQ: np.equal, CMPMODE.LE: np.less_equal,
        CMPMODE.GE: np.greater_equal, CMPMODE.NE: np.not_equal}


def _store_bits(api: str, dst: LocalTensor, bits: np.ndarray) -> None:
    if dst.dtype.itemsize != 1:
        fail(api, f"dst must be uint8/int8 (one bit per element), got {dst.dtype.name}")
    packed = np.packbits(bits, bitorder="little")
    dst.write(packed.size, api)[...] = packed.view(dst.dtype.np)


def compare(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, cmp_mode: int, count: int, *rest: Any) -> None:
    """Bit i of dst (LSB first) = src0[i] <cmp_mode> src1[i]."""
    api = "compare"
    _only_count(api, rest)
    if count <= 0:
        return
    _check_types(api, ARITH, src0.dtype, src1)
    _store_bits(api, dst, _CMP[CMPMODE(cmp_mode)](src0.read(count, api), src1.read(count, api)))


def compare_scalar(dst: LocalTensor, src0: LocalTensor, src1_scalar: Any, cmp_mode: int, count: int,
                   *rest: Any) -> None:
    """Bit i of dst = src0[i] <cmp_mode> scalar."""
    api = "compare_scalar"
    _only_count(api, rest)
    if count <= 0:
        return
    _check_types(api, ARITH, src0.dtype)
    x = src0.read(count, api)
    _store_bits(api, dst, _CMP[CMPMODE(cmp_mode)](x, x.dtype.type(src1_scalar)))


def select(dst: LocalTensor, sel_mask: LocalTensor, src0: LocalTensor, src1: Any, sel_mode: int, count: int,
           *rest: Any) -> None:
    """dst[i] = src0[i] where bit i of sel_mask is 1, else src1[i] (or the scalar src1 in
    VSEL_TENSOR_SCALAR_MODE)."""
    api = "select"
    _only_count(api, rest)
    if count <= 0:
        return
    mode = SelMode(sel_mode)
    dt = dst.dtype
    if mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
        _check_types(api, FLOAT, dt, src0)
        other: Any = dt.np.type(src1)
    else:
        _check_types(api, FLOAT, dt, src0, src1)
        other = src1.read(count, api)
    nbytes = -(-count // 8)
    bits = np.unpackbits(sel_mask.reinterpret_cast(np.uint8).read(nbytes, api), count=count, bitorder="little")
    a = src0.read(count, api)
    np.copyto(dst.write(count, api), np.where(bits.astype(bool), a, other))

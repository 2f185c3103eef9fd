"""Vector instructions on numpy views of the UB, in count form ("the first n elements") and, for
element-wise instructions, `copy` and `brcb`, in mask/repeat form (`repeat.py`).

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
from . import masked
from .bf16 import round_bits
from .context import fail
from .coverage import not_emulated
from .dtypes import DataType, bfloat16
from .enums import CMPMODE, RoundMode, SelMode
from .params import BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams, UnaryRepeatParams
from .repeat import Repeat, cached, elementwise, form, gather, mark, repeat_of
from .tensors import LocalTensor

ARITH = ("float16", "float32", "int16", "int32")
FLOAT = ("float16", "float32")
BITS16 = ("int16", "uint16")
SHIFT = ("int16", "uint16", "int32", "uint32")
B16_32 = ("float16", "float32", "int16", "uint16", "int32", "uint32")


def check_types(api: str, types: tuple[str, ...], dt: DataType, *others: LocalTensor) -> None:
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


def _run(api: str, fn: Callable, types: tuple[str, ...], dst: LocalTensor, srcs: tuple[LocalTensor, ...],
         args: tuple, kwargs: dict, params: type | None = UnaryRepeatParams) -> None:
    """Both call forms of an element-wise instruction: `fn(*source values, out=destination values)`."""
    if len(args) == 3 and not kwargs and type(args[2]) is params:  # (mask, repeat_times, params): plans are cached
        dt = dst.dtype
        if dt.name not in types:
            check_types(api, types, dt, *srcs)
        for s in srcs:  # (a loop: a third of any()'s generator cost)
            if s.dtype is not dt:
                check_types(api, types, dt, *srcs)
        if cached(api, fn, dst, srcs, *args):
            return
    n = form(api, args, kwargs, params)
    if n is None:
        return
    dt = dst.dtype
    if dt.name not in types or any(s.dtype is not dt for s in srcs):
        check_types(api, types, dt, *srcs)
    if type(n) is Repeat:
        elementwise(api, fn, dst, srcs, n)
        return
    xs = [s.read(n, api) for s in srcs]
    for s in srcs:
        _overlap(api, dst, s, n)
    fn(*xs, out=dst.write(n, api))


def _binary(api: str, fn: Callable, types: tuple[str, ...], dst: LocalTensor, a: LocalTensor, b: LocalTensor,
            args: tuple, kwargs: dict) -> None:
    n = len(args)
    if n == 1 and not kwargs and args[0] > 0:  # the count form inlined: the hottest path
        count = args[0]
        dt = dst.dtype
        if a.dtype is not dt or b.dtype is not dt or dt.name not in types:
            check_types(api, types, dt, a, b)
        x = a.read(count, api)
        y = b.read(count, api)
        _overlap(api, dst, a, count)
        _overlap(api, dst, b, count)
        fn(x, y, out=dst.write(count, api))
        return
    if n == 3 and not kwargs and type(args[2]) is BinaryRepeatParams:  # `_run`'s first step, inlined
        dt = dst.dtype
        if a.dtype is not dt or b.dtype is not dt or dt.name not in types:
            check_types(api, types, dt, a, b)
        if cached(api, fn, dst, (a, b), args[0], args[1], args[2]):
            return
    _run(api, fn, types, dst, (a, b), args, kwargs, BinaryRepeatParams)


def add(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] + src1[i]; `(count[, is_set_mask])` or `(mask, repeat_times, repeat_params[, is_set_mask])`."""
    _binary("add", np.add, ARITH, dst, src0, src1, args, kwargs)


def sub(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] - src1[i]."""
    _binary("sub", np.subtract, ARITH, dst, src0, src1, args, kwargs)


def mul(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] * src1[i]."""
    _binary("mul", np.multiply, ARITH, dst, src0, src1, args, kwargs)


def div(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] / src1[i] (float types)."""
    _binary("div", np.divide, FLOAT, dst, src0, src1, args, kwargs)


def max(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = max(src0[i], src1[i])."""
    _binary("max", np.maximum, ARITH, dst, src0, src1, args, kwargs)


def min(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = min(src0[i], src1[i])."""
    _binary("min", np.minimum, ARITH, dst, src0, src1, args, kwargs)


def bitwise_and(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] & src1[i] (int16/uint16)."""
    _binary("bitwise_and", np.bitwise_and, BITS16, dst, src0, src1, args, kwargs)


def bitwise_or(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] | src1[i] (int16/uint16)."""
    _binary("bitwise_or", np.bitwise_or, BITS16, dst, src0, src1, args, kwargs)


def _then_relu(fn: Callable) -> Callable:
    def op(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
        fn(x, y, out=out)
        np.maximum(out, 0, out=out)
    return op


_add_relu, _sub_relu = _then_relu(np.add), _then_relu(np.subtract)


def add_relu(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = max(src0[i] + src1[i], 0)."""
    _binary("add_relu", _add_relu, ("float16", "float32", "int16"), dst, src0, src1, args, kwargs)


def sub_relu(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = max(src0[i] - src1[i], 0)."""
    _binary("sub_relu", _sub_relu, ("float16", "float32", "int16"), dst, src0, src1, args, kwargs)


def _mul_add(x: np.ndarray, y: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
    np.add(x * y, acc, out=out)


def _fma_relu(x: np.ndarray, y: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
    np.add(x * y, acc, out=out)
    np.maximum(out, 0, out=out)


def _ternary(api: str, fn: Callable, dst: LocalTensor, a: LocalTensor, b: LocalTensor, c: LocalTensor,
             args: tuple, kwargs: dict) -> None:
    """An instruction that also reads its destination; params are BinaryRepeatParams (dst, src0, src1)."""
    n = form(api, args, kwargs, BinaryRepeatParams)
    if n is None:
        return
    dt = dst.dtype
    check_types(api, FLOAT, dt, a, b)
    if type(n) is Repeat:
        (ds, s0, s1) = n.strides
        strides = {id(dst): ds, id(a): s0, id(b): s1}
        n.strides = [ds] + [strides[id(t)] for t in (a, b, c)]
        elementwise(api, fn, dst, (a, b, c), n)
        return
    x, y, z = a.read(n, api), b.read(n, api), c.read(n, api)
    _overlap(api, dst, a, n)
    _overlap(api, dst, b, n)
    fn(x, y, z, out=dst.write(n, api))


def mul_add_dst(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] * src1[i] + dst[i]."""
    _ternary("mul_add_dst", _mul_add, dst, src0, src1, dst, args, kwargs)


def fused_mul_add(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src0[i] * dst[i] + src1[i]."""
    _ternary("fused_mul_add", _mul_add, dst, src0, dst, src1, args, kwargs)


def fused_mul_add_relu(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = max(src0[i] * dst[i] + src1[i], 0)."""
    _ternary("fused_mul_add_relu", _fma_relu, dst, src0, dst, src1, args, kwargs)


def _scalar(api: str, fn: Callable, types: tuple[str, ...], dst: LocalTensor, src: LocalTensor, scalar: Any,
            args: tuple, kwargs: dict) -> None:
    value = dst.dtype.np.type(scalar)

    def op(x: np.ndarray, out: np.ndarray) -> None:
        fn(x, value, out=out)

    _run(api, op, types, dst, (src,), args, kwargs)


def adds(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src[i] + scalar."""
    _scalar("adds", np.add, ARITH, dst, src, scalar, args, kwargs)


def muls(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src[i] * scalar."""
    _scalar("muls", np.multiply, ARITH, dst, src, scalar, args, kwargs)


def maxs(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = max(src[i], scalar)."""
    _scalar("maxs", np.maximum, ARITH, dst, src, scalar, args, kwargs)


def mins(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = min(src[i], scalar)."""
    _scalar("mins", np.minimum, ARITH, dst, src, scalar, args, kwargs)


def _leaky(x: np.ndarray, alpha: Any, out: np.ndarray) -> None:
    np.copyto(out, np.where(x >= 0, x, x * alpha))


def leaky_relu(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src[i] if src[i] >= 0 else src[i] * scalar."""
    _scalar("leaky_relu", _leaky, FLOAT, dst, src, scalar, args, kwargs)


def shift_left(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src[i] << scalar."""
    _scalar("shift_left", np.left_shift, SHIFT, dst, src, scalar, args, kwargs)


def shift_right(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src[i] >> scalar (arithmetic for signed types)."""
    _scalar("shift_right", np.right_shift, SHIFT, dst, src, scalar, args, kwargs)


def axpy(dst: LocalTensor, src: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = src[i] * scalar + dst[i] (computed in the tensors' type; the NPU may fuse it differently)."""
    value = dst.dtype.np.type(scalar)

    def op(x: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
        np.add(x * value, acc, out=out)

    n = form("axpy", args, kwargs, UnaryRepeatParams)
    if type(n) is Repeat:
        n.strides = [n.strides[0], n.strides[1], n.strides[0]]  # the accumulator is dst itself
        check_types("axpy", FLOAT, dst.dtype, src)
        elementwise("axpy", op, dst, (src, dst), n)
    elif n is not None:
        _run("axpy", op, FLOAT, dst, (src, dst), (n,), {})


def _rsqrt(x: np.ndarray, out: np.ndarray) -> None:
    np.sqrt(x, out=out)
    np.reciprocal(out, out=out)


def _relu(x: np.ndarray, out: np.ndarray) -> None:
    np.maximum(x, 0, out=out)


def exp(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = e ** src[i]."""
    _run("exp", np.exp, FLOAT, dst, (src,), args, kwargs)


def ln(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = log(src[i])."""
    _run("ln", np.log, FLOAT, dst, (src,), args, kwargs)


def abs(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = |src[i]|."""
    _run("abs", np.absolute, FLOAT, dst, (src,), args, kwargs)


def relu(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = max(src[i], 0)."""
    _run("relu", _relu, ("float16", "float32", "int32"), dst, (src,), args, kwargs)


def sqrt(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = sqrt(src[i])."""
    _run("sqrt", np.sqrt, FLOAT, dst, (src,), args, kwargs)


def rsqrt(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = 1 / sqrt(src[i])."""
    _run("rsqrt", _rsqrt, FLOAT, dst, (src,), args, kwargs)


def reciprocal(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = 1 / src[i]."""
    _run("reciprocal", np.reciprocal, FLOAT, dst, (src,), args, kwargs)


def bitwise_not(dst: LocalTensor, src: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """dst[i] = ~src[i] (int16/uint16)."""
    _run("bitwise_not", np.invert, BITS16, dst, (src,), args, kwargs)


def _copy(x: np.ndarray, out: np.ndarray) -> None:
    np.copyto(out, x)


def copy(dst: LocalTensor, src: LocalTensor, mask: Any, repeat_time: int, repeat_params: CopyRepeatParams,
         is_set_mask: bool = True) -> None:
    """UB -> UB copy in mask/repeat form (16- and 32-bit types). In COUNTER mask mode the mask counts
    elements per repeat and repeat_time applies (pyasc `copy.md`)."""
    api = "copy"
    if not isinstance(repeat_params, CopyRepeatParams):
        raise TypeError(f"asc.copy: repeat_params must be asc.CopyRepeatParams, got {type(repeat_params).__name__}")
    check_types(api, B16_32, dst.dtype, src)
    rep = repeat_of(api, mask, repeat_time, repeat_params.strides(), is_set_mask)
    elementwise(api, _copy, dst, (src,), rep, per_repeat_count=True)


def brcb(dst: LocalTensor, src0: LocalTensor, repeat_times: int, repeat_params: BrcbRepeatParams) -> None:
    """Each repeat takes 8 elements of src0 and fills one 32-byte block of dst with each."""
    api = "brcb"
    if not isinstance(repeat_params, BrcbRepeatParams):
        raise TypeError(f"asc.brcb: repeat_params must be asc.BrcbRepeatParams, got {type(repeat_params).__name__}")
    check_types(api, ("float16", "float32", "int16", "uint16", "int32", "uint32"), dst.dtype, src0)
    rep = repeat_of(api, 0, repeat_times, [(repeat_params.dst_blk_stride, repeat_params.dst_rep_stride)], True)
    if rep.times == 0:
        return
    if dst.buf.pool is src0.buf.pool and dst.lo == src0.lo:
        fail(api, "src0 and dst must not be the same memory")
    epb = 32 // dst.dtype.itemsize
    blk, stride = rep.strides[0]
    r, b, e = np.ogrid[: rep.times, :8, :epb]
    di = (r * stride * epb + b * blk * epb + e).ravel()
    values = gather(src0, np.arange(rep.times * 8), api)
    mark(dst, di, api)
    dst.arr[di] = np.repeat(values, epb)


def duplicate(dst: LocalTensor, scalar: Any, *args: Any, **kwargs: Any) -> None:
    """dst[i] = scalar; `(count)` or `(mask, repeat_times, dst_block_stride, dst_repeat_stride[, is_set_mask])`."""
    api = "duplicate"
    n = form(api, args, kwargs, None)
    if n is None:
        return
    dt = dst.dtype
    types = ("float16", "float32", "bfloat16", "int16", "int32", "uint16", "uint32")
    if dt.name not in types:
        check_types(api, types, dt)
    value = _to_bf16(np.array([scalar], np.float32), RoundMode.CAST_RINT)[0] if dt is bfloat16 else scalar

    def fill(out: np.ndarray) -> None:
        out[...] = value

    if type(n) is Repeat:
        elementwise(api, fill, dst, (), n)
    else:
        fill(dst.write(n, api))


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


def to_f16(x: np.ndarray, mode: RoundMode) -> np.ndarray:
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
    if mode in (RoundMode.CAST_NONE, RoundMode.CAST_RINT):
        return round_bits(x)
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
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


def to_int(x: np.ndarray, dt: np.dtype, mode: RoundMode) -> np.ndarray:
    """Numbers -> integer type `dt`, rounded as `mode` says and saturated to its range (the vector unit's,
    the scalar unit's and the converting instructions' float -> integer casts)."""
    info = np.iinfo(dt)
    return np.clip(_INT_ROUND[mode](x.astype(np.float64)), info.min, info.max).astype(dt)


_ROUNDING = frozenset({RoundMode.CAST_RINT, RoundMode.CAST_FLOOR, RoundMode.CAST_CEIL, RoundMode.CAST_ROUND,
                       RoundMode.CAST_TRUNC})
_NONE = frozenset({RoundMode.CAST_NONE})
_NO_ODD = _ROUNDING | _NONE
# (src, dst) -> the round modes A2/A3 convert with: CANN's CastIntrinsicsImpl overloads and CheckCastDatatype
# (`impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h`); any other pair or mode is refused there.
A2_CASTS: dict[tuple[str, str], frozenset[RoundMode]] = {
    ("float16", "int32"): _ROUNDING, ("float16", "int16"): _ROUNDING, ("float16", "float32"): _NONE,
    ("float16", "int8"): _NO_ODD, ("float16", "uint8"): _NO_ODD,
    ("float32", "float32"): _ROUNDING, ("float32", "int32"): _ROUNDING, ("float32", "float16"): frozenset(RoundMode),
    ("float32", "int64"): _ROUNDING, ("float32", "int16"): _ROUNDING, ("float32", "bfloat16"): _ROUNDING,
    ("bfloat16", "float32"): _NONE, ("bfloat16", "int32"): _ROUNDING,
    ("uint8", "float16"): _NONE, ("int8", "float16"): _NONE, ("int16", "float16"): _NO_ODD, ("int16", "float32"): _NONE,
    ("int32", "float32"): _NO_ODD, ("int32", "int16"): _NONE, ("int32", "int64"): _NONE,
    ("int32", "float16"): frozenset(RoundMode),  # vconv_deq: the mode is not used
    ("int64", "int32"): _NONE, ("int64", "float32"): _ROUNDING,
}


def _cast_supported(api: str, sd: DataType, dd: DataType, mode: RoundMode) -> None:
    chip = ctx.current(api).chip
    if not chip.separated:
        return  # the Atlas inference (310P) conversion table is not modeled: every pair converts
    modes = A2_CASTS.get((sd.name, dd.name))
    if modes is None:
        fail(api, f"{sd.name} -> {dd.name} is not a conversion {chip.name} has")
    if mode not in modes:
        fail(api, f"{sd.name} -> {dd.name} does not take RoundMode.{mode.name} on {chip.name} (it takes "
                  f"{', '.join(m.name for m in sorted(modes))})")


def cast(dst: LocalTensor, src: LocalTensor, round_mode: int, *args: Any, **kwargs: Any) -> None:
    """Convert `src` into `dst`'s type, rounding by `round_mode`: `(count)` or `(mask, repeat_times,
    UnaryRepeatParams[, is_set_mask])` (masked.py).

    CAST_NONE rounds to nearest even when precision is lost; float -> integer saturates (inference:
    the vector unit's conversions saturate rather than wrap); CAST_ODD applies to float narrowing.
    """
    api = "cast"
    n = form(api, args, kwargs, UnaryRepeatParams)
    if n is None:
        return
    mode = RoundMode(round_mode)
    sd, dd = src.dtype, dst.dtype
    _cast_supported(api, sd, dd, mode)
    if dd.is_float is False and sd.is_float and mode == RoundMode.CAST_ODD:
        fail(api, "CAST_ODD applies to float narrowing only")

    def convert(raw: np.ndarray) -> np.ndarray:
        x = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32) if sd is bfloat16 else raw
        if dd is bfloat16:
            return _to_bf16(x, mode)
        if dd.name == "float16" and x.dtype.itemsize > 2 and x.dtype.kind == "f":
            return to_f16(x, mode)
        if dd is sd and dd.is_float:  # float32 -> float32: round to an integral value (vconv_f322f32r/f/c/a/z)
            return _INT_ROUND[mode](x.astype(np.float64)).astype(dd.np)
        if dd.is_float:
            return x.astype(dd.np)
        if x.dtype.kind == "f":
            return to_int(x, dd.np, mode)
        info = np.iinfo(dd.np)
        return np.clip(x.astype(np.int64), info.min, info.max).astype(dd.np)

    if type(n) is Repeat:
        masked.cast(api, dst, src, n, convert)
        return
    out = convert(src.read(n, api))
    dst.write(n, api)[...] = out


# ------------------------------------------------------------------------------- compare / select
_CMP = {CMPMODE.LT: np.less, CMPMODE.GT: np.greater, CMPMODE.EQ: np.equal, CMPMODE.LE: np.less_equal,
        CMPMODE.GE: np.greater_equal, CMPMODE.NE: np.not_equal}


def _compare(api: str, dst: LocalTensor, srcs: tuple[LocalTensor, ...], cmp_mode: int, n: int | Repeat,
             fn: Callable) -> None:
    """Both forms of compare/compare_scalar (CANN `kernel_operator_vec_cmp_impl.h`, dav_c220): int32 compares
    for EQ only; the count form compares whole 256-byte repeats, so the count must fill them."""
    mode = CMPMODE(cmp_mode)
    dt = srcs[0].dtype
    if dt.name == "int32" and mode != CMPMODE.EQ:
        fail(api, f"int32 operands compare with CMPMODE.EQ only, got CMPMODE.{mode.name}")
    if dst.dtype.itemsize != 1:
        fail(api, f"dst must be uint8/int8 (one bit per element), got {dst.dtype.name}")
    if type(n) is Repeat:
        masked.compare(api, dst, srcs, n, fn)
        return
    if n * dt.itemsize % 256:
        fail(api, f"{n} x {dt.name} = {n * dt.itemsize} bytes is not a multiple of 256: the count form compares "
                  "whole repeats of 256 bytes and would leave the tail uncompared")
    packed = np.packbits(fn(*[t.read(n, api) for t in srcs]), bitorder="little")
    dst.write(packed.size, api)[...] = packed.view(dst.dtype.np)


def compare(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, cmp_mode: int, *args: Any, **kwargs: Any) -> None:
    """Bit i of dst (LSB first) = src0[i] <cmp_mode> src1[i]."""
    api = "compare"
    if not isinstance(src1, LocalTensor):  # compare(src0, src1, cmp_mode, mask, repeat_params)
        raise not_emulated("asc.compare into the cmpMask register")
    n = form(api, args, kwargs, BinaryRepeatParams)
    if n is None:
        return
    check_types(api, ARITH, src0.dtype, src1)
    _compare(api, dst, (src0, src1), cmp_mode, n, _CMP[CMPMODE(cmp_mode)])


def compare_scalar(dst: LocalTensor, src0: LocalTensor, src1_scalar: Any, cmp_mode: int, *args: Any,
                   **kwargs: Any) -> None:
    """Bit i of dst = src0[i] <cmp_mode> scalar."""
    api = "compare_scalar"
    n = form(api, args, kwargs, UnaryRepeatParams)
    if n is None:
        return
    check_types(api, ARITH, src0.dtype)
    fn, value = _CMP[CMPMODE(cmp_mode)], src0.dtype.np.type(src1_scalar)
    _compare(api, dst, (src0,), cmp_mode, n, lambda x: fn(x, value))


def select(dst: LocalTensor, sel_mask: LocalTensor, src0: LocalTensor, src1: Any, sel_mode: int, *args: Any,
           **kwargs: Any) -> None:
    """dst[i] = src0[i] where bit i of sel_mask is 1, else src1[i] (or the scalar src1 in
    VSEL_TENSOR_SCALAR_MODE); VSEL_CMPMASK_SPR reuses one repeat's bits. Count or mask/repeat form."""
    api = "select"
    if isinstance(sel_mode, BinaryRepeatParams):  # select(dst, src0, src1, repeat_times, repeat_params, sel_mode)
        raise not_emulated("asc.select with the cmpMask register")
    n = form(api, args, kwargs, BinaryRepeatParams)
    if n is None:
        return
    mode = SelMode(sel_mode)
    dt = dst.dtype
    if mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
        check_types(api, FLOAT, dt, src0)
        other: Any = dt.np.type(src1)
    else:
        check_types(api, FLOAT, dt, src0, src1)
    if type(n) is Repeat:
        masked.select(api, dst, sel_mask, src0, src1 if mode != SelMode.VSEL_TENSOR_SCALAR_MODE else other, mode, n)
        return
    count = n
    if mode != SelMode.VSEL_TENSOR_SCALAR_MODE:
        other = src1.read(count, api)
    # VSEL_CMPMASK_SPR: one repeat's bits (the cmpMask register), again in every repeat (masked.py)
    lanes = 256 // dt.itemsize
    nbits = lanes if mode == SelMode.VSEL_CMPMASK_SPR and count > lanes else count  # (`min` is asc.min here)
    raw = sel_mask.reinterpret_cast(np.uint8).read(-(-nbits // 8), api)
    bits = np.resize(np.unpackbits(raw, count=nbits, bitorder="little").astype(bool), count)
    a = src0.read(count, api)
    np.copyto(dst.write(count, api), np.where(bits, a, other))

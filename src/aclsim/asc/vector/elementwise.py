"""Element-wise vector instructions on numpy views of the UB, in count form ("the first n elements") and in
mask/repeat form (`repeat.py`), and `copy`, `brcb`, `duplicate`.

Arithmetic stays in the tensor's dtype (float16 in, float16 out). Supported element types follow
the 910B `[AICoreintrinsicDtypeMap]` (reference `ascendc-device.md` §2.3): add/sub/mul/max/min and
the scalar forms take float16/float32/int16/int32; div, exp, ln, sqrt, rsqrt, reciprocal take
float16/float32. Operands must be live, written, 32-byte aligned and large enough; dst may
overlap a source only completely (in place). `count == 0` is a NOP, as on A2/A3.
Signatures: pyasc `basic/vec_binary.py`, `vec_binary_scalar.py`, `vec_unary`, `vec_reduce.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import faults as ctx
from ..faults import fail
from ..memory.local import LocalTensor
from ..types.convert import to_bf16
from ..types.dtypes import DataType, bfloat16
from ..types.enums import RoundMode
from ..types.params import BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams, UnaryRepeatParams
from .repeat import Repeat, cached, elementwise, form, gather, mark, repeat_of

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
    value = to_bf16(np.array([scalar], np.float32), RoundMode.CAST_RINT)[0] if dt is bfloat16 else scalar

    def fill(out: np.ndarray) -> None:
        out[...] = value

    if type(n) is Repeat:
        elementwise(api, fill, dst, (), n)
    else:
        fill(dst.write(n, api))


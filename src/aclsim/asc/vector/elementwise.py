"""Element-wise vector instructions on numpy views of the UB: binary (Add, Sub, ...), with a scalar (Adds, ...),
unary (Exp, ...), ternary (MulAddDst, ...), and Copy, Brcb, Duplicate.

Each takes its operands and `n`: a count (the first n elements) or a `Repeat` (the mask/repeat form, views.py).
Arithmetic stays in the tensors' type (float16 in, float16 out). Element types per instruction are the Atlas
A2/A3 ones of the Ascend C API reference (hicann/asc-devkit `docs/.../Add.md` etc.: add/sub/mul/max/min and the
scalar forms take half/float/int16_t/int32_t; div, exp, ln, sqrt, rsqrt, reciprocal take half/float).
Operands must be live, written, 32-byte aligned and large enough; dst may overlap a source only completely
(in place). `count == 0` is a NOP, as on A2/A3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LocalTensor
from ..table import instruction, refuse_types
from ..types.convert import to_bf16
from ..types.dtypes import DataType, as_dtype, bfloat16
from ..types.enums import RoundMode
from .lanes import gather, mark
from .repeat import Repeat
from .views import elementwise

ARITH = ("float16", "float32", "int16", "int32")
FLOAT = ("float16", "float32")
BITS16 = ("int16", "uint16")
SHIFT = ("int16", "uint16", "int32", "uint32")
B16_32 = ("float16", "float32", "int16", "uint16", "int32", "uint32")


def kinds(names: Iterable[str]) -> frozenset[DataType]:
    """The element types named, for quick membership tests."""
    return frozenset(as_dtype(n) for n in names)


def check_types(core: Any, api: str, types: tuple[str, ...], dt: DataType, *others: LocalTensor) -> None:
    """`dt` must be one of `types` and every other operand of type `dt` (the slow path of the instructions' test)."""
    ts = kinds(types)
    if dt not in ts or any(t.dtype is not dt for t in others):
        refuse_types(core, api, [as_dtype(n) for n in types], dt, *others)


def overlap(api: str, dst: LocalTensor, src: LocalTensor, count: int) -> None:
    """dst and src may be the same elements (in place) but must not partially overlap."""
    d, s = dst.lo, src.lo
    if d != s:
        n = count * dst.dtype.itemsize
        if d < s + n and s < d + n and dst.buf.pool is src.buf.pool:
            fail(api, f"dst (offset {d}) partially overlaps a source (offset {s}) over {count} elements: "
                      "the hardware allows only full (in-place) overlap")


def count_of(api: str, n: int) -> bool:
    """Whether a count-form call does something: True for n > 0, False for 0 (a NOP on A2/A3); n < 0 faults."""
    if n > 0:
        return True
    if n < 0:
        fail(api, f"count must be >= 0, got {n}")
    return False


def _binary(key: str, api: str, fn: Callable, types: tuple[str, ...], doc: str) -> Callable[..., None]:
    ts = kinds(types)

    def run(core: Any, dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, n: int | Repeat) -> None:
        dt = dst.dtype
        if type(n) is not Repeat:  # the count form, inlined: the hottest path
            if n <= 0:
                count_of(api, n)
                return
            if src0.dtype is not dt or src1.dtype is not dt or dt not in ts:
                check_types(core, api, types, dt, src0, src1)
            x = src0.read(n, api)
            y = src1.read(n, api)
            d, a, b, nb = dst.lo, src0.lo, src1.lo, n * dt.itemsize  # partial overlap (`overlap`), inlined
            if (d != a and d < a + nb and a < d + nb) or (d != b and d < b + nb and b < d + nb):
                overlap(api, dst, src0, n)
                overlap(api, dst, src1, n)
            fn(x, y, out=dst.write(n, api))
            return
        if src0.dtype is not dt or src1.dtype is not dt or dt not in ts:
            check_types(core, api, types, dt, src0, src1)
        elementwise(core, api, fn, dst, (src0, src1), n)

    run.__name__, run.__qualname__, run.__doc__ = api, api, doc
    return instruction(key, api, "vector", "V", types)(run)


def _then_relu(fn: Callable) -> Callable:
    def op(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
        fn(x, y, out=out)
        np.maximum(out, 0, out=out)
    return op


add = _binary("Add", "add", np.add, ARITH, "dst[i] = src0[i] + src1[i].")
sub = _binary("Sub", "sub", np.subtract, ARITH, "dst[i] = src0[i] - src1[i].")
mul = _binary("Mul", "mul", np.multiply, ARITH, "dst[i] = src0[i] * src1[i].")
div = _binary("Div", "div", np.divide, FLOAT, "dst[i] = src0[i] / src1[i] (float types).")
max = _binary("Max", "max", np.maximum, ARITH, "dst[i] = max(src0[i], src1[i]).")
min = _binary("Min", "min", np.minimum, ARITH, "dst[i] = min(src0[i], src1[i]).")
bitwise_and = _binary("And", "bitwise_and", np.bitwise_and, BITS16, "dst[i] = src0[i] & src1[i] (int16/uint16).")
bitwise_or = _binary("Or", "bitwise_or", np.bitwise_or, BITS16, "dst[i] = src0[i] | src1[i] (int16/uint16).")
add_relu = _binary("AddRelu", "add_relu", _then_relu(np.add), ("float16", "float32", "int16"),
                   "dst[i] = max(src0[i] + src1[i], 0).")
sub_relu = _binary("SubRelu", "sub_relu", _then_relu(np.subtract), ("float16", "float32", "int16"),
                   "dst[i] = max(src0[i] - src1[i], 0).")


def _mul_add(x: np.ndarray, y: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
    np.add(x * y, acc, out=out)


def _fma_relu(x: np.ndarray, y: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
    np.add(x * y, acc, out=out)
    np.maximum(out, 0, out=out)


def _ternary(key: str, api: str, fn: Callable, order: str, doc: str) -> Callable[..., None]:
    """An instruction that also reads its destination: `fn(x, y, acc)` over (src0, src1, dst) for order "01d",
    (src0, dst, src1) for "0d1"; its repeat strides are those of (dst, src0, src1)."""

    def run(core: Any, dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, n: int | Repeat) -> None:
        if type(n) is not Repeat and not count_of(api, n):
            return
        check_types(core, api, FLOAT, dst.dtype, src0, src1)
        a, b, c = (src0, src1, dst) if order == "01d" else (src0, dst, src1)
        if type(n) is Repeat:
            ds, s0, s1 = n.strides
            strides = {id(dst): ds, id(src0): s0, id(src1): s1}
            elementwise(core, api, fn, dst, (a, b, c), n.with_strides(api, [ds] + [strides[id(t)] for t in (a, b, c)]))
            return
        x, y, z = a.read(n, api), b.read(n, api), c.read(n, api)
        overlap(api, dst, a, n)
        overlap(api, dst, b, n)
        fn(x, y, z, out=dst.write(n, api))

    run.__name__, run.__qualname__, run.__doc__ = api, api, doc
    return instruction(key, api, "vector", "V", FLOAT)(run)


mul_add_dst = _ternary("MulAddDst", "mul_add_dst", _mul_add, "01d", "dst[i] = src0[i] * src1[i] + dst[i].")
fused_mul_add = _ternary("FusedMulAdd", "fused_mul_add", _mul_add, "0d1", "dst[i] = src0[i] * dst[i] + src1[i].")
fused_mul_add_relu = _ternary("FusedMulAddRelu", "fused_mul_add_relu", _fma_relu, "0d1",
                              "dst[i] = max(src0[i] * dst[i] + src1[i], 0).")


def _unary_run(core: Any, api: str, fn: Callable, ts: frozenset[DataType], types: tuple[str, ...], dst: LocalTensor,
               src: LocalTensor, n: int | Repeat) -> None:
    """`fn(src values, out=dst values)` in either form."""
    dt = dst.dtype
    if type(n) is not Repeat and not count_of(api, n):
        return
    if src.dtype is not dt or dt not in ts:
        check_types(core, api, types, dt, src)
    if type(n) is Repeat:
        elementwise(core, api, fn, dst, (src,), n)
        return
    x = src.read(n, api)
    d, s, nb = dst.lo, src.lo, n * dt.itemsize
    if d != s and d < s + nb and s < d + nb:
        overlap(api, dst, src, n)
    fn(x, out=dst.write(n, api))


def _unary(key: str, api: str, fn: Callable, types: tuple[str, ...], doc: str) -> Callable[..., None]:
    ts = kinds(types)

    def run(core: Any, dst: LocalTensor, src: LocalTensor, n: int | Repeat) -> None:
        _unary_run(core, api, fn, ts, types, dst, src, n)

    run.__name__, run.__qualname__, run.__doc__ = api, api, doc
    return instruction(key, api, "vector", "V", types)(run)


def _rsqrt(x: np.ndarray, out: np.ndarray) -> None:
    np.sqrt(x, out=out)
    np.reciprocal(out, out=out)


def _relu(x: np.ndarray, out: np.ndarray) -> None:
    np.maximum(x, 0, out=out)


exp = _unary("Exp", "exp", np.exp, FLOAT, "dst[i] = e ** src[i].")
ln = _unary("Ln", "ln", np.log, FLOAT, "dst[i] = log(src[i]).")
abs = _unary("Abs", "abs", np.absolute, FLOAT, "dst[i] = |src[i]|.")
relu = _unary("Relu", "relu", _relu, ("float16", "float32", "int32"), "dst[i] = max(src[i], 0).")
sqrt = _unary("Sqrt", "sqrt", np.sqrt, FLOAT, "dst[i] = sqrt(src[i]).")
rsqrt = _unary("Rsqrt", "rsqrt", _rsqrt, FLOAT, "dst[i] = 1 / sqrt(src[i]).")
reciprocal = _unary("Reciprocal", "reciprocal", np.reciprocal, FLOAT, "dst[i] = 1 / src[i].")
bitwise_not = _unary("Not", "bitwise_not", np.invert, BITS16, "dst[i] = ~src[i] (int16/uint16).")


def only_950(core: Any, api: str, what: str, instead: str = "") -> None:
    """Refuse `what` (an instruction or a form of one that CANN documents for Ascend 950PR/950DT only) on another
    chip."""
    if core.chip.arch != 3510:
        fail(api, f"{what} exists only on Ascend 950PR/950DT, not on {core.chip.name}: run on that chip (aclsim run "
                  f"--soc Ascend950PR_9589){instead}")


def flexible(core: Any, api: str, scalar_first: bool, scalar: Any) -> None:
    """The flexible scalar position (a scalar left of the tensor, or a tensor's element as the scalar) is an Ascend
    950 instruction form (CANN's "Adds（灵活标量位置）", "Compares（灵活标量位置）"... pages: Atlas A2/A3 and older
    do not have it)."""
    if scalar_first or isinstance(scalar, LocalTensor):
        only_950(core, api, "a scalar on the left or a LocalTensor element as the scalar (the flexible scalar "
                            "position)", " or pass the scalar as a value on the right")


def scalar_value(api: str, scalar: Any, dt: DataType) -> Any:
    """A scalar operand of type `dt`: a number, or (the flexible scalar position) a LocalTensor whose first element
    the vector unit reads (it must be live, written and 32-byte aligned like any vector operand)."""
    if isinstance(scalar, LocalTensor):
        return dt.np.type(scalar.read(1, api)[0])
    return dt.np.type(scalar)


def _scalar(key: str, api: str, fn: Callable, types: tuple[str, ...], doc: str,
            ascend_950: bool = False) -> Callable[..., None]:
    ts = kinds(types)

    def run(core: Any, dst: LocalTensor, src: LocalTensor, scalar: Any, n: int | Repeat,
            scalar_first: bool = False) -> None:
        if ascend_950:
            only_950(core, api, f"{key} (CANN's {key} page)")
        if scalar_first or type(scalar) is LocalTensor:
            flexible(core, api, scalar_first, scalar)
        value = scalar_value(api, scalar, dst.dtype)

        def op(x: np.ndarray, out: np.ndarray) -> None:
            fn(x, value, out=out)

        def op_first(x: np.ndarray, out: np.ndarray) -> None:
            fn(value, x, out=out)

        _unary_run(core, api, op_first if scalar_first else op, ts, types, dst, src, n)

    run.__name__, run.__qualname__ = api, api
    run.__doc__ = doc + (" With `scalar_first`, the scalar is the left operand (Ascend 950's flexible scalar "
                         "position; there `scalar` may be a LocalTensor's first element).")
    if ascend_950:  # pyasc 1.1.1 has no name for these: the C++ face calls them
        return instruction(key, "", "vector", "V", types, note="C++ only: Ascend 950 (pyasc 1.1.1 has no name for it)")(run)
    return instruction(key, api, "vector", "V", types)(run)


def _leaky(x: np.ndarray, alpha: Any, out: np.ndarray) -> None:
    np.copyto(out, np.where(x >= 0, x, x * alpha))


adds = _scalar("Adds", "adds", np.add, ARITH, "dst[i] = src[i] + scalar.")
muls = _scalar("Muls", "muls", np.multiply, ARITH, "dst[i] = src[i] * scalar.")
maxs = _scalar("Maxs", "maxs", np.maximum, ARITH, "dst[i] = max(src[i], scalar).")
mins = _scalar("Mins", "mins", np.minimum, ARITH, "dst[i] = min(src[i], scalar).")
subs = _scalar("Subs", "subs", np.subtract, ARITH, "dst[i] = src[i] - scalar (Ascend 950).", ascend_950=True)
divs = _scalar("Divs", "divs", np.divide, FLOAT, "dst[i] = src[i] / scalar (Ascend 950).", ascend_950=True)
ands = _scalar("Ands", "ands", np.bitwise_and, BITS16, "dst[i] = src[i] & scalar (Ascend 950).", ascend_950=True)
ors = _scalar("Ors", "ors", np.bitwise_or, BITS16, "dst[i] = src[i] | scalar (Ascend 950).", ascend_950=True)
leaky_relu = _scalar("LeakyRelu", "leaky_relu", _leaky, FLOAT, "dst[i] = src[i] if src[i] >= 0 else src[i] * scalar.")
shift_left = _scalar("ShiftLeft", "shift_left", np.left_shift, SHIFT, "dst[i] = src[i] << scalar.")
shift_right = _scalar("ShiftRight", "shift_right", np.right_shift, SHIFT,
                      "dst[i] = src[i] >> scalar (arithmetic for signed types).")


@instruction("Axpy", "axpy", "vector", "V", FLOAT)
def axpy(core: Any, dst: LocalTensor, src: LocalTensor, scalar: Any, n: int | Repeat) -> None:
    """dst[i] = src[i] * scalar + dst[i] (computed in the tensors' type; the NPU may fuse it differently)."""
    api = "axpy"
    value = dst.dtype.np.type(scalar)

    def op(x: np.ndarray, acc: np.ndarray, out: np.ndarray) -> None:
        np.add(x * value, acc, out=out)

    if type(n) is not Repeat and not count_of(api, n):
        return
    check_types(core, api, FLOAT, dst.dtype, src)
    if type(n) is Repeat:  # the accumulator is dst itself
        elementwise(core, api, op, dst, (src, dst), n.with_strides(api, [n.strides[0], n.strides[1], n.strides[0]]))
    else:
        x, acc = src.read(n, api), dst.read(n, api)
        overlap(api, dst, src, n)
        op(x, acc, out=dst.write(n, api))


def _copy(x: np.ndarray, out: np.ndarray) -> None:
    np.copyto(out, x)


@instruction("Copy", "copy", "vector", "V", B16_32)
def copy(core: Any, dst: LocalTensor, src: LocalTensor, rep: Repeat) -> None:
    """UB -> UB copy in mask/repeat form (16- and 32-bit types). In COUNTER mask mode the mask counts elements
    per repeat and repeat_time applies (pyasc `copy.md`)."""
    check_types(core, "copy", B16_32, dst.dtype, src)
    elementwise(core, "copy", _copy, dst, (src,), rep, per_repeat_count=True)


@instruction("Brcb", "brcb", "vector", "V", B16_32)
def brcb(core: Any, dst: LocalTensor, src0: LocalTensor, rep: Repeat) -> None:
    """Each repeat takes 8 elements of src0 and fills one 32-byte block of dst with each (`rep` gives dst's block
    and repeat strides; its mask is not used)."""
    api = "brcb"
    check_types(core, api, B16_32, dst.dtype, src0)
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


DUPLICATE = ("float16", "float32", "bfloat16", "int16", "int32", "uint16", "uint32")


@instruction("CreateVecIndex", "", "vector", "V", ("int16", "int32", "float16", "float32"),
             note="count form (pyasc 1.1.1 has no create_vec_index)")
def create_vec_index(core: Any, dst: LocalTensor, first_value: Any, n: int) -> None:
    """dst[i] = first_value + i for the first `n` elements (CANN CreateVecIndex page)."""
    api = "create_vec_index"
    if not count_of(api, n):
        return
    check_types(core, api, ("int16", "int32", "float16", "float32"), dst.dtype)
    out = dst.write(n, api)
    out[...] = np.arange(n, dtype=np.float64 if dst.dtype.is_float else np.int64) + first_value


@instruction("Duplicate", "duplicate", "vector", "V", DUPLICATE)
def duplicate(core: Any, dst: LocalTensor, scalar: Any, n: int | Repeat) -> None:
    """dst[i] = scalar (bfloat16: the value rounded to the nearest even bfloat16)."""
    api = "duplicate"
    if type(n) is not Repeat and not count_of(api, n):
        return
    check_types(core, api, DUPLICATE, dst.dtype)
    value = to_bf16(np.array([scalar], np.float32), RoundMode.CAST_RINT)[0] if dst.dtype is bfloat16 else scalar

    def fill(out: np.ndarray) -> None:
        out[...] = value

    if type(n) is Repeat:
        elementwise(core, api, fill, dst, (), n)
    else:
        fill(dst.write(n, api))

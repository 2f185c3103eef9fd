"""`asc.adv` element-wise math (pyasc `language/adv/math.py`): tanh, erf, exp, sin, ..., power, xor, axpy.

Forms as pyasc 1.1.1: `fn(dst, src, count=None, temp_buffer=None, is_reuse_source=False)`;
`power`/`xor` take `(dst, src0, src1, ...)`, `axpy` `(dst, src, scalar, ...)`, `exp`
`(dst, src, count, taylor_expand_level, temp_buffer=None, is_reuse_source=False)`. Without `count`
the whole source takes part. Element types as the Ascend C pages list for Atlas A2/A3: half and
float (power also int32, xor int16/uint16). half is computed the way the asc-devkit kernels do it:
cast to float, computed in float, cast back with round-to-nearest (e.g. `round_v220_impl.h`).
`is_reuse_source` only permits the API to clobber the source; aclsim leaves the source intact.
The temporary buffer is checked against the `GetXxxMaxMinTmpSize` minimum (bytes, Atlas A2/A3) and
must overlap no operand; operands must not overlap each other ("不支持源操作数与目的操作数地址重叠").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LocalTensor
from ..types.dtypes import DataType
from . import special
from .operands import of_types, prepare, same_type, tensor

FLOAT = ("float16", "float32")
REPEAT = 256  # bytes of one vector repeat: the unit of the minimum temporary sizes


class Spec:
    """One function: its float math and its minimum temporary size in repeats (half, float, float reusing src)."""

    __slots__ = ("fn", "tmp", "types")

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], half: int, flt: int, reuse: int | None = None,
                 types: tuple[str, ...] = FLOAT) -> None:
        self.fn, self.types = fn, types
        self.tmp = (half * REPEAT, flt * REPEAT, (flt if reuse is None else reuse) * REPEAT)

    def min_tmp(self, itemsize: int, reuse: bool) -> int:
        return self.tmp[0] if itemsize == 2 else self.tmp[2 if reuse else 1]


def _frac(x: np.ndarray) -> np.ndarray:
    return x - np.trunc(x)  # Frac(-258.41888) = -0.41888428 (Ascend C Frac page)


def _via64(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: fn(x.astype(np.float64))


# minimum temporary sizes: asc-devkit impl/adv_api/tiling/math/<name>_tiling*.cpp, Atlas A2/A3 (v220)
UNARY: dict[str, Spec] = {
    "acos": Spec(np.arccos, 6, 2), "acosh": Spec(np.arccosh, 2, 1), "asin": Spec(np.arcsin, 6, 2),
    "asinh": Spec(np.arcsinh, 3, 3), "atan": Spec(np.arctan, 12, 5), "atanh": Spec(np.arctanh, 4, 1),
    "ceil": Spec(np.ceil, 2, 1), "cos": Spec(np.cos, 8, 3, 2), "cosh": Spec(np.cosh, 6, 2),
    "digamma": Spec(_via64(special.digamma), 16, 7, 6), "erf": Spec(_via64(special.erf), 8, 3),
    "erfc": Spec(_via64(special.erfc), 16, 7), "floor": Spec(np.floor, 2, 0), "frac": Spec(_frac, 4, 0),
    "lgamma": Spec(_via64(special.lgamma), 26, 8, 7), "log": Spec(np.log, 0, 0),
    "round": Spec(np.rint, 1, 0),  # round half to even: Cast CAST_RINT (round_v220_impl.h)
    "sign": Spec(np.sign, 3, 3), "sin": Spec(np.sin, 8, 3, 2), "sinh": Spec(np.sinh, 4, 1),
    "tan": Spec(np.tan, 10, 4), "tanh": Spec(np.tanh, 4, 1), "trunc": Spec(np.trunc, 2, 1),
}


def _in_float(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32, copy=False)


def _store(out: np.ndarray, values: np.ndarray) -> None:
    with np.errstate(all="ignore"):  # inf/nan results are the hardware's results too
        out[...] = values


def _operands(api: str, dst: Any, srcs: tuple[Any, ...], types: tuple[str, ...], count: Any, tmp: Any,
              need: Callable[[DataType], int]) -> tuple[LocalTensor, tuple[LocalTensor, ...], int]:
    """(dst, sources, element count) of a same-type call, after the type, count, overlap and temp_buffer
    checks; `need` gives the minimum temp_buffer bytes for the element type."""
    names = ("src",) if len(srcs) == 1 else tuple(f"src{i}" for i in range(len(srcs)))
    d = tensor(api, "dst", dst)
    ss = tuple(tensor(api, nm, t) for nm, t in zip(names, srcs, strict=True))
    same_type(api, d, *ss)
    of_types(api, d, types)
    return d, ss, prepare(api, d, ss, count, tmp, need(d.dtype))


def _unary(name: str, dst: Any, src: Any, count: Any, tmp: Any, reuse: Any) -> None:
    spec, api = UNARY[name], f"adv.{name}"
    dst, (src,), n = _operands(api, dst, (src,), spec.types, count, tmp,
                               lambda dt: spec.min_tmp(dt.itemsize, bool(reuse)))
    if n:
        x, out = src.read(n, api), dst.write(n, api)
        with np.errstate(all="ignore"):  # inf/nan results are the hardware's results too
            if out.dtype == np.float32 and isinstance(spec.fn, np.ufunc):
                spec.fn(x, out=out)
            else:
                out[...] = spec.fn(_in_float(x))


def _unary_api(name: str) -> Callable[..., None]:
    def fn(dst: Any, src: Any, count: int | None = None, temp_buffer: Any = None,
           is_reuse_source: bool = False) -> None:
        _unary(name, dst, src, count, temp_buffer, is_reuse_source)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"asc.adv.{name}(dst, src, count=None, temp_buffer=None, is_reuse_source=False): element-wise {name}."
    return fn


acos, acosh, asin, asinh, atan, atanh = (_unary_api(n) for n in ("acos", "acosh", "asin", "asinh", "atan", "atanh"))
ceil, cos, cosh, digamma, erf, erfc = (_unary_api(n) for n in ("ceil", "cos", "cosh", "digamma", "erf", "erfc"))
floor, frac, lgamma, log, round = (_unary_api(n) for n in ("floor", "frac", "lgamma", "log", "round"))
sign, sin, sinh, tan, tanh, trunc = (_unary_api(n) for n in ("sign", "sin", "sinh", "tan", "tanh", "trunc"))

EXP_TMP = (4 * REPEAT, 3 * REPEAT, 2 * REPEAT)  # exp_tiling_impl.cpp: half, float, float reusing src


def exp(dst: Any, src: Any, count: int, taylor_expand_level: int, temp_buffer: Any = None,
        is_reuse_source: bool = False) -> None:
    """dst = e**src. With `taylor_expand_level` k > 0 the API computes, in float, e**floor(x) times the
    Taylor sum of e**(x - floor(x)) up to the k-th power (asc-devkit `exp_common_impl.h`), so few terms
    lose precision as on the device; 0 uses the vector Exp instruction."""
    api = "adv.exp"
    level = int(taylor_expand_level)
    if not 0 <= level <= 255:
        raise ValueError(f"asc.adv.exp: taylor_expand_level is a uint8 template argument, got {level}")
    dst, (src,), n = _operands(api, dst, (src,), FLOAT, count, temp_buffer,
                               lambda dt: EXP_TMP[0] if dt.itemsize == 2 else EXP_TMP[2 if is_reuse_source else 1])
    if n == 0:
        return
    x = _in_float(src.read(n, api))
    with np.errstate(all="ignore"):
        if level == 0:
            y = np.exp(x)
        else:
            whole = np.floor(x)
            part = x - whole
            term, y = part.copy(), part + np.float32(1)
            for i in range(2, level + 1):
                term = term * part * (np.float32(1) / np.float32(i))
                y = y + term
            y = y * np.exp(whole)
    _store(dst.write(n, api), y)


POWER_TMP = {"float16": 14 * REPEAT // 2 + REPEAT, "float32": 4 * REPEAT + REPEAT, "int32": 6 * REPEAT}


def _int_power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int32 power with C integer semantics (the Ascend C page is silent): a negative exponent gives
    1/a**|b| truncated toward zero (0 unless |a| == 1); the product wraps modulo 2**32."""
    neg = b < 0
    mag = np.power(a.astype(np.int64), np.where(neg, 0, b).astype(np.int64)).astype(np.int32)
    inv = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0)).astype(np.int32)
    return np.where(neg, inv, mag)


def power(dst: Any, src0: Any, src1: Any, count: int | None = None, temp_buffer: Any = None,
          is_reuse_source: bool = False) -> None:
    """dst[i] = src0[i] ** src1[i] (half/float computed in float; int32)."""
    api = "adv.power"
    dst, (a, b), n = _operands(api, dst, (src0, src1), ("float16", "float32", "int32"), count, temp_buffer,
                               lambda dt: POWER_TMP[dt.name])
    if n == 0:
        return
    x, y = a.read(n, api), b.read(n, api)
    with np.errstate(all="ignore"):
        z = _int_power(x, y) if dst.dtype.name == "int32" else np.power(_in_float(x), _in_float(y))
    _store(dst.write(n, api), z)


def xor(dst: Any, src0: Any, src1: Any, count: int | None = None, temp_buffer: Any = None,
        is_reuse_source: bool = False) -> None:
    """dst[i] = src0[i] ^ src1[i] (int16/uint16)."""
    api = "adv.xor"
    dst, (a, b), n = _operands(api, dst, (src0, src1), ("int16", "uint16"), count, temp_buffer,
                               lambda dt: REPEAT)  # xor_tiling.cpp: one repeat
    if n == 0:
        return
    x, y = a.read(n, api), b.read(n, api)
    np.bitwise_xor(x, y, out=dst.write(n, api))


AXPY_TMP = {2: 4 * REPEAT, 4: REPEAT}  # axpy_tiling_impl.cpp, by the source's element size


def axpy(dst: Any, src: Any, scalar: float, count: int | None = None, temp_buffer: Any = None,
         is_reuse_source: bool = False) -> None:
    """dst[i] = dst[i] + src[i] * scalar (Muls then Add, in float). half/half, float/float, or
    float dst with half src."""
    api = "adv.axpy"
    dst, src = tensor(api, "dst", dst), tensor(api, "src", src)
    pair = (dst.dtype.name, src.dtype.name)
    if pair not in (("float16", "float16"), ("float32", "float32"), ("float32", "float16")):
        fail(api, f"dst {pair[0]} with src {pair[1]} is not supported (half/half, float/float, float dst with half "
                  "src)")
    n = prepare(api, dst, (src,), count, temp_buffer, AXPY_TMP[src.dtype.itemsize])
    if n == 0:
        return
    s = np.float32(src.dtype.np.type(scalar))  # the scalar has the source's type
    x = _in_float(src.read(n, api)) * s
    acc = _in_float(dst.read(n, api))
    _store(dst.write(n, api), acc + x)

"""Per-lane values and masks that compiled kernels compute with.

Values: weak Python literals, numpy scalars (uniform across lanes), 1-D arrays over the lanes of
the chunk being run, and `Idx`, a lazy linear combination of thread/block indices that stays
symbolic until an operation needs the numbers (so `blockIdx.x * blockDim.x + threadIdx.x` over a
1-D launch is a contiguous range: its loads and stores become slices).

Masks (which lanes execute): True (all), False (none), slice(lo, hi) (a contiguous run of lanes,
never empty or full) or a bool array.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .ctype import (
    BOOL,
    F32,
    I32,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    binop_type,
    cast,
    common_type,
    default_dtype,
    dtype_of,
    wrap_int32,
)
from .mathfns import CMATH, MathFn, cmath_apply

_M32 = (1 << 32) - 1
ND = np.ndarray


class Undefined:
    """A local variable not assigned yet."""

    def __repr__(self) -> str:
        return "<undefined>"


UNDEF = Undefined()


class Idx:
    """c + sum(coef[k] * component[k]) over (tx, ty, tz, bx, by, bz), uint32 arithmetic."""

    __slots__ = ("C", "c", "k", "ramp")

    def __init__(self, C: Any, k: tuple[int, ...], c: int = 0) -> None:
        self.C = C
        self.k = k
        self.c = c
        self.ramp: tuple[int, Any] | None = None  # (chunk's first lane, C.ramp result) cache

    def value(self) -> Any:
        """The uint32 array (or scalar) this index stands for in the current chunk."""
        return self.C.materialize(self)


def _small_int(v: Any) -> int | None:
    """v as a Python int if it is a uniform integer that combines with uint32 into uint32."""
    t = type(v)
    if t is int or t is bool:
        return int(v)
    if isinstance(v, np.integer) and v.dtype.itemsize <= 4:
        return int(v)
    return None


def idx_binop(op: str, a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if op == "add" or op == "sub":
        sign = 1 if op == "add" else -1
        if ta is Idx and tb is Idx:
            return Idx(a.C, tuple((x + sign * y) & _M32 for x, y in zip(a.k, b.k, strict=False)), (a.c + sign * b.c) & _M32)
        if ta is Idx:
            n = _small_int(b)
            if n is not None:
                return Idx(a.C, a.k, (a.c + sign * n) & _M32)
        else:
            n = _small_int(a)
            if n is not None:  # n + idx, n - idx
                k = b.k if sign == 1 else tuple(-x & _M32 for x in b.k)
                return Idx(b.C, k, (n + sign * b.c) & _M32)
    elif op == "mul":
        x, n = (a, _small_int(b)) if ta is Idx else (b, _small_int(a))
        if type(x) is Idx and n is not None:
            return Idx(x.C, tuple((k * n) & _M32 for k in x.k), (x.c * n) & _M32)
    return None


def val(v: Any) -> Any:
    """Materialize a lazy index (any other value is returned as is)."""
    return v.value() if type(v) is Idx else v


# ---------------------------------------------------------------------------- arithmetic
def _c_truediv(a: Any, b: Any, rt: np.dtype) -> Any:
    """Integer division truncating toward zero, as in C."""
    q = np.floor_divide(a, b)
    if rt.kind == "u":
        return q
    return q + ((a - q * b != 0) & ((a < 0) != (b < 0)))


def _py_cdiv(a: int, b: int) -> int:
    if b == 0:
        return 0  # numpy's result for integer division by zero (undefined in C)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _py_crem(a: int, b: int) -> int:
    return 0 if b == 0 else a - b * _py_cdiv(a, b)


_UFUNC = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "floordiv": np.floor_divide, "pow": np.power,
    "lshift": np.left_shift, "rshift": np.right_shift, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}
_PYOP = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
    "pow": operator.pow, "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "mod": _py_crem, "truediv": _py_cdiv,
}
_CMP = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}
PYCMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne}


# Operand types that C arithmetic leaves unchanged (no integer promotion), and the operators that
# then map straight to a numpy ufunc: the hot path for two operands of the same such type.
_SAME_TYPE_OK = {np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64)}
_DIRECT = {"add", "sub", "mul"}


# A uniform numpy scalar of these types with a Python int literal in the type's range (or a float
# literal, for float types) has C's result type, which numpy's own scalar operators give as well.
_WEAK_OK: dict[type, tuple[int, int] | None] = {
    t: (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in (np.int32, np.uint32, np.int64, np.uint64)}
_WEAK_OK.update({t: None for t in (np.float16, np.float32, np.float64)})


def _weak_fast(scalar_type: type, lit: Any) -> bool:
    if type(lit) is int:
        lim = _WEAK_OK[scalar_type]
        return lim is None or lim[0] <= lit <= lim[1]
    return type(lit) is float and _WEAK_OK[scalar_type] is None


def binop(op: str, a: Any, b: Any) -> Any:
    """a <op> b with C typing. op: add sub mul truediv floordiv mod pow lshift rshift and or xor."""
    ta, tb = type(a), type(b)
    if op in _DIRECT:
        if ta is tb and (ta is ND or ta.__module__ == "numpy") and a.dtype is b.dtype and a.dtype in _SAME_TYPE_OK:
            # Uniform scalars (one thread, loop counters): numpy's scalar operators, several times cheaper.
            return _UFUNC[op](a, b) if ta is ND else _PYOP[op](a, b)
        if (ta in _WEAK_OK and _weak_fast(ta, b)) or (tb in _WEAK_OK and _weak_fast(tb, a)):
            return _PYOP[op](a, b)  # counter + 1; integer wrap-around as in C (errors are off in kernels)
    if ta is Idx or tb is Idx:
        r = idx_binop(op, a, b)
        if r is not None:
            return r
        a, b = val(a), val(b)
    rt = binop_type(op, dtype_of(a), dtype_of(b))
    if rt is WEAK_INT:
        return wrap_int32(_PYOP[op](int(a), int(b)))
    if rt is WEAK_COMPLEX:
        return a / b if op == "truediv" else _PYOP[op](a, b)
    if rt is WEAK_FLOAT:
        if op == "truediv":
            return a / b if b != 0 else math.copysign(math.inf, a) if a else math.nan
        if op == "mod":
            return math.fmod(a, b) if b != 0 else math.nan
        return _PYOP[op](a, b)
    a = cast(a, rt)
    b = cast(b, rt)
    if op == "truediv":
        return np.true_divide(a, b) if rt.kind == "f" else _c_truediv(a, b, rt)
    if op == "mod":
        return np.fmod(a, b)  # C remainder: the sign of the dividend
    r = _UFUNC[op](a, b)
    if type(r) is not ND and r.dtype != rt:
        r = cast(r, rt)
    return r


def compare(op: str, a: Any, b: Any) -> Any:
    """a <op> b (lt le gt ge eq ne) after C's usual conversions: a bool or bool array."""
    if type(a) is type(b) and type(a).__module__ == "numpy" and a.dtype is b.dtype:  # same-type scalars
        return PYCMP[op](a, b)
    a, b = val(a), val(b)
    rt = common_type(dtype_of(a), dtype_of(b))
    if rt is WEAK_INT or rt is WEAK_FLOAT:
        return PYCMP[op](a, b)
    return _CMP[op](cast(a, rt), cast(b, rt))


def unary(op: str, a: Any) -> Any:
    """-a, +a, ~a, not a."""
    a = val(a)
    if op == "not":
        return np.logical_not(a) if type(a) is ND else (not a)
    d = dtype_of(a)
    if d is WEAK_INT or d is WEAK_FLOAT:
        return wrap_int32(-a) if op == "neg" and d is WEAK_INT else (-a if op == "neg" else (~a if op == "invert" else +a))
    if d.kind == "b":
        a = cast(a, common_type(d, WEAK_INT))
    if op == "neg":
        return np.negative(a)
    if op == "invert":
        if d.kind == "f":
            raise TypeError("~ needs an integer operand")
        return np.invert(a)
    return a


def logical(op: str, a: Any, b: Any) -> Any:
    """a and b / a or b between already evaluated conditions (no short-circuit needed)."""
    a, b = truth(a), truth(b)
    if type(a) is ND or type(b) is ND:
        return np.logical_and(a, b) if op == "and" else np.logical_or(a, b)
    return (a and b) if op == "and" else (a or b)


def truth(v: Any) -> Any:
    """C truth value: a bool or a bool array."""
    v = val(v)
    if type(v) is ND:
        return v if v.dtype is BOOL else v != 0
    return bool(v)


def select(c: Any, a: Any, b: Any) -> Any:
    """Per lane: a where c else b (both already evaluated)."""
    c = truth(c)
    if type(c) is not ND:
        return a if c else b
    a, b = val(a), val(b)
    rt = default_dtype(common_type(dtype_of(a), dtype_of(b)))
    return np.where(c, cast(a, rt), cast(b, rt))


def make_complex(re: Any, im: Any) -> Any:
    """complex(re, im): the complex type of the arguments' precision (float32 and integers: complex64)."""
    a, b = val(re), val(im)
    rt = common_type(dtype_of(a), dtype_of(b))
    if rt is WEAK_INT or rt is WEAK_FLOAT:
        return complex(a, b)
    if rt is WEAK_COMPLEX or rt.kind == "c":
        raise TypeError("complex(re, im) takes real arguments")
    ct = np.dtype(np.complex128) if rt.kind == "f" and rt.itemsize >= 8 else np.dtype(np.complex64)
    if type(a) is not ND and type(b) is not ND:
        return ct.type(complex(float(a), float(b)))
    out = np.empty(np.broadcast(a, b).shape, ct)
    out.real, out.imag = a, b
    return out


def conjugate(v: Any) -> Any:
    """z.conjugate() (of a real value: itself)."""
    v = val(v)
    return v.conjugate() if type(v) is not ND or v.dtype.kind == "c" else v


def part(v: Any, which: str) -> Any:
    """z.real / z.imag (of a real value: itself / 0 of its type)."""
    v = val(v)
    return getattr(v, which)


def to_dtype(v: Any, dt: np.dtype) -> Any:
    """An explicit cast such as np.float32(x) or int(x)."""
    return cast(val(v), dt)


# ---------------------------------------------------------------------------- math functions
def _float_arg(v: Any) -> Any:
    v = val(v)
    d = dtype_of(v)
    if d is WEAK_FLOAT:
        return v
    if d is WEAK_COMPLEX:
        return v
    if d is WEAK_INT or d.kind not in "fc":
        return cast(v, F32)
    return v


def math_call(fn: MathFn, *args: Any) -> Any:
    """A math function on C-converted arguments (see mathfns): float types are kept, integers give float32."""
    if fn.nargs == 1:
        xs = [_float_arg(args[0])]
    elif fn.args == "float,int":  # ldexp(x, exp)
        e = val(args[1])
        if dtype_of(e) is WEAK_FLOAT or (dtype_of(e) is not WEAK_INT and dtype_of(e).kind not in "iub"):
            raise TypeError(f"{fn.name}: the exponent must be an integer")
        xs = [_float_arg(args[0]), e if dtype_of(e) is WEAK_INT else cast(e, I32)]
    else:
        a, b = val(args[0]), val(args[1])
        rt = common_type(dtype_of(a), dtype_of(b))
        if rt is WEAK_INT or rt is WEAK_FLOAT:
            xs = [float(a), float(b)]
        else:
            rt = rt if rt.kind == "f" else F32
            xs = [cast(a, rt), cast(b, rt)]
    r = fn.impl(*xs)
    if type(xs[0]) is not float:  # a typed or per-lane argument: numpy's result has the kernel type
        return r
    if fn.result == "bool":
        return bool(r)
    if fn.result == "split":
        return float(r[0]), (int(r[1]) if r[1].dtype.kind == "i" else float(r[1]))
    return float(r)


_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)


def cmath_call(name: str, *args: Any) -> Any:
    """cmath.<name>: arguments become complex (float32 and complex64: complex64; otherwise complex128;
    rect takes two reals), results have that precision (phase and polar the real type, predicates bool)."""
    xs = [val(a) for a in args]
    single = all(type(k) is np.dtype and ((k.kind == "f" and k.itemsize <= 4) or k == _C64) for k in map(dtype_of, xs))
    ct = _C64 if single else _C128
    ft = F32 if single else np.dtype(np.float64)
    conv = np.float64 if name == "rect" else np.complex128
    out = cmath_apply(name, [np.asarray(x.real if name == "rect" and np.iscomplexobj(x) else x).astype(conv)
                             for x in xs])
    scalar = all(type(x) is not ND for x in xs)
    kind = CMATH[name][2]
    if kind == "split":
        parts = (np.array([p[0] for p in np.ravel(out)], ft), np.array([p[1] for p in np.ravel(out)], ft))
        return tuple(p[0] if scalar else p for p in parts)
    rt = {"complex": ct, "float": ft, "bool": BOOL}[kind]
    r = np.asarray(out.tolist() if np.ndim(out) else out[()]).astype(rt)
    return r[()] if scalar else r


def rsqrt(v: Any) -> Any:
    x = _float_arg(v)
    if type(x) is float:
        return 1.0 / math.sqrt(x)
    return np.reciprocal(np.sqrt(x))


def _minmax2(ufunc: Any, a: Any, b: Any) -> Any:
    a, b = val(a), val(b)
    rt = common_type(dtype_of(a), dtype_of(b))
    if rt is WEAK_INT or rt is WEAK_FLOAT:
        return min(a, b) if ufunc is np.minimum else max(a, b)
    return ufunc(cast(a, rt), cast(b, rt))


def minmax(ufunc: Any, *args: Any) -> Any:
    """min/max of two or more values with C conversions."""
    r = args[0]
    for x in args[1:]:
        r = _minmax2(ufunc, r, x)
    return val(r)


def absolute(v: Any) -> Any:
    v = val(v)
    return abs(v) if type(v) in (int, float, bool) else np.absolute(v)


def fma(a: Any, b: Any, c: Any) -> Any:
    return binop("add", binop("mul", a, b), c)


# ---------------------------------------------------------------------------- bits, selection, rounding
_POPC8 = np.array([bin(i).count("1") for i in range(256)], np.uint8)
_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint8)


def _bit_length(u: ND) -> ND:
    """The bit length of every element of an unsigned array (0 for 0)."""
    n = np.zeros(u.shape, np.int64)
    x = u.copy()
    for s in (32, 16, 8, 4, 2, 1):
        if s >= u.dtype.itemsize * 8:
            continue
        big = x >= (np.uint64(1) << np.uint64(s)).astype(u.dtype)
        n += np.where(big, s, 0)
        x = np.where(big, x >> u.dtype.type(s), x)
    return n + (x != 0)


def bits(op: str, v: Any) -> Any:
    """popc, clz, ffs, brev of an integer on its own width (a Python int counts as its 32-bit C type):
    popc and clz keep the type, ffs gives uint32 (CUDA's __ffs), brev the unsigned type of the width."""
    v = val(v)
    d = dtype_of(v)
    if d is WEAK_INT:
        v, d = cast(v, I32), I32
    if d is WEAK_FLOAT or d is WEAK_COMPLEX or d.kind not in "biu":
        raise TypeError(f"{op}() needs an integer, got {d}")
    if d.kind == "b":
        v, d = cast(v, np.dtype(np.uint8)), np.dtype(np.uint8)
    width = d.itemsize * 8
    ud = np.dtype(f"u{d.itemsize}")
    a = np.asarray(v)
    u = np.ascontiguousarray(a.astype(d, copy=False)).view(ud)
    if op == "popc":
        r = _POPC8[u.reshape(-1).view(np.uint8)].reshape(*u.shape, d.itemsize).sum(axis=-1).astype(d)
    elif op == "clz":
        r = (width - _bit_length(u)).astype(d)
    elif op == "ffs":
        low = u & (~u + ud.type(1))  # the lowest bit set alone
        r = _bit_length(low).astype(np.uint32)
    else:  # brev
        r = _REV8[u.reshape(-1).view(np.uint8)].reshape(*u.shape, d.itemsize)[..., ::-1].copy().view(ud).reshape(u.shape)
    return r if type(v) is ND else r[()]


_F16 = np.dtype(np.float16)
_FP16_BIN = {"hadd": "add", "hsub": "sub", "hmul": "mul", "hdiv": "truediv"}
_FP16_CMP = {"heq": "eq", "hne": "ne", "hge": "ge", "hgt": "gt", "hle": "le", "hlt": "lt"}
_FP16_UFUNC = {"hsin": np.sin, "hcos": np.cos, "hlog": np.log, "hlog2": np.log2, "hlog10": np.log10, "hexp": np.exp,
               "hexp2": np.exp2, "hsqrt": np.sqrt, "hceil": np.ceil, "hfloor": np.floor, "htrunc": np.trunc,
               "hrint": np.rint, "hneg": np.negative, "habs": np.absolute, "hrcp": np.reciprocal,
               "hmax": np.maximum, "hmin": np.minimum}


def fp16(op: str, *args: Any) -> Any:
    """numba's cuda.fp16 functions: every operand converted to float16, the result float16 (bool for
    the comparisons)."""
    xs = [cast(val(a), _F16) for a in args]
    if op in _FP16_BIN:
        return binop(_FP16_BIN[op], *xs)
    if op in _FP16_CMP:
        return compare(_FP16_CMP[op], *xs)
    if op == "hfma":
        return cast(np.add(np.multiply(xs[0], xs[1], dtype=np.float32), xs[2], dtype=np.float32), _F16)  # one rounding
    if op == "hexp10":
        return np.power(_F16.type(10), xs[0])
    if op == "hrsqrt":
        return np.reciprocal(np.sqrt(xs[0]))
    return _FP16_UFUNC[op](*xs)


def selp(p: Any, a: Any, b: Any) -> Any:
    """numba's cuda.selp(p, a, b): a where p, else b (both already evaluated)."""
    return select(p, a, b)


def round_(x: Any, ndigits: Any = None) -> Any:
    """round(x) to the nearest integer, ties to even, as an int64 (Python's and numba's round);
    round(x, n) to n decimals, keeping the float type."""
    x = val(x)
    d = dtype_of(x)
    if ndigits is None:
        if d is WEAK_INT or (d is not WEAK_FLOAT and d is not WEAK_COMPLEX and d.kind in "iub"):
            return x
        return cast(np.rint(x), np.dtype(np.int64))
    n = int(val(ndigits))
    return np.round(x, n) if d is not WEAK_FLOAT else float(np.round(x, n))


# ---------------------------------------------------------------------------- masks
def count_mask(a: ND) -> Any:
    """Normalize a bool array mask: False if no lane, True if every lane."""
    n = int(np.count_nonzero(a))
    if n == 0:
        return False
    if n == a.shape[0]:
        return True
    return a


def mask_array(N: int, m: Any) -> ND:
    if m is True:
        return np.ones(N, bool)
    if m is False:
        return np.zeros(N, bool)
    if type(m) is slice:
        a = np.zeros(N, bool)
        a[m] = True
        return a
    return m


def _slice_mask(N: int, lo: int, hi: int) -> Any:
    lo, hi = max(lo, 0), min(hi, N)
    if lo >= hi:
        return False
    if lo == 0 and hi == N:
        return True
    return slice(lo, hi)


def mand(N: int, a: Any, b: Any) -> Any:
    """Lanes in both masks."""
    if a is True:
        return b
    if b is True or a is False:
        return a
    if b is False:
        return False
    if type(a) is slice and type(b) is slice:
        return _slice_mask(N, max(a.start, b.start), min(a.stop, b.stop))
    if type(a) is slice:
        a, b = b, a
    if type(b) is slice:
        out = np.zeros(N, bool)
        out[b] = a[b]
        return count_mask(out)
    return count_mask(np.logical_and(a, b))


def mandnot(N: int, a: Any, b: Any) -> Any:
    """Lanes in a but not in b."""
    if b is False or a is False:
        return a
    if b is True:
        return False
    if type(b) is slice and (a is True or type(a) is slice):
        lo, hi = (0, N) if a is True else (a.start, a.stop)
        if b.start <= lo:
            return _slice_mask(N, max(lo, b.stop), hi)
        if b.stop >= hi:
            return _slice_mask(N, lo, min(hi, b.start))
    bb = mask_array(N, b)
    if a is True:
        return count_mask(~bb)
    return count_mask(np.logical_and(mask_array(N, a), ~bb))


def mor(N: int, a: Any, b: Any) -> Any:
    """Lanes in either mask."""
    if a is False or b is True:
        return b
    if b is False or a is True:
        return a
    if type(a) is slice and type(b) is slice and a.start <= b.stop and b.start <= a.stop:
        return _slice_mask(N, min(a.start, b.start), max(a.stop, b.stop))
    return count_mask(np.logical_or(mask_array(N, a), mask_array(N, b)))


def to_mask(N: int, v: Any) -> Any:
    """The mask of lanes where a condition value is true."""
    v = val(v)
    if type(v) is ND:
        return count_mask(v if v.dtype is BOOL else v != 0)
    return bool(v)


_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def cmp_mask(C: Any, op: str, a: Any, b: Any) -> Any:
    """The mask of lanes where `a <op> b`; an index that grows along the lanes (a contiguous index, or
    a per-block value such as blockIdx.x) against a bound gives a slice."""
    if type(b) is Idx and type(a) is not Idx:
        a, b, op = b, a, _FLIP[op]
    if type(a) is Idx and op in ("lt", "le", "gt", "ge"):
        t = _bound(b, C.signed)
        if t is not None:
            for ramp, unit in ((C.ramp, 1), (C.block_ramp, C.tpb)):
                r = ramp(a)
                if r is not None and C.signed and r[1] + r[0] * (C.N // unit) >= 1 << 31:
                    r = None  # read as signed, these values would be negative: the general path
                if r is not None:  # value lo + k * (lane // unit), k > 0
                    k, lo = r
                    if op in ("le", "gt"):
                        t += 1  # v <= t  <=>  v < t + 1 (integers)
                    n = -((lo - t) // k)  # units u with lo + k*u < t: u < ceil((t - lo) / k)
                    n = min(max(n, 0), C.N // unit) * unit
                    return _slice_mask(C.N, 0, n) if op in ("lt", "le") else _slice_mask(C.N, n, C.N)
    return to_mask(C.N, compare(op, a, b))


def _bound(b: Any, signed: bool = False) -> int | None:
    """An integer bound as the uint32 it converts to when compared with a uint32 index (as itself when
    the index reads as signed: numba's rules)."""
    t = type(b)
    if t is int or t is bool:
        return int(b) if signed else int(b) & _M32
    if isinstance(b, np.integer):
        if b.dtype.itemsize <= 4:
            return int(b) if signed else int(b) & _M32
        return int(b)  # int64/uint64: compared numerically
    return None


def range_mask(C: Any, i: Any, stop: Any, step: Any) -> Any:
    """Lanes whose loop counter i has not reached stop (step may differ per lane)."""
    s = val(step)
    if type(s) is not ND:
        if s == 0:
            raise ValueError("range() step must not be zero")
        return cmp_mask(C, "lt" if s > 0 else "gt", i, stop)
    up = compare("lt", i, stop)
    down = compare("gt", i, stop)
    return to_mask(C.N, np.where(s > 0, up, down))


def uniform_trips(i: Any, stop: Any, step: Any) -> int | None:
    """The trip count of `for .. in range(start, stop, step)` when it is the same for every lane, else None.

    i is the counter's first value (start in the common type of start and stop). None, so that the
    loop takes the general per-lane path, unless start/stop/step are uniform integers whose
    comparisons and increments all happen in the counter's type and whose counter never wraps: then
    the count is exactly what the per-lane loop would run, with no mask bookkeeping per iteration.
    """
    i, stop, step = val(i), val(stop), val(step)
    if type(i) is ND or type(stop) is ND or type(step) is ND:
        return None
    dt = dtype_of(i)
    if dt is WEAK_INT:
        lo, hi = -(1 << 31), (1 << 31) - 1  # literal arithmetic wraps as C int
    elif isinstance(dt, np.dtype) and dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = int(info.min), int(info.max)
    else:
        return None
    if common_type(dt, dtype_of(stop)) is not dt or common_type(dt, dtype_of(step)) is not dt:
        return None  # the comparison or the increment would change the counter's type
    s = int(step)
    if s == 0:
        return None  # the general path reports it
    first, end = int(i), int(cast(stop, dt)) if dt is not WEAK_INT else int(stop)
    trips = len(range(first, end, s))
    return trips if lo <= first + trips * s <= hi else None  # the counter's last increment must not wrap


def counter(start: Any, stop: Any) -> Any:
    """A range loop's first value: start in the common (C) type of start and stop."""
    return binop("add", start, binop("sub", stop, stop))


def _merged_c(old: Any, new: Any) -> np.dtype:
    return default_dtype(common_type(old, new))


def assign(C: Any, m: Any, new: Any, old: Any, merged: Any = _merged_c) -> Any:
    """A variable's value after assigning `new` in the lanes of mask m (others keep `old`), in the type
    merged(old type, new type) gives (C's common type here; numba's unification in nops)."""
    if m is True or old is UNDEF or new is old:
        return new
    if m is False:
        return old
    if type(new) is tuple or type(old) is tuple:  # a tuple: each element merges
        if type(new) is not tuple or type(old) is not tuple or len(new) != len(old):
            raise TypeError("a variable holds a tuple in some threads and another value in others")
        return tuple(assign(C, m, a, b, merged) for a, b in zip(new, old, strict=True))
    new, old = val(new), val(old)
    dt = merged(dtype_of(old), dtype_of(new))
    out = np.empty(C.N, dt)
    out[...] = cast(old, dt)
    if type(m) is slice:
        out[m] = cast(new, dt)[m] if type(new) is ND else cast(new, dt)
    else:
        np.copyto(out, cast(new, dt), where=m)
    return out

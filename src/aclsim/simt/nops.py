"""The numpy engine's arithmetic under numba's typing rules (`ntype`), for kernels of the numba.cuda face.

The same values as `ops` (weak Python literals, numpy scalars, per-lane arrays, lazy `Idx` thread
indices) combined as numba types them: literals are int64/float64/complex128, integers compute 64 bits
wide, `/` of integers is float64, `//` and `%` are Python's, math functions of integers compute in
float64 and `math.floor`/`ceil`/`trunc` of a float give int64. Thread-index arithmetic stays lazy
(`ops.Idx`, uint32) and reads back as signed (LaunchContext.signed): exact while values fit in 32 bits.
The compiler swaps these in for the `ops` helpers of the same names (compiler.NUMBA_HELPERS).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from . import arrays, ops
from .ctype import WEAK_COMPLEX, WEAK_FLOAT, WEAK_INT, cast, dtype_of
from .mathfns import MathFn
from .ntype import BOOL, C128, F64, I64, binop_type, common_type
from .ops import ND, Idx, val

_UFUNC = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide, "floordiv": np.floor_divide,
    "mod": np.mod, "pow": np.power, "lshift": np.left_shift, "rshift": np.right_shift, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor,
}
_PYOP = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "pow": operator.pow, "lshift": operator.lshift,
    "rshift": operator.rshift, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
}
_CMP = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}
_WRAP64 = 1 << 64


def _wrap_int64(v: int) -> int:
    return (v + (1 << 63)) % _WRAP64 - (1 << 63)


def _literal(op: str, a: Any, b: Any) -> Any:
    """Two Python numbers: int64/float64 arithmetic in Python (a zero divisor gives C's values, not a raise)."""
    if op == "truediv":
        a, b = float(a), float(b) if not isinstance(b, complex) else b
        if b == 0:
            return math.copysign(math.inf, a) if a else math.nan
        return a / b
    if op in ("floordiv", "mod"):
        if b == 0:
            return 0 if type(a) is int and type(b) is int else math.nan
        r = a // b if op == "floordiv" else a % b
    else:
        r = _PYOP[op](a, b)
    return _wrap_int64(r) if type(r) is int else r


def binop(op: str, a: Any, b: Any) -> Any:
    """a <op> b with numba's types (see the module doc)."""
    if (type(a) is Idx or type(b) is Idx) and op in ("add", "sub", "mul"):
        r = ops.idx_binop(op, a, b)  # stays lazy; read back signed
        if r is not None:
            return r
    a, b = val(a), val(b)
    rt = binop_type(op, dtype_of(a), dtype_of(b))
    if rt is WEAK_INT or rt is WEAK_FLOAT or rt is WEAK_COMPLEX:
        return _literal(op, a, b)
    a, b = cast(a, rt), cast(b, rt)
    r = _UFUNC[op](a, b)
    return r if type(r) is ND or r.dtype == rt else cast(r, rt)


def compare(op: str, a: Any, b: Any) -> Any:
    a, b = val(a), val(b)
    rt = common_type(dtype_of(a), dtype_of(b))
    if rt is WEAK_INT or rt is WEAK_FLOAT or rt is WEAK_COMPLEX:
        return ops.PYCMP[op](a, b)
    return _CMP[op](cast(a, rt), cast(b, rt))


def cmp_mask(C: Any, op: str, a: Any, b: Any) -> Any:
    """The mask of lanes where `a <op> b`: thread-index bounds keep ops' slice fast path."""
    if type(a) is Idx or type(b) is Idx:
        return ops.cmp_mask(C, op, a, b)
    return ops.to_mask(C.N, compare(op, a, b))


def _typed(d: Any) -> np.dtype:
    """The dtype a variable of numba type d holds per lane (literals: int64, float64, complex128)."""
    return I64 if d is WEAK_INT else F64 if d is WEAK_FLOAT else C128 if d is WEAK_COMPLEX else d


def select(c: Any, a: Any, b: Any) -> Any:
    c = ops.truth(c)
    if type(c) is not ND:
        return a if c else b
    a, b = val(a), val(b)
    rt = _typed(common_type(dtype_of(a), dtype_of(b)))
    return np.where(c, cast(a, rt), cast(b, rt))


def minmax(ufunc: Any, *args: Any) -> Any:
    r = val(args[0])
    for x in args[1:]:
        x = val(x)
        rt = common_type(dtype_of(r), dtype_of(x))
        if rt is WEAK_INT or rt is WEAK_FLOAT:
            r = min(r, x) if ufunc is np.minimum else max(r, x)
        else:
            r = ufunc(cast(r, rt), cast(x, rt))
    return r


_TO_INT = {"floor", "ceil", "trunc"}


def _float_arg(v: Any) -> Any:
    v = val(v)
    d = dtype_of(v)
    if d is WEAK_INT:
        return float(v)
    if d is WEAK_FLOAT or d is WEAK_COMPLEX or d.kind in "fc":
        return v
    return cast(v, F64)  # integers and bools: float64, as numba's math functions take them


def math_call(fn: MathFn, *args: Any) -> Any:
    """A math function as numba types it: integers in float64, floats keep their type; floor, ceil and
    trunc of a float give int64."""
    if fn.nargs == 1:
        r = ops.math_call(fn, _float_arg(args[0]))
    elif fn.args == "float,int":
        r = ops.math_call(fn, _float_arg(args[0]), args[1])
    else:
        a, b = _float_arg(args[0]), _float_arg(args[1])
        rt = common_type(dtype_of(a), dtype_of(b))
        r = ops.math_call(fn, cast(a, rt), cast(b, rt)) if isinstance(rt, np.dtype) else ops.math_call(fn, a, b)
    if fn.name in _TO_INT:
        return int(r) if type(r) is float and math.isfinite(r) else cast(r, I64)
    return r


def fma(a: Any, b: Any, c: Any) -> Any:
    return binop("add", binop("mul", a, b), c)


def _merged(old: Any, new: Any) -> np.dtype:
    return _typed(common_type(old, new))


def assign(C: Any, m: Any, new: Any, old: Any) -> Any:
    """A variable's value after assigning `new` in the lanes of m: numba unifies the two types."""
    return ops.assign(C, m, new, old, _merged)


def counter(start: Any, stop: Any) -> Any:
    """A range loop's first value: numba's range counters are int64 (uint64 for unsigned bounds)."""
    start, stop = val(start), val(stop)
    rt = common_type(dtype_of(start), dtype_of(stop))
    if rt is WEAK_INT:
        return start
    if not isinstance(rt, np.dtype) or rt.kind not in "iub":
        raise TypeError(f"range() needs integers, got {rt}")
    return cast(start, rt if rt != BOOL else I64)


def _agrees(v: Any, dt: np.dtype) -> bool:
    """Whether numba's `v op x` into dt's memory is C's for an operand v (the fused store's condition):
    arrays and scalars of dt itself, Python ints into integers of any width (the wrapped result is the
    same) or into float64, Python floats into float64."""
    t = type(v)
    if t is ND or isinstance(v, np.generic):
        return v.dtype == dt
    if t is int:
        return dt.kind in "iu" or dt == F64
    return t is float and dt == F64


def store_binop(C: Any, A: Any, idx: Any, op: str, a: Any, b: Any, m: Any, line: int) -> None:
    """A[idx] = a <op> b (an operand may be a pending (op, x, y)): computed into memory as `arrays` does
    when numba's types give the same values as C's there, else in numba's types and then stored."""
    dt = getattr(A, "dtype", None)
    parts = [x for v in (a, b) for x in (v[1:] if type(v) is tuple else (v,))]
    if isinstance(dt, np.dtype) and dt.kind in "iuf" and all(_agrees(val(x), dt) for x in parts):
        return arrays.store_binop(C, A, idx, op, a, b, m, line)
    ready = [binop(*v) if type(v) is tuple else v for v in (a, b)]
    return arrays.store(C, A, idx, binop(op, *ready), m, line)

"""The math functions kernels may call: `math.*` (the set numba supports in CUDA kernels), `simt.*`
and the matching numpy ufuncs, each with its per-lane implementation and result type.

Arguments convert as in C's math library with simt's float extension: float16/float32/float64 keep
their type (two arguments take the wider), integers become float32, and Python literals adopt the
other operand's type. Predicates (`isnan`, `isinf`, `isfinite`) give bool; `frexp` gives
(mantissa, int32 exponent) and `modf` (fraction, integral part), for tuple unpacking.

Functions numpy has no ufunc for (erf, erfc, gamma, lgamma, remainder) run element by element
through Python's `math`, with the C library's results where Python raises instead (poles give
inf or nan, as CUDA's tgamma/lgamma/remainder do).
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from typing import Any

import numpy as np


class MathFn:
    """One math function: its name, arity, per-lane implementation and result kind.

    result: "float" (the argument's float type), "bool", or "split" (two results, see module doc).
    args: "float" (all arguments converted to one float type) or "float,int" (ldexp).
    """

    def __init__(self, name: str, nargs: int, impl: Callable[..., Any], result: str = "float",
                 args: str = "float") -> None:
        self.name, self.nargs, self.impl, self.result, self.args = name, nargs, impl, result, args

    def __repr__(self) -> str:
        return f"<math {self.name}>"


def _elementwise(fn: Callable[..., float], nargs: int) -> Callable[..., Any]:
    """A numpy-style function computing `fn` in float64 per element (the result keeps the input type)."""
    ufunc = np.frompyfunc(fn, nargs, 1)

    def run(*args: Any) -> Any:
        dt = np.result_type(*args)
        wide = [np.asarray(a, np.float64) for a in args]
        out = ufunc(*wide)
        return np.asarray(out, np.float64).astype(dt)[()] if np.ndim(out) == 0 else out.astype(np.float64).astype(dt)

    return run


def _gamma(x: float) -> float:
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf
    except ValueError:  # a pole: tgamma(+-0) = +-inf, negative integers and -inf give nan
        return math.copysign(math.inf, x) if x == 0 else math.nan


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):  # poles (0, negative integers): lgamma = +inf
        return math.inf


def _remainder(x: float, y: float) -> float:
    try:
        return math.remainder(x, y)
    except ValueError:  # remainder(x, 0) and remainder(inf, y) are nan in C
        return math.nan


_TABLE = [
    MathFn("sqrt", 1, np.sqrt), MathFn("exp", 1, np.exp), MathFn("exp2", 1, np.exp2), MathFn("expm1", 1, np.expm1),
    MathFn("log", 1, np.log), MathFn("log2", 1, np.log2), MathFn("log10", 1, np.log10),
    MathFn("log1p", 1, np.log1p), MathFn("cbrt", 1, np.cbrt),
    MathFn("sin", 1, np.sin), MathFn("cos", 1, np.cos), MathFn("tan", 1, np.tan),
    MathFn("asin", 1, np.arcsin), MathFn("acos", 1, np.arccos), MathFn("atan", 1, np.arctan),
    MathFn("sinh", 1, np.sinh), MathFn("cosh", 1, np.cosh), MathFn("tanh", 1, np.tanh),
    MathFn("asinh", 1, np.arcsinh), MathFn("acosh", 1, np.arccosh), MathFn("atanh", 1, np.arctanh),
    MathFn("floor", 1, np.floor), MathFn("ceil", 1, np.ceil), MathFn("trunc", 1, np.trunc),
    MathFn("fabs", 1, np.fabs), MathFn("round", 1, np.rint),
    MathFn("erf", 1, _elementwise(math.erf, 1)), MathFn("erfc", 1, _elementwise(math.erfc, 1)),
    MathFn("gamma", 1, _elementwise(_gamma, 1)), MathFn("lgamma", 1, _elementwise(_lgamma, 1)),
    MathFn("isnan", 1, np.isnan, "bool"), MathFn("isinf", 1, np.isinf, "bool"),
    MathFn("isfinite", 1, np.isfinite, "bool"),
    MathFn("frexp", 1, np.frexp, "split"), MathFn("modf", 1, np.modf, "split"),
    MathFn("pow", 2, np.power), MathFn("atan2", 2, np.arctan2), MathFn("hypot", 2, np.hypot),
    MathFn("copysign", 2, np.copysign), MathFn("fmod", 2, np.fmod),
    MathFn("remainder", 2, _elementwise(_remainder, 2)),
    MathFn("ldexp", 2, np.ldexp, args="float,int"),
    MathFn("degrees", 1, np.degrees), MathFn("radians", 1, np.radians), MathFn("nextafter", 2, np.nextafter),
]
MATH: dict[str, MathFn] = {f.name: f for f in _TABLE}

# numpy ufuncs a kernel may call under their numpy names (np.sqrt(x), np.hypot(x, y), ...).
UFUNC_NAMES = {f.impl: f.name for f in _TABLE if isinstance(f.impl, np.ufunc) and f.name != "round"}


# ---------------------------------------------------------------------------- cmath
def _log(z: Any, base: Any = None) -> Any:
    return cmath.log(z) if base is None else cmath.log(z, base)


_CM_UNARY = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
}
# name -> (number of arguments, per-element function over complex128, result: complex/float/bool/split)
CMATH: dict[str, tuple[int, Callable[..., Any], str]] = {
    **{n: (1, getattr(cmath, n), "complex") for n in _CM_UNARY},
    "phase": (1, cmath.phase, "float"), "polar": (1, cmath.polar, "split"),
    "isnan": (1, cmath.isnan, "bool"), "isinf": (1, cmath.isinf, "bool"), "isfinite": (1, cmath.isfinite, "bool"),
    "rect": (2, cmath.rect, "complex"),
}
CMATH_FALLBACK = {**_CM_UNARY, "rect": lambda r, p: r * np.exp(1j * p), "log_base": lambda z, b: np.log(z) / np.log(b)}


def cmath_apply(name: str, args: list[Any]) -> Any:
    """cmath.<name> over complex128 values (numpy arrays or scalars): per element, in Python's cmath."""
    fn = CMATH[name][1] if not (name == "log" and len(args) == 2) else _log
    fallback = CMATH_FALLBACK.get("log_base" if fn is _log else name, np.sqrt)

    def safe(*a: Any) -> Any:
        try:
            return fn(*a)
        except (ValueError, OverflowError):
            with np.errstate(all="ignore"):
                return complex(fallback(*(np.complex128(x) for x in a)))

    return np.frompyfunc(safe, len(args), 1)(*args)

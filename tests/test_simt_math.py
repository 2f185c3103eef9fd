"""Math functions in kernels (every one numba supports in CUDA kernels), under `if` and in loops, and
the hygiene of the generated code: no user name or math function can collide with generated names."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aclsim
from aclsim import simt
from aclsim.simt import Ptr
from aclsim.simt.mathfns import MATH


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


def run(kernel, n, *arrays):
    """Launch over n threads (blocks of 64) on device copies; returns the arrays afterwards."""
    dev = [aclsim.to_device(a) for a in arrays]
    kernel[(n + 63) // 64, 64](*dev, n)
    aclsim.Stream.default().synchronize()
    return [d.copy_to_host() for d in dev]


# Inputs inside each function's domain, and where it matters its special values.
_DOMAIN = {
    "acos": (-1, 1), "asin": (-1, 1), "atanh": (-0.95, 0.95), "acosh": (1, 20),
    "log": (0.01, 50), "log2": (0.01, 50), "log10": (0.01, 50), "log1p": (-0.9, 50), "sqrt": (0, 100),
    "gamma": (-4.5, 6), "lgamma": (-4.5, 30), "exp": (-20, 20), "expm1": (-5, 5), "exp2": (-20, 20),
}
ONE_ARG = sorted(n for n, f in MATH.items() if f.nargs == 1 and f.result == "float")
PREDICATES = sorted(n for n, f in MATH.items() if f.result == "bool")


def _inputs(name: str, dtype: type) -> np.ndarray:
    lo, hi = _DOMAIN.get(name, (-30, 30))
    x = np.random.default_rng(len(name)).uniform(lo, hi, 200)
    if name in ("floor", "ceil", "trunc", "round"):
        x[:4] = [-2.5, -0.5, 0.5, 2.5]  # halfway cases
    return x.astype(dtype)


def _reference(name: str, x: np.ndarray) -> np.ndarray:
    """Python's math module element by element (independent of the kernel's numpy implementation)."""
    f = {"round": lambda v: float(np.rint(v)), "exp2": lambda v: 2.0**v}.get(name) or getattr(math, name)
    return np.array([f(float(v)) for v in x], np.float64)


def one_arg_kernel(fn):
    @simt.kernel
    def k(a: Ptr[np.float64], out: Ptr[np.float64], n: np.uint32):
        i = simt.grid(1)
        if i < n:
            out[i] = fn(a[i])

    return k


@pytest.mark.parametrize(("name", "via"), [(n, v) for n in ONE_ARG for v in ("math", "simt") if hasattr(eval(v), n)])
def test_every_one_argument_function_under_if(name, via):
    fn = getattr(math if via == "math" else simt, name)
    x = _inputs(name, np.float64)
    out = run(one_arg_kernel(fn), 199, x, np.full(200, -7.0))[1]  # the last thread fails the if
    np.testing.assert_allclose(out[:199], _reference(name, x[:199]), rtol=1e-13, atol=1e-300)
    assert out[199] == -7.0


@simt.kernel
def predicates(a: Ptr[np.float32], nan: Ptr[np.int32], inf: Ptr[np.int32], fin: Ptr[np.int32], n: np.uint32):
    i = simt.grid(1)
    if i < n:
        nan[i] = math.isnan(a[i])
        inf[i] = 1 if math.isinf(a[i]) else 0
        if math.isfinite(a[i]):
            fin[i] = 1


def test_predicates_give_bools_usable_as_values_and_conditions():
    x = np.array([0, 1.5, np.nan, np.inf, -np.inf, -0.0, np.float32(3e38), -np.nan], np.float32)
    z = np.zeros(8, np.int32)
    _, nan, inf, fin = run(predicates, 8, x, z, z, z)
    assert nan.tolist() == [int(math.isnan(v)) for v in x.tolist()]
    assert inf.tolist() == [int(math.isinf(v)) for v in x.tolist()]
    assert fin.tolist() == [int(math.isfinite(v)) for v in x.tolist()]
    assert PREDICATES == ["isfinite", "isinf", "isnan"]


@simt.kernel
def two_args(a: Ptr[np.float64], b: Ptr[np.float64], e: Ptr[np.int32], out: Ptr[np.float64], n: np.uint32):
    i = simt.grid(1)
    if i < n:
        out[8 * i] = math.pow(a[i], b[i])
        out[8 * i + 1] = math.atan2(a[i], b[i])
        out[8 * i + 2] = math.hypot(a[i], b[i])
        out[8 * i + 3] = math.copysign(a[i], b[i])
        out[8 * i + 4] = math.fmod(a[i], b[i])
        out[8 * i + 5] = math.remainder(a[i], b[i])
        out[8 * i + 6] = math.ldexp(a[i], e[i])
        m, x = math.frexp(a[i])
        frac, whole = math.modf(b[i])
        out[8 * i + 7] = m * 1000 + x + frac * 10 + whole * 100


def test_two_argument_functions_and_tuple_results():
    rng = np.random.default_rng(5)
    a = np.abs(rng.uniform(-9, 9, 64))
    b = rng.uniform(-9, 9, 64)
    e = rng.integers(-10, 10, 64).astype(np.int32)
    out = run(two_args, 64, a, b, e, np.zeros(64 * 8))[3].reshape(64, 8)
    pairs = list(zip(a.tolist(), b.tolist(), e.tolist(), strict=True))
    expect = np.array([[math.pow(x, y), math.atan2(x, y), math.hypot(x, y), math.copysign(x, y), math.fmod(x, y),
                        math.remainder(x, y), math.ldexp(x, k),
                        math.frexp(x)[0] * 1000 + math.frexp(x)[1] + math.modf(y)[0] * 10 + math.modf(y)[1] * 100]
                       for x, y, k in pairs])
    np.testing.assert_allclose(out, expect, rtol=1e-13)


def test_c_library_results_at_poles_instead_of_python_exceptions():
    x = np.array([0.0, -0.0, -3.0, 1e6, -np.inf], np.float64)
    g = run(one_arg_kernel(math.gamma), 5, x, np.zeros(5))[1]
    lg = run(one_arg_kernel(math.lgamma), 5, x, np.zeros(5))[1]
    assert g[0] == np.inf and g[1] == -np.inf and np.isnan(g[2]) and g[3] == np.inf and np.isnan(g[4])
    assert lg[:3].tolist() == [np.inf] * 3 and lg[3] == pytest.approx(math.lgamma(1e6))


@simt.kernel
def float32_math(a: Ptr[np.float32], i32: Ptr[np.int32], out: Ptr[np.float64], n: np.uint32):
    i = simt.grid(1)
    if i < n:
        out[3 * i] = math.erf(a[i])  # float32 stays float32
        out[3 * i + 1] = math.hypot(a[i], 2.0)  # the literal does not widen it
        out[3 * i + 2] = math.sqrt(i32[i])  # an integer argument gives float32


def test_float32_arguments_keep_float32_and_integers_give_float32():
    x = np.linspace(-2, 2, 32, dtype=np.float32)
    ints = np.arange(32, dtype=np.int32)
    out = run(float32_math, 32, x, ints, np.zeros(96))[2].reshape(32, 3)
    assert np.array_equal(out[:, 0], np.array([math.erf(v) for v in x.tolist()], np.float32).astype(np.float64))
    assert np.array_equal(out[:, 1], np.hypot(x, np.float32(2)).astype(np.float64))
    assert np.array_equal(out[:, 2], np.sqrt(ints.astype(np.float32)).astype(np.float64))


# ------------------------------------------------------------------------------------ hygiene
@simt.kernel
def user_names_like_generated_ones(a: Ptr[np.float32], out: Ptr[np.float32], n: np.uint32):
    h_math = simt.grid(1)
    t_m1 = 2.0
    g_0 = 1
    C = 3
    m = 0
    np_ = 5
    if h_math < n:
        if a[h_math] > 0:
            t_m1 = math.sqrt(a[h_math])
        else:
            t_m1 = math.fabs(a[h_math])
        for _m in range(C):
            m += g_0 + np_
        out[h_math] = t_m1 + m


def test_user_names_that_look_generated_do_not_collide():
    x = np.linspace(-4, 4, 100, dtype=np.float32)
    out = run(user_names_like_generated_ones, 100, x, np.zeros(100, np.float32))[1]
    expect = np.where(x > 0, np.sqrt(np.abs(x)), np.abs(x)) + np.float32(18)
    assert np.array_equal(out, expect.astype(np.float32))


@simt.kernel
def nested_ifs_with_math(a: Ptr[np.float64], out: Ptr[np.float64], n: np.uint32):
    i = simt.grid(1)
    if i < n:
        v = a[i]
        if v > 1:
            if math.isfinite(math.log(v)):
                out[i] = math.exp(math.log(v)) + math.floor(v)
        elif v < -1:
            out[i] = math.ceil(v) + math.tanh(v) if math.fabs(v) < 5 else math.trunc(v)
        else:
            out[i] = math.asin(v) + math.acos(v) + math.atan(v)


def test_nested_ifs_with_many_math_calls():
    x = np.linspace(-8, 8, 333)
    out = run(nested_ifs_with_math, 333, x, np.zeros(333))[1]

    def ref(v):
        if v > 1:
            return math.exp(math.log(v)) + math.floor(v)
        if v < -1:
            return math.ceil(v) + math.tanh(v) if abs(v) < 5 else math.trunc(v)
        return math.asin(v) + math.acos(v) + math.atan(v)

    np.testing.assert_allclose(out, [ref(v) for v in x.tolist()], rtol=1e-14)


# ------------------------------------------------------------------------------------ refusals
def test_tuple_results_must_be_unpacked():
    @simt.kernel
    def k(a: Ptr[np.float32], n: np.uint32):
        a[0] = math.frexp(a[1])

    with pytest.raises(simt.SimtError, match=r"math.frexp\(\) as a single value.*a, b = math.frexp"):
        k.compile()


def test_ldexp_refuses_a_float_exponent_when_it_runs():
    @simt.kernel
    def k(a: Ptr[np.float32], n: np.uint32):
        a[0] = math.ldexp(a[1], a[2])

    d = aclsim.to_device(np.ones(4, np.float32))
    k[1, 1](d, 1)
    with pytest.raises(aclsim.AclError, match="exponent must be an integer"):
        aclsim.Stream.default().synchronize()

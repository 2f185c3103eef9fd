"""asc.adv element-wise math: results agree with numpy/math references computed in float and rounded to
the tensor's type; count, temp_buffer and overlap rules are enforced with the call's line."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm

N = 512


def _bufs(pipe, dtype, count):
    """`count` scratch tensors of N elements of `dtype`."""
    out = []
    for _ in range(count):
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(b, N * dtype.sizeof())
        out.append(b.get(dtype))
    return out


@asc.jit
def unary_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, op: str, count: int, tmp_bytes: int):
    pipe = asc.TPipe()
    a, b = _bufs(pipe, x.dtype, 2)
    asc.data_copy(a, _gm(x), N)
    tmp = None
    if tmp_bytes:
        t = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(t, tmp_bytes)
        tmp = t.get(asc.uint8)
    asc.duplicate(b, 0.0, N)
    getattr(asc.adv, op)(b, a, count if count >= 0 else None, temp_buffer=tmp)
    asc.data_copy(_gm(y), b, N)


def _vec(fn):
    return lambda x: np.vectorize(fn, otypes=[np.float64])(x)


# name: (reference on float64 values, input range)
REFS = {
    "tanh": (np.tanh, (-5, 5)), "sin": (np.sin, (-10, 10)), "cos": (np.cos, (-10, 10)), "tan": (np.tan, (-1.5, 1.5)),
    "asin": (np.arcsin, (-1, 1)), "acos": (np.arccos, (-1, 1)), "atan": (np.arctan, (-20, 20)),
    "sinh": (np.sinh, (-5, 5)), "cosh": (np.cosh, (-5, 5)), "asinh": (np.arcsinh, (-20, 20)),
    "acosh": (np.arccosh, (1, 20)), "atanh": (np.arctanh, (-0.99, 0.99)), "log": (np.log, (0.01, 100)),
    "erf": (_vec(math.erf), (-4, 4)), "erfc": (_vec(math.erfc), (-3, 5)), "lgamma": (_vec(math.lgamma), (0.1, 30)),
    "digamma": (None, (0.5, 30)), "sign": (np.sign, (-3, 3)), "floor": (np.floor, (-50, 50)),
    "ceil": (np.ceil, (-50, 50)), "trunc": (np.trunc, (-50, 50)), "round": (np.rint, (-50, 50)),
    "frac": (lambda v: v - np.trunc(v), (-50, 50)),
}


def _digamma_ref(x):
    h = 1e-6  # central difference of math.lgamma: accurate to ~1e-8 away from the poles
    return (_vec(math.lgamma)(x + h) - _vec(math.lgamma)(x - h)) / (2 * h)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", sorted(REFS))
def test_unary_math_matches_a_float_reference_rounded_to_the_type(op, dtype):
    ref, (lo, hi) = REFS[op]
    rng = np.random.default_rng(7)
    x = rng.uniform(lo, hi, N).astype(dtype)
    if op in ("round", "floor", "ceil", "trunc", "frac"):
        x[:8] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.0, -3.0], dtype)  # ties and integers
    y = np.zeros(N, dtype)
    unary_kernel[1](x, y, op, -1, 0)
    xs = x.astype(np.float64)
    want = (_digamma_ref(xs) if op == "digamma" else ref(xs)).astype(dtype)
    tol = 2e-3 if dtype == np.float16 else 2e-6
    np.testing.assert_allclose(y.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


def test_round_is_half_to_even_and_frac_keeps_the_sign():
    x = np.zeros(N, np.float32)
    x[:6] = [0.5, 1.5, 2.5, -2.5, -258.41888, 5592.625]
    y, z = np.zeros(N, np.float32), np.zeros(N, np.float32)
    unary_kernel[1](x, y, "round", -1, 0)
    unary_kernel[1](x, z, "frac", -1, 0)
    np.testing.assert_array_equal(y[:4], [0.0, 2.0, 2.0, -2.0])
    np.testing.assert_allclose(z[4:6], [np.float32(-258.41888) - np.float32(-258.0), 0.625])


def test_count_limits_the_elements_and_the_rest_stays():
    x = np.linspace(-2, 2, N).astype(np.float32)
    y = np.zeros(N, np.float32)
    unary_kernel[1](x, y, "tanh", 100, 256)
    np.testing.assert_allclose(y[:100], np.tanh(x[:100]), rtol=1e-6)
    assert not y[100:].any()


def test_temp_buffer_below_the_documented_minimum_is_refused():
    x = np.ones(N, np.float16)
    with pytest.raises(asc.AscError, match=r"asc\.adv\.tanh: temp_buffer holds 512 bytes but asc\.adv\.tanh needs "
                                           r"at least 1024 \(the minValue of its host helper GetTanhMaxMinTmpSize\)"):
        unary_kernel[1](x, np.zeros(N, np.float16), "tanh", -1, 512)
    unary_kernel[1](x, np.zeros(N, np.float16), "tanh", -1, 1024)  # half tanh: 4 repeats of 256 bytes


def test_unsupported_type_and_count_past_the_tensor_fail_at_the_call():
    with pytest.raises(asc.AscError, match=r"asc\.adv\.sin: operands of type int32 are not supported"):
        unary_kernel[1](np.ones(N, np.int32), np.zeros(N, np.int32), "sin", -1, 0)
    with pytest.raises(asc.AscError, match=r"asc\.adv\.sin: .*tensor size overflow.*test_asc_adv_math\.py"):
        unary_kernel[1](np.ones(N, np.float32), np.zeros(N, np.float32), "sin", 4 * N, 0)


def test_in_place_call_is_refused_as_documented():
    @asc.jit
    def in_place(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        (a,) = _bufs(pipe, asc.float32, 1)
        asc.data_copy(a, _gm(x), N)
        asc.adv.sin(a, a, N)

    with pytest.raises(asc.AscError, match=r"asc\.adv\.sin: dst \(UB offset 0\) overlaps a source"):
        in_place[1](np.ones(N, np.float32))


def test_temp_buffer_overlapping_an_operand_or_not_uint8_is_refused():
    @asc.jit
    def bad_tmp(x: asc.GlobalAddress, kind: str):
        pipe = asc.TPipe()
        a, b = _bufs(pipe, asc.float32, 2)
        asc.data_copy(a, _gm(x), N)
        tmp = a.reinterpret_cast(asc.uint8) if kind == "overlap" else b
        asc.adv.cos(b if kind == "overlap" else a[N // 2:], a, N // 2, tmp)

    with pytest.raises(asc.AscError, match=r"temp_buffer .* overlaps an operand"):
        bad_tmp[1](np.ones(N, np.float32), "overlap")
    with pytest.raises(asc.AscError, match=r"temp_buffer must be a uint8 LocalTensor"):
        bad_tmp[1](np.ones(N, np.float32), "type")


@asc.jit
def binary_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, op: str):
    pipe = asc.TPipe()
    a, b, c = _bufs(pipe, x.dtype, 3)
    asc.data_copy(a, _gm(x), N)
    asc.data_copy(b, _gm(y), N)
    getattr(asc.adv, op)(c, a, b)
    asc.data_copy(_gm(z), c, N)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_power_of_floats_is_computed_in_float(dtype):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 4, N).astype(dtype)
    e = rng.uniform(-3, 3, N).astype(dtype)
    z = np.zeros(N, dtype)
    binary_kernel[1](x, e, z, "power")
    want = np.power(x.astype(np.float64), e.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(z.astype(np.float64), want.astype(np.float64), rtol=2e-3 if dtype == np.float16 else 1e-5)


def test_power_of_int32_uses_integer_semantics():
    x = np.tile(np.array([2, -3, 1, -1, 5, 0, 7, -2], np.int32), N // 8)
    e = np.tile(np.array([10, 3, -4, -3, -1, 4, 0, 5], np.int32), N // 8)
    z = np.zeros(N, np.int32)
    binary_kernel[1](x, e, z, "power")
    want = [int(b) ** int(p) if p >= 0 else (1 if b == 1 else (-1) ** int(p) if b == -1 else 0)
            for b, p in zip(x, e, strict=True)]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
def test_xor_of_16_bit_integers(dtype):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, N, dtype=dtype)
    y = rng.integers(info.min, info.max, N, dtype=dtype)
    z = np.zeros(N, dtype)
    binary_kernel[1](x, y, z, "xor")
    np.testing.assert_array_equal(z, np.bitwise_xor(x, y))


@asc.jit
def axpy_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, scalar: float):
    pipe = asc.TPipe()
    (a,) = _bufs(pipe, x.dtype, 1)
    (b,) = _bufs(pipe, y.dtype, 1)
    asc.data_copy(a, _gm(x), N)
    asc.data_copy(b, _gm(y), N)
    asc.adv.axpy(b, a, scalar, N)
    asc.data_copy(_gm(y), b, N)


@pytest.mark.parametrize(("src_t", "dst_t"), [(np.float16, np.float16), (np.float32, np.float32),
                                              (np.float16, np.float32)])
def test_axpy_accumulates_src_times_scalar_into_dst(src_t, dst_t):
    rng = np.random.default_rng(9)
    x = rng.uniform(-4, 4, N).astype(src_t)
    y = rng.uniform(-4, 4, N).astype(dst_t)
    want = (y.astype(np.float32) + x.astype(np.float32) * np.float32(src_t(1.5))).astype(dst_t)
    axpy_kernel[1](x, y, 1.5)
    np.testing.assert_array_equal(y, want)


def test_axpy_refuses_a_half_destination_with_a_float_source():
    with pytest.raises(asc.AscError, match=r"asc\.adv\.axpy: dst float16 with src float32 is not supported"):
        axpy_kernel[1](np.ones(N, np.float32), np.zeros(N, np.float16), 2.0)


@asc.jit
def exp_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, level: int):
    pipe = asc.TPipe()
    a, b = _bufs(pipe, x.dtype, 2)
    asc.data_copy(a, _gm(x), N)
    asc.adv.exp(b, a, N, level)
    asc.data_copy(_gm(y), b, N)


def test_exp_without_taylor_terms_is_exp():
    x = np.linspace(-8, 8, N).astype(np.float32)
    y = np.zeros(N, np.float32)
    exp_kernel[1](x, y, 0)
    np.testing.assert_allclose(y, np.exp(x.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("level", [1, 3, 10])
def test_exp_taylor_level_sets_the_precision(level):
    x = np.linspace(-8, 8, N).astype(np.float32)
    y = np.zeros(N, np.float32)
    exp_kernel[1](x, y, level)
    xs = x.astype(np.float64)
    whole, part = np.floor(xs), xs - np.floor(xs)
    series = sum(part ** k / math.factorial(k) for k in range(level + 1))
    np.testing.assert_allclose(y, np.exp(whole) * series, rtol=1e-5)
    if level < 10:  # a short series really is less precise
        assert np.max(np.abs(y / np.exp(xs) - 1)) > 1e-4


def test_a_pyasc_adv_name_aclsim_lacks_raises_not_emulated():
    from aclsim.asc import coverage

    lacking = [n for n in coverage.pyasc_names()["asc.language.adv"] if not hasattr(asc.adv, n)]
    if not lacking:
        pytest.skip("aclsim emulates every asc.adv name")
    with pytest.raises(asc.NotEmulatedError, match=rf"asc\.adv\.{lacking[0]} is a pyasc API that aclsim does not emulate"):
        getattr(asc.adv, lacking[0])
    with pytest.raises(AttributeError, match=r"pyasc 1\.1\.1 has no such name either"):
        asc.adv.no_such_api  # noqa: B018


def test_reading_a_source_never_written_faults_as_for_any_vector_instruction():
    @asc.jit
    def unwritten(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        a, b = _bufs(pipe, asc.float32, 2)
        asc.data_copy(a, _gm(x), N // 2)  # only the first half
        asc.adv.tanh(b, a, N)

    with pytest.raises(asc.AscError, match=r"asc\.adv\.tanh: reads 512 x float32 but element 256 .* never written"):
        unwritten[1](np.ones(N, np.float32))


def test_every_pyasc_adv_name_is_emulated_or_says_it_is_not():
    from aclsim.asc import coverage

    for name in coverage.pyasc_names()["asc.language.adv"]:
        try:
            getattr(asc.adv, name)
        except asc.NotEmulatedError as e:
            assert f"asc.adv.{name} is a pyasc API that aclsim does not emulate" in str(e)

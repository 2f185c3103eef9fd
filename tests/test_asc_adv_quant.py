"""asc.adv.quant: int8 = rint(half(src) * half(scale) + half(offset)), saturated; count, QuantConfig and the
temporary buffer behave as the AscendQuant kernel does."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm

N = 256


@asc.jit
def quant_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, scale: float, offset: float, count: int,
                 tmp_bytes: int, config: tuple):
    src = asc.LocalTensorAuto(x.dtype, N)
    dst = asc.LocalTensorAuto(asc.int8, N)
    asc.data_copy(src, _gm(x), N)
    asc.duplicate(dst.reinterpret_cast(asc.int16), 0, N // 2)
    tmp = asc.LocalTensorAuto(asc.uint8, tmp_bytes) if tmp_bytes else None
    cfg = asc.adv.QuantConfig(*config) if config else None
    asc.adv.quant(dst, src, scale, offset, count if count >= 0 else None, tmp, config=cfg)
    asc.data_copy(_gm(y), dst, N)


def _reference(x, scale, offset):
    h = x.astype(np.float16)
    y = (h * np.float16(scale)).astype(np.float16) + np.float16(offset)
    return np.clip(np.rint(y.astype(np.float64)), -128, 127).astype(np.int8)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_quant_rounds_half_to_even_after_half_arithmetic(dtype):
    rng = np.random.default_rng(11)
    x = rng.uniform(-40, 40, N).astype(dtype)
    x[:4] = [0.25, 0.75, -0.25, 1.25]  # *2 -> ties 0.5, 1.5, -0.5, 2.5
    y = np.zeros(N, np.int8)
    quant_kernel[1](x, y, 2.0, 0.0, -1, 512, ())
    np.testing.assert_array_equal(y[:4], [0, 2, 0, 2])
    np.testing.assert_array_equal(y, _reference(x, 2.0, 0.0))


def test_float_source_is_quantised_through_half():
    x = np.full(N, 1.0004883, np.float32)  # between two halves: rounds to 1.0 in half
    y = np.zeros(N, np.int8)
    quant_kernel[1](x, y, 1024.0, 0.0, -1, 512, ())
    assert (y == 127).all()  # 1024 saturates
    quant_kernel[1](x, y, 100.0, 0.6, -1, 512, ())
    np.testing.assert_array_equal(y, _reference(x, 100.0, 0.6))


def test_count_limits_the_elements_and_out_of_range_saturates():
    x = np.linspace(-300, 300, N).astype(np.float16)
    y = np.zeros(N, np.int8)
    quant_kernel[1](x, y, 1.0, 0.0, 100, 0, ())
    np.testing.assert_array_equal(y[:100], _reference(x[:100], 1.0, 0.0))
    assert y[0] == -128 and not y[100:].any()


def test_config_calc_count_fixes_the_count():
    x = np.ones(N, np.float16)
    y = np.zeros(N, np.int8)
    quant_kernel[1](x, y, 3.0, 0.0, N, 512, (64, 0, 0, 512))
    assert (y[:64] == 3).all() and not y[64:].any()


def test_small_temp_buffer_and_oversized_config_are_refused():
    x = np.ones(N, np.float16)
    with pytest.raises(asc.AscError, match=r"asc\.adv\.quant: temp_buffer holds 256 bytes but asc\.adv\.quant needs "
                                           r"at least 512"):
        quant_kernel[1](x, np.zeros(N, np.int8), 1.0, 0.0, -1, 256, ())
    with pytest.raises(asc.AscError, match=r"config\.work_local_size 1024 is larger than temp_buffer's 512 bytes"):
        quant_kernel[1](x, np.zeros(N, np.int8), 1.0, 0.0, -1, 512, (32, 0, 0, 1024))


def test_quant_needs_an_int8_destination():
    @asc.jit
    def wrong(x: asc.GlobalAddress):
        src = asc.LocalTensorAuto(x.dtype, N)
        asc.data_copy(src, _gm(x), N)
        asc.adv.quant(asc.LocalTensorAuto(asc.int16, N), src, 1.0, 0.0)

    with pytest.raises(asc.AscError, match=r"asc\.adv\.quant: dst must be an int8 tensor, got int16"):
        wrong[1](np.ones(N, np.float16))

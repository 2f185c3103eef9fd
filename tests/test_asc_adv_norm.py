"""asc.adv.rmsnorm: [B, S, H] from the tiling, normalised per row against numpy in float; an empty tiling,
a misaligned H and dst sharing gamma's memory are refused."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm


def _tiling(b, s, h, original_h=None):
    t = asc.adv.RmsNormTiling()
    t.b_length, t.s_length, t.h_length = b, s, h
    t.original_h_length = original_h or h
    t.reciprocal_of_h_length = 1.0 / (original_h or h)
    return t


@asc.jit
def rmsnorm_kernel(x: asc.GlobalAddress, g: asc.GlobalAddress, y: asc.GlobalAddress, eps: float,
                   tiling: asc.adv.RmsNormTiling, n: int, h: int, case: str):
    src = asc.LocalTensorAuto(x.dtype, n)
    block = asc.LocalTensorAuto(x.dtype, n + h)  # gamma, then room for dst
    gamma = block
    dst = {"in_place": src, "dst_on_gamma": block[32:]}.get(case, block[h:])
    asc.data_copy(src, _gm(x), n)
    asc.data_copy(gamma, _gm(g), h)
    tmp = asc.LocalTensorAuto(asc.uint8, 256 if case == "small_tmp" else 1024)
    asc.adv.rmsnorm(dst, src, gamma, eps, tiling, tmp)
    asc.data_copy(_gm(y), dst, n)


def _reference(x, g, eps, original_h):
    x64 = x.astype(np.float64)
    ms = np.square(x64).sum(axis=-1, keepdims=True) / original_h
    return x64 / np.sqrt(ms + eps) * g.astype(np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", ["out", "in_place"])
def test_rmsnorm_matches_numpy(dtype, case):
    b, s, h = 2, 4, 64
    rng = np.random.default_rng(8)
    x = rng.uniform(-3, 3, (b, s, h)).astype(dtype)
    g = rng.uniform(0.5, 1.5, h).astype(dtype)
    y = np.zeros_like(x)
    rmsnorm_kernel[1](x, g, y, 1e-5, _tiling(b, s, h), x.size, h, case)
    tol = 3e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(y.astype(np.float64), _reference(x, g, 1e-5, h), rtol=tol, atol=tol)


def test_rmsnorm_divides_by_the_original_h_when_h_is_padded():
    b, s, h, real = 1, 8, 64, 50  # H padded from 50 to 64 with zeros: the padding adds nothing to the sum
    rng = np.random.default_rng(1)
    x = np.zeros((b, s, h), np.float32)
    x[..., :real] = rng.uniform(-2, 2, (b, s, real))
    g = np.ones(h, np.float32)
    y = np.zeros_like(x)
    rmsnorm_kernel[1](x, g, y, 1e-6, _tiling(b, s, h, real), x.size, h, "out")
    np.testing.assert_allclose(y[..., :real], _reference(x[..., :real], g[:real], 1e-6, real), rtol=1e-5)


@pytest.mark.parametrize(("tiling", "case", "message"), [
    (asc.adv.RmsNormTiling(), "out", r"asc\.adv\.rmsnorm: the tiling has no shape"),
    (_tiling(1, 8, 60), "out", r"h_length \(60 x float32\) must be a multiple of 32 bytes"),
    (_tiling(1, 8, 64), "dst_on_gamma", r"dst \(UB offset \d+\) overlaps a source"),
    (_tiling(1, 8, 64), "small_tmp", r"temp_buffer holds 256 bytes but asc\.adv\.rmsnorm needs at least 288 \(the minValue of its host helper GetRmsNormMaxMinTmpSize\)"),
])
def test_rmsnorm_misuse_fails_at_the_call(tiling, case, message):
    x = np.ones(8 * 64, np.float32)
    with pytest.raises(asc.AscError, match=message):
        rmsnorm_kernel[1](x, np.ones(64, np.float32), np.zeros_like(x), 1e-5, tiling, x.size, 64, case)

"""bfloat16 where the A2 hardware computes in it (atomic GM accumulation, scalar access) and host arrays of
ml_dtypes bfloat16, against ml_dtypes' round-to-nearest-even; the clear error without ml_dtypes."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import aclsim
import aclsim.asc as asc
from asc_helpers import gm as _gm

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = ml_dtypes.bfloat16
N = 256


def _ub(dtype, n=N):
    b = asc.TBuf(asc.TPosition.VECCALC)
    asc.get_tpipe_ptr().init_buffer(b, n * 4)
    return b.get(dtype)


@asc.jit
def add_through_float32(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    asc.TPipe()
    a, b = _ub(asc.bfloat16), _ub(asc.bfloat16)
    fa, fb = _ub(asc.float32), _ub(asc.float32)
    asc.data_copy(a, _gm(x), N)
    asc.data_copy(b, _gm(y), N)
    asc.cast(fa, a, asc.RoundMode.CAST_NONE, N)
    asc.cast(fb, b, asc.RoundMode.CAST_NONE, N)
    asc.add(fa, fa, fb, N)
    asc.cast(a, fa, asc.RoundMode.CAST_RINT, N)
    asc.data_copy(_gm(z), a, N)


def test_ml_dtypes_bfloat16_arrays_launch_and_come_back_rounded_to_nearest_even():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(N).astype(BF16)
    y = rng.standard_normal(N).astype(BF16)
    z = np.zeros(N, BF16)
    add_through_float32[1](x, y, z)
    ref = (x.astype(np.float32) + y.astype(np.float32)).astype(BF16)
    np.testing.assert_array_equal(z.view(np.uint16), ref.view(np.uint16))


@asc.jit
def atomic_add(x: asc.GlobalAddress, z: asc.GlobalAddress):
    asc.TPipe()
    a = _ub(asc.bfloat16)
    asc.data_copy(a, _gm(x)[asc.get_block_idx() * N :], N)
    asc.set_atomic_add(asc.bfloat16)
    asc.data_copy(_gm(z), a, N)
    asc.set_atomic_none()


def test_atomic_add_of_bfloat16_rounds_each_accumulation_to_bfloat16():
    rng = np.random.default_rng(2)
    cores = 4
    x = (rng.standard_normal(cores * N) * 3).astype(BF16)
    z = (rng.standard_normal(N) * 100).astype(BF16)
    ref = z.copy()
    for c in range(cores):  # blocks add in turn, each sum rounded into GM's bfloat16
        ref = (ref.astype(np.float32) + x[c * N : (c + 1) * N].astype(np.float32)).astype(BF16)
    atomic_add[cores](x, z)
    np.testing.assert_array_equal(z.view(np.uint16), ref.view(np.uint16))


def test_atomic_bfloat16_does_not_exist_on_310p():
    aclsim.configure("Ascend310P3")
    with pytest.raises(asc.AscError, match=r"bfloat16 is not supported on Ascend310P3 \(float16, float32, int16"):
        atomic_add[1](np.zeros(N, BF16), np.zeros(N, BF16))


@asc.jit
def scalars(z: asc.GlobalAddress, values: tuple):
    asc.TPipe()
    t = _ub(asc.bfloat16)
    g = _gm(z)
    for i, v in enumerate(values):
        t.set_value(i, v)
        g.set_value(i, t.get_value(i) * 2)


def test_scalar_set_value_rounds_to_nearest_even_and_get_value_reads_a_bfloat16():
    values = (1.00390625, 1.01171875, -3.1415926, 65504.0, 1e-3)  # two exact ties, then inexact values
    z = np.zeros(N, BF16)
    scalars[1](z, values)
    ref = (np.asarray(values, np.float32).astype(BF16).astype(np.float32) * 2).astype(BF16)
    np.testing.assert_array_equal(z[: len(values)].view(np.uint16), ref.view(np.uint16))


def test_vector_arithmetic_on_bfloat16_is_refused_as_on_the_910b():
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.TPipe()
        a = _ub(asc.bfloat16)
        asc.data_copy(a, _gm(x), N)
        asc.add(a, a, a, N)

    # pyasc itself refuses a bfloat16 operand when it compiles the kernel: a ValueError with its wording
    with pytest.raises(ValueError, match=r"asc\.add: Unsupported DataType name: bfloat16 \(pyasc refuses .*"
                                         r"Ascend910B1's asc\.add takes float16, float32, int16, int32; cast bfloat16 "
                                         r"to float32 first\)") as info:
        k[1](np.zeros(N, BF16))
    assert isinstance(info.value, asc.AscError) and info.value.code == 507015


def test_without_ml_dtypes_bfloat16_values_ask_for_the_extra(monkeypatch):
    x = np.zeros(N, np.float32)
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes now raises ImportError

    @asc.jit
    def k(z: asc.GlobalAddress):
        asc.TPipe()
        t = _ub(asc.bfloat16)
        t.set_value(0, 1.5)

    with pytest.raises(asc.AscError, match=r"bfloat16 values need the ml_dtypes package: pip install aclsim\[bf16\]"):
        k[1](x)


def test_torch_bfloat16_tensors_share_their_bits_with_the_launch():
    torch = pytest.importorskip("torch")
    x = torch.arange(N, dtype=torch.float32).div(7).to(torch.bfloat16)
    y = torch.ones(N, dtype=torch.bfloat16)
    z = torch.zeros(N, dtype=torch.bfloat16)
    add_through_float32[1](x, y, z)
    assert torch.equal(z, (x.float() + y.float()).to(torch.bfloat16))

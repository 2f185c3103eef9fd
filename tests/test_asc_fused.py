"""Converting vector instructions (add_relu_cast, sub_relu_cast, mul_cast, add_deq_relu, cast_deq) and the
DEQSCALE register agree with numpy references, in count and mask/repeat forms, and refuse bad use."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc
from asc_helpers import gm as _gm

N = 256


def _ub(dtype, n=N):
    b = asc.TBuf(asc.TPosition.VECCALC)
    asc.get_tpipe_ptr().init_buffer(b, n * 8)
    return b.get(dtype)


@asc.jit
def binary(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, op: str, args: tuple, deq: tuple):
    asc.TPipe()
    a, b, c = _ub(x.dtype), _ub(y.dtype), _ub(z.dtype)
    asc.data_copy(a, _gm(x), N)
    asc.data_copy(b, _gm(y), N)
    if deq:
        asc.set_deq_scale(*deq)
    asc.duplicate(c.reinterpret_cast(asc.uint16), 0, N * z.dtype.itemsize // 2)
    if len(args) == 3:  # (mask, repeat_times, BinaryRepeatParams fields)
        args = (args[0], args[1], asc.BinaryRepeatParams(*args[2]))
    getattr(asc, op)(c, a, b, *args)
    asc.data_copy(_gm(z), c, N)


def _nearest_sat(v, dtype):
    if np.dtype(dtype).kind == "f":
        return v.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(v), info.min, info.max).astype(dtype)


@pytest.mark.parametrize(("op", "fn"), [("add_relu_cast", np.add), ("sub_relu_cast", np.subtract)])
@pytest.mark.parametrize(("src", "dst"), [(np.float32, np.float16), (np.float16, np.int8), (np.int16, np.int8)])
def test_relu_cast_rounds_once_into_the_destination_type(op, fn, src, dst):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(N) * 150).astype(src)
    y = (rng.standard_normal(N) * 150).astype(src)
    z = np.zeros(N, dst)
    binary[1](x, y, z, op, (N,), ())
    ref = _nearest_sat(np.maximum(fn(x.astype(np.float64), y.astype(np.float64)), 0), dst)
    np.testing.assert_array_equal(z, ref)


def test_mul_cast_saturates_to_int8_and_uint8():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(N) * 20).astype(np.float16)
    y = (rng.standard_normal(N) * 20).astype(np.float16)
    for dst in (np.int8, np.uint8):
        z = np.zeros(N, dst)
        binary[1](x, y, z, "mul_cast", (N,), ())
        np.testing.assert_array_equal(z, _nearest_sat(x.astype(np.float64) * y, dst))


def test_relu_cast_mask_repeat_form_reads_the_wide_type_and_writes_the_narrow_one():
    """One repeat covers 64 float32 lanes (8 source blocks) and 64 float16 results (4 destination blocks);
    a mask of 40 lanes, 2 repeats with the documented contiguous strides."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    z = np.zeros(N, np.float16)
    params = (1, 1, 1, 4, 8, 8)  # dst repeats 4 blocks (64 halves) apart
    binary[1](x, y, z, "add_relu_cast", (40, 2, params), ())
    ref = np.zeros(N, np.float16)
    for r in range(2):
        sl = slice(64 * r, 64 * r + 40)
        ref[sl] = np.maximum(x[sl].astype(np.float64) + y[sl], 0).astype(np.float16)
    np.testing.assert_array_equal(z, ref)


def test_add_deq_relu_scales_the_int32_sum_by_the_half_deq_register():
    rng = np.random.default_rng(6)
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    y = rng.integers(-1000, 1000, N).astype(np.int32)
    z = np.zeros(N, np.float16)
    binary[1](x, y, z, "add_deq_relu", (N,), (0.1,))  # SetDeqScale(half scale): 0.1 is held as a half
    scale = np.float64(np.float16(0.1))
    np.testing.assert_array_equal(z, np.maximum((x.astype(np.float64) + y) * scale, 0).astype(np.float16))


def test_add_deq_relu_without_set_deq_scale_is_refused():
    x = np.ones(N, np.int32)
    with pytest.raises(asc.AscError, match=r"DEQSCALE register was never set: call asc\.set_deq_scale"):
        binary[1](x, x, np.zeros(N, np.float16), "add_deq_relu", (N,), ())


def test_unsupported_type_pair_names_the_supported_ones():
    x = np.ones(N, np.float32)
    with pytest.raises(asc.AscError, match=r"float32 -> int8 is not supported on Ascend910B1 \(supported: "
                                           r"float32 -> float16, float16 -> int8, int16 -> int8\)"):
        binary[1](x, x, np.zeros(N, np.int8), "add_relu_cast", (N,), ())


@asc.jit
def deq16(x: asc.GlobalAddress, z: asc.GlobalAddress, deq: tuple, vec: bool, half: bool, args: tuple,
          ask: object = None):
    asc.TPipe()
    a, c, v = _ub(asc.int16), _ub(z.dtype), _ub(asc.uint64, 16)
    asc.data_copy(a, _gm(x), N)
    asc.duplicate(c.reinterpret_cast(asc.uint16), 0, N)
    asc.set_deq_scale(v, asc.VdeqInfo(*deq)) if vec else asc.set_deq_scale(*deq)
    asc.cast_deq(c, a, *args, is_vec_deq=vec if ask is None else ask, half_block=half)
    asc.data_copy(_gm(z), c, 2 * N)


@pytest.mark.parametrize("half", [True, False])
def test_cast_deq_int16_puts_each_block_of_16_results_in_one_half_of_a_32_byte_block(half):
    rng = np.random.default_rng(7)
    x = rng.integers(-3000, 3000, N).astype(np.int16)
    z = np.zeros(2 * N, np.int8)
    deq16[1](x, z, (0.05, 3, True), False, half, (N,))
    y = _nearest_sat(x * np.float64(np.float32(0.05)) + 3, np.int8).reshape(-1, 16)  # a float32 scale
    ref = np.zeros((N // 16, 32), np.int8)
    ref[:, (0 if half else 16):(16 if half else 32)] = y
    np.testing.assert_array_equal(z, ref.ravel())


def test_cast_deq_vector_mode_cycles_the_16_groups():
    rng = np.random.default_rng(8)
    x = rng.integers(0, 2000, N).astype(np.int16)
    scale = list(np.linspace(0.01, 0.2, 16))
    offset = list(range(-8, 8))
    z = np.zeros(2 * N, np.uint8)
    deq16[1](x, z, (scale, offset, [False] * 16), True, True, (N,))
    k = np.arange(N) % 16
    y = _nearest_sat(x * np.asarray(scale, np.float32)[k].astype(np.float64) + np.asarray(offset)[k],
                     np.uint8).reshape(-1, 16)
    np.testing.assert_array_equal(z.reshape(-1, 32)[:, :16], y)


def test_cast_deq_refuses_a_destination_sign_that_contradicts_sign_mode():
    x = np.ones(N, np.int16)
    with pytest.raises(asc.AscError, match=r"dst is uint8 but set_deq_scale's sign_mode asks for int8"):
        deq16[1](x, np.zeros(2 * N, np.uint8), (1.0, 0, True), False, True, (N,))


def test_cast_deq_is_vec_deq_must_match_the_register():
    x = np.ones(N, np.int16)
    with pytest.raises(asc.AscError, match=r"is_vec_deq=True but set_deq_scale was given one scale"):
        deq16[1](x, np.zeros(2 * N, np.int8), (1.0, 0, True), False, True, (N,), True)


def test_vdeq_info_needs_16_groups():
    with pytest.raises(ValueError, match="exactly 16 elements"):
        asc.VdeqInfo([1.0], [0], [True])


def test_cast_deq_takes_its_flags_positionally_after_the_count():
    """pyasc's count form is cast_deq(dst, src, count, is_vec_deq, half_block)."""
    x = np.arange(N, dtype=np.int16)
    z = np.zeros(2 * N, np.int8)
    deq16[1](x, z, (1.0, 0, True), False, False, (N, False, False), True)  # keyword is_vec_deq=True is overridden
    np.testing.assert_array_equal(z.reshape(-1, 32)[:, 16:], _nearest_sat(x.astype(np.float64), np.int8).reshape(-1, 16))
    assert not z.reshape(-1, 32)[:, :16].any()


def test_cast_deq_mask_repeat_form_follows_the_destination_strides():
    rng = np.random.default_rng(9)
    x = rng.integers(-100, 100, N).astype(np.int16)
    z = np.zeros(2 * N, np.int8)

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        asc.TPipe()
        a, c = _ub(asc.int16), _ub(asc.int8)
        asc.data_copy(a, _gm(x), N)
        asc.duplicate(c.reinterpret_cast(asc.uint16), 0, N)
        asc.set_deq_scale(0.5, -2, True)
        # 2 repeats of 128 lanes, the mask keeping the first 20; dst block stride 1, repeat stride 8 blocks
        asc.cast_deq(c, a, 20, 2, asc.UnaryRepeatParams(1, 1, 8, 8), is_vec_deq=False, half_block=True)
        asc.data_copy(_gm(z), c, 2 * N)

    k[1](x, z)
    ref = np.zeros((N // 16, 32), np.int8)
    y = _nearest_sat(x.astype(np.float64) * 0.5 - 2, np.int8)
    for r in range(2):
        for j in range(20):
            e = 128 * r + j
            ref[e // 16, e % 16] = y[e]
    np.testing.assert_array_equal(z, ref.ravel())


def test_cast_deq_int32_to_half_scales_by_the_register_whatever_is_vec_deq_says():
    x = np.arange(-N // 2, N // 2, dtype=np.int32) * 37
    z = np.zeros(N, np.float16)

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        asc.TPipe()
        a, c = _ub(asc.int32), _ub(asc.float16)
        asc.data_copy(a, _gm(x), N)
        asc.set_deq_scale(0.01)
        asc.cast_deq(c, a, N)  # is_vec_deq defaults to True; the s322f16 path has one scale
        asc.data_copy(_gm(z), c, N)

    k[1](x, z)
    np.testing.assert_array_equal(z, (x * np.float64(np.float16(0.01))).astype(np.float16))


def test_relu_cast_full_mask_contiguous_repeats_equal_the_count_form():
    rng = np.random.default_rng(10)
    x = (rng.standard_normal(N) * 200).astype(np.float16)
    y = (rng.standard_normal(N) * 200).astype(np.float16)
    z = np.zeros(N, np.int8)
    binary[1](x, y, z, "sub_relu_cast", (128, 2, (1, 1, 1, 4, 8, 8)), ())  # int8 dst: 128 lanes = 4 blocks
    np.testing.assert_array_equal(z, _nearest_sat(np.maximum(x.astype(np.float64) - y, 0), np.int8))

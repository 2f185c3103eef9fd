"""Quantisation on the way out of L0C (fixpipe / data_copy): REQ8, VREQ8, QF322B8_PRE, VQF322B8_PRE and the
shift/offset/sign fields of the parameter, DEQF16 saturation, int8 NZ output (Int8 Channel Merge), against a
numpy model of CANN's documented algorithm."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclsim.asc as asc

M, K = 16, 32
Q = asc.QuantModes


def param(scale, offset=0, signed=True, shift=None) -> np.ndarray:
    """uint64 parameters: the float32 scale in bits 31..0, `shift` (1..16; 0 or None: off) as N = shift - 1 in
    35..32 with the MCB bit 36, the 9-bit two's-complement offset in 45..37, the sign in 46."""
    bits = np.asarray(scale, np.float32).view(np.uint32).astype(np.uint64)
    off = (np.asarray(offset, np.int64) & 0x1FF).astype(np.uint64)
    bits = bits | (off << np.uint64(37)) | (np.uint64(signed) << np.uint64(46))
    if shift is not None:
        sh = np.asarray(shift, np.uint64)
        bits = bits | np.where(sh > 0, ((sh - np.uint64(1)) << np.uint64(32)) | np.uint64(1 << 36), np.uint64(0))
    return np.atleast_1d(bits)


def reference(acc: np.ndarray, scale, offset=0, signed=True, shift=None, relu=False, out=np.int8) -> np.ndarray:
    """The documented algorithm, elementwise: (int32 inputs: shift where MCB is set), x >= 0 times the 10-bit-mantissa scale, x < 0 times it too
    (0 with ReLU); b8 outputs clip to [-256, 255], round half to even, add the offset and saturate."""
    x = acc.astype(np.float64)
    if shift is not None and acc.dtype == np.int32:  # MCB applies to int32 inputs only
        sh = np.asarray(shift)
        x = np.where(sh > 0, np.clip(np.floor(x / 2.0**sh), -32768, 32767), x)
    s = (np.asarray(scale, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    y = np.where(x >= 0, x * s, 0.0 if relu else x * s).astype(np.float32)
    if out == np.float16:
        return np.clip(y, -65504, 65504).astype(np.float16)
    q = np.round(np.clip(y, -256, 255)) + np.asarray(offset)
    return np.clip(q, *((-128, 127) if signed else (0, 255))).astype(out)


@asc.jit
def int8_mm_quant(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, qp: asc.GlobalAddress,
                  mode: int, deq: int, relu: bool, via_data_copy: bool):
    """C = A (16 x 32 int8) @ B (32 x 32 int8) in int32, out through quant_pre `mode`."""
    a_gm, b_gm, c_gm, q_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    q_gm.set_global_buffer(qp)
    pipe = asc.TPipe()
    qa1, qb1, qs = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1), asc.TQue(asc.TPosition.A1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, M * K), (qb1, K * 32), (qs, 32 * 8), (qa2, M * K), (qb2, K * 32), (qc, M * 32 * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(asc.int8), qb1.alloc_tensor(asc.int8), qa2.alloc_tensor(asc.int8), \
        qb2.alloc_tensor(asc.int8)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, 32, 0, 32, K, 1, 0))
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0))
    asc.load_data_with_transpose(b2, b1, asc.LoadData2dTransposeParams(0, 1, 1, 0, 0))
    c1 = qc.alloc_tensor(asc.int32)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, 32, K))
    s1 = qs.alloc_tensor(asc.uint64)
    asc.data_copy(s1, q_gm, 32)
    if via_data_copy:
        asc.set_fix_pipe_pre_quant_flag(deq)
        asc.data_copy(c_gm, c1, asc.DataCopyCO12DstParams(32, M, 32, M, mode, int(relu), False, True))
    elif mode in (Q.VREQ8, Q.VDEQF16):
        asc.fixpipe(c_gm, c1, s1, asc.FixpipeParamsV220(32, M, M, 32, mode, relu_en=relu))
    else:
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(32, M, M, 32, mode, deq, relu_en=relu))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1), (qs, s1)):
        q.free_tensor(t)


def int8_acc(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (M, K), dtype=np.int8)
    b = rng.integers(-128, 128, (K, 32), dtype=np.int8)
    return a, b, a.astype(np.int32) @ b.astype(np.int32)


@pytest.mark.parametrize(("offset", "shift", "relu", "via_data_copy"), [
    (0, None, False, False),
    (-7, 4, False, False),  # MCB: shift right by 4, saturate to int16, then scale; a negative offset
    (100, None, True, True),  # ReLU, through data_copy and the QUANT_PRE register
])
def test_req8_requantises_int32_to_int8_with_shift_offset_and_saturation(offset, shift, relu, via_data_copy):
    a, b, acc = int8_acc(1)
    scale = 0.003 if shift is None else 0.05
    (bits,) = param(scale, offset, True, shift)
    c = np.zeros((M, 32), np.int8)
    int8_mm_quant[1](a, b, c, np.zeros(32, np.uint64), Q.REQ8, int(bits), relu, via_data_copy)
    np.testing.assert_array_equal(c, reference(acc, scale, offset, True, shift, relu))


def test_vreq8_uses_each_output_channels_own_scale_offset_into_uint8():
    a, b, acc = int8_acc(2)
    scales = np.linspace(-0.004, 0.006, 32).astype(np.float32)
    offsets = np.arange(32) * 9 - 150
    c = np.zeros((M, 32), np.uint8)
    int8_mm_quant[1](a, b, c, param(scales, offsets, signed=False), Q.VREQ8, 0, False, False)
    np.testing.assert_array_equal(c, reference(acc, scales[None, :], offsets[None, :], signed=False, out=np.uint8))


def test_deqf16_shifts_then_saturates_to_the_float16_range():
    a, b, acc = int8_acc(3)
    (bits,) = param(40.0, 0, True, 2)  # large enough that some results pass 65504
    c = np.zeros((M, 32), np.float16)
    int8_mm_quant[1](a, b, c, np.zeros(32, np.uint64), Q.DEQF16, int(bits), False, False)
    want = reference(acc, 40.0, shift=2, out=np.float16)
    assert np.abs(want).max() == 65504
    np.testing.assert_array_equal(c, want)


@asc.jit
def half_mm_quant(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, qp: asc.GlobalAddress,
                  n: int, mode: int, deq: int, relu: bool, nz: bool):
    """C = A (16 x 32 half) @ B (32 x n half) in float32, out through quant_pre `mode`, ND or NZ."""
    a_gm, b_gm, c_gm, q_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    q_gm.set_global_buffer(qp)
    pipe = asc.TPipe()
    qa1, qb1, qs = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1), asc.TQue(asc.TPosition.A1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, M * K * 2), (qb1, K * n * 2), (qs, n * 8), (qa2, M * K * 2), (qb2, K * n * 2),
                      (qc, M * n * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half), \
        qb2.alloc_tensor(asc.half)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, n, 0, n, K, 1, 0))
    asc.load_data(a2, a1, asc.LoadData2DParams(0, K // 16, 1, 0, 0))
    for kb in range(K // 16):  # L0B fractal (kb, nb) is L1 fractal nb * 2 + kb, transposed
        asc.load_data(b2[kb * n * 16:], b1, asc.LoadData2DParams(kb, n // 16, K // 16, 0, 0, True))
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, n, K))
    s1 = qs.alloc_tensor(asc.uint64)
    asc.data_copy(s1, q_gm, n)
    if nz:  # int8 NZ blocks: 16 rows x 32 bytes back to back (dst_stride in 32-byte units between blocks)
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, M, M, M, mode, deq, relu_en=relu), asc.FixpipeConfig.cfg_nz)
    elif mode == Q.VQF322B8_PRE:
        asc.fixpipe(c_gm, c1, s1, asc.FixpipeParamsV220(n, M, M, n, mode, relu_en=relu))
    else:
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, M, M, n, mode, deq, relu_en=relu))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1), (qs, s1)):
        q.free_tensor(t)


def half_acc(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-4, 4, (M, K)).astype(np.float16)
    b = rng.uniform(-4, 4, (K, n)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("relu", [False, True])
def test_qf322b8_pre_quantises_float32_to_int8(relu):
    a, b, acc = half_acc(4, 32)
    (bits,) = param(1.7, 3)
    c = np.zeros((M, 32), np.int8)
    half_mm_quant[1](a, b, c, np.zeros(32, np.uint64), 32, Q.QF322B8_PRE, int(bits), relu, False)
    np.testing.assert_array_equal(c, reference(acc, 1.7, 3, relu=relu))


def test_vqf322b8_pre_per_channel_and_the_sign_bit_is_checked_against_dst():
    a, b, acc = half_acc(5, 32)
    scales = np.linspace(0.5, 4.0, 32).astype(np.float32)
    c = np.zeros((M, 32), np.int8)
    half_mm_quant[1](a, b, c, param(scales), 32, Q.VQF322B8_PRE, 0, False, False)
    np.testing.assert_array_equal(c, reference(acc, scales[None, :]))
    unsigned = param(scales, signed=False)
    with pytest.raises(asc.AscError, match=r"dst is int8 but channel 0's parameter has its sign bit \(46\) clear"):
        half_mm_quant[1](a, b, c, unsigned, 32, Q.VQF322B8_PRE, 0, False, False)


def test_int8_nz_output_merges_pairs_of_16_column_blocks():
    a, b, acc = half_acc(6, 48)
    (bits,) = param(2.5)
    c = np.zeros(M * 48, np.int8)
    half_mm_quant[1](a, b, c, np.zeros(48, np.uint64), 48, Q.QF322B8_PRE, int(bits), False, True)
    q = reference(acc, 2.5)
    # N = 48: columns 0..31 as one 16 x 32 block, then 32..47 as a 16 x 16 block
    want = np.concatenate([q[:, :32].ravel(), q[:, 32:].ravel()])
    np.testing.assert_array_equal(c, want)


def test_an_unknown_quant_pre_is_an_error_naming_the_modes():
    a, b, _ = half_acc(7, 32)
    with pytest.raises(asc.AscError, match=r"asc\.fixpipe: quant_pre=99 is not a QuantModes value \(the A2/A3 "
                                           r"modes: NoQuant, F322F16"):
        half_mm_quant[1](a, b, np.zeros((M, 32), np.int8), np.zeros(32, np.uint64), 32, 99, 0, False, False)


@st.composite
def channel_params(draw):
    """Per-channel scale (finite, either sign), offset, shift (0: MCB off) for 32 channels, the sign, ReLU."""
    scales = draw(st.lists(st.floats(-8, 8, width=32), min_size=32, max_size=32))
    offsets = draw(st.lists(st.integers(-256, 255), min_size=32, max_size=32))
    shifts = draw(st.lists(st.integers(0, 16), min_size=32, max_size=32))
    return np.array(scales, np.float32), np.array(offsets), np.array(shifts), draw(st.booleans()), draw(st.booleans())


@settings(max_examples=25, deadline=None)
@given(channel_params(), st.booleans())
def test_per_channel_b8_quantisation_matches_the_documented_algorithm(params, int32_in):
    """VREQ8 (int32, where MCB shifts) and VQF322B8_PRE (float32, where MCB is ignored) with random fields."""
    scales, offsets, shifts, signed, relu = params
    out = np.int8 if signed else np.uint8
    c = np.zeros((M, 32), out)
    bits = param(scales if int32_in else scales / 64, offsets, signed, shifts)
    if int32_in:
        a, b, acc = int8_acc(8)
        int8_mm_quant[1](a, b, c, bits, Q.VREQ8, 0, relu, False)
    else:
        a, b, acc = half_acc(8, 32)
        acc = acc * 64  # spread the float32 results over the int8 range
        a = (a.astype(np.float32) * 8).astype(np.float16)  # 8 x 8 = 64, exact in float16
        b = (b.astype(np.float32) * 8).astype(np.float16)
        half_mm_quant[1](a, b, c, bits, 32, Q.VQF322B8_PRE, 0, relu, False)
    want = reference(acc, (scales if int32_in else scales / 64)[None, :], offsets[None, :], signed,
                     shifts[None, :], relu, out)
    np.testing.assert_array_equal(c, want)

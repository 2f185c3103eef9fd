"""L0C -> GM: fixpipe per-channel dequantisation (VDEQF16 with a cbuf_workspace), NZ output in 16- and
8-column blocks, and data_copy with DataCopyCO12DstParams, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc

M, K, N = 16, 32, 32  # int8: one A fractal, one 32 x 32 B square


def deq_bits(scale: np.ndarray) -> np.ndarray:
    """The uint64 parameter DEQF16 reads: the float32 scale's bits in the low word."""
    return np.asarray(scale, np.float32).view(np.uint32).astype(np.uint64)


def deq_value(bits: np.ndarray) -> np.ndarray:
    """What the hardware multiplies by: the float32 with its mantissa cut to 10 bits."""
    return (bits.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@asc.jit
def int8_mm_out(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, scales: asc.GlobalAddress,
                mode: int, deq: int):
    """C = A @ B (int8 -> int32 in L0C), then out through one of the L0C -> GM forms."""
    a_gm, b_gm, c_gm, s_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    s_gm.set_global_buffer(scales)
    pipe = asc.TPipe()
    qa1, qb1, qs = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1), asc.TQue(asc.TPosition.A1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, M * K), (qb1, K * N), (qs, N * 8), (qa2, M * K), (qb2, K * N), (qc, M * N * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(asc.int8), qb1.alloc_tensor(asc.int8), qa2.alloc_tensor(asc.int8), \
        qb2.alloc_tensor(asc.int8)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, M, K, 0, K, M, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0))
    asc.load_data_with_transpose(b2, b1, asc.LoadData2dTransposeParams(0, 1, 1, 0, 0))
    c1 = qc.alloc_tensor(asc.int32)
    asc.mmad(c1, a2, b2, asc.MmadParams(M, N, K))
    s1 = qs.alloc_tensor(asc.uint64)
    if mode != 3:  # mode 3 forgets to load the parameters
        asc.data_copy(s1, s_gm, N)
    if mode == 0:
        asc.fixpipe(c_gm, c1, s1, asc.FixpipeParamsV220(N, M, M, N, asc.QuantModes.VDEQF16))
    elif mode == 1:
        asc.set_fix_pipe_pre_quant_flag(deq)
        asc.data_copy(c_gm, c1, asc.DataCopyCO12DstParams(N, M, N, M, asc.QuantModes.DEQF16, 1, False, True))
    elif mode == 2:
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, M, N, asc.QuantModes.VDEQF16))
    elif mode == 3:
        asc.fixpipe(c_gm, c1, s1, asc.FixpipeParamsV220(N, M, M, N, asc.QuantModes.VDEQF16))
    else:
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(N, M, M, N, asc.QuantModes.REQ8))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1), (qs, s1)):
        q.free_tensor(t)


def int8_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    a = rng.integers(-128, 128, (M, K), dtype=np.int8)
    b = rng.integers(-128, 128, (K, N), dtype=np.int8)
    return a, b, a.astype(np.int32) @ b.astype(np.int32)


def test_fixpipe_vdeqf16_scales_each_output_channel_by_its_own_parameter():
    a, b, acc = int8_inputs()
    bits = deq_bits(np.linspace(1e-3, 2e-2, N))
    c = np.zeros((M, N), np.float16)
    int8_mm_out[1](a, b, c, bits, 0, 0)
    np.testing.assert_array_equal(c, (acc.astype(np.float32) * deq_value(bits)[None, :]).astype(np.float16))


def test_data_copy_co12_dequantises_with_the_pre_quant_register_and_applies_relu():
    a, b, acc = int8_inputs()
    (bits,) = deq_bits([0.0125])
    c = np.zeros((M, N), np.float16)
    int8_mm_out[1](a, b, c, np.zeros(N, np.uint64), 1, int(bits))
    want = np.maximum(acc.astype(np.float32) * deq_value(np.array([bits]))[0], 0).astype(np.float16)
    np.testing.assert_array_equal(c, want)


@pytest.mark.parametrize(("mode", "message"), [
    (2, r"VDEQF16 reads one uint64 parameter per output channel from a cbuf_workspace"),
    (3, r"asc\.fixpipe: reads 32 x uint64 but element 0 \(L1 byte \d+\) was never written"),
    (4, r"dst is float16 but L0C int32 with quant_pre=QuantModes\.REQ8 gives int8 or uint8"),
])
def test_per_channel_quantisation_misuse_is_an_error(mode, message):
    a, b, _ = int8_inputs()
    with pytest.raises(asc.AscError, match=message):
        int8_mm_out[1](a, b, np.zeros((M, N), np.float16), np.zeros(N, np.uint64), mode, 0)


@asc.jit
def half_mm_nz(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, split: bool):
    """C = A @ B (16 x 16 x 32 float16 -> float32), written out in NZ blocks."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, 512), (qb1, 1024), (qa2, 512), (qb2, 1024), (qc, 16 * 32 * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half), \
        qb2.alloc_tensor(asc.half)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.load_data(a2, a1, asc.LoadData2DParams(0, 1, 1, 0, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, 2, 1, 0, 0, True))
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(16, 32, 16))
    c0 = 8 if split else 16
    params = asc.FixpipeParamsV220(32, 16, 16, 16 * c0 * 4 // 32)  # NZ blocks back to back (32-byte units)
    params.is_channel_split = split
    asc.fixpipe(c_gm, c1, params, asc.FixpipeConfig.cfg_nz)
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


@pytest.mark.parametrize("split", [False, True])
def test_fixpipe_nz_output_of_float32_in_16_or_8_column_blocks(split):
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    c0 = 8 if split else 16
    c = np.zeros(16 * 32, np.float32)
    half_mm_nz[1](a, b, c, split)
    nz = want.reshape(16, 32 // c0, c0).transpose(1, 0, 2).ravel()  # column blocks, rows inside
    np.testing.assert_allclose(c, nz, rtol=1e-6, atol=1e-6)

"""img2col (`load_data` with LoadData3DParamsV2/V2Pro): a convolution done as img2col + mmad + fixpipe equals
a numpy convolution, the L0B and transposed L0A forms, the padding register, and argument errors."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import aclsim
import aclsim.asc as asc
from aclsim.check import Session

COUT = 16  # output channels: one 16-column block of C


def up(x: int, k: int) -> int:
    return -(-x // k) * k


def nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    """(C, H, W) -> (C / C0, H, W, C0), the feature-map layout of L1."""
    c, h, w = x.shape
    return x.reshape(c // c0, c0, h, w).transpose(0, 2, 3, 1)


def expanded(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int], dil: tuple[int, int],
             pads: tuple[int, int, int, int], pad_value: float, c0: int) -> np.ndarray:
    """The img2col matrix in numpy: a row per output position (row-major), a column per (C1, kh, kw, C0)."""
    pl, pr, pt, pb = pads
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr)), constant_values=pad_value)
    c, hp, wp = xp.shape
    ho, wo = (hp - (kh - 1) * dil[0] - 1) // stride[0] + 1, (wp - (kw - 1) * dil[1] - 1) // stride[1] + 1
    rows = np.empty((ho * wo, c // c0, kh, kw, c0), x.dtype)
    for i in range(kh):
        for j in range(kw):
            win = xp[:, i * dil[0] : i * dil[0] + (ho - 1) * stride[0] + 1 : stride[0],
                     j * dil[1] : j * dil[1] + (wo - 1) * stride[1] + 1 : stride[1]]
            rows[:, :, i, j, :] = win.reshape(c // c0, c0, ho * wo).transpose(2, 0, 1)
    return rows.reshape(ho * wo, -1)


def conv_reference(x, wt, stride, dil, pads, pad_value):
    """out[m, co] = sum over c, i, j of x_padded[c, ho*s + i*d, wo*s + j*d] * wt[co, c, i, j], float32."""
    pl, pr, pt, pb = pads
    xp = np.pad(x.astype(np.float32), ((0, 0), (pt, pb), (pl, pr)), constant_values=pad_value)
    co, _, kh, kw = wt.shape
    ho = (xp.shape[1] - (kh - 1) * dil[0] - 1) // stride[0] + 1
    wo = (xp.shape[2] - (kw - 1) * dil[1] - 1) // stride[1] + 1
    out = np.zeros((ho, wo, co), np.float32)
    for i in range(kh):
        for j in range(kw):
            win = xp[:, i * dil[0] :: stride[0], j * dil[1] :: stride[1]][:, :ho, :wo]
            out += np.einsum("chw,oc->hwo", win, wt[:, :, i, j].astype(np.float32))
    return out.reshape(ho * wo, co)


@asc.jit
def conv_fm_in_l0a(x: asc.GlobalAddress, wt: asc.GlobalAddress, c: asc.GlobalAddress, ch: int, h: int, w: int,
                   kh: int, kw: int, sh: int, sw: int, dh: int, dw: int, pl: int, pr: int, pt: int, pb: int,
                   pad_value: float, k_parts: int, m_ext_pad: bool):
    """C (M x COUT) = img2col(x) @ W, the feature map through L0A, K cut into `k_parts` loads."""
    x_gm, w_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    w_gm.set_global_buffer(wt)
    c_gm.set_global_buffer(c)
    ho = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    wo = (w + pl + pr - (kw - 1) * dw - 1) // sw + 1
    m, k = ho * wo, ch * kh * kw
    mp = (m + 15) // 16 * 16
    kpart = k // k_parts
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, ch * h * w * 2), (qb1, k * COUT * 2), (qa2, mp * kpart * 2), (qb2, k * COUT * 2),
                      (qc, mp * COUT * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half), \
        qb2.alloc_tensor(asc.half)
    asc.data_copy(a1, x_gm, ch * h * w)  # the NC1HWC0 feature map as it lies in GM
    asc.data_copy(b1, w_gm, asc.Nd2NzParams(1, k, COUT, 0, COUT, k, 1, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, k // 16, 1, 0, 0, True))
    c1 = qc.alloc_tensor(asc.float32)
    for p in range(k_parts):
        asc.load_data(a2, a1, asc.LoadData3DParamsV2(
            (pl, pr, pt, pb), h, w, ch, kpart, mp if m_ext_pad else m, p * kpart, 0, sw, sh, kw, kh, dw, dh,
            False, pad_value))
        asc.mmad(c1, a2, b2[p * kpart * COUT:], asc.MmadParams(m, COUT, kpart, cmatrix_init_val=p == 0))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(COUT, m, mp, COUT))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


def conv_case(seed: int, ch: int, hw: tuple[int, int], kernel: tuple[int, int]):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (ch, *hw)).astype(np.float16)
    wt = rng.uniform(-1, 1, (COUT, ch, *kernel)).astype(np.float16)
    # B rows in the img2col column order: (C1, kh, kw, C0)
    b = wt.reshape(COUT, ch // 16, 16, *kernel).transpose(1, 3, 4, 2, 0).reshape(-1, COUT)
    return x, wt, np.ascontiguousarray(b)


@pytest.mark.parametrize(("stride", "dil", "pads", "pad_value", "k_parts", "m_ext_pad"), [
    ((1, 1), (1, 1), (1, 1, 1, 1), 0.0, 1, False),  # 'same' 3 x 3 convolution, M = 36 (not a multiple of 16)
    ((2, 1), (1, 2), (0, 2, 1, 0), 2.0, 2, True),  # strides, dilation, uneven padding, a pad value, K in two loads
])
def test_convolution_as_img2col_mmad_fixpipe_equals_numpy(stride, dil, pads, pad_value, k_parts, m_ext_pad):
    x, wt, b = conv_case(3, 32, (6, 6), (3, 3))
    want = conv_reference(x, wt, stride, dil, pads, pad_value)
    c = np.zeros_like(want)
    conv_fm_in_l0a[1](nc1hwc0(x, 16), b, c, 32, 6, 6, 3, 3, *stride, *dil, *pads, pad_value, k_parts, m_ext_pad)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


@asc.jit
def fm_in_l0b(x: asc.GlobalAddress, a: asc.GlobalAddress, c: asc.GlobalAddress, ch: int, h: int, w: int, kh: int,
              kw: int, pad: int, pro: bool, pad_bits: int):
    """C = A (16 x M) @ img2col(x) (M x K): the expanded matrix as the B operand in L0B, in the dtype of `a`;
    with `pro` the load is the packed V2Pro form reading the FMATRIX register an earlier V2 load set and the
    padding register set to `pad_bits`."""
    x_gm, a_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    a_gm.set_global_buffer(a)
    c_gm.set_global_buffer(c)
    dt = a_gm.dtype
    c0 = 32 // dt.itemsize
    m, k = (h + 2 * pad - kh + 1) * (w + 2 * pad - kw + 1), ch * kh * kw
    mp = (m + 15) // 16 * 16
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, 16 * mp * 4), (qb1, ch * h * w * 4), (qa2, 16 * mp * 4), (qb2, mp * k * 4),
                      (qc, 16 * k * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(dt), qb1.alloc_tensor(dt), qa2.alloc_tensor(dt), qb2.alloc_tensor(dt)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 16, m, 0, m, 16, 1, 0))
    asc.load_data(a2, a1, asc.LoadData2DParams(0, mp // c0, 1, 0, 0))
    asc.data_copy(b1, x_gm, ch * h * w)
    pads = (pad, pad, pad, pad)
    if pro:  # a small V2 load sets FMATRIX and the padding register, V2Pro packs the rest
        asc.load_data(b2, b1, asc.LoadData3DParamsV2(pads, h, w, ch, c0, 16, 0, 0, 1, 1, kw, kh, 1, 1))
        asc.set_load_data_padding_value(pad_bits)
        asc.load_data(b2, b1, asc.LoadData3DParamsV2Pro(ch, ext_config=mp << 16 | k,
                                                        filter_config=0x10100000101 | kh << 24 | kw << 16))
    else:  # M rounded up to 16: the rows past the last output position are the mmad's K padding
        asc.load_data(b2, b1, asc.LoadData3DParamsV2(pads, h, w, ch, k, mp, 0, 0, 1, 1, kw, kh, 1, 1))
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(16, k, m))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(k, 16, 16, k))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


@pytest.mark.parametrize(("dtype", "pro", "pad_bits", "pad_value"), [
    (np.float16, False, 0, 0.0), (np.float32, False, 0, 0.0),
    (np.float16, True, 0x4000, 2.0),  # the padding register holds bits: 0x4000 is float16 2.0
])
def test_expanded_matrix_as_the_b_operand_in_l0b(dtype, pro, pad_bits, pad_value):
    c0 = 32 // np.dtype(dtype).itemsize
    rng = np.random.default_rng(7)
    ch = 2 * c0
    x = rng.uniform(-1, 1, (ch, 4, 5)).astype(dtype)
    xm = expanded(x, 2, 2, (1, 1), (1, 1), (1, 1, 1, 1), pad_value, c0)  # (M = 30, K = ch * 4)
    a = rng.uniform(-1, 1, (16, xm.shape[0])).astype(dtype)
    c = np.zeros((16, xm.shape[1]), np.float32)
    fm_in_l0b[1](nc1hwc0(x, c0), a, c, ch, 4, 5, 2, 2, 1, pro, pad_bits)
    want = a.astype(np.float32) @ xm.astype(np.float32)
    tol = 1e-5 if dtype == np.float16 else 1e-4
    np.testing.assert_allclose(c, want, rtol=tol, atol=tol)


@asc.jit
def transposed_l0a(x: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ch: int, h: int, w: int,
                   n: int):
    """C = img2col(x)^T @ B with en_transpose: L0A holds X^T (K x M), a 1 x 1 kernel, no padding."""
    x_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    m = h * w
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, ch * m * 2), (qb1, m * n * 2), (qa2, ch * m * 2), (qb2, m * n * 2), (qc, ch * n * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half), \
        qb2.alloc_tensor(asc.half)
    asc.data_copy(a1, x_gm, ch * m)
    asc.load_data(a2, a1, asc.LoadData3DParamsV2(l1_h=h, l1_w=w, channel_size=ch, k_extension=ch, m_extension=m,
                                                 en_transpose=True))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, m, n, 0, n, m, 1, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, m // 16 * (n // 16), 1, 0, 0, True))
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(ch, n, m))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, ch, ch, n))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


def test_en_transpose_puts_the_transposed_expanded_matrix_in_l0a():
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (32, 4, 4)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    xt = expanded(x, 1, 1, (1, 1), (1, 1), (0, 0, 0, 0), 0.0, 16).T  # (K = 32, M = 16)
    c = np.zeros((32, 16), np.float32)
    transposed_l0a[1](nc1hwc0(x, 16), b, c, 32, 4, 4, 16)
    np.testing.assert_allclose(c, xt.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)


@asc.jit
def bad_load(x: asc.GlobalAddress, case: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    pipe = asc.TPipe()
    qa1, qa2 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.A2, 1)
    pipe.init_buffer(qa1, 1, 16 * 8 * 8 * 2)
    pipe.init_buffer(qa2, 1, 1024)
    a1, a2 = qa1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half)
    if case != 4:
        asc.data_copy(a1, x_gm, 16 * 8 * 8)
    p = asc.LoadData3DParamsV2((0, 0, 0, 0), 8, 8, 16, 16, 32, 0, 0, 1, 1, 1, 1, 1, 1)
    if case == 0:
        p.k_extension = 24
    elif case == 1:
        p.m_extension = 64  # 64 x 16 halves = 2 KiB into a 1 KiB L0A tensor
    elif case == 2:
        p.stride_w = 0
    elif case == 3:
        p = asc.LoadData3DParamsV2Pro(16, ext_config=32 << 16 | 16)
    elif case == 5:
        p.pad_value = 0.5
    elif case == 6:
        p = asc.LoadData3DParamsV1((0, 0, 0, 0), 8, 8)
    asc.load_data(a2, a1, p)


@pytest.mark.parametrize(("case", "message"), [
    (0, r"asc\.load_data: LoadData3DParamsV2\(.*k_extension=24.*\): k_start_pt and k_extension must be multiples "
        r"of C0=16 .*test_asc_cube_img2col\.py:\d+"),
    (1, r"asc\.load_data: dst for the 64 x 16 window \(L0A fractals\) needs 2048 bytes of L0A but the tensor holds "
        r"only 1024 bytes \(L0A overflow\).*test_asc_cube_img2col\.py:\d+"),
    (2, r"asc\.load_data: LoadData3DParamsV2\(.*stride_w=0.*\): bad stride or dilation: strides 1\.\.63"),
    (3, r"LoadData3DParamsV2Pro takes the feature map's l1_h, l1_w and pads from the FMATRIX register, which no "
        r"LoadData3DParamsV2 load of this core has set yet"),
    (5, r"LoadData3DParamsV2\(pad_value=0\.5\): pyasc passes pad_value as a uint16"),
    (6, r"LoadData3DParamsV1 \(load3d v1\) is not supported on Ascend910B"),
])
def test_img2col_argument_errors_name_the_api_and_the_line(case, message):
    x = np.zeros(16 * 8 * 8, np.float16)
    with pytest.raises(asc.AscError, match=message):
        bad_load[1](x, case)


@asc.jit
def load_unwritten_map(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    qa1, qa2 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.A2, 1)
    pipe.init_buffer(qa1, 1, 16 * 8 * 8 * 2)
    pipe.init_buffer(qa2, 1, 1024)
    a1, a2 = qa1.alloc_tensor(asc.half), qa2.alloc_tensor(asc.half)
    asc.load_data(a2, a1, asc.LoadData3DParamsV2((0, 0, 0, 0), 8, 8, 16, 16, 32, 0, 0, 1, 1, 1, 1, 1, 1))  # LOAD
    qa1.free_tensor(a1)
    qa2.free_tensor(a2)


def test_a_load_of_a_feature_map_never_written_moves_the_garbage_and_initcheck_warns():
    """A load is a move (as a copy is, tests/test_asc_copy_garbage.py): no fault; an Mmad on it would stop."""
    s = Session(["initcheck"], out=io.StringIO())
    load_unwritten_map[1](np.zeros(16, np.float16))
    s.stop()
    (f,) = s.findings
    assert f.severity == "warning" and f.headline.startswith("Uninitialized L1 bytes moved: asc.load_data")
    line = next(i for i, t in enumerate(Path(__file__).read_text().splitlines(), 1) if t.endswith("# LOAD"))
    assert f"test_asc_cube_img2col.py:{line}" in f.details[0]


@asc.jit
def window_times_identity(x: asc.GlobalAddress, eye: asc.GlobalAddress, c: asc.GlobalAddress, geo: list,
                          m_start: int, m_ext: int, k_start: int, k_ext: int, transpose: bool):
    """C = A @ I with A the img2col window in L0A (X, or X^T with `transpose`): reads the window back exactly."""
    x_gm, e_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    e_gm.set_global_buffer(eye)
    c_gm.set_global_buffer(c)
    ch, h, w, kh, kw, sh, sw, dh, dw, pl, pr, pt, pb = geo
    dt = x_gm.dtype
    isz = dt.itemsize
    rows, cols = (k_ext, m_ext) if transpose else (m_ext, k_ext)
    rp, cp = (rows + 15) // 16 * 16, (cols + 15) // 16 * 16
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, ch * h * w * isz), (qb1, cp * cp * isz), (qa2, rp * cp * isz), (qb2, cp * cp * isz),
                      (qc, rp * cp * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(dt), qb1.alloc_tensor(dt), qa2.alloc_tensor(dt), qb2.alloc_tensor(dt)
    asc.data_copy(a1, x_gm, ch * h * w)
    asc.load_data(a2, a1, asc.LoadData3DParamsV2((pl, pr, pt, pb), h, w, ch, k_ext, m_ext, k_start, m_start, sw, sh,
                                                 kw, kh, dw, dh, transpose))
    asc.data_copy(b1, e_gm, cp * cp)
    asc.load_data(b2, b1, asc.LoadData2DParams(0, cp * cp * isz // 512, 1, 0, 0))  # the nZ image, verbatim
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(rows, cols, cols))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(cols, rows, rp, cols))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


def identity_nz(n: int, dtype) -> np.ndarray:
    """The L0B image of an n x n identity B: fractals (K blocks of C0) x (N blocks of 16), each stored N x C0."""
    k0, p = 32 // np.dtype(dtype).itemsize, up(n, 16)
    eye = np.eye(p, dtype=dtype)
    return np.ascontiguousarray(eye.reshape(p // k0, k0, p // 16, 16).transpose(0, 2, 3, 1)).ravel()


@pytest.mark.parametrize(("dtype", "geo", "m_start", "m_ext", "k_start", "k_ext", "transpose"), [
    (np.float16, (32, 5, 7, 3, 2, 2, 1, 1, 2, 1, 0, 2, 1), 0, 16, 32, 64, False),
    (np.float16, (32, 5, 7, 3, 2, 2, 1, 1, 2, 1, 0, 2, 1), 0, 16, 16, 48, True),
    (np.float32, (16, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), 16, 20, 8, 40, False),  # b32: M window needs no 16s
    (np.float32, (16, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), 0, 16, 16, 24, True),  # X^T: K rows padded to 16
])
def test_img2col_window_lands_in_l0a_exactly(dtype, geo, m_start, m_ext, k_start, k_ext, transpose):
    ch, h, w, kh, kw, sh, sw, dh, dw, pl, pr, pt, pb = geo
    k0 = 32 // np.dtype(dtype).itemsize
    x = np.random.default_rng(13).uniform(-1, 1, (ch, h, w)).astype(dtype)
    xm = expanded(x, kh, kw, (sh, sw), (dh, dw), (pl, pr, pt, pb), 0.0, k0)
    want = xm[m_start : m_start + m_ext, k_start : k_start + k_ext].astype(np.float32)
    want = want.T if transpose else want
    c = np.zeros(want.shape, np.float32)
    window_times_identity[1](nc1hwc0(x, k0), identity_nz(want.shape[1], dtype), c, list(geo), m_start, m_ext,
                             k_start, k_ext, transpose)
    np.testing.assert_array_equal(c, want)


@asc.jit
def wrapped_map(x: asc.GlobalAddress, eye: asc.GlobalAddress, c: asc.GlobalAddress, boundary: int):
    """An 8 x 8 x 16 float16 map whose first half lies at L1 bytes 2048..3071 and second half at 0..1023: with
    set_load_data_boundary(3072) the load wraps to the start of L1. C = X @ I reads the expanded map back."""
    x_gm, e_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    e_gm.set_global_buffer(eye)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    low, high, qe = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((low, 2048), (high, 1024), (qe, 512), (qa2, 2048), (qb2, 512), (qc, 64 * 16 * 4)):
        pipe.init_buffer(q, 1, nbytes)
    lo_t, hi_t, e1 = low.alloc_tensor(asc.half), high.alloc_tensor(asc.half), qe.alloc_tensor(asc.half)
    a2, b2, c1 = qa2.alloc_tensor(asc.half), qb2.alloc_tensor(asc.half), qc.alloc_tensor(asc.float32)
    asc.data_copy(hi_t, x_gm, 512)
    asc.data_copy(lo_t, x_gm[512:], 512)
    asc.set_load_data_boundary(boundary)
    asc.load_data(a2, hi_t, asc.LoadData3DParamsV2(l1_h=8, l1_w=8, channel_size=16, k_extension=16, m_extension=64))
    asc.data_copy(e1, e_gm, 256)
    asc.load_data(b2, e1, asc.LoadData2DParams(0, 1, 1, 0, 0))
    asc.mmad(c1, a2, b2, asc.MmadParams(64, 16, 16))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(16, 64, 64, 16))
    for q, t in ((low, lo_t), (high, hi_t), (qe, e1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


def test_set_load_data_boundary_wraps_the_feature_map_to_the_start_of_l1():
    x = np.random.default_rng(17).uniform(-1, 1, (16, 8, 8)).astype(np.float16)
    c = np.zeros((64, 16), np.float32)
    wrapped_map[1](nc1hwc0(x, 16), identity_nz(16, np.float16), c, 3072)
    np.testing.assert_array_equal(c, x.reshape(16, 64).T.astype(np.float32))
    with pytest.raises(asc.AscError, match=r"feature map needs 2048 bytes of L1 but src holds only 1024"):
        wrapped_map[1](nc1hwc0(x, 16), identity_nz(16, np.float16), c, 0)
    with pytest.raises(asc.AscError, match=r"set_load_data_boundary: boundary=100: 0 \(none\) or 1024\.\."):
        wrapped_map[1](nc1hwc0(x, 16), identity_nz(16, np.float16), c, 100)


def test_load3d_v1_exists_on_310p_but_is_not_emulated():
    aclsim.configure("Ascend310P3")
    with pytest.raises(asc.AscError, match=r"LoadData3DParamsV1 \(load3d v1\) is not emulated by aclsim"):
        bad_load[1](np.zeros(16 * 8 * 8, np.float16), 6)


@st.composite
def windows(draw):
    """A feature map, kernel geometry and an img2col window that stays inside the expanded matrix."""
    dtype = draw(st.sampled_from([np.float16, np.float32]))
    k0 = 32 // np.dtype(dtype).itemsize
    ch, h, w = k0 * draw(st.integers(1, 2)), draw(st.integers(1, 7)), draw(st.integers(1, 7))
    kh, kw, sh, sw, dh, dw = (draw(st.integers(1, 3)) for _ in range(6))
    pads = tuple(draw(st.integers(0, 2)) for _ in range(4))
    ho = (h + pads[2] + pads[3] - (kh - 1) * dh - 1) // sh + 1
    wo = (w + pads[0] + pads[1] - (kw - 1) * dw - 1) // sw + 1
    assume(ho > 0 and wo > 0)
    m_total, k_total = ho * wo, ch * kh * kw
    m_start = 16 * draw(st.integers(0, (m_total - 1) // 16))
    m_ext = min(16 * draw(st.integers(1, 4)), m_total - m_start)
    kb = draw(st.integers(0, k_total // k0 - 1))
    k_ext = k0 * draw(st.integers(1, min(k_total // k0 - kb, 8)))
    transpose = draw(st.booleans()) and m_ext % 16 == 0  # X^T's K (= M) must fill whole C0 columns for mmad
    return dtype, (ch, h, w, kh, kw, sh, sw, dh, dw, *pads), m_start, m_ext, kb * k0, k_ext, transpose


@settings(max_examples=40, deadline=None)
@given(windows())
def test_any_img2col_window_matches_the_numpy_expansion(case):
    test_img2col_window_lands_in_l0a_exactly(*case)


@asc.jit
def identity_times_window(x: asc.GlobalAddress, eye: asc.GlobalAddress, c: asc.GlobalAddress, geo: list,
                          m_start: int, m_ext: int, k_start: int, k_ext: int):
    """C = I @ B with B the img2col window in L0B: reads the window back exactly."""
    x_gm, e_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    e_gm.set_global_buffer(eye)
    c_gm.set_global_buffer(c)
    ch, h, w, kh, kw, sh, sw, dh, dw, pl, pr, pt, pb = geo
    dt = x_gm.dtype
    isz = dt.itemsize
    mp, kp = (m_ext + 15) // 16 * 16, (k_ext + 15) // 16 * 16
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, mp * mp * isz), (qb1, ch * h * w * isz), (qa2, mp * mp * isz), (qb2, mp * kp * isz),
                      (qc, mp * kp * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, a2, b2 = qa1.alloc_tensor(dt), qb1.alloc_tensor(dt), qa2.alloc_tensor(dt), qb2.alloc_tensor(dt)
    kq = (m_ext + 32 // isz - 1) // (32 // isz) * (32 // isz)  # A's K (= m_ext) in whole C0 columns
    asc.data_copy(a1, e_gm, mp * kq)
    asc.load_data(a2, a1, asc.LoadData2DParams(0, mp * kq * isz // 512, 1, 0, 0))  # the zZ image, verbatim
    asc.data_copy(b1, x_gm, ch * h * w)
    asc.load_data(b2, b1, asc.LoadData3DParamsV2((pl, pr, pt, pb), h, w, ch, k_ext, m_ext, k_start, m_start, sw, sh,
                                                 kw, kh, dw, dh))
    c1 = qc.alloc_tensor(asc.float32)
    asc.mmad(c1, a2, b2, asc.MmadParams(m_ext, k_ext, m_ext))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(k_ext, m_ext, mp, k_ext))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(windows())
def test_any_img2col_window_lands_in_l0b_as_the_b_operand(case):
    dtype, geo, m_start, m_ext, k_start, k_ext, _ = case
    k0 = 32 // np.dtype(dtype).itemsize
    assume(m_ext % k0 == 0)  # B's K (= M) padding would hold no data otherwise
    ch, h, w, kh, kw, sh, sw, dh, dw, pl, pr, pt, pb = geo
    x = np.random.default_rng(19).uniform(-1, 1, (ch, h, w)).astype(dtype)
    xm = expanded(x, kh, kw, (sh, sw), (dh, dw), (pl, pr, pt, pb), 0.0, k0)
    want = xm[m_start : m_start + m_ext, k_start : k_start + k_ext].astype(np.float32)
    p, q = up(m_ext, 16), up(m_ext, k0)  # A = I: m_ext rows in blocks of 16, K = m_ext in blocks of C0
    eye = np.eye(p, q, dtype=dtype).reshape(p // 16, 16, q // k0, k0).transpose(0, 2, 1, 3)  # zZ fractals
    c = np.zeros(want.shape, np.float32)
    identity_times_window[1](nc1hwc0(x, k0), np.ascontiguousarray(eye).ravel(), c, list(geo), m_start, m_ext,
                             k_start, k_ext)
    np.testing.assert_array_equal(c, want)

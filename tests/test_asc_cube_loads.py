"""load_data_with_transpose (LoadData2dTransposeParams) feeding mmad, per element size, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc

ACC = {"int8": asc.int32, "float16": asc.float32, "float32": asc.float32}


def up(x: int, k: int) -> int:
    return -(-x // k) * k


@asc.jit
def mm_transposed_b(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, k: int, n: int):
    """C = A @ B with B moved into L0B by load_data_with_transpose (A by plain load_data)."""
    dt = a.dtype
    isz = dt.itemsize
    c0 = 32 // isz
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    mp, kp, np_ = up(m, 16), up(k, 32 if isz == 1 else 16), up(n, 32 if isz == 1 else 16)
    for q, nbytes in ((qa1, mp * kp * isz), (qb1, kp * np_ * isz), (qa2, mp * kp * isz), (qb2, kp * np_ * isz),
                      (qc, mp * np_ * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1 = qa1.alloc_tensor(dt), qb1.alloc_tensor(dt)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, mp, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, kp, 1, 0))
    a2, b2 = qa2.alloc_tensor(dt), qb2.alloc_tensor(dt)
    frac = 512 // isz  # elements per fractal
    for i in range(mp // 16):  # A: zZ, a row of fractals per m block
        asc.load_data(a2[i * (kp // c0) * frac:], a1[i * frac:], asc.LoadData2DParams(0, kp // c0, mp // 16, 0, 0))
    nb = np_ // 16  # L0B: fractal (k block, n block) at k block * nb + n block
    if isz == 1:  # one 32 x 32 square per (32 k, 32 n): two L0B fractals side by side
        for kb in range(kp // 32):
            asc.load_data_with_transpose(b2[kb * nb * frac:], b1,
                                         asc.LoadData2dTransposeParams(kb, np_ // 32, kp // 32, 1, 0))
    elif isz == 2:  # one 16 x 16 fractal per (16 k, 16 n)
        for kb in range(kp // 16):
            asc.load_data_with_transpose(b2[kb * nb * frac:], b1,
                                         asc.LoadData2dTransposeParams(kb, nb, kp // 16, 0, 0))
    else:  # k == 16: the two 8-column blocks of 16 n make one 16 x 16 square -> k blocks 0 and 1
        asc.load_data_with_transpose(b2, b1, asc.LoadData2dTransposeParams(0, nb, 1, 0, nb - 1))
    c1 = qc.alloc_tensor(c_gm.dtype)
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=mp, dst_stride=n))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
        q.free_tensor(t)


@pytest.mark.parametrize(("dtype", "m", "k", "n"), [
    ("int8", 32, 64, 64), ("int8", 20, 32, 32), ("float16", 32, 48, 64), ("float32", 32, 16, 48),
])
def test_load_data_with_transpose_puts_b_in_l0b_as_mmad_reads_it(dtype, m, k, n):
    rng = np.random.default_rng(7)
    if dtype == "int8":
        a = rng.integers(-128, 128, (m, k), dtype=np.int8)
        b = rng.integers(-128, 128, (k, n), dtype=np.int8)
        want = a.astype(np.int32) @ b.astype(np.int32)
    else:
        a = rng.uniform(-1, 1, (m, k)).astype(dtype)
        b = rng.uniform(-1, 1, (k, n)).astype(dtype)
        want = a.astype(np.float32) @ b.astype(np.float32)
    c = np.zeros((m, n), ACC[dtype].np)
    mm_transposed_b[1](a, b, c, m, k, n)
    if dtype == "int8":
        np.testing.assert_array_equal(c, want)
    else:
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


@asc.jit
def transpose_misuse(x: asc.GlobalAddress, case: int):
    pipe = asc.TPipe()
    q1, q2 = asc.TQue(asc.TPosition.B1, 1), asc.TQue(asc.TPosition.B2, 1)
    pipe.init_buffer(q1, 1, 4096)
    pipe.init_buffer(q2, 1, 4096)
    src, dst = q1.alloc_tensor(asc.int8), q2.alloc_tensor(asc.int8)
    if case == 0:  # two fractals per repeat, repeats one fractal apart: repeat 1 overwrites repeat 0's second
        asc.load_data_with_transpose(dst, src, asc.LoadData2dTransposeParams(0, 2, 1, 0, 0))
    elif case == 1:  # 8 squares of 1 KiB from a 4 KiB tensor
        asc.load_data_with_transpose(dst, src, asc.LoadData2dTransposeParams(0, 8, 1, 1, 0))
    else:
        asc.load_data(dst, src, asc.LoadData2DParamsV2(0, 0, 1, 1))
    q1.free_tensor(src)
    q2.free_tensor(dst)


@pytest.mark.parametrize(("case", "message"), [
    (0, r"load_data_with_transpose: LoadData2dTransposeParams\(.*\): wrong fractal layout: the destination "
        r"fractals of different repeats overlap"),
    (1, r"reads L1 bytes up to 8192, past the end of src at byte 4096"),
    (2, r"LoadData2DParamsV2 \(Load2Dv2\) exists only on Ascend 950PR/950DT.*Ascend910B1 loads with LoadData2DParams"),
])
def test_transpose_load_misuse_is_an_error_naming_the_api(case, message):
    with pytest.raises(asc.AscError, match=message):
        transpose_misuse[1](np.zeros(1, np.int8), case)

"""The Cube data path (data_copy Nd2Nz, load_data, mmad, fixpipe) against numpy, and its classic bugs."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim.asc as asc


def up16(x: int) -> int:
    return -(-x // 16) * 16


@asc.jit
def cube_mm(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: int, k: int, n: int,
            relu: bool, k_split: int, a_rows_loaded: int, mmad_k: int, skip_mmad: bool, raw_c: bool = False):
    """C = A @ B (m x k x n, float16 -> float32) the low-level way, K in `k_split` steps (C in a raw-address L0C
    tensor declared with the unpadded m x n when `raw_c`, as CANN's mmad example does)."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2 = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1)
    qc = asc.TQue(asc.TPosition.CO1, 1)
    mp, kp, np_ = up16(m), up16(k), up16(n)
    pipe.init_buffer(qa1, 1, mp * kp * 2)
    pipe.init_buffer(qb1, 1, kp * np_ * 2)
    pipe.init_buffer(qa2, 1, mp * kp * 2)
    pipe.init_buffer(qb2, 1, kp * np_ * 2)
    pipe.init_buffer(qc, 1, mp * np_ * 4)
    a1, b1 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, mp, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, kp, 1, 0))
    a2, b2 = qa2.alloc_tensor(asc.half), qb2.alloc_tensor(asc.half)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n) if raw_c else qc.alloc_tensor(asc.float32)
    kb = kp // 16 // k_split  # K blocks per step: each step reloads L0A / L0B and accumulates in L0C
    for s in range(k_split):
        for i in range(a_rows_loaded // 16):  # zZ: one row of fractals per m block
            asc.load_data(a2[i * 16 * kb * 16:], a1[(s * kb * (mp // 16) + i) * 256:],
                          asc.LoadData2DParams(0, kb, mp // 16, 0, 0, False))
        for i in range(kb):  # nZ: each fractal transposed
            asc.load_data(b2[i * 16 * np_:], b1[(s * kb + i) * 256:],
                          asc.LoadData2DParams(0, np_ // 16, kp // 16, 0, 0, True))
        if not skip_mmad:
            asc.mmad(c1, a2, b2, asc.MmadParams(m, n, mmad_k or (k if k_split == 1 else kb * 16), cmatrix_init_val=s == 0))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=mp, dst_stride=n, relu_en=relu))
    for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), *(() if raw_c else ((qc, c1),))):
        q.free_tensor(t)


def run(m: int, k: int, n: int, relu: bool = False, k_split: int = 1, a_rows: int | None = None, mmad_k: int = 0,
        skip_mmad: bool = False, seed: int = 0, raw_c: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, (m, k)).astype(np.float16)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    cube_mm[1](a, b, c, m, k, n, relu, k_split, up16(m) if a_rows is None else a_rows, mmad_k, skip_mmad, raw_c)
    want = a.astype(np.float32) @ b.astype(np.float32)
    return c, (np.maximum(want, 0) if relu else want)


@pytest.mark.parametrize("shape", [(32, 32, 32), (64, 48, 80), (30, 32, 40), (16, 256, 16)])
def test_low_level_matmul_matches_numpy_float32_accumulate(shape):
    c, want = run(*shape)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def test_a_raw_address_l0c_tensor_declared_unpadded_takes_whole_fractals():
    """30 x 40 floats declared (4,800 bytes), 32 x 48 written: the NPU bounds a raw-address tensor by its memory."""
    c, want = run(30, 32, 40, raw_c=True)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def test_k_loop_accumulates_in_l0c_and_fixpipe_relu():
    c, want = run(32, 64, 48, relu=True, k_split=2)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    assert (c >= 0).all() and (c > 0).any()


def test_unloaded_fractal_is_a_layout_error_naming_api_and_line():
    with pytest.raises(asc.AscError, match=r"asc\.mmad: reads A\[32\]\[0\] \(fractal \(2, 0\)\) in L0A.*zZ.*test_asc_cube\.py:\d+"):
        run(64, 32, 32, a_rows=32)


def test_unpadded_k_uses_the_first_k_only():
    # Nd2Nz zero-fills A's columns 24..31 but B's rows 24..31 were never written: the Cube does not use them
    c, want = run(32, 24, 32)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def test_fixpipe_before_mmad_is_an_uninitialised_l0c_read():
    with pytest.raises(asc.AscError, match=r"asc\.fixpipe: reads C\[0\]\[0\] of L0C.*before mmad wrote it"):
        run(32, 32, 32, skip_mmad=True)


@asc.jit
def l0_misuse(x: asc.GlobalAddress, case: int):
    pipe = asc.TPipe()
    qa, qb, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(qa, 1, 16 * 32 * 2)
    pipe.init_buffer(qb, 1, 32 * 16 * 2)
    pipe.init_buffer(qc, 1, 16 * 16 * 4)
    a, b, c = qa.alloc_tensor(asc.half), qb.alloc_tensor(asc.half), qc.alloc_tensor(asc.float32)
    if case == 0:  # A of 64 x 32 does not fit the 1 KiB L0A tensor
        asc.mmad(c, a, b, asc.MmadParams(64, 16, 32))
    elif case == 1:  # L0A operands start on 512 bytes
        asc.mmad(c, a[16:], b, asc.MmadParams(16, 16, 16))
    elif case == 3:  # B of 16 x 32 does not fit the 1 KiB L0B tensor
        asc.mmad(c, a, b, asc.MmadParams(16, 32, 32))
    elif case == 4:  # C of 32 x 16 float32 does not fit the 1 KiB L0C tensor (A of 32 x 16 fits L0A)
        asc.mmad(c, a, b, asc.MmadParams(32, 16, 16))
    else:  # accumulating into an L0C no mmad wrote
        asc.mmad(c, a, b, asc.MmadParams(16, 16, 32, cmatrix_init_val=False))


@pytest.mark.parametrize("case, message", [
    (0, r"fm \(A\) m=64 x k=32 .* needs 4096 bytes of L0A but the tensor holds only 1024 bytes \(L0A overflow\)"),
    (1, r"fm \(A\) starts at L0A byte 32, not 512-byte aligned"),
    (2, r"accumulates \(cmatrix_init_val=False\) into L0C, but C\[16 x 16\] was not all written"),
    (3, r"filter \(B\) k=32 x n=32 .* needs 2048 bytes of L0B but the tensor holds only 1024 bytes \(L0B overflow\)"),
    (4, r"dst \(C\) m=32 x n=16 .* needs 2048 bytes of L0C but the tensor holds only 1024 bytes \(L0C overflow\)"),
])
def test_l0_misuse_is_reported(case, message):
    x = np.zeros(16, np.float16)
    with pytest.raises(asc.AscError, match=message):
        l0_misuse[1](x, case)


def test_l0a_oversubscription_names_the_chip_size():
    @asc.jit
    def big(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.A2, 1)
        pipe.init_buffer(q, 2, 48 * 1024)

    with pytest.raises(asc.AscError, match=r"L0A over-subscribed.*65536 usable bytes"):
        big[1](np.zeros(16, np.float16))


@asc.jit
def cube_int8_bias(a: asc.GlobalAddress, bt: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                   m: int, k: int, n: int, how: str = "operand"):
    """int8 x int8 -> int32 with B given transposed (n x k), plus a bias through L1 -> BiasTable: as the bias
    operand, as the operand with cmatrix_init_val=False ("init false"), or with no operand and
    cmatrix_source=True ("source": C starts from the BiasTable)."""
    a_gm, b_gm, bias_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(bt)
    bias_gm.set_global_buffer(bias)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    qa1, qb1, qbias1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1), asc.TQue(asc.TPosition.C1, 1)
    qa2, qb2 = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1)
    qbt, qc = asc.TQue(asc.TPosition.C2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, m * k), (qb1, n * k), (qbias1, n * 4), (qa2, m * k), (qb2, n * k), (qbt, n * 4),
                      (qc, m * n * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a1, b1, bias1 = qa1.alloc_tensor(asc.int8), qb1.alloc_tensor(asc.int8), qbias1.alloc_tensor(asc.int32)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, n, k, 0, k, n, 1, 0))
    asc.data_copy(bias1, bias_gm, n)
    a2, b2 = qa2.alloc_tensor(asc.int8), qb2.alloc_tensor(asc.int8)
    for i in range(m // 16):
        asc.load_data(a2[i * 16 * k:], a1[i * 512:], asc.LoadData2DParams(0, k // 32, m // 16, 0, 0, False))
    # B^T in NZ already has L0B's nZ fractal order: one straight load
    asc.load_data(b2, b1, asc.LoadData2DParams(0, (k // 32) * (n // 16), 1, 0, 0, False))
    bt_local = qbt.alloc_tensor(asc.int32)
    asc.data_copy(bt_local, bias1, n)
    c1 = qc.alloc_tensor(asc.int32)
    p = asc.MmadParams(m, n, k)
    if how == "operand":
        asc.mmad(c1, a2, b2, bt_local, p)
    elif how == "init false":  # CANN: the Mmad with a bias starts C from it, whatever cmatrix_source says
        p.cmatrix_init_val = False
        asc.mmad(c1, a2, b2, bt_local, p)
    else:
        p.cmatrix_init_val, p.cmatrix_source = False, True
        asc.mmad(c1, a2, b2, p)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, m, m, n))
    for q, t in ((qa1, a1), (qb1, b1), (qbias1, bias1), (qa2, a2), (qb2, b2), (qbt, bt_local), (qc, c1)):
        q.free_tensor(t)


@pytest.mark.parametrize("how", ["operand", "init false", "source"])
def test_int8_matmul_with_bias_matches_numpy_int32(how):
    rng = np.random.default_rng(1)
    m, k, n = 32, 64, 48
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    bias = rng.integers(-1000, 1000, n, dtype=np.int32)
    c = np.zeros((m, n), np.int32)
    cube_int8_bias[1](a, np.ascontiguousarray(b.T), bias, c, m, k, n, how)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32) + bias)


@asc.jit
def cube_16(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, quant: int, nz: bool):
    """One 16 x 32 x 16 float16 product, written out as float16 by the fixpipe (ND or NZ layout)."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    l1, l0a, l0b, l0c = asc.TBuf(asc.TPosition.A1), asc.TBuf(asc.TPosition.A2), asc.TBuf(asc.TPosition.B2), \
        asc.TBuf(asc.TPosition.CO1)
    for buf, nbytes in ((l1, 2048), (l0a, 1024), (l0b, 1024), (l0c, 1024)):
        pipe.init_buffer(buf, nbytes)
    a1, b1 = l1.get(asc.half), l1.get(asc.half)[512:]
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0))
    asc.load_data(l0a.get(asc.half), a1, asc.LoadData2DParams(0, 2, 1, 0, 0, False))
    asc.load_data(l0b.get(asc.half), b1, asc.LoadData2DParams(0, 2, 1, 0, 0, True))
    asc.mmad(l0c.get(asc.float32), l0a.get(asc.half), l0b.get(asc.half), asc.MmadParams(16, 16, 32))
    config = asc.FixpipeConfig.cfg_nz if nz else asc.FixpipeConfig.cfg_row_major
    asc.fixpipe(c_gm, l0c.get(asc.float32), asc.FixpipeParamsV220(16, 16, 16, 16 if not nz else 1, quant_pre=quant),
                config)


@pytest.mark.parametrize("nz", [False, True])
def test_fixpipe_converts_to_float16(nz):
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
    c = np.zeros((16, 16), np.float16)
    cube_16[1](a, b, c, int(asc.QuantModes.F322F16), nz)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(c, want)  # one 16-column block: NZ and ND coincide


def test_fixpipe_quantisation_must_match_the_dst_type():
    a = np.zeros((16, 32), np.float16)
    with pytest.raises(asc.AscError, match=r"asc\.fixpipe: dst is float32 but L0C float32 with "
                                           r"quant_pre=QuantModes.F322F16 gives float16"):
        cube_16[1](a, np.zeros((32, 16), np.float16), np.zeros((16, 16), np.float32), int(asc.QuantModes.F322F16),
                   False)


@asc.jit(matmul_cube_only=True)
def tiles_out(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, stride_rows: int):
    """Each core multiplies the same 16 x 32 @ 32 x 16 and writes its tile `stride_rows` rows below the last."""
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c + asc.get_block_idx() * stride_rows * 16)
    pipe = asc.TPipe()
    l1, l0a, l0b, l0c = asc.TBuf(asc.TPosition.A1), asc.TBuf(asc.TPosition.A2), asc.TBuf(asc.TPosition.B2), \
        asc.TBuf(asc.TPosition.CO1)
    for buf, nbytes in ((l1, 2048), (l0a, 1024), (l0b, 1024), (l0c, 1024)):
        pipe.init_buffer(buf, nbytes)
    a1, b1 = l1.get(asc.half), l1.get(asc.half)[512:]
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, 32, 16, 0, 16, 32, 1, 0))
    asc.load_data(l0a.get(asc.half), a1, asc.LoadData2DParams(0, 2, 1, 0, 0, False))
    asc.load_data(l0b.get(asc.half), b1, asc.LoadData2DParams(0, 2, 1, 0, 0, True))
    asc.mmad(l0c.get(asc.float32), l0a.get(asc.half), l0b.get(asc.half), asc.MmadParams(16, 16, 32))
    asc.fixpipe(c_gm, l0c.get(asc.float32), asc.FixpipeParamsV220(16, 16, 16, 16))  # FIXPIPE


@pytest.mark.parametrize("stride_rows, overlap", [(16, False), (8, True)])
def test_sanitizer_reports_cores_whose_fixpipe_writes_overlap(stride_rows, overlap):
    import io

    from aclsim.check import Session

    a = np.ones((16, 32), np.float16)
    b = np.ones((32, 16), np.float16)
    c = np.zeros((4 * 16, 16), np.float32)
    s = Session(["memcheck", "initcheck"], out=io.StringIO())
    tiles_out[4](a, b, c, stride_rows)
    s.stop()
    assert s.report.error_count == 0
    if not overlap:
        assert s.findings == [] and (c == 32).all()
        return
    (f,) = s.findings
    text = "\n".join(f.lines())
    assert f.kind == "multi-core-corruption" and "different cores of kernel tiles_out write the same" in text
    assert "core 0 writes" in text and "core 1 writes" in text and "test_asc_cube.py" in text

"""relu(A @ B + bias), float16 in, float32 out, tiled over 6 cores: with asc.adv.Matmul and by hand.

High level (as pyasc's tutorial 05): the host tiling API splits C over the cores, each AIV takes
128 x 128 base blocks from the Matmul into the UB, applies ReLU and copies them out. Low level
(cube-only): each AIC loops over K in steps of 64 with data_copy(Nd2NzParams) GM -> L1,
load_data L1 -> L0A/L0B, mmad into L0C (the bias from the BiasTable on the first step, then
accumulating) and fixpipe L0C -> GM with ReLU on the way out. Run with `aclsim run
examples/asc/matmul_bias_relu.py` or standalone; exits 1 if either result differs from numpy.
"""

import sys

import numpy as np

try:
    import asc  # pyasc on an NPU, or aclsim.asc under `aclsim run`
    import asc.lib.host as host
except ImportError:
    import aclsim.asc as asc
    from aclsim.asc.lib import host

M, N, K = 256, 384, 512
BLOCK, BASE_K = 128, 64  # each core's C block (low level) and its K step


@asc.jit
def matmul_relu_adv(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress,
                    tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    idx = asc.get_block_idx()
    if idx < tiling.used_core_num:
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        mi, ni = idx % m_blocks, idx // m_blocks
        a_gm, b_gm, bias_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
        b_gm.set_global_buffer(b + ni * tiling.single_core_n)
        bias_gm.set_global_buffer(bias + ni * tiling.single_core_n)
        c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
        pipe = asc.TPipe()
        out_q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(que=out_q, num=2, len=tiling.base_m * tiling.base_n * 4)
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, c_gm.dtype),
                            bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_gm.dtype))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_bias(bias_gm)
        round_m = tiling.single_core_m // tiling.base_m
        with mm.iterate() as count:
            t = out_q.alloc_tensor(asc.float32)
            mm.get_tensor_c(t, en_sequential_write=True)
            asc.relu(t, t, tiling.base_m * tiling.base_n)
            out_q.enque(t)
            t = out_q.deque(asc.float32)
            start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
            asc.data_copy(c_gm[start:], t, asc.DataCopyParams(tiling.base_m, tiling.base_n * 4 // 32, 0,
                                                              (tiling.n - tiling.base_n) * 4 // 32))
            out_q.free_tensor(t)
        mm.end()


@asc.jit(matmul_cube_only=True)
def matmul_relu_cube(a: asc.GlobalAddress, b: asc.GlobalAddress, bias: asc.GlobalAddress, c: asc.GlobalAddress):
    m_blocks = M // BLOCK
    mi, ni = asc.get_block_idx() % m_blocks, asc.get_block_idx() // m_blocks
    a_gm, b_gm, bias_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a + mi * BLOCK * K)
    b_gm.set_global_buffer(b + ni * BLOCK)
    bias_gm.set_global_buffer(bias + ni * BLOCK)
    c_gm.set_global_buffer(c + mi * BLOCK * N + ni * BLOCK)
    pipe = asc.TPipe()
    qa1, qb1, qbias = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1), asc.TQue(asc.TPosition.C1, 1)
    qa2, qb2 = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1)
    qbt, qc = asc.TQue(asc.TPosition.C2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, BLOCK * BASE_K * 2), (qb1, BASE_K * BLOCK * 2), (qbias, BLOCK * 4),
                      (qa2, BLOCK * BASE_K * 2), (qb2, BASE_K * BLOCK * 2), (qbt, BLOCK * 4), (qc, BLOCK * BLOCK * 4)):
        pipe.init_buffer(q, 1, nbytes)
    bias_l1 = qbias.alloc_tensor(asc.float32)
    asc.data_copy(bias_l1, bias_gm, BLOCK)  # GM -> L1 -> BiasTable
    bias_bt = qbt.alloc_tensor(asc.float32)
    asc.data_copy(bias_bt, bias_l1, BLOCK)
    c1 = qc.alloc_tensor(asc.float32)
    for s in range(K // BASE_K):
        a1, b1 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half)
        asc.data_copy(a1, a_gm[s * BASE_K:], asc.Nd2NzParams(1, BLOCK, BASE_K, 0, K, BLOCK, 1, 0))
        asc.data_copy(b1, b_gm[s * BASE_K * N:], asc.Nd2NzParams(1, BASE_K, BLOCK, 0, N, BASE_K, 1, 0))
        a2, b2 = qa2.alloc_tensor(asc.half), qb2.alloc_tensor(asc.half)
        for i in range(BLOCK // 16):  # A: zZ, one row of fractals per 16 rows
            asc.load_data(a2[i * 16 * BASE_K:], a1[i * 256:],
                          asc.LoadData2DParams(0, BASE_K // 16, BLOCK // 16, 0, 0, False))
        for i in range(BASE_K // 16):  # B: nZ, each fractal transposed
            asc.load_data(b2[i * 16 * BLOCK:], b1[i * 256:],
                          asc.LoadData2DParams(0, BLOCK // 16, BASE_K // 16, 0, 0, True))
        if s == 0:
            asc.mmad(c1, a2, b2, bias_bt, asc.MmadParams(BLOCK, BLOCK, BASE_K))
        else:
            asc.mmad(c1, a2, b2, asc.MmadParams(BLOCK, BLOCK, BASE_K, cmatrix_init_val=False))
        for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2)):
            q.free_tensor(t)
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n_size=BLOCK, m_size=BLOCK, src_stride=BLOCK, dst_stride=N,
                                                relu_en=True))
    for q, t in ((qbias, bias_l1), (qbt, bias_bt), (qc, c1)):
        q.free_tensor(t)


def generate_tiling() -> asc.adv.TCubeTiling:
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(6)
    t.set_org_shape(M, N, K)
    t.set_shape(M, N, K)
    t.enable_bias(True)
    t.set_fix_split(BLOCK, BLOCK, -1)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def main() -> int:
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)
    workspace = np.zeros(1024, np.uint8)
    tiling = generate_tiling()
    c_adv = np.zeros((M, N), np.float32)
    matmul_relu_adv[tiling.used_core_num // 2](a, b, bias, c_adv, tiling, workspace)  # mix: 2 AIVs per block
    c_low = np.zeros((M, N), np.float32)
    matmul_relu_cube[(M // BLOCK) * (N // BLOCK)](a, b, bias, c_low)
    ok = True
    for name, c in (("asc.adv.Matmul", c_adv), ("load_data/mmad/fixpipe", c_low)):
        err = float(np.abs(c - want).max())
        good = np.allclose(c, want, rtol=1e-5, atol=1e-5)
        ok &= good
        print(f"{name:24s} {M}x{K} @ {K}x{N} + bias, relu: {'matches numpy' if good else 'MISMATCH'} "
              f"(max abs error {err:.2e})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

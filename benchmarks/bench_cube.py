"""The Cube path's speed: a 1024 x 1024 x 1024 float16 matmul on 24 cores against numpy.

Through asc.adv.Matmul (host tiling, iterate_all) and through the low-level data path (Nd2Nz,
load_data, mmad, fixpipe; examples/asc/matmul_bias_relu.py's kernel shape), each checked against
numpy's float32 product of the float16 inputs, and timed against it: `a.astype(float32) @
b.astype(float32)` (the same float32 accumulation the Cube does) and numpy's own float16 `a @ b`.

Run: python benchmarks/bench_cube.py. Prints the best of several runs and ratios measured in this
run; no figure is hard-coded.
"""

from __future__ import annotations

import time

import numpy as np

import aclsim.asc as asc
from aclsim.asc.lib import host

M = N = K = 1024
CORES = 24
REPEATS = 3


def best(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


@asc.jit(matmul_cube_only=True)
def matmul_adv(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
               workspace: asc.GlobalAddress):
    idx = asc.get_block_idx()
    if idx < tiling.used_core_num:
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        mi, ni = idx % m_blocks, idx // m_blocks
        a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
        b_gm.set_global_buffer(b + ni * tiling.single_core_n)
        c_gm.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_gm.dtype),
                            b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_gm.dtype),
                            c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_gm.dtype))
        asc.adv.register_matmul(pipe, workspace, mm, tiling)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_tail(min(tiling.single_core_m, tiling.m - mi * tiling.single_core_m),
                    min(tiling.single_core_n, tiling.n - ni * tiling.single_core_n))
        mm.iterate_all(c_gm)
        mm.end()


def tiling_for(m: int, n: int, k: int) -> asc.adv.TCubeTiling:
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(CORES)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


BLOCK, BASE_K = 128, 64


@asc.jit(matmul_cube_only=True)
def matmul_low(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, blocks: int):
    """Each core computes 128 x 128 blocks of C in K steps of 64 (grid-stride over the blocks)."""
    pipe = asc.TPipe()
    qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qa1, BLOCK * BASE_K * 2), (qb1, BASE_K * BLOCK * 2), (qa2, BLOCK * BASE_K * 2),
                      (qb2, BASE_K * BLOCK * 2), (qc, BLOCK * BLOCK * 4)):
        pipe.init_buffer(q, 1, nbytes)
    a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    for blk in range(asc.get_block_idx(), blocks, asc.get_block_num()):
        mi, ni = blk % (M // BLOCK), blk // (M // BLOCK)
        a_gm.set_global_buffer(a + mi * BLOCK * K)
        b_gm.set_global_buffer(b + ni * BLOCK)
        c_gm.set_global_buffer(c + mi * BLOCK * N + ni * BLOCK)
        c1 = qc.alloc_tensor(asc.float32)
        for s in range(K // BASE_K):
            a1, b1 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half)
            asc.data_copy(a1, a_gm[s * BASE_K:], asc.Nd2NzParams(1, BLOCK, BASE_K, 0, K, BLOCK, 1, 0))
            asc.data_copy(b1, b_gm[s * BASE_K * N:], asc.Nd2NzParams(1, BASE_K, BLOCK, 0, N, BASE_K, 1, 0))
            a2, b2 = qa2.alloc_tensor(asc.half), qb2.alloc_tensor(asc.half)
            for i in range(BLOCK // 16):
                asc.load_data(a2[i * 16 * BASE_K:], a1[i * 256:],
                              asc.LoadData2DParams(0, BASE_K // 16, BLOCK // 16, 0, 0, False))
            for i in range(BASE_K // 16):
                asc.load_data(b2[i * 16 * BLOCK:], b1[i * 256:],
                              asc.LoadData2DParams(0, BLOCK // 16, BASE_K // 16, 0, 0, True))
            asc.mmad(c1, a2, b2, asc.MmadParams(BLOCK, BLOCK, BASE_K, cmatrix_init_val=s == 0))
            for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2)):
                q.free_tensor(t)
        asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n_size=BLOCK, m_size=BLOCK, src_stride=BLOCK, dst_stride=N))
        qc.free_tensor(c1)


def main() -> None:
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    tiling = tiling_for(M, N, K)
    workspace = np.zeros(64, np.uint8)
    c_adv = np.zeros((M, N), np.float32)
    c_low = np.zeros((M, N), np.float32)
    blocks = (M // BLOCK) * (N // BLOCK)

    t_ref = best(lambda: a.astype(np.float32) @ b.astype(np.float32))
    t_adv = best(lambda: matmul_adv[tiling.used_core_num](a, b, c_adv, tiling, workspace))
    t_low = best(lambda: matmul_low[CORES](a, b, c_low, blocks), 1)
    t_f16 = best(lambda: a @ b, 1)
    for name, c in (("asc.adv.Matmul", c_adv), ("load_data/mmad/fixpipe", c_low)):
        print(f"{name}: max |c - numpy float32| = {float(np.abs(c - want).max()):.2e}, "
              f"equal to numpy: {np.array_equal(c, want)}")
    print(f"\n{M}x{K}x{N} float16 -> float32, {tiling.used_core_num} cores (tiling single {tiling.single_core_m}x"
          f"{tiling.single_core_n}, base {tiling.base_m}x{tiling.base_n}x{tiling.base_k})")
    print("| path | time | numpy a32 @ b32 | ratio |")
    print("|---|---|---|---|")
    for name, t in (("asc.adv.Matmul, 24 cores", t_adv), ("load_data/mmad/fixpipe, 24 cores", t_low),
                    ("numpy float16 a @ b", t_f16)):
        print(f"| {name} | {t * 1e3:.1f} ms | {t_ref * 1e3:.1f} ms | {t / t_ref:.1f}x |")


if __name__ == "__main__":
    main()

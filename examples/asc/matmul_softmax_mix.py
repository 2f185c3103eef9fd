"""softmax(A @ B) row by row in one mix kernel: the Cube multiplies, the vector cores normalise.

Each block is one AIC and two AIVs (`kernel_type=KernelType.MIX_AIC_1_2`). The AIC computes its
block's 32 rows of A @ B (data_copy Nd2Nz -> load_data -> mmad -> fixpipe into a GM workspace),
then sets cross-core flag 1 in mode 2; each AIV waits for that flag, takes its 16 rows of the
workspace into the UB and applies a row softmax (reduce_max, adds, exp, reduce_sum, muls), as
attention kernels split their work. Run with `aclsim run examples/asc/matmul_softmax_mix.py`
(add `--check memcheck` to see that the flag orders the AIVs' reads after the AIC's writes) or
standalone; exits 1 if the result differs from numpy.
"""

import sys

import numpy as np

try:
    import asc  # pyasc on an NPU, or aclsim.asc under `aclsim run`
    from asc.runtime.config import KernelType
except ImportError:
    import aclsim.asc as asc
    from aclsim.asc.runtime.config import KernelType

BLOCKS = 2
ROWS, K, N = 32, 32, 64  # per block: A is 32 x 32, B 32 x 64, each AIV takes 16 rows of C
FLAG = 1


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def matmul_softmax(a: asc.GlobalAddress, b: asc.GlobalAddress, work: asc.GlobalAddress, z: asc.GlobalAddress):
    blk = asc.get_block_idx()
    pipe = asc.TPipe()
    if asc.ascend_is_aic():  # blk is the block
        a_gm, b_gm, w_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a + blk * ROWS * K)
        b_gm.set_global_buffer(b)
        w_gm.set_global_buffer(work + blk * ROWS * N)
        qa1, qb1 = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
        qa2, qb2, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
        for q, nbytes in ((qa1, ROWS * K * 2), (qb1, K * N * 2), (qa2, ROWS * K * 2), (qb2, K * N * 2),
                          (qc, ROWS * N * 4)):
            pipe.init_buffer(q, 1, nbytes)
        a1, b1 = qa1.alloc_tensor(asc.half), qb1.alloc_tensor(asc.half)
        asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, ROWS, K, 0, K, ROWS, 1, 0))
        asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, K, N, 0, N, K, 1, 0))
        a2, b2 = qa2.alloc_tensor(asc.half), qb2.alloc_tensor(asc.half)
        for i in range(ROWS // 16):  # L0A (zZ): a row of K // 16 fractals per 16 rows of A
            asc.load_data(a2[i * 16 * K:], a1[i * 256:], asc.LoadData2DParams(0, K // 16, ROWS // 16, 0, 0))
        for i in range(K // 16):  # L0B (nZ): each 16 x 16 fractal of B transposed
            asc.load_data(b2[i * 16 * N:], b1[i * 256:], asc.LoadData2DParams(0, N // 16, K // 16, 0, 0, True))
        c1 = qc.alloc_tensor(asc.float32)
        asc.mmad(c1, a2, b2, asc.MmadParams(ROWS, N, K))
        asc.fixpipe(w_gm, c1, asc.FixpipeParamsV220(n_size=N, m_size=ROWS, src_stride=ROWS, dst_stride=N))
        for q, t in ((qa1, a1), (qb1, b1), (qa2, a2), (qb2, b2), (qc, c1)):
            q.free_tensor(t)
        asc.cross_core_set_flag(FLAG, 2, asc.PipeID.PIPE_FIX)  # mode 2: both AIVs of this block may go
    else:  # blk is the logical AIV: block * 2 + sub-block
        asc.cross_core_wait_flag(FLAG, 2, asc.PipeID.PIPE_V)
        half = ROWS // 2
        w_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
        w_gm.set_global_buffer(work + blk * half * N)
        z_gm.set_global_buffer(z + blk * half * N)
        q = asc.TQue(asc.TPosition.VECIN, 1)
        work_buf, result_buf = asc.TBuf(asc.TPosition.VECCALC), asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(q, 1, N * 4)
        pipe.init_buffer(work_buf, N * 4)
        pipe.init_buffer(result_buf, 32)
        scratch, result = work_buf.get(asc.float32), result_buf.get(asc.float32)
        for r in range(half):
            t = q.alloc_tensor(asc.float32)
            asc.data_copy(t, w_gm[r * N:], N)
            q.enque(t)  # MTE2 -> V through the queue
            t = q.deque(asc.float32)
            asc.reduce_max(result, t, scratch, N)
            asc.set_flag(asc.HardEvent.V_S, 0)
            asc.wait_flag(asc.HardEvent.V_S, 0)
            asc.adds(t, t, -result.get_value(0), N)
            asc.exp(t, t, N)
            asc.reduce_sum(result, t, scratch, N)
            asc.set_flag(asc.HardEvent.V_S, 0)
            asc.wait_flag(asc.HardEvent.V_S, 0)
            asc.muls(t, t, 1.0 / result.get_value(0), N)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy(z_gm[r * N:], t, N)
            asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)  # the next row's copy-in reuses these bytes
            asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
            q.free_tensor(t)


def main() -> int:
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (BLOCKS * ROWS, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    z = np.zeros((BLOCKS * ROWS, N), np.float32)
    matmul_softmax[BLOCKS](a, b, np.zeros_like(z), z)
    s = a.astype(np.float32) @ b.astype(np.float32)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    err = float(np.max(np.abs(z - expected) / expected))
    ok = err < 1e-5
    print(f"matmul_softmax[{BLOCKS}] (1 AIC + 2 AIVs per block): softmax({BLOCKS * ROWS}x{K} @ {K}x{N}), max "
          f"relative error {err:.1e}: {'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

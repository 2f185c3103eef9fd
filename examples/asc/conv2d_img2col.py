"""A 3 x 3 'same' convolution with ReLU on the Cube: img2col load_data, mmad and fixpipe.

Each AIC takes one image of the batch: its C = 32 channel x 16 x 16 float16 feature map goes to L1 in
NC1HWC0 (2 x 16 x 16 x 16), the weights to L1 as a K x COUT matrix in fractal NZ, K = 32 x 3 x 3 = 288
ordered (C1, kernel row, kernel column, C0) as img2col lays out its columns, and from there to L0B. The
256 output positions are done 64 at a time: `load_data` with `LoadData3DParamsV2` expands rows
m_start..m_start + 63 of the img2col matrix into L0A (zero padding around the map), `mmad` multiplies
(float32 accumulation) and `fixpipe` writes those 64 output pixels x 32 channels to GM with ReLU. Run
with `aclsim run examples/asc/conv2d_img2col.py` or standalone; exits 1 if it differs from numpy.
"""

import sys

import numpy as np

try:
    import asc
except ImportError:
    import aclsim.asc as asc

N, C, H, W, COUT, KS = 4, 32, 16, 16, 32, 3
C0 = 16
K = C * KS * KS  # the img2col row: C1 x 3 x 3 x C0
M_TILE = 64  # output positions per img2col load (64 x 288 halves: 36 KiB of L0A's 64)


@asc.jit(matmul_cube_only=True)
def conv_relu(x: asc.GlobalAddress, wt: asc.GlobalAddress, y: asc.GlobalAddress):
    image = asc.get_block_idx()
    x_gm, w_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + image * C * H * W)
    w_gm.set_global_buffer(wt)
    y_gm.set_global_buffer(y + image * H * W * COUT)
    pipe = asc.TPipe()
    qx, qw = asc.TQue(asc.TPosition.A1, 1), asc.TQue(asc.TPosition.B1, 1)
    qa, qb, qc = asc.TQue(asc.TPosition.A2, 1), asc.TQue(asc.TPosition.B2, 1), asc.TQue(asc.TPosition.CO1, 1)
    for q, nbytes in ((qx, C * H * W * 2), (qw, K * COUT * 2), (qa, M_TILE * K * 2), (qb, K * COUT * 2),
                      (qc, M_TILE * COUT * 4)):
        pipe.init_buffer(q, 1, nbytes)
    fmap, w1, w2 = qx.alloc_tensor(asc.half), qw.alloc_tensor(asc.half), qb.alloc_tensor(asc.half)
    asc.data_copy(fmap, x_gm, C * H * W)  # already NC1HWC0 in GM
    asc.data_copy(w1, w_gm, asc.Nd2NzParams(1, K, COUT, 0, COUT, K, 1, 0))
    for kb in range(K // 16):  # L0B fractal (kb, nb) is L1 fractal nb * (K / 16) + kb, transposed
        asc.load_data(w2[kb * 16 * COUT:], w1, asc.LoadData2DParams(kb, COUT // 16, K // 16, 0, 0, True))
    for m_start in range(0, H * W, M_TILE):
        a2, c1 = qa.alloc_tensor(asc.half), qc.alloc_tensor(asc.float32)
        asc.load_data(a2, fmap, asc.LoadData3DParamsV2(
            pad_list=(1, 1, 1, 1), l1_h=H, l1_w=W, channel_size=C, k_extension=K, m_extension=M_TILE,
            k_start_pt=0, m_start_pt=m_start, filter_w=KS, filter_h=KS))
        asc.mmad(c1, a2, w2, asc.MmadParams(M_TILE, COUT, K))
        asc.fixpipe(y_gm[m_start * COUT:], c1, asc.FixpipeParamsV220(n_size=COUT, m_size=M_TILE, src_stride=M_TILE,
                                                                     dst_stride=COUT, relu_en=True))
        qa.free_tensor(a2)
        qc.free_tensor(c1)
    for q, t in ((qx, fmap), (qw, w1), (qb, w2)):
        q.free_tensor(t)


def main() -> int:
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (N, C, H, W)).astype(np.float16)
    wt = rng.uniform(-1, 1, (COUT, C, KS, KS)).astype(np.float16)
    x5hd = np.ascontiguousarray(x.reshape(N, C // C0, C0, H, W).transpose(0, 1, 3, 4, 2))
    w_rows = np.ascontiguousarray(wt.reshape(COUT, C // C0, C0, KS, KS).transpose(1, 3, 4, 2, 0).reshape(K, COUT))
    y = np.zeros((N, H, W, COUT), np.float32)
    conv_relu[N](x5hd, w_rows, y)
    xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((N, H, W, COUT), np.float32)
    for i in range(KS):
        for j in range(KS):
            want += np.einsum("nchw,oc->nhwo", xp[:, :, i : i + H, j : j + W], wt[:, :, i, j].astype(np.float32))
    want = np.maximum(want, 0)
    good = np.allclose(y, want, rtol=1e-4, atol=1e-4)
    print(f"conv2d 3x3 + relu, {N}x{C}x{H}x{W} -> {COUT} channels, img2col/mmad/fixpipe: "
          f"{'matches numpy' if good else 'MISMATCH'} (max abs error {float(np.abs(y - want).max()):.2e})")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())

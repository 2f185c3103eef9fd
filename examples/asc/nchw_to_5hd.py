"""NCHW -> NC1HWC0 with trans_data_to_5hd, then the max over each pixel's 16 channels with whole_reduce_max.

Each core converts one image of the batch: C = 32 channels of H x W = 16 x 16 float16 become two
C1 groups of 256 pixels x C0 = 16 channels. One trans_data_to_5hd per C1 group reads 16 channel rows
(one per source address) and writes 16 pixels of 16 channels per repeat, 16 repeats. Then each
pixel's C0 block is reduced: whole_reduce_max with a 16-lane mask, one repeat per pixel (a repeat
stride of one block, at most 255 repeats per call), value and index side by side. Run with `aclsim run examples/asc/nchw_to_5hd.py`
or standalone; exits 1 if it differs from numpy.
"""

import sys

import numpy as np

try:
    import asc
except ImportError:
    import aclsim.asc as asc

N, C, H, W = 4, 32, 16, 16
C0 = 16
HW = H * W


@asc.jit
def nchw_to_5hd(x: asc.GlobalAddress, z: asc.GlobalAddress, m: asc.GlobalAddress, c: asc.ConstExpr[int],
                hw: asc.ConstExpr[int]):
    image = c * hw
    base = asc.get_block_idx() * image
    x_gm, z_gm, m_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, image)
    z_gm.set_global_buffer(z + base, image)
    m_gm.set_global_buffer(m + asc.get_block_idx() * 2 * image // C0, 2 * image // C0)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    max_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(in_queue, 1, image * asc.half.sizeof())
    pipe.init_buffer(out_queue, 1, image * asc.half.sizeof())
    pipe.init_buffer(max_queue, 1, 2 * image // C0 * asc.half.sizeof())

    x_local = in_queue.alloc_tensor(asc.half)
    asc.data_copy(x_local, x_gm, image)
    in_queue.enque(x_local)

    x_local = in_queue.deque(asc.half)
    z_local = out_queue.alloc_tensor(asc.half)
    m_local = max_queue.alloc_tensor(asc.half)
    params = asc.TransDataTo5HDParams(repeat_times=hw // 16, dst_rep_stride=16, src_rep_stride=1)
    for g in range(c // C0):
        group = g * C0 * hw
        asc.trans_data_to_5hd([z_local[group + 16 * k] for k in range(16)],
                              [x_local[group + hw * k] for k in range(16)], params)
    half = hw // 2  # repeat_times is at most 255: 256 pixels take two calls
    for p in range(0, c // C0 * hw, half):  # per pixel: [max, channel of the max] of its C0 block
        asc.whole_reduce_max(m_local[2 * p:], z_local[p * C0:], C0, half, 1, 1, 1)
    out_queue.enque(z_local)
    max_queue.enque(m_local)
    in_queue.free_tensor(x_local)

    z_local = out_queue.deque(asc.half)
    asc.data_copy(z_gm, z_local, image)
    out_queue.free_tensor(z_local)
    m_local = max_queue.deque(asc.half)
    asc.data_copy(m_gm, m_local, 2 * image // C0)
    max_queue.free_tensor(m_local)


def main() -> int:
    rng = np.random.default_rng(5)
    x = rng.normal(0, 1, (N, C, H, W)).astype(np.float16)
    z = np.zeros_like(x)
    m = np.zeros((N, C // C0, HW, 2), np.float16)
    nchw_to_5hd[N](x, z, m, C, HW)
    expected = x.reshape(N, C // C0, C0, HW).transpose(0, 1, 3, 2)  # N, C1, HW, C0
    index = m[..., 1].view(np.uint16)  # the index is stored in the bits of a half: reinterpret it
    ok = (np.array_equal(z.reshape(expected.shape), expected) and np.array_equal(m[..., 0], expected.max(axis=3))
          and np.array_equal(index, expected.argmax(axis=3)))
    print(f"nchw_to_5hd[{N}]: {N}x{C}x{H}x{W} float16 -> NC1HWC0 and per-pixel channel max: "
          f"{'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

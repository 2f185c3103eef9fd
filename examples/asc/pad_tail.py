"""A tail that is not 32-byte aligned, moved with data_copy_pad.

Each of 8 cores scales 1000 halves (2000 bytes): three full tiles of 256 halves with data_copy,
then a tail of 232 halves = 464 bytes, which is not a multiple of 32. data_copy would round it
down to 448 bytes and drop the last 8 halves (aclsim warns); data_copy_pad moves the exact bytes in
and writes only the real bytes back, so the neighbouring core's data stays intact.
Run with `aclsim run examples/asc/pad_tail.py` or standalone; exits 1 if it differs from numpy.
"""

import sys

import numpy as np

try:
    import asc
except ImportError:
    import aclsim.asc as asc

CORES = 8
BLOCK = 1000
TILE = 256
SCALE = 0.5


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int, tile: asc.ConstExpr[int],
                 scale: float):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(in_queue, 2, tile * asc.half.sizeof())
    pipe.init_buffer(out_queue, 2, tile * asc.half.sizeof())
    full_tiles = block_length // tile
    tail = block_length - full_tiles * tile
    for i in range(full_tiles + (1 if tail else 0)):
        n = tile if i < full_tiles else tail
        x_local = in_queue.alloc_tensor(asc.half)
        if n == tile:
            asc.data_copy(x_local, x_gm[i * tile:], n)
        else:
            asc.data_copy_pad(x_local, x_gm[i * tile:], asc.DataCopyExtParams(1, n * asc.half.sizeof(), 0, 0, 0),
                              asc.DataCopyPadExtParams(asc.half, False, 0, 0, 0))
        in_queue.enque(x_local)

        x_local = in_queue.deque(asc.half)
        z_local = out_queue.alloc_tensor(asc.half)
        asc.muls(z_local, x_local, scale, n)
        out_queue.enque(z_local)
        in_queue.free_tensor(x_local)

        z_local = out_queue.deque(asc.half)
        if n == tile:
            asc.data_copy(z_gm[i * tile:], z_local, n)
        else:
            asc.data_copy_pad(z_gm[i * tile:], z_local, asc.DataCopyExtParams(1, n * asc.half.sizeof(), 0, 0, 0))
        out_queue.free_tensor(z_local)


def main() -> int:
    rng = np.random.default_rng(5)
    x = rng.uniform(-100, 100, CORES * BLOCK).astype(np.float16)
    z = np.zeros_like(x)
    scale_kernel[CORES](x, z, BLOCK, TILE, SCALE)
    expected = x * np.float16(SCALE)
    ok = np.array_equal(z, expected)
    tail = BLOCK % TILE
    print(f"scale_kernel[{CORES}]: {CORES} x {BLOCK} halves, tail of {tail} halves ({tail * 2} bytes) via "
          f"data_copy_pad: {'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""The canonical double-buffered AddCustom kernel (8 cores x 2048 halves, tiles of 128), in pyasc.

The kernel is written exactly as for Huawei's pyasc (tutorial `02_add_framework`): each core takes
its block of GM, streams it through VECIN/VECOUT queues with two buffers each, adds with the
vector unit and copies the result back. Run it with `aclsim run examples/asc/add_custom.py`
(`import asc` is aclsim's) or standalone. Exits 1 if the result differs from numpy.
"""

import sys

import numpy as np

try:
    import asc  # pyasc on an NPU, or aclsim.asc under `aclsim run`
except ImportError:
    import aclsim.asc as asc

USE_CORE_NUM = 8
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def add_custom(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
               tile_length: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    in_queue_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_queue_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_queue_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_queue_x, BUFFER_NUM, tile_length * x.dtype.sizeof())
    pipe.init_buffer(in_queue_y, BUFFER_NUM, tile_length * y.dtype.sizeof())
    pipe.init_buffer(out_queue_z, BUFFER_NUM, tile_length * z.dtype.sizeof())
    for i in range(TILE_NUM * BUFFER_NUM):
        copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length)
        compute(z_gm, in_queue_x, in_queue_y, out_queue_z, tile_length)
        copy_out(i, z_gm, out_queue_z, tile_length)


@asc.jit
def copy_in(i: int, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_queue_x: asc.TQue, in_queue_y: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_queue_x.alloc_tensor(x_gm.dtype)
    y_local = in_queue_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], tile_length)
    in_queue_x.enque(x_local)
    in_queue_y.enque(y_local)


@asc.jit
def compute(z_gm: asc.GlobalTensor, in_queue_x: asc.TQue, in_queue_y: asc.TQue, out_queue_z: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_queue_x.deque(z_gm.dtype)
    y_local = in_queue_y.deque(z_gm.dtype)
    z_local = out_queue_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_queue_z.enque(z_local)
    in_queue_x.free_tensor(x_local)
    in_queue_y.free_tensor(y_local)


@asc.jit
def copy_out(i: int, z_gm: asc.GlobalTensor, out_queue_z: asc.TQue, tile_length: asc.ConstExpr[int]):
    z_local = out_queue_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_queue_z.free_tensor(z_local)


def main() -> int:
    total = USE_CORE_NUM * 2048
    rng = np.random.default_rng(7)
    x = rng.uniform(-10, 10, total).astype(np.float16)
    y = rng.uniform(-10, 10, total).astype(np.float16)
    z = np.zeros_like(x)
    block_length = total // USE_CORE_NUM
    tile_length = block_length // TILE_NUM // BUFFER_NUM
    add_custom[USE_CORE_NUM](x, y, z, block_length, tile_length)
    expected = x + y
    ok = np.array_equal(z, expected)
    print(f"add_custom[{USE_CORE_NUM}]: {total} halves, tile {tile_length}: "
          f"{'matches numpy' if ok else 'MISMATCH'} (z[:4] = {z[:4]})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Pitfall: two AI Cores write the same global memory (multi-core corruption).

Each of 8 cores adds its 2048 halves tile by tile, but the copy-out position forgets to scale the
core index by the tiles per core: core 1's first tile lands on core 0's second one, and so on.
The cores of a launch run in parallel, so which core's data ends up there is undefined, and most of
the output is never written. msSanitizer reports this as a WARNING (multi-core corruption).

    aclsim run --check all examples/pitfalls/multicore_overlap.py          # the overlap, named
    aclsim run --check all examples/pitfalls/multicore_overlap.py --fixed  # each core its own slice
"""

import sys

import numpy as np

try:
    import asc  # pyasc on an NPU, or aclsim.asc under `aclsim run`
except ImportError:
    import aclsim.asc as asc

FIXED = "--fixed" in sys.argv
CORES, BLOCK, TILE = 8, 2048, 256
TILES = BLOCK // TILE


@asc.jit
def add_custom(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    core = asc.get_block_idx()
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + core * BLOCK, BLOCK)
    y_gm.set_global_buffer(y + core * BLOCK, BLOCK)
    z_gm.set_global_buffer(z, CORES * BLOCK)
    pipe = asc.TPipe()
    q_x, q_y = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
    q_z = asc.TQue(asc.TPosition.VECOUT, 1)
    for q in (q_x, q_y, q_z):
        pipe.init_buffer(q, 1, TILE * 2)
    for i in range(TILES):
        x_local, y_local = q_x.alloc_tensor(asc.half), q_y.alloc_tensor(asc.half)
        asc.data_copy(x_local, x_gm[i * TILE :], TILE)
        asc.data_copy(y_local, y_gm[i * TILE :], TILE)
        z_local = q_z.alloc_tensor(asc.half)
        asc.add(z_local, x_local, y_local, TILE)
        q_x.free_tensor(x_local)
        q_y.free_tensor(y_local)
        if FIXED:
            asc.data_copy(z_gm[(core * TILES + i) * TILE :], z_local, TILE)
        else:
            asc.data_copy(z_gm[(core + i) * TILE :], z_local, TILE)  # BUG: core index not scaled by TILES
        q_z.free_tensor(z_local)


rng = np.random.default_rng(0)
x = rng.uniform(-1, 1, CORES * BLOCK).astype(np.float16)
y = rng.uniform(-1, 1, CORES * BLOCK).astype(np.float16)
z = np.zeros_like(x)
add_custom[CORES](x, y, z)
print("results correct:", np.array_equal(z, x + y))

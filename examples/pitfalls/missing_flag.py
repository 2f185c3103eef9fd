"""Pitfall: a vector instruction reads UB before the copy into it is known to be done (pipe race).

A hand-synchronised add (no queues, as in pyasc's first tutorial): MTE2 copies the inputs into UB,
V adds them, MTE3 copies the sum out. The pipes run concurrently on hardware and only
set_flag / wait_flag order them, but the MTE2 -> V pair is missing: the add may read the tile
before its data has landed. aclsim runs every instruction in program order, so the result is
right here; the sanitizer names the race (msSanitizer racecheck: "Potential RAW hazard").

    aclsim run --check all examples/pitfalls/missing_flag.py          # the race, with the missing pair
    aclsim run --check all examples/pitfalls/missing_flag.py --fixed  # set_flag/wait_flag(MTE2_V)
"""

import sys

import numpy as np

try:
    import asc  # pyasc on an NPU, or aclsim.asc under `aclsim run`
except ImportError:
    import aclsim.asc as asc

FIXED = "--fixed" in sys.argv
CORES, BLOCK, TILE = 2, 1024, 256


@asc.jit
def add_manual(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress):
    offset = asc.get_block_idx() * BLOCK
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, BLOCK)
    y_gm.set_global_buffer(y + offset, BLOCK)
    z_gm.set_global_buffer(z + offset, BLOCK)
    tile_bytes = TILE * 4
    x_local = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, TILE)
    y_local = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, tile_bytes, TILE)
    z_local = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2 * tile_bytes, TILE)
    for i in range(BLOCK // TILE):
        asc.data_copy(x_local, x_gm[i * TILE :], TILE)
        asc.data_copy(y_local, y_gm[i * TILE :], TILE)
        if FIXED:
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.add(z_local, x_local, y_local, TILE)  # BUG: nothing makes V wait for MTE2's copies
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[i * TILE :], z_local, TILE)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)  # the next tile's copies wait for this copy-out
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


rng = np.random.default_rng(0)
x = rng.uniform(-1, 1, CORES * BLOCK).astype(np.float32)
y = rng.uniform(-1, 1, CORES * BLOCK).astype(np.float32)
z = np.zeros_like(x)
add_manual[CORES](x, y, z)
print("results correct:", np.array_equal(z, x + y))

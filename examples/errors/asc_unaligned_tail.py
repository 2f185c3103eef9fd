"""An Ascend C kernel whose data_copy length is not a multiple of 32 bytes.

Each of 4 cores copies 100 halves (200 bytes) into the Unified Buffer. The hardware moves only whole
32-byte blocks, so the last 8 bytes are not copied (aclsim warns at the copy), and the vector instruction
that then reads them reads garbage (aclsim stops the core there: local memory is never zeros).
The fix is asc.data_copy_pad (examples/asc/pad_tail.py).

    aclsim run examples/errors/asc_unaligned_tail.py
"""

import numpy as np

try:
    import asc  # pyasc on an NPU; aclsim.asc under `aclsim run`
except ImportError:
    import aclsim.asc as asc


@asc.jit
def scale(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * n, n)
    z_gm.set_global_buffer(z + asc.get_block_idx() * n, n)
    t = asc.LocalTensorAuto(asc.half, 128)
    asc.data_copy(t, x_gm, n)  # BUG: 100 halves = 200 bytes, not a multiple of 32
    asc.muls(t, t, 2.0, n)
    asc.data_copy(z_gm, t, n)


x = np.ones(4 * 100, dtype=np.float16)
z = np.zeros_like(x)
scale[4](x, z, 100)

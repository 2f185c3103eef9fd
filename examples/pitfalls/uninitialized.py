"""Pitfall: an uninitialized read. The H2D copy of the input was forgotten.

Device memory from acl.rt.malloc is not initialised: the kernel squares garbage.

    aclsim run --check all examples/pitfalls/uninitialized.py          # the bug, named
    aclsim run --check all examples/pitfalls/uninitialized.py --fixed  # ERROR SUMMARY: 0 errors
"""

import sys

import acl
import numpy as np

from aclsim import simt

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
FIXED = "--fixed" in sys.argv


@simt.kernel
def square(inp: simt.Ptr[np.float32], out: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if tid < size:
        out[tid] = inp[tid] * inp[tid]


acl.init()
acl.rt.set_device(0)
n = 2048
x = np.linspace(0, 1, n, dtype=np.float32)
dx, _ = acl.rt.malloc(x.nbytes, 0)
dy, _ = acl.rt.malloc(x.nbytes, 0)
if FIXED:
    acl.rt.memcpy(dx, x.nbytes, x.ctypes.data, x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)

square[(n + 255) // 256, 256, 0](dx, dy, n)  # BUG: dx was never written
acl.rt.synchronize_stream(0)
y = np.empty_like(x)
acl.rt.memcpy(y.ctypes.data, y.nbytes, dy, y.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
print("results correct:", np.array_equal(y, x * x))

acl.rt.free(dx)
acl.rt.free(dy)
acl.rt.reset_device(0)
acl.finalize()

"""Pitfall: thread indices past the data (a kernel without `if tid < size`).

1020 elements need 4 blocks of 256 threads; the last 4 threads read and write past the end. They
land in the 32 bytes of padding aclrtMalloc adds, so nothing faults: the bug stays silent until
the sizes change.

    aclsim run --check all examples/pitfalls/thread_index.py          # the bug, named
    aclsim run --check all examples/pitfalls/thread_index.py --fixed  # ERROR SUMMARY: 0 errors
"""

import sys

import acl
import numpy as np

from aclsim import simt

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
FIXED = "--fixed" in sys.argv


@simt.kernel
def square_unguarded(inp: simt.Ptr[np.float32], out: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    out[tid] = inp[tid] * inp[tid]  # BUG: no `if tid < size`


@simt.kernel
def square(inp: simt.Ptr[np.float32], out: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if tid < size:
        out[tid] = inp[tid] * inp[tid]


acl.init()
acl.rt.set_device(0)
n = 1020
x = np.arange(n, dtype=np.float32)
dx, _ = acl.rt.malloc(x.nbytes, 0)
dy, _ = acl.rt.malloc(x.nbytes, 0)
acl.rt.memcpy(dx, x.nbytes, x.ctypes.data, x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)

kernel = square if FIXED else square_unguarded
kernel[(n + 255) // 256, 256, 0](dx, dy, n)
acl.rt.synchronize_stream(0)
y = np.empty_like(x)
acl.rt.memcpy(y.ctypes.data, y.nbytes, dy, y.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
print("results correct:", np.array_equal(y, x * x))

acl.rt.free(dx)
acl.rt.free(dy)
acl.rt.reset_device(0)
acl.finalize()

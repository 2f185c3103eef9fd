"""Pitfall: use after free. The input is freed right after the launch, before the stream ran.

acl.rt.free does not wait for queued work: on hardware the kernel may read memory that was
already handed to someone else.

    aclsim run --check all examples/pitfalls/use_after_free.py          # the bug, named
    aclsim run --check all examples/pitfalls/use_after_free.py --fixed  # ERROR SUMMARY: 0 errors
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
stream, _ = acl.rt.create_stream()
n = 2048
x = np.linspace(0, 1, n, dtype=np.float32)
dx, _ = acl.rt.malloc(x.nbytes, 0)
dy, _ = acl.rt.malloc(x.nbytes, 0)
acl.rt.memcpy(dx, x.nbytes, x.ctypes.data, x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)

square[(n + 255) // 256, 256, stream](dx, dy, n)
if not FIXED:
    acl.rt.free(dx)  # BUG: the queued kernel still reads dx
acl.rt.synchronize_stream(stream)
if FIXED:
    acl.rt.free(dx)
y = np.empty_like(x)
acl.rt.memcpy(y.ctypes.data, y.nbytes, dy, y.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
print("results correct:", np.array_equal(y, x * x))

acl.rt.free(dy)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()

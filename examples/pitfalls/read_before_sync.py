"""Pitfall: reading results before acl.rt.synchronize_stream.

The launch only queues the kernel. The synchronous memcpy right after it does not wait for the
stream, so it copies whatever the output buffer held: stale or garbage data, depending on timing.

    aclsim run --check all examples/pitfalls/read_before_sync.py          # the race, named
    aclsim run --check all examples/pitfalls/read_before_sync.py --fixed  # ERROR SUMMARY: 0 errors
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
n = 4096
x = np.random.default_rng(0).random(n, dtype=np.float32)
dx, _ = acl.rt.malloc(x.nbytes, 0)
dy, _ = acl.rt.malloc(x.nbytes, 0)
acl.rt.memcpy(dx, x.nbytes, x.ctypes.data, x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
acl.rt.memset(dy, x.nbytes, 0, x.nbytes)

square[(n + 255) // 256, 256, stream](dx, dy, n)
if FIXED:
    acl.rt.synchronize_stream(stream)
y = np.empty_like(x)
acl.rt.memcpy(y.ctypes.data, y.nbytes, dy, y.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)  # BUG: the kernel may not have run
acl.rt.synchronize_stream(stream)
print("results correct:", np.array_equal(y, x * x))

acl.rt.free(dx)
acl.rt.free(dy)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()

"""Pitfall: a race between two streams. The input is uploaded on a copy stream and consumed by a
kernel on a compute stream, with no event between them: the kernel may read it half-copied.

    aclsim run --check all examples/pitfalls/cross_stream_race.py          # the race, named
    aclsim run --check all examples/pitfalls/cross_stream_race.py --fixed  # record + wait an event
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
copy_stream, _ = acl.rt.create_stream()
compute_stream, _ = acl.rt.create_stream()
n = 2048
nbytes = n * 4
x = np.linspace(0, 1, n, dtype=np.float32)
host_x, _ = acl.rt.malloc_host(nbytes)
acl.rt.memcpy(host_x, nbytes, x.ctypes.data, nbytes, 0)  # fill the pinned buffer (host to host)
dx, _ = acl.rt.malloc(nbytes, 0)
dy, _ = acl.rt.malloc(nbytes, 0)

acl.rt.memcpy_async(dx, nbytes, host_x, nbytes, ACL_MEMCPY_HOST_TO_DEVICE, copy_stream)
if FIXED:
    uploaded, _ = acl.rt.create_event()
    acl.rt.record_event(uploaded, copy_stream)
    acl.rt.stream_wait_event(compute_stream, uploaded)
square[(n + 255) // 256, 256, compute_stream](dx, dy, n)  # BUG: nothing orders it after the upload
acl.rt.synchronize_stream(compute_stream)
acl.rt.synchronize_stream(copy_stream)
y = np.empty_like(x)
acl.rt.memcpy(y.ctypes.data, nbytes, dy, nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
print("results correct:", np.array_equal(y, x * x))

if FIXED:
    acl.rt.destroy_event(uploaded)
acl.rt.free(dx)
acl.rt.free(dy)
acl.rt.free_host(host_x)
acl.rt.destroy_stream(copy_stream)
acl.rt.destroy_stream(compute_stream)
acl.rt.reset_device(0)
acl.finalize()

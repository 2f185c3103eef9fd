"""Pitfall: reading a pinned host buffer before the copy into it ran.

The pyACL shape of "read before synchronize": results come back with memcpy_async into malloc_host
memory, and the program reads that buffer (acl.util.ptr_to_bytes) before acl.rt.synchronize_stream.
The copy is only queued, so the bytes are stale: zeros here, old results in a loop.

    aclsim run --check all examples/pitfalls/pinned_read_before_sync.py          # the race, named
    aclsim run --check all examples/pitfalls/pinned_read_before_sync.py --fixed  # ERROR SUMMARY: 0 errors
"""

import sys

import acl
import numpy as np

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
FIXED = "--fixed" in sys.argv

acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
x = np.arange(1024, dtype=np.float32)
dev, _ = acl.rt.malloc(x.nbytes, 0)
acl.rt.memcpy(dev, x.nbytes, x.ctypes.data, x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
host, _ = acl.rt.malloc_host(x.nbytes)

acl.rt.memcpy_async(host, x.nbytes, dev, x.nbytes, ACL_MEMCPY_DEVICE_TO_HOST, stream)
if FIXED:
    acl.rt.synchronize_stream(stream)
y = np.frombuffer(acl.util.ptr_to_bytes(host, x.nbytes), np.float32)  # BUG: the copy may not have run
acl.rt.synchronize_stream(stream)
print("results correct:", np.array_equal(y, x))

acl.rt.free_host(host)
acl.rt.free(dev)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()

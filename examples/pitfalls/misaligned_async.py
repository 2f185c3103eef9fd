"""Pitfall: an asynchronous copy from an address that is not 64-byte aligned.

The buffer holds a 16-byte header followed by the payload; the payload is copied out with
memcpy_async from `dev + 16`. aclrtMemcpyAsync requires 64-byte aligned source and destination.

    aclsim run --check all examples/pitfalls/misaligned_async.py          # the bug, named
    aclsim run --check all examples/pitfalls/misaligned_async.py --fixed  # header padded to 64 bytes
"""

import sys

import acl
import numpy as np

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
FIXED = "--fixed" in sys.argv
HEADER = 64 if FIXED else 16  # the fix: give the header a whole 64-byte slot

acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
payload = np.arange(1024, dtype=np.float32)
packet = np.zeros(HEADER + payload.nbytes, np.uint8)
packet[HEADER:] = payload.view(np.uint8)

dev, _ = acl.rt.malloc(packet.nbytes, 0)
acl.rt.memcpy(dev, packet.nbytes, packet.ctypes.data, packet.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
host, _ = acl.rt.malloc_host(payload.nbytes)
acl.rt.memcpy_async(host, payload.nbytes, dev + HEADER, payload.nbytes, ACL_MEMCPY_DEVICE_TO_HOST, stream)  # BUG
acl.rt.synchronize_stream(stream)
got = np.frombuffer(acl.util.ptr_to_bytes(host, payload.nbytes), np.float32)
print("payload equal:", np.array_equal(got, payload))

acl.rt.free_host(host)
acl.rt.free(dev)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()

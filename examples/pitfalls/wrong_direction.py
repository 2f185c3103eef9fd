"""Pitfall: the copy direction is wrong (results copied back with ACL_MEMCPY_HOST_TO_DEVICE).

Today's runtime quietly corrects the kind from the pointers, so the program "works"; older
runtimes rejected the call, and the wrong constant hides a real misunderstanding.

    aclsim run --check all examples/pitfalls/wrong_direction.py          # the bug, named
    aclsim run --check all examples/pitfalls/wrong_direction.py --fixed  # ERROR SUMMARY: 0 errors
"""

import sys

import acl
import numpy as np

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
FIXED = "--fixed" in sys.argv

acl.init()
acl.rt.set_device(0)
n = 256
host = np.arange(n, dtype=np.float32)
dev, _ = acl.rt.malloc(host.nbytes, 0)
acl.rt.memcpy(dev, host.nbytes, host.ctypes.data, host.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)

back = np.zeros(n, np.float32)
kind = ACL_MEMCPY_DEVICE_TO_HOST if FIXED else ACL_MEMCPY_HOST_TO_DEVICE
ret = acl.rt.memcpy(back.ctypes.data, back.nbytes, dev, host.nbytes, kind)  # BUG: this copy is device -> host
print("memcpy returned", ret, "| round trip equal:", np.array_equal(back, host))

acl.rt.free(dev)
acl.rt.reset_device(0)
acl.finalize()

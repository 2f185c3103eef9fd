"""Pitfall: a leak. Each batch mallocs a device buffer that is never freed.

On hardware the device slowly runs out of memory (207001) long after the real mistake.

    aclsim run --check all examples/pitfalls/leak.py          # LEAK SUMMARY: 12288 bytes in 3 allocations
    aclsim run --check all examples/pitfalls/leak.py --fixed  # ERROR SUMMARY: 0 errors
"""

import sys

import acl
import numpy as np

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
FIXED = "--fixed" in sys.argv

acl.init()
acl.rt.set_device(0)
for batch in range(3):
    data = np.full(1024, batch, np.float32)
    dev, _ = acl.rt.malloc(data.nbytes, 0)  # BUG: never freed
    acl.rt.memcpy(dev, data.nbytes, data.ctypes.data, data.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
    out = np.empty_like(data)
    acl.rt.memcpy(out.ctypes.data, out.nbytes, dev, data.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
    print(f"batch {batch}: sum {out.sum():.0f}")
    if FIXED:
        acl.rt.free(dev)
acl.rt.reset_device(0)
acl.finalize()

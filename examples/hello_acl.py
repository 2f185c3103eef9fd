"""A first pyACL program: device memory, copies both ways, and a bad argument's return code and message.

    aclsim run examples/hello_acl.py
"""

import acl  # under `aclsim run`, this is aclsim.acl
import numpy as np

from aclsim.constants import ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE

ret = acl.init()
ret = acl.rt.set_device(0)
context, ret = acl.rt.create_context(0)
data = np.arange(1024, dtype=np.float32)
host = data.tobytes()  # keep the bytes alive while its pointer is in use
dev, ret = acl.rt.malloc(data.nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
ret = acl.rt.memcpy(dev, data.nbytes, acl.util.bytes_to_ptr(host), data.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
out = bytes(data.nbytes)
ret = acl.rt.memcpy(acl.util.bytes_to_ptr(out), data.nbytes, dev, data.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
print("round trip equal:", np.array_equal(np.frombuffer(out, np.float32), data))
print("malloc(0):", acl.rt.malloc(0, ACL_MEM_MALLOC_HUGE_FIRST))  # size 0 is an invalid parameter
print(acl.get_recent_err_msg())  # which argument was wrong and what to do
acl.rt.free(dev)
acl.rt.destroy_context(context)
acl.rt.reset_device(0)
acl.finalize()

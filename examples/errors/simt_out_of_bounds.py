"""A SIMT kernel that reads and writes past its allocation: the launch faults, as on hardware.

The square kernel over 1,000 elements is launched with 1,024 threads and no `if tid < size`. Threads
1000 to 1007 land in the runtime's 32-byte padding (legal bytes: only `--check memcheck` reports them);
thread 1008 is past it, so the launch faults and the next synchronize returns 507015, with the reason
in acl.get_recent_err_msg().

    aclsim run examples/errors/simt_out_of_bounds.py
"""

import acl
import numpy as np

from aclsim import simt
from aclsim.constants import ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_HOST_TO_DEVICE


@simt.kernel
def square(inp: simt.Ptr[np.float32], out: simt.Ptr[np.float32], size: np.uint32):
    tid = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    out[tid] = inp[tid] * inp[tid]  # BUG: no `if tid < size`


acl.init()
acl.rt.set_device(0)
n = 1000
x = np.arange(n, dtype=np.float32)
dx, _ = acl.rt.malloc(x.nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
dy, _ = acl.rt.malloc(x.nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
acl.rt.memcpy(dx, x.nbytes, x.ctypes.data, x.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
square[4, 256, 0](dx, dy, n)  # 1,024 threads for 1,000 elements
print("synchronize ->", acl.rt.synchronize_stream(0))
print(acl.get_recent_err_msg())
acl.rt.free(dx)
acl.rt.free(dy)
acl.rt.reset_device(0)
acl.finalize()

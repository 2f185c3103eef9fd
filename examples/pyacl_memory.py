"""A pyACL program written like the official memory-management samples.

init -> set_device -> create_context -> get_mem_info -> malloc_host / malloc -> memset -> memcpy in every
direction through bytes_to_ptr buffers -> frees -> destroy_context -> reset_device -> finalize.
Runs unmodified on an NPU or under `aclsim run examples/pyacl_memory.py`; exits 1 on any wrong code or byte.
"""

import sys

import acl
import numpy as np

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_HBM_MEM = 1
DEVICE_ID = 0
SIZE = 1 << 20  # 1 MiB

failures = []


def check(ret, what):
    status = "ok" if ret == ACL_SUCCESS else f"FAILED ({ret}: {acl.get_recent_err_msg()})"
    print(f"{what:<48} ret={ret} {status}")
    if ret != ACL_SUCCESS:
        failures.append(what)


check(acl.init(), "acl.init")
check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device(0)")
context, ret = acl.rt.create_context(DEVICE_ID)
check(ret, "acl.rt.create_context(0)")
free_before, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
check(ret, f"acl.rt.get_mem_info: {free_before} free of {total}")

host_ptr, ret = acl.rt.malloc_host(SIZE)
check(ret, "acl.rt.malloc_host")
dev_a, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
check(ret, "acl.rt.malloc (a)")
dev_b, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
check(ret, "acl.rt.malloc (b)")
free_after, _, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
check(ret, f"acl.rt.get_mem_info: {free_before - free_after} bytes now used")

check(acl.rt.memset(dev_a, SIZE, 0x5A, SIZE), "acl.rt.memset(dev_a, 0x5A)")

# Host data -> pinned host buffer (H2H) -> device a (H2D) -> device b (D2D) -> bytes buffer (D2H).
data = np.random.default_rng(0).integers(0, 255, SIZE, dtype=np.uint8)
src = data.tobytes()
check(acl.rt.memcpy(host_ptr, SIZE, acl.util.bytes_to_ptr(src), SIZE, ACL_MEMCPY_HOST_TO_HOST), "memcpy H2H")
check(acl.rt.memcpy(dev_a, SIZE, host_ptr, SIZE, ACL_MEMCPY_HOST_TO_DEVICE), "memcpy H2D")
check(acl.rt.memcpy(dev_b, SIZE, dev_a, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE), "memcpy D2D")
out = bytes(SIZE)
check(acl.rt.memcpy(acl.util.bytes_to_ptr(out), SIZE, dev_b, SIZE, ACL_MEMCPY_DEVICE_TO_HOST), "memcpy D2H")
result = np.frombuffer(out, dtype=np.uint8)
if not np.array_equal(result, data):
    failures.append("bytes after the round trip differ")
print("round trip bytes:", "identical" if np.array_equal(result, data) else "DIFFERENT")

check(acl.rt.free(dev_a), "acl.rt.free (a)")
check(acl.rt.free(dev_b), "acl.rt.free (b)")
check(acl.rt.free_host(host_ptr), "acl.rt.free_host")
free_end, _, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
check(ret, "acl.rt.get_mem_info after free")
if free_end != free_before:
    failures.append(f"free memory {free_end} != {free_before} after release")
check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device(0)")
check(acl.finalize(), "acl.finalize")

print("FAILED: " + "; ".join(failures) if failures else "all return codes 0, every byte right")
sys.exit(1 if failures else 0)

"""Pitfall: a double free. The scratch buffer is the input buffer reused, and cleanup frees both.

    aclsim run --check all examples/pitfalls/double_free.py          # the bug, named
    aclsim run --check all examples/pitfalls/double_free.py --fixed  # ERROR SUMMARY: 0 errors
"""

import sys

import acl

FIXED = "--fixed" in sys.argv

acl.init()
acl.rt.set_device(0)
dev_input, _ = acl.rt.malloc(4096, 0)
dev_output, _ = acl.rt.malloc(4096, 0)
scratch = dev_input  # the input is not needed any more: reuse it as scratch space
acl.rt.memset(scratch, 4096, 0, 4096)

buffers = [dev_input, dev_output] if FIXED else [dev_input, dev_output, scratch]
for ptr in buffers:
    ret = acl.rt.free(ptr)  # BUG: scratch is dev_input, freed a second time
    print(f"acl.rt.free({ptr:#x}) returned {ret}")
acl.rt.reset_device(0)
acl.finalize()

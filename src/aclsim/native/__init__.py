"""The native kernel engine: kernels compiled by g++ (C/C++ SIMT kernels and Ascend C kernels) run on the
emulated device.

A face describes each launch as a `NativeKernel` whose runner executes the compiled code (the C face's
libascendcl holds the execution runtime: fibers, warps, faults, access records); this engine queues it as
device work, runs its blocks, or its AI Cores through the Ascend C engine (`aclsim.asc`: its launch, gang and
instruction table), turns its faults into the stream's 507015 (faults.py) and its checked accesses into the
sanitizer's events (accesses.py). Like every engine it imports the runtime (and that engine) and nothing above.
"""

from .faults import Fault
from .kernel import KINDS, NativeKernel, Runner
from .launch import core_wait, submit

__all__ = ["KINDS", "Fault", "NativeKernel", "Runner", "core_wait", "submit"]

"""A cross-core wait that nothing satisfies: on hardware the launch hangs; aclsim says who never set the flag.

Each block of a mix launch is one AIC and two AIVs. The AIVs wait for flag 3 from their AIC, but the AIC
returns without setting it.

    aclsim run examples/errors/asc_wait_forever.py
"""

import numpy as np

try:
    import asc  # pyasc on an NPU; aclsim.asc under `aclsim run`
    from asc.runtime.config import KernelType
except ImportError:
    import aclsim.asc as asc
    from aclsim.asc.runtime.config import KernelType


@asc.jit(kernel_type=KernelType.MIX_AIC_1_2)
def aic_forgets_to_set(x: asc.GlobalAddress):
    if asc.ascend_is_aic():
        pass  # BUG: should end with asc.cross_core_set_flag(3, 2, asc.PipeID.PIPE_FIX)
    else:
        asc.cross_core_wait_flag(3, 2, asc.PipeID.PIPE_V)  # waits for flag 3 of this block's AIC


aic_forgets_to_set[1](np.zeros(64, dtype=np.float32))

"""Small pieces the Ascend C tests' kernels share."""

from __future__ import annotations

import aclsim.asc as asc


def gm(addr: asc.GlobalAddress) -> asc.GlobalTensor:
    """A GlobalTensor over a kernel's GM address argument."""
    g = asc.GlobalTensor()
    g.set_global_buffer(addr)
    return g

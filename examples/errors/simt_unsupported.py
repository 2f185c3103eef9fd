"""A SIMT kernel using a construct the kernel language does not have: refused before anything runs,
with the construct and its line.

    aclsim run examples/errors/simt_unsupported.py
"""

import numpy as np

import aclsim
from aclsim import simt


@simt.kernel
def fill(out: simt.Ptr[np.float32]):
    with open("log.txt") as f:  # BUG: kernels cannot open files (or use `with` at all)
        out[simt.grid(1)] = len(f.read())


with aclsim.Device(0), aclsim.empty(32) as out:
    fill[1, 32](out)

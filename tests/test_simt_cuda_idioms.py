"""numba.cuda idioms on the cuda face (`from aclsim.simt import cuda`): what numba's own kernel tests and
numba programs write beyond the basics of test_simt_cuda.py."""

from __future__ import annotations

import numpy as np
import pytest

import aclsim
from aclsim.simt import cuda
from aclsim.simt.lang import SimtError


@pytest.fixture(autouse=True)
def device(fresh_runtime):
    with aclsim.Device(0):
        yield


# ------------------------------------------------------------------------------------ refusals
@cuda.jit
def refused(x):
    with open("f"):  # not in the kernel language
        x[0] = 1


def test_a_refused_kernel_is_refused_again_without_compiling_again():
    x = cuda.to_device(np.zeros(4))
    errors = []
    for _ in range(3):
        with pytest.raises(SimtError, match="'with' statement") as e:
            refused[1, 1](x)
        errors.append(e.value)
    assert errors[0] is errors[1] is errors[2]  # the first refusal, kept

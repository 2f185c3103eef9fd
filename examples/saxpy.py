"""SAXPY (y = a*x + y) with a grid-stride loop: a fixed grid covers any n.

Run with `aclsim run examples/saxpy.py [n]`; exits 1 if the result differs from numpy.
"""

import sys

import numpy as np

import aclsim
from aclsim import simt


@simt.kernel
def saxpy(n: np.int32, a: np.float32, x: simt.Ptr[np.float32], y: simt.Ptr[np.float32]):
    i = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    stride = simt.blockDim.x * simt.gridDim.x
    while i < n:
        y[i] = a * x[i] + y[i]
        i += stride


def main(n: int) -> int:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    a = np.float32(2.5)
    with aclsim.Device(0), aclsim.Stream() as stream:
        dx, dy = aclsim.to_device(x), aclsim.to_device(y)
        saxpy[128, 256, stream](n, a, dx, dy)  # 32,768 threads, each striding over the vector
        got = dy.copy_to_host(stream=stream)
        dx.free()
        dy.free()
    ok = np.array_equal(got, a * x + y)
    print(f"saxpy over {n} elements with a grid-stride loop: {'match numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_003))

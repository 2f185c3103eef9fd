"""Sum a vector: each block reduces its slice in shared memory, thread 0 adds it with an atomic.

Run with `aclsim run examples/reduction.py [n]`; exits 1 if the result differs from numpy.
"""

import sys

import numpy as np

import aclsim
from aclsim import simt

THREADS = 256


@simt.kernel
def block_sum(x: simt.Ptr[np.float32], total: simt.Ptr[np.float32], n: np.uint32):
    partial = simt.shared.array(THREADS, np.float32)
    tid = simt.threadIdx.x
    i = simt.blockIdx.x * simt.blockDim.x + tid
    partial[tid] = x[i] if i < n else np.float32(0)
    simt.syncthreads()
    stride = simt.blockDim.x // 2
    while stride > 0:  # tree reduction: halve the active threads each round
        if tid < stride:
            partial[tid] += partial[tid + stride]
        simt.syncthreads()
        stride //= 2
    if tid == 0:
        simt.atomic_add(total, 0, partial[0])


def reference(x: np.ndarray) -> np.float32:
    """The kernel's float32 arithmetic: the same tree per block, block sums added in block order."""
    blocks = (x.size + THREADS - 1) // THREADS
    p = np.zeros(blocks * THREADS, np.float32)
    p[: x.size] = x
    p = p.reshape(blocks, THREADS)
    stride = THREADS // 2
    while stride > 0:
        p[:, :stride] += p[:, stride : 2 * stride]
        stride //= 2
    return np.add.accumulate(np.concatenate(([np.float32(0)], p[:, 0])), dtype=np.float32)[-1]


def main(n: int) -> int:
    x = np.random.default_rng(11).random(n, dtype=np.float32)
    with aclsim.Device(0):
        dx, dtotal = aclsim.to_device(x), aclsim.zeros(1)
        block_sum[(n + THREADS - 1) // THREADS, THREADS](dx, dtotal, n)
        got = dtotal.copy_to_host()[0]
        dx.free()
        dtotal.free()
    ok = got == reference(x) and np.isclose(got, x.sum(dtype=np.float64), rtol=1e-4)
    print(f"sum of {n} floats = {got} (numpy float64: {x.sum(dtype=np.float64):.6f}): {'match' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000))

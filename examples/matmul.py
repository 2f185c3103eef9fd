"""Naive matrix multiply on a 2-D grid: thread (x, y) computes C[row, col] with a loop over k.

Run with `aclsim run examples/matmul.py [n]`; exits 1 if the result differs from numpy.
"""

import sys

import numpy as np

import aclsim
from aclsim import simt

TILE = 16


@simt.kernel
def matmul(a: simt.Ptr[np.float32], b: simt.Ptr[np.float32], c: simt.Ptr[np.float32], n: np.int32):
    row = simt.blockIdx.y * simt.blockDim.y + simt.threadIdx.y
    col = simt.blockIdx.x * simt.blockDim.x + simt.threadIdx.x
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row * n + k] * b[k * n + col]
        c[row * n + col] = acc


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The same float32 sums in the same order as the kernel (k = 0, 1, ...)."""
    out = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        out += a[:, k : k + 1] * b[k : k + 1, :]
    return out


def main(n: int) -> int:
    rng = np.random.default_rng(3)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    with aclsim.Device(0):
        da, db, dc = aclsim.to_device(a), aclsim.to_device(b), aclsim.empty((n, n))
        blocks = (n + TILE - 1) // TILE
        matmul[(blocks, blocks), (TILE, TILE)](da, db, dc, n)
        got = dc.copy_to_host()
        for d in (da, db, dc):
            d.free()
    ok = np.array_equal(got, reference(a, b)) and np.allclose(got, a @ b, rtol=1e-5)
    print(f"{n}x{n} matmul on a {blocks}x{blocks} grid of {TILE}x{TILE} blocks: {'match numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100))

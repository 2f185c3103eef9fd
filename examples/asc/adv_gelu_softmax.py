"""softmax(gelu(x)) per row with the high-level APIs: `asc.adv.erf` and `asc.adv.softmax`.

Each core takes a band of rows of a float16 matrix: copy in -> gelu(x) = x/2 * (1 + erf(x/sqrt(2))) with
asc.adv.erf between vector instructions -> asc.adv.softmax over the rows (shape from the tensor's
ShapeInfo, row sums and maxima in float32) -> copy out. Run with
`aclsim run examples/asc/adv_gelu_softmax.py` or standalone; exits 1 if it differs from numpy.
"""

import math
import sys

import numpy as np

try:
    import asc
except ImportError:
    import aclsim.asc as asc

CORES = 8
ROWS = 64
COLS = 512


@asc.jit
def gelu_softmax(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, cols: asc.ConstExpr[int]):
    base = asc.get_block_idx() * rows * cols
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, rows * cols)
    z_gm.set_global_buffer(z + base, rows * cols)
    n = rows * cols
    pipe = asc.TPipe()
    in_queue, out_queue = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    work_buf, stats_buf = asc.TBuf(asc.TPosition.VECCALC), asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_queue, 1, n * asc.half.sizeof())
    pipe.init_buffer(out_queue, 1, n * asc.half.sizeof())
    pipe.init_buffer(work_buf, 2 * n * asc.half.sizeof())
    pipe.init_buffer(stats_buf, 2 * rows * 32)  # one 32-byte block per row for the sums, one for the maxima

    x_local = in_queue.alloc_tensor(asc.half)
    asc.data_copy(x_local, x_gm, n)
    in_queue.enque(x_local)
    x_local = in_queue.deque(asc.half)

    work = work_buf.get(asc.half)
    scaled, gelu = work, work[n:]
    asc.muls(scaled, x_local, 1 / math.sqrt(2), n)
    asc.adv.erf(gelu, scaled, n)              # erf(x / sqrt(2)), computed in float32 as on the device
    asc.adds(gelu, gelu, 1.0, n)
    asc.mul(gelu, gelu, x_local, n)
    asc.muls(gelu, gelu, 0.5, n)
    in_queue.free_tensor(x_local)

    stats = stats_buf.get(asc.float32)
    y_local = out_queue.alloc_tensor(asc.half)
    gelu.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, cols))))
    asc.adv.softmax(y_local, stats, stats[rows * 8:], gelu, asc.adv.SoftmaxTiling())
    out_queue.enque(y_local)

    y_local = out_queue.deque(asc.half)
    asc.data_copy(z_gm, y_local, n)
    out_queue.free_tensor(y_local)


def main() -> int:
    rng = np.random.default_rng(5)
    x = rng.normal(0, 2, (ROWS, COLS)).astype(np.float16)
    z = np.zeros_like(x)
    gelu_softmax[CORES](x, z, ROWS // CORES, COLS)
    xs = x.astype(np.float64)
    erf = np.vectorize(math.erf)(xs / math.sqrt(2))
    g = 0.5 * xs * (1 + erf)
    e = np.exp(g - g.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    err = float(np.max(np.abs(z - expected)) / np.max(expected))
    ok = err < 1e-2  # float16 storage between the steps
    print(f"gelu_softmax[{CORES}]: {ROWS} x {COLS} float16, max error {err:.1e} of the largest value: "
          f"{'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

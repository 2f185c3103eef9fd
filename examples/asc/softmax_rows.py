"""Row-wise softmax: each core takes a band of rows, double-buffered through queues, with reductions.

Per row: copy in -> reduce_max (work area from a TBuf) -> subtract the max -> exp -> reduce_sum ->
multiply by 1/sum -> copy out. The reductions leave their result in UB; the scalar unit reads it
with get_value after a V_S flag, as Ascend C code does. Run with
`aclsim run examples/asc/softmax_rows.py` or standalone; exits 1 if it differs from numpy.
"""

import sys

import numpy as np

try:
    import asc
except ImportError:
    import aclsim.asc as asc

CORES = 8
ROWS = 64
COLS = 1024
BUFFER_NUM = 2


@asc.jit
def softmax_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows_per_core: int, cols: asc.ConstExpr[int]):
    base = asc.get_block_idx() * rows_per_core * cols
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + base, rows_per_core * cols)
    z_gm.set_global_buffer(z + base, rows_per_core * cols)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    work_buf = asc.TBuf(asc.TPosition.VECCALC)
    result_buf = asc.TBuf(asc.TPosition.VECCALC)
    row_bytes = cols * asc.float32.sizeof()
    pipe.init_buffer(in_queue, BUFFER_NUM, row_bytes)
    pipe.init_buffer(out_queue, BUFFER_NUM, row_bytes)
    pipe.init_buffer(work_buf, row_bytes)
    pipe.init_buffer(result_buf, 32)
    work = work_buf.get(asc.float32)
    result = result_buf.get(asc.float32)
    for r in range(rows_per_core):
        x_local = in_queue.alloc_tensor(asc.float32)
        asc.data_copy(x_local, x_gm[r * cols:], cols)
        in_queue.enque(x_local)

        x_local = in_queue.deque(asc.float32)
        y_local = out_queue.alloc_tensor(asc.float32)
        asc.reduce_max(result, x_local, work, cols)
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
        row_max = result.get_value(0)
        asc.adds(y_local, x_local, -row_max, cols)
        asc.exp(y_local, y_local, cols)
        asc.reduce_sum(result, y_local, work, cols)
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
        asc.muls(y_local, y_local, 1.0 / result.get_value(0), cols)
        out_queue.enque(y_local)
        in_queue.free_tensor(x_local)

        y_local = out_queue.deque(asc.float32)
        asc.data_copy(z_gm[r * cols:], y_local, cols)
        out_queue.free_tensor(y_local)


def main() -> int:
    rng = np.random.default_rng(3)
    x = rng.normal(0, 3, (ROWS, COLS)).astype(np.float32)
    z = np.zeros_like(x)
    softmax_rows[CORES](x, z, ROWS // CORES, COLS)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    err = float(np.max(np.abs(z - expected) / expected))
    ok = err < 1e-5
    print(f"softmax_rows[{CORES}]: {ROWS} x {COLS} float32, max relative error {err:.1e}: "
          f"{'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Top-k of each row with the sorting instructions: each core takes a band of rows of scores.

Per row: copy the scores and their column indices in -> `sort` everything, largest first, into
(score, index) records -> `asc.adv.extract` the values and the indices -> copy the first K of each
out. Equal scores keep their column order, as the hardware's sort does. Run with
`aclsim run examples/asc/topk_rows.py` or standalone; exits 1 if it differs from numpy.
"""

import sys

import numpy as np

try:
    import asc
except ImportError:
    import aclsim.asc as asc

CORES = 4
ROWS = 32
COLS = 1024
K = 64


@asc.jit
def topk_rows(x: asc.GlobalAddress, cols_idx: asc.GlobalAddress, values: asc.GlobalAddress,
              indices: asc.GlobalAddress, rows_per_core: int, cols: asc.ConstExpr[int], k: asc.ConstExpr[int]):
    row0 = asc.get_block_idx() * rows_per_core
    x_gm, i_gm = asc.GlobalTensor(), asc.GlobalTensor()
    v_gm, o_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + row0 * cols, rows_per_core * cols)
    i_gm.set_global_buffer(cols_idx, cols)
    v_gm.set_global_buffer(values + row0 * k, rows_per_core * k)
    o_gm.set_global_buffer(indices + row0 * k, rows_per_core * k)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    out_values = asc.TQue(asc.TPosition.VECOUT, 1)
    out_indices = asc.TQue(asc.TPosition.VECOUT, 1)
    index_buf, sorted_buf, tmp_buf = (asc.TBuf(asc.TPosition.VECCALC) for _ in range(3))
    pipe.init_buffer(in_queue, 1, cols * 4)
    pipe.init_buffer(out_values, 1, cols * 4)
    pipe.init_buffer(out_indices, 1, cols * 4)
    pipe.init_buffer(index_buf, cols * 4)
    pipe.init_buffer(sorted_buf, asc.get_sort_len(cols) * 4)  # one 8-byte record per score
    pipe.init_buffer(tmp_buf, asc.get_sort_len(cols) * 4)
    index = index_buf.get(asc.uint32)
    records = sorted_buf.get(asc.float32)
    tmp = tmp_buf.get(asc.float32)
    asc.data_copy(index, i_gm, cols)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)  # a TBuf has no queue: the vector unit waits for the copy by hand
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    for r in range(rows_per_core):
        scores = in_queue.alloc_tensor(asc.float32)
        asc.data_copy(scores, x_gm[r * cols:], cols)
        in_queue.enque(scores)

        scores = in_queue.deque(asc.float32)
        asc.sort(records, scores, index, tmp, cols // 32, is_full_sort=True)
        v, o = out_values.alloc_tensor(asc.float32), out_indices.alloc_tensor(asc.uint32)
        asc.adv.extract(v, o, records, cols // 32)
        out_values.enque(v)
        out_indices.enque(o)
        in_queue.free_tensor(scores)

        v, o = out_values.deque(asc.float32), out_indices.deque(asc.uint32)
        asc.data_copy(v_gm[r * k:], v, k)
        asc.data_copy(o_gm[r * k:], o, k)
        out_values.free_tensor(v)
        out_indices.free_tensor(o)


def main() -> int:
    rng = np.random.default_rng(5)
    x = rng.integers(-500, 500, (ROWS, COLS)).astype(np.float32)  # many ties
    values = np.zeros((ROWS, K), np.float32)
    indices = np.zeros((ROWS, K), np.uint32)
    topk_rows[CORES](x, np.arange(COLS, dtype=np.uint32), values, indices, ROWS // CORES, COLS, K)
    order = np.argsort(-x, axis=1, kind="stable")[:, :K]
    ok = np.array_equal(indices, order) and np.array_equal(values, np.take_along_axis(x, order, 1))
    print(f"topk_rows[{CORES}]: top {K} of {ROWS} rows x {COLS} float32 with sort + extract: "
          f"{'matches numpy' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""The Cube: `mmad` (L0A x L0B -> L0C) and the fractal layouts of the Cube data path
(GM -> L1: move/nd2nz.py, L1 -> L0: load.py and img2col.py, L0C -> GM: fixpipe.py).

Layouts (Ascend C "数据格式" pages, and the low-level matmul samples that pyasc's `mm.py`
mirrors): a fractal is 16 rows x C0 elements, C0 = 32 bytes / sizeof(T) (16 halves, 32 int8, 8
floats), 512 bytes. L1 holds a matrix in NZ: C0-wide column blocks, one after another, rows of 32
bytes inside. L0A holds A (m x k) in zZ: fractals row-major, row-major inside. L0B holds B (k x n)
in nZ: fractals row-major (k blocks outer), each stored as its transpose (n rows of C0 k-values).
L0C holds C (m x n, float32/int32) in NZ: 16-column blocks of m rounded up to 16 rows.

The Cube reads whole fractals: K is processed in C0 steps, so when k is not a multiple of C0 the
padding columns of A and rows of B take part in the sum and must hold data (zeros), not garbage.
Every local read is checked against the written-since-alloc flags, so a wrong layout (a fractal
load_data never filled), an unpadded K or an L0C that no mmad wrote is an error naming the API,
the sizes and the kernel line rather than a wrong number.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..memory.local import LocalTensor, pool_of, room
from ..table import instruction
from ..types.cube_params import MmadParams, c0, up
from ..types.dtypes import DataType, bfloat16, int8

# mmad input type -> accumulator type on the 910B cube (float32 inputs run in the cube's fp32 mode)
ACCUMULATOR = {"float16": "float32", "bfloat16": "float32", "float32": "float32", "int8": "int32"}


def as_float(a: np.ndarray, dt: DataType) -> np.ndarray:
    """Cube operand values for numpy: bfloat16 bit patterns decoded, int8 widened, halves to float32."""
    if dt is bfloat16:
        return (np.ascontiguousarray(a, dtype=np.uint32) << 16).view(np.float32)
    # C order: np.matmul uses BLAS only on contiguous operands (L0 views are fractal-strided)
    return np.ascontiguousarray(a, dtype=np.int32 if dt is int8 else np.float32)


def _fractals(t: LocalTensor, nbytes: int, dt: DataType) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, per-element written flags) of the first `nbytes` of a local tensor; flags None when
    every byte is written (the common case, found without numpy)."""
    pool = t.buf.pool
    vals = pool.bytes[t.lo : t.lo + nbytes].view(dt.np)
    if pool.unwritten(t.lo, t.lo + nbytes) < 0:
        return vals, None
    return vals, pool.flags(t.lo, (nbytes // dt.itemsize, dt.itemsize)).min(axis=1)


def _first_hole(flags: np.ndarray) -> tuple[int, int]:
    r, c = np.argwhere(flags == 0)[0]
    return int(r), int(c)


def _hole(api: str, role: str, mem: str, r: int, c: int, frac: tuple[int, int], layout: str) -> None:
    """Fault for an unwritten operand element at (r, c)."""
    where = f"{role}[{r}][{c}] (fractal {frac}) in {mem}"
    fail(api, f"reads {where}, which was never written since the buffer was allocated: {mem} does not hold the "
              f"{layout} layout mmad expects (a fractal that load_data did not fill: check start_index, "
              "repeat_times and src_stride)")


@instruction("Mmad", "mmad", "cube", "M", tuple(ACCUMULATOR), cost="cube")
def mmad(core: Any, dst: LocalTensor, fm: LocalTensor, filter: LocalTensor, bias: LocalTensor | None,
         p: MmadParams) -> None:
    """C (+)= A @ B (+ bias): dst in L0C, fm (A) in L0A, filter (B) in L0B, bias (or None) in the BiasTable."""
    api = "mmad"
    pool_of(fm, api, "fm (A)", ("L0A",))
    pool_of(filter, api, "filter (B)", ("L0B",))
    pool_of(dst, api, "dst (C)", ("L0C",))
    at, bt, ct = fm.dtype, filter.dtype, dst.dtype
    if at is not bt or at.name not in ACCUMULATOR or ACCUMULATOR[at.name] != ct.name:
        pairs = ", ".join(f"{a} x {a} -> {c}" for a, c in ACCUMULATOR.items())
        fail(api, f"{at.name} x {bt.name} -> {ct.name} is not a Cube type combination (supported: {pairs})")
    m, n, k = int(p.m), int(p.n), int(p.k)
    if not (0 <= m <= 4095 and 0 <= n <= 4095 and 0 <= k <= 4095):
        fail(api, f"MmadParams(m={m}, n={n}, k={k}) is out of range 0..4095")
    if m == 0 or n == 0 or k == 0:
        return
    k0 = c0(at)
    mp, np_, kp = up(m, 16), up(n, 16), up(k, k0)
    mb, nb, kb = mp // 16, np_ // 16, kp // k0
    isz = at.itemsize
    room(fm, mp * kp * isz, api, "fm (A)", f"m={m} x k={k} (fractals {mp} x {kp} {at.name})")
    room(filter, kp * np_ * isz, api, "filter (B)", f"k={k} x n={n} (fractals {kp} x {np_} {bt.name})")
    room(dst, mp * np_ * 4, api, "dst (C)", f"m={m} x n={n} (fractals {mp} x {np_} {ct.name})")
    pool = dst.buf.pool
    c3 = pool.bytes[dst.lo : dst.lo + mp * np_ * 4].view(ct.np).reshape(nb, mp, 16)
    w3 = pool.marks(dst.lo, (nb, mp, 64))
    # CANN's Mmad page (MmadParams): cmatrixInitVal=false starts C from L0C, or from the BiasTable when
    # cmatrixSource=true; the Mmad with a bias operand ignores cmatrixSource and starts C from that bias.
    from_bt = bias is None and not p.is_bias and not p.cmatrix_init_val and p.cmatrix_source
    accumulate = bias is None and not from_bt and (p.is_bias or not p.cmatrix_init_val)
    if accumulate and pool.unwritten(dst.lo, dst.lo + mp * np_ * 4) >= 0 and \
            not _nz_get(w3.reshape(nb, mp, 16, 4).min(axis=3), m, n).all():
        fail(api, f"accumulates (cmatrix_init_val=False) into L0C, but C[{m} x {n}] was not all written by an "
                  "earlier mmad: the first mmad of a K loop must set cmatrix_init_val=True")
    # The Cube takes the first k elements along K: the K padding of the last fractal is not used, whatever it
    # holds. (Inferred from CANN's own mmad examples, asc-devkit examples/.../03_matrix_compute: k=70 float
    # operands whose K padding nothing writes verify against numpy on the NPU.)
    av, af = _fractals(fm, mp * kp * isz, at)
    a = av.reshape(mb, kb, 16, k0).transpose(0, 2, 1, 3).reshape(mp, kp)[:m, :k]
    fa = None if af is None else af.reshape(mb, kb, 16, k0).transpose(0, 2, 1, 3).reshape(mp, kp)[:m, :k]
    if fa is not None and not fa.all():
        r, c = _first_hole(fa)
        _hole(api, "A", "L0A", r, c, (r // 16, c // k0), "zZ")
    bv, bf = _fractals(filter, kp * np_ * isz, bt)
    b = bv.reshape(kb, nb, 16, k0).transpose(0, 3, 1, 2).reshape(kp, np_)[:k, :n]
    fb = None if bf is None else bf.reshape(kb, nb, 16, k0).transpose(0, 3, 1, 2).reshape(kp, np_)[:k, :n]
    if fb is not None and not fb.all():
        r, c = _first_hole(fb)
        _hole(api, "B", "L0B", r, c, (r // k0, c // 16), "nZ (each fractal transposed)")
    acc = np.matmul(as_float(a, at), as_float(b, bt))
    if accumulate:
        acc += _nz_get(c3, m, n)
    if bias is not None:
        acc += _bias(bias, n, ct, api)
    elif from_bt:  # which bytes of the BiasTable the page does not say: its start (where C2 tensors begin)
        acc += _bias(LocalTensor.at(core, "BT", 0, ct, n), n, ct, api)
    _nz_put(c3, acc.astype(ct.np, copy=False), m, n)
    if m == mp and n == np_:
        w3[...] = 1
    else:
        _nz_put(w3.reshape(nb, mp, 16, 4), np.ones((m, n, 4), np.uint8), m, n)
    core.launch.cube_flops += 2 * mp * np_ * kp  # whole fractals: what the Cube spends time on


def _bias(bias: LocalTensor, n: int, ct: DataType, api: str) -> np.ndarray:
    pool_of(bias, api, "bias", ("BT",))
    if bias.dtype is not ct:
        fail(api, f"bias is {bias.dtype.name} but C is {ct.name}: the BiasTable holds the accumulator type")
    hi = bias.bounds(n, api)
    pool = bias.buf.pool
    bad = pool.unwritten(bias.lo, hi)
    if bad >= 0:
        bias.uninit(api, bad, n)
    return bias.arr[:n]


def _nz_get(c3: np.ndarray, m: int, n: int) -> np.ndarray:
    """Rows < m, columns < n of an NZ array viewed as (column blocks, rows, 16[, ...])."""
    nb, mp = c3.shape[:2]
    return np.moveaxis(c3, 0, 1).reshape(mp, nb * 16, *c3.shape[3:])[:m, :n]


def _nz_put(c3: np.ndarray, vals: np.ndarray, m: int, n: int) -> None:
    full = n // 16
    if full:
        c3[:full, :m] = np.moveaxis(vals[:, : full * 16].reshape(m, full, 16, *vals.shape[2:]), 1, 0)
    if n % 16:
        c3[full, :m, : n % 16] = vals[:, full * 16 :]


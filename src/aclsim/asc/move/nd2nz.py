"""GM -> L1 in fractal NZ: `data_copy(dst_l1, src_gm, Nd2NzParams(...))` (layouts: cube/mmad.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..faults import fail
from ..memory.gm import GlobalTensor
from ..memory.local import LocalTensor, pool_of
from ..table import instruction
from ..types.cube_params import Nd2NzParams, c0, up
from .data_copy import gm_rows

_strided = np.lib.stride_tricks.as_strided


@instruction("DataCopy(Nd2NzParams)", "data_copy", "move", "MTE2", cost="gm")
def nd2nz(core: Any, dst: LocalTensor, src: Any, p: Nd2NzParams) -> None:
    """`data_copy(dst_l1, src_gm, Nd2NzParams(...))`: each row's C0-wide pieces land in their column
    block; the last piece of a row whose d_value is not a multiple of C0 is zero-padded (the DMA
    writes whole 32-byte blocks). Rows past n_value in a fractal are not written."""
    api = "data_copy"
    if not isinstance(src, GlobalTensor):
        raise TypeError("asc.data_copy with Nd2NzParams: only GM -> L1 (GlobalTensor source) is emulated")
    pool_of(dst, api, "dst", ("L1",))
    if dst.dtype is not src.dtype:
        fail(api, f"dst is {dst.dtype.name} but src is {src.dtype.name}: Nd2Nz moves one element type")
    dt = dst.dtype
    isz, k0 = dt.itemsize, c0(dt)
    nd, n, d = int(p.nd_num), int(p.n_value), int(p.d_value)
    sd, c0s, ns = int(p.src_d_value), int(p.dst_nz_c0_stride), int(p.dst_nz_n_stride)
    text = (f"Nd2NzParams(nd_num={nd}, n_value={n}, d_value={d}, src_d_value={sd}, dst_nz_c0_stride={c0s}, "
            f"dst_nz_n_stride={ns})")
    if not (0 <= nd <= 4095 and 0 <= n <= 16384 and 0 <= d <= 65535 and 1 <= sd <= 65535
            and 1 <= c0s <= 16384 and 1 <= ns <= 16384):
        fail(api, f"{text} is out of range: nd_num 0..4095, n_value 0..16384, d_value 0..65535, src_d_value, "
                  "dst_nz_c0_stride and dst_nz_n_stride >= 1")
    if sd < d:
        fail(api, f"{text}: a source row is src_d_value={sd} elements but d_value={d} are copied from it")
    blocks = -(-d // k0)
    if blocks > 1 and c0s < (n - 1) * ns + 1:
        fail(api, f"{text}: wrong fractal layout: each {k0}-column block of {dt.name} spans {(n - 1) * ns + 1} "
                  f"rows of 32 bytes in L1, but blocks start only dst_nz_c0_stride={c0s} rows apart, so they "
                  f"overlap; use dst_nz_c0_stride >= n_value rounded up to 16 ({up(n, 16)})")
    if nd == 0 or n == 0 or d == 0:
        return
    span = ((blocks - 1) * c0s + (n - 1) * ns + 1) * 32
    pool = dst.buf.pool
    for t in range(nd):
        lo = dst.lo + t * int(p.dst_nz_matrix_stride) * isz
        if lo + span > dst.end:
            fail(api, f"{text}: matrix {t} needs L1 bytes {lo}..{lo + span} but dst ends at byte {dst.end} "
                      f"(L1 tensor overflow)")
        rows = gm_rows(core, src[t * int(p.src_nd_matrix_stride)], n, d * isz, sd * isz, api, False)
        data = np.zeros((n, blocks * 32), np.uint8)
        data[:, : d * isz] = rows
        out = _strided(pool.bytes[lo:], shape=(blocks, n, 32), strides=(c0s * 32, ns * 32, 1), writeable=True)
        out[...] = data.reshape(n, blocks, 32).transpose(1, 0, 2)
        pool.marks(lo, (blocks, n, 32), (c0s * 32, ns * 32, 1))[...] = 1


# -- L1 -> L0A / L0B -------------------------------------------------------------------------------

"""The Cube data path: ND -> NZ into L1, `load_data` into L0A/L0B, `mmad` into L0C (out: fixpipe.py).

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

from . import context as ctx
from .context import fail
from .cube_types import (
    LoadData2DParams,
    LoadData2DParamsV2,
    LoadData2dTransposeParams,
    LoadData2dTransposeParamsV2,
    LoadData3DParamsV1,
    LoadData3DParamsV2,
    LoadData3DParamsV2Pro,
    MmadParams,
    Nd2NzParams,
)
from .data_copy import gm_rows
from .dtypes import DataType, bfloat16, int8
from .enums import TPosition
from .tensors import GlobalTensor, LocalTensor

_strided = np.lib.stride_tricks.as_strided
FRACTAL = 512  # bytes of one 16 x C0 fractal
L0_ALIGN = {"L0A": 512, "L0B": 512, "L0C": 64, "L1": 32, "BT": 64}  # operand start alignment (reference §1.3)
# mmad input type -> accumulator type on the 910B cube (float32 inputs run in the cube's fp32 mode)
ACCUMULATOR = {"float16": "float32", "bfloat16": "float32", "float32": "float32", "int8": "int32"}


def c0(dt: DataType) -> int:
    """Elements per 32-byte fractal row."""
    return 32 // dt.itemsize


def up(x: int, k: int) -> int:
    return -(-x // k) * k


def as_float(a: np.ndarray, dt: DataType) -> np.ndarray:
    """Cube operand values for numpy: bfloat16 bit patterns decoded, int8 widened, halves to float32."""
    if dt is bfloat16:
        return (np.ascontiguousarray(a, dtype=np.uint32) << 16).view(np.float32)
    # C order: np.matmul uses BLAS only on contiguous operands (L0 views are fractal-strided)
    return np.ascontiguousarray(a, dtype=np.int32 if dt is int8 else np.float32)


def _pool_of(t: Any, api: str, role: str, pools: tuple[str, ...]) -> None:
    """`t` must be a live LocalTensor in one of `pools`, aligned as that memory requires."""
    if not isinstance(t, LocalTensor):
        raise TypeError(f"asc.{api}: {role} must be a LocalTensor, got {type(t).__name__}")
    if t.gen != t.buf.gen:
        t.dead(api)
    name = t.buf.pool.name
    if name not in pools:
        where = " or ".join(pools)
        fail(api, f"{role} is in {name} (TPosition.{TPosition(t.buf.position).name}) but must be in {where}")
    align = L0_ALIGN[name]
    if t.lo % align:
        fail(api, f"{role} starts at {name} byte {t.lo}, not {align}-byte aligned ({name} operands must start on "
                  f"{align} bytes)")


def _room(t: LocalTensor, nbytes: int, api: str, role: str, what: str) -> None:
    if t.lo + nbytes > t.end:
        fail(api, f"{role} {what} needs {nbytes} bytes of {t.buf.pool.name} but the tensor holds only "
                  f"{t.end - t.lo} bytes ({t.buf.pool.name} overflow)")


# -- GM -> L1: ND to fractal NZ --------------------------------------------------------------------

def nd2nz(dst: LocalTensor, src: Any, p: Nd2NzParams) -> None:
    """`data_copy(dst_l1, src_gm, Nd2NzParams(...))`: each row's C0-wide pieces land in their column
    block; the last piece of a row whose d_value is not a multiple of C0 is zero-padded (the DMA
    writes whole 32-byte blocks). Rows past n_value in a fractal are not written."""
    api = "data_copy"
    if not isinstance(src, GlobalTensor):
        raise TypeError("asc.data_copy with Nd2NzParams: only GM -> L1 (GlobalTensor source) is emulated")
    _pool_of(dst, api, "dst", ("L1",))
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
        rows = gm_rows(src[t * int(p.src_nd_matrix_stride)], n, d * isz, sd * isz, api, False)
        data = np.zeros((n, blocks * 32), np.uint8)
        data[:, : d * isz] = rows
        out = _strided(pool.bytes[lo:], shape=(blocks, n, 32), strides=(c0s * 32, ns * 32, 1), writeable=True)
        out[...] = data.reshape(n, blocks, 32).transpose(1, 0, 2)
        _strided(pool.wview[lo:], shape=(blocks, n, 32), strides=(c0s * 32, ns * 32, 1), writeable=True)[...] = 1


# -- L1 -> L0A / L0B -------------------------------------------------------------------------------

def load_data(dst: LocalTensor, src: Any, params: Any) -> None:
    """`load_data(dst_l0, src_l1, LoadData2DParams(...))`: copy 512-byte fractals into L0A/L0B (the 3D
    img2col forms: img2col.py)."""
    api = "load_data"
    if isinstance(params, LoadData3DParamsV1 | LoadData3DParamsV2 | LoadData3DParamsV2Pro):
        from .img2col import load_data_3d  # late: img2col builds on this module's helpers

        return load_data_3d(dst, src, params)
    if isinstance(params, LoadData2DParamsV2):
        fail(api, f"LoadData2DParamsV2 (Load2Dv2) exists only on Ascend 950PR/950DT (CANN Load2D page); "
                  f"{ctx.current(api).chip.name} loads with LoadData2DParams")
    if not isinstance(params, LoadData2DParams):
        raise TypeError(f"asc.{api}: {type(params).__name__} is not a load_data parameter struct (LoadData2DParams, "
                        "LoadData3DParamsV2, LoadData3DParamsV2Pro)")
    _pool_of(dst, api, "dst", ("L0A", "L0B"))
    _pool_of(src, api, "src", ("L1",))
    if dst.dtype is not src.dtype:
        fail(api, f"dst is {dst.dtype.name} but src is {src.dtype.name}: load_data moves one element type")
    rep, start = int(params.repeat_times), int(params.start_index)
    sstride, gap = int(params.src_stride), int(params.dst_gap)
    if not (0 <= rep <= 255 and 0 <= start <= 65535 and 0 <= sstride <= 65535 and 0 <= gap <= 65535):
        fail(api, f"LoadData2DParams(start_index={start}, repeat_times={rep}, src_stride={sstride}, dst_gap={gap}) "
                  "is out of range: repeat_times 0..255, the others 0..65535")
    if rep == 0:
        return
    if params.if_transpose and dst.dtype.itemsize != 2:
        fail(api, f"if_transpose transposes 16 x 16 fractals of 2-byte types; {dst.dtype.name} needs "
                  "load_data_with_transpose")
    s_lo = src.lo + start * FRACTAL
    s_hi = s_lo + ((rep - 1) * sstride + 1) * FRACTAL
    if s_hi > src.end:
        fail(api, f"reads fractals {start}..{start + (rep - 1) * sstride} ({rep} x 512 bytes, src_stride {sstride}) "
                  f"up to L1 byte {s_hi}, past the end of src at byte {src.end}")
    d_hi = dst.lo + ((rep - 1) * (1 + gap) + 1) * FRACTAL
    _room(dst, d_hi - dst.lo, api, "dst", f"for {rep} fractals (dst_gap {gap})")
    sp, dp = src.buf.pool, dst.buf.pool
    for arr_s, arr_d in ((sp.bytes, dp.bytes), (sp.wview, dp.wview)):
        s = _strided(arr_s[s_lo:], shape=(rep, FRACTAL), strides=(sstride * FRACTAL, 1))
        d = _strided(arr_d[dst.lo:], shape=(rep, FRACTAL), strides=((1 + gap) * FRACTAL, 1), writeable=True)
        if params.if_transpose:
            s = s.reshape(rep, 16, 16, 2).transpose(0, 2, 1, 3).reshape(rep, FRACTAL)
        d[...] = s


def load_data_with_transpose(dst: LocalTensor, src: LocalTensor, params: Any) -> None:
    """`load_data_with_transpose(dst_l0, src_l1, LoadData2dTransposeParams(...))`: per repeat one square
    block of L1 transposed into L0A/L0B (CANN LoadDataWithTranspose page). 2-byte types: one 16 x 16
    fractal. 1-byte types: two 16 x 32 fractals stacked into a 32 x 32 square, transposed, split
    into its top and bottom 16 rows. 4-byte types: two 16 x 8 fractals side by side make a 16 x 16
    square, transposed, split into its left and right 8 columns (the page's figure is not in its
    text: the split mirrors the merge, first fractal = left half). The second destination fractal
    lies `dst_frac_gap` fractals after the first; the V2 form's `src_frac_gap` places the second
    source fractal likewise (inferred from its name: the page documents V1 only)."""
    api = "load_data_with_transpose"
    if not isinstance(params, LoadData2dTransposeParams | LoadData2dTransposeParamsV2):
        raise TypeError(f"asc.{api}(dst, src, asc.LoadData2dTransposeParams(...) or LoadData2dTransposeParamsV2(...))")
    _pool_of(dst, api, "dst", ("L0A", "L0B"))
    _pool_of(src, api, "src", ("L1",))
    if dst.dtype is not src.dtype:
        fail(api, f"dst is {dst.dtype.name} but src is {src.dtype.name}: the load moves one element type")
    isz = dst.dtype.itemsize
    nfrac = 1 if isz == 2 else 2
    rep, start, sstride = int(params.repeat_times), int(params.start_index), int(params.src_stride)
    gap, fgap = int(params.dst_gap), int(params.dst_frac_gap)
    sgap = int(getattr(params, "src_frac_gap", 0))
    text = (f"{type(params).__name__}(start_index={start}, repeat_times={rep}, src_stride={sstride}, "
            f"dst_gap={gap}, dst_frac_gap={fgap})")
    if not (0 <= rep <= 255 and min(start, sstride, gap, fgap, sgap) >= 0 and max(start, sstride, gap, fgap, sgap)
            <= 65535):
        fail(api, f"{text} is out of range: repeat_times 0..255, the others 0..65535")
    if rep == 0:
        return
    square = nfrac * FRACTAL  # the unit of start_index and src_stride: the merged square
    s_first, s_step = src.lo + start * square, sstride * square
    s_hi = s_first + (rep - 1) * s_step + ((nfrac - 1) * (1 + sgap) + 1) * FRACTAL
    if s_hi > src.end:
        fail(api, f"{text} reads L1 bytes up to {s_hi}, past the end of src at byte {src.end}")
    slots = (np.arange(rep)[:, None] * (1 + gap) + np.arange(nfrac)[None, :] * (1 + fgap)).ravel()
    if len(np.unique(slots)) < slots.size:
        fail(api, f"{text}: wrong fractal layout: the destination fractals of different repeats overlap "
                  f"({nfrac} fractals per repeat but repeats start only {1 + gap} fractals apart)")
    _room(dst, (int(slots.max()) + 1) * FRACTAL, api, "dst", f"for {rep} repeats x {nfrac} fractals")
    sp, dp = src.buf.pool, dst.buf.pool
    for arr_s, arr_d in ((sp.bytes, dp.bytes), (sp.wview, dp.wview)):
        s = _strided(arr_s[s_first:], shape=(rep, nfrac, FRACTAL), strides=(s_step, (1 + sgap) * FRACTAL, 1))
        if isz == 1:  # 32 x 32 bytes: rows of fractal 0 then fractal 1
            t = s.reshape(rep, 32, 32).transpose(0, 2, 1).reshape(rep, 2, FRACTAL)
        elif isz == 2:
            t = s.reshape(rep, 16, 16, 2).transpose(0, 2, 1, 3).reshape(rep, 1, FRACTAL)
        else:  # (rep, fractal f, row i, col j, byte) -> square[i][8f + j] -> transposed -> halves
            sq = s.reshape(rep, 2, 16, 8, isz).transpose(0, 2, 1, 3, 4).reshape(rep, 16, 16, isz)
            t = sq.transpose(0, 2, 1, 3).reshape(rep, 16, 2, 8, isz).transpose(0, 2, 1, 3, 4).reshape(rep, 2, FRACTAL)
        d = _strided(arr_d[dst.lo:], shape=(rep, nfrac, FRACTAL), strides=((1 + gap) * FRACTAL, (1 + fgap) * FRACTAL, 1),
                     writeable=True)
        d[...] = t


# -- the Cube: L0A x L0B -> L0C --------------------------------------------------------------------

def _fractals(t: LocalTensor, nbytes: int, dt: DataType) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, per-element written flags) of the first `nbytes` of a local tensor; flags None when
    every byte is written (the common case, found without numpy)."""
    pool = t.buf.pool
    vals = pool.bytes[t.lo : t.lo + nbytes].view(dt.np)
    if pool.written.find(0, t.lo, t.lo + nbytes) < 0:
        return vals, None
    return vals, pool.wview[t.lo : t.lo + nbytes].reshape(-1, dt.itemsize).min(axis=1)


def _first_hole(flags: np.ndarray) -> tuple[int, int]:
    r, c = np.argwhere(flags == 0)[0]
    return int(r), int(c)


def _hole(api: str, role: str, mem: str, r: int, c: int, frac: tuple[int, int], k: int, dt: DataType, k_axis: int,
          layout: str) -> None:
    """Fault for an unwritten operand element at (r, c); `k_axis` says which index runs along K."""
    kk = (r, c)[k_axis]
    where = f"{role}[{r}][{c}] (fractal {frac}) in {mem}"
    if kk >= k:
        fail(api, f"k={k} is not a multiple of the cube unit {c0(dt)} ({dt.name}: 32 bytes): the Cube reads whole "
             f"fractals, and {where}, in the K padding, was never written, so it holds garbage. Zero the padding "
             "(Nd2Nz zero-fills the tail of each 32-byte row) or make K a multiple of the unit")
    fail(api, f"reads {where}, which was never written since the buffer was allocated: {mem} does not hold the "
              f"{layout} layout mmad expects (a fractal that load_data did not fill: check start_index, "
              "repeat_times and src_stride)")


def mmad(dst: LocalTensor, fm: LocalTensor, filter: LocalTensor, *args: Any, **kwargs: Any) -> None:
    """`mmad(dst_l0c, a_l0a, b_l0b[, bias_bt], MmadParams(m, n, k, ...))`: C (+)= A @ B (+ bias)."""
    api = "mmad"
    rest = list(args) + list(kwargs.values())
    bias = rest.pop(0) if len(rest) == 2 else None
    if len(rest) != 1 or not isinstance(rest[0], MmadParams):
        raise TypeError("asc.mmad(dst, fm, filter, params) or asc.mmad(dst, fm, filter, bias, params) with "
                        "asc.MmadParams")
    p = rest[0]
    _pool_of(fm, api, "fm (A)", ("L0A",))
    _pool_of(filter, api, "filter (B)", ("L0B",))
    _pool_of(dst, api, "dst (C)", ("L0C",))
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
    _room(fm, mp * kp * isz, api, "fm (A)", f"m={m} x k={k} (fractals {mp} x {kp} {at.name})")
    _room(filter, kp * np_ * isz, api, "filter (B)", f"k={k} x n={n} (fractals {kp} x {np_} {bt.name})")
    _room(dst, mp * np_ * 4, api, "dst (C)", f"m={m} x n={n} (fractals {mp} x {np_} {ct.name})")
    pool = dst.buf.pool
    c3 = pool.bytes[dst.lo : dst.lo + mp * np_ * 4].view(ct.np).reshape(nb, mp, 16)
    w3 = pool.wview[dst.lo : dst.lo + mp * np_ * 4].reshape(nb, mp, 64)
    accumulate = p.is_bias or not p.cmatrix_init_val
    if accumulate and pool.written.find(0, dst.lo, dst.lo + mp * np_ * 4) >= 0 and \
            not _nz_get(w3.reshape(nb, mp, 16, 4).min(axis=3), m, n).all():
        fail(api, f"accumulates (cmatrix_init_val=False) into L0C, but C[{m} x {n}] was not all written by an "
                  "earlier mmad: the first mmad of a K loop must set cmatrix_init_val=True")
    av, af = _fractals(fm, mp * kp * isz, at)
    a = av.reshape(mb, kb, 16, k0).transpose(0, 2, 1, 3).reshape(mp, kp)[:m]
    fa = None if af is None else af.reshape(mb, kb, 16, k0).transpose(0, 2, 1, 3).reshape(mp, kp)[:m]
    if fa is not None and not fa.all():
        r, c = _first_hole(fa)
        _hole(api, "A", "L0A", r, c, (r // 16, c // k0), k, at, 1, "zZ")
    bv, bf = _fractals(filter, kp * np_ * isz, bt)
    b = bv.reshape(kb, nb, 16, k0).transpose(0, 3, 1, 2).reshape(kp, np_)[:, :n]
    fb = None if bf is None else bf.reshape(kb, nb, 16, k0).transpose(0, 3, 1, 2).reshape(kp, np_)[:, :n]
    if fb is not None and not fb.all():
        r, c = _first_hole(fb)
        _hole(api, "B", "L0B", r, c, (r // k0, c // 16), k, bt, 0, "nZ (each fractal transposed)")
    acc = np.matmul(as_float(a, at), as_float(b, bt))
    if accumulate:
        acc += _nz_get(c3, m, n)
    if bias is not None:
        acc += _bias(bias, n, ct, api)
    _nz_put(c3, acc.astype(ct.np, copy=False), m, n)
    if m == mp and n == np_:
        w3[...] = 1
    else:
        _nz_put(w3.reshape(nb, mp, 16, 4), np.ones((m, n, 4), np.uint8), m, n)
    ctx.CORE.launch.cube_flops += 2 * mp * np_ * kp  # whole fractals: what the Cube spends time on


def _bias(bias: LocalTensor, n: int, ct: DataType, api: str) -> np.ndarray:
    _pool_of(bias, api, "bias", ("BT",))
    if bias.dtype is not ct:
        fail(api, f"bias is {bias.dtype.name} but C is {ct.name}: the BiasTable holds the accumulator type")
    hi = bias.bounds(n, api)
    pool = bias.buf.pool
    bad = pool.written.find(0, bias.lo, hi)
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


# -- mix launches ---------------------------------------------------------------------------------

def mix_ratio(fn: Any, options: dict[str, Any], chip: Any) -> tuple[int, bool, bool]:
    """(AIVs running the body per launched block, whether each block's AIC runs it too, whether every
    core is an AIC). `kernel_type` says so (pyasc `runtime/config.py` KernelType: AIC_ONLY and the
    MIX_AIC_1_0 / MIX_AIC_HARD_SYNC cube kernels run on AICs; MIX_AIC_1_1 / MIX_AIC_1_2 blocks are
    one AIC and one / two AIVs, all running the body, which branches on `ascend_is_aic()`). And pyasc
    compiles a kernel that builds an `asc.adv.Matmul` without `matmul_cube_only=True` or a
    kernel_type as a MIX kernel on A2/A3: each block is one AIC serving the Matmul plus two AIVs
    running the body, AIV `block_idx * 2 + sub_block_idx` of `2 * block_num` (reference §2.1,
    "logical AIV"); that AIC runs no user code, so it is not emulated as a core."""
    kt = options.get("kernel_type")
    if kt is not None:
        kt = getattr(kt, "value", kt)
        if kt in (1, 3, 5):  # AIC_ONLY, MIX_AIC_HARD_SYNC, MIX_AIC_1_0
            return 1, False, True
        if kt in (6, 7):  # MIX_AIC_1_1, MIX_AIC_1_2
            return kt - 5, True, False
        return 1, False, False
    if options.get("matmul_cube_only"):
        return 1, False, True
    if not chip.separated or "Matmul" not in fn.__code__.co_names:
        return 1, False, False
    return 2, False, False
